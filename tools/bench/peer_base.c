// SPDX-License-Identifier: GPL-2.0
/*
 * timeq's timers on a timer base (module/base.c), refreshed as a flow's
 * packets refresh it: timeq_timer_store() (inline, include/linux/timeq.h)
 * when the time is later (module/fast.c, "Refresh by a store"), and
 * timeq_fast_update() from softirq context, the lanes, when it is
 * earlier. W3 only, the workloads of timers that are moved.
 *
 * The base's clock is compat's virtual one, a tick a nanosecond, at 0 to
 * begin with. W3's advance to t sets it to t - 1 and calls timeq_expire():
 * everything before t expires, each callback recording its timer, and a
 * timer a store moved later is filed again there, in the same call (that
 * cost is in the figure); the expired timers then restart with
 * timeq_timer_arm(), as their owner would. A fast update handed off to the
 * slow path is applied at once, as the work would (compat runs the
 * irq_work and the work when asked). The module's own sources, built
 * unchanged against tools/testing/queue/compat with COMPAT_BENCH locks
 * and NDEBUG.
 *
 * Not FIFO: a timer moved by a store takes its place among equal times
 * when it is filed again (fast.c), so only the times are compared.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/timeq.h>

#include "../../module/clock.h"
#include "../../module/queue.h"
#include "bench.h"

struct tb_peer {
	struct timeq_base	*base;
	struct timeq_timer	*timer;
	struct out		*out;		/* where the callbacks record */
	char			shape[48];
};

/* The callbacks of one peer run inside its own calls, one at a time. */
static struct tb_peer *tb_running;

static bool tb_can(enum workload wl)
{
	return wl == W3_REFRESH || wl == W3_MOVE;
}

static void tb_fired(struct timeq_timer *timer)
{
	struct tb_peer *p = tb_running;

	out_add(p->out, timeq_node_time(&timer->node), timer - p->timer);
}

static void *tb_create(const struct seq *s)
{
	struct tb_peer *p = calloc(1, sizeof(*p));
	unsigned int ds, bs;
	uint32_t i;

	if (!p)
		abort();
	timeq_bench_shape(BENCH_HORIZON, s->n, s->mean, &ds, &bs, NULL);
	compat_clock_set(0);
	p->base = timeq_base_create(1, BENCH_HORIZON, 1u << ds, 1u << bs,
				    GFP_KERNEL);
	p->timer = calloc(s->n, sizeof(*p->timer));
	if (IS_ERR(p->base) || !p->timer)
		abort();
	snprintf(p->shape, sizeof(p->shape), "delta 2^%u M 2^%u", ds, bs);
	for (i = 0; i < s->n; i++) {
		timeq_timer_init(&p->timer[i], tb_fired);
		if (timeq_timer_arm(p->base, &p->timer[i], s->init[i]))
			abort();
	}
	return p;
}

static void tb_destroy(void *arg)
{
	struct tb_peer *p = arg;

	timeq_base_destroy(p->base);
	free(p->timer);
	free(p);
}

/* What stayed with the slow path: the kick and the work, as they would. */
static void tb_slow(struct tb_peer *p)
{
	while (compat_run_irq_work(&p->base->kick) ||
	       compat_run_work(&p->base->work))
		;
}

/* Expire everything before @time into @o. */
static void tb_expire(struct tb_peer *p, uint64_t time, struct out *o)
{
	compat_clock_set(time - 1);
	p->out = o;
	tb_running = p;
	timeq_expire(p->base);
	tb_running = NULL;
}

static void tb_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		   struct out *o)
{
	struct tb_peer *p = arg;
	struct timeq_timer *timer;
	uint64_t k, x;
	int ret;

	for (k = from; k < to; k++) {
		if (s->id[k] != BENCH_ADVANCE) {
			timer = &p->timer[s->id[k]];
			if (s->t[k] > timeq_timer_expires(timer) &&
			    timeq_timer_store(timer, s->t[k]))
				continue;
			local_bh_disable();
			ret = timeq_fast_update(p->base, timer, s->t[k]);
			local_bh_enable();
			if (ret == TIMEQ_DEFERRED)
				tb_slow(p);
			continue;
		}
		x = o->n;
		tb_expire(p, s->t[k], o);
		for (; x < o->n; x++)
			timeq_timer_arm(p->base, &p->timer[o->id[x]],
					w3_restart(o->id[x], s->t[k]));
	}
}

/* Everything left, in order: the clock past the last time there can be. */
static void tb_drain(void *arg, const struct seq *s, struct out *o)
{
	struct tb_peer *p = arg;

	tb_slow(p);
	tb_expire(p, s->end_clock + BENCH_HORIZON + 1, o);
}

static size_t tb_elem_bytes(void)
{
	return sizeof(struct timeq_timer);
}

/* The shape, and what the refreshes were: stores, and timers filed again. */
static const char *tb_shape(void *arg)
{
	struct tb_peer *p = arg;
	struct timeq_fast_stats fs;
	static char buf[96];

	timeq_get_fast_stats(p->base, &fs);
	snprintf(buf, sizeof(buf), "%s, %.0f%% stores, %llu re-filed", p->shape,
		 fs.applied ? 100.0 * fs.stored / fs.applied : 0.0,
		 (unsigned long long)fs.refiled);
	return buf;
}

const struct peer peer_timeq_store = {
	.name = "timeq-store",
	.how = "a base's timers: timeq_timer_store() when later, else timeq_fast_update(); timeq_expire() at the clock, timeq_timer_arm() to restart",
	.fifo = false,
	.can = tb_can,
	.create = tb_create,
	.destroy = tb_destroy,
	.run = tb_run,
	.drain = tb_drain,
	.elem_bytes = tb_elem_bytes,
	.shape = tb_shape,
};
