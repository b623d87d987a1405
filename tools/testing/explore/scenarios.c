// SPDX-License-Identifier: GPL-2.0
/*
 * The scenarios: two or three threads each, on one timer base, through
 * the public API of include/linux/timeq.h only (the checkers, the world's
 * oracles and the test base aside): a clocked base, or a test base
 * (tq_base_create_test(), module/base.c).
 * Each names the defect of README's table it was written to catch, if any,
 * but none expects anything of a particular version of module/: against
 * code without the defect it must pass.
 *
 * Every queue has the same shape: a horizon of 1024 ticks, buckets of
 * 16 ticks (D) and 64 bucket lists, so that a far bucket is a bucket
 * list until it becomes the earliest, and TIMEQ_HOLD (64) node visits are
 * exceeded by a bucket of more than 64 timers: bulk() fills one, out of
 * time order, so finding its minimum is a RESOLVE done in several lock
 * holds, with the locks dropped in between.
 */
#include <stdlib.h>

#include <linux/timeq.h>

#include "clock.h"
#include "explore.h"
#include "queue.h"

#define H		1024
#define D		16
#define M		64
#define BULK		80	/* > TIMEQ_HOLD: a RESOLVE of two holds */

static void arm(struct xw *w, struct xt *t, u64 tick)
{
	int ret = xw_timer_arm(w, t, tick);

	if (ret)
		xw_fail("timeq_timer_arm(%s, %llu): %d", t->name, tick, ret);
}

static struct xt *armed(struct xw *w, u64 tick, bool must_fire)
{
	struct xt *t = xw_timer(w, true);

	t->must_fire = must_fire;
	arm(w, t, tick);
	return t;
}

/* @n timers in bucket @b, out of time order. */
static void bulk(struct xw *w, unsigned int n, u64 b, bool must_fire)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		armed(w, b * D + (D - 1) - i % D, must_fire);
}

static struct xt *timer(struct xw *w, unsigned int index)
{
	return &w->t[index];
}

/* ------------------------------------------------------------------ */
/*
 * Defect 1: the expiry removes A, then resolves a far bucket of BULK
 * timers in two holds before it publishes A as running; the owner's
 * timeq_delete_sync() in that gap returns, and the owner frees A.
 * Oracle: delete_sync() returning 0 means A's callback has run; no
 * callback after the free.
 */
static void d1_clock(void *arg)
{
	xw_advance_to(arg, 6);
}

static void d1_owner(void *arg)
{
	struct xw *w = arg;
	struct xt *a = timer(w, 0);

	if (!xw_delete_sync(w, a) && !a->fired)
		xw_fail("timeq_delete_sync(A) returned 0 (not armed), but A was armed and its callback has not run");
	xw_free(w, a);
}

static void d1_setup(struct xw *w)
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 5, false);
	bulk(w, BULK, 4, true);
	xp_spawn("clock", d1_clock, w, 0);
	xp_spawn("owner", d1_owner, w, 0);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 2: with the head empty, the near lane moves the minimum M within
 * head2: tq_settle() publishes min = NULL before it finds N. A slow-side
 * insert of a far node, which takes bucket_lock alone, or the far lane,
 * may read that NULL and make its far node the minimum.
 * Oracle: the invariants (the cached minimum) and the drain's order.
 */
static void d2_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 28);
}

static void d2_insert(void *arg)
{
	struct xw *w = arg;
	int ret = timeq_insert(w->q, &w->n[0], 200);

	if (ret)
		xw_fail("timeq_insert(200): %d", ret);
}

static void d2_far_lane(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 2), 250);
}

static void d2_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, true);	/* M, the minimum, in head2 */
	armed(w, 25, true);	/* N, in head2 */
	xw_node(w);
	xp_spawn("fast", d2_fast, w, XP_SOFTIRQ);
	xp_spawn("insert", d2_insert, w, 0);
}

static void d2_final(struct xw *w)
{
	xw_drain_test_base(w, 3);
}

static void d2b_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, true);
	armed(w, 25, true);
	armed(w, 300, true);	/* G, far, in the calendar */
	xp_spawn("fast", d2_fast, w, XP_SOFTIRQ);
	xp_spawn("far", d2_far_lane, w, XP_SOFTIRQ);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 3: the work drains 65 hand-offs; out of budget after 64 it
 * drops the locks. A timeq_del_less_than() meanwhile removes the 64
 * timers of the head, spends its budget and leaves a WALK of bucket 4
 * pending across its own relock. The drain relocks and applies Z, at
 * tick 40 (bucket 2), with the WALK pending; the walk then makes bucket
 * 4's best the minimum, over Z.
 * Oracle: the invariants, del_less_than's count, the drain's order.
 */
static void d3_deleter(void *arg)
{
	struct xw *w = arg;
	unsigned long n = timeq_del_less_than(w->q, 16, NULL, NULL);

	if (n != 64)
		xw_fail("timeq_del_less_than(16) removed %lu, want 64", n);
	w->removed += n;
}

static void d3_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, false, 0, H, D, M);
	for (i = 0; i < 64; i++)
		armed(w, 1 + i % 15, false);
	bulk(w, 10, 4, true);		/* <= TIMEQ_WALK: a WALK */
	xw_defer_begin(w);
	for (i = 0; i < 64; i++)
		xw_fast_update(w, xw_timer(w, true), 40 * D + 15 - i % D);
	xw_fast_update(w, xw_timer(w, true), 40);	/* Z: bucket 2 */
	xw_defer_end(w);
	xp_spawn("deleter", d3_deleter, w, 0);
}

static void d3_final(struct xw *w)
{
	xw_drain_test_base(w, 10 + 65);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 4: a fast update moves the minimum from 500 to 300 and kicks;
 * the kick reads 300, a slow-side arm of Z at 200 re-arms the hrtimer
 * for 200, then the kick's hrtimer_start(300) lands. Or two fast
 * updates on two CPUs, and two kicks.
 * Oracle: at quiescence the hrtimer is armed no later than the minimum.
 */
static void d4_fast_y(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 1), 300);
}

static void d4_fast_z(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 2), 200);
}

