// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the timer base's clock, CLOCK_MONOTONIC, and its expiry.
 *
 * A struct timeq_base (clock.h) composes a struct timeq, its queue, with
 * the clock and the machinery that expires it, as an hrtimer_clock_base
 * composes a timerqueue_head; base.c makes it and has its calls, and this
 * file keeps its clock. Its queue counts time in ticks of a granularity:
 * tick = ktime_get_ns() / granularity. It holds timers (struct
 * timeq_timer), each with a callback, and the base expires them itself:
 *
 *  - An hrtimer is armed for the earliest timer's tick while the queue is
 *    non-empty: an idle queue costs no interrupt. The slow side re-arms it
 *    under head_lock whenever the minimum moves earlier, and cancels it
 *    when the queue empties (tq_clock_changed()). A minimum that moves
 *    later leaves it, and the early firing then finds nothing due and
 *    re-arms. The fast path may not touch the hrtimer (its base lock
 *    spins): when it moves the minimum earlier it queues the base's
 *    irq_work, whose handler re-arms (tq_clock_kick()). That costs the
 *    time from the fast update to the self-interrupt in expiry lateness.
 *  - Arming is serialised by @arm_lock, a raw spinlock that the irq_work
 *    and the slow side take with interrupts off: each reads @min_time
 *    inside it and sets the hrtimer only earlier than @armed, so the
 *    last to arm saw the latest minimum, and the hrtimer is never left
 *    later than the minimum once both have run (and the work, where a
 *    kick could not read @min_time whole). (Without it, a kick that
 *    read an older, later minimum could start the hrtimer after the slow
 *    side had set it earlier, and @armed would then hide the loss.)
 *  - The hrtimer's handler only queues the base's work (handoff.c); the
 *    work expires in process context, so callbacks may sleep.
 *  - Never early, never late by a tick: a timer of tick t is due once tick
 *    t has begun, when ktime_get_ns() >= t * granularity, read in the work
 *    before anything is removed; and the queue's clock moves up to the
 *    current tick, never past it (tq_clock_catch_up()), so a timer armed
 *    for the current tick keeps that time.
 *  - The queue's clock lags CLOCK_MONOTONIC only until the slow side next
 *    runs: every timer call, and the work, first catches it up
 *    (tq_clock_catch_up(), from handoff.c's tq_timer_begin()), as does
 *    each turn of the expiry, as far as the timers not yet expired allow. A timer that needs more
 *    of the window than that, to a time at most the horizon past the
 *    current tick, gets it (tq_clock_make_room()): the timers before the
 *    new clock leave the queue, in its order, for @due, a list of timers
 *    that are due and whose callbacks have not run yet (as the timer
 *    wheel collects expired timers before it runs them). So a late expiry
 *    never narrows the window a caller can arm in. The fast path judges
 *    the horizon by CLOCK_MONOTONIC itself when a time lies beyond the
 *    lagging clock's window (tq_clock_fast_tick()), and defers it to the
 *    slow side, which then makes the room.
 *  - A timer on @due is not in the queue's lists, but is still armed, and
 *    still the queue's: its owner word names the queue with the tag
 *    TQ_TAG_OUT (module/queue.h), so another queue refuses it as it
 *    refuses a queued one, the queue's own operations take it as not
 *    queued, and the fast path leaves it to the slow side. Every timer
 *    call finds it there and takes it off (tq_clock_cancel_due()), as the
 *    timer wheel's calls detach a timer from its expiry list. Nothing on
 *    @due is later than the clock, so nothing queued is earlier, and @due
 *    is expired first. (A removal moves the clock to the time of what it
 *    removes, so the last timer to leave for @due may have the clock's
 *    time, and so may timers still queued.)
 *  - A timer moved later by a store (module/fast.c, "Refresh by a
 *    store") is still filed at its older time. When the expiry takes it
 *    for that tick it closes the timer's expires word and, if the word
 *    says later, files the node again at that time instead of running the
 *    callback (tq_clock_claim()): one relink, a visit of the lock hold,
 *    which goes on to the next timer due while it has visits left
 *    (TIMEQ_HOLD). The hrtimer so fires once at the old time for
 *    nothing, and the callback runs at the first tick at or after the
 *    latest time stored, as if the timer had been moved there.
 *  - Expiry storms are bounded: one run of the work takes at most
 *    expire_budget timers (a module parameter) for their ticks, expired
 *    or filed again, then queues itself again for the rest. Nothing is
 *    lost, and the workqueue runs other bases' work in between. Within a
 *    run, each lock hold ends with a reschedule (cond_resched()), after
 *    the waiters for the timer last run are woken, however large the
 *    budget is set.
 *  - Each timer is removed under the locks and its callback runs with them
 *    dropped. @running names the timer whose callback runs, so that
 *    timeq_delete_sync() can wait for it (the way timer_delete_sync() waits
 *    on a timer base's running_timer). It is set in the same lock hold as
 *    the removal, before any lock is dropped: from then on the timer is
 *    in no list and not pending, and @running is all that tells a
 *    delete_sync that it is not yet free.
 *  - Two contexts expire: the work, and timeq_expire() in its caller's. A
 *    run of either holds the base's @expiry mutex from before it reads
 *    the tick to after its last callback returns, so a queue's callbacks
 *    run one at a time and in the queue's order (time, then insertion):
 *    no run removes a timer while another's removed timer still waits for
 *    its callback.
 *  - Just before a callback, the clock is read once more: how late the
 *    callback starts goes to the queue's lateness histogram (counters.h) and
 *    to the timeq_expire_entry event.
 */

#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "clock.h"
#include "paths.h"
#include "queue.h"
#include "stats.h"
#include "trace/timeq.h"

static unsigned int expire_budget = 64;
module_param(expire_budget, uint, 0644);
MODULE_PARM_DESC(expire_budget,
		 "Timers one run of a base's expiry takes before its work queues itself again (default 64; 0 counts as 1)");

/* base.armed when the hrtimer is not armed. */
#define TQ_UNARMED	U64_MAX

/*
 * CLOCK_MONOTONIC in ticks of @base, read by ktime_get_mono_fast_ns() if
 * @fast, else by ktime_get_ns(); a test base's clock is its queue's, and
 * reads neither.
 */
static u64 tq_clock_ticks(const struct timeq_base *base, bool fast)
{
	if (tq_base_test(base))
		return READ_ONCE(base->queue.now);
	return div64_u64(fast ? ktime_get_mono_fast_ns() : ktime_get_ns(),
			 base->granularity);
}

static u64 tq_clock_tick(const struct timeq_base *base)
{
	return tq_clock_ticks(base, false);
}

static enum hrtimer_restart tq_clock_fire(struct hrtimer *hrtimer)
{
	struct timeq_base *base =
		container_of(hrtimer, struct timeq_base, hrtimer);

	queue_work(timeq_wq, &base->work);
	return HRTIMER_NORESTART;
}

/*
 * Set the hrtimer for @time if that is earlier than it is set for;
 * @time U64_MAX cancels it. @spent: it has fired, or is set for a time
 * that has passed, so any time is earlier. With @arm_lock held.
 */
static void tq_clock_set(struct timeq_base *base, u64 time, bool spent)
	__must_hold(&base->arm_lock)
{
	lockdep_assert_held(&base->arm_lock);
	if (tq_base_test(base))
		return;
	if (time == U64_MAX) {
		hrtimer_try_to_cancel(&base->hrtimer);
		WRITE_ONCE(base->armed, TQ_UNARMED);
	} else if (spent || time < base->armed) {
		WRITE_ONCE(base->armed, time);
		hrtimer_start(&base->hrtimer,
			      ns_to_ktime(time * base->granularity),
			      HRTIMER_MODE_ABS);
	}
}

/*
 * The slow side may have moved the minimum: set the hrtimer for it, or
 * cancel it if the queue is empty, and queue the work if timers are due.
 * Under head_lock, which keeps @min and @due still.
 */
static void tq_clock_arm(struct timeq *q, bool spent) __must_hold(&q->head_lock)
{
	struct timeq_base *base = tq_base_of(q);
	unsigned long flags;

	lockdep_assert_held(&q->head_lock);
	if (base->stopping)
		return;
	if (!list_empty(&base->due))
		queue_work(timeq_wq, &base->work);
	/* No minimum while work is pending: its last step finds one. */
	if (!q->min && q->pend != TQ_PEND_NONE)
		return;
	raw_spin_lock_irqsave(&base->arm_lock, flags);
	tq_clock_set(base, q->min_time, spent);
	raw_spin_unlock_irqrestore(&base->arm_lock, flags);
}

void tq_clock_changed(struct timeq *q) __must_hold(&q->head_lock)
{
	tq_clock_arm(q, false);
}

/*
 * The fast path moved the minimum earlier than the hrtimer may be set for:
 * re-arm it. In the irq_work (hard interrupt context, or its thread on
 * PREEMPT_RT), without the queue's locks: @min_time is read inside
 * @arm_lock, after the fast update that kicked this wrote it, so whichever
 * of this and the slow side arms last arms for the latest minimum. A
 * @min_time read while the slow side is between steps is U64_MAX, and
 * changes nothing: the slow side arms when it ends. If it cannot be read
 * whole (tq_min_time_read(), a 32-bit kernel), the work arms, under the
 * queue's locks. A test base has no hrtimer.
 * Return: false once the base is stopping (tq_clock_stop()): then the
 * kick arms nothing and queues no work.
 */
bool tq_clock_kick(struct timeq *q)
{
	struct timeq_base *base = tq_base_of(q);
	bool live, read = true;
	unsigned long flags;
	u64 time;

	raw_spin_lock_irqsave(&base->arm_lock, flags);
	live = !base->stopping;
	if (live && !tq_base_test(base)) {
		read = tq_min_time_read(q, &time);
		if (read && time != U64_MAX)
			tq_clock_set(base, time, false);
	}
	raw_spin_unlock_irqrestore(&base->arm_lock, flags);
	if (!read)
		queue_work(timeq_wq, &base->work);
	return live;
}

/*
 * CLOCK_MONOTONIC in ticks, for the fast path: ktime_get_mono_fast_ns()
 * takes no lock (its latch read retries only if a timekeeping update lands
 * during it).
 */
u64 tq_clock_fast_tick(const struct timeq *q)
{
	return tq_clock_ticks(tq_base_of_const(q), true);
}

/* A timeq_fn: put a timer whose tick has passed at the end of @due. */
static void tq_clock_due(struct timeq_node *node, void *arg)
{
	struct timeq *q = arg;

	list_add_tail(&node->entry, &tq_base_of(q)->due);
	WRITE_ONCE(node->owner, tq_owner_word(q, TQ_TAG_OUT));
}

/*
 * Move the clock up to the current tick, but not past a timer not yet
 * expired, finishing any pulls the move needs in steps. So a timer armed
 * for the current tick keeps its time, and the window is the current one
 * unless a due timer holds it back (then see tq_clock_make_room()).
 */
void tq_clock_catch_up(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	u64 tick = min(tq_clock_tick(tq_base_of(q)), q->min_time);

	lockdep_assert_held(&q->head_lock);
	if (tick > q->now) {
		__timeq_del_less_than(q, tick, 0, NULL, NULL);
		tq_finish(q);
	}
}

/*
 * Make room in the window for @time, which lies beyond it: move the clock
 * to @time - horizon + 1, the timers before that going onto @due in the
 * queue's order, a budget of them to a lock hold, with a door between
 * holds (tq_relock(); the caller says what it keeps across). The clock
 * moves at most to the current tick, so only timers that are due leave.
 *
 * A time the fast path let through (tq_window()) is within the horizon
 * of ktime_get_mono_fast_ns(), which its kernel-doc lets run ahead of
 * ktime_get_ns() by what a timekeeping update changes; for such a time
 * this waits, spinning, until ktime_get_ns() has caught up that far, so
 * that no timer leaves before it is due.
 * Return: 0, or -ERANGE if @time lies beyond the horizon of both clocks.
 */
int tq_clock_make_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	struct timeq_base *base = tq_base_of(q);
	u64 target;

	tq_assert_locked(q);
	/* The caller found @time beyond the window, so @time >= horizon. */
	target = time - q->horizon + 1;
	if (target > tq_clock_tick(base)) {
		if (target > tq_clock_fast_tick(q))
			return -ERANGE;
		while (target > tq_clock_tick(base))
			cpu_relax();
	}
	while (q->now < target) {
		if (!q->budget)
			tq_relock(q);
		__timeq_del_less_than(q, target, ULONG_MAX, tq_clock_due, q);
		tq_finish(q);
	}
	return 0;
}

/*
 * Take @timer off @q's @due if it is there, as a timer call that re-arms
 * or deletes it does; it is then in no list and no queue. Return: whether
 * it was. Under head_lock.
 */
bool tq_clock_cancel_due(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock)
{
	lockdep_assert_held(&q->head_lock);
	if (READ_ONCE(timer->node.owner) != tq_owner_word(q, TQ_TAG_OUT))
		return false;
	list_del_init(&timer->node.entry);
	WRITE_ONCE(timer->node.owner, 0);
	return true;
}

/*
 * Check @due for tq_base_check(): each timer on it is @q's and out of its
 * lists, the list is in order of time, and no time is after the clock.
 * Return: 0, or -EUCLEAN with a description in @buf.
 */
static int tq_clock_check(struct timeq *q, char *buf, size_t len)
	__must_hold(&q->head_lock)
{
	struct timeq_timer *timer;
	unsigned long n = 0;
	u64 last = 0;

	lockdep_assert_held(&q->head_lock);
	list_for_each_entry(timer, &tq_base_of(q)->due, node.entry) {
		if (timer->node.owner != tq_owner_word(q, TQ_TAG_OUT) ||
		    timer->node.time < last || timer->node.time > q->now)
			goto bad;
		last = timer->node.time;
		n++;
	}
	return 0;

bad:
	if (buf && len)
		snprintf(buf, len, "due timer %lu: owner %#lx, time %llu after %llu, clock %llu",
			 n, timer->node.owner, timer->node.time, last, q->now);
	return -EUCLEAN;
}

/*
 * File @timer, whose word a store moved past its node's time and which the
 * caller closed, again at @time, the time stored, in O(1), and open its
 * word: @queued, it is in the queue's lists and is moved there (an
 * update, which may leave work pending); else it was just taken off @due
 * and is inserted, with no work pending. A time the clock has passed
 * since (a timer off @due) is the clock's, as a slow-side arm takes it:
 * the timer goes behind the rest of @due. A time beyond the window (of
 * timeq_timer_store(), which does not read the clock) is filed at the
 * window's last tick, its word keeping the time, to be filed again from
 * there.
 */
static void tq_clock_file(struct timeq *q, struct timeq_timer *timer, u64 time,
			  bool queued) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	u64 at;

	tq_assert_locked(q);
	time = max(time, q->now);
	at = min(time, q->now + q->horizon - 1);
	if (queued) {
		WARN_ON_ONCE(__timeq_update(q, &timer->node, at));
	} else {
		WARN_ON_ONCE(__timeq_insert(q, &timer->node, at));
		tq_debug_uninsert(q);
	}
	/* With HANDED kept: no store lands while a request waits. */
	tq_timer_open_at(timer, time);
	this_cpu_inc(q->counters->refiled);
}

/*
 * Claim @timer, due at its tick, for its callback: close its expires word.
 * A store that moved it later (module/fast.c, "Refresh by a store") has
 * it filed again instead (tq_clock_file()): so it is taken again at that
 * time, in order among the timers due by then, and not before. @queued:
 * it is the queue's minimum, still in its lists; else it was just taken
 * off @due. Return: whether it was filed again.
 */
static bool tq_clock_claim(struct timeq *q, struct timeq_timer *timer,
			   bool queued) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	u64 time = tq_timer_close(timer);

	if (time <= timer->node.time)
		return false;
	tq_clock_file(q, timer, time, queued);
	return true;
}

