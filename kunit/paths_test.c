// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fast and slow paths (module/paths.c, fast.c and
 * handoff.c), the timer base (module/clock.c) and timeq_tune()
 * (module/tune.c).
 *
 * The same file runs in userspace: tools/testing/queue builds it against
 * compat/ (test_paths), where nothing runs but the test. There the kick,
 * the work and the hrtimer run when the test lets them (settle(),
 * run_until()), on a virtual clock that moves only to the next hrtimer
 * or by msleep(), so each case runs the same every time. The cases that
 * need what only a kernel has (softirqs from other contexts, a callback
 * running in a kthread while the test waits, real time) are built in the
 * kernel alone, under __KERNEL__, each group saying why.
 *
 *  - Directed cases: when the fast path applies and when it defers, and
 *    the reason it counts, the latest of two deferred updates winning, a
 *    pending request never being overtaken, fast_min under a held lock,
 *    every error code.
 *  - The stress case: tasklets, hrtimer and timer_list softirq callbacks on
 *    every CPU call timeq_fast_update() and timeq_fast_min() as fast as they
 *    can on a timer base. Meanwhile this thread arms, deletes, checks the
 *    invariants under the locks, shuts timers down while fast updates still
 *    reach them, and frees timers after timeq_delete_sync() while hand-offs
 *    and callbacks are in flight (KASAN sees any later use).
 *    The expiry runs callbacks. At the end every insertion is accounted for
 *    exactly once, as a callback or a deletion.
 *  - The timer base: no callback early, a storm larger than the expiry budget
 *    all delivered, a self-re-arming timer stopped by timeq_shutdown_sync(),
 *    timeq_expire() taking turns with the work, a destroy with a callback
 *    running and fast-path requests pending behind it, a callback more
 *    than the horizon late re-arming its timer, why fast updates are
 *    handed off while the expiry is held.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#ifdef __KERNEL__
#include <linux/debug_locks.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/timer.h>
#endif

#include "../module/clock.h"
#include "../module/paths.h"
#include "../module/stats.h"
#include "fifo.h"
#include "lateness.h"

/*
 * The directed cases run on test bases (tq_base_create_test(), base.c),
 * through the tq_ calls behind the base's timer calls (module/paths.h);
 * the cases of the timer base below use its public calls, and its queue
 * (tq_base_queue()) for what only a queue answers.
 */
static void destroy_queue(void *q)
{
	timeq_destroy(q);
}

static void destroy_base(void *base)
{
	timeq_base_destroy(base);
}

static struct timeq *plain_queue(struct kunit *test, u64 now, u64 horizon,
				 unsigned int delta, unsigned int nbuckets)
{
	struct timeq *q = timeq_create(now, horizon, delta, nbuckets, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, destroy_queue, q), 0);
	return q;
}

/* A test base, for the directed cases. */
static struct timeq_base *test_base(struct kunit *test, u64 now, u64 horizon,
				    unsigned int delta, unsigned int nbuckets)
{
	struct timeq_base *base =
		tq_base_create_test(now, horizon, delta, nbuckets);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, destroy_base, base), 0);
	return base;
}

static void check(struct kunit *test, struct timeq_base *base)
{
	char why[128] = "";

	KUNIT_EXPECT_EQ_MSG(test, tq_base_check(base, why, sizeof(why)), 0,
			    "%s", why);
}

/* The fast path from process context: with bottom halves off, as it asks. */
static int fast_update(struct timeq_base *base, struct timeq_timer *timer,
		       u64 time)
{
	int ret;

	local_bh_disable();
	ret = tq_fast_update(base, timer, time);
	local_bh_enable();
	return ret;
}

static int fast_min(struct timeq_base *base, u64 *time)
{
	int ret;

	local_bh_disable();
	ret = tq_fast_min(base, time);
	local_bh_enable();
	return ret;
}

/* The same on a timer base, through its public call. */
static int base_fast_update(struct timeq_base *base, struct timeq_timer *timer,
			    u64 time)
{
	int ret;

	local_bh_disable();
	ret = timeq_fast_update(base, timer, time);
	local_bh_enable();
	return ret;
}

/* How many of @q's fast updates were handed off for @why, so far. */
static u64 deferred_for(struct timeq *q, unsigned int why)
{
	struct timeq_fast_stats fs;

	tq_get_fast_stats(q, &fs);
	return fs.deferred[why];
}

/* Let the slow path apply what was handed off: the kick, then the work. */
static void settle(struct timeq_base *base)
{
	irq_work_sync(&base->kick);
	flush_work(&base->work);
}

/*
 * Some cases stage "another CPU holds this lock" by taking it here and then
 * calling the fast path, whose spin_trylock() must fail. A UP kernel, such
 * as the User-Mode Linux of make kunit, cannot stage it: there a trylock of
 * a lock this CPU holds is a "BUG: spinlock trylock failure on UP" report
 * from DEBUG_SPINLOCK, which also turns lockdep off for the rest of the
 * run, and without DEBUG_SPINLOCK it always succeeds. Those cases run in
 * the SMP debug kernel under qemu (make check's vm-debug); kunit/README.
 */
static void skip_unless_smp_locks(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_SMP))
		kunit_skip(test,
			   "a lock held here stands for another CPU's: needs SMP spinlocks (runs in qemu)");
}

/* A 32-bit kernel makes no stores (module/fast.c, "Refresh by a store"). */
static void skip_unless_stores(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_64BIT))
		kunit_skip(test, "a 32-bit kernel makes no stores");
}

#ifdef __KERNEL__
/* Wait for @done, which @base's callbacks complete; false after 30 s. */
static bool run_until(struct timeq_base *base, struct completion *done)
{
	return wait_for_completion_timeout(done, 30 * HZ);
}
#else
/*
 * Userspace: nothing runs unless the test runs it, so run what the kernel
 * would until @done: the kick, the work, or else the next hrtimer, the
 * virtual clock moved to it. False once nothing is left to run.
 */
static bool run_until(struct timeq_base *base, struct completion *done)
{
	while (!try_wait_for_completion(done))
		if (!compat_run_irq_work(&base->kick) &&
		    !compat_run_work(&base->work) && !compat_hrtimer_next())
			return false;
	return true;
}
#endif

/* --- directed cases on a test base: delta 16, M 16, now 0 --- */

/*
 * What the directed cases rely on of a test base (tq_base_create_test()):
 * its clock is its queue's, which only the node calls move; nothing arms
 * its hrtimer or expires its timers; a move later relinks the timer,
 * never stores; a time beyond its window is refused and changes nothing.
 */
static void paths_test_test_base(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 5, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_timer a, b;

	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	KUNIT_EXPECT_EQ(test, timeq_now(q), 5);
	KUNIT_EXPECT_EQ(test, timeq_base_ticks(base), 5);
	/* Due at once, and nothing runs it. */
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 5), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 100), 0);
	KUNIT_EXPECT_FALSE(test, tq_clock_armed(base));
	KUNIT_EXPECT_EQ(test, tq_clock_armed_at(base), U64_MAX);
	KUNIT_EXPECT_EQ(test, timeq_expire(base), 0);
	settle(base);
	KUNIT_EXPECT_TRUE(test, timeq_node_queued(&a.node));
	/* A move later relinks the timer. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 120), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 120);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &b, 130), 0);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 130);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&b), 130);
	/* Beyond the window of its clock: refused, the timer where it was. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 5 + 256), -ERANGE);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 5 + 256), -ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 130);
	/* The node calls move its clock, and nothing else does. */
	KUNIT_EXPECT_PTR_EQ(test, timeq_delete_min(q), &a.node);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(q, 50, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, timeq_now(q), 50);
	KUNIT_EXPECT_EQ(test, timeq_base_ticks(base), 50);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 50 + 255), 0);
	KUNIT_EXPECT_FALSE(test, tq_clock_armed(base));
	check(test, base);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 1);
}

/*
 * timeq_timer_move() moves only a timer armed in its base: one never
 * armed, deleted, shut down (which disarms it) or armed in another base
 * is refused with -ENOENT and left as it was; an armed one moves, later
 * or earlier.
 */
static void paths_test_move_armed_only(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq_base *other = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_timer a, b;

	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &a, 10), -ENOENT);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&a.node));
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 10), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &a, 20), 0);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&a), 20);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &a, 15), 0);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&a), 15);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 15);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &a, 30), -ENOENT);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&a.node));
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	/* Armed in another base: not this one's to move. */
	KUNIT_EXPECT_EQ(test, tq_timer_arm(other, &b, 40), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &b, 50), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 40);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	KUNIT_EXPECT_EQ(test, tq_delete_sync(other, &b), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 40), 0);
	KUNIT_EXPECT_EQ(test, tq_shutdown_sync(base, &b), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &b, 50), -ENOENT);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&b.node));
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	check(test, base);
}

/* Whether @timer's expires word is open to stores (fast.c). */
static bool word_open(struct timeq_timer *timer)
{
	return atomic64_read(&timer->expires) & TIMEQ_EXPIRES_OPEN;
}

/*
 * A timer queued in another base is that base's: the slow-side calls of
 * this one refuse it and leave it as it is, its word open, not shut
 * down, with or without a request of it pending there, and none of them
 * waits for that request.
 */
static void paths_test_foreign(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq_base *other = test_base(test, 0, 256, 16, 16);
	struct timeq_timer b;

	timeq_timer_init(&b, NULL);
	KUNIT_ASSERT_EQ(test, tq_timer_arm(other, &b, 40), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 50), -EBUSY);
	KUNIT_EXPECT_EQ(test, tq_timer_move(base, &b, 50), -ENOENT);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 0);
	KUNIT_EXPECT_EQ(test, tq_delete_sync(base, &b), 0);
	KUNIT_EXPECT_TRUE(test, word_open(&b));
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 40);
	KUNIT_EXPECT_EQ(test, timeq_count(tq_base_queue(other)), 1);
	KUNIT_EXPECT_EQ(test, timeq_count(tq_base_queue(base)), 0);
	/* The minimum going far: handed off in other, maybe still pending. */
	KUNIT_EXPECT_EQ(test, fast_update(other, &b, 200), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 50), -EBUSY);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 0);
	KUNIT_EXPECT_EQ(test, tq_delete_sync(base, &b), 0);
	KUNIT_EXPECT_EQ(test, tq_shutdown_sync(base, &b), 0);
	settle(other);
	KUNIT_EXPECT_FALSE(test, test_bit(TQ_TIMER_SHUTDOWN, &b.flags));
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 200);
	KUNIT_EXPECT_TRUE(test, word_open(&b));
	KUNIT_EXPECT_EQ(test, tq_shutdown_sync(other, &b), 1);
	check(test, base);
	check(test, other);
}

static void paths_test_applied(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_timer a, b;
	u64 t;

	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), -ENOENT);
	/* An insert into the current bucket, then into the next one. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 5), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 20), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), 0);
	KUNIT_EXPECT_EQ(test, t, 5);
	/* A move across the two buckets; the minimum follows. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 3), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), 0);
	KUNIT_EXPECT_EQ(test, t, 3);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 31), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 31);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), 0);
	KUNIT_EXPECT_EQ(test, t, 5);
	/* A time already past means the clock. */
	KUNIT_EXPECT_PTR_EQ(test, timeq_delete_min(q), &a.node);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 1), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 5);
	check(test, base);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 1);
}