static void d4_arm_z(void *arg)
{
	struct xw *w = arg;

	arm(w, timer(w, 2), 200);
}

static void d4_setup_common(struct xw *w)
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 500, true);			/* X */
	xw_timer(w, true)->must_fire = true;	/* Y */
	xw_timer(w, true)->must_fire = true;	/* Z */
	xp_spawn("fast", d4_fast_y, w, XP_SOFTIRQ);
}

static void d4_setup(struct xw *w)
{
	d4_setup_common(w);
	xp_spawn("arm", d4_arm_z, w, 0);
}

static void d4b_setup(struct xw *w)
{
	d4_setup_common(w);
	xp_spawn("fast2", d4_fast_z, w, XP_SOFTIRQ);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 5: O, due at tick 10, is overdue: the clock reads 1500 and the
 * queue's own clock waits at O. A fast update of N to 1600 lies beyond
 * the lagging window but within CLOCK_MONOTONIC's: DEFERRED. The work
 * catches up only to O, drains, and tq_arm() refuses 1600 with -ERANGE.
 * Oracle: a fast update that succeeded (DEFERRED) fires.
 */
static void d5_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 1), 1600);
}

static void d5_setup(struct xw *w)
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 10, true);			/* O */
	xw_timer(w, true)->must_fire = true;	/* N */
	xw_advance_to(w, 1500);
	xp_spawn("fast", d5_fast, w, XP_SOFTIRQ);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 6: the minimum read for TIMEQ_MIN (dev_min_out(); at a28c087
 * timeq_min(), without the locks, which may read NULL between two steps
 * of the slow side; now timeq_first()), while a delete of the minimum
 * resolves a far bucket of BULK timers in two holds. S, far ahead, stays
 * queued throughout. Oracle: the minimum is never NULL while the queue
 * holds a timer.
 */
static void d6_deleter(void *arg)
{
	struct xw *w = arg;

	if (!xw_timer_delete(w, timer(w, 1)))
		xw_fail("timeq_timer_delete(A) found A not armed");
	w->removed++;
}

static void d6_reader(void *arg)
{
	struct xw *w = arg;
	int i;

	for (i = 0; i < 4; i++) {
		if (!timeq_first(w->q))
			xw_fail("timeq_first() is NULL, but the queue holds %lu timers",
				timeq_count(w->q));
		xp_step();
	}
}

static void d6_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 1000, true);	/* S */
	armed(w, 5, false);	/* A, the minimum */
	bulk(w, BULK, 4, true);
	xp_spawn("deleter", d6_deleter, w, 0);
	xp_spawn("reader", d6_reader, w, 0);
}

static void d6_final(struct xw *w)
{
	xw_drain_test_base(w, 1 + BULK);
}

/* ------------------------------------------------------------------ */
/*
 * Defect 7: waits that spin. A fast update of X hands off: between its
 * test_and_set_bit(PENDING) and its llist_add() it may be preempted (a
 * softirq thread on PREEMPT_RT); timeq_timer_delete(X) or
 * timeq_shutdown_sync(X) meanwhile loops with cond_resched() while
 * PENDING is set. Or X's request sits in the work's detached drain list
 * while the drain, past its budget, relocks: timeq_timer_arm(X) loops.
 * Under strict priorities the looping thread never lets the other run.
 * Oracle: the run ends (no livelock), and the queue is right after.
 */
static void d7_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 500);
}

static void d7_delete(void *arg)
{
	struct xw *w = arg;

	w->removed += xw_timer_delete(w, timer(w, 0));
}

static void d7_shutdown(void *arg)
{
	struct xw *w = arg;

	w->removed += xw_shutdown_sync(w, timer(w, 0));
	if (timeq_node_queued(&timer(w, 0)->timer.node))
		xw_fail("X is queued after timeq_shutdown_sync() returned");
}

static void d7_setup_common(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, false);	/* X, the minimum: moving it far defers */
	armed(w, 100, true);
	xp_spawn("fast", d7_fast, w, XP_SOFTIRQ);
}

static void d7_setup(struct xw *w)
{
	d7_setup_common(w);
	xp_spawn("delete", d7_delete, w, 0);
}

static void d7b_setup(struct xw *w)
{
	d7_setup_common(w);
	xp_spawn("shutdown", d7_shutdown, w, 0);
}

static void d7_final(struct xw *w)
{
	xw_drain_test_base(w, XW_ANY);
}

static void d7c_arm(void *arg)
{
	struct xw *w = arg;

	arm(w, timer(w, 65), 30);
}

static void d7c_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, false, 0, H, D, M);
	xw_defer_begin(w);
	for (i = 0; i < 66; i++)
		xw_fast_update(w, xw_timer(w, true), 20 * D + i % D);
	xw_defer_end(w);
	xp_spawn("arm", d7c_arm, w, 0);
}

static void d7c_final(struct xw *w)
{
	xw_drain_test_base(w, 66);
}

/* ------------------------------------------------------------------ */
/*
 * The fast path against the slow side on a test base: two softirqs
 * move timers within and across the near buckets and into the far
 * ones, and read the minimum; a slow thread arms, moves, deletes and
 * delete_mins, with a bulk bucket to resolve.
 * Oracle: the invariants, the drain's order and count.
 */
static void g1_soft1(void *arg)
{
	struct xw *w = arg;
	u64 t;

	xw_fast_update(w, timer(w, 0), 9);		/* near, earlier */
	xw_fast_min(w, &t);
	xw_fast_update(w, timer(w, 1), 600);		/* near to far */
}

static void g1_soft2(void *arg)
{
	struct xw *w = arg;
	u64 t;

	xw_fast_update(w, timer(w, 2), 30);		/* far to near */
	xw_fast_update(w, timer(w, 6), 17);		/* new, head2 */
	xw_fast_min(w, &t);
}

static void g1_slow(void *arg)
{
	struct xw *w = arg;

	arm(w, timer(w, 3), 12);
	if (!xw_timer_delete(w, timer(w, 4)))
		xw_fail("timeq_timer_delete(E) found E not armed");
	w->removed++;
	if (xw_timer_move(w, timer(w, 5), 70))
		xw_fail("timeq_timer_move(F) failed");
	if (!timeq_delete_min(w->q))
		xw_fail("timeq_delete_min() found the queue empty");
	w->removed++;
}

