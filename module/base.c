// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the timer base's calls, the face of struct timeq_base.
 *
 * A base (module/clock.h) composes a queue with its clock (clock.c) and
 * the hand-off of its fast path (handoff.c): it makes and frees the
 * three, and each of its timer calls is the call of the paths (fast.c,
 * handoff.c) with the base, which catch up and re-arm the base's clock
 * around what they do. So this file stands above everything it composes,
 * and nothing below it calls it.
 */

#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#include <kunit/visibility.h>

#include "clock.h"
#include "paths.h"
#include "queue.h"
#include "stats.h"

/*
 * A base is a kmalloc-1k object where locks are plain: without lock
 * debugging, PREEMPT_RT's sleeping spinlocks or a test build's table of
 * insertion numbers (queue.h). struct timeq's regions are laid out for it.
 */
#if defined(__KERNEL__) && !IS_ENABLED(CONFIG_PREEMPT_RT) && \
	!IS_ENABLED(CONFIG_DEBUG_SPINLOCK) && !IS_ENABLED(CONFIG_LOCKDEP) && \
	!IS_ENABLED(CONFIG_DEBUG_MUTEXES) && !defined(TIMEQ_DEBUG_FIFO)
static_assert(sizeof(struct timeq_base) <= 1024,
	      "a timer base fits in a kmalloc-1k object");
#endif

/*
 * Make a base: its clock of @granularity, its expiry of the class @key
 * (NULL for its own), its hand-off, and its queue, whose clock starts at
 * the base's current tick, or at @now for a test base (@test).
 */
static struct timeq_base *tq_base_new(u64 granularity, bool test, u64 now,
				      u64 horizon, unsigned int delta,
				      unsigned int nbuckets, gfp_t gfp,
				      struct lock_class_key *key)
{
	struct timeq_base *base;
	int err;

	base = kzalloc(sizeof(*base), gfp);
	if (!base)
		return ERR_PTR(-ENOMEM);
	tq_clock_init(base, granularity, key);
#ifdef TIMEQ_TEST_BASE
	base->test = test;
#endif
	tq_handoff_init(base);
	err = tq_queue_init(&base->queue, test ? now : timeq_base_ticks(base),
			    horizon, delta, nbuckets, gfp);
	if (err)
		goto err_free_base;
	return base;

err_free_base:
	tq_clock_exit(base);
	kfree(base);
	return ERR_PTR(err);
}

/*
 * Whether timeq_base_create() takes @granularity and @horizon: at least a
 * nanosecond a tick, and a window of at most 2^62 ns. The queue checks
 * @horizon itself.
 */
bool tq_base_span_ok(u64 granularity, u64 horizon)
{
	u64 span;

	return granularity &&
	       !check_mul_overflow(horizon, granularity, &span) &&
	       span <= 1ULL << 62;
}

/**
 * timeq_base_create - a timer base, which expires its timers itself
 * @granularity: nanoseconds per tick, at least 1
 * @horizon:	timers are accepted up to @horizon ticks ahead of the
 *		base's clock (1 to 2^40, and @horizon * @granularity at most
 *		2^62 ns)
 * @delta:	the bucket width, as for timeq_create()
 * @nbuckets:	the number of buckets, as for timeq_create()
 * @gfp:	allocation flags
 *
 * Times on the base are CLOCK_MONOTONIC nanoseconds divided by
 * @granularity; timeq_base_ticks() reads that clock. The base's own
 * clock, where its window starts, follows it, held back by timers whose
 * tick has passed and whose callbacks have not run; a timer armed beyond
 * that window, up to @horizon ticks past the current tick, moves it on,
 * and the timers it passes wait for their callbacks outside the window.
 * So a late expiry never narrows the window a caller can arm in. Arm
 * timers with timeq_timer_arm() or timeq_fast_update(). A timer of time t
 * is expired once ktime_get_ns() >= t * @granularity: it is removed and
 * its callback runs in process context, on the module's workqueue (or in
 * the caller of timeq_expire()), never earlier, one callback at a time.
 * An hrtimer is armed only while the base holds a timer. The base
 * composes a queue of timeq_create()'s shape, which its callers do not
 * see: the node calls take a &struct timeq.
 *
 * Context: process context, may sleep, whatever @gfp says: it takes a
 * mutex and makes a file in debugfs.
 * Return: the base; ERR_PTR(-EINVAL) for bad parameters, ERR_PTR(-ENOMEM)
 * if the memory could not be had.
 */
