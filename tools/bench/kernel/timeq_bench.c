// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_bench.ko: the userspace benchmark's workloads inside a kernel,
 * timeq's bare data structure (module/queue.c, through bench_queue.c)
 * against the kernel's own timer queues:
 *
 *	timerqueue	lib/timerqueue.c, hrtimer's rbtree with the leftmost
 *			node cached: timerqueue_add(), timerqueue_del(),
 *			timerqueue_getnext()
 *	min_heap	include/linux/min_heap.h, a binary heap of pointers
 *			whose swap callback keeps each element's index, so
 *			that a cancel is min_heap_del() at that index
 *	wheel		the timer wheel: timer_list, mod_timer() and
 *			timer_delete(), on this CPU's timer base
 *
 * Workloads, jumps uniform on 1 .. 2^20 ticks, at N = 10^3, 10^4, 10^5:
 *
 *	hold	delete-min, insert at its time + jump (not the wheel: it has
 *		no minimum to take but by waiting for it to fire)
 *	churn	cancel a random timer, start it at now + jump
 *	move	move a random timer to T (1 +- 10%), T = 2^19: W3's refresh;
 *		the wheel's mod_timer() keeps a timer in its bucket when the
 *		bucket does not change
 *	storm	N timers at one time, then expire them all (the wheel: the
 *		arming, and the span from the first callback to the last)
 *
 * The wheel's times are jiffies from now plus 2^12, so none fires while a
 * workload runs. Every structure runs the same generated sequence, a
 * warm-up and then @reps timed runs, the median kept; what each removes is
 * compared with timeq's (times, in order), and a mismatch fails the load
 * with -EINVAL. Then @late_timers timers are armed on the wheel at 1 ..
 * 1024 jiffies and left to fire: how late each fires, beside timeq, whose
 * every removal above was at its exact time.
 *
 * tools/bench/bench.sh runs it twice and prints its lines: built into a
 * User-Mode Linux kernel (tools/testing/kunit/uml.sh --bench), where the
 * kernel's code runs as the host's own instructions, and as a module in
 * Debian's stock 6.12 under qemu, emulated (TCG, no KVM here), whose
 * ratios alone mean something.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/min_heap.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timeq.h>
#include <linux/timer.h>
#include <linux/timerqueue.h>
#include <linux/vmalloc.h>

#include "../../../module/queue.h"
#include "../bare.h"

static unsigned int ops = 50000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "operations in each timed run");
static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "timed runs of each, after a warm-up; the median is kept");
static unsigned int late_timers = 2000;
module_param(late_timers, uint, 0444);
MODULE_PARM_DESC(late_timers, "timer_list timers armed to measure lateness");

#define TB_JMAX		BIT(20)
#define TB_HORIZON	(TB_JMAX + 1ULL)
#define TB_T		BIT(19)
#define TB_WHEEL_FAR	BIT(12)		/* jiffies: no timer fires meanwhile */
#define TB_MAX_REPS	15

enum tb_wl { TB_HOLD, TB_CHURN, TB_MOVE, TB_STORM, TB_NWL };
enum tb_st { TB_TIMEQ, TB_TIMERQUEUE, TB_HEAP, TB_WHEEL, TB_NST };

static const char *const tb_wl_name[TB_NWL] = { "hold", "churn", "move", "storm" };
static const char *const tb_st_name[TB_NST] = {
	"timeq", "timerqueue", "min_heap", "wheel"
};

/* One generated cell: the same for every structure. */
struct tb_seq {
	enum tb_wl	wl;
	u32		n;
	u32		nops;
	u64		*init;		/* initial times */
	u32		*id;		/* churn, move: the element */
	u64		*t;		/* hold: the jump; churn, move: the time */
};

/* The heap's element: its time and where it is in the heap. */
struct tb_helem {
	u64	time;
	int	idx;
};

DEFINE_MIN_HEAP(struct tb_helem *, tb_heap);

/* Every structure of one cell, and what they removed. */
struct tb_state {
	struct tb_seq		*s;
	struct timeq		*q;
	struct timeq_node	*tq;
	struct timerqueue_head	trq_head;
	struct timerqueue_node	*trq;
	struct tb_heap		heap;
	struct tb_helem		*helem;
	struct tb_helem		**hdata;
	struct timer_list	*wt;
	u64			*rec;		/* this run's removals */
	u64			*want;		/* timeq's, to compare with */
	u64			nrec;
	/* the wheel's storm: the first and the last callback */
	atomic_t		fired;
	u64			first_ns, last_ns;
	struct completion	all_fired;
};