static void paths_test_deferred(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_node n1, n2;
	struct timeq_timer a, b;

	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	timeq_node_init(&n1);
	timeq_node_init(&n2);
	/* Far inserts, and a far timer moved later: applied in place. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 100), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 120), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 150), TIMEQ_APPLIED);
	/* The minimum going far: the next one may need a walk. Deferred. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 200), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_MIN_FAR), 1);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 200);
	/* From a far bucket to a near time: applied, and the new minimum. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 2), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 2);
	KUNIT_EXPECT_PTR_EQ(test, timeq_min(q), &a.node);
	check(test, base);

	/*
	 * Emptying head while the calendar still holds part of the next
	 * bucket would cost a pull: deferred. n1 and n2 go to bucket list 2
	 * and b to head2. Moving the clock into bucket 1 makes b the head and
	 * pulls a share of bucket 2 (one node) into head2, leaving the other
	 * in the calendar.
	 */
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 1);
	KUNIT_EXPECT_EQ(test, timeq_insert(q, &n1, 40), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(q, &n2, 41), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 20), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(q, 16, NULL, NULL), 0);
	check(test, base);
	/* Within head: applied. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 21), TIMEQ_APPLIED);
	/* Out of head, leaving it empty: deferred. */
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 37), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_HEAD), 1);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&b.node), 37);
	check(test, base);
	KUNIT_EXPECT_EQ(test, timeq_delete(q, &n1), 0);
	KUNIT_EXPECT_EQ(test, timeq_delete(q, &n2), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 1);
}

/*
 * The three locks guard three regions: with bucket_lock taken, as the slow
 * side takes it alone for far work, a near update is applied; with head_lock
 * taken, a far one is. (When every path took head_lock first, both were
 * deferred.)
 */
static void paths_test_lanes(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_timer first, near, far;

	skip_unless_smp_locks(test);
	timeq_timer_init(&first, NULL);
	timeq_timer_init(&near, NULL);
	timeq_timer_init(&far, NULL);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &first, 1), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &near, 5), 0);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &far, 100), 0);
	spin_lock_bh(&q->bucket_lock);
	KUNIT_EXPECT_EQ(test, fast_update(base, &near, 20), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &far, 120), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->bucket_lock);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_CONTENDED), 1);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&near.node), 20);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&far.node), 120);
	spin_lock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, fast_update(base, &far, 140), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &near, 21), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_CONTENDED), 2);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&far.node), 140);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&near.node), 21);
	check(test, base);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &first), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &near), 1);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &far), 1);
}

static void paths_test_latest_wins(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_timer a;
	u64 t;

	skip_unless_smp_locks(test);
	timeq_timer_init(&a, NULL);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 3), 0);
	/* With head_lock taken, the fast path cannot even read the minimum. */
	spin_lock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 7), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 9), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head_lock);
	/* The first found head_lock taken; the second, the first's request. */
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_CONTENDED), 1);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_JOINED), 1);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 9);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 1);
	/*
	 * The locks are free, but a request is pending (planted here, as if
	 * the slow path had not run yet): this update must follow it.
	 */
	set_bit(TQ_TIMER_PENDING, &a.flags);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 11), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 9);
	KUNIT_EXPECT_EQ(test, atomic64_read(&a.want), 11);
	KUNIT_EXPECT_EQ(test, deferred_for(q, TIMEQ_DEFER_JOINED), 2);
	clear_bit(TQ_TIMER_PENDING, &a.flags);

	/* A slow-side arm applies what is pending first, then its own time. */
	spin_lock_bh(&q->head2_lock);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 13), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head2_lock);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 4), 0);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&a.node), 4);
	check(test, base);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 1);
}

static void paths_test_errors(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_base *other = test_base(test, 0, 256, 16, 16);
	struct timeq_timer a, b;
	struct timeq_node n;

	skip_unless_smp_locks(test);
	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	timeq_node_init(&n);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 256), -ERANGE);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 256), -ERANGE);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&a.node));
	KUNIT_EXPECT_EQ(test, tq_timer_arm(other, &a, 1), 0);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &a, 1), -EBUSY);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &a), 0);
	KUNIT_EXPECT_EQ(test, tq_delete_sync(other, &a), 1);

	/* Shut down: every way of arming refuses, until re-initialised. */
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 1), 0);
	KUNIT_EXPECT_EQ(test, tq_shutdown_sync(base, &b), 1);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 100), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 1), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	timeq_timer_init(&b, NULL);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 1), TIMEQ_APPLIED);
	/* A pending request is dropped by a shutdown. */
	spin_lock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 90), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, tq_shutdown_sync(base, &b), 1);
	settle(base);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&b.node));

	/* A timer base needs a granularity, and a window that fits in ns. */
	KUNIT_EXPECT_PTR_EQ(test, timeq_base_create(0, 100, 0, 0, GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test,
			    timeq_base_create(1ULL << 30, 1ULL << 40, 0, 0,
					      GFP_KERNEL),
			    ERR_PTR(-EINVAL));
}

/*
 * timeq_tune() gives what timeq_create() takes: powers of two that cover
 * the horizon, the horizon-only choice when the load is unknown, buckets
 * sized to the load when it is known, and a queue with exactly that shape.
 */
static void paths_test_tune(struct kunit *test)
{
	const u64 horizon = (1ULL << 20) + 1;
	unsigned int delta = 7, nbuckets = 7, few, many;
	struct timeq *q;
	int err;

	err = timeq_tune(0, 1, 1, &delta, &nbuckets);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_EQ(test, delta, 7);
	KUNIT_EXPECT_EQ(test, nbuckets, 7);

	err = timeq_tune(horizon, 0, 0, &delta, &nbuckets);
	KUNIT_ASSERT_EQ(test, err, 0);
	q = plain_queue(test, 0, horizon, 0, 0);
	KUNIT_EXPECT_EQ(test, 1U << q->delta_shift, delta);
	KUNIT_EXPECT_EQ(test, 1U << q->buckets_shift, nbuckets);

	err = timeq_tune(horizon, 1000, 1 << 19, &few, &nbuckets);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = timeq_tune(horizon, 100000, 1 << 19, &many, &nbuckets);
	KUNIT_ASSERT_EQ(test, err, 0);
	/* More elements over the same jumps: narrower buckets, more of them. */
	KUNIT_EXPECT_LT(test, many, few);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(many) && is_power_of_2(nbuckets));
	KUNIT_EXPECT_LE(test, horizon, (u64)many * nbuckets + 1);
	q = plain_queue(test, 0, horizon, many, nbuckets);
	KUNIT_EXPECT_EQ(test, 1U << q->delta_shift, many);
	KUNIT_EXPECT_EQ(test, 1U << q->buckets_shift, nbuckets);
}

/*
 * Every outcome is counted once, where it happens: a failed trylock of
 * either fast call, a request handed off (a second one joins it), and
 * the slow side's drain, run and expiry.
 */
static void paths_test_counters(struct kunit *test)
{
	struct timeq_base *base = test_base(test, 0, 256, 16, 16);
	struct timeq *q = tq_base_queue(base);
	struct timeq_fast_stats fs;
	struct timeq_timer a, b;
	struct tq_snapshot s;
	unsigned int i;
	u64 t, sum;

	skip_unless_smp_locks(test);
	timeq_timer_init(&a, NULL);
	timeq_timer_init(&b, NULL);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 5), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &b, 256), -ERANGE);
	spin_lock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, fast_min(base, &t), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 7), TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, fast_update(base, &a, 9), TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head_lock);
	settle(base);
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.fast_applied, 1);
	KUNIT_EXPECT_EQ(test, s.counters.fast_refused, 1);
	KUNIT_EXPECT_EQ(test, s.counters.fast_deferred, 2);
	KUNIT_EXPECT_EQ(test, s.counters.fast_contended, 2);
	/*
	 * What in-kernel users read (timeq_get_fast_stats() of a base is
	 * this on its queue): the same counts, the reasons summed.
	 */
	tq_get_fast_stats(q, &fs);
	KUNIT_EXPECT_EQ(test, fs.applied, s.counters.fast_applied);
	KUNIT_EXPECT_EQ(test, fs.refused, s.counters.fast_refused);
	for (i = 0, sum = 0; i < TIMEQ_DEFER_REASONS; i++)
		sum += fs.deferred[i];
	KUNIT_EXPECT_EQ(test, sum, s.counters.fast_deferred);
	KUNIT_EXPECT_EQ(test, fs.deferred[TIMEQ_DEFER_CONTENDED], 1);
	KUNIT_EXPECT_EQ(test, fs.deferred[TIMEQ_DEFER_JOINED], 1);
#ifdef __KERNEL__
	/* The names are stats.c's (counters.h's list), not in userspace. */
	KUNIT_EXPECT_STREQ(test, timeq_defer_name(TIMEQ_DEFER_CONTENDED),
			   "contended");
	KUNIT_EXPECT_STREQ(test, timeq_defer_name(TIMEQ_DEFER_LANE), "lane");
	KUNIT_EXPECT_NULL(test, timeq_defer_name(TIMEQ_DEFER_REASONS));
	/* Every reason has a name of its own. */
	for (i = 0; i < TIMEQ_DEFER_REASONS; i++) {
		unsigned int j;

		KUNIT_ASSERT_NOT_NULL(test, timeq_defer_name(i));
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, timeq_defer_name(i),
					    timeq_defer_name(j));
	}
#endif
	KUNIT_EXPECT_EQ(test, s.counters.handoffs, 1);
	KUNIT_EXPECT_EQ(test, s.counters.drained, 1);
	KUNIT_EXPECT_EQ(test, s.counters.slow_runs, 1);
	KUNIT_EXPECT_EQ(test, s.counters.expiry_runs, 0);
	KUNIT_EXPECT_EQ(test, s.head, 1);
	KUNIT_EXPECT_EQ(test, s.head2 + s.focus + s.calendar, 0);
	KUNIT_EXPECT_EQ(test, s.delta, 16);
	KUNIT_EXPECT_EQ(test, s.buckets, 16);
#ifdef __KERNEL__
	/* 16 bytes a list, 3 * delta + M lists, and more beside them. */
	KUNIT_EXPECT_GT(test, timeq_bytes(q),
			sizeof(*q) + (3 * 16 + 16) * sizeof(struct list_head));
#endif

	/* Far nodes; an expiry up to 40 removes a, and the clock moves. */
	KUNIT_EXPECT_EQ(test, tq_timer_arm(base, &b, 200), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(q, 40, NULL, NULL), 1);
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.expiry_runs, 1);
	KUNIT_EXPECT_EQ(test, s.counters.expired, 1);
	KUNIT_EXPECT_EQ(test, s.now, 40);
	KUNIT_EXPECT_EQ(test, s.bucket, 40 / 16);
	KUNIT_EXPECT_EQ(test, s.head + s.head2 + s.focus + s.calendar, 1);
	KUNIT_EXPECT_GT(test, s.visits, 0);
	KUNIT_EXPECT_LE(test, s.max_visits, s.visits);
	KUNIT_EXPECT_EQ(test, tq_timer_delete(base, &b), 1);
}

