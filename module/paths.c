// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the fast path, the slow path, and the API that is safe to share.
 *
 * Section 3.2 of Brodnik and Karlsson has two kinds of caller on one queue.
 * The fast path (timeq_fast_update(), timeq_fast_min()) runs in softirq
 * context or with preemption disabled. It only ever tries locks and only
 * moves a node within the current and the next bucket; anything else it
 * hands to the slow path and returns. So it is O(1) in the worst case and
 * never spins, sleeps or allocates. The slow path is everything else: the
 * operations of queue.c under every lock, and one work item per queue that
 * applies the handed-off requests and, on a queue from
 * timeq_create_monotonic(), expires timers (clock.c).
 *
 * Locks
 * -----
 *
 *	head_lock	now, min, count, head, and the time and owner of
 *			every node
 *	head2_lock	head2
 *	bucket_lock	the calendar: every bucket list, its bitmap and its
 *			counts
 *
 * They are always taken in that order. There are two departures from the
 * paper, both for races in its protocol (Documentation/design.rst):
 *
 *  - The fast path decides from a node's time and owner, read under
 *    head_lock. The paper lets the slow process move far-bucket nodes
 *    under no lock, so that read races with a node being unlinked and
 *    relinked. Here every writer of a node's time or owner holds head_lock,
 *    so every slow-side operation takes it.
 *  - bucket_lock guards the whole calendar, not only list cur + 1, because
 *    the bitmap words and the counts are shared between lists.
 *
 * So head_lock alone excludes every writer, and timeq_fast_min() needs
 * nothing more. A fast update tries all three locks, in order. The paper
 * takes head2Lock and bucketLock only when the move touches head2 or the
 * calendar, but once head_lock is held nobody else can hold them. Taking
 * them anyway costs two uncontended trylocks, keeps lockdep's view of the
 * fast path the same as the slow path's, and removes a case analysis that
 * would guard nothing. The slow side takes all three as well, with
 * spin_lock_bh() on the first. While it holds them, the softirqs of its CPU
 * wait instead of failing their trylocks, and lockdep sees a lock that
 * softirqs take never held with softirqs enabled. Hard interrupt context
 * must not call the fast path: lockdep would rightly report a lock taken
 * there but held elsewhere with interrupts on.
 *
 * The fast path
 * -------------
 *
 * With the locks held, the update is applied in place only when both the
 * node (if queued) and its new time lie in buckets cur and cur + 1. Then
 * queue.c's update is O(1), with one exception. If the move empties head
 * while the calendar still holds part of bucket cur + 1, invariant I4
 * would have that part pulled into head2, costing O(B). That case is
 * deferred too. Any other move leaves the next minimum one bitmap search
 * away, because a node that leaves head for head2 keeps head2 non-empty.
 *
 * The hand-off
 * ------------
 *
 * A deferred request is the timer itself. The fast path writes the new
 * time to timer->want, and if TIMEQ_TIMER_PENDING was clear, sets it and
 * pushes the timer onto the queue's llist, then queues the work. A second
 * update before the slow path runs only rewrites ->want, so the slow path
 * applies the latest time once. The request can never fail for memory.
 * While a request is pending, a fast update is not applied in place, so it
 * cannot be overtaken by the older request.
 *
 * The slow path takes the whole list (oldest first) under every lock.
 * For each timer it clears PENDING, then reads ->want: test_and_set_bit()
 * and clear_bit() + smp_mb__after_atomic() order the two sides, so an
 * update that found PENDING set is seen by this read. Every slow-side timer
 * call drains the list first, for the same reason.
 *
 * Lifetimes
 * ---------
 *
 * The only unlocked window in which a timer is referenced is between a
 * fast update's test_and_set_bit() of PENDING and its llist_add(). It runs
 * with preemption disabled, so timeq_delete_sync() drains, deletes and,
 * if PENDING is still set, relaxes and tries again. When it returns, no
 * request refers to the timer and (clock.c) no callback runs it.
 * timeq_shutdown_sync() also sets TIMEQ_TIMER_SHUTDOWN first. A fast
 * update checks that flag after setting PENDING, and the shutdown checks
 * PENDING after setting the flag (a full barrier each side), so at least
 * one of them sees the other.
 */

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>
#include <linux/workqueue.h>

#include "paths.h"
#include "queue.h"

/* Nodes one lock hold of timeq_del_less_than() removes without a callback. */
#define TQ_BATCH	64