/*
 * The next timer due at @tick, taken out of @due or the queue for its
 * callback, or NULL; or, with *@refiled set, one that tq_clock_claim()
 * filed again. Nothing queued is earlier than anything on @due.
 */
static struct timeq_timer *tq_clock_take(struct timeq *q, u64 tick,
					 bool *refiled)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
		__must_hold(&q->bucket_lock)
{
	struct timeq_timer *timer;

	timer = list_first_entry_or_null(&tq_base_of(q)->due,
					 struct timeq_timer, node.entry);
	if (timer && timer->node.time <= tick) {
		tq_clock_cancel_due(q, timer);
		*refiled = tq_clock_claim(q, timer, false);
		return timer;
	}
	if (timer || !q->min || q->min_time > tick)
		return NULL;
	timer = container_of(q->min, struct timeq_timer, node);
	*refiled = tq_clock_claim(q, timer, true);
	if (!*refiled)
		/* The clock moves to the timer's tick, at most the current one. */
		__timeq_delete_min(q);
	return timer;
}

/**
 * tq_clock_first - a base's earliest timer, by the time it expires at
 * @base:	the timer base
 *
 * timeq_first(), but a timer at the head that a store moved later
 * (module/fast.c, "Refresh by a store") is first filed again at the time
 * stored, as its expiry would file it, until the minimum is one that
 * expires at the time it is filed at: one update each, a budget of them
 * to a lock hold, with a door (tq_relock()) between holds, after which the
 * minimum is read again. Each filing undoes one store, so a call's
 * filings are no more than the stores since the timers were last filed.
 * The timers waiting for their callbacks are not counted (timeq_first()).
 *
 * Context: the slow side; takes every lock.
 * Return: the node of the timer, or NULL if @base holds none. The node
 * stays queued; follow the pointer only while the timer cannot be freed.
 */