static u64 tb_rng;

static u64 tb_rand(void)
{
	u64 z = (tb_rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* --- min_heap callbacks --- */

static bool tb_heap_less(const void *lhs, const void *rhs, void *args)
{
	return (*(struct tb_helem **)lhs)->time <
	       (*(struct tb_helem **)rhs)->time;
}

static void tb_heap_swap(void *lhs, void *rhs, void *args)
{
	struct tb_helem **a = lhs, **b = rhs, *tmp = *a;
	struct tb_heap *heap = args;

	*a = *b;
	*b = tmp;
	(*a)->idx = a - heap->data;
	(*b)->idx = b - heap->data;
}

static const struct min_heap_callbacks tb_heap_cb = {
	.less = tb_heap_less,
	.swp = tb_heap_swap,
};

static void tb_heap_push(struct tb_state *st, struct tb_helem *e, u64 time)
{
	e->time = time;
	e->idx = st->heap.nr;
	min_heap_push(&st->heap, &e, &tb_heap_cb, &st->heap);
}

/* Remove element @idx; a pop is min_heap_del() at 0, which swaps. */
static struct tb_helem *tb_heap_del(struct tb_state *st, int idx)
{
	struct tb_helem *e = st->heap.data[idx];

	min_heap_del(&st->heap, idx, &tb_heap_cb, &st->heap);
	e->idx = -1;
	return e;
}

/* --- timeq's bare calls, as module/paths.c makes them --- */

static void tb_tq_record(struct timeq_node *node, void *arg)
{
	struct tb_state *st = arg;

	st->rec[st->nrec++] = node->time;
}

/* --- the wheel's storm: the first and the last callback --- */

static struct tb_state *tb_storm_state;

static void tb_storm_fired(struct timer_list *timer)
{
	struct tb_state *st = tb_storm_state;
	u64 now = ktime_get_ns();

	if (atomic_inc_return(&st->fired) == 1)
		st->first_ns = now;
	if (atomic_read(&st->fired) == st->s->n) {
		st->last_ns = now;
		complete(&st->all_fired);
	}
}

/* --- building and tearing down --- */

static int tb_alloc(struct tb_state *st, struct tb_seq *s)
{
	u32 i;

	memset(st, 0, sizeof(*st));
	st->s = s;
	st->q = kzalloc(sizeof(*st->q), GFP_KERNEL);
	if (!st->q)
		return -ENOMEM;
	st->tq = vcalloc(s->n, sizeof(*st->tq));
	st->trq = vcalloc(s->n, sizeof(*st->trq));
	st->helem = vcalloc(s->n, sizeof(*st->helem));
	st->hdata = vcalloc(s->n, sizeof(*st->hdata));
	st->wt = vcalloc(s->n, sizeof(*st->wt));
	st->rec = vcalloc((size_t)s->nops + s->n, sizeof(*st->rec));
	st->want = vcalloc((size_t)s->nops + s->n, sizeof(*st->want));
	if (!st->tq || !st->trq || !st->helem || !st->hdata || !st->wt ||
	    !st->rec || !st->want)
		return -ENOMEM;
	min_heap_init(&st->heap, st->hdata, s->n);
	timerqueue_init_head(&st->trq_head);
	init_completion(&st->all_fired);
	for (i = 0; i < s->n; i++) {
		timeq_node_init(&st->tq[i]);
		timerqueue_init(&st->trq[i]);
		st->helem[i].idx = -1;
		timer_setup(&st->wt[i], tb_storm_fired, 0);
	}
	return 0;
}

/* Empty timeq: release its nodes and free its arrays. */
static void tb_tq_release(struct timeq *q)
{
	if (!q->buckets)
		return;
	while (__timeq_release_step(q, NULL, NULL))
		;
	__timeq_free(q);
}

/*
 * A fresh, empty timeq of the rule's shape for the cell's N and mean jump
 * (__timeq_tune() of module/tune.h), clock at 0.
 */
static int tb_tq_reset(struct tb_state *st)
{
	unsigned int ds, bs;

	tb_tq_release(st->q);
	memset(st->q, 0, sizeof(*st->q));
	__timeq_tune(TB_HORIZON, st->s->n, TB_JMAX / 2, &ds, &bs);
	return __timeq_init(st->q, 0, TB_HORIZON, 1U << ds, 1U << bs,
			    GFP_KERNEL);
}

static void tb_free(struct tb_state *st)
{
	u32 i;

	if (st->wt)
		for (i = 0; i < st->s->n; i++)
			timer_delete_sync(&st->wt[i]);
	if (st->q)
		tb_tq_release(st->q);
	kfree(st->q);
	vfree(st->tq);
	vfree(st->trq);
	vfree(st->helem);
	vfree(st->hdata);
	vfree(st->wt);
	vfree(st->rec);
	vfree(st->want);
}

/* Empty structure @which and fill it with the initial times. */
static int tb_fill(struct tb_state *st, enum tb_st which)
{
	struct tb_seq *s = st->s;
	u32 i;

	switch (which) {
	case TB_TIMEQ:
		if (tb_tq_reset(st))
			return -ENOMEM;
		for (i = 0; s->init && i < s->n; i++) {
			st->q->budget = TIMEQ_HOLD;
			__timeq_insert(st->q, &st->tq[i], s->init[i]);
		}
		break;
	case TB_TIMERQUEUE:
		timerqueue_init_head(&st->trq_head);
		for (i = 0; i < s->n; i++) {
			timerqueue_init(&st->trq[i]);
			if (!s->init)
				continue;
			st->trq[i].expires = s->init[i];
			timerqueue_add(&st->trq_head, &st->trq[i]);
		}
		break;
	case TB_HEAP:
		st->heap.nr = 0;
		if (s->init)
			for (i = 0; i < s->n; i++)
				tb_heap_push(st, &st->helem[i], s->init[i]);
		break;
	default:
		for (i = 0; i < s->n; i++) {
			timer_delete_sync(&st->wt[i]);
			if (s->init)
				mod_timer(&st->wt[i],
					  jiffies + TB_WHEEL_FAR + s->init[i]);
		}
		break;
	}
	return 0;
}

/* Remove everything in order, for the final check of churn and move. */
static void tb_drain(struct tb_state *st, enum tb_st which)
{
	struct timerqueue_node *tn;
	struct timeq_node *node;
	u32 i;

	switch (which) {
	case TB_TIMEQ:
		for (;;) {
			st->q->budget = TIMEQ_HOLD;
			node = __timeq_delete_min(st->q);
			if (!node)
				break;
			tq_bare_steps(st->q);
			st->rec[st->nrec++] = node->time;
		}
		break;
	case TB_TIMERQUEUE:
		while ((tn = timerqueue_getnext(&st->trq_head))) {
			timerqueue_del(&st->trq_head, tn);
			st->rec[st->nrec++] = tn->expires;
		}
		break;
	case TB_HEAP:
		while (st->heap.nr)
			st->rec[st->nrec++] = tb_heap_del(st, 0)->time;
		break;
	default:
		for (i = 0; i < st->s->n; i++)
			timer_delete(&st->wt[i]);
		break;
	}
}

/* --- one timed run of one structure --- */

static void tb_run_hold(struct tb_state *st, enum tb_st which)
{
	struct tb_seq *s = st->s;
	struct timerqueue_node *tn;
	struct timeq_node *node;
	struct tb_helem *e;
	u32 k;

	for (k = 0; k < s->nops; k++) {
		switch (which) {
		case TB_TIMEQ:
			st->q->budget = TIMEQ_HOLD;
			node = __timeq_delete_min(st->q);
			tq_bare_steps(st->q);
			st->rec[st->nrec++] = node->time;
			st->q->budget = TIMEQ_HOLD;
			__timeq_insert(st->q, node, node->time + s->t[k]);
			break;
		case TB_TIMERQUEUE:
			tn = timerqueue_getnext(&st->trq_head);
			timerqueue_del(&st->trq_head, tn);
			st->rec[st->nrec++] = tn->expires;
			tn->expires += s->t[k];
			timerqueue_add(&st->trq_head, tn);
			break;
		default:
			e = tb_heap_del(st, 0);
			st->rec[st->nrec++] = e->time;
			tb_heap_push(st, e, e->time + s->t[k]);
			break;
		}
	}
}

static void tb_run_churn(struct tb_state *st, enum tb_st which, bool move)
{
	struct tb_seq *s = st->s;
	struct tb_helem *e;
	u32 k, i;

	for (k = 0; k < s->nops; k++) {
		i = s->id[k];
		switch (which) {
		case TB_TIMEQ:
			st->q->budget = TIMEQ_HOLD;
			if (move) {
				__timeq_update(st->q, &st->tq[i], s->t[k]);
			} else {
				__timeq_delete(st->q, &st->tq[i]);
				tq_bare_steps(st->q);
				__timeq_insert(st->q, &st->tq[i], s->t[k]);
			}
			tq_bare_steps(st->q);
			break;
		case TB_TIMERQUEUE:
			timerqueue_del(&st->trq_head, &st->trq[i]);
			st->trq[i].expires = s->t[k];
			timerqueue_add(&st->trq_head, &st->trq[i]);
			break;
		case TB_HEAP:
			e = &st->helem[i];
			if (move) {
				/* A key change sifts in place, as heap users do. */
				e->time = s->t[k];
				min_heap_sift_up(&st->heap, e->idx, &tb_heap_cb,
						 &st->heap);
				min_heap_sift_down(&st->heap, e->idx, &tb_heap_cb,
						   &st->heap);
			} else {
				tb_heap_del(st, e->idx);
				tb_heap_push(st, e, s->t[k]);
			}
			break;
		default:
			if (!move)
				timer_delete(&st->wt[i]);
			mod_timer(&st->wt[i], jiffies + TB_WHEEL_FAR + s->t[k]);
			break;
		}
	}
}

/* One storm: every element at one time, then all expired. */
static void tb_run_storm(struct tb_state *st, enum tb_st which, u64 time)
{
	struct tb_seq *s = st->s;
	struct timerqueue_node *tn;
	u32 i;

	switch (which) {
	case TB_TIMEQ:
		for (i = 0; i < s->n; i++) {
			st->q->budget = TIMEQ_HOLD;
			__timeq_insert(st->q, &st->tq[i], time);
		}
		tq_bare_expire(st->q, time + 1, tb_tq_record, st);
		break;
	case TB_TIMERQUEUE:
		for (i = 0; i < s->n; i++) {
			st->trq[i].expires = time;
			timerqueue_add(&st->trq_head, &st->trq[i]);
		}
		while ((tn = timerqueue_getnext(&st->trq_head))) {
			timerqueue_del(&st->trq_head, tn);
			st->rec[st->nrec++] = tn->expires;
		}
		break;
	case TB_HEAP:
		for (i = 0; i < s->n; i++)
			tb_heap_push(st, &st->helem[i], time);
		while (st->heap.nr)
			st->rec[st->nrec++] = tb_heap_del(st, 0)->time;
		break;
	default:
		break;
	}
}

/*
 * The wheel's storm: arm every timer for the next jiffy but one, timed;
 * then the span from the first callback to the last, per timer.
 */
static int tb_wheel_storm(struct tb_state *st, u64 *arm_ns, u64 *fire_ns)
{
	unsigned long at;
	u64 t0;
	u32 i;

	atomic_set(&st->fired, 0);
	reinit_completion(&st->all_fired);
	tb_storm_state = st;
	at = jiffies + 2;
	t0 = ktime_get_ns();
	for (i = 0; i < st->s->n; i++)
		mod_timer(&st->wt[i], at);
	*arm_ns = ktime_get_ns() - t0;
	if (!wait_for_completion_timeout(&st->all_fired, 10 * HZ))
		return -ETIMEDOUT;
	*fire_ns = st->last_ns - st->first_ns;
	return 0;
}

/* --- the cells --- */

static int tb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 tb_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), tb_cmp_u64, NULL);
	return v[n / 2];
}

