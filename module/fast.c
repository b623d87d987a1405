// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the fast path, tq_fast_update() and tq_fast_min(), which a base's
 * timeq_fast_update() and timeq_fast_min() (base.c) run on its queue. It
 * tries the locks of paths.c ("Locks" there), and hands what it cannot do
 * at once to the slow path (handoff.c).
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
 * base's minimum earlier than its hrtimer is set for, it queues the
 * base's @kick, an irq_work: irq_work_queue() claims the item with an
 * atomic operation and raises a self-interrupt, whose handler (tq_kick())
 * queues the work, re-arms the hrtimer and wakes the slow-side calls
 * waiting for a request.
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
 * Refresh by a store
 * ------------------
 *
 * Moving a queued timer later is what a time-out refreshed by every
 * packet does, and it need not move the node: the timer's expires word
 * (&struct timeq_timer) holds the time it expires at, and the node stays
 * filed at its older time until that tick comes. A fast update of a
 * timer of a base's queue to a time no earlier than its word says (the
 * same time, as packets within one tick give, changes nothing), in the
 * window, writes the word with one compare-and-exchange, tried once, and
 * touches no lock; when the expiry takes the node for its tick, it closes
 * the word and files the node again at the time stored (clock.c,
 * tq_clock_claim()) rather than run the callback. The callback so runs at
 * the first tick at or after the latest time stored, as if the timer had
 * been moved there; the hrtimer fires once at the old tick for nothing
 * (and once a window's span for a time beyond the window, below).
 * Stores are made on 64-bit kernels only: the fast path's store reads
 * the queue's clock without a lock, which a 32-bit kernel may read torn,
 * and a 32-bit kernel makes some atomic64_t operations under a hashed
 * spinlock.
 *
 * The word carries TIMEQ_EXPIRES_OPEN while the node is filed and a store
 * may land. Whatever takes the node out, or moves it in a way the store
 * cannot see, closes the word first, so that a store either lands before
 * and is taken into account, or fails and goes on to the lanes below:
 *
 *	the expiry	closes it when it takes the node for its tick, and
 *			re-files (opening it again) or runs the callback by
 *			the time it read as it closed
 *	the slow side	tq_disarm() closes it before the node leaves;
 *			tq_arm() opens it with the node's new time
 *	a lane		opens it with the time the node is now filed at
 *	a drain		closes it before it clears PENDING (handoff.c): the
 *			compare-and-exchange of a store that reads PENDING
 *			clear after that clear fails, since the close
 *			changed the word after any value the store could
 *			have read
 *
 * A timer that tq_clock_make_room() moves to the due list (clock.c) keeps
 * its word open: it is still armed and the queue's, and the expiry's
 * claim reads a store made there as one made while the node was filed.
 *
 * A store that read PENDING clear just before a hand-off took it would
 * still land, after that request returned, and be undone when the drain
 * applies it. So TIMEQ_EXPIRES_HANDED bars stores while a request waits:
 * whoever takes PENDING for a request (tq_handoff(), or a drain taking it
 * back in tq_apply()) sets it before the request can be applied, opening
 * keeps it (tq_timer_open_at(), paths.h), and the drain's close clears it
 * (as do tq_discard() and timeq_timer_init()). A store compares the whole
 * word, so it lands only if the word is unchanged since its read: never
 * while a marked request waits. One that lands before the mark lands
 * before the hand-off's call returns, so the two calls overlap, and the
 * request, applied after the store, is taken as the later; the mark comes
 * before the hand-off's second write of ->want, so an update that joins
 * the request after that write finds stores barred. A fast update thus
 * cannot land in place before an older request is applied. The test of
 * PENDING a store makes first only spares it the word while a request
 * waits.
 *
 * A store that fails, or finds the word closed or the time earlier,
 * takes the lanes: moving earlier, arming and deleting keep them.
 *
 * timeq_timer_store() (include/linux/timeq.h) is the store alone, inline
 * in its caller, reading nothing but the word: no test of PENDING (which
 * only spares the word), of the base (the store lands in the base the
 * timer is armed in) or of the window. So its time may lie beyond the
 * window of the base's clock: the expiry files such a timer at the
 * window's last tick, its word keeping the time, and again from there
 * (clock.c, tq_clock_file()), one filing a window's span. The base
 * closes the words of the timers timeq_base_destroy() releases, so no
 * store lands on one after.
 *
 * Closing keeps the time; while the node is filed, the word's time is no
 * earlier than the node's but within the lock hold of a link, between
 * the relink and the open. A node filed again takes its place
 * among the equal times it joins when it is filed, as any link does:
 * FIFO among timers stored to one time follows the order of their older
 * times, not of the stores.
 *
 * Counting and tracing
 * --------------------
 *
 * Every path counts what it does in the queue's per-CPU counters
 * (counters.h): this_cpu_inc() takes no lock and writes a line no other CPU
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

#include "clock.h"
#include "counters.h"
#include "paths.h"
#include "queue.h"
#include "trace/timeq.h"

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
	if (test_bit(TQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	/* Under a lock the drain holds: see "The hand-off". */
	if (test_bit(TQ_TIMER_PENDING, &timer->flags))
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

/* The minimum moved from @old to earlier: the base re-arms. */
static void tq_fast_changed(struct timeq *q, u64 old)
{
	if (READ_ONCE(q->min_time) < old)
		irq_work_queue(&tq_base_of(q)->kick);
}

/* A lane linked @timer, if @ret is 0: open its word ("Refresh by a store"). */
static int tq_fast_linked(struct timeq_timer *timer, int ret)
{
	if (!ret)
		tq_timer_open(timer);
	return ret;
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
	return tq_fast_linked(timer, __timeq_far_update(q, &timer->node, time));
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
	return tq_fast_linked(timer, ret);
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
	return tq_fast_linked(timer, ret);
}

/*
 * Hand a request to the slow path; no lock is held. A 32-bit kernel may
 * read the queue's clock torn, so it judges the window from the tick
 * alone (tq_window() with a clock of 0), which a base's clock lags (a
 * test base's tick is its clock, read as before).
 */
static int tq_handoff(struct timeq *q, struct timeq_timer *timer, u64 time)
{
	u64 now = IS_ENABLED(CONFIG_64BIT) ? READ_ONCE(q->now) : 0;
	int ret = tq_window(q, now, time);

	if (ret == -ERANGE)
		return ret;
	if (test_bit(TQ_TIMER_SHUTDOWN, &timer->flags))
		return -ESHUTDOWN;
	atomic64_set(&timer->want, time);
	if (!test_and_set_bit(TQ_TIMER_PENDING, &timer->flags)) {
		if (test_bit(TQ_TIMER_SHUTDOWN, &timer->flags)) {
			clear_bit(TQ_TIMER_PENDING, &timer->flags);
			/* A shutdown_sync may wait for it: tq_kick() wakes it. */
			irq_work_queue(&tq_base_of(q)->kick);
			return -ESHUTDOWN;
		}
		/*
		 * A store that read PENDING clear before we took it must not
		 * land after this request returns, to be undone when the drain
		 * applies it ("Refresh by a store").
		 */
		tq_timer_hand(timer);
		/*
		 * The mark before the write of ->want below, after which an
		 * update joins this request; llist_add() then orders it
		 * before the drain's clear.
		 */
		smp_mb__after_atomic();
		/*
		 * The request is ours, and so is ->want: another update may
		 * have written it, handed it off and had it drained since our
		 * write above (see "The hand-off").
		 */
		atomic64_set(&timer->want, time);
		llist_add(&timer->handoff, &tq_base_of(q)->handoffs);
		this_cpu_inc(q->counters->handoffs);
		irq_work_queue(&tq_base_of(q)->kick);
	}
	return TIMEQ_DEFERRED;
}

/*
 * Refresh by a store: move @timer, filed in @base's queue, later to @time,
 * or to the time it already expires at, by writing its expires word alone;
 * for the fast path and for timeq_timer_move() (handoff.c).
 * Return: whether it did; if not, nothing changed.
 */
bool tq_timer_store(struct timeq_base *base, struct timeq_timer *timer,
		    u64 time)
{
	struct timeq *q = &base->queue;
	s64 old;

	/*
	 * Only where a u64 is read whole without a lock (q->now below), and
	 * where atomic64_t is not a hashed spinlock.
	 */
	if (!IS_ENABLED(CONFIG_64BIT))
		return false;
	/* A test base's timers take the lanes (tq_base_create_test()). */
	if (tq_base_test(base))
		return false;
	/* A request pending lands after: see "Refresh by a store". */
	if (test_bit(TQ_TIMER_PENDING, &timer->flags))
		return false;
	old = atomic64_read(&timer->expires);
	if ((old & TQ_EXPIRES_BITS) != TIMEQ_EXPIRES_OPEN ||
	    time < (old & ~TQ_EXPIRES_BITS) || tq_owner(&timer->node) != q)
		return false;
	/* In the window of the clock, which only moves on. */
	if (tq_window(q, READ_ONCE(q->now), time))
		return false;
	return atomic64_try_cmpxchg(&timer->expires, &old,
				    time | TIMEQ_EXPIRES_OPEN);
}

/* The lanes: which locks a fast update tries. */
enum tq_lane { TQ_LANE_NEAR, TQ_LANE_FAR, TQ_LANE_CROSS };

/* A guess from racy reads; each lane checks it under its locks. */
static enum tq_lane tq_fast_lane(const struct timeq *q,
				 const struct timeq_node *node, u64 time)
{
	unsigned long owner = READ_ONCE(node->owner);
	u64 now = READ_ONCE(q->now);
	bool far = max(time, now) >> q->delta_shift >=
		   (now >> q->delta_shift) + 2;
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

/* The store of a fast update, counted and traced as one it applied. */
static bool tq_fast_store(struct timeq_base *base, struct timeq_timer *timer,
			  u64 time)
{
	struct timeq *q = &base->queue;

	if (!tq_timer_store(base, timer, time))
		return false;
	this_cpu_inc(q->counters->fast_stored);
	tq_fast_done(q, timer, time, TIMEQ_APPLIED);
	return true;
}

/* timeq_fast_update(), for base.c and tests. */
int tq_fast_update(struct timeq_base *base, struct timeq_timer *timer, u64 time)
{
	struct timeq *q = &base->queue;
	int why = TIMEQ_DEFER_LANE, ret;

	lockdep_assert_in_softirq();
	/* A request is pending: this one joins it, without touching a lock. */
	if (test_bit(TQ_TIMER_PENDING, &timer->flags))
		return tq_fast_defer(q, timer, time, TIMEQ_DEFER_JOINED);
	if (tq_foreign(&timer->node, q))
		return tq_fast_done(q, timer, time, -EBUSY);
	if (tq_fast_store(base, timer, time))
		return TIMEQ_APPLIED;
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

/* timeq_fast_min(), as tq_fast_update(). */
int tq_fast_min(struct timeq_base *base, u64 *time)
{
	struct timeq *q = &base->queue;
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