#ifdef __KERNEL__
/*
 * Lateness goes to its power-of-two bucket of microseconds: stats.c's
 * rule, which the userspace build does not link (it needs debugfs).
 */
static void paths_test_lateness_buckets(struct kunit *test)
{
	static const struct {
		u64		ns;
		unsigned int	bucket;
	} cases[] = {
		{ 0, 0 },	   { 999, 0 },	      { 1000, 1 },
		{ 1999, 1 },	   { 2000, 2 },	      { 3999, 2 },
		{ 4000, 3 },	   { 131071999, 17 }, { 131072000, 18 },
		{ 262143999, 18 }, { 262144000, 19 }, { U64_MAX, 19 },
	};
	struct timeq *q = plain_queue(test, 0, 256, 16, 16);
	struct tq_snapshot before, after;
	unsigned int i, b;
	u64 d;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tq_stats_snapshot(q, &before);
		tq_stats_lateness(q, cases[i].ns);
		tq_stats_snapshot(q, &after);
		for (b = 0; b < TIMEQ_LATENESS_BUCKETS; b++) {
			d = after.counters.lateness[b] -
			    before.counters.lateness[b];
			KUNIT_EXPECT_EQ_MSG(test, d, b == cases[i].bucket,
					    "%llu ns, bucket %u", cases[i].ns,
					    b);
		}
	}
}
#endif

/* --- the timer base --- */

#define CLOCK_GRAN	1000		/* ns per tick */
#define CLOCK_HORIZON	BIT(20)		/* ticks: about a second */

struct clock_timer {
	struct timeq_timer	timer;
	struct timeq_base	*base;
	struct completion	*done;
	atomic_t		*left;
	atomic_t		*early;
	int			fired;
	int			rearm;	/* times the callback re-arms itself */
};

static void clock_fn(struct timeq_timer *timer)
{
	struct clock_timer *ct = container_of(timer, struct clock_timer, timer);
	u64 due = timeq_node_time(&timer->node) * CLOCK_GRAN;

	if (ktime_get_ns() < due)
		atomic_inc(ct->early);
	ct->fired++;
	if (ct->rearm) {
		ct->rearm--;
		if (ct->fired == 20)
			complete(ct->done);
		/* Refused with -ESHUTDOWN once the test shuts it down. */
		timeq_timer_arm(ct->base, timer, timeq_base_ticks(ct->base));
		return;
	}
	if (atomic_dec_and_test(ct->left))
		complete(ct->done);
}

/*
 * A timer base, destroyed when the test ends. Allocate the test's timers
 * first: KUnit releases in reverse, so the base goes before them.
 */
static struct timeq_base *clock_base(struct kunit *test)
{
	struct timeq_base *base =
		timeq_base_create(CLOCK_GRAN, CLOCK_HORIZON, 0, 0, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, destroy_base, base), 0);
	return base;
}

/*
 * @n timers, half armed by the slow side and half by the fast path, at
 * times in [from, from + @spread) from one tick: however slowly the host
 * arms them, and however far the expiry lags, they stay in the window.
 */
static void clock_run(struct kunit *test, unsigned int n, u64 spread)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(n), early = ATOMIC_INIT(0);
	struct timeq_base *base;
	struct clock_timer *ct;
	struct tq_snapshot s;
	struct timeq *q;
	unsigned int i;
	u64 t, from, late;

	ct = kunit_kcalloc(test, n, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ct);
	base = clock_base(test);
	q = tq_base_queue(base);
	from = timeq_base_ticks(base);
	for (i = 0; i < n; i++) {
		timeq_timer_init(&ct[i].timer, clock_fn);
		ct[i].base = base;
		ct[i].done = &done;
		ct[i].left = &left;
		ct[i].early = &early;
		t = from + (spread ? get_random_u64() % spread : 0);
		if (i % 2)
			KUNIT_EXPECT_EQ(test,
					timeq_timer_arm(base, &ct[i].timer, t),
					0);
		else
			KUNIT_EXPECT_GE(test,
					base_fast_update(base, &ct[i].timer, t),
					0);
	}
	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	/* The last callback runs in the expiry work, which counts as it ends. */
	settle(base);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, ct[i].fired, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&early), 0);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	/* Each expired once, and its lateness was counted once. */
	tq_stats_snapshot(q, &s);
	for (i = 0, late = 0; i < TIMEQ_LATENESS_BUCKETS; i++)
		late += s.counters.lateness[i];
	KUNIT_EXPECT_EQ(test, s.counters.expired, n);
	KUNIT_EXPECT_EQ(test, late, n);
	KUNIT_EXPECT_GE(test, s.counters.expiry_runs, 1);
	kunit_info(test, "%u timers over %llu us: every one fired once, none early\n",
		   n, spread * CLOCK_GRAN / 1000);
}

static void paths_test_clock_never_early(struct kunit *test)
{
	clock_run(test, 400, 50 * 1000);	/* 50 ms */
}

static void paths_test_clock_storm(struct kunit *test)
{
	clock_run(test, 2000, 0);	/* all due at once: 31 budgets' worth */
}

/*
 * One timer of clock_fn, reporting to @done, @left and @early, and its
 * base, made second so that it is destroyed first.
 */
static struct clock_timer *clock_timer_new(struct kunit *test,
					   struct completion *done,
					   atomic_t *left, atomic_t *early)
{
	struct clock_timer *ct = kunit_kzalloc(test, sizeof(*ct), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ct);
	timeq_timer_init(&ct->timer, clock_fn);
	ct->base = clock_base(test);
	ct->done = done;
	ct->left = left;
	ct->early = early;
	return ct;
}

/*
 * A run that spends its whole budget (64, the default) with the next timer
 * not yet due must still leave the hrtimer armed for it.
 */
static void paths_test_clock_budget_edge(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(65), early = ATOMIC_INIT(0);
	struct timeq_base *base;
	struct clock_timer *ct;
	unsigned int i;
	u64 t;

	ct = kunit_kcalloc(test, 65, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ct);
	base = clock_base(test);
	/* 64 due together 20 ms from now, one 20 ms after them. */
	t = timeq_base_ticks(base) + 20000;
	for (i = 0; i < 65; i++) {
		timeq_timer_init(&ct[i].timer, clock_fn);
		ct[i].base = base;
		ct[i].done = &done;
		ct[i].left = &left;
		ct[i].early = &early;
		KUNIT_ASSERT_EQ(test,
				timeq_timer_arm(base, &ct[i].timer,
						i < 64 ? t : t + 20000),
				0);
	}
	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	for (i = 0; i < 65; i++)
		KUNIT_EXPECT_EQ(test, ct[i].fired, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&early), 0);
}

#ifdef __KERNEL__
/*
 * timeq_expire() against the work needs the two to run at once, and real
 * time to pass while the test calls it: the kernel's.
 */

/* What the callbacks of paths_test_clock_expire() saw. */
struct order_log {
	struct task_struct	*task;		/* the test's */
	atomic_t		inside;		/* callbacks running now */
	atomic_t		fired;
	atomic_t		overlap;	/* ran beside another */
	atomic_t		disorder;	/* ran before an earlier timer */
	atomic_t		early;
	atomic_t		mine;		/* ran in the test's task */
	u64			last_time;
	unsigned int		last_index;
};

struct order_timer {
	struct timeq_timer	timer;
	struct order_log	*log;
	unsigned int		index;		/* order of arming */
};

static void order_fn(struct timeq_timer *timer)
{
	struct order_timer *ot = container_of(timer, struct order_timer, timer);
	struct order_log *log = ot->log;
	u64 time = timeq_node_time(&timer->node);
	u64 last = READ_ONCE(log->last_time);

	if (atomic_inc_return(&log->inside) != 1)
		atomic_inc(&log->overlap);
	if (time < last ||
	    (time == last && ot->index < READ_ONCE(log->last_index)))
		atomic_inc(&log->disorder);
	WRITE_ONCE(log->last_time, time);
	WRITE_ONCE(log->last_index, ot->index);
	if (ktime_get_ns() < time * CLOCK_GRAN)
		atomic_inc(&log->early);
	if (current == log->task)
		atomic_inc(&log->mine);
	atomic_dec(&log->inside);
	atomic_inc(&log->fired);
}

/*
 * timeq_expire() against the base's own work: 2000 timers coming due
 * over 20 ms, many sharing a tick, while this thread calls timeq_expire()
 * until the last is due, then once more. The two take turns: no callback
 * runs beside another, all run in time order and in arming order within a
 * tick, none early; the callbacks run in this thread are the ones
 * timeq_expire() counted; and once the last call returns, every callback
 * has completed, since all were due when it began.
 */
static void paths_test_clock_expire(struct kunit *test)
{
	const unsigned int n = 2000;
	struct order_log log = { .task = current };
	unsigned long expired = 0;
	struct timeq_base *base;
	struct order_timer *ot;
	struct tq_snapshot s;
	struct timeq *q;
	unsigned int i;
	u64 from, last = 0, t;

	ot = kunit_kcalloc(test, n, sizeof(*ot), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ot);
	base = clock_base(test);
	q = tq_base_queue(base);
	from = timeq_base_ticks(base);
	for (i = 0; i < n; i++) {
		timeq_timer_init(&ot[i].timer, order_fn);
		ot[i].log = &log;
		ot[i].index = i;
		t = from + (get_random_u32() % 200) * 100;	/* 20 ms */
		last = max(last, t);
		KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &ot[i].timer, t),
				0);
	}
	while (timeq_base_ticks(base) <= last)
		expired += timeq_expire(base);
	expired += timeq_expire(base);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.fired), n);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
	KUNIT_EXPECT_EQ(test, expired, atomic_read(&log.mine));
	KUNIT_EXPECT_EQ(test, atomic_read(&log.overlap), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.disorder), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.early), 0);
	settle(base);
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.expired, n);
	kunit_info(test, "%lu of %u timers expired by timeq_expire(), the rest by the work\n",
		   expired, n);
}
#endif

static void paths_test_clock_shutdown(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(1), early = ATOMIC_INIT(0);
	struct clock_timer *ct = clock_timer_new(test, &done, &left, &early);
	struct timeq_base *base = ct->base;

	ct->rearm = INT_MAX;	/* re-arms itself for the current tick, forever */
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &ct->timer,
					      timeq_base_ticks(base)), 0);
	/* It has fired 20 times and re-armed itself each time. */
	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	timeq_shutdown_sync(base, &ct->timer);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&ct->timer.node));
	KUNIT_EXPECT_FALSE(test, test_bit(TQ_TIMER_PENDING, &ct->timer.flags));
	KUNIT_EXPECT_EQ(test, timeq_count(tq_base_queue(base)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&early), 0);
	KUNIT_EXPECT_EQ(test, timeq_timer_arm(base, &ct->timer,
					      timeq_base_ticks(base)),
			-ESHUTDOWN);
}