struct timeq_base *timeq_base_create(u64 granularity, u64 horizon,
				     unsigned int delta, unsigned int nbuckets,
				     gfp_t gfp)
{
	might_sleep();
	if (!tq_base_span_ok(granularity, horizon))
		return ERR_PTR(-EINVAL);
	return tq_base_new(granularity, false, 0, horizon, delta, nbuckets, gfp,
			   NULL);
}
EXPORT_SYMBOL_NS_GPL(timeq_base_create, TIMEQ_NS);

/*
 * timeq_base_create() with the queue's default shape, for bases whose
 * callbacks expire no base (dev.c's): their expiry mutexes are of one
 * lockdep class, @key, so that the bases a user makes take no class each
 * (lockdep has 8192). A base of timeq_base_create() has a class of its
 * own (&struct timeq_base's @expiry_key).
 */
struct timeq_base *tq_base_create_shared(u64 granularity, u64 horizon,
					 gfp_t gfp, struct lock_class_key *key)
{
	might_sleep();
	if (!tq_base_span_ok(granularity, horizon))
		return ERR_PTR(-EINVAL);
	return tq_base_new(granularity, false, 0, horizon, 0, 0, gfp, key);
}

#ifdef TIMEQ_TEST_BASE
/**
 * tq_base_create_test - a test base: a timer base whose clock is its queue's
 * @now:	the initial clock, in ticks
 * @horizon:	the window, as for timeq_create()
 * @delta:	the bucket width, as for timeq_create()
 * @nbuckets:	the number of buckets, as for timeq_create()
 *
 * Its clock is its queue's, as a plain queue's clock is: the node calls on
 * its queue (timeq_delete_min(), timeq_del_less_than()) move it, and
 * CLOCK_MONOTONIC never does; so it makes no room in its window. It arms
 * no hrtimer, its expiry expires nothing (its work only applies the
 * hand-off), and timeq_fast_update() and timeq_timer_move() make no store
 * on its timers: a move later takes the lanes of the fast path, or the
 * slow side (timeq_timer_store(), which reads only the timer, still lands
 * on them). So a test runs the paths of a base one decision at a time.
 * Its queue may hold bare nodes, so timeq_base_destroy() leaves the words
 * of the timers it releases from it as they are. Destroy it with
 * timeq_base_destroy().
 *
 * Only where TIMEQ_TEST_BASE is defined (tq_base_test(), clock.h).
 *
 * Context: process context, may sleep.
 * Return: the base; an ERR_PTR() as timeq_create() returns one.
 */
struct timeq_base *tq_base_create_test(u64 now, u64 horizon, unsigned int delta,
				       unsigned int nbuckets)
{
	might_sleep();
	return tq_base_new(1, true, now, horizon, delta, nbuckets, GFP_KERNEL,
			   NULL);
}
EXPORT_SYMBOL_IF_KUNIT(tq_base_create_test);
#endif

/**
 * timeq_base_destroy - free a timer base
 * @base:	a base from timeq_base_create(), or NULL
 *
 * Stops the base's hrtimer and work, then frees it. The timers still in
 * it are released, not run: each is left as after timeq_timer_init() but
 * for its time, which timeq_timer_expires() still reads, so its owner may
 * arm it in another base or free it, and timeq_timer_store() changes
 * nothing on it.
 * Requests handed off and not yet applied are dropped. O(N + delta + M),
 * in lock holds of at most TIMEQ_STEP timers with a reschedule between
 * them.
 *
 * Context: process context, may sleep. The caller must ensure that nothing
 * else uses @base once this is called: no fast update and no other call,
 * its own timeq_expire() included. A callback running on the base's work
 * is waited for, and one that arms its timer meanwhile arms no hrtimer;
 * no timer is taken for its callback once this has begun. So not from a
 * callback of @base, nor while holding a lock one takes.
 */
