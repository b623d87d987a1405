/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timer base, private to module/: the structure that base.c (the
 * base's calls) makes, clock.c (its clock) keeps and handoff.c (the
 * hand-off of its fast path) feeds, the clock's share of its life, and
 * its queue for the rest of module/ and for tests.
 */
#ifndef _TIMEQ_CLOCK_H
#define _TIMEQ_CLOCK_H

#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/timeq.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "queue.h"

/**
 * struct timeq_base - a timer base: a queue of timers, and their clock
 * @hrtimer:	fires at the earliest timer's tick and queues the work; first,
 *		so that the address /proc/timer_list shows for it is the
 *		base's, by which kmemleak knows the object
 * @queue:	the queue that holds the timers (module/queue.h)
 * @handoffs:	fast updates waiting for the slow path (handoff.c)
 * @kick:	queues @work, and re-arms @hrtimer, for the fast path, which
 *		may not do either itself
 * @work:	the slow path: applies @handoffs, expires due timers
 * @granularity: nanoseconds per tick
 * @arm_lock:	serialises the setting of @hrtimer and @armed
 * @armed:	the tick @hrtimer is set for, or %TQ_UNARMED
 * @due:	timers whose tick has passed, out of the queue in its order,
 *		whose callbacks have not run yet
 * @running:	the timer whose callback is running, or NULL
 * @stopping:	timeq_base_destroy() has begun: arm nothing, queue
 *		nothing, take no timer for its callback
 * @own_class:	@expiry is of @expiry_key, registered with lockdep; not
 *		for a base of tq_base_create_shared(), whose class is given
 * @wait:	where timeq_delete_sync() waits for @running to change
 * @expiry:	held by each run of the expiry (tq_clock_run())
 * @expiry_key: @expiry's lock class, one a base: a callback of one base
 *		may expire another (timeq_expire()), so lockdep must not
 *		take the two for one lock taken twice
 * @test:	a test base (tq_base_create_test()); with TIMEQ_TEST_BASE
 *		only
 *
 * @due, @running and @stopping are guarded by the queue's head_lock,
 * @armed by @arm_lock; @stopping is also written under @arm_lock, and
 * the kick reads it under that alone (tq_clock_stop()). Order: @expiry,
 * then the queue's locks, then @arm_lock; @expiry, then the lockdep class
 * of the timer whose callback runs (tq_clock_call()). The timer calls of
 * fast.c and handoff.c take the base; the functions behind them, and
 * clock.c's, are given its queue and find the base from it
 * (tq_base_of()).
 */
struct timeq_base {
	struct hrtimer		hrtimer;
	struct timeq		queue;

	/* The hand-off, written by fast paths that defer. */
	struct llist_head	handoffs ____cacheline_aligned_in_smp;
	struct irq_work		kick;
	struct work_struct	work;

	u64			granularity;
	raw_spinlock_t		arm_lock;
	u64			armed;
	struct list_head	due;
	struct timeq_timer	*running;
	bool			stopping;
	bool			own_class;
#ifdef TIMEQ_TEST_BASE
	bool			test;
#endif
	wait_queue_head_t	wait;
	struct mutex		expiry;		/* one run at a time */
	struct lock_class_key	expiry_key;
};

/* The kmemleak object is the hrtimer's: see @hrtimer above. */
static_assert(offsetof(struct timeq_base, hrtimer) == 0,
	      "the hrtimer is the base's first member");

/*
 * The queue of @base: for the calls that read it (timeq_now(),
 * timeq_first()); the node calls that change a queue are for
 * plain ones, and for tests.
 */
static inline struct timeq *tq_base_queue(struct timeq_base *base)
{
	return &base->queue;
}

/*
 * The base that composes @q: every queue that the functions of fast.c,
 * handoff.c and clock.c are given is a base's.
 */
static inline struct timeq_base *tq_base_of(struct timeq *q)
{
	return container_of(q, struct timeq_base, queue);
}

/* The same, for a reader that changes nothing. */
static inline const struct timeq_base *tq_base_of_const(const struct timeq *q)
{
	return container_of(q, const struct timeq_base, queue);
}

/*
 * Whether @base is a test base (tq_base_create_test(), base.c): only in
 * a build with TIMEQ_TEST_BASE, which the KUnit suites' build defines
 * (Kbuild's TIMEQ_KUNIT=y), as do the userspace tests' (compat.h).
 */
static inline bool tq_base_test(const struct timeq_base *base)
{
#ifdef TIMEQ_TEST_BASE
	return base->test;
#else
	return false;
#endif
}

#ifdef TIMEQ_TEST_BASE
struct timeq_base *tq_base_create_test(u64 now, u64 horizon, unsigned int delta,
				       unsigned int nbuckets);
#endif

/* base.c: for dev.c. */
bool tq_base_span_ok(u64 granularity, u64 horizon);
struct timeq_base *tq_base_create_shared(u64 granularity, u64 horizon,
					 gfp_t gfp, struct lock_class_key *key);

/* clock.c: the clock's share of a base's life, for base.c. */
void tq_clock_init(struct timeq_base *base, u64 granularity,
		   struct lock_class_key *key);
void tq_clock_stop(struct timeq_base *base);
void tq_clock_release(struct timeq_base *base);
void tq_clock_released(struct timeq_node *node, void *arg);
void tq_clock_exit(struct timeq_base *base);
int tq_base_check(struct timeq_base *base, char *buf, size_t len);
struct timeq_node *tq_clock_first(struct timeq_base *base);
u64 tq_clock_now(struct timeq_base *base);

/* clock.c: the clock's share of the timer calls, for fast.c and handoff.c. */
void tq_clock_changed(struct timeq *q) __must_hold(&q->head_lock);
void tq_clock_catch_up(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
int tq_clock_make_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
bool tq_clock_cancel_due(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
void tq_clock_expire(struct timeq *q);
bool tq_clock_kick(struct timeq *q);
u64 tq_clock_fast_tick(const struct timeq *q);
bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
void tq_clock_wait(struct timeq *q, struct timeq_timer *timer);
#if IS_ENABLED(CONFIG_KUNIT)
bool tq_clock_armed(struct timeq_base *base);
u64 tq_clock_armed_at(struct timeq_base *base);
bool tq_clock_stopping(struct timeq_base *base);
#endif

#endif /* _TIMEQ_CLOCK_H */
