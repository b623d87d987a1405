/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the paths (paths.c the locks and the queue's calls, fast.c the fast
 * path, handoff.c the hand-off and the timer calls, life.c a queue's
 * lifetime) call of each other, and what they call of clock.c (a timer
 * base's clock), which calls their locks.
 */
#ifndef _TIMEQ_PATHS_H
#define _TIMEQ_PATHS_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/lockdep.h>
#include <linux/timeq.h>
#include <linux/wait_bit.h>

#include "queue.h"

/* The workqueue that runs every queue's slow path (paths.c). */
extern struct workqueue_struct *timeq_wq;
int tq_wq_init(void);
void tq_wq_exit(void);

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

/*
 * Wake the timer calls that wait for a request of a base's queue @q
 * (handoff.c's tq_wait_request(), which waits on @q): one was pushed,
 * applied, or dropped, or PENDING was cleared. The caller has ordered
 * that change before this with a full barrier, as wake_up_var() requires.
 */
static inline void tq_wake_requests(struct timeq *q)
{
	wake_up_var(q);
}

void tq_finish(struct timeq *q)
	__must_hold(&q->head_lock) __must_hold(&q->head2_lock)
	__must_hold(&q->bucket_lock);
void tq_relock(struct timeq *q) __must_hold(&q->head_lock)
	__must_hold(&q->head2_lock) __must_hold(&q->bucket_lock);
void tq_slow_begin(struct timeq *q) __acquires(&q->head_lock)
	__acquires(&q->head2_lock) __acquires(&q->bucket_lock);
void tq_slow_end(struct timeq *q) __releases(&q->bucket_lock)
	__releases(&q->head2_lock) __releases(&q->head_lock);

/* The operations of queue.c, counted and traced (paths.c). */
int tq_insert(struct timeq *q, struct timeq_node *node, u64 time, bool far);
int tq_delete(struct timeq *q, struct timeq_node *node, bool far);
int tq_update(struct timeq *q, struct timeq_node *node, u64 time, bool far);

/*
 * May @node (queued in @q or in no queue) go to @time, or be deleted if
 * @time is TQ_DELETE, under bucket_lock alone? Only if no work is pending,
 * the node is far and not the minimum, and @time is far, in the window and
 * no earlier than the minimum (so a minimum there is). See "Locks" in
 * paths.c.
 */
#define TQ_DELETE U64_MAX

static inline bool tq_far_ok(const struct timeq *q,
			     const struct timeq_node *node, u64 time)
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
	 * pair read half old, half new still tells "far and no earlier". A
	 * 32-bit kernel may read @min_time torn, but only during such a
	 * write, whose value is earlier than any far @time: a torn value
	 * that tells "no earlier" agrees with the value written, and one
	 * that does not defers.
	 */
	return tq_in_window(q, time) && tq_rel(q, time) >= 2 &&
	       READ_ONCE(q->min) && time >= READ_ONCE(q->min_time);
}

/* The bits of timeq_timer.expires beside the time (include/linux/timeq.h). */
#define TQ_EXPIRES_BITS	(TIMEQ_EXPIRES_OPEN | TIMEQ_EXPIRES_HANDED)
static_assert(TQ_EXPIRES_BITS == ~TIMEQ_EXPIRES_TIME,
	      "the bits beside the time are OPEN and HANDED");

/* Bits of timeq_timer.flags. */
#define TQ_TIMER_PENDING	0	/* a request is handed off */
#define TQ_TIMER_SHUTDOWN	1	/* refuses to be armed */

/*
 * A timer's expires word (fast.c, "Refresh by a store"): opened whenever
 * the slow side or a lane links its node, or the expiry files it again;
 * closed whenever one takes the node out, or may move it without the
 * store seeing. HANDED is set by whoever takes PENDING for a request, and
 * cleared by the drain as it closes the word, before it clears PENDING;
 * opening keeps it. Closing keeps the time: while the node is filed, that
 * time is its latest requested one, no earlier than the node's.
 *
 * Open the word at @time, keeping HANDED. Closed first, the word can then
 * change only by a hand-off setting HANDED: the caller holds one of the
 * queue's locks, so neither the drain nor the expiry's claim runs, and a
 * store needs the word open. So the exchange is tried at most twice.
 */
static inline void tq_timer_open_at(struct timeq_timer *timer, u64 time)
{
	s64 old = atomic64_fetch_andnot(TIMEQ_EXPIRES_OPEN, &timer->expires);
	s64 new;

	old &= ~TIMEQ_EXPIRES_OPEN;
	do {
		new = time | TIMEQ_EXPIRES_OPEN | (old & TIMEQ_EXPIRES_HANDED);
	} while (!atomic64_try_cmpxchg(&timer->expires, &old, new));
}

/* Open the word at the time @timer's node is filed at. */
static inline void tq_timer_open(struct timeq_timer *timer)
{
	tq_timer_open_at(timer, READ_ONCE(timer->node.time));
}

/* Close the word, keeping HANDED. Return: the time it held. */
static inline u64 tq_timer_close(struct timeq_timer *timer)
{
	return atomic64_fetch_andnot(TIMEQ_EXPIRES_OPEN, &timer->expires) &
	       ~TQ_EXPIRES_BITS;
}

/* A request of @timer was handed off: no store lands until it is applied. */
static inline void tq_timer_hand(struct timeq_timer *timer)
{
	atomic64_or(TIMEQ_EXPIRES_HANDED, &timer->expires);
}

/*
 * The drain applies @timer's request: close the word and clear HANDED, a
 * fully ordered atomic before the drain clears PENDING.
 */
static inline void tq_timer_drained(struct timeq_timer *timer)
{
	atomic64_fetch_andnot(TQ_EXPIRES_BITS, &timer->expires);
}

/* The hand-off's share of a base's life (handoff.c), for base.c. */
void tq_handoff_init(struct timeq_base *base);
void tq_handoff_exit(struct timeq_base *base);

/*
 * The body of timeq_create() and timeq_destroy(), for a base's queue too
 * (life.c).
 */
int tq_queue_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		  unsigned int nbuckets, gfp_t gfp);
void tq_queue_exit(struct timeq *q, timeq_fn fn, void *arg);

/*
 * The timer calls of include/linux/timeq.h (fast.c, handoff.c): base.c's
 * calls are these, which tests call too. Each works on the base's queue,
 * and the functions of fast.c and handoff.c it calls find the base from
 * that queue (tq_base_of()).
 */
int tq_fast_update(struct timeq_base *base, struct timeq_timer *timer,
		   u64 time);
bool tq_timer_store(struct timeq_base *base, struct timeq_timer *timer,
		    u64 time);
int tq_fast_min(struct timeq_base *base, u64 *time);
int tq_timer_arm(struct timeq_base *base, struct timeq_timer *timer, u64 time);
int tq_timer_move(struct timeq_base *base, struct timeq_timer *timer, u64 time);
int tq_timer_delete(struct timeq_base *base, struct timeq_timer *timer);
int tq_delete_sync(struct timeq_base *base, struct timeq_timer *timer);
int tq_shutdown_sync(struct timeq_base *base, struct timeq_timer *timer);

#endif /* _TIMEQ_PATHS_H */
