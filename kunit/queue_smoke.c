// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_smoke.ko: for kernels without KUnit, such as Debian's stock ones.
 * Loading it runs a short differential check of the queue against the
 * reference model on every shape of diff_shapes[], with timeq_check()
 * after every step, the same driver as the KUnit suite; it refuses to load
 * (-EINVAL) and says why if anything disagrees. Then it arms timers in a
 * timer base (CLOCK_MONOTONIC), half from the slow side and half through
 * the fast path with bottom halves disabled, and waits for every callback:
 * each must run once and none early. It takes the fast path through each
 * of its outcomes once. Last it measures how late callbacks run (lateness.c)
 * and prints it. Nothing stays behind: it can be unloaded at once.
 */
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/timeq.h>

#include "../module/clock.h"
#include "../module/queue.h"
#include "lateness.h"
#include "queue_diff.h"

static unsigned int steps = 2000;
module_param(steps, uint, 0444);
MODULE_PARM_DESC(steps, "operations per shape (default 2000)");

#define SMOKE_TIMERS	200
#define SMOKE_GRAN	1000		/* ns per tick */
#define SMOKE_SPREAD	20000		/* ticks: 20 ms */

struct smoke_timer {
	struct timeq_timer	timer;
	struct completion	*done;
	atomic_t		*left;
	atomic_t		*early;
	int			fired;
};

static void smoke_fire(struct timeq_timer *timer)
{
	struct smoke_timer *st = container_of(timer, struct smoke_timer, timer);

	if (ktime_get_ns() < timeq_node_time(&timer->node) * SMOKE_GRAN)
		atomic_inc(st->early);
	st->fired++;
	if (atomic_dec_and_test(st->left))
		complete(st->done);
}

static int smoke_clock(void)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(SMOKE_TIMERS), early = ATOMIC_INIT(0);
	unsigned int i, wrong = 0;
	struct timeq_base *base;
	struct smoke_timer *st;
	int err = 0;
	u64 t;

	st = kcalloc(SMOKE_TIMERS, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	base = timeq_base_create(SMOKE_GRAN, 1 << 20, 0, 0, GFP_KERNEL);
	if (IS_ERR(base)) {
		err = PTR_ERR(base);
		goto out_free;
	}
	for (i = 0; i < SMOKE_TIMERS && !err; i++) {
		timeq_timer_init(&st[i].timer, smoke_fire);
		st[i].done = &done;
		st[i].left = &left;
		st[i].early = &early;
		t = timeq_base_ticks(base) + get_random_u32() % SMOKE_SPREAD;
		if (i % 2) {
			err = timeq_timer_arm(base, &st[i].timer, t);
		} else {
			local_bh_disable();
			err = timeq_fast_update(base, &st[i].timer, t);
			local_bh_enable();
			err = err < 0 ? err : 0;
		}
	}
	if (err) {
		pr_err("arming timer %u: error %d\n", i - 1, err);
	} else if (!wait_for_completion_timeout(&done, 10 * HZ)) {
		pr_err("%d of %d timers never fired\n", atomic_read(&left),
		       SMOKE_TIMERS);
		err = -EINVAL;
	}
	for (i = 0; i < SMOKE_TIMERS; i++) {
		timeq_delete_sync(base, &st[i].timer);
		wrong += !err && st[i].fired != 1;
	}
	timeq_base_destroy(base);
	if (!err && (wrong || atomic_read(&early))) {
		pr_err("%u timers fired other than once, %d early\n", wrong,
		       atomic_read(&early));
		err = -EINVAL;
	}
	if (!err)
		pr_info("%d timers over %d us: every one fired once, none early\n",
			SMOKE_TIMERS, SMOKE_SPREAD * SMOKE_GRAN / 1000);
out_free:
	kfree(st);
	return err;
}

/*
 * The fast path's three outcomes, each checked: applied in place, refused
 * beyond the horizon, and deferred while a lock it tries is taken (here,
 * by this function), counted for that reason. With timeq's tracepoints
 * enabled each fires its event, which tools/testing/vm/trace.sh looks for.
 *
 * The fast path is a timer base's, and the lock that of the base's queue
 * (tq_base_queue(), module/clock.h). Ticks of 100 ms, and buckets of 64 of
 * them, keep both times seconds from due and in the two buckets of the
 * near lane, which takes head_lock first.
 */