static void g1_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 10, false);		/* A, the minimum */
	armed(w, 20, false);		/* B */
	armed(w, 400, false);		/* C, far */
	xw_timer(w, false);		/* D */
	armed(w, 14, false);		/* E */
	armed(w, 300, false);		/* F */
	xw_timer(w, false);		/* G */
	bulk(w, BULK, 5, false);
	xp_spawn("soft1", g1_soft1, w, XP_SOFTIRQ);
	xp_spawn("soft2", g1_soft2, w, XP_SOFTIRQ);
	xp_spawn("slow", g1_slow, w, 0);
}

static void g1_final(struct xw *w)
{
	/* How many: the minimum delete_min took may be armed again. */
	xw_drain_test_base(w, XW_ANY);
}

/* ------------------------------------------------------------------ */
/*
 * Every slow operation with buckets longer than a hold: two slow
 * threads insert, update, delete, delete_min and del_less_than over two
 * bulk buckets (a RESOLVE, and an EVICT when the earlier one needs the
 * focus), beside a softirq that moves a timer and reads the minimum.
 * Oracle: the invariants, the callback order of del_less_than, the
 * drain's order and count.
 */
static void g2_count(struct timeq_node *node, void *arg)
{
	struct xw *w = arg;

	if (w->delivered && node->time < w->last_time)
		xw_fail("del_less_than gave time %llu after %llu", node->time,
			w->last_time);
	w->delivered = true;
	w->last_time = node->time;
	w->removed++;
}

static void g2_slow1(void *arg)
{
	struct xw *w = arg;

	int ret;

	if (!timeq_delete_min(w->q))
		xw_fail("timeq_delete_min() found the queue empty");
	w->removed++;
	/* n1 may have gone to slow2's del_less_than(40) first. */
	ret = timeq_update(w->q, &w->n[1], 130);
	if (ret && ret != -ENOENT)
		xw_fail("timeq_update(n1): %d", ret);
	if (timeq_insert(w->q, &w->n[2], 520))
		xw_fail("timeq_insert(n2) failed");
}

static void g2_slow2(void *arg)
{
	struct xw *w = arg;

	if (timeq_delete(w->q, &w->n[3]))
		xw_fail("timeq_delete(n3) failed");
	w->removed++;
	timeq_del_less_than(w->q, 40, g2_count, w);
}

static void g2_soft(void *arg)
{
	struct xw *w = arg;
	u64 t;

	xw_fast_update(w, timer(w, BULK), 100);
	xw_fast_min(w, &t);
}

static void g2_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, false, 0, H, D, M);
	for (i = 0; i < 5; i++)
		xw_node(w);
	/* Bucket 8 resolved into the focus: its minimum was needed once. */
	bulk(w, BULK, 8, false);
	if (timeq_insert(w->q, &w->n[4], 1) || timeq_delete(w->q, &w->n[4]))
		xw_fail("setup: the focus");
	w->removed++;
	armed(w, 50, false);			/* A: moved by the softirq */
	if (timeq_insert(w->q, &w->n[0], 3) ||	/* the minimum */
	    timeq_insert(w->q, &w->n[1], 7) ||
	    timeq_insert(w->q, &w->n[3], 600))
		xw_fail("setup inserts failed");
	/* Bucket 5, earlier and long: its RESOLVE evicts bucket 8 first. */
	bulk(w, BULK - 10, 5, false);
	xp_spawn("slow1", g2_slow1, w, 0);
	xp_spawn("slow2", g2_slow2, w, 0);
	xp_spawn("soft", g2_soft, w, XP_SOFTIRQ);
}

static void g2_final(struct xw *w)
{
	xw_drain_test_base(w, XW_ANY);
}

/* ------------------------------------------------------------------ */
/*
 * The drain past its budget beside the slow side and the fast path:
 * 70 requests handed off, drained by the work in two holds, while a
 * slow thread inserts and delete_mins and a softirq joins a request and
 * makes a new one.
 * Oracle: every request applied once, in order; the invariants.
 */
static void g3_soft(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 69), 5);	/* joins its request */
	xw_fast_update(w, timer(w, 70), 33);	/* a new timer */
}

static void g3_slow(void *arg)
{
	struct xw *w = arg;

	if (timeq_insert(w->q, &w->n[0], 2))
		xw_fail("timeq_insert(2) failed");
	if (!timeq_delete_min(w->q))
		xw_fail("timeq_delete_min() found the queue empty");
	w->removed++;
}

static void g3_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, false, 0, H, D, M);
	xw_node(w);
	xw_defer_begin(w);
	for (i = 0; i < 70; i++)
		xw_fast_update(w, xw_timer(w, false), 300 + (i * 7) % 40);
	xw_defer_end(w);
	xw_timer(w, false);
	xp_spawn("soft", g3_soft, w, XP_SOFTIRQ);
	xp_spawn("slow", g3_slow, w, 0);
}

static void g3_final(struct xw *w)
{
	xw_drain_test_base(w, 70 + 1 + 1 - 1);
}

/* ------------------------------------------------------------------ */
/*
 * Expiry with callbacks, from the work and from timeq_expire() at once:
 * timers of equal times (FIFO), a bulk bucket, a timer whose callback
 * re-arms it once, and a slow thread arming and moving as the clock
 * moves in three steps.
 * Oracle: callbacks in order and never early, every timer fires, the
 * hrtimer against the minimum at each quiescence.
 */
static void g4_rearm(struct xt *t)
{
	if (!t->last++ && xw_timer_arm(t->w, t, 90))
		xw_fail("re-arming R from its callback failed");
}

static void g4_clock(void *arg)
{
	struct xw *w = arg;

	xw_advance_to(w, 10);
	xw_advance_to(w, 60);
	xw_advance_to(w, 100);
}

static void g4_expirer(void *arg)
{
	timeq_expire(((struct xw *)arg)->base);
}