static int tb_generate(struct tb_seq *s, enum tb_wl wl, u32 n)
{
	u32 k;

	memset(s, 0, sizeof(*s));
	s->wl = wl;
	s->n = n;
	s->nops = wl == TB_STORM ? 1 : ops;
	s->init = wl == TB_STORM ? NULL : vcalloc(n, sizeof(*s->init));
	s->id = vcalloc(s->nops, sizeof(*s->id));
	s->t = vcalloc(s->nops, sizeof(*s->t));
	if ((wl != TB_STORM && !s->init) || !s->id || !s->t)
		return -ENOMEM;
	tb_rng = wl * 1000003ULL + n;
	for (k = 0; s->init && k < n; k++)
		s->init[k] = wl == TB_MOVE ? TB_T - TB_T / 10 + tb_rand() % (TB_T / 5) :
					     1 + tb_rand() % TB_JMAX;
	for (k = 0; k < s->nops; k++) {
		s->id[k] = tb_rand() % n;
		if (wl == TB_MOVE)
			s->t[k] = TB_T - TB_T / 10 + tb_rand() % (TB_T / 5 + 1);
		else
			s->t[k] = 1 + tb_rand() % TB_JMAX;
	}
	return 0;
}

static void tb_seq_free(struct tb_seq *s)
{
	vfree(s->init);
	vfree(s->id);
	vfree(s->t);
}