/* The hrtimer is armed only while the base holds a timer. */
static void paths_test_clock_idle(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(1), early = ATOMIC_INIT(0);
	struct clock_timer *ct = clock_timer_new(test, &done, &left, &early);
	struct timeq_base *base = ct->base;

	KUNIT_EXPECT_FALSE(test, tq_clock_armed(base));
	/* Half a second ahead: armed; disarmed when the timer is deleted. */
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &ct->timer,
					      timeq_base_ticks(base) +
					      CLOCK_HORIZON / 2), 0);
	KUNIT_EXPECT_TRUE(test, tq_clock_armed(base));
	KUNIT_EXPECT_EQ(test, timeq_timer_delete(base, &ct->timer), 1);
	KUNIT_EXPECT_FALSE(test, tq_clock_armed(base));
	/* Due at once: it fires, and the hrtimer is left idle. */
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &ct->timer,
					      timeq_base_ticks(base)), 0);
	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	settle(base);
	KUNIT_EXPECT_FALSE(test, tq_clock_armed(base));
	KUNIT_EXPECT_EQ(test, ct->fired, 1);
}

/*
 * Destroying a timer base that still holds timers, one of them with a
 * request pending, releases them all without running a callback; they can
 * then be armed in another base.
 */
static void paths_test_clock_destroy(struct kunit *test)
{
	struct timeq_base *base =
		timeq_base_create(CLOCK_GRAN, CLOCK_HORIZON, 0, 0, GFP_KERNEL);
	atomic_t left = ATOMIC_INIT(3), early = ATOMIC_INIT(0);
	struct timeq_base *other;
	struct clock_timer *ct;
	struct timeq *q;
	unsigned int i;
	u64 far;

	skip_unless_smp_locks(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	q = tq_base_queue(base);
	ct = kunit_kcalloc(test, 3, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ct);
	other = clock_base(test);
	far = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	for (i = 0; i < 3; i++) {
		timeq_timer_init(&ct[i].timer, clock_fn);
		ct[i].left = &left;
		ct[i].early = &early;
		KUNIT_EXPECT_EQ(test,
				timeq_timer_arm(base, &ct[i].timer, far + i),
				0);
	}
	/* The work item waits for head_lock: the request stays pending. */
	spin_lock_bh(&q->head_lock);
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &ct[0].timer, far - 9),
			TIMEQ_DEFERRED);
	spin_unlock_bh(&q->head_lock);
	timeq_base_destroy(base);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_FALSE(test, timeq_node_queued(&ct[i].timer.node));
		KUNIT_EXPECT_FALSE(test, test_bit(TQ_TIMER_PENDING,
						  &ct[i].timer.flags));
		KUNIT_EXPECT_EQ(test, ct[i].fired, 0);
		KUNIT_EXPECT_EQ(test,
				timeq_timer_arm(other, &ct[i].timer,
						timeq_base_ticks(other) +
							CLOCK_HORIZON / 2),
				0);
		KUNIT_EXPECT_EQ(test, timeq_delete_sync(other, &ct[i].timer), 1);
	}
}

#ifdef __KERNEL__
/*
 * A destroy with a callback running needs the callback in a kthread (the
 * work) while the test destroys: the kernel's.
 */

/*
 * A timer whose callback holds the work until timeq_base_destroy() begins
 * on @base.
 */
struct blocking_timer {
	struct timeq_timer	timer;
	struct timeq_base	*base;
	struct completion	entered;
	bool			saw_stop;
};

static void blocking_fn(struct timeq_timer *timer)
{
	struct blocking_timer *bt;
	unsigned long end = jiffies + 60 * HZ;

	bt = container_of(timer, struct blocking_timer, timer);
	complete(&bt->entered);
	/* A wait for a state, bounded only so that a failure cannot hang. */
	while (!tq_clock_stopping(bt->base) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	bt->saw_stop = tq_clock_stopping(bt->base);
}

/*
 * Destroying a timer base while its work runs a callback and fast-path
 * requests wait behind it: the callback blocks the work until the destroy
 * has begun, so the requests, handed off while head_lock is held, are
 * still pending when it begins, deterministically. The destroy waits for
 * the callback, drops the requests, and the timers come out released.
 */
static void paths_test_clock_destroy_in_flight(struct kunit *test)
{
	struct timeq_timer *t = kunit_kcalloc(test, 3, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base, *other;
	struct blocking_timer *bt;
	struct timeq *q;
	unsigned int i;
	u64 far, later;

	skip_unless_smp_locks(test);
	bt = kunit_kzalloc(test, sizeof(*bt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bt);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	other = clock_base(test);
	base = timeq_base_create(CLOCK_GRAN, CLOCK_HORIZON, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	q = tq_base_queue(base);
	timeq_timer_init(&bt->timer, blocking_fn);
	bt->base = base;
	init_completion(&bt->entered);
	KUNIT_EXPECT_EQ(test, timeq_timer_arm(base, &bt->timer,
					      timeq_base_ticks(base)), 0);
	if (!wait_for_completion_timeout(&bt->entered, 30 * HZ)) {
		timeq_base_destroy(base);
		KUNIT_FAIL(test, "the callback did not run in 30 s");
		return;
	}
	far = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	spin_lock_bh(&q->head_lock);
	for (i = 0; i < 3; i++) {
		timeq_timer_init(&t[i], NULL);
		KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[i], far + i),
				TIMEQ_DEFERRED);
	}
	spin_unlock_bh(&q->head_lock);
	/* Only the work applies them, and it is in the callback. */
	KUNIT_EXPECT_FALSE(test, llist_empty(&base->handoffs));
	timeq_base_destroy(base);
	KUNIT_EXPECT_TRUE(test, bt->saw_stop);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&bt->timer.node));
	later = timeq_base_ticks(other) + CLOCK_HORIZON / 2;
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_FALSE(test, timeq_node_queued(&t[i].node));
		KUNIT_EXPECT_FALSE(test,
				   test_bit(TQ_TIMER_PENDING, &t[i].flags));
		KUNIT_EXPECT_EQ(test, timeq_timer_arm(other, &t[i], later), 0);
		KUNIT_EXPECT_EQ(test, timeq_delete_sync(other, &t[i]), 1);
	}
}
#endif

/* A timer whose callback expires another base (paths_test_expire_other()). */
struct expire_other {
	struct timeq_timer	timer;
	struct timeq_base	*other;
	unsigned int		ran;
	unsigned long		expired;
};

static void expire_other_fn(struct timeq_timer *timer)
{
	struct expire_other *eo =
		container_of(timer, struct expire_other, timer);

	eo->ran++;
	eo->expired = timeq_expire(eo->other);
}

/*
 * A callback of one base may expire another (timeq_expire() is forbidden
 * from a callback of its own base only): each base's expiry mutex is a
 * lock class of its own, so lockdep (in the debug kernel) sees no
 * recursion. The other base is empty, so the call expires none however
 * long the host takes.
 */
static void paths_test_expire_other(struct kunit *test)
{
	struct expire_other *eo = kunit_kzalloc(test, sizeof(*eo), GFP_KERNEL);
	struct timeq_base *a, *b;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eo);
	a = clock_base(test);
	b = clock_base(test);
	eo->other = b;
	timeq_timer_init(&eo->timer, expire_other_fn);
	KUNIT_ASSERT_EQ(test,
			timeq_timer_arm(a, &eo->timer, timeq_base_ticks(a)), 0);
	/* Here, or on a's work first: either way the callback has run. */
	timeq_expire(a);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(a, &eo->timer), 0);
	KUNIT_EXPECT_EQ(test, eo->ran, 1);
	KUNIT_EXPECT_EQ(test, eo->expired, 0);
}

/*
 * The fast path reaches no lock it does not try: with interrupts off on
 * this CPU it neither re-arms the hrtimer nor queues the work; both wait
 * for the irq_work of the base's queue, which runs once interrupts are
 * back on.
 */
static void paths_test_fast_no_hrtimer(struct kunit *test)
{
	struct timeq_timer *t = kunit_kcalloc(test, 2, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base;
	u64 late, soon, armed;
	int ret, deferred;
	struct timeq *q;
	bool queued;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	q = tq_base_queue(base);
	timeq_timer_init(&t[0], NULL);
	timeq_timer_init(&t[1], NULL);
	late = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &t[0], late), 0);
	KUNIT_ASSERT_EQ(test, tq_clock_armed_at(base), late);
	soon = late - CLOCK_HORIZON / 4;

	/* An earlier minimum, applied in place (the cross lane). */
	local_bh_disable();
	local_irq_disable();
	ret = timeq_fast_update(base, &t[1], soon);
	armed = tq_clock_armed_at(base);
	local_irq_enable();
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, ret, TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, armed, late);
	irq_work_sync(&base->kick);
	KUNIT_EXPECT_EQ(test, tq_clock_armed_at(base), soon);

	/*
	 * A deferred update (head_lock taken): no work queued yet. It stages
	 * another CPU's lock (skip_unless_smp_locks()).
	 */
	if (!IS_ENABLED(CONFIG_SMP))
		goto out;
	local_bh_disable();
	spin_lock(&q->head_lock);
	local_irq_disable();
	deferred = timeq_fast_update(base, &t[1], soon - 1);
	queued = work_pending(&base->work);
	local_irq_enable();
	spin_unlock(&q->head_lock);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, deferred, TIMEQ_DEFERRED);
	KUNIT_EXPECT_FALSE(test, queued);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t[1].node), soon - 1);
out:
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[0]), 1);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[1]), 1);
}

/*
 * A timer base left idle longer than its horizon still takes a fast
 * update for CLOCK_MONOTONIC plus a little: the window is judged by the
 * real clock, the slow path catches the clock of the base's queue up, and
 * later fast updates are applied in place again.
 */
static void paths_test_clock_stale(struct kunit *test)
{
	struct timeq_timer *t = kunit_kcalloc(test, 2, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base;
	struct timeq *q;
	u64 start;
	int ret;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	q = tq_base_queue(base);
	timeq_timer_init(&t[0], NULL);
	timeq_timer_init(&t[1], NULL);
	start = timeq_now(q);
	/* Let the real clock run past the queue's window. */
	while (timeq_base_ticks(base) < start + CLOCK_HORIZON + 1000)
		msleep(100);
	ret = base_fast_update(base, &t[0],
			       timeq_base_ticks(base) + CLOCK_HORIZON / 2);
	KUNIT_EXPECT_GE(test, ret, 0);
	settle(base);
	KUNIT_EXPECT_TRUE(test, timeq_node_queued(&t[0].node));
	KUNIT_EXPECT_GE(test, timeq_now(q), start + CLOCK_HORIZON);
	/* The clock is current again: a near update applies in place. */
	ret = base_fast_update(base, &t[1],
			       timeq_base_ticks(base) + CLOCK_HORIZON / 4);
	KUNIT_EXPECT_EQ(test, ret, TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[0]), 1);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[1]), 1);
}

/*
 * After an expiry, a timer armed for the current tick keeps that tick: the
 * base's clock never runs ahead of CLOCK_MONOTONIC. Ticks of 100 ms make
 * "the same tick" easy to hold; a call that straddles a tick is retried.
 */
#define COARSE_GRAN	(100 * NSEC_PER_MSEC)

struct done_timer {
	struct timeq_timer	timer;
	struct completion	done;
};