static void g4_slow(void *arg)
{
	struct xw *w = arg;

	arm(w, timer(w, 4), 8);
	/* Fails if F has expired (or is expiring): then it fired once. */
	xw_timer_move(w, timer(w, 5), 50);
}

static void g4_setup(struct xw *w)
{
	struct xt *r;

	xw_create(w, true, 0, H, D, M);
	armed(w, 3, true);
	armed(w, 3, true);
	armed(w, 5, true);
	r = armed(w, 7, true);		/* D: re-arms once, to 90 */
	r->exact = false;
	r->hook = g4_rearm;
	xw_timer(w, true)->must_fire = true;	/* E: armed by the slow */
	armed(w, 9, true);		/* F: moved to 50, or fired first */
	timer(w, 5)->exact = false;
	bulk(w, BULK, 3, true);
	xp_spawn("clock", g4_clock, w, 0);
	xp_spawn("expirer", g4_expirer, w, 0);
	xp_spawn("slow", g4_slow, w, 0);
}

static void g4_final(struct xw *w)
{
	if (timer(w, 3)->fired != 2)
		xw_fail("D fired %u times, want 2", timer(w, 3)->fired);
	if (timer(w, 5)->fired != 1)
		xw_fail("F fired %u times, want 1", timer(w, 5)->fired);
}

/* ------------------------------------------------------------------ */
/*
 * timeq_shutdown_sync() of a timer whose callback re-arms it, as the
 * clock moves: the owner frees it once the call returns.
 * Oracle: no callback after the free; nothing left queued or pending.
 */
static void g5_rearm(struct xt *t)
{
	int ret = xw_timer_arm(t->w, t, timeq_now(t->w->q) + 2);

	if (ret && ret != -ESHUTDOWN)
		xw_fail("re-arming A from its callback: %d", ret);
}

static void g5_clock(void *arg)
{
	struct xw *w = arg;

	xw_advance_to(w, 4);
	xw_advance_to(w, 8);
	xw_advance_to(w, 12);
}

static void g5_owner(void *arg)
{
	struct xw *w = arg;

	xw_shutdown_sync(w, timer(w, 0));
	xw_free(w, timer(w, 0));
}

static void g5_setup(struct xw *w)
{
	struct xt *a;

	xw_create(w, true, 0, H, D, M);
	a = armed(w, 3, false);
	a->exact = false;
	a->hook = g5_rearm;
	bulk(w, BULK, 6, true);
	xp_spawn("clock", g5_clock, w, 0);
	xp_spawn("owner", g5_owner, w, 0);
}

/* ------------------------------------------------------------------ */
/*
 * A fast update of a timer as it expires: A, due at 5, is moved to 40
 * from a softirq while the clock passes 5.
 * Oracle: A fires once or twice (expired, then armed again by the
 * request), its last callback at tick 40 or later.
 */
static void g6_hook(struct xt *t)
{
	t->last = xw_tick(t->w);
}

static void g6_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 40);
}

static void g6_clock(void *arg)
{
	xw_advance_to(arg, 6);
}

static void g6_setup(struct xw *w)
{
	struct xt *a;

	xw_create(w, true, 0, H, D, M);
	a = armed(w, 5, true);
	a->exact = false;
	a->hook = g6_hook;
	bulk(w, BULK, 2, true);
	xp_spawn("fast", g6_fast, w, XP_SOFTIRQ);
	xp_spawn("clock", g6_clock, w, 0);
}

static void g6_final(struct xw *w)
{
	struct xt *a = timer(w, 0);

	if (a->fired > 2 || a->last < 40)
		xw_fail("A fired %u times, last at tick %lu: want 1 or 2, the last at 40 or later",
			a->fired, a->last);
}

/* ------------------------------------------------------------------ */
/*
 * timeq_timer_move() racing the expiry: A, due at 5, is moved to 50 as
 * the clock passes 5. Either it expired first (the move finds it not
 * armed) or it moved (and fires at 50).
 * Oracle: A fires exactly once; the move's answer agrees.
 */
static void g7_mover(void *arg)
{
	struct xw *w = arg;

	w->v[0] = xw_timer_move(w, timer(w, 0), 50) == 0;
}

static void g7_setup(struct xw *w)
{
	struct xt *a;

	xw_create(w, true, 0, H, D, M);
	a = armed(w, 5, true);
	a->hook = g6_hook;
	bulk(w, BULK, 3, true);
	xp_spawn("mover", g7_mover, w, 0);
	xp_spawn("clock", g6_clock, w, 0);
}

static void g7_final(struct xw *w)
{
	struct xt *a = timer(w, 0);

	if (a->fired != 1 || (w->v[0] && a->last < 50))
		xw_fail("A fired %u times, last at tick %lu; the move %s",
			a->fired, a->last, w->v[0] ? "succeeded" : "failed");
}

/* ------------------------------------------------------------------ */
/*
 * Requests for one timer from two softirqs: X, the minimum, moved far
 * (which hands off), and moved within the next bucket (in place, unless
 * a request is pending); the work drains. (With a slow-side arm as well,
 * the arm's wait for the hand-off is defect 7: d7-delete-vs-handoff.)
 * Oracle: X ends at the time of a request older than no other (P-a and
 * P-b of spin/spec.pml: none lost, none applied out of order).
 */
static void g8_far(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 600);
}

static void g8_near(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 25);
}

static void g8_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, false);		/* X, the minimum, in head2 */
	armed(w, 40, false);
	xp_spawn("far", g8_far, w, XP_SOFTIRQ);
	xp_spawn("near", g8_near, w, XP_SOFTIRQ);
}

static void g8_final(struct xw *w)
{
	xw_drain_test_base(w, 2);
}

/* ------------------------------------------------------------------ */
/*
 * Three softirqs on one timer, and the work: X, the minimum, handed off
 * twice (moved far) and moved in place. A request must carry the time of
 * the update that won its test_and_set_bit(), even when an older
 * request was drained and another update applied in place meanwhile.
 * Oracle: latest wins (P-a, P-b).
 */
static void g9_far1(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 600);
}

static void g9_far2(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 700);
}