/* Run cell (@wl, @n) on every structure; ns per operation in @ns. */
static int tb_cell(enum tb_wl wl, u32 n, u64 ns[TB_NST])
{
	u64 v[TB_MAX_REPS + 1], arm, fire, t0, per;
	struct tb_state st;
	struct tb_seq s;
	unsigned int r, nreps = clamp(reps, 1U, (unsigned int)TB_MAX_REPS);
	enum tb_st which;
	int err;

	err = tb_generate(&s, wl, n);
	if (!err)
		err = tb_alloc(&st, &s);
	if (err)
		goto out;
	per = wl == TB_STORM ? n : s.nops;
	for (which = TB_TIMEQ; which < TB_NST; which++) {
		ns[which] = 0;
		if (which == TB_WHEEL && wl == TB_HOLD)
			continue;
		for (r = 0; r <= nreps; r++) {
			err = tb_fill(&st, which);
			if (err)
				goto out;
			st.nrec = 0;
			if (which == TB_WHEEL && wl == TB_STORM) {
				err = tb_wheel_storm(&st, &arm, &fire);
				if (err)
					goto out;
				v[r] = arm + fire;
				continue;
			}
			t0 = ktime_get_ns();
			if (wl == TB_HOLD)
				tb_run_hold(&st, which);
			else if (wl == TB_STORM)
				tb_run_storm(&st, which, s.t[0]);
			else
				tb_run_churn(&st, which, wl == TB_MOVE);
			v[r] = ktime_get_ns() - t0;
			if (wl == TB_CHURN || wl == TB_MOVE)
				tb_drain(&st, which);
			if (r || which == TB_WHEEL)
				continue;
			/* What timeq removed is the reference for the others. */
			if (which == TB_TIMEQ) {
				memcpy(st.want, st.rec, st.nrec * sizeof(*st.rec));
			} else if (memcmp(st.want, st.rec,
					  st.nrec * sizeof(*st.rec))) {
				pr_err("FAILED: %s %s N=%u: %s removed other times than timeq\n",
				       tb_wl_name[wl], tb_st_name[which], n,
				       tb_st_name[which]);
				err = -EINVAL;
				goto out;
			}
			if (st.nrec != (wl == TB_HOLD ? s.nops : n)) {
				pr_err("FAILED: %s %s N=%u: removed %llu\n",
				       tb_wl_name[wl], tb_st_name[which], n,
				       st.nrec);
				err = -EINVAL;
				goto out;
			}
			cond_resched();
		}
		/* The warm-up, run 0, is left out of the median. */
		ns[which] = tb_median(v + 1, nreps) / per;
		cond_resched();
	}
out:
	tb_free(&st);
	tb_seq_free(&s);
	return err;
}