void timeq_base_destroy(struct timeq_base *base)
{
	if (!base)
		return;
	tq_clock_stop(base);
	tq_handoff_exit(base);
	/* A test base's queue may hold bare nodes (tq_base_create_test()). */
	tq_queue_exit(&base->queue,
		      tq_base_test(base) ? NULL : tq_clock_released,
		      &base->queue);
	tq_clock_release(base);
	tq_clock_exit(base);
	kfree(base);
}
EXPORT_SYMBOL_NS_GPL(timeq_base_destroy, TIMEQ_NS);

/**
 * timeq_base_bytes - the memory a timer base holds
 * @base:	the timer base
 *
 * As timeq_bytes() of its queue, with the base's own structure.
 *
 * Context: any.
 * Return: the bytes.
 */
size_t timeq_base_bytes(const struct timeq_base *base)
{
	return sizeof(*base) - sizeof(base->queue) + timeq_bytes(&base->queue);
}
EXPORT_SYMBOL_NS_GPL(timeq_base_bytes, TIMEQ_NS);

/* --- the timer calls: fast.c's and handoff.c's, with the base --- */

/**
 * timeq_fast_update - arm or move a timer from the fast path
 * @base:	the timer base
 * @timer:	an initialised timer, armed in @base or in none
 * @time:	its new time; a time before the base's clock means the clock
 *
 * On a 64-bit kernel, a move of an armed timer to a later time in the
 * window of the base's clock, or to the time it already has, is one
 * compare-and-exchange on the timer, which takes no lock: the timer's
 * node stays filed at its older time, and the expiry files it again
 * when that comes (see "Refresh by a store" in module/fast.c);
 * timeq_timer_expires() reads the time it now expires at. Any other
 * update is applied at once when the locks it needs are free and it costs
 * O(1): within the current and the next bucket, between far buckets for a
 * timer that is not the earliest, or between the two (see "The fast path"
 * in module/fast.c). Otherwise it hands the request to the slow path,
 * which applies it soon, in order with the timer's other requests: a timer
 * updated twice before the slow path runs ends with the latest time, and
 * counts as inserted when the slow path applies it. Never sleeps and never
 * waits for a lock; O(1) worst case, with the two lock-free steps that
 * "The fast path" in module/fast.c describes.
 *
 * The window is judged by the clock as this call reads it: a @time beyond
 * the horizon is refused, and a @time that has passed by the time the slow
 * path applies it is taken as the clock then. The horizon is counted from
 * CLOCK_MONOTONIC (ktime_get_mono_fast_ns(), read only when @time lies
 * beyond the base's own clock plus the horizon; its latch read retries if
 * a timekeeping update lands during it). A deferred
 * request takes effect when the slow path applies it: if the timer expires
 * before that, the request arms it again.
 *
 * Context: softirq, or bottom halves disabled; not hard interrupt or NMI.
 * Return: %TIMEQ_APPLIED or %TIMEQ_DEFERRED; -ERANGE if @time lies beyond
 * the horizon; -EBUSY if @timer is in another base; -ESHUTDOWN after
 * timeq_shutdown_sync(). On error nothing changes.
 */
int timeq_fast_update(struct timeq_base *base, struct timeq_timer *timer,
		      u64 time)
{
	return tq_fast_update(base, timer, time);
}
EXPORT_SYMBOL_NS_GPL(timeq_fast_update, TIMEQ_NS);