static void g9_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 40, false);
	xp_spawn("far1", g9_far1, w, XP_SOFTIRQ);
	xp_spawn("far2", g9_far2, w, XP_SOFTIRQ);
	xp_spawn("near", g8_near, w, XP_SOFTIRQ);
}

/* ------------------------------------------------------------------ */
/*
 * Two softirqs' requests of X against a slow-side timeq_timer_delete(X):
 * a request that returned before the delete began must not land after it.
 * Oracle: latest wins, a delete counting as a request for "unarmed".
 * (Under PCT on code with defect 7 the delete's wait livelocks.)
 */
static void g10_delete(void *arg)
{
	struct xw *w = arg;

	xw_delete_request(w, timer(w, 0));
}

static void g10_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 40, false);
	xp_spawn("far", g8_far, w, XP_SOFTIRQ);
	xp_spawn("far2", g9_far2, w, XP_SOFTIRQ);
	xp_spawn("delete", g10_delete, w, 0);
}

static void g10_final(struct xw *w)
{
	xw_drain_test_base(w, XW_ANY);
}

/* ------------------------------------------------------------------ */
/*
 * timeq_shutdown_sync(X) against two softirqs' updates of X: when it
 * returns, no request names X (each racing update was refused, or done
 * and undone), so nothing of the queue's refers to it.
 * Oracle: X on no list and in no queue when shutdown_sync returns.
 */
static void g11_shutdown(void *arg)
{
	struct xw *w = arg;
	struct xt *x = timer(w, 0);
	struct llist_node *node;

	w->removed += xw_shutdown_sync(w, x);
	if (x->timer.node.owner)
		xw_fail("X is queued after timeq_shutdown_sync() returned");
	for (node = w->base->handoffs.first; node; node = node->next)
		if (node == &x->timer.handoff)
			xw_fail("X is on the hand-off list after timeq_shutdown_sync() returned");
}

static void g11_far(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 600);
}

static void g11_near(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 25);
}

/* g11's world, its softirqs @far and @near (as i3 below), @shutdown. */
static void g11_world(struct xw *w, void (*far)(void *arg),
		      void (*near)(void *arg), void (*shutdown)(void *arg))
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 40, false);
	xp_spawn("far", far, w, XP_SOFTIRQ);
	xp_spawn("near", near, w, XP_SOFTIRQ);
	xp_spawn("shutdown", shutdown, w, 0);
}

static void g11_setup(struct xw *w)
{
	g11_world(w, g11_far, g11_near, g11_shutdown);
}

/* ------------------------------------------------------------------ */
/*
 * A WALK pending across a lock drop (del_less_than spends its budget on
 * the 64 timers of the head; bucket 4, short and out of order, is
 * walked in the next hold) while a softirq's near lane inserts into
 * head2, as it may between two steps of far work.
 * Oracle: the invariants (the minimum) at every quiet moment.
 */
static void g12_insert(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 74), 18);
}

static void g12_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, false, 0, H, D, M);
	for (i = 0; i < 64; i++)
		armed(w, 1 + i % 15, false);
	bulk(w, 10, 4, false);
	xw_timer(w, false);		/* 74: inserted by the softirq */
	xp_spawn("deleter", d3_deleter, w, 0);
	xp_spawn("insert", g12_insert, w, XP_SOFTIRQ);
}

static void g12_final(struct xw *w)
{
	xw_drain_test_base(w, 10 + 1);
}

/* ------------------------------------------------------------------ */
/*
 * The slow side's bucket_lock-only paths against the near lane: a
 * timeq_update() of N, in head2 and not the minimum, to a far time
 * must take every lock (N is near), while a softirq moves two timers
 * within head2.
 * Oracle: the invariants at every quiet moment; the drain.
 */
static void g13_update(void *arg)
{
	struct xw *w = arg;

	if (timeq_update(w->q, &timer(w, 1)->timer.node, 300))
		xw_fail("timeq_update(N, 300) failed");
	if (timeq_delete(w->q, &timer(w, 3)->timer.node))
		xw_fail("timeq_delete(Q) failed");
	w->removed++;
}

static void g13_soft(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 2), 19);
	xw_fast_update(w, timer(w, 0), 18);
}

static void g13_setup(struct xw *w)
{
	xw_create(w, false, 0, H, D, M);
	armed(w, 17, false);		/* M, the minimum, in head2 */
	armed(w, 20, false);		/* N */
	armed(w, 22, false);		/* P */
	armed(w, 27, false);		/* Q */
	armed(w, 5, false);		/* in the head */
	xp_spawn("update", g13_update, w, 0);
	xp_spawn("soft", g13_soft, w, XP_SOFTIRQ);
}

static void g13_final(struct xw *w)
{
	xw_drain_test_base(w, 4);
}

/* ------------------------------------------------------------------ */
/*
 * Refresh by a store (module/fast.c) against the drain: X, at 20, is
 * moved earlier to 10 by a softirq whose lanes may find the locks taken
 * (a slow-side arm of Y holds them) and hand off, then later to 50 by the
 * same softirq: a store, unless a request of X is pending. The drain
 * clears PENDING, then arms X at the request's time: a store in between
 * would land before the older request and be undone by it: a window
 * inside the drain's critical section, so its accesses are points
 * (--rw-limit 4). The clock stands still, so nothing expires before the
 * check.
 * Oracle: latest wins (P-a, P-b), by the time X expires at.
 */
static void s1_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 10);
	xw_fast_request(w, timer(w, 0), 50);
}

static void s1_slow(void *arg)
{
	struct xw *w = arg;

	arm(w, timer(w, 1), 45);
}

/* s1's world, its softirq @fast (i1 below makes the second move so). */
static void s1_world(struct xw *w, void (*fast)(void *arg))
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 40, false);		/* Y */
	xp_spawn("fast", fast, w, XP_SOFTIRQ);
	xp_spawn("slow", s1_slow, w, 0);
}

static void s1_setup(struct xw *w)
{
	s1_world(w, s1_fast);
}

static bool s_tracked(struct xw *w, unsigned int phase)
{
	(void)phase;
	xw_check_tracked(w);
	return false;
}

