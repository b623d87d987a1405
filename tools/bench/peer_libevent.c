// SPDX-License-Identifier: GPL-2.0
/*
 * libevent's timers (Debian's libevent 2.1): a binary min-heap of struct
 * event ordered by due time; equal times fire in no promised order.
 *
 * A tick is a microsecond of the base's clock. The events live in the
 * bench's array (event_assign()); event_add() with a relative timeout
 * and event_del() are called directly. Expiry runs the loop as a program
 * would: the clock (mock_clock.c) is set to the time due, then one
 * event_base_loop(EVLOOP_NONBLOCK | EVLOOP_ONCE): libevent's epoll
 * dispatch (which returns at once, no descriptor being ready), its
 * timeout_process() moving every due event to the active queue, and the
 * callbacks, which record each timer and restart it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <event2/event.h>
#include <event2/event_struct.h>

#include "bench.h"

#define EV_BASE_US	1000000ull

struct levent_peer {
	struct event_base	*base;
	char			*events;
	size_t			size;		/* event_get_struct_event_size() */
	uint64_t		*when;
	uint64_t		clock;
	const struct seq	*s;
	struct out		*o;
	uint64_t		k;
	uint64_t		restart;
	int			mode;
};

/* Callbacks get the element's number; the peer is this one. */
static struct levent_peer *current;

static bool lev_can(enum workload wl)
{
	(void)wl;
	return true;
}

static struct event *lev_event(struct levent_peer *p, uint32_t e)
{
	return (struct event *)(p->events + e * p->size);
}

static void lev_clock(struct levent_peer *p, uint64_t tick)
{
	p->clock = tick;
	mock_clock_set_ns((EV_BASE_US + tick) * 1000);
}

static void lev_start(struct levent_peer *p, uint32_t e, uint64_t t)
{
	struct timeval tv;
	uint64_t rel = t - p->clock;

	p->when[e] = t;
	tv.tv_sec = rel / 1000000;
	tv.tv_usec = rel % 1000000;
	event_add(lev_event(p, e), &tv);
}

static void lev_fired(evutil_socket_t fd, short what, void *arg)
{
	struct levent_peer *p = current;
	uint32_t e = (uintptr_t)arg;

	(void)fd;
	(void)what;
	out_add(p->o, p->when[e], e);
	if (p->mode == W1_HOLD)
		lev_start(p, e, p->when[e] + p->s->t[p->k++]);
	else if (p->mode == W3_REFRESH)
		lev_start(p, e, w3_restart(e, p->restart));
}

static void *lev_create(const struct seq *s)
{
	struct levent_peer *p = calloc(1, sizeof(*p));
	struct event_config *cfg = event_config_new();
	uint32_t i;

	if (!p || !cfg)
		abort();
	mock_clock_on(true);
	lev_clock(p, 0);
	event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
	event_config_require_features(cfg, 0);
	p->base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	p->size = event_get_struct_event_size();
	p->events = calloc(s->n, p->size);
	p->when = calloc(s->n, sizeof(*p->when));
	if (!p->base || !p->events || !p->when)
		abort();
	p->s = s;
	current = p;
	for (i = 0; i < s->n; i++) {
		event_assign(lev_event(p, i), p->base, -1, 0, lev_fired,
			     (void *)(uintptr_t)i);
		if (s->init)
			lev_start(p, i, s->init[i]);
	}
	mock_clock_on(false);
	return p;
}

static void lev_destroy(void *arg)
{
	struct levent_peer *p = arg;
	uint32_t i;

	for (i = 0; i < p->s->n; i++)
		event_del(lev_event(p, i));
	event_base_free(p->base);
	free(p->events);
	free(p->when);
	free(p);
}

/* One loop iteration at @tick: everything due at or before it fires. */
static void lev_loop(struct levent_peer *p, uint64_t tick)
{
	lev_clock(p, tick);
	event_base_loop(p->base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
}

static void lev_expire(struct levent_peer *p, uint64_t tick)
{
	uint64_t before = p->o->n;

	lev_loop(p, tick);
	if (p->o->n == before) {
		fprintf(stderr, "bench: libevent fired no timer at tick %llu\n",
			(unsigned long long)tick);
		exit(1);
	}
}

static void lev_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		    struct out *o)
{
	struct levent_peer *p = arg;
	uint64_t k;
	uint32_t e;

	current = p;
	p->o = o;
	p->mode = s->wl;
	/* Other loops share the mock clock: set it back to this one's. */
	mock_clock_on(true);
	lev_clock(p, p->clock);
	switch (s->wl) {
	case W1_HOLD:
		p->k = from;
		while (p->k < to)
			lev_expire(p, s->exp_t[p->k]);
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			e = s->id[k];
			event_del(lev_event(p, e));
			lev_start(p, e, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			e = s->id[k];
			if (e != BENCH_ADVANCE) {
				/* event_add() on a pending event moves it. */
				lev_start(p, e, s->t[k]);
				continue;
			}
			p->restart = s->t[k];
			lev_loop(p, s->t[k] - 1);
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				lev_start(p, e, s->t[k]);
			lev_expire(p, s->t[k]);
		}
		break;
	}
	mock_clock_on(false);
}

static void lev_drain(void *arg, const struct seq *s, struct out *o)
{
	struct levent_peer *p = arg;

	current = p;
	p->o = o;
	p->mode = W2_CHURN;
	mock_clock_on(true);
	lev_loop(p, s->end_clock + 2 * BENCH_HORIZON);
	mock_clock_on(false);
}

static size_t lev_elem_bytes(void)
{
	return event_get_struct_event_size();
}
static const char *lev_version(void)
{
	return event_get_version();
}

const struct peer peer_libevent = {
	.name = "libevent",
	.how = "event_add/event_del; expiry: clock set to the time due, one event_base_loop(EVLOOP_NONBLOCK|EVLOOP_ONCE)",
	.fifo = false,
	.can = lev_can,
	.create = lev_create,
	.destroy = lev_destroy,
	.run = lev_run,
	.drain = lev_drain,
	.version = lev_version,
	.elem_bytes = lev_elem_bytes,
};