void tq_lock(struct timeq *q)
	__acquires(&q->head_lock) __acquires(&q->head2_lock)
	__acquires(&q->bucket_lock)
{
	spin_lock_bh(&q->head_lock);
	spin_lock(&q->head2_lock);
	spin_lock(&q->bucket_lock);
}

void tq_unlock(struct timeq *q)
	__releases(&q->bucket_lock) __releases(&q->head2_lock)
	__releases(&q->head_lock)
{
	spin_unlock(&q->bucket_lock);
	spin_unlock(&q->head2_lock);
	spin_unlock_bh(&q->head_lock);
}

static void tq_assert_locked(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	lockdep_assert_held(&q->head_lock);
	lockdep_assert_held(&q->head2_lock);
	lockdep_assert_held(&q->bucket_lock);
}

/* A timeq_fn that hands the one node it is given back through @arg. */
void tq_take(struct timeq_node *node, void *arg)
{
	*(struct timeq_node **)arg = node;
}

/* The minimum may have moved: a clocked queue re-arms its hrtimer. */
static void tq_changed(struct timeq *q)
	__must_hold(&q->head_lock)
{
	lockdep_assert_held(&q->head_lock);
	if (q->clock)
		tq_clock_changed(q);
}

/* Queue @timer at @time, or at the clock if @time has passed. */
static int tq_arm(struct timeq *q, struct timeq_timer *timer, u64 time)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	tq_assert_locked(q);
	time = max(time, q->now);
	if (tq_owner(&timer->node) == q)
		return __timeq_update(q, &timer->node, time);
	return __timeq_insert(q, &timer->node, time);
}