/* ------------------------------------------------------------------ */
/*
 * A store against the expiry: A, due at 5, is moved to 40 as the clock
 * passes 5. A store that lands before the expiry claims A files it again
 * at 40, and A fires once; one that comes after the claim fails, and the
 * lanes arm A again (or hand off), so it fires at 5 and at 40.
 * Oracle: if the fast path counted a store, A fired once, at 40 or later;
 * otherwise at most twice, the last at 40 or later.
 */
static void s2_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_update(w, timer(w, 0), 40);
}

/* s2's world, its softirq @fast (as i2 below). */
static void s2_world(struct xw *w, void (*fast)(void *arg))
{
	struct xt *a;

	xw_create(w, true, 0, H, D, M);
	a = armed(w, 5, true);
	a->exact = false;
	a->hook = g6_hook;
	armed(w, 30, true);
	xp_spawn("fast", fast, w, XP_SOFTIRQ);
	xp_spawn("clock", g6_clock, w, 0);
}

static void s2_setup(struct xw *w)
{
	s2_world(w, s2_fast);
}

static void s2_final(struct xw *w)
{
	struct timeq_fast_stats fs;
	struct xt *a = timer(w, 0);

	timeq_get_fast_stats(w->base, &fs);
	if (a->last < 40 || a->fired > (fs.stored ? 1 : 2))
		xw_fail("A fired %u times, the last at tick %lu, after %llu stores: want %s, the last at 40 or later",
			a->fired, a->last, fs.stored,
			fs.stored ? "once" : "once or twice");
}

/* ------------------------------------------------------------------ */
/*
 * A store against timeq_timer_delete(): X, at 20, is moved to 40 (a
 * store, or the lanes if the delete closed X's word first) while the
 * slow side deletes it. The clock stands still.
 * Oracle: latest wins (P-a, P-b): a store that landed after the delete
 * took X out would leave X unarmed yet answer APPLIED.
 */
static void s3_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 40);
}

static void s3_setup(struct xw *w)
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 30, false);
	xp_spawn("fast", s3_fast, w, XP_SOFTIRQ);
	xp_spawn("delete", g10_delete, w, 0);
}

/* ------------------------------------------------------------------ */
/*
 * Stores against tq_clock_first() (TIMEQ_MIN on a monotonic file), which
 * files the timers at the head that stores moved: X, at 20, is stored to
 * 40, then to 50, while the slow side reads the earliest timer twice (Y
 * is at 30). The clock stands still.
 * Oracle: latest wins (P-a, P-b); the earliest read is X or Y, never
 * NULL; the queue's invariants at every quiet moment.
 */
static void s4_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 40);
	xw_fast_request(w, timer(w, 0), 50);
}

static void s4_first(void *arg)
{
	struct xw *w = arg;
	struct timeq_node *node;
	int i;

	for (i = 0; i < 2; i++) {
		node = tq_clock_first(w->base);
		if (node != &timer(w, 0)->timer.node &&
		    node != &timer(w, 1)->timer.node)
			xw_fail("tq_clock_first() gave %p, neither X nor Y",
				(void *)node);
	}
}

static void s4_setup(struct xw *w)
{
	xw_create(w, true, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 30, false);		/* Y */
	xp_spawn("fast", s4_fast, w, XP_SOFTIRQ);
	xp_spawn("first", s4_first, w, 0);
}

/*
 * The same through tq_clock_first()'s door: BULK timers at 25, stored to
 * 35 before the run, lie between X and Y, so filing them takes more than
 * a lock hold's budget; the softirq stores X, then the last of them, which
 * may land before, in or after the door.
 */
static void s4b_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 40);
	xw_fast_request(w, timer(w, 1 + BULK), 45);
}

static void s4b_setup(struct xw *w)
{
	unsigned int i;

	xw_create(w, true, 0, H, D, M);
	armed(w, 20, false);		/* X */
	armed(w, 30, false);		/* Y */
	for (i = 0; i < BULK; i++)
		xw_fast_update(w, armed(w, 25, false), 35);
	xp_spawn("fast", s4b_fast, w, XP_SOFTIRQ);
	xp_spawn("first", s4_first, w, 0);
}

/* ------------------------------------------------------------------ */
/*
 * A store against a hand-off of its timer from another CPU: X, at 10,
 * was stored to 20 before the run, and the clock reads 600 while the
 * queue's own waits at 0. One softirq moves X to 1600, beyond the lagging
 * window: a hand-off, unless the queue's clock caught up first. Another
 * stores X to 1000, and may find PENDING clear just before the hand-off
 * takes it; the expiry (timeq_expire()) may take X for tick 10 and file
 * it again at 20 while the request is pending. A store that lands after
 * the hand-off returned, on the word as it read it or as the filing
 * opened it, is undone when the drain arms X at the older 1600: HANDED
 * bars it (fast.c, "Refresh by a store").
 * Oracle: latest wins (P-a, P-b), by the time X expires at.
 */
static void s5_hand_off(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 1600);
}

static void s5_store(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 1000);
}

static void s5_setup(struct xw *w)
{
	struct xt *x;

	xw_create(w, true, 0, H, D, M);
	x = armed(w, 10, false);	/* X */
	x->exact = false;
	xw_fast_update(w, x, 20);
	xw_advance_to(w, 600);
	xp_spawn("handoff", s5_hand_off, w, XP_SOFTIRQ);
	xp_spawn("store", s5_store, w, XP_SOFTIRQ);
	xp_spawn("expire", g4_expirer, w, 0);
}

/* ------------------------------------------------------------------ */
/*
 * timeq_timer_store(), the store alone inline in its caller, which reads
 * only the timer's word (no PENDING, no base, no window), as
 * samples/flowtrack calls it: when it changes nothing, the caller takes
 * the lanes (timeq_fast_update()).
 *
 * i1, against the drain: s1 with the second move made by the inline
 * store. A store that landed while the request to 10 waited would be
 * undone by the drain. Oracle: latest wins (P-a, P-b).
 */
static void i1_fast(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 0), 10);
	if (!xw_store_request(w, timer(w, 0), 50))
		xw_fast_request(w, timer(w, 0), 50);
}

