// SPDX-License-Identifier: GPL-2.0
/*
 * The world a scenario runs in: one timer base, a test base
 * (tq_base_create_test(), module/base.c) or one on compat's clock (a
 * "clocked" world), the scenario's timers and nodes, and the oracles every
 * run is judged by.
 *
 * At every quiet moment (the last spinlock held by anyone released) with
 * no work pending, the queue's invariants hold (__timeq_check()). At
 * every quiescence (no thread can run, none has ended badly): no work is
 * pending at all (pending work never outlives the call that made it), the
 * invariants hold, and in a base the hrtimer is armed no later than the
 * minimum's tick, and armed only while the queue holds a timer. After the
 * scenario's own phases, a base's clock is moved past every timer and
 * what is due runs (in one schedule: the interleavings of the scenario
 * are in its threads), and at the end every timer that must fire has
 * fired, the queue is empty, no request is left, no freed timer was
 * written, and each tracked timer is where a request older than no other
 * put it (xw_check_requests()); a test base's queue is drained in
 * order, and every insertion must have been removed once. Then the base
 * is destroyed and no allocation may be left.
 *
 * In every callback: the timer was not freed by its owner (xw_free()
 * poisons it: the callback pointer becomes xw_fire_freed(), the rest a
 * pattern, and under ASan any touch is a report), and for an "exact"
 * timer (one that nothing re-arms while it may be expiring, so its time
 * in the callback is the time it expired at) it is not early, and the
 * callbacks of exact timers come in order of time, then insertion.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/timeq.h>

#include "clock.h"
#include "explore.h"
#include "paths.h"
#include "queue.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define XW_POISON(p, n)		ASAN_POISON_MEMORY_REGION(p, n)
#define XW_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define XW_POISON(p, n)		((void)(p), (void)(n))
#define XW_UNPOISON(p, n)	((void)(p), (void)(n))
#endif

#define XW_PATTERN	0x6b

struct xw_run {
	const struct scenario	*sc;
	struct xw		w;
	bool			scenario_done;	/* its phases are over */
	bool			expired_all;	/* the clock moved past all */
	bool			checked;	/* at a quiet moment, as... */
	uint64_t		checked_fp;	/* ...fingerprinted here */
};

static void xw_fire(struct timeq_timer *timer);

static void xw_fire_freed(struct timeq_timer *timer)
{
	struct xt *t = container_of(timer, struct xt, timer);

	xw_fail("the callback of %s ran after its owner freed it (delete_sync or shutdown_sync had returned)",
		t->name);
}

