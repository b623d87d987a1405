// SPDX-License-Identifier: GPL-2.0
/*
 * libuv's timers (Debian's libuv1), a binary heap ordered by due time and
 * then by start order, so equal times fire first in, first out.
 *
 * A tick is a millisecond of the loop's clock. uv_timer_start() and
 * uv_timer_stop() are called directly. Expiry, which libuv cannot do but
 * by running its loop, is driven as a program would see it: the clock
 * (mock_clock.c) is set to the next time due, then one
 * uv_run(UV_RUN_NOWAIT) runs libuv's own timer code, which fires every
 * timer due; a callback records the timer and restarts it. With no file
 * descriptor open, the loop makes no system call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "bench.h"

/* The loop's clock starts a second in, at tick 0. */
#define UV_BASE_MS	1000ull

struct uv_peer {
	uv_loop_t		loop;
	uv_timer_t		*timer;
	uint64_t		*when;		/* the tick each timer is due at */
	uint64_t		clock;		/* the tick the loop's clock reads */
	const struct seq	*s;
	struct out		*o;
	uint64_t		k;		/* W1: the next op */
	uint64_t		restart;	/* W3: the clock restarts count from */
};

static bool uvp_can(enum workload wl)
{
	(void)wl;
	return true;
}

static void uvp_clock(struct uv_peer *p, uint64_t tick)
{
	p->clock = tick;
	mock_clock_set_ns((UV_BASE_MS + tick) * 1000000);
}

static void uvp_start(struct uv_peer *p, uint32_t e, uv_timer_cb cb, uint64_t t)
{
	p->when[e] = t;
	uv_timer_start(&p->timer[e], cb, t - p->clock, 0);
}

static void uvp_fired_hold(uv_timer_t *h)
{
	struct uv_peer *p = h->data;
	uint32_t e = h - p->timer;

	out_add(p->o, p->when[e], e);
	uvp_start(p, e, uvp_fired_hold, p->when[e] + p->s->t[p->k++]);
}

static void uvp_fired_restart(uv_timer_t *h)
{
	struct uv_peer *p = h->data;
	uint32_t e = h - p->timer;

	out_add(p->o, p->when[e], e);
	uvp_start(p, e, uvp_fired_restart, w3_restart(e, p->restart));
}

static void uvp_fired_once(uv_timer_t *h)
{
	struct uv_peer *p = h->data;
	uint32_t e = h - p->timer;

	out_add(p->o, p->when[e], e);
}

static uv_timer_cb uvp_cb(enum workload wl)
{
	return wl == W1_HOLD ? uvp_fired_hold :
	       wl == W3_REFRESH ? uvp_fired_restart : uvp_fired_once;
}

static void *uvp_create(const struct seq *s)
{
	struct uv_peer *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p)
		abort();
	p->timer = calloc(s->n, sizeof(*p->timer));
	p->when = calloc(s->n, sizeof(*p->when));
	if (!p->timer || !p->when)
		abort();
	mock_clock_on(true);
	uvp_clock(p, 0);
	if (uv_loop_init(&p->loop))
		abort();
	p->s = s;
	for (i = 0; i < s->n; i++) {
		uv_timer_init(&p->loop, &p->timer[i]);
		p->timer[i].data = p;
		if (s->init)
			uvp_start(p, i, uvp_cb(s->wl), s->init[i]);
	}
	mock_clock_on(false);
	return p;
}

static void uvp_destroy(void *arg)
{
	struct uv_peer *p = arg;
	uint32_t i;

	mock_clock_on(true);
	for (i = 0; i < p->s->n; i++)
		uv_close((uv_handle_t *)&p->timer[i], NULL);
	uv_run(&p->loop, UV_RUN_DEFAULT);
	uv_loop_close(&p->loop);
	mock_clock_on(false);
	free(p->timer);
	free(p->when);
	free(p);
}

/* Run the loop once at @tick; it must fire something. */
static void uvp_expire(struct uv_peer *p, uint64_t tick)
{
	uint64_t before = p->o->n;

	uvp_clock(p, tick);
	uv_run(&p->loop, UV_RUN_NOWAIT);
	if (p->o->n == before) {
		fprintf(stderr, "bench: libuv fired no timer at tick %llu\n",
			(unsigned long long)tick);
		exit(1);
	}
}

static void uvp_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		    struct out *o)
{
	struct uv_peer *p = arg;
	uint64_t k;
	uint32_t e;

	p->o = o;
	/* Other loops share the mock clock: set it back to this one's. */
	mock_clock_on(true);
	uvp_clock(p, p->clock);
	switch (s->wl) {
	case W1_HOLD:
		p->k = from;
		while (p->k < to)
			uvp_expire(p, s->exp_t[p->k]);
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			e = s->id[k];
			uv_timer_stop(&p->timer[e]);
			uvp_start(p, e, uvp_fired_once, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			e = s->id[k];
			if (e != BENCH_ADVANCE) {
				uvp_start(p, e, uvp_fired_restart, s->t[k]);
				continue;
			}
			/* libuv fires what is due at or before its clock. */
			p->restart = s->t[k];
			uvp_clock(p, s->t[k] - 1);
			uv_run(&p->loop, UV_RUN_NOWAIT);
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				uvp_start(p, e, uvp_fired_once, s->t[k]);
			uvp_expire(p, s->t[k]);
		}
		break;
	}
	mock_clock_on(false);
}

static void uvp_drain(void *arg, const struct seq *s, struct out *o)
{
	struct uv_peer *p = arg;
	uint32_t e;

	p->o = o;
	mock_clock_on(true);
	for (e = 0; e < s->n; e++)
		p->timer[e].timer_cb = uvp_fired_once;
	uvp_clock(p, s->end_clock + 2 * BENCH_HORIZON);
	uv_run(&p->loop, UV_RUN_NOWAIT);
	mock_clock_on(false);
}

static size_t uvp_elem_bytes(void)
{
	return sizeof(uv_timer_t);
}
static const char *uvp_version(void)
{
	return uv_version_string();
}

const struct peer peer_libuv = {
	.name = "libuv",
	.how = "uv_timer_start/stop; expiry: clock set to the time due, one uv_run(UV_RUN_NOWAIT)",
	.fifo = true,
	.can = uvp_can,
	.create = uvp_create,
	.destroy = uvp_destroy,
	.run = uvp_run,
	.drain = uvp_drain,
	.version = uvp_version,
	.elem_bytes = uvp_elem_bytes,
};