static void i1_setup(struct xw *w)
{
	s1_world(w, i1_fast);
}

/*
 * i2, against the expiry: s2 with the inline store. Oracle: if the store
 * said A expires at 40, A fired once, at 40 or later; otherwise (the
 * lanes armed it again) at most twice, the last at 40 or later.
 */
static void i2_fast(void *arg)
{
	struct xw *w = arg;

	w->v[0] = timeq_timer_store(&timer(w, 0)->timer, 40);
	if (!w->v[0])
		xw_fast_update(w, timer(w, 0), 40);
}

static void i2_setup(struct xw *w)
{
	s2_world(w, i2_fast);
}

static void i2_final(struct xw *w)
{
	struct xt *a = timer(w, 0);

	if (a->last < 40 || a->fired > (w->v[0] ? 1 : 2))
		xw_fail("A fired %u times, the last at tick %lu, the store %s: want %s, the last at 40 or later",
			a->fired, a->last, w->v[0] ? "landed" : "failed",
			w->v[0] ? "once" : "once or twice");
}

/*
 * i3, against timeq_shutdown_sync(): g11 with X refreshed by two inline
 * stores, each falling back to the lanes. Oracle: X on no list and in no
 * queue when shutdown_sync returns, and a store after it changes nothing.
 */
static void i3_far(void *arg)
{
	struct xw *w = arg;

	if (!timeq_timer_store(&timer(w, 0)->timer, 600))
		xw_fast_update(w, timer(w, 0), 600);
}

static void i3_near(void *arg)
{
	struct xw *w = arg;

	timeq_timer_store(&timer(w, 0)->timer, 25);
}

static void i3_shutdown(void *arg)
{
	struct xw *w = arg;
	struct xt *x = timer(w, 0);

	g11_shutdown(arg);
	if (timeq_timer_store(&x->timer, 700) || x->timer.node.owner)
		xw_fail("a store landed on X after timeq_shutdown_sync() returned");
}

static void i3_setup(struct xw *w)
{
	g11_world(w, i3_far, i3_near, i3_shutdown);
}

/* ------------------------------------------------------------------ */
/*
 * The expiry runs a timer's callback, then files two stored timers again
 * in one lock hold (tq_clock_run()): Z is at 4; X and Y, at 5, were
 * stored to 40 and 45 before the run; BULK timers lie in bucket 2, out of
 * order, so that the earliest once X and Y have gone is found by the
 * pending work their filing leaves. As the clock passes 6, a softirq
 * stores X to 50, before, between or after the filings, or fails on the
 * word the claim closed and takes the lanes; Y's owner deletes it with
 * timeq_delete_sync() and frees it.
 * Oracle: latest wins (P-a, P-b) for X, checked before it expires; X
 * fires once, at 50 or later; Z fires; no callback of Y after its
 * delete_sync() returned (its memory is freed).
 */
static void s6_store(void *arg)
{
	struct xw *w = arg;

	xw_fast_request(w, timer(w, 1), 50);
}

static void s6_owner(void *arg)
{
	struct xw *w = arg;
	struct xt *y = timer(w, 2);

	if (!xw_delete_sync(w, y) && !y->fired)
		xw_fail("timeq_delete_sync(Y) returned 0 (not armed), but Y was armed and its callback has not run");
	xw_free(w, y);
}

static void s6_setup(struct xw *w)
{
	struct xt *x, *y;

	xw_create(w, true, 0, H, D, M);
	armed(w, 4, true);		/* Z */
	x = armed(w, 5, false);		/* X */
	x->exact = false;
	x->hook = g6_hook;
	y = armed(w, 5, false);		/* Y */
	y->exact = false;
	/* The earliest once they have gone: found by pending work. */
	bulk(w, BULK, 2, true);
	xw_fast_request(w, x, 40);
	if (xw_fast_update(w, y, 45) != TIMEQ_APPLIED)
		xw_fail("the store of Y to 45 was not applied");
	xp_spawn("clock", g6_clock, w, 0);
	xp_spawn("store", s6_store, w, XP_SOFTIRQ);
	xp_spawn("owner", s6_owner, w, 0);
}

static void s6_final(struct xw *w)
{
	struct xt *x = timer(w, 1);

	if (x->fired != 1 || x->last < 50)
		xw_fail("X fired %u times, the last at tick %lu: want once, at 50 or later",
			x->fired, x->last);
}

/* ------------------------------------------------------------------ */
/*
 * timeq_base_destroy() while the work runs a callback that arms its own
 * timer again by a fast update, which hands off and kicks the base's
 * irq_work: the queue's clock is still at the timer's tick, 3, when the
 * clock reads 4, so tick 4 + H - 1 lies beyond the queue's window but in
 * the clock's. A callback running is waited for, and may arm its timer
 * meanwhile (timeq_base_destroy()'s kernel-doc). Its irq_work is lazy:
 * under PCT the kick runs only when nothing else can.
 * Oracle: nothing active is freed (xp_freeing(): no kick, work or hrtimer
 * of the base left queued), and the timers come out released.
 */
static void dk_hook(struct xt *t)
{
	if (xw_fast_update(t->w, t, xw_tick(t->w) + H - 1) != TIMEQ_DEFERRED)
		xw_fail("the callback's fast update was not handed off");
}

static void dk_clock(void *arg)
{
	xw_advance_to(arg, 4);
}

static void dk_owner(void *arg)
{
	xw_destroy(arg);
}

static void dk_setup(struct xw *w)
{
	struct xt *a;

	xw_create(w, true, 0, H, D, M);
	a = armed(w, 3, false);
	a->exact = false;
	a->hook = dk_hook;
	armed(w, 9, false);
	xp_spawn("clock", dk_clock, w, 0);
	xp_spawn("owner", dk_owner, w, 0);
}

/* ------------------------------------------------------------------ */