static void done_fn(struct timeq_timer *timer)
{
	complete(&container_of(timer, struct done_timer, timer)->done);
}

static void paths_test_clock_tick_exact(struct kunit *test)
{
	struct done_timer *dt = kunit_kzalloc(test, sizeof(*dt), GFP_KERNEL);
	struct timeq_timer *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base;
	unsigned int tries;
	u64 tick;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dt);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = timeq_base_create(COARSE_GRAN, 1 << 10, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, destroy_base, base), 0);
	timeq_timer_init(t, NULL);
	for (tries = 0; tries < 20; tries++) {
		tick = timeq_base_ticks(base);
		/* An expiry at this tick... */
		timeq_timer_init(&dt->timer, done_fn);
		init_completion(&dt->done);
		KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &dt->timer, tick),
				0);
		KUNIT_ASSERT_TRUE(test, run_until(base, &dt->done));
		timeq_delete_sync(base, &dt->timer);
		/* ...then an arm for the same tick, if it is still current. */
		KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, t, tick), 0);
		if (timeq_base_ticks(base) == tick)
			break;
		timeq_delete_sync(base, t);
	}
	KUNIT_EXPECT_LT(test, tries, 20);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t->node), tick);
	timeq_delete_sync(base, t);
}

/*
 * Refresh by a store (module/fast.c): timers armed at one time and moved
 * later by the fast path are each moved by a store alone, with no lock
 * and no hand-off, and stay filed at their old time; when it comes they
 * are filed again, and each fires once, never before the time stored.
 * They fire after a timer the slow side armed at that time before they
 * were filed again, and in the order of their old times, not of the
 * stores (the order fast.c promises among equal times).
 */
#define STORE_TIMERS	16
#define STORE_LATER	1000	/* ticks: 1 ms */

struct store_timer {
	struct timeq_timer	timer;
	u64			want;	/* the time stored */
	unsigned int		*next;	/* the next place to fire in */
	unsigned int		place;
	int			fired;
	bool			early;
	atomic_t		*left;
	struct completion	*done;
};

static void store_fn(struct timeq_timer *timer)
{
	struct store_timer *st = container_of(timer, struct store_timer, timer);

	if (ktime_get_ns() < st->want * CLOCK_GRAN)
		st->early = true;
	st->place = (*st->next)++;
	st->fired++;
	if (atomic_dec_and_test(st->left))
		complete(st->done);
}

/* timeq_timer_store() with interrupts off, a context it allows. */
static bool irq_store(struct timeq_timer *timer, u64 time)
{
	unsigned long flags;
	bool ret;

	local_irq_save(flags);
	ret = timeq_timer_store(timer, time);
	local_irq_restore(flags);
	return ret;
}

static void paths_test_store_refresh(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(STORE_TIMERS + 1);
	struct store_timer *st, *slow;
	struct timeq_fast_stats fs;
	struct timeq_base *base;
	unsigned int i, next = 0;
	struct tq_snapshot s;
	u64 old, later, why;
	struct timeq *q;

	skip_unless_stores(test);
	st = kunit_kcalloc(test, STORE_TIMERS + 1, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, st);
	base = clock_base(test);
	q = tq_base_queue(base);
	/* Half a horizon ahead: the stores land long before it comes. */
	old = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	later = old + STORE_LATER;
	for (i = 0; i <= STORE_TIMERS; i++) {
		timeq_timer_init(&st[i].timer, store_fn);
		st[i].want = later;
		st[i].next = &next;
		st[i].left = &left;
		st[i].done = &done;
	}
	for (i = 0; i < STORE_TIMERS; i++)
		KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &st[i].timer, old),
				0);
	/* Half by the fast path, half by the store alone. */
	for (i = STORE_TIMERS; i--;) {
		if (i & 1)
			KUNIT_EXPECT_TRUE(test, irq_store(&st[i].timer, later));
		else
			KUNIT_EXPECT_EQ(test,
					base_fast_update(base, &st[i].timer,
							 later),
					TIMEQ_APPLIED);
		KUNIT_EXPECT_EQ(test, timeq_node_time(&st[i].timer.node), old);
		KUNIT_EXPECT_EQ(test, timeq_timer_expires(&st[i].timer), later);
	}
	slow = &st[STORE_TIMERS];
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &slow->timer, later), 0);
	/* timeq_timer_store() counts nothing. */
	timeq_get_fast_stats(base, &fs);
	KUNIT_EXPECT_EQ(test, fs.stored, STORE_TIMERS / 2);
	KUNIT_EXPECT_EQ(test, fs.applied, STORE_TIMERS / 2);
	for (i = 0, why = 0; i < TIMEQ_DEFER_REASONS; i++)
		why += fs.deferred[i];
	KUNIT_EXPECT_EQ(test, why, 0);

	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	settle(base);
	KUNIT_EXPECT_EQ(test, slow->fired, 1);
	KUNIT_EXPECT_EQ(test, slow->place, 0);
	for (i = 0; i < STORE_TIMERS; i++) {
		KUNIT_EXPECT_EQ(test, st[i].fired, 1);
		KUNIT_EXPECT_FALSE(test, st[i].early);
		KUNIT_EXPECT_EQ(test, st[i].place, i + 1);
	}
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.handoffs, 0);
	KUNIT_EXPECT_EQ(test, s.counters.refiled, STORE_TIMERS);
	KUNIT_EXPECT_EQ(test, s.counters.expired, STORE_TIMERS + 1);
	KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
}

/*
 * What a store takes: a later time, or the same (a no-op), for an armed
 * timer. What it leaves to the lanes, which behave as before stores: an
 * earlier time, a timer not armed, one deleted. A time beyond the window
 * is refused. @t[1], the earliest, keeps @t[0] off the minimum, which the
 * lanes would hand off when it moves in the far region.
 */
static void paths_test_store_refused(struct kunit *test)
{
	struct timeq_timer *t = kunit_kcalloc(test, 2, sizeof(*t), GFP_KERNEL);
	struct timeq_fast_stats fs;
	struct timeq_base *base;
	u64 at;

	skip_unless_stores(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	timeq_timer_init(&t[0], NULL);
	timeq_timer_init(&t[1], NULL);
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &t[1], at - 100), 0);
	/* Not armed: the lanes arm it. */
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[0], at), TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t[0].node), at);
	/* Later, then the same: stores. */
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[0], at + 9),
			TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[0], at + 9),
			TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t[0].node), at);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&t[0]), at + 9);
	/* Earlier: the lanes move the node, and the word with it. */
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[0], at + 5),
			TIMEQ_APPLIED);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t[0].node), at + 5);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&t[0]), at + 5);
	/* Beyond the window: refused, nothing changes. */
	KUNIT_EXPECT_EQ(test,
			base_fast_update(base, &t[0], at + 4 * CLOCK_HORIZON),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&t[0]), at + 5);
	/* Deleted: a later time arms it again, by the lanes. */
	KUNIT_EXPECT_EQ(test, timeq_timer_delete(base, &t[0]), 1);
	KUNIT_EXPECT_EQ(test, base_fast_update(base, &t[0], at + 7),
			TIMEQ_APPLIED);
	KUNIT_EXPECT_TRUE(test, timeq_node_queued(&t[0].node));
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t[0].node), at + 7);
	timeq_get_fast_stats(base, &fs);
	KUNIT_EXPECT_EQ(test, fs.stored, 2);
	KUNIT_EXPECT_EQ(test, fs.applied, 5);
	KUNIT_EXPECT_EQ(test, fs.refused, 1);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[0]), 1);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[1]), 1);
}

/*
 * timeq_timer_store() lands on an armed timer's word; for a time no
 * later than the timer's, it writes nothing but says the timer expires
 * that late; it changes nothing for a timer not armed or deleted, or a
 * time the word cannot hold. timeq_timer_move() leaves a timer armed in
 * another base alone. It counts nothing.
 */
static void paths_test_store_alone(struct kunit *test)
{
	struct timeq_timer *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base, *other;
	struct timeq_fast_stats fs;
	u64 at;

	skip_unless_stores(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	other = clock_base(test);
	timeq_timer_init(t, NULL);
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	KUNIT_EXPECT_FALSE(test, irq_store(t, at));
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&t->node));
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, t, at), 0);
	/* Later, then the same, then earlier: the node where it was. */
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 9));
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 9));
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 5));
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t->node), at);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 9);
	KUNIT_EXPECT_FALSE(test, irq_store(t, TIMEQ_EXPIRES_TIME + 1));
	KUNIT_EXPECT_EQ(test, timeq_timer_move(other, t, at + 12), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t->node), at);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 9);
	KUNIT_EXPECT_EQ(test, timeq_timer_delete(base, t), 1);
	KUNIT_EXPECT_FALSE(test, irq_store(t, at + 20));
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&t->node));
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 9);
	timeq_get_fast_stats(base, &fs);
	KUNIT_EXPECT_EQ(test, fs.stored, 0);
	KUNIT_EXPECT_EQ(test, fs.applied, 0);
	KUNIT_EXPECT_EQ(test, fs.refused, 0);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, t), 0);
}

/*
 * timeq_timer_store() does not read the base's clock: a time beyond the
 * window is filed, when the timer's older time comes, at the window's
 * last tick, and again from there (or at once at the time stored, if the
 * expiry lagged by the difference), and the callback runs once, at the
 * time stored, never before.
 */
static void paths_test_store_beyond(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct store_timer *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	atomic_t left = ATOMIC_INIT(1);
	unsigned int next = 0;
	struct timeq_base *base;
	struct tq_snapshot s;
	u64 at;

	skip_unless_stores(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, st);
	base = clock_base(test);
	timeq_timer_init(&st->timer, store_fn);
	st->next = &next;
	st->left = &left;
	st->done = &done;
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 8;
	st->want = at + CLOCK_HORIZON + CLOCK_HORIZON / 8;
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &st->timer, at), 0);
	KUNIT_EXPECT_TRUE(test, irq_store(&st->timer, st->want));
	KUNIT_EXPECT_EQ(test, timeq_node_time(&st->timer.node), at);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(&st->timer), st->want);
	KUNIT_ASSERT_TRUE(test, run_until(base, &done));
	settle(base);
	KUNIT_EXPECT_EQ(test, st->fired, 1);
	KUNIT_EXPECT_FALSE(test, st->early);
	tq_stats_snapshot(tq_base_queue(base), &s);
	KUNIT_EXPECT_GE(test, s.counters.refiled, 1);
	KUNIT_EXPECT_LE(test, s.counters.refiled, 2);
	KUNIT_EXPECT_EQ(test, s.counters.expired, 1);
}

/*
 * timeq_base_destroy() closes the words of the timers it releases: a
 * store on one afterwards changes nothing, and the timer keeps its time
 * until it is armed again, elsewhere.
 */
static void paths_test_store_destroyed(struct kunit *test)
{
	struct timeq_timer *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct timeq_base *base, *other;
	u64 at;
	int ret;

	skip_unless_stores(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	other = clock_base(test);
	base = timeq_base_create(CLOCK_GRAN, CLOCK_HORIZON, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, base);
	timeq_timer_init(t, NULL);
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	ret = timeq_timer_arm(base, t, at);
	if (ret)
		timeq_base_destroy(base);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 9));
	timeq_base_destroy(base);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&t->node));
	KUNIT_EXPECT_FALSE(test, irq_store(t, at + 20));
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 9);
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(other, t, at), 0);
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 20));
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 20);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(other, t), 1);
}

