// SPDX-License-Identifier: GPL-2.0
/*
 * libev's timers (Debian's libev 4.33): a 4-ary heap of ev_timer, due
 * times as doubles in seconds; equal times fire in no promised order.
 *
 * A tick is a microsecond of the loop's clock. ev_timer_start() and
 * ev_timer_stop() are called directly; a refresh (W3) is ev_timer_again()
 * with the new delay in ->repeat, as libev's manual advises for
 * time-outs that keep moving ("Be smart about timeouts"). Expiry runs the
 * loop as a program would: the clock (mock_clock.c) is set half a tick
 * past the time due (libev fires what is strictly before its clock), then
 * one ev_run(EVRUN_NOWAIT): libev's epoll poll, which returns at once, its
 * timers_reify() and the callbacks, which record each timer and restart
 * it.
 */
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define LEV_BASE_US	1000000ull

struct ev_peer {
	struct ev_loop		*loop;
	ev_timer		*timer;
	uint64_t		*when;
	uint64_t		clock;		/* in ticks; the loop reads + 0.5 */
	const struct seq	*s;
	struct out		*o;
	uint64_t		k;
	uint64_t		restart;
	int			mode;
};

static bool evp_can(enum workload wl)
{
	(void)wl;
	return true;
}

static void evp_clock(struct ev_peer *p, uint64_t tick)
{
	p->clock = tick;
	mock_clock_set_ns((LEV_BASE_US + tick) * 1000 + 500);
}

/* The delay from the loop's clock (tick + 0.5) to @t, in seconds. */
static double evp_delay(struct ev_peer *p, uint64_t t)
{
	return ((double)t - (double)p->clock - 0.5) * 1e-6;
}

static void evp_start(struct ev_peer *p, uint32_t e, uint64_t t)
{
	ev_timer *w = &p->timer[e];

	p->when[e] = t;
	ev_timer_set(w, evp_delay(p, t), 0.);
	ev_timer_start(p->loop, w);
}

/* W3: move a started timer, or restart an expired one. */
static void evp_again(struct ev_peer *p, uint32_t e, uint64_t t)
{
	ev_timer *w = &p->timer[e];

	p->when[e] = t;
	w->repeat = evp_delay(p, t);
	ev_timer_again(p->loop, w);
}

static void evp_fired(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ev_peer *p = ev_userdata(loop);
	uint32_t e = w - p->timer;

	(void)revents;
	out_add(p->o, p->when[e], e);
	if (p->mode == W1_HOLD)
		evp_start(p, e, p->when[e] + p->s->t[p->k++]);
	else if (p->mode == W3_REFRESH)
		evp_again(p, e, w3_restart(e, p->restart));
}

static void *evp_create(const struct seq *s)
{
	struct ev_peer *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p)
		abort();
	p->timer = calloc(s->n, sizeof(*p->timer));
	p->when = calloc(s->n, sizeof(*p->when));
	if (!p->timer || !p->when)
		abort();
	mock_clock_on(true);
	evp_clock(p, 0);
	p->loop = ev_loop_new(EVBACKEND_EPOLL | EVFLAG_NOENV | EVFLAG_NOTIMERFD);
	if (!p->loop)
		abort();
	ev_set_userdata(p->loop, p);
	ev_now_update(p->loop);
	p->s = s;
	for (i = 0; i < s->n; i++) {
		ev_init(&p->timer[i], evp_fired);
		if (!s->init)
			continue;
		if (s->wl == W3_REFRESH || s->wl == W3_MOVE)
			evp_again(p, i, s->init[i]);
		else
			evp_start(p, i, s->init[i]);
	}
	mock_clock_on(false);
	return p;
}

static void evp_destroy(void *arg)
{
	struct ev_peer *p = arg;
	uint32_t i;

	for (i = 0; i < p->s->n; i++)
		ev_timer_stop(p->loop, &p->timer[i]);
	ev_loop_destroy(p->loop);
	free(p->timer);
	free(p->when);
	free(p);
}

static void evp_loop(struct ev_peer *p, uint64_t tick)
{
	evp_clock(p, tick);
	ev_run(p->loop, EVRUN_NOWAIT);
}

static void evp_expire(struct ev_peer *p, uint64_t tick)
{
	uint64_t before = p->o->n;

	evp_loop(p, tick);
	if (p->o->n == before) {
		fprintf(stderr, "bench: libev fired no timer at tick %llu\n",
			(unsigned long long)tick);
		exit(1);
	}
}

static void evp_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		    struct out *o)
{
	struct ev_peer *p = arg;
	uint64_t k;
	uint32_t e;

	p->o = o;
	p->mode = s->wl;
	/* Other loops share the mock clock: set it back to this one's. */
	mock_clock_on(true);
	evp_clock(p, p->clock);
	switch (s->wl) {
	case W1_HOLD:
		p->k = from;
		while (p->k < to)
			evp_expire(p, s->exp_t[p->k]);
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			e = s->id[k];
			ev_timer_stop(p->loop, &p->timer[e]);
			evp_start(p, e, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			e = s->id[k];
			if (e != BENCH_ADVANCE) {
				evp_again(p, e, s->t[k]);
				continue;
			}
			/* Fire what is before t[k]: the clock reads t[k] - 0.5. */
			p->restart = s->t[k];
			evp_loop(p, s->t[k] - 1);
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				evp_start(p, e, s->t[k]);
			evp_expire(p, s->t[k]);
		}
		break;
	}
	mock_clock_on(false);
}

static void evp_drain(void *arg, const struct seq *s, struct out *o)
{
	struct ev_peer *p = arg;
	uint32_t e;

	p->o = o;
	p->mode = W2_CHURN;
	mock_clock_on(true);
	/* A repeating timer (W3) would fire again: make each the last. */
	for (e = 0; e < s->n; e++)
		p->timer[e].repeat = 0;
	evp_loop(p, s->end_clock + 2 * BENCH_HORIZON);
	mock_clock_on(false);
}

static size_t evp_elem_bytes(void)
{
	return sizeof(ev_timer);
}
static const char *evp_version(void)
{
	static char v[16];

	snprintf(v, sizeof(v), "%d.%d", ev_version_major(), ev_version_minor());
	return v;
}

const struct peer peer_libev = {
	.name = "libev",
	.how = "ev_timer_start/stop, ev_timer_again to refresh; expiry: clock set to the time due, one ev_run(EVRUN_NOWAIT)",
	.fifo = false,
	.can = evp_can,
	.create = evp_create,
	.destroy = evp_destroy,
	.run = evp_run,
	.drain = evp_drain,
	.version = evp_version,
	.elem_bytes = evp_elem_bytes,
};