const struct scenario xw_scenarios[] = {
	{ "d1-expire-vs-delete-sync",
	  "defect 1: delete_sync during the expiry's far resolve; no callback after free",
	  1, d1_setup, NULL, NULL, 0, false },
	{ "d2-near-vs-far-insert",
	  "defect 2: near-lane settle vs a bucket_lock-only insert; the minimum",
	  2, d2_setup, NULL, d2_final, 0, false },
	{ "d2-near-vs-far-lane",
	  "defect 2: near-lane settle vs the far lane; the minimum",
	  2, d2b_setup, NULL, d2_final, 0, false },
	{ "d3-drain-relock-vs-walk",
	  "defect 3: a drain past its budget vs a pending WALK; the minimum",
	  3, d3_setup, NULL, d3_final, 0, false },
	{ "d4-kick-vs-arm",
	  "defect 4: the kick vs a slow-side arm; the hrtimer against the minimum",
	  4, d4_setup, NULL, NULL, 0, false },
	{ "d4-two-kicks",
	  "defect 4: two kicks on two CPUs; the hrtimer against the minimum",
	  4, d4b_setup, NULL, NULL, 0, false },
	{ "d5-deferred-beyond-lag",
	  "defect 5: a DEFERRED fast update beyond the lagging clock; it fires",
	  5, d5_setup, NULL, NULL, 0, false },
	{ "d6-min-for-dev",
	  "defect 6: timeq_min() during a resolve of a non-empty queue; never NULL",
	  6, d6_setup, NULL, d6_final, 0, false },
	{ "d7-delete-vs-handoff",
	  "defect 7: timer_delete vs a fast update's hand-off; no livelock",
	  7, d7_setup, NULL, d7_final, 0, false },
	{ "d7-shutdown-vs-handoff",
	  "defect 7: shutdown_sync vs a fast update's hand-off; no livelock",
	  7, d7b_setup, NULL, d7_final, 0, false },
	{ "d7-arm-vs-drain-gap",
	  "defect 7: timer_arm vs a drain's relock with its request; no livelock",
	  7, d7c_setup, NULL, d7c_final, 0, false },
	{ "fast-vs-slow",
	  "fast update and fast min vs slow arm/move/delete/delete_min; invariants, order",
	  0, g1_setup, NULL, g1_final, 0, false },
	{ "slow-ops-long-buckets",
	  "insert/update/delete/delete_min/del_less_than over buckets > TIMEQ_HOLD",
	  0, g2_setup, NULL, g2_final, 0, false },
	{ "drain-past-budget",
	  "70 hand-offs drained in two holds vs slow and fast calls; all applied",
	  0, g3_setup, NULL, g3_final, 0, false },
	{ "expiry-callbacks",
	  "work and timeq_expire() callbacks vs arm/move; order, never early, all fire",
	  0, g4_setup, NULL, g4_final, 0, false },
	{ "shutdown-rearming",
	  "shutdown_sync of a self-re-arming timer, then free; no callback after",
	  0, g5_setup, NULL, NULL, 0, false },
	{ "fast-update-vs-expiry",
	  "a fast update as its timer expires; fires once or twice, last on time",
	  0, g6_setup, NULL, g6_final, 0, false },
	{ "requests-one-timer",
	  "two fast requests of one timer, handed off and in place; latest wins",
	  0, g8_setup, NULL, g8_final, 0, false },
	{ "requests-three-softirqs",
	  "three fast requests of one timer, two handed off; latest wins",
	  0, g9_setup, NULL, g8_final, 0, false },
	{ "requests-vs-delete",
	  "two fast requests vs timer_delete; none lands after the delete",
	  0, g10_setup, NULL, g10_final, 0, false },
	{ "shutdown-vs-requests",
	  "shutdown_sync vs fast updates; no reference left when it returns",
	  0, g11_setup, NULL, g10_final, 0, false },
	{ "walk-vs-near-insert",
	  "a near-lane insert during a WALK's lock drop; the minimum",
	  0, g12_setup, NULL, g12_final, 0, false },
	{ "far-path-vs-near-lane",
	  "a bucket_lock-only update/delete vs the near lane; invariants",
	  0, g13_setup, NULL, g13_final, 0, false },
	{ "move-vs-expiry",
	  "timeq_timer_move() as its timer expires; fires exactly once",
	  0, g7_setup, NULL, g7_final, 0, false },
	{ "store-vs-drain",
	  "a store after a hand-off of the same timer vs the drain; latest wins",
	  0, s1_setup, s_tracked, NULL, 4, false },
	{ "store-vs-expiry",
	  "a store as its timer expires; stored: fires once, at the new time",
	  0, s2_setup, NULL, s2_final, 0, false },
	{ "store-vs-delete",
	  "a store vs timer_delete; latest wins",
	  0, s3_setup, s_tracked, NULL, 0, false },
	{ "store-vs-first",
	  "stores vs tq_clock_first() filing them; latest wins",
	  0, s4_setup, s_tracked, NULL, 0, false },
	{ "store-vs-first-door",
	  "stores vs tq_clock_first() past its budget, in its door; latest wins",
	  0, s4b_setup, s_tracked, NULL, 0, false },
	{ "store-vs-refile-pending",
	  "a store vs the expiry filing its timer again, a request pending; latest wins",
	  0, s5_setup, s_tracked, NULL, 0, false },
	{ "inline-store-vs-drain",
	  "timeq_timer_store() after a hand-off of its timer vs the drain; latest wins",
	  0, i1_setup, s_tracked, NULL, 4, false },
	{ "inline-store-vs-expiry",
	  "timeq_timer_store() as its timer expires; landed: fires once, at the new time",
	  0, i2_setup, NULL, i2_final, 0, false },
	{ "inline-store-vs-shutdown",
	  "timeq_timer_store() vs shutdown_sync; no reference left, no store after",
	  0, i3_setup, NULL, g10_final, 0, false },
	{ "destroy-vs-callback",
	  "destroy while a callback arms its timer by a fast update; nothing active freed",
	  0, dk_setup, NULL, NULL, 0, true },
	{ "refiles-in-one-hold",
	  "a store and a delete_sync vs the expiry filing two timers in one hold",
	  0, s6_setup, s_tracked, s6_final, 0, false },
};

const unsigned int xw_nscenarios = ARRAY_SIZE(xw_scenarios);