/* Apply every handed-off request, oldest first. */
static void tq_drain(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	struct timeq_timer *timer, *next;
	struct llist_node *list;

	tq_assert_locked(q);
	list = llist_reverse_order(llist_del_all(&q->handoffs));
	llist_for_each_entry_safe(timer, next, list, handoff) {
		clear_bit(TIMEQ_TIMER_PENDING, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		if (!test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
			tq_arm(q, timer, READ_ONCE(timer->want));
	}
}

/* Forget every handed-off request: the queue is going away. */
static void tq_discard(struct timeq *q)
{
	struct llist_node *list = llist_del_all(&q->handoffs);
	struct timeq_timer *timer, *next;

	llist_for_each_entry_safe(timer, next, list, handoff)
		clear_bit(TIMEQ_TIMER_PENDING, &timer->flags);
}

/* The slow path: one work item per queue, so never two at once. */
static void tq_work(struct work_struct *work)
{
	struct timeq *q = container_of(work, struct timeq, work);

	tq_lock(q);
	tq_drain(q);
	tq_changed(q);
	tq_unlock(q);
	if (q->clock)
		tq_clock_expire(q);
}

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
 * @delta * @nbuckets must cover @horizon. Left at 0, they are chosen near
 * sqrt(@horizon), the choice of the paper's analysis: with both 0, delta =
 * 2^floor(h / 2) and M = 2^ceil(h / 2) where 2^h is the least power of two
 * >= @horizon; with one given, the other is the least that covers. The
 * queue takes about 16 * (2 * delta + M) bytes plus bitmaps.
 *
 * The queue's clock moves only when the caller removes nodes with
 * timeq_delete_min() or timeq_del_less_than(); see timeq_create_monotonic()
 * for a queue that expires timers by itself.
 *
 * Context: may sleep if @gfp allows.
 * Return: the queue; ERR_PTR(-EINVAL) for bad parameters, ERR_PTR(-ENOMEM)
 * if the memory could not be had.
 */
struct timeq *timeq_create(u64 now, u64 horizon, unsigned int delta,
			   unsigned int nbuckets, gfp_t gfp)
{
	struct timeq *q;
	int err;

	q = kzalloc(sizeof(*q), gfp);
	if (!q)
		return ERR_PTR(-ENOMEM);
	err = __timeq_init(q, now, horizon, delta, nbuckets, gfp);
	if (err)
		goto err_free_queue;
	spin_lock_init(&q->head_lock);
	spin_lock_init(&q->head2_lock);
	spin_lock_init(&q->bucket_lock);
	init_llist_head(&q->handoffs);
	INIT_WORK(&q->work, tq_work);
	return q;

err_free_queue:
	kfree(q);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_NS_GPL(timeq_create, TIMEQ);

/**
 * timeq_destroy - free a queue
 * @q:		the queue, or NULL
 *
 * Stops the queue's slow path and, on a clocked queue, its hrtimer, then
 * frees it. What is still in it is released, not freed and not run. Each
 * queued node or timer is left as after timeq_node_init() but for its
 * time, so its owner may insert it in another queue or free it. Requests
 * handed off and not yet applied are dropped. O(N + delta + M).
 *
 * Context: process context, may sleep. The caller must ensure that nothing
 * else uses @q, from either path, once this is called.
 */
void timeq_destroy(struct timeq *q)
{
	if (!q)
		return;
	if (q->clock)
		tq_clock_stop(q);
	cancel_work_sync(&q->work);
	tq_discard(q);
	__timeq_release(q);
	kfree(q->clock);
	kfree(q);
}
EXPORT_SYMBOL_NS_GPL(timeq_destroy, TIMEQ);

/**
 * timeq_insert - add a node
 * @q:		a queue from timeq_create()
 * @node:	an initialised node that is in no queue
 * @time:	its time, in [timeq_now(@q), timeq_now(@q) + horizon)
 *
 * O(1) worst case. Among equal times, nodes leave in insertion order. A
 * time before the current minimum makes @node the minimum. A queue from
 * timeq_create_monotonic() holds timers only: use timeq_timer_arm().
 *
 * Context: the slow side (see include/linux/timeq.h); takes every lock.
 * Return: 0; -EBUSY if @node is already in a queue; -ERANGE if @time is
 * outside the window; -EINVAL on a clocked queue. On error nothing changes.
 */
int timeq_insert(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret;

	if (q->clock)
		return -EINVAL;
	tq_lock(q);
	ret = __timeq_insert(q, node, time);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_insert, TIMEQ);

/**
 * timeq_delete - remove a node
 * @q:		the queue
 * @node:	a node in @q; the minimum is allowed
 *
 * O(1) worst case, except that removing the minimum when the head holds no
 * other node costs a walk of the next non-empty bucket (see "The minimum,
 * and who pays to find it" in module/queue.c). The clock does not move.
 * For a timer that may have a fast update pending, use
 * timeq_timer_delete() or timeq_delete_sync().
 *
 * Context: the slow side; takes every lock.
 * Return: 0; -ENOENT if @node is not in @q (in no queue, or in another).
 * On error nothing changes.
 */
int timeq_delete(struct timeq *q, struct timeq_node *node)
{
	int ret;

	tq_lock(q);
	ret = __timeq_delete(q, node);
	tq_changed(q);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_delete, TIMEQ);

/**
 * timeq_update - move a node to another time
 * @q:		the queue
 * @node:	a node in @q
 * @time:	its new time, in [timeq_now(@q), timeq_now(@q) + horizon)
 *
 * The same as timeq_delete() then timeq_insert(), in one step that cannot
 * half-fail: @node goes behind every node already at @time, even if @time
 * is its old time. O(1) worst case, with the exception of timeq_delete()
 * when @node is the minimum.
 *
 * Context: the slow side; takes every lock.
 * Return: 0; -ENOENT if @node is not in @q; -ERANGE if @time is outside
 * the window. On error nothing changes.
 */
int timeq_update(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret;

	tq_lock(q);
	ret = __timeq_update(q, node, time);
	tq_changed(q);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_update, TIMEQ);

/**
 * timeq_delete_min - remove the earliest node and move the clock to it
 * @q:		the queue
 *
 * Removes timeq_min(@q) and sets the clock to its time, then moves a share
 * of the next bucket into head2 (the paper's deamortisation). O(1)
 * expected when buckets hold O(1) nodes; see "Costs" in module/queue.c
 * for the worst case.
 *
 * Context: the slow side; takes every lock.
 * Return: the removed node, no longer queued, or NULL if @q is empty.
 */
struct timeq_node *timeq_delete_min(struct timeq *q)
{
	struct timeq_node *node;

	tq_lock(q);
	node = __timeq_delete_min(q);
	tq_changed(q);
	tq_unlock(q);
	return node;
}
EXPORT_SYMBOL_NS_GPL(timeq_delete_min, TIMEQ);

/**
 * timeq_del_less_than - remove every node before a time, then set the clock
 * @q:		the queue
 * @time:	remove nodes with a time < @time; the clock becomes @time
 * @fn:		called on each removed node in order (time, then insertion),
 *		or NULL
 * @arg:	passed to @fn
 *
 * Does nothing if @time <= timeq_now(@q). @time may lie beyond the horizon:
 * the cost is O(1) per node removed and per non-empty list visited through
 * the bitmaps, plus the bucket that becomes current, never the distance
 * jumped.
 *
 * Each node is removed under the locks and @fn runs after they are
 * dropped, with the clock at the node's time: it may free the node, or
 * call any slow-side function on @q. A node inserted before @time while
 * this runs, by @fn or by anyone, is removed by this same call, so a
 * callback that always re-inserts before @time never returns. Without @fn,
 * nodes are removed TQ_BATCH (64) to a lock hold, so the fast path is
 * never shut out for long.
 *
 * Context: the slow side; takes every lock, for each node or batch; @fn
 * runs in the caller's context.
 * Return: the number of nodes removed.
 */
unsigned long timeq_del_less_than(struct timeq *q, u64 time, timeq_fn fn,
				  void *arg)
{
	unsigned long removed = 0, n;
	struct timeq_node *node;

	do {
		tq_lock(q);
		if (fn)
			n = __timeq_del_less_than(q, time, 1, tq_take, &node);
		else
			n = __timeq_del_less_than(q, time, TQ_BATCH, NULL, NULL);
		tq_changed(q);
		tq_unlock(q);
		removed += n;
		if (n && fn)
			fn(node, arg);
	} while (n);
	return removed;
}
EXPORT_SYMBOL_NS_GPL(timeq_del_less_than, TIMEQ);

/**
 * timeq_check - verify every invariant of a queue
 * @q:		the queue
 * @buf:	where to describe the first violation found, or NULL
 * @len:	size of @buf
 *
 * Walks every list under the locks: each node's owner, window, list and
 * position, the links, the counts, the bitmaps at every level, the cached
 * minimum, the rule that an empty head leaves nothing of the next bucket
 * outside head2 and, in builds with %TIMEQ_DEBUG_FIFO, insertion order
 * within each list. O(N + delta + M), with the fast path shut out
 * meanwhile. For tests; it changes nothing.
 *
 * Context: the slow side; takes every lock.
 * Return: 0 if @q is sound; -EUCLEAN with a description in @buf if not.
 */
int timeq_check(struct timeq *q, char *buf, size_t len)
{
	int ret;

	tq_lock(q);
	ret = __timeq_check(q, buf, len);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_check, TIMEQ);

/* The fast path, with every lock held: 0, -EAGAIN to defer, or an error. */
static int tq_fast_apply(struct timeq *q, struct timeq_timer *timer, u64 time)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	struct timeq_node *node = &timer->node;
	unsigned long head_after = q->head.count;
	bool from_head = false;
	int ret;

	tq_assert_locked(q);
	if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	if (test_bit(TIMEQ_TIMER_PENDING, &timer->flags))
		return -EAGAIN;
	if (node->owner && tq_owner(node) != q)
		return -EBUSY;
	time = max(time, q->now);
	if (time - q->now >= q->horizon)
		return -ERANGE;
	if (tq_rel(q, time) > 1)
		return -EAGAIN;
	if (node->owner) {
		if (tq_rel(q, node->time) > 1)
			return -EAGAIN;
		from_head = tq_rel(q, node->time) == 0;
		head_after -= from_head;
	}
	head_after += tq_rel(q, time) == 0;
	if (from_head && !head_after &&
	    q->bucket_count[tq_slot(q, tq_cur(q) + 1)])
		return -EAGAIN;
	if (node->owner)
		ret = __timeq_update(q, node, time);
	else
		ret = __timeq_insert(q, node, time);
	if (!ret)
		tq_changed(q);
	return ret;
}

/* Hand a request to the slow path; no lock is held. */
static int tq_handoff(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	u64 now = READ_ONCE(q->now);

	/* The clock only moves on: a time in the window now stays in it. */
	if (time > now && time - now >= q->horizon)
		return -ERANGE;
	if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	/* timeq_delete_sync() waits for this window to close. */
	preempt_disable();
	WRITE_ONCE(timer->want, time);
	if (!test_and_set_bit(TIMEQ_TIMER_PENDING, &timer->flags)) {
		if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags)) {
			clear_bit(TIMEQ_TIMER_PENDING, &timer->flags);
			preempt_enable();
			return -ESHUTDOWN;
		}
		llist_add(&timer->handoff, &q->handoffs);
		queue_work(timeq_wq, &q->work);
	}
	preempt_enable();
	return TIMEQ_DEFERRED;
}

