/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timer base, private to module/: the structure that base.c (the
 * base's calls) makes and clock.c (its clock) keeps, the clock's share of
 * its life, and its queue for the rest of module/ and for tests.
 */
#ifndef _TIMEQ_CLOCK_H
#define _TIMEQ_CLOCK_H

#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/timeq.h>
#include <linux/wait.h>

#include "queue.h"

/**
 * struct timeq_base - a timer base: a queue of timers, and their clock
 * @hrtimer:	fires at the earliest timer's tick and queues the work; first,
 *		so that the address /proc/timer_list shows for it is the
 *		base's, by which kmemleak knows the object
 * @queue:	the queue that holds the timers (module/queue.h)
 * @granularity: nanoseconds per tick
 * @arm_lock:	serialises the setting of @hrtimer and @armed
 * @armed:	the tick @hrtimer is set for, or %TQ_UNARMED
 * @due:	timers whose tick has passed, out of the queue in its order,
 *		whose callbacks have not run yet
 * @running:	the timer whose callback is running, or NULL
 * @stopping:	timeq_base_destroy() has begun: arm nothing, queue
 *		nothing
 * @wait:	where timeq_delete_sync() waits for @running to change
 * @expiry:	held by each run of the expiry (tq_clock_run())
 *
 * @due, @running and @stopping are guarded by the queue's head_lock,
 * @armed by @arm_lock. Order: @expiry, then the queue's locks, then
 * @arm_lock. The queue's @base points back here: the timer calls of
 * fast.c and handoff.c call clock.c's tq_clock_* for a base's queue only.
 */
struct timeq_base {
	struct hrtimer		hrtimer;
	struct timeq		queue;
	u64			granularity;
	raw_spinlock_t		arm_lock;
	u64			armed;
	struct list_head	due;
	struct timeq_timer	*running;
	bool			stopping;
	wait_queue_head_t	wait;
	struct mutex		expiry;		/* one run at a time */
};

/* The kmemleak object is the hrtimer's: see @hrtimer above. */
static_assert(offsetof(struct timeq_base, hrtimer) == 0,
	      "the hrtimer is the base's first member");

/*
 * The queue of @base: for the calls that read it (timeq_now(),
 * timeq_first(), tq_check()); the node calls that change a queue are for
 * plain ones.
 */
static inline struct timeq *tq_base_queue(struct timeq_base *base)
{
	return &base->queue;
}

/* clock.c: the clock's share of a base's life, for base.c. */
void tq_clock_init(struct timeq_base *base, u64 granularity);
void tq_clock_stop(struct timeq_base *base);
void tq_clock_release(struct timeq_base *base);
void tq_clock_exit(struct timeq_base *base);
int tq_check(struct timeq *q, char *buf, size_t len);
struct timeq_node *tq_clock_first(struct timeq *q);

/*
 * clock.c: the clock's share of the timer calls, for fast.c and handoff.c,
 * which call these for a base's queue only (q->base set), except
 * tq_clock_cancel_due(): it reads only the timer's owner word, and so
 * finds nothing due in a plain queue.
 */
void tq_clock_changed(struct timeq *q) __must_hold(&q->head_lock);
void tq_clock_catch_up(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
int tq_clock_make_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
bool tq_clock_cancel_due(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
void tq_clock_expire(struct timeq *q);
void tq_clock_kick(struct timeq *q);
u64 tq_clock_fast_tick(const struct timeq *q);
bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
void tq_clock_wait(struct timeq *q, struct timeq_timer *timer);
#if IS_ENABLED(CONFIG_KUNIT)
bool tq_clock_armed(struct timeq *q);
u64 tq_clock_armed_at(struct timeq *q);
bool tq_clock_stopping(struct timeq *q);
#endif

#endif /* _TIMEQ_CLOCK_H */