struct timeq_node *tq_clock_first(struct timeq_base *base)
{
	struct timeq *q = &base->queue;
	struct timeq_timer *timer;
	struct timeq_node *node;
	u64 time;

	tq_slow_begin(q);
	while ((node = q->min)) {
		timer = container_of(node, struct timeq_timer, node);
		/* Filed at the window's end already: tq_clock_file(). */
		if (timeq_timer_expires(timer) <= node->time ||
		    node->time == q->now + q->horizon - 1)
			break;
		if (!q->budget) {
			tq_relock(q);
			continue;
		}
		q->budget--;
		q->visits++;
		time = tq_timer_close(timer);
		tq_clock_file(q, timer, time, true);
		tq_finish(q);
	}
	tq_slow_end(q);
	return node;
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_first);

/*
 * The clock of @base's queue, which the expiry may move meanwhile, for
 * the slow side: read under the queue's locks on a 32-bit kernel, which
 * may read a u64 torn, and without them on a 64-bit one.
 */
u64 tq_clock_now(struct timeq_base *base)
{
	struct timeq *q = &base->queue;
	u64 now;

	if (IS_ENABLED(CONFIG_64BIT))
		return READ_ONCE(q->now);
	tq_lock(q);
	now = q->now;
	tq_unlock(q);
	return now;
}

