// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the hand-off from the fast path to the slow path, the work item
 * that applies it, and the slow side's timer calls, tq_timer_arm() to
 * tq_shutdown_sync(), which a base's calls (base.c) run on its queue.
 *
 * The hand-off
 * ------------
 *
 * A deferred request is the timer itself. The fast path writes the new
 * time to timer->want, and if TQ_TIMER_PENDING was clear, sets it and
 * pushes the timer onto the base's llist, then kicks. A second update
 * before the slow path runs only rewrites ->want, so the slow path applies
 * the latest time once, in the order of the requests' first hand-off. The
 * request can never fail for memory, nor for the window: the fast path
 * let through only a time in the window of a clock at or before the one
 * the drain sees (a base's is caught up to the current tick
 * first). While a request is pending, a fast update is not applied in
 * place (a store made as it is handed off aside: fast.c, "Refresh by a
 * store"), so it cannot be overtaken by the older request.
 *
 * The slow path takes the whole list (oldest first) under every lock.
 * For each timer it clears PENDING, then reads ->want: test_and_set_bit()
 * and clear_bit() + smp_mb__after_atomic() order the two sides, so an
 * update that found PENDING set is seen by this read. A fast update tests
 * PENDING again under its lane's locks, which the drain holds while it
 * clears PENDING and applies the request, so it cannot slip an in-place
 * update between the two; a store, which takes no lock, fails on the word
 * the drain closed before it cleared PENDING, or, if it read PENDING
 * clear before a hand-off took it, on the HANDED mark the hand-off set
 * (fast.c, "Refresh by a store"). Every slow-side timer call drains the
 * list first, for the same reason, but for a store of timeq_timer_move(),
 * made only while no request of its timer is pending.
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
 * its own CPU that a SCHED_FIFO caller would never let run. A timer
 * queued in another base is refused first, in the lock hold that would
 * drain: its requests and its word are that base's, and that base's
 * drain wakes no waiter of this one. (A request pending in another base
 * for a timer queued in none cannot be seen: a timer is used with one
 * base at a time.)
 * (tools/testing/spin model-checks the protocol, and tools/testing/explore
 * runs the C code of it under controlled interleavings.)
 *
 * Lifetimes
 * ---------
 *
 * A fast update reads and writes its timer without any lock that the slow
 * side could wait for, so no slow-side call can know that none is running.
 * That is the caller's to guarantee, as with timer_delete_sync(): see
 * timeq_delete_sync(). Given that, the llist is the only reference the
 * hand-off keeps to a timer, and the delete drains it.
 */

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/timeq.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "clock.h"
#include "paths.h"
#include "queue.h"
#include "trace/timeq.h"

/*
 * Enter the slow side for a timer call, or the work: every lock, no work
 * pending, and a base's clock caught up (tq_clock_catch_up()).
 */
static void tq_timer_begin(struct timeq *q) __acquires(&q->head_lock)
	__acquires(&q->head2_lock) __acquires(&q->bucket_lock)
{
	tq_slow_begin(q);
	tq_clock_catch_up(q);
}

/*
 * Leave it: finish what the call left pending and, the minimum having
 * maybe moved, re-arm a base's hrtimer (tq_clock_changed()); unlock.
 */
static void tq_timer_end(struct timeq *q) __releases(&q->bucket_lock)
	__releases(&q->head2_lock) __releases(&q->head_lock)
{
	tq_finish(q);
	tq_clock_changed(q);
	tq_unlock(q);
}

/*
 * Queue @timer at @time, or at the clock if @time has passed, in the
 * window as it is now: no lock is dropped. A timer whose callback is due
 * (module/clock.c) is armed: it leaves the due list for the queue, and
 * its callback does not run for the old time. Its expires word opens
 * with the time it is filed at (fast.c, "Refresh by a store").
 */
static int tq_arm(struct timeq *q, struct timeq_timer *timer, u64 time)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
		__must_hold(&q->bucket_lock)
{
	int ret;

	tq_assert_locked(q);
	time = max(time, q->now);
	if (tq_in(&timer->node, q)) {
		ret = tq_update(q, &timer->node, time, false);
	} else if (tq_tag(&timer->node) != TQ_TAG_OUT ||
		   tq_foreign(&timer->node, q)) {
		ret = tq_insert(q, &timer->node, time, false);
	} else {
		/* On the due list: it leaves it only for a time in the window. */
		if (!tq_in_window(q, time))
			return -ERANGE;
		tq_clock_cancel_due(q, timer);
		ret = tq_insert(q, &timer->node, time, false);
		tq_debug_uninsert(q);
	}
	if (!ret)
		tq_timer_open(timer);
	return ret;
}

/*
 * Whether @time needs room made in @q's window: not if it lies in it,
 * nor in a test base's, whose window only its node calls move (tq_arm()
 * refuses a time beyond it, as a plain queue's insert would).
 */
static bool tq_needs_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
{
	return !tq_in_window(q, max(time, q->now)) &&
	       !tq_base_test(tq_base_of(q));
}

/*
 * Make room in a base's window for @time (tq_clock_make_room()),
 * which may pass a door. Return: 0, or -ERANGE if @time lies beyond the
 * horizon of the current tick.
 */
static int tq_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	if (!tq_needs_room(q, time))
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
	tq_timer_close(timer);
	return tq_clock_cancel_due(q, timer) ||
	       !tq_delete(q, &timer->node, false);
}

