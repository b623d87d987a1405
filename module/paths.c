// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the fast path, the slow path, and the API that is safe to share.
 *
 * Section 3.2 of Brodnik and Karlsson has two kinds of caller on one queue.
 * The fast path (timeq_fast_update(), timeq_fast_min()) runs in softirq
 * context, or with bottom halves disabled. It only ever tries locks, and
 * applies an update only where that costs O(1); anything else it hands to
 * the slow path and returns. The slow path is everything else: the
 * operations of queue.c under the locks, and one work item per queue that
 * applies the handed-off requests and, in a timer base's queue, expires
 * timers (clock.c). The base's calls (module/clock.c) are these paths on
 * its queue; the tq_ names below are them on any queue, which tests use
 * on plain ones.
 *
 * Locks
 * -----
 *
 *	head_lock	the array playing head, @now, @min and @min_time
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
 *  - tq_relock(), in tq_drain() out of budget, and in a base's
 *    tq_clock_make_room() between batches of due timers (module/clock.c),
 *    which tq_apply() and tq_slow_begin_drained() call. The same as
 *    above; moreover the drain's requests not yet applied keep PENDING
 *    set, so a fast update of one of them joins its request, and a
 *    slow-side call on one waits (tq_wait_request()), woken at the door.
 *    After: tq_relock() finishes any work left pending before the
 *    operation goes on, since queue.c's operations may not run with work
 *    pending; the drain reads each timer's SHUTDOWN and ->want only after
 *    clearing its PENDING, and tq_apply() holds PENDING across its door
 *    and reads them again; making room reads @now again;
 *    tq_slow_begin_drained() makes room before it drains and checks
 *    PENDING, so its caller changes the timer with no door since (the
 *    window only widens across one).
 *  - Between the calls of one operation that loops: each pass of
 *    timeq_del_less_than(), each turn of the expiry around a callback
 *    (module/clock.c), each retry of tq_slow_begin_drained() and
 *    tq_sync() after a wait, and the far exits of timeq_insert(),
 *    timeq_delete() and timeq_update() when tq_far_ok() refuses. Each pass
 *    begins as a new call (tq_slow_begin(): pending work finished, the
 *    clock caught up) and decides again from what it finds.
 *  - timeq_destroy() between release steps: nothing else uses the queue.
 *
 * The fast path
 * -------------
 *
 * timeq_fast_update() guesses from a racy read of the timer's tag and of
 * the clock which lane it needs, tries that lane's locks, checks the
 * guess under them, and applies the update only if it costs O(1) and
 * leaves no work pending:
 *
 *	near lane	head_lock, head2_lock: an update within buckets cur
 *			and cur + 1, or an insert there. If the move would
 *			empty the head while bucket list cur + 1 still holds
 *			nodes, I4 would want that list pulled: deferred.
 *	far lane	bucket_lock: what tq_far_ok() allows the slow side,
 *			for a queued timer. This is a refreshed time-out,
 *			moved later, far ahead.
 *	cross lane	all three: any other insert or move, unless it takes
 *			the minimum to a far time (finding the next minimum
 *			may need a walk) or empties the head as above.
 *
 * The near lane also inserts while the slow side is between two steps of
 * far work (a WALK, EVICT or RESOLVE): the heads were empty when that work
 * began, so a node put there is the minimum, and the work's last step
 * looks at the heads first. Every other update waits for no work to be
 * pending: moving the minimum would settle it anew. A failed trylock, a
 * failed check or pending work defers the update; the fast path never
 * waits.
 *
 * The fast path reaches nothing that spins or sleeps: no hrtimer and no
 * workqueue call. Where an update needs the slow path to run, or moves a
 * base's minimum earlier than its hrtimer is set for, it queues
 * @kick, an irq_work: irq_work_queue() claims the item with an atomic
 * operation and raises a self-interrupt, whose handler (tq_kick()) queues
 * the work, re-arms the hrtimer and wakes the slow-side calls waiting for
 * a request.
 *
 * What "never waits" and "O(1) worst case" mean for the fast path: it
 * takes no lock it could wait for, and runs no loop whose length depends
 * on the queue. Three of its steps are lock-free rather than wait-free,
 * each a loop that retries only when another context's operation on the
 * same word completed in between: llist_add(), a compare-and-exchange on
 * the list's first entry (another push, or the drain's llist_del_all());
 * irq_work_queue()'s claim, an atomic_fetch_or() that is such a loop on
 * some architectures (another claim, or the irq_work running, maybe on
 * this CPU from a hard interrupt); and, in a base's queue, the latch
 * read of ktime_get_mono_fast_ns() (a timekeeping update).
 *
 * The hand-off
 * ------------
 *
 * A deferred request is the timer itself. The fast path writes the new
 * time to timer->want, and if TIMEQ_TIMER_PENDING was clear, sets it and
 * pushes the timer onto the queue's llist, then kicks. A second update
 * before the slow path runs only rewrites ->want, so the slow path applies
 * the latest time once, in the order of the requests' first hand-off. The
 * request can never fail for memory, nor for the window: the fast path
 * let through only a time in the window of a clock at or before the one
 * the drain sees (a base's is caught up to the current tick
 * first). While a request is pending, a fast update is not applied in
 * place, so it cannot be overtaken by the older request.
 *
 * The slow path takes the whole list (oldest first) under every lock.
 * For each timer it clears PENDING, then reads ->want: test_and_set_bit()
 * and clear_bit() + smp_mb__after_atomic() order the two sides, so an
 * update that found PENDING set is seen by this read. A fast update tests
 * PENDING again under its lane's locks, which the drain holds while it
 * clears PENDING and applies the request, so it cannot slip an in-place
 * update between the two. Every slow-side timer call drains the list
 * first, for the same reason.
 *
 * The fast update that sets PENDING writes ->want again after it, before
 * it pushes the request: between its first write and its
 * test_and_set_bit(), another update of the timer may have written
 * ->want, set PENDING, been drained (PENDING clear again), and then been
 * applied in place; without the second write the request would carry
 * that drained time and undo the newer one. An update that finds PENDING
 * set joins a request that may not be on the list yet (set, not yet
 * pushed), so a drain can miss it; so can a drain while another caller's
 * drain holds the request in a door. A slow-side timer call that finds
 * PENDING set after its drain unlocks, sleeps until the request is pushed
 * or applied (tq_wait_request(): the irq_work wakes it after a push, the
 * drain after it clears PENDING), and starts again, as tq_sync()
 * does, so that a request that returned before the call cannot land
 * after it. It sleeps rather than spins: the task it waits for may be a
 * fast path preempted between its two steps (PREEMPT_RT), or a drain on
 * its own CPU that a SCHED_FIFO caller would never let run.
 * (tools/testing/spin model-checks the protocol, and tools/testing/explore
 * runs the C code of it under controlled interleavings.)
 *
 * Counting and tracing
 * --------------------
 *
 * Every path counts what it does in the queue's per-CPU counters
 * (stats.h): this_cpu_inc() takes no lock and writes a line no other CPU
 * writes. A failed trylock is counted where it fails. A hand-off is
 * counted twice, once in all and once under its reason (&enum
 * timeq_defer), which the check that refused it gives;
 * timeq_get_fast_stats() reads them for in-kernel users.
 *
 * Each outcome fires a tracepoint (trace/timeq.h). Disabled, a tracepoint
 * is a static branch: a no-op instruction in the path. Enabled, it
 * reserves an entry in this CPU's ring buffer, which takes no lock and
 * never waits (a full buffer overwrites its oldest entry, or drops the
 * new one), hashes the node's address for its id (SipHash of one word),
 * copies five fields and commits the entry: no loop and no wait, so the
 * fast path stays O(1) and still never waits. The fast path fires its
 * event after it has dropped the locks it tried.
 *
 * Lifetimes
 * ---------
 *
 * A fast update reads and writes its timer without any lock that the slow
 * side could wait for, so no slow-side call can know that none is running.
 * That is the caller's to guarantee, as with timer_delete_sync(): see
 * timeq_delete_sync(). Given that, the llist is the only reference the
 * queue keeps to a timer that is not queued, and the delete drains it.
 */

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "paths.h"
#include "queue.h"
#include "stats.h"
#include "trace/timeq.h"

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
	wake_up_var(&q->handoffs);
	cond_resched();
	tq_lock(q);
	tq_finish(q);
}