#define OUTCOME_GRAN	(100 * NSEC_PER_MSEC)

static int smoke_fast_outcomes(void)
{
	int applied, refused, deferred = -ENOENT, deleted, err = 0;
	struct timeq_fast_stats fs;
	struct timeq_timer timer;
	struct timeq_base *base;
	struct timeq *q;
	u64 now;

	base = timeq_base_create(OUTCOME_GRAN, 1024, 64, 0, GFP_KERNEL);
	if (IS_ERR(base))
		return PTR_ERR(base);
	timeq_timer_init(&timer, NULL);
	now = timeq_base_ticks(base);
	local_bh_disable();
	applied = timeq_fast_update(base, &timer, now + 10);
	refused = timeq_fast_update(base, &timer, now + 5000);
	q = tq_base_queue(base);
	if (applied == TIMEQ_APPLIED) {
		spin_lock(&q->head_lock);
		/* Earlier: a later time would be a store, which locks nothing. */
		deferred = timeq_fast_update(base, &timer, now + 5);
		spin_unlock(&q->head_lock);
	}
	local_bh_enable();
	/* The request is applied before the delete. */
	deleted = timeq_delete_sync(base, &timer);
	timeq_get_fast_stats(base, &fs);
	if (applied != TIMEQ_APPLIED || refused != -ERANGE ||
	    deferred != TIMEQ_DEFERRED || deleted != 1 ||
	    timeq_node_time(&timer.node) != now + 5 ||
	    fs.deferred[TIMEQ_DEFER_CONTENDED] != 1) {
		pr_err("fast path: applied %d, refused %d, deferred %d (%llu for a taken lock), deleted %d at now + %lld\n",
		       applied, refused, deferred,
		       fs.deferred[TIMEQ_DEFER_CONTENDED], deleted,
		       (s64)(timeq_node_time(&timer.node) - now));
		err = -EINVAL;
	}
	timeq_base_destroy(base);
	return err;
}

/* The lateness figures (lateness.h): printed; never early is the test. */
static int smoke_lateness(void)
{
	struct lateness_run run;
	int err = lateness_measure(&run, 200);

	if (err) {
		pr_err("lateness: error %d\n", err);
		return err;
	}
	lateness_print(&run, "");
	if (run.slow.early || run.fast.early) {
		pr_err("lateness: %u and %u callbacks early\n", run.slow.early,
		       run.fast.early);
		return -EINVAL;
	}
	return 0;
}

static int __init timeq_smoke_init(void)
{
	unsigned long total = 0;
	unsigned int i, step;
	struct diff *d;
	struct op op;
	int err = 0;
	u64 rng, now;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < diff_nshapes && !err; i++) {
		const struct shape *shape = &diff_shapes[i];

		rng = i;
		now = diff_start_now(i, shape->horizon);
		if (diff_start(d, shape, now)) {
			err = -ENOMEM;
			break;
		}
		for (step = 0; step < steps; step++) {
			diff_generate(d, &rng, i % DIFF_PROFILES, &op);
			if (diff_step(d, &op)) {
				pr_err("shape %s, seed %u, step %u: %s\n",
				       shape->name, i, step, d->why);
				err = -EINVAL;
				break;
			}
		}
		total += d->steps;
		diff_stop(d);
	}
	kfree(d);
	if (err)
		return err;
	pr_info("%lu operations over %u shapes agreed with the model\n",
		total, diff_nshapes);
	err = smoke_clock();
	if (!err)
		err = smoke_fast_outcomes();
	if (err)
		return err;
	return smoke_lateness();
}

static void __exit timeq_smoke_exit(void)
{
}

module_init(timeq_smoke_init);
module_exit(timeq_smoke_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq smoke test for kernels without KUnit");
MODULE_IMPORT_NS(TIMEQ_NS);