/**
 * timeq_fast_update - arm or move a timer from the fast path
 * @q:		the queue
 * @timer:	an initialised timer, queued in @q or in no queue
 * @time:	its new time; a time before timeq_now(@q) means the clock
 *
 * Applies the update at once when the locks are free and both the timer's
 * current time (if queued) and @time lie in the current or the next bucket.
 * Otherwise it hands the request to the slow path, which applies it soon,
 * in order with the timer's other requests: a timer updated twice before
 * the slow path runs ends with the latest time. Never spins, sleeps or
 * allocates; O(1) worst case.
 *
 * The window is judged by the clock as last seen: a @time beyond the
 * horizon is refused, and a @time that has passed by the time the slow
 * path applies it is taken as the clock then. A deferred request takes
 * effect when the slow path applies it: if the timer expires before that,
 * the request arms it again.
 *
 * Context: softirq, or any context with preemption or bottom halves
 * disabled, or process context; not hard interrupt context.
 * Return: %TIMEQ_APPLIED or %TIMEQ_DEFERRED; -ERANGE if @time lies beyond
 * the horizon; -EBUSY if @timer is in another queue; -ESHUTDOWN after
 * timeq_shutdown_sync(). On error nothing changes.
 */
int timeq_fast_update(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	int ret;

	/* A request is pending: this one joins it, without touching a lock. */
	if (test_bit(TIMEQ_TIMER_PENDING, &timer->flags))
		goto defer;
	if (!spin_trylock(&q->head_lock))
		goto defer;
	if (!spin_trylock(&q->head2_lock))
		goto unlock_head;
	if (!spin_trylock(&q->bucket_lock))
		goto unlock_head2;
	ret = tq_fast_apply(q, timer, time);
	spin_unlock(&q->bucket_lock);
	spin_unlock(&q->head2_lock);
	spin_unlock(&q->head_lock);
	if (ret != -EAGAIN)
		return ret;
	goto defer;

unlock_head2:
	spin_unlock(&q->head2_lock);
unlock_head:
	spin_unlock(&q->head_lock);
defer:
	return tq_handoff(q, timer, time);
}
EXPORT_SYMBOL_NS_GPL(timeq_fast_update, TIMEQ);