/* The minimum may have moved: a base re-arms its hrtimer. */
static void tq_changed(struct timeq *q)
	__must_hold(&q->head_lock)
{
	lockdep_assert_held(&q->head_lock);
	if (q->base)
		tq_clock_changed(q);
}

/* Enter the slow side: every lock, no work pending, the clock current. */
static void tq_slow_begin(struct timeq *q)
	__acquires(&q->head_lock) __acquires(&q->head2_lock)
	__acquires(&q->bucket_lock)
{
	might_sleep();
	tq_lock(q);
	tq_finish(q);
	if (q->base)
		tq_clock_catch_up(q);
}

/* Leave it: finish what the call left pending, re-arm, unlock. */
static void tq_slow_end(struct timeq *q)
	__releases(&q->bucket_lock) __releases(&q->head2_lock)
	__releases(&q->head_lock)
{
	tq_finish(q);
	tq_changed(q);
	tq_unlock(q);
}

/*
 * May @node (queued in @q or in no queue) go to @time, or be deleted if
 * @time is TQ_DELETE, under bucket_lock alone? Only if no work is pending,
 * the node is far and not the minimum, and @time is far, in the window and
 * no earlier than the minimum (so a minimum there is). See "Locks" above.
 */
#define TQ_DELETE	U64_MAX