/* --- lateness --- */

struct tb_late {
	struct timer_list	timer;
	unsigned long		expires;	/* asked for */
	unsigned long		delay;		/* jiffies from arming */
	unsigned long		late;		/* jiffies after @expires */
};

static atomic_t tb_late_left;
static DECLARE_COMPLETION(tb_late_done);

static void tb_late_fired(struct timer_list *timer)
{
	struct tb_late *l = timer_container_of(l, timer, timer);

	l->late = jiffies - l->expires;
	if (atomic_dec_and_test(&tb_late_left))
		complete(&tb_late_done);
}

static int tb_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Arm @late_timers timers at 1 .. 1024 jiffies and wait for them: how late
 * each fires, by the wheel level its delay falls in (levels of 64 buckets,
 * each 8 times coarser than the one below).
 */
static int tb_lateness(void)
{
	static const unsigned long bound[] = { 64, 512, 1025 };
	unsigned long *late, worst_pct = 0, on_time = 0;
	unsigned int i, j, n, lo = 1;
	struct tb_late *l;
	int err = 0;

	if (!late_timers)
		return 0;
	l = vcalloc(late_timers, sizeof(*l));
	late = vcalloc(late_timers, sizeof(*late));
	if (!l || !late) {
		err = -ENOMEM;
		goto out;
	}
	tb_rng = 42;
	atomic_set(&tb_late_left, late_timers);
	for (i = 0; i < late_timers; i++) {
		timer_setup(&l[i].timer, tb_late_fired, 0);
		l[i].delay = 1 + tb_rand() % 1024;
		l[i].expires = jiffies + l[i].delay;
		mod_timer(&l[i].timer, l[i].expires);
	}
	if (!wait_for_completion_timeout(&tb_late_done, 1024 + 10 * HZ)) {
		pr_err("FAILED: lateness: timers did not fire\n");
		err = -ETIMEDOUT;
		goto out;
	}
	pr_info("wheel lateness: %u timer_list timers at 1 .. 1024 jiffies (HZ=%d), how many jiffies after the asked expiry each ran:\n",
		late_timers, HZ);
	for (j = 0; j < ARRAY_SIZE(bound); j++) {
		for (i = n = 0; i < late_timers; i++) {
			if (l[i].delay < lo || l[i].delay >= bound[j])
				continue;
			late[n++] = l[i].late;
			on_time += !l[i].late;
			worst_pct = max(worst_pct, 100 * l[i].late / l[i].delay);
		}
		if (n) {
			sort(late, n, sizeof(*late), tb_cmp_ulong, NULL);
			pr_info("  delay %4u..%4lu jiffies: %4u timers, late p50 %lu, p99 %lu, max %lu jiffies\n",
				lo, bound[j] - 1, n, late[n / 2],
				late[n * 99 / 100], late[n - 1]);
		}
		lo = bound[j];
	}
	pr_info("  on time: %lu of %u; the latest, relative to its delay: %lu%%\n",
		on_time, late_timers, worst_pct);
	pr_info("  timeq: every removal in hold, churn, move and storm above was at its exact time (0 ticks late), checked\n");
out:
	if (l)
		for (i = 0; i < late_timers; i++)
			timer_delete_sync(&l[i].timer);
	vfree(l);
	vfree(late);
	return err;
}