/* Count a visit of the lock hold: whether it has visits left after it. */
static bool tq_clock_visit(struct timeq *q) __must_hold(&q->head_lock)
{
	q->visits++;
	return q->budget && --q->budget;
}

/* Is a timer due at @tick left, on @due or in the queue? */
static bool tq_clock_more(struct timeq *q, u64 tick) __must_hold(&q->head_lock)
{
	struct timeq_timer *timer;

	timer = list_first_entry_or_null(&tq_base_of(q)->due,
					 struct timeq_timer, node.entry);
	if (timer)
		return timer->node.time <= tick;
	return q->min && q->min_time <= tick;
}

/*
 * How late a callback for tick @time starts, in nanoseconds, counted in
 * the lateness histogram: a timer of tick t is due at t * granularity.
 */
static u64 tq_clock_late(struct timeq *q, u64 time)
{
	u64 due = time * tq_base_of(q)->granularity;
	u64 now = ktime_get_ns();
	u64 late = now > due ? now - due : 0;

	tq_stats_lateness(q, late);
	return late;
}

/*
 * Run @timer's callback in its lockdep class (&struct timeq_timer), held
 * by a copy of the map, since the callback may free the timer. Taken as a
 * trylock: lockdep checks it against no lock held, and links each lock
 * the callback takes to @expiry as well as to it.
 */
