// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: a queue's lifetime, timeq_create() to timeq_destroy(), and the
 * bodies tq_queue_init() and tq_queue_exit() that a base (base.c) runs on
 * the queue it composes. A queue is made with its counters, its memory
 * (queue.c) and its locks, and enters the registry (stats.c) last, whole.
 * It goes from the registry first; then what it still holds is released,
 * a lock hold at a time (paths.c), and its memory and counters are
 * freed. A base stops its hand-off before (base.c), so that no work
 * counts on the queue any more.
 */

#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>

#include "counters.h"
#include "paths.h"
#include "queue.h"
#include "stats.h"

/**
 * timeq_create - allocate an empty queue
 * @now:	the initial clock, in ticks
 * @horizon:	the window: times in [@now, @now + @horizon) are accepted;
 *		1 to 2^40
 * @delta:	the bucket width, a power of two up to 2^20, or 0 to choose
 * @nbuckets:	the number of buckets M, a power of two up to 2^20, or 0 to
 *		choose
 * @gfp:	allocation flags, e.g. %GFP_KERNEL_ACCOUNT when a user asks
 *
 * @delta * @nbuckets + 1 must be at least @horizon: the window spans the
 * current bucket, which is never a bucket list, and M buckets after it.
 * With one of them given, the other is the least that covers. With both
 * 0, __timeq_tune() (module/tune.h) chooses them by the rule of
 * Erickson, Ladner and LaMarca from timeq's measured costs; knowing only
 * the horizon, it assumes times spread over the window and as many
 * elements as a square calendar has buckets, which gives that square
 * calendar: delta = 2^floor(h / 2) and M = 2^ceil(h / 2), where 2^h is the
 * least power of two with 2^h + 1 >= @horizon (a horizon of 2^20 + 1
 * takes delta = M = 2^10). Code that knows its expected count and mean
 * jump passes them to timeq_tune() and creates the queue with the delta
 * and M it returns: the rule then sizes the buckets to hold about a
 * hundred elements each, as far as its memory bound allows
 * (Documentation/bench.rst has the measurements). The queue takes about
 * 16 * (3 * delta + M) bytes plus bitmaps and counts, in one kvzalloc().
 *
 * The queue's clock moves only when the caller removes nodes with
 * timeq_delete_min() or timeq_del_less_than(); see timeq_base_create()
 * for timers that expire by themselves. The queue also gets counters
 * for each CPU (module/counters.h), a number, and a file in debugfs.
 *
 * Context: process context, may sleep.
 * Return: the queue; ERR_PTR(-EINVAL) for bad parameters, ERR_PTR(-ENOMEM)
 * if the memory could not be had.
 */
struct timeq *timeq_create(u64 now, u64 horizon, unsigned int delta,
			   unsigned int nbuckets, gfp_t gfp)
{
	struct timeq *q;
	int err;

	might_sleep();
	q = kzalloc(sizeof(*q), gfp);
	if (!q)
		return ERR_PTR(-ENOMEM);
	err = tq_queue_init(q, now, horizon, delta, nbuckets, gfp);
	if (err) {
		kfree(q);
		return ERR_PTR(err);
	}
	return q;
}
EXPORT_SYMBOL_NS_GPL(timeq_create, TIMEQ_NS);

/*
 * Initialise the zeroed queue @q: the body of timeq_create() and of
 * timeq_base_create(). Returns 0 or a negative errno, with nothing left
 * to free.
 */
int tq_queue_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		  unsigned int nbuckets, gfp_t gfp)
{
	int err;

	q->counters = alloc_percpu_gfp(struct timeq_counters, gfp);
	if (!q->counters)
		return -ENOMEM;
	err = __timeq_init(q, now, horizon, delta, nbuckets, gfp);
	if (err) {
		free_percpu(q->counters);
		return err;
	}
	spin_lock_init(&q->head_lock);
	spin_lock_init(&q->head2_lock);
	spin_lock_init(&q->bucket_lock);
	tq_stats_register(q);
	return 0;
}

/**
 * timeq_destroy - free a queue
 * @q:		a queue from timeq_create(), or NULL
 *
 * Frees @q. What is still in it is released, not freed: each queued node
 * is left as after timeq_node_init() but for its time, so its owner may
 * insert it in another queue or free it. O(N + delta + M), in lock holds
 * of at most TIMEQ_STEP nodes with a reschedule between them.
 *
 * Context: process context, may sleep. The caller must ensure that nothing
 * else uses @q once this is called.
 */
void timeq_destroy(struct timeq *q)
{
	if (!q)
		return;
	tq_queue_exit(q, NULL, NULL);
	kfree(q);
}
EXPORT_SYMBOL_NS_GPL(timeq_destroy, TIMEQ_NS);

/*
 * Release what is still queued in @q, for timeq_destroy() and
 * timeq_base_destroy(): nodes and timers are released, not run, each
 * passed to @fn with @arg if @fn is not NULL, under the queue's locks. A
 * base stops its hrtimer and its hand-off before and releases its due
 * timers after (base.c). The memory of @q itself is the caller's to free.
 */
void tq_queue_exit(struct timeq *q, timeq_fn fn, void *arg)
{
	might_sleep();
	tq_stats_unregister(q);
	tq_lock(q);
	while (__timeq_release_step(q, fn, arg)) {
		tq_unlock(q);
		cond_resched();
		tq_lock(q);
	}
	tq_unlock(q);
	__timeq_free(q);
	free_percpu(q->counters);
}