/**
 * timeq_fast_min - the earliest time, from the fast path
 * @q:		the queue
 * @time:	set to the earliest queued time on success
 *
 * Tries head_lock only, which guards the minimum. O(1); never spins.
 *
 * Context: as timeq_fast_update().
 * Return: 0; -ENOENT if @q is empty; -EAGAIN if the lock was taken, so
 * that only the slow path could answer now.
 */
int timeq_fast_min(struct timeq *q, u64 *time)
{
	int ret = -ENOENT;

	if (!spin_trylock(&q->head_lock))
		return -EAGAIN;
	if (q->min) {
		*time = q->min->time;
		ret = 0;
	}
	spin_unlock(&q->head_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_fast_min, TIMEQ);

/* timeq_timer_arm(), or timeq_timer_move() if @armed_only. */
static int tq_timer_set(struct timeq *q, struct timeq_timer *timer, u64 time,
			bool armed_only)
{
	int ret = -ESHUTDOWN;

	tq_lock(q);
	tq_drain(q);
	if (q->clock)
		tq_clock_catch_up(q);
	if (armed_only && tq_owner(&timer->node) != q)
		ret = -ENOENT;
	else if (!test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		ret = tq_arm(q, timer, time);
	tq_changed(q);
	tq_unlock(q);
	return ret;
}

/**
 * timeq_timer_arm - arm or move a timer from the slow side
 * @q:		the queue
 * @timer:	an initialised timer, queued in @q or in no queue
 * @time:	its new time; a time before timeq_now(@q) means the clock
 *
 * Applies the fast-path requests still pending first, so this call's
 * @time is the one that stays. On a clocked queue the clock is first
 * brought up to CLOCK_MONOTONIC, as far as the timers not yet expired
 * allow, so the window is the current one. O(1) but for those two.
 *
 * Context: the slow side; takes every lock.
 * Return: 0; -ERANGE if @time lies beyond the horizon; -EBUSY if @timer is
 * in another queue; -ESHUTDOWN after timeq_shutdown_sync(). On error
 * nothing changes but the pending requests applied.
 */
int timeq_timer_arm(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(q, timer, time, false);
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_arm, TIMEQ);

/**
 * timeq_timer_move - move a timer that is armed, from the slow side
 * @q:		the queue
 * @timer:	an initialised timer
 * @time:	its new time; a time before timeq_now(@q) means the clock
 *
 * As timeq_timer_arm(), but only if @timer is armed in @q once pending
 * requests are applied: a timer that has expired (or was never armed) is
 * left alone, as mod_timer_pending() leaves a timer_list. Checking and
 * moving is one step under the locks, so the expiry cannot slip between.
 *
 * Context: the slow side; takes every lock.
 * Return: 0; -ENOENT if @timer is not armed in @q; -ERANGE if @time lies
 * beyond the horizon; -ESHUTDOWN after timeq_shutdown_sync(). On error
 * nothing changes but the pending requests applied.
 */
int timeq_timer_move(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(q, timer, time, true);
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_move, TIMEQ);

/**
 * timeq_timer_delete - disarm a timer, without waiting
 * @q:		the queue
 * @timer:	an initialised timer
 *
 * Applies the pending requests, then removes @timer from @q. A fast update
 * running at the same time on another CPU may still arm it again, and on
 * a clocked queue its callback may be running: before freeing @timer use
 * timeq_delete_sync().
 *
 * Context: the slow side; takes every lock.
 * Return: 1 if @timer was armed in @q, 0 if not.
 */
int timeq_timer_delete(struct timeq *q, struct timeq_timer *timer)
{
	int ret;

	tq_lock(q);
	tq_drain(q);
	ret = __timeq_delete(q, &timer->node) == 0;
	tq_changed(q);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_delete, TIMEQ);

static int tq_delete_sync(struct timeq *q, struct timeq_timer *timer,
			  bool shutdown)
{
	bool pending, running;
	int ret = 0;

	might_sleep();
	for (;;) {
		tq_lock(q);
		if (shutdown)
			set_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		tq_drain(q);
		if (!__timeq_delete(q, &timer->node))
			ret = 1;
		pending = test_bit(TIMEQ_TIMER_PENDING, &timer->flags);
		running = q->clock && tq_clock_running(q, timer);
		tq_changed(q);
		tq_unlock(q);
		if (running)
			tq_clock_wait(q, timer);
		else if (pending)
			cpu_relax();
		else
			return ret;
	}
}

/**
 * timeq_delete_sync - disarm a timer and wait until nothing refers to it
 * @q:		the queue
 * @timer:	an initialised timer
 *
 * Applies the pending requests and removes @timer from @q, waits for a
 * fast update of it that is handing off on another CPU, and waits for its
 * callback if it is running; then repeats, so a callback that re-arms
 * its own timer is disarmed after it returns. When this returns, no
 * request and no callback refers to @timer, and its owner may free it.
 *
 * As with timer_delete_sync(), the caller must make sure nothing arms
 * @timer again: no new fast update, and no callback that re-arms forever.
 * timeq_shutdown_sync() makes the timer refuse instead. Calling this from
 * @timer's own callback deadlocks.
 *
 * Context: process context, may sleep; not under any lock the callback
 * takes.
 * Return: 1 if @timer was armed (or had a pending request that armed it),
 * 0 if not.
 */
int timeq_delete_sync(struct timeq *q, struct timeq_timer *timer)
{
	return tq_delete_sync(q, timer, false);
}
EXPORT_SYMBOL_NS_GPL(timeq_delete_sync, TIMEQ);

/**
 * timeq_shutdown_sync - disarm a timer for good and wait
 * @q:		the queue
 * @timer:	an initialised timer
 *
 * As timeq_delete_sync(), but first marks @timer shut down: from then on
 * every attempt to arm it fails with -ESHUTDOWN, from either path and from
 * its own callback, and requests still pending are dropped. So a timer
 * whose callback re-arms it can be torn down (the lesson of
 * timer_shutdown_sync()). A refused fast update still reads @timer: before
 * freeing it, make sure no code path can still call one.
 * timeq_timer_init() makes it usable again.
 *
 * Context: process context, may sleep.
 * Return: 1 if @timer was armed, 0 if not.
 */
int timeq_shutdown_sync(struct timeq *q, struct timeq_timer *timer)
{
	return tq_delete_sync(q, timer, true);
}
EXPORT_SYMBOL_NS_GPL(timeq_shutdown_sync, TIMEQ);