/**
 * timeq_fast_min - the earliest time, from the fast path
 * @base:	the timer base
 * @time:	set to the earliest queued time on success
 *
 * Tries the queue's head_lock only, which guards the minimum. O(1);
 * never waits. It does not see the timers that wait for their callbacks
 * after their tick has passed. The time is the earliest a timer is filed
 * at: a timer moved later by a store (timeq_fast_update()) is filed at
 * its older time until then, so the answer is a bound, no later than the
 * earliest time a timer expires at, and the earliest tick at which the
 * base looks at its timers next.
 *
 * Context: as timeq_fast_update().
 * Return: 0; -ENOENT if no timer is queued; -EAGAIN if the lock was taken,
 * or the slow side is between two steps of finding the minimum, so that
 * only the slow path could answer now.
 */
int timeq_fast_min(struct timeq_base *base, u64 *time)
{
	return tq_fast_min(base, time);
}
EXPORT_SYMBOL_NS_GPL(timeq_fast_min, TIMEQ_NS);

/**
 * timeq_timer_arm - arm or move a timer from the slow side
 * @base:	the timer base
 * @timer:	an initialised timer, armed in @base or in none
 * @time:	its new time; a time before the base's clock means the clock
 *
 * Applies the fast-path requests still pending first, so this call's
 * @time is the one that stays. The base's clock is first brought up to
 * CLOCK_MONOTONIC, so the window is the current one; a
 * timer whose tick had passed and whose callback had not run yet is armed
 * again, and its callback does not run for the old time. O(1) but for the
 * requests and the catch-up (module/clock.c).
 *
 * Context: the slow side; takes every lock.
 * Return: 0; -ERANGE if @time lies beyond the horizon; -EBUSY if @timer is
 * in another base; -ESHUTDOWN after timeq_shutdown_sync(). On error
 * nothing changes but the pending requests applied and the clock brought
 * up to date.
 */
int timeq_timer_arm(struct timeq_base *base, struct timeq_timer *timer,
		    u64 time)
{
	return tq_timer_arm(base, timer, time);
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_arm, TIMEQ_NS);

/**
 * timeq_timer_move - move a timer that is armed, from the slow side
 * @base:	the timer base
 * @timer:	an initialised timer
 * @time:	its new time; a time before the base's clock means the clock
 *
 * As timeq_timer_arm(), but only if @timer is armed in @base once pending
 * requests are applied: a timer that has expired (or was never armed) is
 * left alone, as mod_timer_pending() leaves a timer_list; one whose tick
 * has passed but whose callback has not begun is still armed. The expiry
 * cannot slip between the check and the move: a move of an armed timer
 * with no request pending to a later time in the window of the base's
 * clock, or to the time it already has, is on a 64-bit kernel a store
 * alone, as in timeq_fast_update(), one compare-and-exchange that fails
 * if the expiry took the timer first, and takes no lock; any other move,
 * or a store that failed, checks and moves in one hold of the locks.
 *
 * Context: the slow side; takes every lock, but for a store.
 * Return: 0; -ENOENT if @timer is not armed in @base, as after
 * timeq_shutdown_sync(), which disarms it; -ERANGE if @time lies beyond
 * the horizon. On error nothing changes but the pending requests applied
 * and the clock brought up to date.
 */
int timeq_timer_move(struct timeq_base *base, struct timeq_timer *timer,
		     u64 time)
{
	return tq_timer_move(base, timer, time);
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_move, TIMEQ_NS);

/**
 * timeq_timer_delete - disarm a timer, without waiting
 * @base:	the timer base
 * @timer:	an initialised timer
 *
 * Applies the pending requests, then removes @timer from @base. A fast
 * update running at the same time on another CPU may still arm it again,
 * and its callback may be running: before freeing @timer use
 * timeq_delete_sync().
 *
 * Context: the slow side; takes every lock.
 * Return: 1 if @timer was armed in @base, 0 if not (a timer queued in
 * another base is left as it is).
 */
int timeq_timer_delete(struct timeq_base *base, struct timeq_timer *timer)
{
	return tq_timer_delete(base, timer);
}
EXPORT_SYMBOL_NS_GPL(timeq_timer_delete, TIMEQ_NS);