/*
 * A move earlier that finds bucket_lock taken is handed off; while it
 * waits, timeq_timer_store() lands nothing, and the request is applied as
 * asked.
 */
static void paths_test_store_pending(struct kunit *test)
{
	struct timeq_timer *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct timeq_fast_stats fs;
	struct timeq_base *base;
	struct timeq *q;
	u64 at;

	skip_unless_stores(test);
	skip_unless_smp_locks(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	q = tq_base_queue(base);
	timeq_timer_init(t, NULL);
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, t, at), 0);
	KUNIT_EXPECT_TRUE(test, irq_store(t, at + 9));
	spin_lock_bh(&q->bucket_lock);
	KUNIT_EXPECT_EQ(test, base_fast_update(base, t, at + 3),
			TIMEQ_DEFERRED);
	KUNIT_EXPECT_FALSE(test, irq_store(t, at + 30));
	spin_unlock_bh(&q->bucket_lock);
	settle(base);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&t->node), at + 3);
	KUNIT_EXPECT_EQ(test, timeq_timer_expires(t), at + 3);
	timeq_get_fast_stats(base, &fs);
	KUNIT_EXPECT_EQ(test, fs.stored, 0);
	KUNIT_EXPECT_EQ(test, fs.deferred[TIMEQ_DEFER_CONTENDED], 1);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, t), 1);
}

/*
 * timeq_timer_move() to a later time is a store too, and what reads a
 * base's earliest timer by the time it expires at (tq_clock_first(), for
 * TIMEQ_MIN) files the timers at the head that stores moved: more of them
 * than a lock hold's budget, so with a door between holds.
 */
#define FIRST_STALE	(3 * TIMEQ_HOLD)

static void paths_test_store_first(struct kunit *test)
{
	struct timeq_timer *t;
	struct timeq_base *base;
	struct tq_snapshot s;
	struct timeq *q;
	unsigned int i;
	u64 at;

	skip_unless_stores(test);
	t = kunit_kcalloc(test, FIRST_STALE + 1, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	base = clock_base(test);
	q = tq_base_queue(base);
	at = timeq_base_ticks(base) + CLOCK_HORIZON / 2;
	for (i = 0; i <= FIRST_STALE; i++) {
		timeq_timer_init(&t[i], NULL);
		KUNIT_ASSERT_EQ(test,
				timeq_timer_arm(base, &t[i],
						i < FIRST_STALE ? at : at + 50),
				0);
	}
	for (i = 0; i < FIRST_STALE; i++) {
		KUNIT_EXPECT_EQ(test,
				timeq_timer_move(base, &t[i], at + 100 + i), 0);
		KUNIT_EXPECT_EQ(test, timeq_node_time(&t[i].node), at);
	}
	KUNIT_EXPECT_PTR_EQ(test, timeq_first(q), &t[0].node);
	KUNIT_EXPECT_PTR_EQ(test, tq_clock_first(base), &t[FIRST_STALE].node);
	for (i = 0; i < FIRST_STALE; i++)
		KUNIT_EXPECT_EQ(test, timeq_node_time(&t[i].node),
				at + 100 + i);
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.refiled, FIRST_STALE);
	KUNIT_EXPECT_LE(test, s.max_visits, TIMEQ_HOLD);
	check(test, base);
	/* Nothing stale is left: the same answer, no more filings. */
	KUNIT_EXPECT_PTR_EQ(test, tq_clock_first(base), &t[FIRST_STALE].node);
	tq_stats_snapshot(q, &s);
	KUNIT_EXPECT_EQ(test, s.counters.refiled, FIRST_STALE);
	for (i = 0; i <= FIRST_STALE; i++)
		KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &t[i]), 1);
}

#ifdef __KERNEL__
/*
 * The rest needs the kernel: real lateness (lateness.c), tasklets on one
 * CPU, a callback that sleeps in the work while delete_sync waits, and
 * softirqs on every CPU (tools/testing/queue/stress_paths.c is the
 * userspace stress).
 */

/*
 * A callback that runs more than the horizon late, with due timers still
 * queued behind it, arms its timer for the current tick plus a time-out:
 * the base makes room in its window (tq_clock_make_room()). It is what
 * flowtrack's flow_arm_slow() does when a flow was refreshed while its
 * timer expired, and it must not be left with no timer. @blocker's
 * callback holds the expiry until the clock is past the horizon; @flow's
 * callback then runs late, before @behind's.
 */
#define LATE_GRAN	NSEC_PER_MSEC
#define LATE_HORIZON	64
#define LATE_TIMEOUT	(LATE_HORIZON / 2)
#define LATE_BEHIND	4

struct late_rearm {
	struct timeq_base	*base;
	struct timeq_timer	blocker, flow, behind[LATE_BEHIND];
	struct completion	started, release, done;
	int			ret;
	bool			armed;
	u64			lag;
};

static void late_blocker_fn(struct timeq_timer *timer)
{
	struct late_rearm *lr = container_of(timer, struct late_rearm, blocker);

	complete(&lr->started);
	wait_for_completion(&lr->release);
}

static void late_flow_fn(struct timeq_timer *timer)
{
	struct late_rearm *lr = container_of(timer, struct late_rearm, flow);
	u64 tick = timeq_base_ticks(lr->base);

	lr->lag = tick - timeq_node_time(&timer->node);
	lr->ret = timeq_timer_arm(lr->base, timer, tick + LATE_TIMEOUT);
	lr->armed = timeq_node_queued(&timer->node);
	complete(&lr->done);
}

static void late_behind_fn(struct timeq_timer *timer)
{
}

/*
 * A timer base whose expiry @blocker's callback holds: @flow, with
 * @flow_fn, armed a tick after @blocker if @arm_flow, and the timers
 * behind armed a tick after that. Returns once the clock has run past the
 * window of the last of them, as filed: on a slow host the clock may have
 * passed the time asked for before the arm, which then takes the clock.
 */
static struct late_rearm *late_start(struct kunit *test, timeq_timer_fn flow_fn,
				     bool arm_flow)
{
	struct late_rearm *lr = kunit_kzalloc(test, sizeof(*lr), GFP_KERNEL);
	unsigned long end;
	unsigned int i;
	u64 tick, last;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lr);
	lr->base = timeq_base_create(LATE_GRAN, LATE_HORIZON, 0, 0, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lr->base);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, destroy_base, lr->base),
			0);
	init_completion(&lr->started);
	init_completion(&lr->release);
	init_completion(&lr->done);
	timeq_timer_init(&lr->blocker, late_blocker_fn);
	timeq_timer_init(&lr->flow, flow_fn);
	tick = timeq_base_ticks(lr->base);
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(lr->base, &lr->blocker, tick + 1),
			0);
	if (arm_flow)
		KUNIT_ASSERT_EQ(test,
				timeq_timer_arm(lr->base, &lr->flow, tick + 2),
				0);
	last = tick + 2 + arm_flow;
	for (i = 0; i < LATE_BEHIND; i++) {
		timeq_timer_init(&lr->behind[i], late_behind_fn);
		KUNIT_ASSERT_EQ(test,
				timeq_timer_arm(lr->base, &lr->behind[i], last),
				0);
	}
	KUNIT_ASSERT_GT(test,
			wait_for_completion_timeout(&lr->started, 30 * HZ), 0);
	/* Filed in order, each at the clock if its time had passed. */
	last = timeq_node_time(&lr->behind[LATE_BEHIND - 1].node);
	/* The clock runs on past the window; the expiry is held. */
	end = jiffies + 30 * HZ;
	while (timeq_base_ticks(lr->base) <= last + LATE_HORIZON &&
	       time_before(jiffies, end))
		msleep(20);
	KUNIT_ASSERT_GT(test, timeq_base_ticks(lr->base), last + LATE_HORIZON);
	return lr;
}

static void late_stop(struct late_rearm *lr)
{
	unsigned int i;

	timeq_delete_sync(lr->base, &lr->flow);
	timeq_delete_sync(lr->base, &lr->blocker);
	for (i = 0; i < LATE_BEHIND; i++)
		timeq_delete_sync(lr->base, &lr->behind[i]);
}

static void paths_test_clock_rearm_late(struct kunit *test)
{
	struct late_rearm *lr = late_start(test, late_flow_fn, true);

	complete(&lr->release);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&lr->done, 30 * HZ),
			0);
	KUNIT_EXPECT_GT(test, lr->lag, (u64)LATE_HORIZON);
	KUNIT_EXPECT_EQ(test, lr->ret, 0);
	KUNIT_EXPECT_TRUE(test, lr->armed);
	late_stop(lr);
}

/* How many of @base's fast updates were handed off for @why, so far. */
static u64 base_deferred_for(struct timeq_base *base, unsigned int why)
{
	struct timeq_fast_stats fs;

	timeq_get_fast_stats(base, &fs);
	return fs.deferred[why];
}

/*
 * Why a timer base's fast updates are handed off while its expiry is
 * held past the horizon: a time beyond the window of its queue's clock,
 * which lags; then, once a slow-side arm has made room and left the timers
 * behind on the due list, a move of one of those to an earlier time (a
 * later one is a store: paths_test_store_refused).
 */