/*
 * Wait, holding no lock, until @timer's request is no longer pending, or
 * some request is on the list for the caller to drain: a request set but
 * not yet pushed, or held by another caller's drain in a door, is waited
 * for by sleeping, never by spinning, whatever the two tasks' priorities.
 */
static void tq_wait_request(struct timeq *q, struct timeq_timer *timer)
{
	struct timeq_base *base = tq_base_of(q);

	wait_var_event(q,
		       !test_bit(TQ_TIMER_PENDING, &timer->flags) ||
			       !llist_empty(&base->handoffs));
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
 * back on the list, and the work runs again. A shut-down timer's request
 * is dropped, with no room made for it.
 */
static void tq_apply(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
		__must_hold(&q->bucket_lock)
{
	u64 want = atomic64_read(&timer->want);

	for (;;) {
		if (!test_bit(TQ_TIMER_SHUTDOWN, &timer->flags) &&
		    tq_room(q, want)) {
			llist_add(&timer->handoff, &tq_base_of(q)->handoffs);
			/*
			 * Even on a stopping base: only its work, or a callback
			 * the work runs, applies requests then, and
			 * tq_handoff_exit()'s cancel_work_sync() waits for them
			 * and cancels what they queue.
			 */
			queue_work(timeq_wq, &tq_base_of(q)->work);
			return;
		}
		/*
		 * Closed first, HANDED cleared: a store that finds PENDING
		 * clear fails on the closed word (fast.c, "Refresh by a
		 * store"), and tq_arm() opens it again.
		 */
		tq_timer_drained(timer);
		/*
		 * Released: the drain read the timer's link before, and a fast
		 * update that then takes PENDING rewrites it (llist_add()).
		 */
		clear_bit_unlock(TQ_TIMER_PENDING, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		want = atomic64_read(&timer->want);
		if (test_bit(TQ_TIMER_SHUTDOWN, &timer->flags))
			return;
		if (!tq_needs_room(q, want))
			break;
		if (test_and_set_bit(TQ_TIMER_PENDING, &timer->flags))
			return;
		/* Taken back: as a hand-off, before the doors below. */
		tq_timer_hand(timer);
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
static void tq_drain(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	struct timeq_timer *timer, *next;
	struct llist_node *list;
	unsigned long n = 0;

	tq_assert_locked(q);
	list = llist_reverse_order(llist_del_all(&tq_base_of(q)->handoffs));
	llist_for_each_entry_safe(timer, next, list, handoff) {
		/* A door wakes those waiting for the requests applied so far. */
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

/* Forget every handed-off request: the base is going away. */
static void tq_discard(struct timeq *q)
{
	struct llist_node *list = llist_del_all(&tq_base_of(q)->handoffs);
	struct timeq_timer *timer, *next;

	llist_for_each_entry_safe(timer, next, list, handoff) {
		tq_timer_drained(timer);
		clear_bit(TQ_TIMER_PENDING, &timer->flags);
	}
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
 * and the caller's own change. See "The hand-off". Return: 0; -EBUSY,
 * with nothing done, if @timer is queued in another base. Either way with
 * the locks held.
 */
static int tq_slow_begin_drained(struct timeq *q, struct timeq_timer *timer,
				 u64 room) __acquires(&q->head_lock)
	__acquires(&q->head2_lock) __acquires(&q->bucket_lock)
{
	for (;;) {
		tq_timer_begin(q);
		if (tq_foreign(&timer->node, q))
			return -EBUSY;
		/* Too far even for the current tick: tq_arm() says so. */
		if (room != TQ_NO_ROOM)
			tq_room(q, room);
		tq_drain(q);
		if (!test_bit(TQ_TIMER_PENDING, &timer->flags))
			return 0;
		tq_timer_end(q);
		tq_wait_request(q, timer);
		/*
		 * A request that tq_apply() put back, for a room the clock has
		 * yet to reach, keeps the list from emptying until it does.
		 */
		cond_resched();
	}
}

/* The slow path: one work item per base, so never two at once. */
static void tq_work(struct work_struct *work)
{
	struct timeq_base *base = container_of(work, struct timeq_base, work);
	struct timeq *q = &base->queue;

	this_cpu_inc(q->counters->slow_runs);
	trace_timeq_slow_entry(q);
	tq_timer_begin(q);
	tq_drain(q);
	tq_timer_end(q);
	tq_clock_expire(q);
	trace_timeq_slow_exit(q);
}

/*
 * The fast path's irq_work, in hard interrupt context: what the fast path
 * may not do itself (see "The fast path").
 */
static void tq_kick(struct irq_work *kick)
{
	struct timeq_base *base = container_of(kick, struct timeq_base, kick);
	struct timeq *q = &base->queue;

	if (tq_clock_kick(q) && !llist_empty(&base->handoffs))
		queue_work(timeq_wq, &base->work);
	/* A request was pushed, or a refused one cleared PENDING. */
	smp_mb();
	tq_wake_requests(q);
}

/* Set up the hand-off of @base, as the base is made (base.c). */
void tq_handoff_init(struct timeq_base *base)
{
	init_llist_head(&base->handoffs);
	init_irq_work(&base->kick, tq_kick);
	INIT_WORK(&base->work, tq_work);
}

/*
 * Stop the hand-off of @base, which is going away (base.c), once it is
 * stopping (tq_clock_stop()): no kick and no work runs after this, and the
 * requests still handed off are dropped. The work first: a callback it
 * runs may kick, and a kick queues no work once the base is stopping.
 */
void tq_handoff_exit(struct timeq_base *base)
{
	cancel_work_sync(&base->work);
	irq_work_sync(&base->kick);
	tq_discard(&base->queue);
}

/* --- the slow side's timer calls --- */

/* Why timeq_timer_arm(), or timeq_timer_move() if @armed_only, refuses. */
static int tq_timer_refuse(struct timeq *q, struct timeq_timer *timer,
			   bool armed_only) __must_hold(&q->head_lock)
{
	/* A timer on the due list is @q's too, and armed. */
	if (armed_only && tq_owner(&timer->node) != q)
		return -ENOENT;
	if (test_bit(TQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	return 0;
}

/*
 * timeq_timer_arm(), or timeq_timer_move() if @armed_only: which moves
 * an armed timer later by a store alone (fast.c, "Refresh by a store"),
 * as the fast path does; a request of the timer still pending makes the
 * store fail, so none lands after it.
 */
static int tq_timer_set(struct timeq_base *base, struct timeq_timer *timer,
			u64 time, bool armed_only)
{
	struct timeq *q = &base->queue;
	int ret;

	might_sleep();
	if (armed_only && tq_timer_store(base, timer, time))
		return 0;
	ret = tq_slow_begin_drained(q, timer, time);
	if (ret)
		ret = armed_only ? -ENOENT : ret;
	else
		ret = tq_timer_refuse(q, timer, armed_only);
	if (!ret)
		ret = tq_arm(q, timer, time);
	tq_timer_end(q);
	return ret;
}

/* timeq_timer_arm(), for base.c and tests, as tq_fast_update(). */
int tq_timer_arm(struct timeq_base *base, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(base, timer, time, false);
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_arm);

/* timeq_timer_move(), as tq_timer_arm(). */
int tq_timer_move(struct timeq_base *base, struct timeq_timer *timer, u64 time)
{
	return tq_timer_set(base, timer, time, true);
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_move);

/* timeq_timer_delete(), as tq_timer_arm(). */
int tq_timer_delete(struct timeq_base *base, struct timeq_timer *timer)
{
	struct timeq *q = &base->queue;
	int ret;

	ret = !tq_slow_begin_drained(q, timer, TQ_NO_ROOM) &&
	      tq_disarm(q, timer);
	tq_timer_end(q);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(tq_timer_delete);

/*
 * Drain and delete until no request names @timer and no callback runs it.
 * A request in flight is waited for (tq_wait_request()), and a running
 * callback (tq_clock_wait()), each by sleeping; to lockdep, a wait for
 * the callback's class (&struct timeq_timer). A timer queued in another
 * base is left as it is, as tq_slow_begin_drained() leaves it, but for
 * the wait for its callback running in this one (which may have armed it
 * there with timeq_timer_arm()).
 */
static int tq_sync(struct timeq_base *base, struct timeq_timer *timer,
		   bool shutdown)
{
	struct timeq *q = &base->queue;
	bool running, pending, foreign;
	int ret = 0;

	lock_map_acquire(&timer->lockdep_map);
	lock_map_release(&timer->lockdep_map);
	for (;;) {
		tq_timer_begin(q);
		foreign = tq_foreign(&timer->node, q);
		if (shutdown && !foreign)
			set_bit(TQ_TIMER_SHUTDOWN, &timer->flags);
		/* Pairs with test_and_set_bit() in tq_handoff(). */
		smp_mb__after_atomic();
		tq_drain(q);
		if (!foreign && tq_disarm(q, timer))
			ret = 1;
		pending = !foreign && test_bit(TQ_TIMER_PENDING, &timer->flags);
		running = tq_clock_running(q, timer);
		tq_timer_end(q);
		if (running)
			tq_clock_wait(q, timer);
		else if (pending)
			tq_wait_request(q, timer);
		else
			return ret;
		/* As tq_slow_begin_drained(): a request may be put back. */
		cond_resched();
	}
}

/* timeq_delete_sync(), as tq_timer_arm(). */
int tq_delete_sync(struct timeq_base *base, struct timeq_timer *timer)
{
	return tq_sync(base, timer, false);
}
EXPORT_SYMBOL_IF_KUNIT(tq_delete_sync);

/* timeq_shutdown_sync(), as tq_timer_arm(). */
int tq_shutdown_sync(struct timeq_base *base, struct timeq_timer *timer)
{
	return tq_sync(base, timer, true);
}
EXPORT_SYMBOL_IF_KUNIT(tq_shutdown_sync);