/**
 * timeq_delete_sync - disarm a timer and wait until nothing refers to it
 * @base:	the timer base
 * @timer:	an initialised timer
 *
 * Applies the pending requests and removes @timer from @base, and waits
 * for its callback if it is running; then repeats, so a callback that
 * re-arms its own timer is disarmed after it returns. When this returns,
 * @base holds no reference to @timer: it is in no list, no request names it, and no
 * callback runs it.
 *
 * Synchronization rules: the caller must make sure that no fast update of
 * @timer runs once this function is called, on any CPU, and that none
 * starts later, nor anything else that arms it: the base cannot see a
 * fast update that is running, since it takes no lock that this function
 * could wait for. A fast path that finds its timer under rcu_read_lock()
 * meets this rule when the owner first unpublishes the timer and waits
 * with synchronize_rcu(). The callback must not re-arm the timer forever;
 * timeq_shutdown_sync() makes it refuse instead. This function must not be
 * called from the timer's own callback, nor while holding a lock the
 * callback takes::
 *
 *	CPU0 (the caller)		CPU1 (the base's work)
 *	mutex_lock(&m);
 *					the callback runs:
 *					mutex_lock(&m);   <- waits for CPU0
 *	timeq_delete_sync();   <- waits for the callback: deadlock
 *
 * lockdep can report both (&struct timeq_timer's @lockdep_map says
 * when). Once it returns, the owner may free @timer.
 *
 * A timer in use in another base is that base's, and a misuse here: one
 * queued there is left as it is (its callback running in @base is still
 * waited for); one with a request pending there, as after its callback
 * armed it there with timeq_fast_update(), is not seen, and this call
 * waits for that request until @base's own slow path runs, for ever on
 * an idle base.
 *
 * Context: process context, may sleep.
 * Return: 1 if @timer was armed (or had a pending request that armed it),
 * 0 if not.
 */
int timeq_delete_sync(struct timeq_base *base, struct timeq_timer *timer)
{
	return tq_delete_sync(base, timer);
}
EXPORT_SYMBOL_NS_GPL(timeq_delete_sync, TIMEQ_NS);

/**
 * timeq_shutdown_sync - disarm a timer for good and wait
 * @base:	the timer base
 * @timer:	an initialised timer
 *
 * As timeq_delete_sync(), but first marks @timer shut down: from then on
 * every attempt to arm it fails with -ESHUTDOWN, from either path and from
 * its own callback, and requests still pending are dropped. So a timer
 * whose callback re-arms it can be torn down (the lesson of
 * timer_shutdown_sync()), and fast updates may race this call: each is
 * refused, or is done and undone before it returns. A refused fast update
 * still reads @timer, so before freeing it the owner must still make sure
 * no fast update can reach it, as timeq_delete_sync() says.
 * timeq_timer_init() makes it usable again. A timer queued in another
 * base is left as it is, not shut down, as timeq_delete_sync() says.
 *
 * Context: process context, may sleep.
 * Return: 1 if @timer was armed, 0 if not.
 */
int timeq_shutdown_sync(struct timeq_base *base, struct timeq_timer *timer)
{
	return tq_shutdown_sync(base, timer);
}
EXPORT_SYMBOL_NS_GPL(timeq_shutdown_sync, TIMEQ_NS);

/**
 * timeq_get_fast_stats - what the fast path did with a base's updates
 * @base:	the timer base
 * @stats:	filled with the sums of every CPU's counts
 *
 * How many fast updates of @base were applied in place, refused with an
 * error, and handed to the slow path, by why (&enum timeq_defer). The
 * paths count with this_cpu_inc() and this reads without a lock, so a
 * call made while they run may lack the counts of that moment. O(the
 * number of possible CPUs).
 *
 * Context: any.
 */
void timeq_get_fast_stats(struct timeq_base *base,
			  struct timeq_fast_stats *stats)
{
	tq_get_fast_stats(&base->queue, stats);
}
EXPORT_SYMBOL_NS_GPL(timeq_get_fast_stats, TIMEQ_NS);