static void paths_test_clock_defer_reasons(struct kunit *test)
{
	struct late_rearm *lr = late_start(test, late_behind_fn, false);
	u64 now = timeq_base_ticks(lr->base);

	KUNIT_EXPECT_EQ(test,
			base_fast_update(lr->base, &lr->flow,
					 now + LATE_TIMEOUT),
			TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, base_deferred_for(lr->base, TIMEQ_DEFER_CLOCK),
			1);
	KUNIT_EXPECT_EQ(test, timeq_timer_arm(lr->base, &lr->flow,
					      now + LATE_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test,
			base_fast_update(lr->base, &lr->behind[0],
					 timeq_timer_expires(&lr->behind[0]) - 1),
			TIMEQ_DEFERRED);
	KUNIT_EXPECT_EQ(test, base_deferred_for(lr->base, TIMEQ_DEFER_DUE), 1);
	complete(&lr->release);
	late_stop(lr);
}

/*
 * How late callbacks run, armed from either side, beside the floor of an
 * hrtimer and a work item; printed. Never early is the test.
 */
static void paths_test_clock_lateness(struct kunit *test)
{
	struct lateness_run run;

	KUNIT_ASSERT_EQ(test, lateness_measure(&run, 200), 0);
	KUNIT_EXPECT_EQ(test, run.slow.early, 0);
	KUNIT_EXPECT_EQ(test, run.fast.early, 0);
	lateness_print(&run, "    # lateness: ");
}

/*
 * One CPU, every context the table allows at once: process context runs
 * the slow side and, with bottom halves off, the fast path; a tasklet on
 * the same CPU runs the fast path between them. Lockdep sees each lock
 * taken in softirq and never held with softirqs on; nothing waits forever.
 */
struct one_cpu {
	struct timeq_base	*base;
	struct timeq		*q;
	struct timeq_timer	*t;
	struct tasklet_struct	tasklet;
	unsigned long		runs, applied;
};

static void one_cpu_tasklet(struct tasklet_struct *tasklet)
{
	struct one_cpu *oc = from_tasklet(oc, tasklet, tasklet);
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (tq_fast_update(oc->base, &oc->t[i],
				   timeq_now(oc->q) + 3 * i + oc->runs % 5) ==
		    TIMEQ_APPLIED)
			oc->applied++;
	oc->runs++;
}

static void paths_test_contexts_one_cpu(struct kunit *test)
{
	struct one_cpu *oc = kunit_kzalloc(test, sizeof(*oc), GFP_KERNEL);
	unsigned int i, round;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, oc);
	oc->t = kunit_kcalloc(test, 16, sizeof(*oc->t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, oc->t);
	oc->base = test_base(test, 0, 1 << 12, 0, 0);
	oc->q = tq_base_queue(oc->base);
	for (i = 0; i < 16; i++)
		timeq_timer_init(&oc->t[i], NULL);
	tasklet_setup(&oc->tasklet, one_cpu_tasklet);
	migrate_disable();
	for (round = 0; round < 2000; round++) {
		/* The fast path in process context, the tasklet pending. */
		local_bh_disable();
		tasklet_schedule(&oc->tasklet);
		tq_fast_update(oc->base, &oc->t[8 + round % 8],
			       timeq_now(oc->q) + round % 97);
		local_bh_enable();
		/* The slow side, the tasklet pending again. */
		tasklet_schedule(&oc->tasklet);
		tq_timer_arm(oc->base, &oc->t[round % 16],
			     timeq_now(oc->q) + round % 300);
		if (round % 7 == 0)
			timeq_del_less_than(oc->q, timeq_now(oc->q) + 50, NULL, NULL);
	}
	migrate_enable();
	tasklet_kill(&oc->tasklet);
	settle(oc->base);
	check(test, oc->base);
	KUNIT_EXPECT_GT(test, oc->runs, 0);
	for (i = 0; i < 16; i++)
		tq_delete_sync(oc->base, &oc->t[i]);
	KUNIT_EXPECT_EQ(test, timeq_count(oc->q), 0);
	kunit_info(test, "%lu tasklet runs on one CPU, %lu of their updates applied in place\n",
		   oc->runs, oc->applied);
}

struct lingering_timer {
	struct timeq_timer	timer;
	struct completion	started;
	bool			finished;
};

static void lingering_fn(struct timeq_timer *timer)
{
	struct lingering_timer *lt = container_of(timer, struct lingering_timer,
						  timer);

	complete(&lt->started);
	msleep(50);
	WRITE_ONCE(lt->finished, true);
}

/* timeq_delete_sync() returns only after a running callback has. */
static void paths_test_clock_delete_sync_waits(struct kunit *test)
{
	struct lingering_timer *lt;
	struct timeq_base *base;

	lt = kunit_kzalloc(test, sizeof(*lt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lt);
	base = clock_base(test);
	timeq_timer_init(&lt->timer, lingering_fn);
	init_completion(&lt->started);
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &lt->timer,
					      timeq_base_ticks(base)), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&lt->started, 30 * HZ), 0);
	/* The callback runs for 50 ms from here; it is no longer queued. */
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(base, &lt->timer), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(lt->finished));
}

/* Skip unless lockdep is built in and still on. */
static void skip_unless_lockdep(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP) || !debug_locks)
		kunit_skip(test, "needs lockdep, on");
}

/*
 * A callback runs holding its timer's class (&struct timeq_timer), and
 * lockdep lets it run another base's callbacks of the same class
 * (timeq_expire()): [0] on base a expires base b, where [1] is due.
 */
struct class_timer {
	struct timeq_timer	timer;
	struct timeq_base	*other;
	struct class_timer	*nested;
	struct completion	done;
	unsigned long		expired;
	bool			held;
};

static void class_fn(struct timeq_timer *timer)
{
	struct class_timer *ct = container_of(timer, struct class_timer, timer);
#ifdef CONFIG_LOCKDEP
	int i;

	for (i = 0; i < current->lockdep_depth; i++)
		if (current->held_locks[i].instance->key ==
		    timer->lockdep_map.key)
			ct->held = true;
#endif
	if (ct->nested && !timeq_timer_arm(ct->other, &ct->nested->timer,
					   timeq_base_ticks(ct->other)))
		ct->expired = timeq_expire(ct->other);
	complete(&ct->done);
}

static void paths_test_clock_callback_class(struct kunit *test)
{
	struct class_timer *ct;
	struct timeq_base *a, *b;
	unsigned int i, tries;

	skip_unless_lockdep(test);
	ct = kunit_kcalloc(test, 2, sizeof(*ct), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ct);
	a = clock_base(test);
	b = clock_base(test);
	for (i = 0; i < 2; i++)
		timeq_timer_init(&ct[i].timer, class_fn);
	ct[0].other = b;
	ct[0].nested = &ct[1];
	/* Again while b's own work runs [1] before the nested expiry can. */
	for (tries = 0; tries < 20; tries++) {
		for (i = 0; i < 2; i++) {
			init_completion(&ct[i].done);
			ct[i].held = false;
		}
		ct[0].expired = 0;
		KUNIT_ASSERT_EQ(test,
				timeq_timer_arm(a, &ct[0].timer,
						timeq_base_ticks(a)),
				0);
		KUNIT_ASSERT_TRUE(test, run_until(a, &ct[0].done));
		KUNIT_ASSERT_TRUE(test, run_until(b, &ct[1].done));
		if (ct[0].expired)
			break;
	}
	KUNIT_EXPECT_LT(test, tries, 20);
	KUNIT_EXPECT_TRUE(test, ct[0].held);
	KUNIT_EXPECT_TRUE(test, ct[1].held);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(a, &ct[0].timer), 0);
	KUNIT_EXPECT_EQ(test, timeq_delete_sync(b, &ct[1].timer), 0);
}

/*
 * A refresh that meets its timer's callback running is not lost: the
 * expiry closed the timer's word when it took it, so the store fails and
 * the lanes arm the timer again, and it fires a second time, not before
 * the time given.
 */
struct gated_timer {
	struct timeq_timer	timer;
	struct completion	entered, go, again;
	int			fired;
	u64			last_ns;
};

static void gated_fn(struct timeq_timer *timer)
{
	struct gated_timer *gt = container_of(timer, struct gated_timer, timer);

	gt->last_ns = ktime_get_ns();
	if (++gt->fired == 1) {
		complete(&gt->entered);
		wait_for_completion(&gt->go);
	} else {
		complete(&gt->again);
	}
}

static void paths_test_store_vs_callback(struct kunit *test)
{
	struct gated_timer *gt = kunit_kzalloc(test, sizeof(*gt), GFP_KERNEL);
	struct timeq_fast_stats fs;
	struct timeq_base *base;
	u64 later;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gt);
	base = clock_base(test);
	timeq_timer_init(&gt->timer, gated_fn);
	init_completion(&gt->entered);
	init_completion(&gt->go);
	init_completion(&gt->again);
	KUNIT_ASSERT_EQ(test, timeq_timer_arm(base, &gt->timer,
					      timeq_base_ticks(base)), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&gt->entered, 30 * HZ),
			0);
	later = timeq_base_ticks(base) + STORE_LATER;
	KUNIT_EXPECT_GE(test, base_fast_update(base, &gt->timer, later), 0);
	timeq_get_fast_stats(base, &fs);
	KUNIT_EXPECT_EQ(test, fs.stored, 0);
	complete(&gt->go);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&gt->again, 30 * HZ),
			0);
	KUNIT_EXPECT_EQ(test, gt->fired, 2);
	KUNIT_EXPECT_GE(test, gt->last_ns, later * CLOCK_GRAN);
	timeq_delete_sync(base, &gt->timer);
}

/* --- the stress case --- */

#define STRESS_TIMERS	2048
#define STRESS_GROUP	16	/* timers freed per grace period */
#define STRESS_BATCH	32
#define STRESS_FAST	1000000UL	/* fast-path calls, at least */
#define STRESS_SECONDS	240
#define STRESS_REPLACED	(8 * STRESS_TIMERS)	/* timers replaced, at most */

struct stress;

/* A timer of the stress, freed and replaced while the paths run. */
struct stress_timer {
	struct timeq_timer	timer;
	struct stress		*s;
	unsigned long		calls;
};

/* One CPU's softirq sources; only softirqs of that CPU touch it. */
struct stress_cpu {
	struct stress		*s;
	struct hrtimer		hrtimer;
	struct tasklet_struct	tasklet;
	struct timer_list	timer;
	unsigned long		applied, deferred, refused;
	unsigned long		min_found, min_empty, min_busy;
	u32			rand;
};

struct stress {
	struct timeq_base		*base;
	struct timeq			*q;		/* the base's */
	struct stress_timer __rcu	*slot[STRESS_TIMERS];
	struct stress_cpu		*cpu;
	bool				stop;
	atomic_long_t			fired;
	unsigned long			deleted;
};

static u32 stress_rand(struct stress_cpu *sc)
{
	/* xorshift32: cheap enough for softirq, per CPU. */
	sc->rand ^= sc->rand << 13;
	sc->rand ^= sc->rand >> 17;
	sc->rand ^= sc->rand << 5;
	return sc->rand;
}

/*
 * A time for a fast update: mostly within the current and next bucket of
 * the queue's clock (the case the fast path applies), sometimes far.
 */
static u64 stress_time(struct timeq *q, u32 r)
{
	u64 now = timeq_now(q);

	if (r % 8 == 0)
		return now + (r >> 3) % (CLOCK_HORIZON / 2);
	return now + (r >> 3) % 2048;
}

static void stress_fast(struct stress_cpu *sc)
{
	struct stress *s = sc->s;
	struct stress_timer *st;
	unsigned int i;
	u32 r;
	u64 t;
	int ret;

	for (i = 0; i < STRESS_BATCH && !READ_ONCE(s->stop); i++) {
		r = stress_rand(sc);
		rcu_read_lock();
		st = rcu_dereference(s->slot[r % STRESS_TIMERS]);
		if (st) {
			ret = timeq_fast_update(s->base, &st->timer,
						stress_time(s->q,
							    r / STRESS_TIMERS));
			/*
			 * One writer (this CPU's softirqs, which do not nest);
			 * the test's thread reads them as it runs.
			 */
			if (ret == TIMEQ_APPLIED)
				WRITE_ONCE(sc->applied, sc->applied + 1);
			else if (ret == TIMEQ_DEFERRED)
				WRITE_ONCE(sc->deferred, sc->deferred + 1);
			else
				WRITE_ONCE(sc->refused, sc->refused + 1);
		}
		rcu_read_unlock();
		ret = timeq_fast_min(s->base, &t);
		if (!ret)
			sc->min_found++;
		else if (ret == -ENOENT)
			sc->min_empty++;
		else
			sc->min_busy++;
	}
}

static void stress_tasklet(struct tasklet_struct *t)
{
	struct stress_cpu *sc = from_tasklet(sc, t, tasklet);

	stress_fast(sc);
}