static bool tq_far_ok(const struct timeq *q, const struct timeq_node *node,
		      u64 time)
	__must_hold(&q->bucket_lock)
{
	unsigned long owner = READ_ONCE(node->owner);

	lockdep_assert_held(&q->bucket_lock);
	if (q->pend != TQ_PEND_NONE)
		return false;
	if (owner && (tq_owner(node) != q || !tq_is_far(q, node) ||
		      READ_ONCE(q->min) == node))
		return false;
	if (time == TQ_DELETE)
		return owner;
	/*
	 * @min and @min_time are head_lock's, read here without it: with no
	 * work pending, @min is NULL only in an empty queue (tq_settle()
	 * writes it once, with its final value), and a holder of head_lock
	 * alone changes the pair only from near node to near node, or to a
	 * near node from a far one: both earlier than any far @time, so a
	 * pair read half old, half new still tells "far and no earlier".
	 */
	return tq_in_window(q, time) && tq_rel(q, time) >= 2 &&
	       READ_ONCE(q->min) && time >= READ_ONCE(q->min_time);
}

/* A timeq_fn that hands the one node it is given back through @arg. */
void tq_take(struct timeq_node *node, void *arg)
{
	*(struct timeq_node **)arg = node;
}

/*
 * The slow side's insert, delete and update, each traced when it succeeds;
 * @far: under bucket_lock alone, as tq_far_ok() allowed.
 */
static int tq_insert(struct timeq *q, struct timeq_node *node, u64 time,
		     bool far)
{
	int ret = far ? __timeq_far_insert(q, node, time) :
			__timeq_insert(q, node, time);

	if (!ret)
		trace_timeq_insert(q, node, time);
	return ret;
}

static int tq_delete(struct timeq *q, struct timeq_node *node, bool far)
{
	int ret = far ? __timeq_far_delete(q, node) : __timeq_delete(q, node);

	if (!ret)
		trace_timeq_delete(q, node, node->time);
	return ret;
}

static int tq_update(struct timeq *q, struct timeq_node *node, u64 time,
		     bool far)
{
	u64 old = node->time;
	int ret = far ? __timeq_far_update(q, node, time) :
			__timeq_update(q, node, time);

	if (!ret)
		trace_timeq_update(q, node, old, time);
	return ret;
}

/*
 * Queue @timer at @time, or at the clock if @time has passed, in the
 * window as it is now: no lock is dropped. A timer whose callback is due
 * (module/clock.c) is armed: it leaves the due list for the queue, and
 * its callback does not run for the old time.
 */
static int tq_arm(struct timeq *q, struct timeq_timer *timer, u64 time)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	int ret;

	tq_assert_locked(q);
	time = max(time, q->now);
	if (tq_in(&timer->node, q))
		return tq_update(q, &timer->node, time, false);
	if (tq_tag(&timer->node) != TQ_TAG_OUT || tq_foreign(&timer->node, q))
		return tq_insert(q, &timer->node, time, false);
	if (!tq_in_window(q, time))
		return -ERANGE;
	tq_clock_cancel_due(q, timer);
	ret = tq_insert(q, &timer->node, time, false);
#ifdef TIMEQ_DEBUG_FIFO
	/* The timer's life goes on: tests count it as one insertion. */
	atomic64_dec(&q->inserted);
#endif
	return ret;
}

/*
 * Make room in a base's window for @time (tq_clock_make_room()),
 * which may pass a door. Return: 0, or -ERANGE if @time lies beyond the
 * horizon of the current tick.
 */
static int tq_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	if (!q->base || tq_in_window(q, max(time, q->now)))
		return 0;
	return tq_clock_make_room(q, time);
}

/*
 * Disarm @timer: take it out of @q, or off the due list. Return: whether
 * it was armed.
 */
