// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the timer facility, a queue whose clock is CLOCK_MONOTONIC.
 *
 * A queue from timeq_create_monotonic() counts time in ticks of a chosen
 * granularity: tick = ktime_get_ns() / granularity. It holds timers
 * (struct timeq_timer), each with a callback, and expires them itself:
 *
 *  - An hrtimer is armed for the earliest timer's tick, and only while the
 *    queue is non-empty: an idle queue costs no interrupt at all. Every
 *    change of the minimum, on either path, comes through
 *    tq_clock_changed() under head_lock. A minimum that moves earlier
 *    re-arms the hrtimer. A minimum that moves later leaves it, and the
 *    early firing then finds nothing due and re-arms. An empty queue
 *    cancels it.
 *  - The hrtimer's handler only queues the queue's work (paths.c); the work
 *    expires in process context, so callbacks may sleep.
 *  - Never early: a timer of tick t is due once tick t has begun, when
 *    ktime_get_ns() >= t * granularity, read in the work before anything
 *    is removed. So a callback always sees the clock at or past its time.
 *  - Expiry storms are bounded: one run of the work expires at most
 *    expire_budget timers (a module parameter), then queues itself again
 *    for the rest. Nothing is lost, and the workqueue runs other queues'
 *    work in between.
 *  - Each timer is removed under the locks and its callback runs with them
 *    dropped. @running names the timer whose callback runs, so that
 *    timeq_delete_sync() can wait for it (the way timer_delete_sync() waits
 *    on a timer base's running_timer).
 */

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "paths.h"
#include "queue.h"

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
 *
 * @armed, @running and @stopping are guarded by the queue's head_lock.
 */
struct timeq_clock {
	struct hrtimer		hrtimer;
	struct timeq		*q;
	u64			granularity;
	u64			armed;
	struct timeq_timer	*running;
	bool			stopping;
	wait_queue_head_t	wait;
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
		if (clock->armed != TQ_UNARMED)
			hrtimer_try_to_cancel(&clock->hrtimer);
		clock->armed = TQ_UNARMED;
		return;
	}
	time = q->min->time;
	if (clock->armed <= time)
		return;
	clock->armed = time;
	hrtimer_start(&clock->hrtimer, ns_to_ktime(time * clock->granularity),
		      HRTIMER_MODE_ABS);
}

/* Move the clock up to now, but not past a timer not yet expired. */
void tq_clock_catch_up(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock)
{
	u64 tick = tq_clock_tick(q->clock);

	lockdep_assert_held(&q->head_lock);
	if (q->min)
		tick = min(tick, q->min->time);
	if (tick > q->now)
		__timeq_del_less_than(q, tick, 0, NULL, NULL);
}

void tq_clock_expire(struct timeq *q)
{
	/* At least one per run, whatever the parameter says: 0 would spin. */
	unsigned int done, budget = max(READ_ONCE(expire_budget), 1U);
	struct timeq_clock *clock = q->clock;
	u64 tick = tq_clock_tick(clock);
	struct timeq_timer *timer;
	struct timeq_node *node;
	bool more, again;

	for (done = 0; ; done++) {
		tq_lock(q);
		WRITE_ONCE(clock->running, NULL);
		more = q->min && q->min->time <= tick;
		if (done == budget || !more) {
			/*
			 * Due timers left: run again. None: the hrtimer has
			 * fired, or is set for a time that has passed, so arm it
			 * again for the minimum, or cancel it.
			 */
			if (!more) {
				/* The clock follows CLOCK_MONOTONIC. */
				__timeq_del_less_than(q, tick + 1, 0, NULL, NULL);
				if (q->min)
					clock->armed = TQ_UNARMED;
				tq_clock_changed(q);
			}
			again = more && !clock->stopping;
			tq_unlock(q);
			if (again)
				queue_work(timeq_wq, &q->work);
			break;
		}
		__timeq_del_less_than(q, tick + 1, 1, tq_take, &node);
		timer = container_of(node, struct timeq_timer, node);
		WRITE_ONCE(clock->running, timer);
		tq_unlock(q);
		if (done)
			wake_up_all(&clock->wait);
		if (timer->fn)
			timer->fn(timer);
	}
	if (done)
		wake_up_all(&clock->wait);
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
#endif

/* The first step of timeq_destroy(): no more hrtimer, no more work. */
void tq_clock_stop(struct timeq *q)
{
	tq_lock(q);
	q->clock->stopping = true;
	tq_unlock(q);
	hrtimer_cancel(&q->clock->hrtimer);
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
 * @granularity; timeq_clock_ticks() reads that clock. Arm timers with
 * timeq_timer_arm() or timeq_fast_update(). A timer of time t is expired
 * once ktime_get_ns() >= t * @granularity: it is removed and its callback
 * runs in process context, on the module's workqueue, never earlier. An
 * hrtimer is armed only while the queue holds a timer. timeq_insert() of a
 * bare node is refused; timeq_delete_min() and timeq_del_less_than() still
 * work, and remove timers without running their callbacks.
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
	hrtimer_init(&clock->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	clock->hrtimer.function = tq_clock_fire;
	clock->q = q;
	clock->armed = TQ_UNARMED;
	init_waitqueue_head(&clock->wait);
	q->clock = clock;
	return q;

err_free_clock:
	kfree(clock);
	return q;
}
EXPORT_SYMBOL_NS_GPL(timeq_create_monotonic, TIMEQ);

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
EXPORT_SYMBOL_NS_GPL(timeq_clock_ticks, TIMEQ);