static enum hrtimer_restart stress_hrtimer(struct hrtimer *hrtimer)
{
	struct stress_cpu *sc = container_of(hrtimer, struct stress_cpu, hrtimer);

	stress_fast(sc);
	if (READ_ONCE(sc->s->stop))
		return HRTIMER_NORESTART;
	tasklet_schedule(&sc->tasklet);
	hrtimer_forward_now(hrtimer, ns_to_ktime(20 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void stress_timer_fn(struct timer_list *timer)
{
	struct stress_cpu *sc = timer_container_of(sc, timer, timer);

	stress_fast(sc);
	if (!READ_ONCE(sc->s->stop))
		mod_timer(timer, jiffies + 1);
}

/* Runs on each CPU in turn, by IPI: start that CPU's sources pinned. */
static void stress_start_cpu(void *arg)
{
	struct stress_cpu *sc = arg;

	hrtimer_start(&sc->hrtimer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_SOFT);
	mod_timer(&sc->timer, jiffies + 1);
}

/*
 * The expiry's callback, on the workqueue. It lingers, then writes to its
 * timer: if timeq_delete_sync() returned while it ran, KASAN sees the
 * write to freed memory.
 */
static void stress_fire(struct timeq_timer *timer)
{
	struct stress_timer *st = container_of(timer, struct stress_timer, timer);

	atomic_long_inc(&st->s->fired);
	usleep_range(20, 40);
	WRITE_ONCE(st->calls, st->calls + 1);
}

static struct stress_timer *stress_new_timer(struct stress *s)
{
	struct stress_timer *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (st) {
		timeq_timer_init(&st->timer, stress_fire);
		st->s = s;
	}
	return st;
}

/*
 * Free the timers of slots [@from, @from + STRESS_GROUP) and put new ones
 * there. With @shutdown, timeq_shutdown_sync() races the fast updates that
 * still reach the timers (they are refused from then on), before the
 * timers are unpublished. Without, the timers are unpublished first and
 * timeq_delete_sync() races only pending hand-offs and running callbacks.
 * Either way the timers are freed only once no softirq can hold a pointer
 * (synchronize_rcu()), and the *_sync() call must have left no hand-off
 * and no callback behind: KASAN would see a later use.
 */
static int stress_replace(struct stress *s, unsigned int from, bool shutdown)
{
	struct stress_timer *old[STRESS_GROUP];
	unsigned int i;

	for (i = 0; i < STRESS_GROUP; i++) {
		old[i] = rcu_dereference_protected(s->slot[from + i], true);
		if (shutdown)
			s->deleted +=
				timeq_shutdown_sync(s->base, &old[i]->timer);
		RCU_INIT_POINTER(s->slot[from + i], NULL);
	}
	synchronize_rcu();
	/* Due now: the expiry runs their callbacks while we delete them. */
	for (i = 0; i < STRESS_GROUP && !shutdown; i++)
		timeq_timer_arm(s->base, &old[i]->timer,
				timeq_base_ticks(s->base));
	for (i = 0; i < STRESS_GROUP; i++) {
		if (!shutdown)
			s->deleted +=
				timeq_delete_sync(s->base, &old[i]->timer);
		kfree(old[i]);
		old[i] = stress_new_timer(s);
		if (!old[i])
			return -ENOMEM;
		rcu_assign_pointer(s->slot[from + i], old[i]);
	}
	return 0;
}

static void paths_test_stress(struct kunit *test)
{
	unsigned long fast = 0, applied = 0, deferred = 0, refused = 0;
	unsigned long min_found = 0, min_empty = 0, min_busy = 0;
	unsigned long ops = 0, checks = 0, replaced = 0, deadline;
	u64 inserted = 0;
	struct stress_timer *st;
	struct stress *s;
	char why[128];
	unsigned int i, cpu;
	u32 r;

	/* One CPU is contexts_one_cpu's case; make kunit's UML has no other. */
	if (num_online_cpus() < 2)
		kunit_skip(test,
			   "needs two CPUs: softirqs on each racing this thread (runs in qemu)");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	s->cpu = kunit_kcalloc(test, nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->cpu);
#ifdef TIMEQ_DEBUG_FIFO
	/* A number for each timer ever linked: a new one has a new address. */
	tq_fifo_nodes = STRESS_TIMERS + STRESS_REPLACED + STRESS_GROUP;
#endif
	s->base =
		timeq_base_create(CLOCK_GRAN, CLOCK_HORIZON, 0, 0, GFP_KERNEL);
#ifdef TIMEQ_DEBUG_FIFO
	tq_fifo_nodes = FIFO_NODES;
#endif
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->base);
	s->q = tq_base_queue(s->base);
	for (i = 0; i < STRESS_TIMERS; i++) {
		st = stress_new_timer(s);
		KUNIT_ASSERT_NOT_NULL(test, st);
		RCU_INIT_POINTER(s->slot[i], st);
	}

	for_each_online_cpu(cpu) {
		struct stress_cpu *sc = &s->cpu[cpu];

		sc->s = s;
		sc->rand = get_random_u32() | 1;
		hrtimer_setup(&sc->hrtimer, stress_hrtimer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_SOFT);
		tasklet_setup(&sc->tasklet, stress_tasklet);
		timer_setup(&sc->timer, stress_timer_fn, TIMER_PINNED);
		smp_call_function_single(cpu, stress_start_cpu, sc, true);
	}

	deadline = jiffies + STRESS_SECONDS * HZ;
	while (time_before(jiffies, deadline)) {
		fast = 0;
		for_each_online_cpu(cpu)
			fast += READ_ONCE(s->cpu[cpu].applied) +
				READ_ONCE(s->cpu[cpu].deferred) +
				READ_ONCE(s->cpu[cpu].refused);
		if (fast >= STRESS_FAST)
			break;
		r = get_random_u32();
		i = r % STRESS_TIMERS;
		st = rcu_dereference_protected(s->slot[i], true);
		switch ((r >> 16) % 64) {
		case 0 ... 29:
			timeq_timer_arm(s->base, &st->timer,
					stress_time(s->q, r >> 8));
			break;
		case 30 ... 54:
			s->deleted += timeq_timer_delete(s->base, &st->timer);
			break;
		case 55 ... 61:
			if (tq_base_check(s->base, why, sizeof(why))) {
				KUNIT_FAIL(test, "mid-stress: %s", why);
				goto stop;
			}
			checks++;
			break;
		default:
			if (replaced >= STRESS_REPLACED)
				break;
			if (stress_replace(s, i - i % STRESS_GROUP, r & 1)) {
				KUNIT_FAIL(test, "out of memory");
				goto stop;
			}
			replaced += STRESS_GROUP;
			break;
		}
		ops++;
		cond_resched();
	}
stop:
	WRITE_ONCE(s->stop, true);
	for_each_online_cpu(cpu) {
		struct stress_cpu *sc = &s->cpu[cpu];

		hrtimer_cancel(&sc->hrtimer);
		timer_delete_sync(&sc->timer);
		tasklet_kill(&sc->tasklet);
		applied += sc->applied;
		deferred += sc->deferred;
		refused += sc->refused;
		min_found += sc->min_found;
		min_empty += sc->min_empty;
		min_busy += sc->min_busy;
	}

	/* Every timer out: each insertion ended as a callback or a deletion. */
	for (i = 0; i < STRESS_TIMERS; i += STRESS_GROUP)
		if (stress_replace(s, i, false))
			KUNIT_FAIL(test, "out of memory");
	for (i = 0; i < STRESS_TIMERS; i++)
		kfree(rcu_dereference_protected(s->slot[i], true));
	settle(s->base);
	KUNIT_EXPECT_EQ(test, timeq_count(s->q), 0);
	KUNIT_EXPECT_TRUE(test, llist_empty(&s->base->handoffs));
	KUNIT_EXPECT_EQ_MSG(test, tq_base_check(s->base, why, sizeof(why)), 0,
			    "%s", why);
#ifdef TIMEQ_DEBUG_FIFO
	inserted = atomic64_read(&s->q->inserted);
	KUNIT_EXPECT_EQ(test, inserted, atomic_long_read(&s->fired) + s->deleted);
#endif
	timeq_base_destroy(s->base);

	fast = applied + deferred + refused;
	KUNIT_EXPECT_GE(test, fast, STRESS_FAST);
	kunit_info(test, "fast updates: %lu applied, %lu deferred, %lu refused; fast min: %lu found, %lu empty, %lu busy\n",
		   applied, deferred, refused, min_found, min_empty, min_busy);
	kunit_info(test, "slow side: %lu ops, %lu checks, %lu timers freed after *_sync; %llu insertions, %ld fired, %lu deleted\n",
		   ops, checks, replaced, inserted, atomic_long_read(&s->fired),
		   s->deleted);
}
#endif

static struct kunit_case paths_test_cases[] = {
	KUNIT_CASE(paths_test_test_base),
	KUNIT_CASE(paths_test_move_armed_only),
	KUNIT_CASE(paths_test_foreign),
	KUNIT_CASE(paths_test_applied),
	KUNIT_CASE(paths_test_deferred),
	KUNIT_CASE(paths_test_lanes),
	KUNIT_CASE(paths_test_latest_wins),
	KUNIT_CASE(paths_test_errors),
	KUNIT_CASE(paths_test_tune),
	KUNIT_CASE(paths_test_counters),
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_lateness_buckets),
#endif
	KUNIT_CASE(paths_test_clock_never_early),
	KUNIT_CASE(paths_test_clock_storm),
	KUNIT_CASE(paths_test_clock_budget_edge),
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_clock_expire),
#endif
	KUNIT_CASE(paths_test_clock_shutdown),
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_clock_delete_sync_waits),
	KUNIT_CASE(paths_test_clock_callback_class),
	KUNIT_CASE(paths_test_store_vs_callback),
#endif
	KUNIT_CASE(paths_test_clock_idle),
	KUNIT_CASE(paths_test_clock_destroy),
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_clock_destroy_in_flight),
#endif
	KUNIT_CASE(paths_test_expire_other),
	KUNIT_CASE(paths_test_fast_no_hrtimer),
	KUNIT_CASE(paths_test_clock_stale),
	KUNIT_CASE(paths_test_clock_tick_exact),
	KUNIT_CASE(paths_test_store_refresh),
	KUNIT_CASE(paths_test_store_refused),
	KUNIT_CASE(paths_test_store_alone),
	KUNIT_CASE(paths_test_store_beyond),
	KUNIT_CASE(paths_test_store_destroyed),
	KUNIT_CASE(paths_test_store_pending),
	KUNIT_CASE(paths_test_store_first),
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_clock_rearm_late),
	KUNIT_CASE(paths_test_clock_defer_reasons),
	KUNIT_CASE(paths_test_clock_lateness),
#endif
#ifdef __KERNEL__
	KUNIT_CASE(paths_test_contexts_one_cpu),
	KUNIT_CASE_SLOW(paths_test_stress),
#endif
	{}
};

static struct kunit_suite paths_test_suite = {
	.name = "timeq_paths",
	.test_cases = paths_test_cases,
	.suite_init = fifo_suite_init,
	.suite_exit = fifo_suite_exit,
};

kunit_test_suite(paths_test_suite);