static bool tq_disarm(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
		__must_hold(&q->bucket_lock)
{
	tq_assert_locked(q);
	return tq_clock_cancel_due(q, timer) ||
	       !tq_delete(q, &timer->node, false);
}

/*
 * Wake the slow-side calls that wait for a request (tq_wait_request()):
 * one was pushed, or PENDING was cleared. The caller has ordered that
 * change before this with a full barrier, as wake_up_var() requires.
 */
static void tq_wake_requests(struct timeq *q)
{
	wake_up_var(&q->handoffs);
}

/*
 * Wait, holding no lock, until @timer's request is no longer pending, or
 * some request is on the list for the caller to drain: a request set but
 * not yet pushed, or held by another caller's drain in a door, is waited
 * for by sleeping, never by spinning, whatever the two tasks' priorities.
 */
static void tq_wait_request(struct timeq *q, struct timeq_timer *timer)
{
	wait_var_event(&q->handoffs,
		       !test_bit(TIMEQ_TIMER_PENDING, &timer->flags) ||
			       !llist_empty(&q->handoffs));
}

/*
 * Apply the request of @timer, whose PENDING the caller's drain holds.
 * PENDING is cleared before ->want is read, and the timer armed in the
 * same lock hold (see "The hand-off"). In a base's queue the window may
 * first need room (tq_room()), which may pass a door: that is done while
 * PENDING is still held, so a fast update meanwhile joins the request
 * rather than lands beside it, and ->want is read after. If a join moved
 * ->want further still, PENDING is taken back and room made again, a
 * budget unit each time; if a new request took PENDING first, that one
 * carries the latest time and this one is done. A request the slow side's
 * clock cannot make room for (the fast path's clock went further, which
 * tq_clock_make_room() rules out but for a clock that went back) goes
 * back on the list, and the work runs again.
 */
static void tq_apply(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
		__must_hold(&q->bucket_lock)
{
	u64 want = READ_ONCE(timer->want);

	for (;;) {
		if (tq_room(q, want)) {
			llist_add(&timer->handoff, &q->handoffs);
			queue_work(timeq_wq, &q->work);
			return;
		}
		/*
		 * Released: the drain read the timer's link before, and a fast
		 * update that then takes PENDING rewrites it (llist_add()).
		 */
		clear_bit_unlock(TIMEQ_TIMER_PENDING, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		want = READ_ONCE(timer->want);
		if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
			return;
		if (!q->base || tq_in_window(q, max(want, q->now)))
			break;
		if (test_and_set_bit(TIMEQ_TIMER_PENDING, &timer->flags))
			return;
		while (!q->budget)
			tq_relock(q);
		q->budget--;
	}
	/* The window was checked in this lock hold. */
	WARN_ON_ONCE(tq_arm(q, timer, want) == -ERANGE);
}

/*
 * Apply every handed-off request, oldest first: one node visit each, and
 * whatever pending work each leaves is finished before the next.
 */
static void tq_drain(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	struct timeq_timer *timer, *next;
	struct llist_node *list;
	unsigned long n = 0;

	tq_assert_locked(q);
	list = llist_reverse_order(llist_del_all(&q->handoffs));
	llist_for_each_entry_safe(timer, next, list, handoff) {
		if (!q->budget)
			/* The timers applied so far are not pending any more. */
			tq_wake_requests(q);
		while (!q->budget)
			tq_relock(q);
		q->budget--;
		q->visits++;
		tq_apply(q, timer);
		tq_finish(q);
		n++;
	}
	if (n) {
		tq_wake_requests(q);
		this_cpu_add(q->counters->drained, n);
		trace_timeq_handoff_drained(q, n);
	}
}

/* Forget every handed-off request: the queue is going away. */
static void tq_discard(struct timeq *q)
{
	struct llist_node *list = llist_del_all(&q->handoffs);
	struct timeq_timer *timer, *next;

	llist_for_each_entry_safe(timer, next, list, handoff)
		clear_bit(TIMEQ_TIMER_PENDING, &timer->flags);
	/* The clears before the waiters' check: tq_wake_requests(). */
	smp_mb__after_atomic();
	tq_wake_requests(q);
}

/* tq_slow_begin_drained() for a call that arms nothing. */
#define TQ_NO_ROOM U64_MAX

/*
 * Enter the slow side for a call on @timer, with no request for it left
 * anywhere: make room in the window for @room in a base's queue, unless
 * it is TQ_NO_ROOM (a door, maybe; the window only widens after it), then
 * drain, and while PENDING says that a request is still in flight (set,
 * not yet pushed; pushed since the drain; or held by another caller's
 * drain in a door), wait for it and start again. It returns with no door
 * since PENDING was found clear, so no fast update can land between that
 * and the caller's own change. See "The hand-off".
 */
static void tq_slow_begin_drained(struct timeq *q, struct timeq_timer *timer,
				  u64 room) __acquires(&q->head_lock)
	__acquires(&q->head2_lock) __acquires(&q->bucket_lock)
{
	for (;;) {
		tq_slow_begin(q);
		/* Too far even for the current tick: tq_arm() says so. */
		if (room != TQ_NO_ROOM)
			tq_room(q, room);
		tq_drain(q);
		if (!test_bit(TIMEQ_TIMER_PENDING, &timer->flags))
			return;
		tq_slow_end(q);
		tq_wait_request(q, timer);
	}
}

/* The slow path: one work item per queue, so never two at once. */
static void tq_work(struct work_struct *work)
{
	struct timeq *q = container_of(work, struct timeq, work);

	this_cpu_inc(q->counters->slow_runs);
	trace_timeq_slow_entry(q);
	tq_slow_begin(q);
	tq_drain(q);
	tq_slow_end(q);
	if (q->base)
		tq_clock_expire(q);
	trace_timeq_slow_exit(q);
}

/*
 * The fast path's irq_work, in hard interrupt context: what the fast path
 * may not do itself (see "The fast path").
 */
static void tq_kick(struct irq_work *kick)
{
	struct timeq *q = container_of(kick, struct timeq, kick);

	if (q->base)
		tq_clock_kick(q);
	if (!llist_empty(&q->handoffs))
		queue_work(timeq_wq, &q->work);
	/* A request was pushed, or a refused one cleared PENDING. */
	smp_mb();
	tq_wake_requests(q);
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
 * @delta * @nbuckets + 1 must be at least @horizon: the window spans the
 * current bucket, which is never a bucket list, and M buckets after it.
 * With one of them given, the other is the least that covers. With both
 * 0, timeq_tune_shape() (module/tune.h) chooses them by the rule of
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
 * for each CPU (module/stats.h), a number, and a file in debugfs.
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
	err = tq_queue_init(q, NULL, now, horizon, delta, nbuckets, gfp);
	if (err) {
		kfree(q);
		return ERR_PTR(err);
	}
	return q;
}
EXPORT_SYMBOL_NS_GPL(timeq_create, TIMEQ_NS);

/*
 * Initialise the zeroed queue @q, composed by @base or by none: the body
 * of timeq_create() and of timeq_base_create(), whose @base has what
 * tq_stats_register() shows ready. Returns 0 or a negative errno, with
 * nothing left to free.
 */
int tq_queue_init(struct timeq *q, struct timeq_base *base, u64 now,
		  u64 horizon, unsigned int delta, unsigned int nbuckets,
		  gfp_t gfp)
{
	int err;

	q->base = base;
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
	init_llist_head(&q->handoffs);
	init_irq_work(&q->kick, tq_kick);
	INIT_WORK(&q->work, tq_work);
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
	tq_queue_exit(q);
	kfree(q);
}
EXPORT_SYMBOL_NS_GPL(timeq_destroy, TIMEQ_NS);

/*
 * Stop the slow path of @q, and its base's hrtimer, and release what is
 * still in it, for timeq_destroy() and timeq_base_destroy(): requests
 * handed off and not yet applied are dropped, timers are released and not
 * run. The memory of @q itself is the caller's to free.
 */
void tq_queue_exit(struct timeq *q)
{
	might_sleep();
	if (q->base)
		tq_clock_stop(q);
	irq_work_sync(&q->kick);
	cancel_work_sync(&q->work);
	tq_stats_unregister(q);
	tq_discard(q);
	tq_lock(q);
	while (__timeq_release_step(q) ||
	       (q->base && tq_clock_release_step(q))) {
		tq_unlock(q);
		cond_resched();
		tq_lock(q);
	}
	tq_unlock(q);
	__timeq_free(q);
	free_percpu(q->counters);
}

/**
 * timeq_insert - add a node
 * @q:		a queue from timeq_create()
 * @node:	an initialised node that is in no queue
 * @time:	its time, in [timeq_now(@q), timeq_now(@q) + horizon)
 *
 * O(1) worst case. Among equal times, nodes leave in insertion order. A
 * time before the current minimum makes @node the minimum.
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
 * The clock does not move. For a timer that may have a fast update
 * pending, use timeq_timer_delete() or timeq_delete_sync().
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
 * is a snapshot that may already be out of date.
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
 * in builds with %TIMEQ_DEBUG_FIFO, insertion order within each list; in
 * a base's queue, also the base's list of timers due (module/clock.c).
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
	if (!ret && q->base)
		ret = tq_clock_check(q, buf, len);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(timeq_check, TIMEQ_NS);

/* --- the fast path --- */

/*
 * Is @time in the window of @q, whose clock reads @now? 0 if it is (a time
 * before @now is taken as @now), -ERANGE if it is beyond the horizon, and
 * -EAGAIN if only the slow path can tell: a base's queue's @now lags
 * CLOCK_MONOTONIC until the slow path next runs.
 */
static int tq_window(const struct timeq *q, u64 now, u64 time)
{
	u64 tick;

	if (time < now || time - now < q->horizon)
		return 0;
	if (!q->base)
		return -ERANGE;
	tick = tq_clock_fast_tick(q);
	return time < tick || time - tick < q->horizon ? -EAGAIN : -ERANGE;
}

/*
 * A lane's answer when only the slow path can apply the update: -EAGAIN,
 * with *@why set to the &enum timeq_defer that says why.
 */
static int tq_lane_defer(int *why, int reason)
{
	*why = reason;
	return -EAGAIN;
}

/*
 * What every lane checks first, under its locks: the timer, then whether
 * @time is in the window of @q's clock. A time before the clock is taken
 * as the clock.
 */
static int tq_fast_check(struct timeq *q, struct timeq_timer *timer, u64 time,
			 int *why)
{
	if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	/* Under a lock the drain holds: see "The hand-off". */
	if (test_bit(TIMEQ_TIMER_PENDING, &timer->flags))
		return tq_lane_defer(why, TIMEQ_DEFER_JOINED);
	if (tq_foreign(&timer->node, q))
		return -EBUSY;
	/*
	 * On the due list (module/clock.c), which only a holder of every lock
	 * changes: its link is in use, and the slow side re-arms it.
	 */
	if (tq_tag(&timer->node) == TQ_TAG_OUT)
		return tq_lane_defer(why, TIMEQ_DEFER_DUE);
	switch (tq_window(q, q->now, time)) {
	case -ERANGE:
		return -ERANGE;
	case -EAGAIN:
		return tq_lane_defer(why, TIMEQ_DEFER_CLOCK);
	}
	return 0;
}

/* The minimum moved from @old to earlier: a base re-arms. */
static void tq_fast_changed(struct timeq *q, u64 old)
{
	if (q->base && READ_ONCE(q->min_time) < old)
		irq_work_queue(&q->kick);
}

/*
 * The far lane, under bucket_lock: a queued far timer moved far. What
 * tq_far_ok() refuses needs head_lock too: work pending, a timer that is
 * the minimum, one that left the far region, or one that would become the
 * minimum.
 */
static int tq_fast_far(struct timeq *q, struct timeq_timer *timer, u64 time,
		       int *why) __must_hold(&q->bucket_lock)
{
	int ret = tq_fast_check(q, timer, time, why);

	lockdep_assert_held(&q->bucket_lock);
	if (ret)
		return ret;
	time = max(time, q->now);
	if (q->pend != TQ_PEND_NONE)
		return tq_lane_defer(why, TIMEQ_DEFER_WORK);
	/* Read without head_lock, as tq_far_ok() reads it. */
	if (READ_ONCE(q->min) == &timer->node)
		return tq_lane_defer(why, TIMEQ_DEFER_MIN_FAR);
	if (!READ_ONCE(timer->node.owner) || !tq_far_ok(q, &timer->node, time))
		return tq_lane_defer(why, TIMEQ_DEFER_LANE);
	return __timeq_far_update(q, &timer->node, time);
}

/*
 * Would moving @node (in @q, or in none) to @time leave work pending, or
 * need a far walk for the next minimum? Then the fast path defers.
 * TQ_CHECK_NEXT: only if bucket list cur + 1 holds nodes (I4), which
 * bucket_lock guards.
 */
enum { TQ_SHORT, TQ_LONG, TQ_CHECK_NEXT };

static int tq_fast_length(struct timeq *q, struct timeq_node *node, u64 time)
{
	u64 rel = tq_rel(q, time);

	if (!node->owner)
		return TQ_SHORT;
	/* The minimum going far: the next one may need a walk. */
	if (q->min == node && rel >= 2)
		return TQ_LONG;
	/* Emptying the head while the calendar holds part of the next bucket. */
	if (tq_is_head(q, node) && q->head->count == 1 && rel >= 1)
		return TQ_CHECK_NEXT;
	return TQ_SHORT;
}

/* Does bucket list cur + 1 hold nodes? With bucket_lock held. */
static bool tq_next_in_calendar(const struct timeq *q)
	__must_hold(&q->bucket_lock)
{
	lockdep_assert_held(&q->bucket_lock);
	return q->bucket_count[tq_slot(q, tq_cur(q) + 1)];
}

/*
 * tq_next_in_calendar() from the near lane, trying bucket_lock: 0 if the
 * list is empty, -EAGAIN if it holds nodes, -ENOLCK if the lock was taken.
 */
static int tq_try_next_in_calendar(struct timeq *q, int *why)
{
	bool ret;

	if (!spin_trylock(&q->bucket_lock)) {
		this_cpu_inc(q->counters->fast_contended);
		return -ENOLCK;
	}
	ret = tq_next_in_calendar(q);
	spin_unlock(&q->bucket_lock);
	return ret ? tq_lane_defer(why, TIMEQ_DEFER_HEAD) : 0;
}

/* The near lane, under head_lock and head2_lock: within buckets cur, cur + 1. */
static int tq_fast_near(struct timeq *q, struct timeq_timer *timer, u64 time,
			int *why) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock)
{
	struct timeq_node *node = &timer->node;
	u64 old = q->min_time;
	int ret = tq_fast_check(q, timer, time, why);

	lockdep_assert_held(&q->head_lock);
	lockdep_assert_held(&q->head2_lock);
	if (ret)
		return ret;
	if (q->pend == TQ_PEND_PULL_NEXT || q->pend == TQ_PEND_PULL_HEAD)
		return tq_lane_defer(why, TIMEQ_DEFER_WORK);
	time = max(time, q->now);
	if (tq_rel(q, time) > 1)
		return tq_lane_defer(why, TIMEQ_DEFER_LANE);
	/* A far node's word may be rewritten by the far lane meanwhile. */
	if (READ_ONCE(node->owner)) {
		/*
		 * Near: the lane's locks guard it (see "Locks"). Not while far
		 * work is pending: moving the minimum would settle it anew.
		 */
		if (tq_is_far(q, node))
			return tq_lane_defer(why, TIMEQ_DEFER_LANE);
		if (q->pend != TQ_PEND_NONE)
			return tq_lane_defer(why, TIMEQ_DEFER_WORK);
		switch (tq_fast_length(q, node, time)) {
		case TQ_LONG:
			return tq_lane_defer(why, TIMEQ_DEFER_MIN_FAR);
		case TQ_CHECK_NEXT:
			ret = tq_try_next_in_calendar(q, why);
			if (ret)
				return ret;
			break;
		}
		ret = __timeq_update(q, node, time);
	} else {
		ret = __timeq_insert(q, node, time);
	}
	tq_fast_changed(q, old);
	return ret;
}

/* The cross lane, under every lock: any other O(1) insert or move. */
static int tq_fast_cross(struct timeq *q, struct timeq_timer *timer, u64 time,
			 int *why) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	struct timeq_node *node = &timer->node;
	u64 old = q->min_time;
	int ret = tq_fast_check(q, timer, time, why);

	if (ret)
		return ret;
	if (q->pend != TQ_PEND_NONE)
		return tq_lane_defer(why, TIMEQ_DEFER_WORK);
	time = max(time, q->now);
	switch (tq_fast_length(q, node, time)) {
	case TQ_LONG:
		return tq_lane_defer(why, TIMEQ_DEFER_MIN_FAR);
	case TQ_CHECK_NEXT:
		if (tq_next_in_calendar(q))
			return tq_lane_defer(why, TIMEQ_DEFER_HEAD);
		break;
	}
	if (node->owner)
		ret = __timeq_update(q, node, time);
	else
		ret = __timeq_insert(q, node, time);
	tq_fast_changed(q, old);
	return ret;
}

/* Hand a request to the slow path; no lock is held. */
static int tq_handoff(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	int ret = tq_window(q, READ_ONCE(q->now), time);

	if (ret == -ERANGE)
		return ret;
	if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	WRITE_ONCE(timer->want, time);
	if (!test_and_set_bit(TIMEQ_TIMER_PENDING, &timer->flags)) {
		if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags)) {
			clear_bit(TIMEQ_TIMER_PENDING, &timer->flags);
			/* A shutdown_sync may wait for it: tq_kick() wakes it. */
			irq_work_queue(&q->kick);
			return -ESHUTDOWN;
		}
		/*
		 * The request is ours, and so is ->want: another update may
		 * have written it, handed it off and had it drained since our
		 * write above (see "The hand-off").
		 */
		WRITE_ONCE(timer->want, time);
		llist_add(&timer->handoff, &q->handoffs);
		this_cpu_inc(q->counters->handoffs);
		irq_work_queue(&q->kick);
	}
	return TIMEQ_DEFERRED;
}