static void tq_clock_call(struct timeq_timer *timer)
{
#ifdef CONFIG_LOCKDEP
	struct lockdep_map map;

	lockdep_copy_map(&map, &timer->lockdep_map);
#endif
	if (!timer->fn)
		return;
	lock_map_acquire_try(&map);
	timer->fn(timer);
	lock_map_release(&map);
}

/*
 * One run of the expiry: expire the timers due at the current tick, but at
 * most *@until, and take at most @budget of them (expired, or filed again
 * by tq_clock_claim()), one callback at a time; set
 * *@until to the tick it expired to. @fired: the run is the work's, which
 * the hrtimer (or a kick) queued, so the hrtimer is taken as spent once
 * nothing is due; timeq_expire()'s run leaves it as it is set.
 * Return: whether due timers remain and the queue is not stopping.
 */
static bool tq_clock_run(struct timeq *q, u64 *until, unsigned int budget,
			 bool fired, unsigned long *expired)
{
	struct timeq_base *base = tq_base_of(q);
	struct timeq_timer *timer;
	unsigned int done = 0, steps;
	bool more, again, refiled, ran = false;
	u64 tick, time, late;

	/* A test base expires nothing: its timers are its test's. */
	if (tq_base_test(base))
		return false;
	mutex_lock(&base->expiry);
	tick = min(tq_clock_tick(base), *until);
	*until = tick;
	for (steps = 0;;) {
		might_sleep();
		tq_lock(q);
		WRITE_ONCE(base->running, NULL);
		/*
		 * Each timer taken is a step of the budget; one filed again
		 * is a visit of the lock hold too, which goes on to the next
		 * while the hold's budget is not spent.
		 */
		do {
			tq_finish(q);
			tq_clock_catch_up(q);
			timer = NULL;
			/* Once the base is stopping, the destroy releases them. */
			if (steps++ < budget && !base->stopping)
				timer = tq_clock_take(q, tick, &refiled);
		} while (timer && refiled && tq_clock_visit(q));
		if (timer && refiled) {
			tq_finish(q);
			tq_unlock(q);
			if (ran)
				wake_up_all(&base->wait);
			ran = false;
			cond_resched();
			continue;
		}
		if (!timer) {
			/*
			 * Due timers left: run again. None, in the work's run:
			 * the hrtimer has fired, or is set for a time that has
			 * passed, so arm it again for the minimum, or cancel it.
			 * In timeq_expire()'s, it stays as set unless the
			 * minimum is earlier: set for an earlier time, it fires,
			 * finds nothing due and re-arms.
			 */
			more = tq_clock_more(q, tick);
			tq_clock_arm(q, !more && fired);
			again = more && !base->stopping;
			tq_unlock(q);
			break;
		}
		/* Published before the locks are dropped: see the top. */
		WRITE_ONCE(base->running, timer);
		/* Once they are, a fast update may arm the timer again. */
		time = timer->node.time;
		tq_finish(q);
		tq_unlock(q);
		if (ran)
			wake_up_all(&base->wait);
		cond_resched();
		late = tq_clock_late(q, time);
		trace_timeq_expire_entry(q, &timer->node, time, late);
		tq_clock_call(timer);
		trace_timeq_expire_exit(q, &timer->node);
		ran = true;
		done++;
	}
	mutex_unlock(&base->expiry);
	if (done) {
		wake_up_all(&base->wait);
		this_cpu_inc(q->counters->expiry_runs);
		this_cpu_add(q->counters->expired, done);
	}
	*expired += done;
	return again;
}

