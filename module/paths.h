/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What paths.c (the locks, the fast and slow paths) and clock.c (the timer
 * base) call of each other. Only a base's queue has a clock, and paths.c
 * calls the tq_clock_* hooks only for those (q->base set).
 */
#ifndef _TIMEQ_PATHS_H
#define _TIMEQ_PATHS_H

#include <linux/lockdep.h>
#include <linux/timeq.h>

#include "queue.h"

/* The module's workqueue, which runs every queue's slow path (main.c). */
extern struct workqueue_struct *timeq_wq;

void tq_lock(struct timeq *q)
	__acquires(&q->head_lock) __acquires(&q->head2_lock)
	__acquires(&q->bucket_lock);
void tq_unlock(struct timeq *q)
	__releases(&q->bucket_lock) __releases(&q->head2_lock)
	__releases(&q->head_lock);
static inline void tq_assert_locked(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock)
{
	lockdep_assert_held(&q->head_lock);
	lockdep_assert_held(&q->head2_lock);
	lockdep_assert_held(&q->bucket_lock);
}

void tq_finish(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock);
void tq_relock(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
void tq_take(struct timeq_node *node, void *arg);

/* The body of timeq_create() and timeq_destroy(), for a base's queue too. */
int tq_queue_init(struct timeq *q, struct timeq_base *base, u64 now,
		  u64 horizon, unsigned int delta, unsigned int nbuckets,
		  gfp_t gfp);
void tq_queue_exit(struct timeq *q);

/*
 * The timer calls of include/linux/timeq.h on a queue: clock.c's calls on
 * a base are these on its queue; tests call them on plain queues too.
 */
int tq_fast_update(struct timeq *q, struct timeq_timer *timer, u64 time);
int tq_fast_min(struct timeq *q, u64 *time);
int tq_timer_arm(struct timeq *q, struct timeq_timer *timer, u64 time);
int tq_timer_move(struct timeq *q, struct timeq_timer *timer, u64 time);
int tq_timer_delete(struct timeq *q, struct timeq_timer *timer);
int tq_delete_sync(struct timeq *q, struct timeq_timer *timer);
int tq_shutdown_sync(struct timeq *q, struct timeq_timer *timer);

/* clock.c; paths.c calls these only when q->base is set. */
void tq_clock_changed(struct timeq *q) __must_hold(&q->head_lock);
void tq_clock_catch_up(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock);
int tq_clock_make_room(struct timeq *q, u64 time) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
bool tq_clock_cancel_due(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
int tq_clock_check(struct timeq *q, char *buf, size_t len)
	__must_hold(&q->head_lock);
void tq_clock_expire(struct timeq *q);
void tq_clock_kick(struct timeq *q);
u64 tq_clock_fast_tick(const struct timeq *q);
u64 tq_clock_late(struct timeq *q, u64 time);
bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
	__must_hold(&q->head_lock);
void tq_clock_wait(struct timeq *q, struct timeq_timer *timer);
void tq_clock_stop(struct timeq *q);
bool tq_clock_release_step(struct timeq *q) __must_hold(&q->head_lock);
#if IS_ENABLED(CONFIG_KUNIT)
bool tq_clock_armed(struct timeq *q);
u64 tq_clock_armed_at(struct timeq *q);
bool tq_clock_stopping(struct timeq *q);
#endif

#endif /* _TIMEQ_PATHS_H */