/* The lanes: which locks a fast update tries. */
enum tq_lane { TQ_LANE_NEAR, TQ_LANE_FAR, TQ_LANE_CROSS };

/* A guess from racy reads; each lane checks it under its locks. */
static enum tq_lane tq_fast_lane(const struct timeq *q,
				 const struct timeq_node *node, u64 time)
{
	unsigned long owner = READ_ONCE(node->owner);
	u64 now = READ_ONCE(q->now);
	bool far = max(time, now) >> q->delta_shift >= (now >> q->delta_shift) + 2;
	unsigned int tag = owner & TIMEQ_NODE_TAG_MASK;

	if (!owner)
		return far ? TQ_LANE_CROSS : TQ_LANE_NEAR;
	if (tag == TQ_TAG_CALENDAR || tq_tag_plays(q, tag, READ_ONCE(q->focus)))
		return far ? TQ_LANE_FAR : TQ_LANE_CROSS;
	return far ? TQ_LANE_CROSS : TQ_LANE_NEAR;
}

/*
 * Each lane: try its locks, apply, or defer: -EAGAIN where the update
 * needs the slow path, with *@why saying why, -ENOLCK where a lock was
 * taken.
 */
static int tq_try_far(struct timeq *q, struct timeq_timer *timer, u64 time,
		      int *why)
{
	int ret;

	if (!spin_trylock(&q->bucket_lock)) {
		this_cpu_inc(q->counters->fast_contended);
		return -ENOLCK;
	}
	ret = tq_fast_far(q, timer, time, why);
	spin_unlock(&q->bucket_lock);
	return ret;
}

