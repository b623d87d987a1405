// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the slow side of a queue: its locks, the doors where an operation
 * drops them, the queue's calls, and the workqueue a base's work runs on.
 *
 * Section 3.2 of Brodnik and Karlsson has two kinds of caller on one queue.
 * The fast path (fast.c) runs in softirq context, or with bottom halves
 * disabled. It only ever tries locks, and applies an update only where
 * that costs O(1); anything else it hands to the slow path (handoff.c) and
 * returns. The slow path is everything else: the operations of queue.c
 * under the locks, which this file takes, and one work item per timer
 * base that applies the handed-off requests and expires its timers
 * (handoff.c, clock.c).
 *
 * Locks
 * -----
 *
 *	head_lock	the array playing head, @now, @min, @min_time and
 *			@min_seq
 *	head2_lock	the array playing head2
 *	bucket_lock	the calendar (bucket lists, bitmap, counts), the array
 *			playing focus, and @focus_bucket
 *
 * A node is guarded by the lock of the array its tag names (queue.c): the
 * calendar and the focus are the far region, bucket_lock's; head and
 * head2 are the near region, head_lock's and head2_lock's. Moving a node
 * between regions holds the locks of both. Changing the roles, @now or
 * @pend takes all three, in the order above, so any one of them keeps them
 * still. The paper lets its slow process move far nodes under no lock
 * while its fast process reads a node's time under headLock alone; a node
 * caught between unlink and relink is then unlinked twice. Here the tag
 * says which lock guards a node, and a path re-reads the tag once it holds
 * that lock: a node cannot change region without it.
 *
 * The slow side takes all three locks, with spin_lock_bh() on the first,
 * so a softirq on its CPU waits rather than fails its trylocks while it
 * holds them, and lockdep sees locks that softirqs take never held with
 * softirqs enabled. Each lock hold is given a budget of TIMEQ_HOLD node
 * visits (queue.h); work longer than that is pending work in queue.c,
 * done a step at a time by tq_finish(), which drops the locks and
 * reschedules between holds. Any slow-side caller that finds work pending
 * finishes it first, so it never outlives the call that made it.
 *
 * There is one exception to "all three": a slow-side insert, delete or
 * update of a far node that is not the minimum, to a far time no earlier
 * than the minimum, takes bucket_lock alone (tq_far_ok()). It cannot
 * change @min: a far node becomes the minimum only under all three locks
 * (tq_settle() or a WALK's last step, or an insert or update to a time
 * before the minimum, which tq_far_ok() sends to the slow side or the
 * cross lane), and while the minimum is near any far time is later. It
 * calls queue.c's far operations, which neither read nor write @min. So
 * @min and @min_time are written only under head_lock, and the slow side
 * can fill and empty the far calendar while the fast path works on the
 * heads.
 *
 * Doors
 * -----
 *
 * Every place where an operation drops the locks and takes them again,
 * what may change meanwhile, and what the code looks at again after it:
 *
 *  - tq_finish(), between two steps of pending work. Anyone may run:
 *    other slow-side calls (each finishes the work first, then does its
 *    own operation, which may leave new work), and the fast path, whose
 *    near lane may insert into the heads while far work is pending.
 *    Published meanwhile: @pend set, and @min NULL (or a node the near
 *    lane inserted). timeq_fast_min() answers -EAGAIN, tq_far_ok() and the
 *    lanes refuse while @pend is set, tq_clock_kick() does nothing with
 *    the U64_MAX of @min_time; timeq_min() may read NULL (its kernel-doc
 *    says so; timeq_first() does not). After: __timeq_step() looks at
 *    @pend afresh, and the last step of far work looks at the heads first.
 *  - tq_relock(), in tq_drain() out of budget, in a base's
 *    tq_clock_make_room() between batches of due timers (module/clock.c),
 *    which tq_apply() and tq_slow_begin_drained() call, and in
 *    tq_clock_first() between budgets of timers it files again. The same
 *    as above; moreover the drain's requests not yet applied keep PENDING
 *    set, so a fast update of one of them joins its request, a store to
 *    one fails (its word is marked HANDED: module/fast.c, "Refresh by a
 *    store", and a timer the expiry files again keeps the mark), and a
 *    slow-side call on one waits (tq_wait_request()), woken at the door.
 *    Stores land meanwhile on every other timer; tq_clock_first() reads
 *    @min and its word again.
 *    After: tq_relock() finishes any work left pending before the
 *    operation goes on, since queue.c's operations may not run with work
 *    pending; the drain reads each timer's SHUTDOWN and ->want only after
 *    clearing its PENDING, and tq_apply() holds PENDING across its door
 *    and reads them again; making room reads @now again;
 *    tq_slow_begin_drained() makes room before it drains and checks
 *    PENDING, so its caller changes the timer with no door since (the
 *    window only widens across one).
 *  - Between the calls of one operation that loops: each pass of
 *    timeq_del_less_than(), each turn of the expiry around a callback,
 *    or after a timer it filed again that spent its hold's budget
 *    (module/clock.c), each retry of tq_slow_begin_drained() and
 *    tq_sync() after a wait, and the far exits of timeq_insert(),
 *    timeq_delete() and timeq_update() when tq_far_ok() refuses. Each
 *    pass begins as a new call (tq_slow_begin(): pending work finished;
 *    a timer call's tq_timer_begin() in handoff.c also catches a base's
 *    clock up) and decides again from what it finds.
 *  - tq_queue_exit() and tq_clock_release() between release steps:
 *    nothing else uses the queue.
 */

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "counters.h"
#include "paths.h"
#include "queue.h"
#include "trace/timeq.h"

/* --- the slow side's workqueue --- */

/*
 * The slow path of every timer base, one work item per base. Unbound: a
 * run applies hand-offs, expires up to a budget of timers and runs
 * callbacks that may sleep, and the softirq that queued it (the fast
 * path's CPU) should not also pay for that, so the scheduler may place it
 * on any idle CPU. Its own workqueue rather than system_unbound_wq: slow
 * callbacks do not hold up unrelated system work, and unloading drains
 * it. Not WQ_MEM_RECLAIM: no memory reclaim waits on a timer queue. A
 * work item never runs on two CPUs at once, which is what serialises a
 * base's expiry.
 */
struct workqueue_struct *timeq_wq;

/* The workqueue's life, the module's (main.c). */
int tq_wq_init(void)
{
	timeq_wq = alloc_workqueue("timeq", WQ_UNBOUND, 0);
	return timeq_wq ? 0 : -ENOMEM;
}

void tq_wq_exit(void)
{
	destroy_workqueue(timeq_wq);
}

/* Nodes one lock hold of timeq_del_less_than() removes without a callback. */
#define TQ_BATCH	TIMEQ_HOLD

/* --- the slow side's locks --- */

void tq_lock(struct timeq *q)
	__acquires(&q->head_lock) __acquires(&q->head2_lock)
	__acquires(&q->bucket_lock)
{
	spin_lock_bh(&q->head_lock);
	spin_lock(&q->head2_lock);
	spin_lock(&q->bucket_lock);
	q->budget = TIMEQ_HOLD;
	q->visits = 0;
}

void tq_unlock(struct timeq *q)
	__releases(&q->bucket_lock) __releases(&q->head2_lock)
	__releases(&q->head_lock)
{
	if (q->visits > q->max_visits)
		q->max_visits = q->visits;
	q->total_visits += q->visits;
	spin_unlock(&q->bucket_lock);
	spin_unlock(&q->head2_lock);
	spin_unlock_bh(&q->head_lock);
}

/* Do the pending work, a budget per lock hold, rescheduling in between. */
void tq_finish(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	tq_assert_locked(q);
	while (__timeq_step(q)) {
		tq_unlock(q);
		cond_resched();
		tq_lock(q);
	}
}

/*
 * A door in the middle of an operation (see "Doors"): drop every lock,
 * reschedule, take them back, and finish what another caller may have
 * left pending meanwhile, so that the operation goes on from a queue with
 * none. The budget of the new hold is whatever finishing left.
 */
void tq_relock(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	tq_unlock(q);
	/* Requests applied before the door are not pending any more. */
	smp_mb();
	tq_wake_requests(q);
	cond_resched();
	tq_lock(q);
	tq_finish(q);
}

/* Enter the slow side: every lock, no work pending. */
void tq_slow_begin(struct timeq *q) __acquires(&q->head_lock)
	__acquires(&q->head2_lock) __acquires(&q->bucket_lock)
{
	might_sleep();
	tq_lock(q);
	tq_finish(q);
}

/* Leave it: finish what the call left pending, unlock. */
void tq_slow_end(struct timeq *q) __releases(&q->bucket_lock)
	__releases(&q->head2_lock) __releases(&q->head_lock)
{
	tq_finish(q);
	tq_unlock(q);
}

/* A timeq_fn that hands the one node it is given back through @arg. */
static void tq_take(struct timeq_node *node, void *arg)
{
	*(struct timeq_node **)arg = node;
}

/*
 * The slow side's insert, delete and update, each traced when it succeeds;
 * @far: under bucket_lock alone, as tq_far_ok() allowed.
 */
int tq_insert(struct timeq *q, struct timeq_node *node, u64 time, bool far)
{
	int ret = far ? __timeq_far_insert(q, node, time) :
			__timeq_insert(q, node, time);

	if (!ret)
		trace_timeq_insert(q, node, time);
	return ret;
}

int tq_delete(struct timeq *q, struct timeq_node *node, bool far)
{
	int ret = far ? __timeq_far_delete(q, node) : __timeq_delete(q, node);

	if (!ret)
		trace_timeq_delete(q, node, node->time);
	return ret;
}

int tq_update(struct timeq *q, struct timeq_node *node, u64 time, bool far)
{
	u64 old = node->time;
	int ret = far ? __timeq_far_update(q, node, time) :
			__timeq_update(q, node, time);

	if (!ret)
		trace_timeq_update(q, node, old, time);
	return ret;
}

/**
 * timeq_insert - add a node
 * @q:		a queue from timeq_create()
 * @node:	an initialised node that is in no queue
 * @time:	its time, in [timeq_now(@q), timeq_now(@q) + horizon)
 *
 * O(1) worst case for its own work (include/linux/timeq.h says what a
 * slow-side call may finish first). Among equal times, nodes leave in
 * insertion order. A time before the current minimum makes @node the
 * minimum.
 *
 * Context: the slow side (see include/linux/timeq.h). Takes bucket_lock
 * alone for a far time no earlier than the minimum, else every lock.
 * Return: 0; -EBUSY if @node is already in a queue; -ERANGE if @time is
 * outside the window. On error nothing changes.
 */
int timeq_insert(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret;

	might_sleep();
	spin_lock_bh(&q->bucket_lock);
	if (!READ_ONCE(node->owner) && tq_far_ok(q, node, time)) {
		ret = tq_insert(q, node, time, true);
		spin_unlock_bh(&q->bucket_lock);
		return ret;
	}
	spin_unlock_bh(&q->bucket_lock);
	tq_slow_begin(q);
	ret = tq_insert(q, node, time, false);
	tq_slow_end(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_insert, TIMEQ_NS);

/**
 * timeq_delete - remove a node
 * @q:		the queue
 * @node:	a node in @q; the minimum is allowed
 *
 * O(1), then, if @node was the minimum, the pending work of finding the
 * next one (see "The minimum, and who pays to find it" in module/queue.c).
 * The clock does not move.
 *
 * Context: the slow side. Takes bucket_lock alone for a far node that is
 * not the minimum, else every lock.
 * Return: 0; -ENOENT if @node is not in @q (in no queue, or in another).
 * On error nothing changes.
 */
int timeq_delete(struct timeq *q, struct timeq_node *node)
{
	int ret;

	might_sleep();
	spin_lock_bh(&q->bucket_lock);
	if (tq_far_ok(q, node, TQ_DELETE)) {
		ret = tq_delete(q, node, true);
		spin_unlock_bh(&q->bucket_lock);
		return ret;
	}
	spin_unlock_bh(&q->bucket_lock);
	tq_slow_begin(q);
	ret = tq_delete(q, node, false);
	tq_slow_end(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_delete, TIMEQ_NS);

/**
 * timeq_update - move a node to another time
 * @q:		the queue
 * @node:	a node in @q
 * @time:	its new time, in [timeq_now(@q), timeq_now(@q) + horizon)
 *
 * The same as timeq_delete() then timeq_insert(), in one step that cannot
 * half-fail: @node goes behind every node already at @time, even if @time
 * is its old time. O(1), then pending work as timeq_delete() if @node is
 * the minimum.
 *
 * Context: the slow side. Takes bucket_lock alone for a far node that is
 * not the minimum going to a far time no earlier than the minimum, else
 * every lock.
 * Return: 0; -ENOENT if @node is not in @q; -ERANGE if @time is outside
 * the window. On error nothing changes.
 */
int timeq_update(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret;

	might_sleep();
	spin_lock_bh(&q->bucket_lock);
	if (READ_ONCE(node->owner) && tq_far_ok(q, node, time)) {
		ret = tq_update(q, node, time, true);
		spin_unlock_bh(&q->bucket_lock);
		return ret;
	}
	spin_unlock_bh(&q->bucket_lock);
	tq_slow_begin(q);
	ret = tq_update(q, node, time, false);
	tq_slow_end(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_update, TIMEQ_NS);

/**
 * timeq_delete_min - remove the earliest node and move the clock to it
 * @q:		the queue
 *
 * Removes timeq_min(@q) and sets the clock to its time, then moves a share
 * of the next bucket into head2 (the paper's deamortisation). O(1) but for
 * that share and the pending work of finding the next minimum; see "Costs"
 * in module/queue.c.
 *
 * Context: the slow side; takes every lock.
 * Return: the removed node, no longer queued, or NULL if @q is empty.
 */
struct timeq_node *timeq_delete_min(struct timeq *q)
{
	struct timeq_node *node;

	tq_slow_begin(q);
	node = __timeq_delete_min(q);
	if (node)
		trace_timeq_delete(q, node, node->time);
	tq_slow_end(q);
	return node;
}
EXPORT_SYMBOL_NS_GPL(timeq_delete_min, TIMEQ_NS);

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
 * nodes are removed up to TIMEQ_HOLD to a lock hold, so the fast path is
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
	u64 at = 0;
	bool more;

	do {
		tq_slow_begin(q);
		if (fn)
			n = __timeq_del_less_than(q, time, 1, tq_take, &node);
		else
			n = __timeq_del_less_than(q, time, TQ_BATCH, NULL, NULL);
		if (n && fn)
			at = node->time;
		more = n || q->now < time;
		tq_slow_end(q);
		removed += n;
		if (n && fn) {
			trace_timeq_expire_entry(q, node, at, 0);
			fn(node, arg);
			trace_timeq_expire_exit(q, node);
		}
	} while (more);
	if (removed) {
		this_cpu_inc(q->counters->expiry_runs);
		this_cpu_add(q->counters->expired, removed);
	}
	return removed;
}
EXPORT_SYMBOL_NS_GPL(timeq_del_less_than, TIMEQ_NS);

/**
 * timeq_first - the earliest node, found under the locks
 * @q:		the queue
 *
 * As timeq_min(), but from the slow side: the pending work that a
 * slow-side call between two of its steps may have left (when timeq_min()
 * reads NULL from a queue that is not empty) is finished first. In a
 * base's queue, timers whose tick has passed may have left the queue for
 * the list of timers waiting for their callbacks (module/clock.c): those
 * are not counted here; timeq_expire() runs them.
 *
 * Context: the slow side; takes every lock.
 * Return: the node with the smallest time, the first inserted among equal
 * times, or NULL if @q holds none. The node stays queued; follow the
 * pointer only while the node cannot be freed.
 */
struct timeq_node *timeq_first(struct timeq *q)
{
	struct timeq_node *node;

	tq_slow_begin(q);
	node = q->min;
	tq_slow_end(q);
	return node;
}
EXPORT_SYMBOL_NS_GPL(timeq_first, TIMEQ_NS);

/**
 * timeq_min - the earliest node of a queue
 * @q:		the queue
 *
 * O(1) worst case: the queue keeps its minimum at hand.
 *
 * Context: any. Unless the caller excludes the queue's writers (every
 * slow-side call has returned, and no fast update runs), the answer is a
 * snapshot that may already be out of date, and NULL while the slow side
 * is between two steps of finding the next minimum.
 * Return: the node with the smallest time, the first inserted among equal
 * times, or NULL if @q is empty. The node stays queued. Follow the pointer
 * only while the node cannot be freed; timeq_fast_min() gives the time.
 */
struct timeq_node *timeq_min(const struct timeq *q)
{
	return READ_ONCE(q->min);
}
EXPORT_SYMBOL_NS_GPL(timeq_min, TIMEQ_NS);

/**
 * timeq_now - the clock of a queue
 * @q:		the queue
 *
 * Context: any. Unless the caller excludes the queue's writers, the answer
 * is a snapshot that may already be out of date, and on a 32-bit kernel
 * may be read torn.
 * Return: the current time of @q in ticks. Every queued time lies in
 * [timeq_now(), timeq_now() + horizon).
 */
u64 timeq_now(const struct timeq *q)
{
	return READ_ONCE(q->now);
}
EXPORT_SYMBOL_NS_GPL(timeq_now, TIMEQ_NS);

/**
 * timeq_count - the number of nodes in a queue
 * @q:		the queue
 *
 * Context: any. Unless the caller excludes the queue's writers, the answer
 * is approximate: it adds four counts read one after the other, and a node
 * that moves between them meanwhile may be counted twice or not at all.
 * Return: how many nodes are queued in @q; the timers of a base that wait
 * for their callbacks after their tick has passed are not.
 */
unsigned long timeq_count(const struct timeq *q)
{
	return tq_count(q);
}
EXPORT_SYMBOL_NS_GPL(timeq_count, TIMEQ_NS);

/**
 * timeq_check - verify every invariant of a queue
 * @q:		the queue
 * @buf:	where to describe the first violation found, or NULL
 * @len:	size of @buf
 *
 * Walks every list under the locks: each node's owner and tag, window,
 * list and position, the links, the counts, the bitmaps at every level,
 * the cached minimum, the rules that an empty head leaves nothing of the
 * next bucket outside head2 and that the focus bucket is not split and,
 * for a queue that keeps insertion numbers (module/queue.h), insertion
 * order within each list; in a base's queue, also the base's list of
 * timers due (module/clock.c).
 * O(N + delta + M) in one lock hold, with the fast path shut out
 * meanwhile: for tests, not for production. It changes nothing.
 *
 * Context: the slow side; takes every lock.
 * Return: 0 if @q is sound; -EUCLEAN with a description in @buf if not.
 */
int timeq_check(struct timeq *q, char *buf, size_t len)
{
	int ret;

	might_sleep();
	tq_lock(q);
	tq_finish(q);
	ret = __timeq_check(q, buf, len);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_check, TIMEQ_NS);
