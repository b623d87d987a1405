// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the timer facility, a queue whose clock is CLOCK_MONOTONIC.
 *
 * A queue from timeq_create_monotonic() counts time in ticks of a chosen
 * granularity: tick = ktime_get_ns() / granularity. It holds timers
 * (struct timeq_timer), each with a callback, and expires them itself:
 *
 *  - An hrtimer is armed for the earliest timer's tick while the queue is
 *    non-empty: an idle queue costs no interrupt. The slow side re-arms it
 *    under head_lock whenever the minimum moves earlier, and cancels it
 *    when the queue empties (tq_clock_changed()). A minimum that moves
 *    later leaves it, and the early firing then finds nothing due and
 *    re-arms. The fast path may not touch the hrtimer (its base lock
 *    spins): when it moves the minimum earlier it queues the queue's
 *    irq_work, whose handler re-arms (tq_clock_kick()). That costs the
 *    time from the fast update to the self-interrupt in expiry lateness.
 *  - The hrtimer's handler only queues the queue's work (paths.c); the work
 *    expires in process context, so callbacks may sleep.
 *  - Never early, never late by a tick: a timer of tick t is due once tick
 *    t has begun, when ktime_get_ns() >= t * granularity, read in the work
 *    before anything is removed; and the queue's clock moves up to the
 *    current tick, never past it (tq_clock_catch_up()), so a timer armed
 *    for the current tick keeps that time.
 *  - The queue's clock lags CLOCK_MONOTONIC only until the slow side next
 *    runs: every slow-side call catches it up first, as far as the timers
 *    not yet expired allow. The fast path judges the horizon by
 *    CLOCK_MONOTONIC itself when a time lies beyond the lagging clock's
 *    window (tq_clock_fast_tick()), and defers it to the slow side.
 *  - Expiry storms are bounded: one run of the work expires at most
 *    expire_budget timers (a module parameter), then queues itself again
 *    for the rest. Nothing is lost, and the workqueue runs other queues'
 *    work in between.
 *  - Each timer is removed under the locks and its callback runs with them
 *    dropped. @running names the timer whose callback runs, so that
 *    timeq_delete_sync() can wait for it (the way timer_delete_sync() waits
 *    on a timer base's running_timer).
 *  - Two contexts expire: the work, and timeq_expire() in its caller's. A
 *    run of either holds the clock's @expiry mutex from before it reads
 *    the tick to after its last callback returns, so a queue's callbacks
 *    run one at a time and in the queue's order (time, then insertion):
 *    no run removes a timer while another's removed timer still waits for
 *    its callback.
 *  - Just before a callback, the clock is read once more: how late the
 *    callback starts goes to the queue's lateness histogram (stats.h) and
 *    to the timeq_expire_entry event.
 */

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
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

#include "paths.h"
#include "queue.h"
#include "stats.h"
#include "trace/timeq.h"

static unsigned int expire_budget = 64;
module_param(expire_budget, uint, 0644);
MODULE_PARM_DESC(expire_budget,
		 "Timers one slow-path run expires before it yields (default 64; 0 counts as 1)");

/* clock.armed when the hrtimer is not armed. */
#define TQ_UNARMED	U64_MAX

/**
 * struct timeq_clock - the timer facility's state of one queue
 * @hrtimer:	fires at the earliest timer's tick and queues the work
 * @q:		the queue
 * @granularity: nanoseconds per tick
 * @armed:	the tick @hrtimer is set for, or %TQ_UNARMED
 * @running:	the timer whose callback is running, or NULL
 * @stopping:	timeq_destroy() has begun: arm nothing, queue nothing
 * @wait:	where timeq_delete_sync() waits for @running to change
 * @expiry:	held by each run of the expiry (tq_clock_run())
 *
 * @running and @stopping are guarded by the queue's head_lock. @armed is
 * written under it by the slow side and without it by tq_clock_kick(): a
 * stale value costs at most an early firing, which re-arms. Order:
 * @expiry, then the queue's locks.
 */
struct timeq_clock {
	struct hrtimer		hrtimer;
	struct timeq		*q;
	u64			granularity;
	u64			armed;
	struct timeq_timer	*running;
	bool			stopping;
	wait_queue_head_t	wait;
	struct mutex		expiry;		/* one run at a time */
};

static u64 tq_clock_tick(const struct timeq_clock *clock)
{
	return div64_u64(ktime_get_ns(), clock->granularity);
}

static enum hrtimer_restart tq_clock_fire(struct hrtimer *hrtimer)
{
	struct timeq_clock *clock = container_of(hrtimer, struct timeq_clock,
						 hrtimer);

	queue_work(timeq_wq, &clock->q->work);
	return HRTIMER_NORESTART;
}

void tq_clock_changed(struct timeq *q)
	__must_hold(&q->head_lock)
{
	struct timeq_clock *clock = q->clock;
	u64 time;

	lockdep_assert_held(&q->head_lock);
	if (clock->stopping)
		return;
	if (!q->min) {
		if (q->pend != TQ_PEND_NONE)
			return;
		if (READ_ONCE(clock->armed) != TQ_UNARMED)
			hrtimer_try_to_cancel(&clock->hrtimer);
		WRITE_ONCE(clock->armed, TQ_UNARMED);
		return;
	}
	time = q->min_time;
	if (READ_ONCE(clock->armed) <= time)
		return;
	WRITE_ONCE(clock->armed, time);
	hrtimer_start(&clock->hrtimer, ns_to_ktime(time * clock->granularity),
		      HRTIMER_MODE_ABS);
}

/*
 * The fast path moved the minimum earlier than the hrtimer is set for:
 * re-arm it. In the irq_work's hard interrupt, without the queue's locks;
 * @min_time is read as it is now, and a slow-side re-arm under head_lock
 * is ordered before the fast update that kicked this one.
 */
void tq_clock_kick(struct timeq *q)
{
	struct timeq_clock *clock = q->clock;
	u64 time = READ_ONCE(q->min_time);

	if (READ_ONCE(clock->stopping) || time >= READ_ONCE(clock->armed))
		return;
	WRITE_ONCE(clock->armed, time);
	hrtimer_start(&clock->hrtimer, ns_to_ktime(time * clock->granularity),
		      HRTIMER_MODE_ABS);
}

/*
 * CLOCK_MONOTONIC in ticks, for the fast path: ktime_get_mono_fast_ns()
 * takes no lock (its latch read retries only if a timekeeping update lands
 * during it).
 */
u64 tq_clock_fast_tick(const struct timeq *q)
{
	return div64_u64(ktime_get_mono_fast_ns(), q->clock->granularity);
}

/*
 * Move the clock up to the current tick, but not past a timer not yet
 * expired, finishing any pulls the move needs in steps. So a timer armed
 * for the current tick keeps its time, and the window is the current one.
 */
void tq_clock_catch_up(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	u64 tick = min(tq_clock_tick(q->clock), q->min_time);

	lockdep_assert_held(&q->head_lock);
	if (tick > q->now) {
		__timeq_del_less_than(q, tick, 0, NULL, NULL);
		tq_finish(q);
	}
}

/*
 * One run of the expiry: expire the timers due at the current tick, but at
 * most *@until, and at most @budget of them, one callback at a time; set
 * *@until to the tick it expired to. @fired: the run is the work's, which
 * the hrtimer (or a kick) queued, so the hrtimer is taken as spent once
 * nothing is due; timeq_expire()'s run leaves it as it is set.
 * Return: whether due timers remain and the queue is not stopping.
 */
static bool tq_clock_run(struct timeq *q, u64 *until, unsigned int budget,
			 bool fired, unsigned long *expired)
{
	struct timeq_clock *clock = q->clock;
	struct timeq_timer *timer;
	struct timeq_node *node;
	unsigned int done;
	bool more, again;
	u64 tick, late;

	mutex_lock(&clock->expiry);
	tick = min(tq_clock_tick(clock), *until);
	*until = tick;
	for (done = 0; ; done++) {
		might_sleep();
		tq_lock(q);
		tq_finish(q);
		WRITE_ONCE(clock->running, NULL);
		tq_clock_catch_up(q);
		more = q->min && q->min_time <= tick;
		if (done == budget || !more) {
			/*
			 * Due timers left: run again. None, in the work's run:
			 * the hrtimer has fired, or is set for a time that has
			 * passed, so arm it again for the minimum, or cancel it.
			 * In timeq_expire()'s, it stays as set unless the
			 * minimum is earlier: set for an earlier time, it fires,
			 * finds nothing due and re-arms.
			 */
			if (!more && fired)
				WRITE_ONCE(clock->armed, TQ_UNARMED);
			tq_clock_changed(q);
			again = more && !clock->stopping;
			tq_unlock(q);
			break;
		}
		/* The clock moves to the timer's tick, at most the current one. */
		node = __timeq_delete_min(q);
		tq_finish(q);
		timer = container_of(node, struct timeq_timer, node);
		WRITE_ONCE(clock->running, timer);
		tq_unlock(q);
		if (done)
			wake_up_all(&clock->wait);
		late = tq_clock_late(q, node);
		trace_timeq_expire_entry(q, node, late);
		if (timer->fn)
			timer->fn(timer);
		trace_timeq_expire_exit(q, node);
	}
	mutex_unlock(&clock->expiry);
	if (done) {
		wake_up_all(&clock->wait);
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
		queue_work(timeq_wq, &q->work);
}

/**
 * timeq_expire - expire a clocked queue's due timers in the caller's context
 * @q:		a queue from timeq_create_monotonic()
 *
 * Expires every timer due at the current tick, read once when this call's
 * first turn begins, as the queue's work would: each is removed and its
 * callback runs here, with no lock of the queue held. Runs of the expiry,
 * this call's and the work's, take turns, so the callbacks of @q run one
 * at a time and in the queue's order (time, then insertion), never early.
 * A caller that needs what is due handled before it goes on, such as one
 * about to judge a time against timeq_now(), calls this rather than
 * timeq_del_less_than(), which removes without running callbacks and
 * without taking turns. The work is done in runs of expire_budget timers
 * with a reschedule between them.
 *
 * Context: process context, may sleep. Not from a callback of @q, nor
 * while holding a lock a callback of @q takes: the runs take turns under a
 * mutex.
 * Return: the number of timers this call expired.
 */
unsigned long timeq_expire(struct timeq *q)
{
	unsigned long expired = 0;
	u64 until = U64_MAX;

	/* Each run after the first stops at the first one's tick. */
	while (tq_clock_run(q, &until, tq_clock_budget(), false, &expired))
		cond_resched();
	return expired;
}
EXPORT_SYMBOL_NS_GPL(timeq_expire, TIMEQ_NS);

/*
 * How late @node's callback starts, in nanoseconds, counted in the
 * lateness histogram: a node of tick t is due at t * granularity.
 */
u64 tq_clock_late(struct timeq *q, const struct timeq_node *node)
{
	u64 due = node->time * q->clock->granularity;
	u64 now = ktime_get_ns();
	u64 late = now > due ? now - due : 0;

	tq_stats_lateness(q, late);
	return late;
}

bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock)
{
	lockdep_assert_held(&q->head_lock);
	return q->clock->running == timer;
}

void tq_clock_wait(struct timeq *q, struct timeq_timer *timer)
{
	struct timeq_clock *clock = q->clock;

	wait_event(clock->wait, READ_ONCE(clock->running) != timer);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Whether the queue's hrtimer is set or running, for KUnit only. */
VISIBLE_IF_KUNIT bool tq_clock_armed(struct timeq *q)
{
	return hrtimer_active(&q->clock->hrtimer);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_armed);

/* The tick the hrtimer was last set for, or U64_MAX; for KUnit only. */
VISIBLE_IF_KUNIT u64 tq_clock_armed_at(struct timeq *q)
{
	return READ_ONCE(q->clock->armed);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_armed_at);

/* Whether timeq_destroy() has begun on @q; for KUnit only. */
VISIBLE_IF_KUNIT bool tq_clock_stopping(struct timeq *q)
{
	return READ_ONCE(q->clock->stopping);
}
EXPORT_SYMBOL_IF_KUNIT(tq_clock_stopping);
#endif

/* The first step of timeq_destroy(): no more hrtimer, no more work. */
void tq_clock_stop(struct timeq *q)
{
	tq_lock(q);
	WRITE_ONCE(q->clock->stopping, true);
	tq_unlock(q);
	irq_work_sync(&q->kick);
	hrtimer_cancel(&q->clock->hrtimer);
}

/* The last step of timeq_destroy(), once the work can no longer run. */
void tq_clock_free(struct timeq *q)
{
	mutex_destroy(&q->clock->expiry);
	kfree(q->clock);
}

/**
 * timeq_create_monotonic - a queue of timers that expires them itself
 * @granularity: nanoseconds per tick, at least 1
 * @horizon:	timers are accepted up to @horizon ticks ahead of the
 *		queue's clock (1 to 2^40, and @horizon * @granularity at
 *		most 2^62 ns)
 * @delta:	the bucket width, as for timeq_create()
 * @nbuckets:	the number of buckets, as for timeq_create()
 * @gfp:	allocation flags
 *
 * Times on the queue are CLOCK_MONOTONIC nanoseconds divided by
 * @granularity; timeq_clock_ticks() reads that clock. The queue's own
 * clock, where its window starts, follows it but cannot pass a timer that
 * has not expired yet: while the expiry lags behind due timers, the
 * horizon shrinks by the lag. Choose @horizon with that margin. Arm timers with
 * timeq_timer_arm() or timeq_fast_update(). A timer of time t is expired
 * once ktime_get_ns() >= t * @granularity: it is removed and its callback
 * runs in process context, on the module's workqueue (or in the caller of
 * timeq_expire()), never earlier, one callback at a time. An hrtimer is
 * armed only while the queue holds a timer. timeq_insert() of a bare node
 * is refused; timeq_delete_min() and timeq_del_less_than() still work,
 * and remove timers without running their callbacks.
 *
 * Context: may sleep if @gfp allows.
 * Return: the queue; ERR_PTR(-EINVAL) for bad parameters, ERR_PTR(-ENOMEM)
 * if the memory could not be had.
 */
struct timeq *timeq_create_monotonic(u64 granularity, u64 horizon,
				     unsigned int delta, unsigned int nbuckets,
				     gfp_t gfp)
{
	struct timeq_clock *clock;
	struct timeq *q;
	u64 span;

	if (!granularity || check_mul_overflow(horizon, granularity, &span) ||
	    span > 1ULL << 62)
		return ERR_PTR(-EINVAL);
	clock = kzalloc(sizeof(*clock), gfp);
	if (!clock)
		return ERR_PTR(-ENOMEM);
	clock->granularity = granularity;
	q = timeq_create(tq_clock_tick(clock), horizon, delta, nbuckets, gfp);
	if (IS_ERR(q))
		goto err_free_clock;
	hrtimer_setup(&clock->hrtimer, tq_clock_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	clock->q = q;
	clock->armed = TQ_UNARMED;
	init_waitqueue_head(&clock->wait);
	mutex_init(&clock->expiry);
	q->clock = clock;
	return q;

err_free_clock:
	kfree(clock);
	return q;
}
EXPORT_SYMBOL_NS_GPL(timeq_create_monotonic, TIMEQ_NS);

/**
 * timeq_clock_ticks - the current tick of a clocked queue's clock
 * @q:		a queue from timeq_create_monotonic()
 *
 * The time a timer armed for now would have: ktime_get_ns() divided by
 * the granularity. The queue's own timeq_now() lags it until the queue
 * next expires or arms.
 *
 * Context: any.
 * Return: the tick.
 */
u64 timeq_clock_ticks(const struct timeq *q)
{
	return tq_clock_tick(q->clock);
}
EXPORT_SYMBOL_NS_GPL(timeq_clock_ticks, TIMEQ_NS);