static int tq_try_near(struct timeq *q, struct timeq_timer *timer, u64 time,
		       int *why)
{
	int ret;

	if (!spin_trylock(&q->head_lock))
		goto contended;
	if (!spin_trylock(&q->head2_lock))
		goto unlock_head;
	ret = tq_fast_near(q, timer, time, why);
	spin_unlock(&q->head2_lock);
	spin_unlock(&q->head_lock);
	return ret;

unlock_head:
	spin_unlock(&q->head_lock);
contended:
	this_cpu_inc(q->counters->fast_contended);
	return -ENOLCK;
}

static int tq_try_cross(struct timeq *q, struct timeq_timer *timer, u64 time,
			int *why)
{
	int ret;

	if (!spin_trylock(&q->head_lock))
		goto contended;
	if (!spin_trylock(&q->head2_lock))
		goto unlock_head;
	if (!spin_trylock(&q->bucket_lock))
		goto unlock_head2;
	ret = tq_fast_cross(q, timer, time, why);
	spin_unlock(&q->bucket_lock);
	spin_unlock(&q->head2_lock);
	spin_unlock(&q->head_lock);
	return ret;

unlock_head2:
	spin_unlock(&q->head2_lock);
unlock_head:
	spin_unlock(&q->head_lock);
contended:
	this_cpu_inc(q->counters->fast_contended);
	return -ENOLCK;
}