uint64_t xw_rand(struct xw *w)
{
	uint64_t z = (w->rand += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* --- building the world --- */

void xw_create(struct xw *w, bool clocked, u64 now, u64 horizon,
	       unsigned int delta, unsigned int nbuckets)
{
	struct timeq_base *base;
	struct timeq *q;

	w->clocked = clocked;
	w->horizon = horizon;
	/* Insertion numbers for the oracles and timeq_check(): queue.h. */
	tq_fifo_nodes = XW_TIMERS + XW_NODES;
	if (clocked) {
		w->gran = 10;
		xp_clock_set(now * w->gran);
		base = timeq_base_create(w->gran, horizon, delta, nbuckets,
					 GFP_KERNEL);
	} else {
		base = tq_base_create_test(now, horizon, delta, nbuckets);
	}
	if (IS_ERR(base))
		xw_fail("creating the base: %ld", PTR_ERR(base));
	w->base = base;
	q = tq_base_queue(base);
	w->q = q;
	/*
	 * struct timeq_base (clock.h) named as a whole, the queue it composes
	 * and the fields of both within it.
	 */
	xp_name(base, sizeof(*base), "base");
	xp_name(q, sizeof(*q), "q");
	xp_name(&q->head_lock, sizeof(q->head_lock), "head_lock");
	xp_name(&q->head2_lock, sizeof(q->head2_lock), "head2_lock");
	xp_name(&q->bucket_lock, sizeof(q->bucket_lock), "bucket_lock");
	xp_name(&q->now, sizeof(q->now), "q->now");
	xp_name(&q->min, sizeof(q->min), "q->min");
	xp_name(&q->min_time, sizeof(q->min_time), "q->min_time");
	xp_name(&q->pend, sizeof(q->pend), "q->pend");
	xp_name(&q->head, sizeof(q->head), "q->head");
	xp_name(&q->head2, sizeof(q->head2), "q->head2");
	xp_name(&q->focus, sizeof(q->focus), "q->focus");
	xp_name(&q->calendar_count, sizeof(q->calendar_count), "q->calendar_count");
	xp_name(&base->handoffs, sizeof(base->handoffs), "handoffs");
	xp_name(&base->kick, sizeof(base->kick), "kick");
	xp_name(&base->work, sizeof(base->work), "work");
	if (clocked)
		xp_name(xp_hrtimer_first(), sizeof(struct hrtimer), "hrtimer");
}

/* A timer; an exact one is never re-armed while it may be expiring. */
struct xt *xw_timer(struct xw *w, bool exact)
{
	struct xt *t;

	if (w->ntimers == XW_TIMERS)
		xw_fail("more than %d timers", XW_TIMERS);
	t = &w->t[w->ntimers];
	t->w = w;
	t->index = w->ntimers++;
	t->exact = exact;
	if (t->index < 26)
		snprintf(t->name, sizeof(t->name), "%c", 'A' + t->index);
	else
		snprintf(t->name, sizeof(t->name), "T%u", t->index);
	timeq_timer_init(&t->timer, xw_fire);
	xp_name(&t->timer, sizeof(t->timer), t->name);
	return t;
}

struct timeq_node *xw_node(struct xw *w)
{
	struct timeq_node *node;

	if (w->nnodes == XW_NODES)
		xw_fail("more than %d nodes", XW_NODES);
	node = &w->n[w->nnodes++];
	timeq_node_init(node);
	return node;
}

/*
 * The owner frees @t: from now on nothing may touch it. The memory stays
 * (the run's world owns it), filled with a pattern, with the callback
 * pointer aimed at a trap; under ASan, all but the callback pointer is
 * poisoned, so even a read is reported.
 */
void xw_free(struct xw *w, struct xt *t)
{
	struct timeq_timer *timer = &t->timer;
	char *start = (char *)timer, *fn = (char *)&timer->fn;

	(void)w;
	t->freed = true;
	memset(timer, XW_PATTERN, sizeof(*timer));
	timer->fn = xw_fire_freed;
	XW_POISON(start, fn - start);
	XW_POISON(fn + sizeof(timer->fn),
		  start + sizeof(*timer) - (fn + sizeof(timer->fn)));
}

static void xw_check_freed(struct xw *w)
{
	unsigned int i;
	size_t j;

	for (i = 0; i < w->ntimers; i++) {
		struct timeq_timer *timer = &w->t[i].timer;
		const unsigned char *p = (const unsigned char *)timer;
		size_t fn = offsetof(struct timeq_timer, fn);

		if (!w->t[i].freed)
			continue;
		XW_UNPOISON(timer, sizeof(*timer));
		for (j = 0; j < sizeof(*timer); j++) {
			if (j >= fn && j < fn + sizeof(timer->fn))
				continue;
			if (p[j] != XW_PATTERN)
				xw_fail("freed timer %s was written (byte %zu)",
					w->t[i].name, j);
		}
	}
}

/* --- time --- */

u64 xw_tick(struct xw *w)
{
	return xp_clock_ns / w->gran;
}

/* A step: the clock moves to @tick. */
void xw_advance_to(struct xw *w, u64 tick)
{
	xp_clock_set(tick * w->gran);
}

void xw_destroy(struct xw *w)
{
	w->destroyed = true;
	timeq_base_destroy(w->base);
	w->q = NULL;
	w->base = NULL;
}

/* --- the timer calls --- */

int xw_timer_arm(struct xw *w, struct xt *t, u64 time)
{
	return timeq_timer_arm(w->base, &t->timer, time);
}

int xw_timer_move(struct xw *w, struct xt *t, u64 time)
{
	return timeq_timer_move(w->base, &t->timer, time);
}

int xw_timer_delete(struct xw *w, struct xt *t)
{
	return timeq_timer_delete(w->base, &t->timer);
}

int xw_delete_sync(struct xw *w, struct xt *t)
{
	return timeq_delete_sync(w->base, &t->timer);
}

int xw_shutdown_sync(struct xw *w, struct xt *t)
{
	return timeq_shutdown_sync(w->base, &t->timer);
}

int xw_fast_min(struct xw *w, u64 *time)
{
	return timeq_fast_min(w->base, time);
}

int xw_fast_update(struct xw *w, struct xt *t, u64 time)
{
	int was = compat_in_softirq, ret;

	compat_in_softirq = 1;
	ret = timeq_fast_update(w->base, &t->timer, time);
	compat_in_softirq = was;
	if (ret < 0 && ret != -ESHUTDOWN)
		xw_fail("timeq_fast_update(%s, %llu) refused: %d", t->name,
			time, ret);
	return ret;
}

static void xw_record(struct xw *w, struct xt *t, u64 time,
		      unsigned long start, bool handed_off)
{
	struct xreq *r;

	if (w->nreq == XW_REQS)
		xw_fail("more than %d requests", XW_REQS);
	r = &w->req[w->nreq++];
	r->t = t;
	r->time = time;
	r->start = start;
	r->end = xp_steps();
	r->cs = handed_off ? 0 : xp_first_lock();
	r->handed_off = handed_off;
	t->tracked = true;
}

int xw_fast_request(struct xw *w, struct xt *t, u64 time)
{
	unsigned long start = xp_steps();
	int ret;

	xp_mark();
	ret = xw_fast_update(w, t, time);
	if (ret >= 0)
		xw_record(w, t, time, start, ret == TIMEQ_DEFERRED);
	return ret;
}

bool xw_store_request(struct xw *w, struct xt *t, u64 time)
{
	unsigned long start = xp_steps();
	bool ret;

	xp_mark();
	ret = timeq_timer_store(&t->timer, time);
	/* The store takes no lock: a first critical step is its exchange. */
	if (ret && xp_first_lock())
		xw_record(w, t, time, start, false);
	return ret;
}

int xw_arm_request(struct xw *w, struct xt *t, u64 time)
{
	unsigned long start = xp_steps();
	int ret;

	xp_mark();
	ret = xw_timer_arm(w, t, time);
	if (ret)
		xw_fail("timeq_timer_arm(%s, %llu): %d", t->name, time, ret);
	xw_record(w, t, time, start, false);
	return ret;
}

int xw_delete_request(struct xw *w, struct xt *t)
{
	unsigned long start = xp_steps();
	int ret;

	xp_mark();
	ret = xw_timer_delete(w, t);
	w->removed += ret;
	xw_record(w, t, XW_UNARMED, start, false);
	return ret;
}

/* Is request @r older than @s? */
static bool xw_older(const struct xreq *r, const struct xreq *s)
{
	return r->end < (s->handed_off ? s->start : s->cs);
}

/*
 * A tracked timer ends at the time of a request that is older than no
 * request of it (all took effect: none was refused).
 */
static void xw_check_requests(struct xw *w, struct xt *t)
{
	u64 time = t->timer.node.owner ? timeq_timer_expires(&t->timer) :
					 XW_UNARMED;
	unsigned int i, j, n = 0;

	for (i = 0; i < w->nreq; i++) {
		const struct xreq *f = &w->req[i];

		if (f->t != t || f->time != time)
			continue;
		n++;
		for (j = 0; j < w->nreq; j++)
			if (j != i && w->req[j].t == t &&
			    xw_older(f, &w->req[j]))
				break;
		if (j == w->nreq)
			return;
	}
	xw_fail("%s ends %s %llu, but %s: a request applied out of order, or one lost",
		t->name, time == XW_UNARMED ? "unarmed" : "at",
		time == XW_UNARMED ? 0 : time,
		n ? "every request for that is older than another" :
		    "no request asked for that");
}

void xw_check_tracked(struct xw *w)
{
	unsigned int i;

	for (i = 0; i < w->ntimers; i++)
		if (w->t[i].tracked)
			xw_check_requests(w, &w->t[i]);
}

/*
 * Hold head_lock and bucket_lock, so that every lane's trylocks fail and
 * every fast update in between hands off (setup only).
 */
void xw_defer_begin(struct xw *w)
{
	spin_lock_bh(&w->q->head_lock);
	spin_lock(&w->q->bucket_lock);
}

void xw_defer_end(struct xw *w)
{
	spin_unlock(&w->q->bucket_lock);
	spin_unlock_bh(&w->q->head_lock);
}

/* --- oracles --- */

static void xw_fire(struct timeq_timer *timer)
{
	struct xt *t = container_of(timer, struct xt, timer);
	struct xw *w = t->w;
	u64 time = timer->node.time, seq = 0;

	if (!tq_fifo_seq(w->q, &timer->node, &seq))
		xw_fail("%s expired with no insertion number", t->name);
	if (t->exact) {
		if (xp_clock_ns < time * w->gran)
			xw_fail("%s expired early: its time is %llu ns, the clock %llu ns",
				t->name, time * w->gran, xp_clock_ns);
		if (w->delivered && (time < w->last_time ||
				     (time == w->last_time && seq <= w->last_seq)))
			xw_fail("%s (time %llu, insertion %llu) expired after a timer of time %llu, insertion %llu",
				t->name, time, seq, w->last_time, w->last_seq);
		w->delivered = true;
		w->last_time = time;
		w->last_seq = seq;
	}
	t->fired++;
	w->deliveries++;
	if (t->hook)
		t->hook(t);
}

void xw_check(struct xw *w, const char *when)
{
	char why[160];

	if (w->q->pend != TQ_PEND_NONE)
		xw_fail("%s: work is pending (pend %u), but every call has returned",
			when, w->q->pend);
	if (tq_base_check(w->base, why, sizeof(why)))
		xw_fail("%s: %s", when, why);
}

/* The hrtimer is armed no later than the minimum, and only with one. */
void xw_check_armed(struct xw *w)
{
	struct hrtimer *hrtimer = xp_hrtimer_first();
	struct timeq_node *min = w->q->min;

	if (min && !hrtimer->enqueued)
		xw_fail("the queue holds a timer of tick %llu, but the hrtimer is not armed",
			min->time);
	if (min && (u64)hrtimer->expires > min->time * w->gran)
		xw_fail("the hrtimer is armed for %lld ns, later than the minimum's %llu ns",
			hrtimer->expires, min->time * w->gran);
	if (!min && hrtimer->enqueued)
		xw_fail("the queue is empty, but the hrtimer is armed (%lld ns)",
			hrtimer->expires);
}

/*
 * A test base's final phase: delete_min everything, in order of time,
 * then insertion, and expect @want nodes.
 */
void xw_drain_test_base(struct xw *w, unsigned long want)
{
	u64 last_time = 0, last_seq = 0;
	struct timeq_node *node;
	unsigned long n = 0;

	while ((node = timeq_delete_min(w->q))) {
		u64 seq = 0;

		if (!tq_fifo_seq(w->q, node, &seq))
			xw_fail("delete_min gave a node with no insertion number");
		if (n && (node->time < last_time ||
			  (node->time == last_time && seq <= last_seq)))
			xw_fail("delete_min gave time %llu (insertion %llu) after %llu (insertion %llu)",
				node->time, seq, last_time, last_seq);
		last_time = node->time;
		last_seq = seq;
		n++;
	}
	if (want != XW_ANY && n != want)
		xw_fail("the queue held %lu nodes at the end, want %lu", n, want);
#ifdef TIMEQ_DEBUG_FIFO
	if ((unsigned long)atomic64_read(&w->q->inserted) != w->removed + n)
		xw_fail("%lld insertions, but %lu removed by the calls and %lu left at the end",
			atomic64_read(&w->q->inserted), w->removed, n);
#endif
}

static void xw_final(struct xw_run *r)
{
	struct xw *w = &r->w;
	unsigned int i;

	if (!w->clocked)
		xw_check_tracked(w);
	if (r->sc->final)
		r->sc->final(w);
	if (w->destroyed)
		goto timers;
	if (w->clocked && timeq_count(w->q))
		xw_fail("%lu timers still queued after the clock passed them all",
			timeq_count(w->q));
	if (w->base->handoffs.first)
		xw_fail("a hand-off request was left on the list");
timers:
	for (i = 0; i < w->ntimers; i++) {
		struct xt *t = &w->t[i];

		if (t->freed)
			continue;
		if (test_bit(TQ_TIMER_PENDING, &t->timer.flags))
			xw_fail("%s is left PENDING", t->name);
		if (w->destroyed && timeq_node_queued(&t->timer.node))
			xw_fail("%s is still queued once its base is destroyed",
				t->name);
		if (w->clocked && !w->destroyed && t->must_fire && !t->fired)
			xw_fail("%s never fired, but it was armed (a timer was lost)",
				t->name);
	}
	xw_check_freed(w);
}

/*
 * A quiet moment: no spinlock is held. Unless work is pending between
 * two lock holds of a slow-side call, every invariant must hold now,
 * not only at quiescence: a wrong minimum that a later call would
 * settle again is caught when it is made.
 */
void xw_quiet(void *ctx)
{
	struct xw_run *r = ctx;
	struct timeq *q = r->w.q;
	char why[160];
	uint64_t fp;

	if (!q || r->w.destroyed || q->pend != TQ_PEND_NONE)
		return;
	/*
	 * Unchanged since the last check, the queue need not be walked
	 * again: every change links a node (a new insertion number), moves
	 * one between arrays (their counts), or moves the minimum, the clock
	 * or the roles.
	 */
	fp = q->min_time ^ (uintptr_t)q->min * 3 ^ q->now * 5 ^
	     q->spreads[0].count * 7 ^ q->spreads[1].count * 11 ^
	     q->spreads[2].count * 13 ^ q->calendar_count * 17 ^
	     (uintptr_t)q->head * 19 ^ (uintptr_t)q->focus * 23 ^
	     q->focus_bucket * 29;
#ifdef TIMEQ_DEBUG_FIFO
	fp ^= q->seq.counter * 31;
#endif
	if (r->checked && fp == r->checked_fp)
		return;
	if (__timeq_check(q, why, sizeof(why)))
		xw_fail("with no lock held and no work pending: %s", why);
	r->checked = true;
	r->checked_fp = fp;
}

/* --- the hooks of a run --- */

void xw_setup(void *ctx)
{
	struct xw_run *r = ctx;

	r->w.allocations = compat_allocations;
	r->sc->setup(&r->w);
}

bool xw_quiescent(void *ctx, unsigned int phase)
{
	struct xw_run *r = ctx;
	struct xw *w = &r->w;

	if (w->destroyed) {
		xw_final(r);
		return false;
	}
	xw_check(w, "at quiescence");
	if (w->clocked)
		xw_check_armed(w);
	if (!r->scenario_done) {
		if (r->sc->phase && r->sc->phase(w, phase))
			return true;
		r->scenario_done = true;
	}
	if (w->clocked && !r->expired_all) {
		/* Everything expires, one schedule: the clock passes all. */
		r->expired_all = true;
		xw_advance_to(w, timeq_now(w->q) + 2 * w->horizon + xw_tick(w));
		xp_settle();
		xw_check(w, "after every timer expired");
		xw_check_armed(w);
	}
	xw_final(r);
	return false;
}

void xw_teardown(void *ctx, bool failed)
{
	struct xw_run *r = ctx;
	struct xw *w = &r->w;

	if (!failed && w->q)
		xw_destroy(w);
	if (!failed && compat_allocations != w->allocations)
		xw_fail("%ld allocations left after timeq_base_destroy()",
			compat_allocations - w->allocations);
	XW_UNPOISON(w->t, sizeof(w->t));
}

/* A run's context, as explore.c allocates it. */
void *xw_new_run(const struct scenario *sc, uint64_t seed)
{
	struct xw_run *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->sc = sc;
	r->w.rand = seed ^ 0x5eed;
	return r;
}

void xw_free_run(void *ctx)
{
	free(ctx);
}