static int __init tb_init(void)
{
	static const u32 sizes[] = { 1000, 10000, 100000 };
	u64 ns[TB_NST];
	enum tb_st which;
	unsigned int i;
	enum tb_wl wl;
	char line[256];
	int err, len;

	if (IS_ENABLED(CONFIG_UML))
		pr_info("measured in User-Mode Linux: this host's instructions, one CPU\n");
	else
		pr_info("measured under emulation (qemu TCG): compare the ratios, not the absolute times\n");
	pr_info("ns per operation, median of %u runs of %u operations (storm: per timer); ratio = theirs / timeq's\n",
		reps, ops);
	for (wl = TB_HOLD; wl < TB_NWL; wl++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			err = tb_cell(wl, sizes[i], ns);
			if (err) {
				pr_err("FAILED: %s N=%u: %d\n", tb_wl_name[wl],
				       sizes[i], err);
				return err;
			}
			len = scnprintf(line, sizeof(line), "%-5s N=%-6u timeq %6llu",
					tb_wl_name[wl], sizes[i], ns[TB_TIMEQ]);
			for (which = TB_TIMERQUEUE; which < TB_NST; which++) {
				if (!ns[which]) {
					len += scnprintf(line + len, sizeof(line) - len,
							 " | %s -", tb_st_name[which]);
					continue;
				}
				len += scnprintf(line + len, sizeof(line) - len,
						 " | %s %6llu (%llu.%02llux)",
						 tb_st_name[which], ns[which],
						 ns[which] / max(ns[TB_TIMEQ], 1ULL),
						 ns[which] * 100 / max(ns[TB_TIMEQ], 1ULL) % 100);
			}
			pr_info("%s\n", line);
		}
	}
	pr_info("wheel: hold has no line (the wheel takes no minimum but by firing); storm: arming, then first to last callback\n");
	err = tb_lateness();
	if (err)
		return err;
	pr_info("done: every structure removed what timeq removed, in order\n");
	return 0;
}

static void __exit tb_exit(void)
{
}

module_init(tb_init);
module_exit(tb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq's workloads against the kernel's timer queues");