/* Count and trace a fast update that was applied, or refused with @ret. */
static int tq_fast_done(struct timeq *q, struct timeq_timer *timer, u64 time,
			int ret)
{
	if (ret < 0) {
		this_cpu_inc(q->counters->fast_refused);
		trace_timeq_fast_refused(q, timer, time, ret);
	} else {
		this_cpu_inc(q->counters->fast_applied);
		trace_timeq_fast_applied(q, timer, time, ret);
	}
	return ret;
}

/*
 * Hand a fast update off, and count and trace it as deferred for @why, an
 * &enum timeq_defer.
 */
static int tq_fast_defer(struct timeq *q, struct timeq_timer *timer, u64 time,
			 int why)
{
	int ret = tq_handoff(q, timer, time);

	if (ret < 0)
		return tq_fast_done(q, timer, time, ret);
	this_cpu_inc(q->counters->fast_deferred);
	this_cpu_inc(q->counters->fast_deferred_why[why]);
	trace_timeq_fast_deferred(q, timer, time, why);
	return ret;
}

/* timeq_fast_update() on @q: a base's queue, or a plain one in tests. */
int tq_fast_update(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	int why = TIMEQ_DEFER_LANE, ret;

	lockdep_assert_in_softirq();
	/* A request is pending: this one joins it, without touching a lock. */
	if (test_bit(TIMEQ_TIMER_PENDING, &timer->flags))
		return tq_fast_defer(q, timer, time, TIMEQ_DEFER_JOINED);
	if (tq_foreign(&timer->node, q))
		return tq_fast_done(q, timer, time, -EBUSY);
	switch (tq_fast_lane(q, &timer->node, time)) {
	case TQ_LANE_FAR:
		ret = tq_try_far(q, timer, time, &why);
		break;
	case TQ_LANE_NEAR:
		ret = tq_try_near(q, timer, time, &why);
		break;
	default:
		ret = tq_try_cross(q, timer, time, &why);
		break;
	}
	if (ret == -ENOLCK)
		return tq_fast_defer(q, timer, time, TIMEQ_DEFER_CONTENDED);
	if (ret == -EAGAIN)
		return tq_fast_defer(q, timer, time, why);
	return tq_fast_done(q, timer, time, ret);
}
EXPORT_SYMBOL_IF_KUNIT(tq_fast_update);