/* At least one per run, whatever the parameter says: 0 would spin. */
static unsigned int tq_clock_budget(void)
{
	return max(READ_ONCE(expire_budget), 1U);
}

/* The work's part: one run, and the work again if due timers remain. */
void tq_clock_expire(struct timeq *q)
{
	unsigned long expired = 0;
	u64 until = U64_MAX;

	if (tq_clock_run(q, &until, tq_clock_budget(), true, &expired))
		queue_work(timeq_wq, &tq_base_of(q)->work);
}

/**
 * timeq_expire - expire a base's due timers in the caller's context
 * @base:	the timer base
 *
 * Expires every timer due at the current tick, read once when this call's
 * first turn begins, as the base's work would: each is removed and its
 * callback runs here, with no lock of the queue held. Runs of the expiry,
 * this call's and the work's, take turns, so the callbacks of @base run
 * one at a time and in its order (time, then insertion), never early: for
 * a caller that needs what is due handled before it goes on. The work is
 * done in runs of expire_budget timers, rescheduling between timers.
 *
 * Context: process context, may sleep. Not from a callback of @base, nor
 * while holding a lock a callback of @base takes: the runs take turns
 * under a mutex.
 * Return: the number of timers this call expired.
 */
unsigned long timeq_expire(struct timeq_base *base)
{
	struct timeq *q = &base->queue;
	unsigned long expired = 0;
	u64 until = U64_MAX;

	/* Each run after the first stops at the first one's tick. */
	while (tq_clock_run(q, &until, tq_clock_budget(), false, &expired))
		cond_resched();
	return expired;
}
EXPORT_SYMBOL_NS_GPL(timeq_expire, TIMEQ_NS);

bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock)
{
	lockdep_assert_held(&q->head_lock);
	return tq_base_of(q)->running == timer;
}

void tq_clock_wait(struct timeq *q, struct timeq_timer *timer)
{
	struct timeq_base *base = tq_base_of(q);

	wait_event(base->wait, READ_ONCE(base->running) != timer);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Whether the base's hrtimer is set or running, for KUnit only. */
VISIBLE_IF_KUNIT bool tq_clock_armed(struct timeq_base *base)
{
	return hrtimer_active(&base->hrtimer);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_armed);

/* The tick the hrtimer was last set for, or U64_MAX; for KUnit only. */
VISIBLE_IF_KUNIT u64 tq_clock_armed_at(struct timeq_base *base)
{
	return READ_ONCE(base->armed);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_armed_at);

/* Whether timeq_base_destroy() has begun on @base; for KUnit only. */
VISIBLE_IF_KUNIT bool tq_clock_stopping(struct timeq_base *base)
{
	return READ_ONCE(base->stopping);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_stopping);
#endif

/*
 * The clock's part of timeq_base_create(), before the queue is made: its
 * @expiry of the class @key, or of @expiry_key, registered, if @key is
 * NULL.
 */
void tq_clock_init(struct timeq_base *base, u64 granularity,
		   struct lock_class_key *key)
{
	base->granularity = granularity;
	hrtimer_setup(&base->hrtimer, tq_clock_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	raw_spin_lock_init(&base->arm_lock);
	base->armed = TQ_UNARMED;
	INIT_LIST_HEAD(&base->due);
	init_waitqueue_head(&base->wait);
	base->own_class = !key;
	if (base->own_class) {
		key = &base->expiry_key;
		lockdep_register_key(key);
	}
	__mutex_init(&base->expiry, "&base->expiry", key);
}

/* The last step of timeq_base_destroy(), or of a failed create. */
void tq_clock_exit(struct timeq_base *base)
{
	mutex_destroy(&base->expiry);
	if (base->own_class)
		lockdep_unregister_key(&base->expiry_key);
}

/*
 * The first step of timeq_base_destroy(): no more hrtimer, and no more
 * work queued by it or by a kick (tq_handoff_exit() then waits for the
 * work, and for a kick that a callback running meanwhile queues). Marked
 * under the queue's locks, which the slow side arms under, and under
 * @arm_lock, which a kick reads the mark under: neither starts the
 * hrtimer, nor a kick the work, once it is set.
 */
void tq_clock_stop(struct timeq_base *base)
{
	struct timeq *q = &base->queue;
	unsigned long flags;

	tq_lock(q);
	raw_spin_lock_irqsave(&base->arm_lock, flags);
	WRITE_ONCE(base->stopping, true);
	raw_spin_unlock_irqrestore(&base->arm_lock, flags);
	tq_unlock(q);
	irq_work_sync(&base->kick);
	hrtimer_cancel(&base->hrtimer);
}

/*
 * A timer timeq_base_destroy() released from @arg, the base's queue,
 * queued or due: its word closed, so that no store lands on it.
 */
void tq_clock_released(struct timeq_node *node, void *arg)
{
	tq_assert_locked((struct timeq *)arg);
	tq_timer_drained(container_of(node, struct timeq_timer, node));
}

/*
 * Release the timers of @due, each left in no list and not due, as
 * tq_queue_exit() releases queued nodes (tq_clock_released()): TIMEQ_STEP
 * to a lock hold, with a reschedule between holds. For
 * timeq_base_destroy(), once the work can no longer run and the queue is
 * released.
 */
void tq_clock_release(struct timeq_base *base)
{
	struct timeq *q = &base->queue;
	struct timeq_timer *timer;
	unsigned int n;

	tq_lock(q);
	for (n = 0;; n++) {
		timer = list_first_entry_or_null(&base->due, struct timeq_timer,
						 node.entry);
		if (!timer)
			break;
		if (n && !(n % TIMEQ_STEP)) {
			tq_unlock(q);
			cond_resched();
			tq_lock(q);
		}
		tq_clock_cancel_due(q, timer);
		tq_clock_released(&timer->node, q);
		q->visits++;
	}
	tq_unlock(q);
}

/**
 * tq_base_check - verify every invariant of a base's queue, and of the base
 * @base:	the timer base
 * @buf:	where to describe the first violation found, or NULL
 * @len:	size of @buf
 *
 * timeq_check() of its queue, then, in a lock hold of its own, its list
 * of timers due (tq_clock_check()): for tests. Each is checked whole in
 * its hold.
 *
 * Context: the slow side; takes every lock.
 * Return: 0 if all is sound; -EUCLEAN with a description in @buf if not.
 */
int tq_base_check(struct timeq_base *base, char *buf, size_t len)
{
	struct timeq *q = &base->queue;
	int ret = timeq_check(q, buf, len);

	if (ret)
		return ret;
	tq_lock(q);
	ret = tq_clock_check(q, buf, len);
	tq_unlock(q);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(tq_base_check);

/**
 * timeq_base_ticks - the current tick of a base's clock
 * @base:	the timer base
 *
 * The time a timer armed for now would have: ktime_get_ns() divided by
 * the granularity. The base's own clock, where its window starts, lags it
 * until the base next expires or arms.
 *
 * Context: any but NMI (ktime_get_ns() may wait for the timekeeping
 * update that an NMI interrupted).
 * Return: the tick.
 */
u64 timeq_base_ticks(const struct timeq_base *base)
{
	return tq_clock_tick(base);
}
EXPORT_SYMBOL_NS_GPL(timeq_base_ticks, TIMEQ_NS);