/* timeq_fast_min() on @q, as tq_fast_update(). */
int tq_fast_min(struct timeq *q, u64 *time)
{
	int ret;

	lockdep_assert_in_softirq();
	if (!spin_trylock(&q->head_lock)) {
		this_cpu_inc(q->counters->fast_contended);
		return -EAGAIN;
	}
	if (q->min) {
		*time = q->min_time;
		ret = 0;
	} else {
		ret = q->pend != TQ_PEND_NONE ? -EAGAIN : -ENOENT;
	}
	spin_unlock(&q->head_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(tq_fast_min);

/* --- the slow side's timer calls --- */

/* Why timeq_timer_arm(), or timeq_timer_move() if @armed_only, refuses. */
static int tq_timer_refuse(struct timeq *q, struct timeq_timer *timer,
			   bool armed_only) __must_hold(&q->head_lock)
{
	/* A timer on the due list is @q's too, and armed. */
	if (armed_only && tq_owner(&timer->node) != q)
		return -ENOENT;
	if (test_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	return 0;
}

/* timeq_timer_arm(), or timeq_timer_move() if @armed_only. */
static int tq_timer_set(struct timeq *q, struct timeq_timer *timer, u64 time,
			bool armed_only)
{
	int ret;

	tq_slow_begin_drained(q, timer, time);
	ret = tq_timer_refuse(q, timer, armed_only);
	if (!ret)
		ret = tq_arm(q, timer, time);
	tq_slow_end(q);
	return ret;
}

/* timeq_timer_arm() on @q, as tq_fast_update(). */
int tq_timer_arm(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(q, timer, time, false);
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_arm);

/* timeq_timer_move() on @q, as tq_fast_update(). */
int tq_timer_move(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(q, timer, time, true);
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_move);

/* timeq_timer_delete() on @q, as tq_fast_update(). */
int tq_timer_delete(struct timeq *q, struct timeq_timer *timer)
{
	int ret;

	tq_slow_begin_drained(q, timer, TQ_NO_ROOM);
	ret = tq_disarm(q, timer);
	tq_slow_end(q);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_delete);

/*
 * Drain and delete until no request names @timer and no callback runs it.
 * A request in flight is waited for (tq_wait_request()), and a running
 * callback (tq_clock_wait()), each by sleeping.
 */
static int tq_sync(struct timeq *q, struct timeq_timer *timer, bool shutdown)
{
	bool running, pending;
	int ret = 0;

	for (;;) {
		tq_slow_begin(q);
		if (shutdown)
			set_bit(TIMEQ_TIMER_SHUTDOWN, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		tq_drain(q);
		if (tq_disarm(q, timer))
			ret = 1;
		pending = test_bit(TIMEQ_TIMER_PENDING, &timer->flags);
		running = q->base && tq_clock_running(q, timer);
		tq_slow_end(q);
		if (running)
			tq_clock_wait(q, timer);
		else if (pending)
			tq_wait_request(q, timer);
		else
			return ret;
	}
}

/* timeq_delete_sync() on @q, as tq_fast_update(). */
int tq_delete_sync(struct timeq *q, struct timeq_timer *timer)
{
	return tq_sync(q, timer, false);
}
EXPORT_SYMBOL_IF_KUNIT(tq_delete_sync);

/* timeq_shutdown_sync() on @q, as tq_fast_update(). */
int tq_shutdown_sync(struct timeq *q, struct timeq_timer *timer)
{
	return tq_sync(q, timer, true);
}
EXPORT_SYMBOL_IF_KUNIT(tq_shutdown_sync);
