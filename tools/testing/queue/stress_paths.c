// SPDX-License-Identifier: GPL-2.0
/*
 * module/paths.c, fast.c and handoff.c in userspace: the fast and slow
 * paths over one queue, with pthread spinlocks standing in for the
 * kernel's (compat/compat.h). Built under ThreadSanitizer by `make check`,
 * and without it for measuring the fast path natively.
 *
 * Fast threads stand in for softirqs: they only call tq_fast_update() and
 * tq_fast_min(), the fast path on the queue of a test base
 * (tq_base_create_test(), module/base.c), which only try locks. One
 * slow thread stands in for process context and the workqueue: it arms,
 * deletes, delete-mins, expires with del_less_than(), runs the invariant
 * checker under the locks and runs the base's work item (the hand-off
 * drain) when it is queued. At the end every insertion
 * is accounted for exactly once, as a removal by the slow thread or as a
 * node still queued, and no request is left. Output is TAP.
 *
 * By default the slow thread runs flat out, the worst case for the fast
 * path's trylocks, and a fast thread makes at most PACE calls per slow
 * step, so that the two meet throughout however the host shares its CPUs;
 * --slow-every N paces the slow thread instead, to one step per N fast
 * calls, nearer what a workqueue does.
 *
 * Then the two lanes that share no lock, alone: one thread moves the
 * minimum within the head (the near lane, which settles the minimum under
 * head_lock and head2_lock), another moves far timers among far buckets
 * (the far lane, under bucket_lock alone), every update applied in place.
 * Whatever one of them writes that the other reads without a lock they
 * share, or an atomic, is a data race ThreadSanitizer reports.
 *
 * Then the same for the timer base (module/base.c and clock.c), through its
 * public calls, on a base from timeq_base_create() whose clock is compat's
 * virtual one: fast threads arm and move timers, a slow thread arms, moves,
 * deletes, calls timeq_expire() and timeq_delete_sync() on timers it owns
 * (and "frees" them: a callback that runs afterwards is counted as a use
 * after free), and an expiry thread moves the clock, fires the hrtimer, and
 * runs the irq_work and the work, so callbacks run beside everything else.
 * A quarter of the times fall in one far bucket, so buckets grow past
 * TIMEQ_HOLD nodes and the slow side drops its locks inside operations. At
 * quiescence the hrtimer must be armed no later than the minimum (and only
 * while the base holds a timer); at the end every insertion is accounted
 * for once, as a callback or a delete; and the base's clock never passed
 * CLOCK_MONOTONIC, so no timer expired early.
 *
 *	stress_paths [--fast N] [--threads N] [--timers N] [--slow-every N]
 *		     [--lanes N] [--clocked N] [--seed S]
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <linux/timeq.h>

#include "../../../module/clock.h"
#include "../../../module/paths.h"
#include "../../../module/queue.h"
#include "../../../module/stats.h"

#define HORIZON		(1u << 16)	/* delta 256, M 256 */
/*
 * Fast calls a fast thread makes per slow step, at most: on a loaded host
 * the slow thread still meets the fast path throughout (unloaded, it is
 * several times faster than that).
 */
#define PACE		1000

struct stress {
	struct timeq_base	*base;		/* a test base */
	struct timeq		*q;		/* its queue */
	struct timeq_timer	*timers;
	unsigned int		ntimers;
	unsigned long		fast_calls;	/* per fast thread */
	unsigned long		slow_every;	/* fast calls per slow step */
	unsigned long		removed;	/* by the slow thread */
	unsigned long		slow_ops, checks, drains;
	int			failed;
};

struct fast {
	struct stress	*s;
	pthread_t	thread;
	uint64_t	rand;
	unsigned long	applied, deferred, refused;
	unsigned long	min_found, min_empty, min_busy;
	double		seconds;	/* in calls, not waiting */
	double		waited;		/* for the slow thread (PACE) */
	unsigned long	progress;	/* calls made, published every 64 */
	int		done;
};

static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Mostly the current and next bucket (the fast path's case), some far. */
static u64 pick_time(struct timeq *q, uint64_t r)
{
	u64 now = timeq_now(q);

	if (r % 8 == 0)
		return now + (r >> 3) % HORIZON;
	return now + (r >> 3) % 512;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Slow steps so far: the slow thread publishes each. */
static unsigned long slow_ops(struct stress *s)
{
	return __atomic_load_n(&s->slow_ops, __ATOMIC_RELAXED);
}

static void *fast_thread(void *arg)
{
	struct fast *f = arg;
	struct stress *s = f->s;
	double start = seconds();
	unsigned long i;
	uint64_t r;
	u64 t;
	int ret;

	/* This thread stands in for softirq context. */
	compat_in_softirq = 1;
	for (i = 0; i < s->fast_calls; i++) {
		if (!s->slow_every && i >= (slow_ops(s) + 1) * PACE) {
			/* Not counted in the time of the calls. */
			double wait = seconds();

			while (i >= (slow_ops(s) + 1) * PACE)
				sched_yield();
			f->waited += seconds() - wait;
		}
		r = next_rand(&f->rand);
		ret = tq_fast_update(s->base, &s->timers[r % s->ntimers],
				     pick_time(s->q, r / s->ntimers));
		/*
		 * The kick a hand-off queued runs on this CPU, as the self-
		 * interrupt would: it wakes a slow-side call that waits for the
		 * request (tq_wait_request()), which may be the slow thread.
		 */
		compat_run_irq_work(&s->base->kick);
		if (ret == TIMEQ_APPLIED)
			f->applied++;
		else if (ret == TIMEQ_DEFERRED)
			f->deferred++;
		else
			f->refused++;
		ret = tq_fast_min(s->base, &t);
		if (!ret)
			f->min_found++;
		else if (ret == -ENOENT)
			f->min_empty++;
		else
			f->min_busy++;
		if (i % 64 == 0)
			__atomic_store_n(&f->progress, i, __ATOMIC_RELAXED);
	}
	f->seconds = seconds() - start - f->waited;
	__atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void count_removed(struct timeq_node *node, void *arg)
{
	struct stress *s = arg;

	(void)node;
	s->removed++;
}

static void slow_step(struct stress *s, uint64_t *rand)
{
	uint64_t r = next_rand(rand);
	struct timeq_timer *timer = &s->timers[r % s->ntimers];
	char why[128];

	/* The kick and the work run whenever queued, as the kernel would. */
	compat_run_irq_work(&s->base->kick);
	s->drains += compat_run_work(&s->base->work);
	r /= s->ntimers;
	switch (r % 12) {
	case 0 ... 5:
		tq_timer_arm(s->base, timer, pick_time(s->q, r / 12));
		break;
	case 6 ... 8:
		s->removed += tq_timer_delete(s->base, timer);
		break;
	case 9:
		if (timeq_delete_min(s->q))
			s->removed++;
		break;
	case 10:
		/* Expiry: the clock moves up to a bucket and a half. */
		timeq_del_less_than(s->q, timeq_now(s->q) + (r / 12) % 384,
				    count_removed, s);
		break;
	default:
		if (tq_base_check(s->base, why, sizeof(why))) {
			printf("# mid-stress: %s\n", why);
			s->failed = 1;
		}
		s->checks++;
		break;
	}
	/* Read by the fast threads, which keep to PACE calls a step. */
	__atomic_store_n(&s->slow_ops, s->slow_ops + 1, __ATOMIC_RELAXED);
}

/* --- the near lane and the far lane at once --- */

#define L_FAR		64

struct lanes {
	struct timeq_base	*base;		/* a test base */
	struct timeq		*q;		/* its queue */
	struct timeq_timer	near;
	struct timeq_timer	far[L_FAR];
	unsigned long		calls;
	unsigned long		applied[2];
};

/* The minimum, alone in the head, moved within it: near lane, settles. */
static void *lanes_near(void *arg)
{
	struct lanes *l = arg;
	unsigned long i;

	compat_in_softirq = 1;
	for (i = 0; i < l->calls; i++)
		l->applied[0] += tq_fast_update(l->base, &l->near, i % 16) ==
				 TIMEQ_APPLIED;
	return NULL;
}

/* Far timers moved among buckets 4 to 7: the far lane. */
static void *lanes_far(void *arg)
{
	struct lanes *l = arg;
	uint64_t rand = 3;
	unsigned long i;

	compat_in_softirq = 1;
	for (i = 0; i < l->calls; i++)
		l->applied[1] += tq_fast_update(l->base, &l->far[i % L_FAR],
						4 * 256 +
						next_rand(&rand) % 1024) ==
				 TIMEQ_APPLIED;
	return NULL;
}

static void lanes_stress(unsigned long calls, unsigned int *tests,
			 unsigned int *failed)
{
	struct lanes *l = calloc(1, sizeof(*l));
	pthread_t near, far;
	unsigned int i;
	char why[128];
	bool ok;

	if (!l)
		exit(1);
	l->calls = calls;
	/* delta 256: the head is [0, 256), the far buckets from 512 on. */
	l->base = tq_base_create_test(0, HORIZON, 0, 0);
	if (IS_ERR(l->base))
		exit(1);
	l->q = tq_base_queue(l->base);
	timeq_timer_init(&l->near, NULL);
	tq_timer_arm(l->base, &l->near, 0);
	for (i = 0; i < L_FAR; i++) {
		timeq_timer_init(&l->far[i], NULL);
		tq_timer_arm(l->base, &l->far[i], 4 * 256 + i);
	}
	if (pthread_create(&near, NULL, lanes_near, l) ||
	    pthread_create(&far, NULL, lanes_far, l))
		exit(1);
	pthread_join(near, NULL);
	pthread_join(far, NULL);
	ok = l->applied[0] == calls && l->applied[1] == calls &&
	     timeq_min(l->q) == &l->near.node &&
	     !tq_base_check(l->base, why, sizeof(why));
	printf("%sok %u - lanes: in place, %lu near-lane moves of the minimum ",
	       ok ? "" : "not ", ++*tests, l->applied[0]);
	printf("beside %lu far-lane moves (of %lu each)\n", l->applied[1], calls);
	*failed += !ok;
	tq_delete_sync(l->base, &l->near);
	for (i = 0; i < L_FAR; i++)
		tq_delete_sync(l->base, &l->far[i]);
	timeq_base_destroy(l->base);
	free(l);
}

/* --- the timer base: its queue, callbacks, an expiry thread --- */

#define C_GRAN		10			/* ns per tick */
#define C_HORIZON	(1u << 12)		/* delta 16, M 256 */
#define C_DELTA		16u
#define C_FAST_TIMERS	512u			/* fast threads' and the slow's */
#define C_OWNED		64u			/* the slow thread's alone */
#define C_CALLS_PER_TICK 8			/* fast calls per clock tick */
#define C_PACE		32			/* fast calls per slow op */

struct cstress;

struct ctimer {
	struct timeq_timer	timer;
	struct cstress		*s;
	unsigned int		index;
	int			freed;	/* delete_sync returned, not re-armed */
};

struct cstress {
	struct timeq_base	*base;
	struct timeq		*q;		/* the base's */
	struct ctimer		*timers;
	unsigned long		fast_calls;
	unsigned long		progress;	/* fast calls, all threads */
	int			fast_done;	/* fast threads finished */
	int			stop;		/* the expiry thread may stop */
	int			draining;	/* callbacks re-arm nothing */
	/* Counted by the callbacks, and by the slow thread's removals. */
	unsigned long		fired, early, after_free, rearmed;
	unsigned long		deleted;
	unsigned long		slow_ops, syncs, expires, checks, fires;
	int			failed;
};

struct cfast {
	struct cstress	*s;
	pthread_t	thread;
	uint64_t	rand;
	unsigned long	applied, deferred, refused;
};

/*
 * A time from the clock: mostly the current and next bucket, a quarter in
 * one far bucket (eight buckets ahead, the same for 16 ticks of the
 * clock, so it grows past TIMEQ_HOLD nodes, in no order), some anywhere.
 */
static u64 c_pick_time(struct timeq_base *base, uint64_t r)
{
	u64 tick = timeq_base_ticks(base);

	switch (r % 4) {
	case 0:
		return (tick / C_DELTA + 8) * C_DELTA + (r >> 2) % C_DELTA;
	case 1:
		return tick + (r >> 2) % (C_HORIZON / 2);
	default:
		return tick + (r >> 2) % (2 * C_DELTA);
	}
}

/*
 * Never early: removing a timer moves the queue's clock to its time, so a
 * timer removed before it was due would take timeq_now() past
 * CLOCK_MONOTONIC. The callback's own node time is no witness here: a
 * fast update may arm the timer again between its removal and its
 * callback (the explorer, whose scenarios know their requests, checks it).
 */
static void c_check_clock(struct cstress *s)
{
	u64 now = timeq_now(s->q);

	if (now > timeq_base_ticks(s->base))
		__atomic_add_fetch(&s->early, 1, __ATOMIC_RELAXED);
}

static void c_fire(struct timeq_timer *timer)
{
	struct ctimer *c = container_of(timer, struct ctimer, timer);
	struct cstress *s = c->s;
	unsigned long n;

	if (__atomic_load_n(&c->freed, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&s->after_free, 1, __ATOMIC_RELAXED);
	c_check_clock(s);
	n = __atomic_add_fetch(&s->fired, 1, __ATOMIC_RELAXED);
	/* One in eight shared timers re-arms itself, as a periodic one would. */
	if (c->index < C_FAST_TIMERS && n % 8 == 0 &&
	    !__atomic_load_n(&s->draining, __ATOMIC_RELAXED) &&
	    !timeq_timer_arm(s->base, timer,
			     c_pick_time(s->base, n * 0x9e3779b9)))
		__atomic_add_fetch(&s->rearmed, 1, __ATOMIC_RELAXED);
}

static void *c_fast_thread(void *arg)
{
	struct cfast *f = arg;
	struct cstress *s = f->s;
	unsigned long i;
	uint64_t r;
	int ret;
	u64 t, time;

	compat_in_softirq = 1;
	for (i = 0; i < s->fast_calls; i++) {
		/*
		 * Keep to C_PACE calls per slow operation, so the slow side's
		 * calls and their lock drops meet the fast path throughout.
		 */
		while (i > (__atomic_load_n(&s->slow_ops, __ATOMIC_RELAXED) + 1) *
			   C_PACE)
			sched_yield();
		r = next_rand(&f->rand);
		time = c_pick_time(s->base, r / C_FAST_TIMERS);
		ret = timeq_fast_update(s->base,
					&s->timers[r % C_FAST_TIMERS].timer,
					time);
		/*
		 * The kick runs on this CPU, as the self-interrupt would, not
		 * only in the expiry thread: that one may be in a callback that
		 * sleeps in tq_wait_request() for this very request, and only
		 * the kick wakes it.
		 */
		compat_run_irq_work(&s->base->kick);
		if (ret == TIMEQ_APPLIED)
			f->applied++;
		else if (ret == TIMEQ_DEFERRED)
			f->deferred++;
		else
			f->refused++;
		timeq_fast_min(s->base, &t);
		__atomic_add_fetch(&s->progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Fire what is due, run the kick and the work: true if anything ran. */
static bool c_expiry_step(struct cstress *s)
{
	unsigned int ran;

	ran = compat_hrtimer_run(ktime_get_ns());
	s->fires += ran;
	ran += compat_run_irq_work(&s->base->kick);
	ran += compat_run_work(&s->base->work);
	return ran;
}

/* The clock follows the fast threads' progress; the hardware fires. */
static void *c_expiry_thread(void *arg)
{
	struct cstress *s = arg;
	u64 tick;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		tick = __atomic_load_n(&s->progress, __ATOMIC_RELAXED) /
		       C_CALLS_PER_TICK;
		if (tick * C_GRAN > ktime_get_ns())
			compat_clock_set(tick * C_GRAN);
		if (!c_expiry_step(s))
			sched_yield();
	}
	return NULL;
}

static void c_slow_step(struct cstress *s, uint64_t *rand)
{
	uint64_t r = next_rand(rand);
	struct ctimer *c = &s->timers[r % (C_FAST_TIMERS + C_OWNED)];
	char why[128];
	u64 time;

	r /= C_FAST_TIMERS + C_OWNED;
	if (c->index >= C_FAST_TIMERS &&
	    __atomic_load_n(&c->freed, __ATOMIC_RELAXED)) {
		/* The owner "allocates" it again. */
		timeq_timer_init(&c->timer, c_fire);
		__atomic_store_n(&c->freed, 0, __ATOMIC_RELEASE);
	}
	switch (r % 16) {
	case 0 ... 5:
		timeq_timer_arm(s->base, &c->timer,
				c_pick_time(s->base, r / 16));
		break;
	case 6 ... 7:
		timeq_timer_move(s->base, &c->timer,
				 c_pick_time(s->base, r / 16));
		break;
	case 8 ... 9:
		s->deleted += timeq_timer_delete(s->base, &c->timer);
		break;
	case 10 ... 11:
		/* No fast update reaches an owned timer: it may be freed. */
		if (c->index < C_FAST_TIMERS)
			break;
		s->deleted += timeq_delete_sync(s->base, &c->timer);
		__atomic_store_n(&c->freed, 1, __ATOMIC_RELEASE);
		s->syncs++;
		break;
	case 12:
		timeq_expire(s->base);
		s->expires++;
		break;
	case 13:
		/*
		 * Only the expiry removes timers: timeq_delete_min() on the
		 * base's queue would move its clock to the removed timer's
		 * time, which may lie ahead of CLOCK_MONOTONIC, and "never
		 * early" could not be told from the clock. A fast min, with
		 * bottom halves off.
		 */
		compat_in_softirq = 1;
		timeq_fast_min(s->base, &time);
		compat_in_softirq = 0;
		break;
	default:
		if (tq_base_check(s->base, why, sizeof(why))) {
			printf("# clocked, mid-stress: %s\n", why);
			s->failed = 1;
		}
		s->checks++;
		break;
	}
	c_check_clock(s);
	__atomic_store_n(&s->slow_ops, s->slow_ops + 1, __ATOMIC_RELAXED);
}

/* Run the kick, the work and the hrtimer until none has anything to do. */
static void c_quiesce(struct cstress *s)
{
	while (c_expiry_step(s))
		;
}

static void clocked_stress(uint64_t seed, unsigned int nfast,
			   unsigned long calls, unsigned int *tests,
			   unsigned int *failed)
{
	unsigned long applied = 0, deferred = 0, refused = 0, pending = 0;
	struct cstress s = { .fast_calls = calls };
	struct tq_snapshot snap;
	struct timeq_node *min;
	pthread_t expiry;
	struct cfast *fast;
	uint64_t rand = seed;
	long long armed;
	char why[128];
	unsigned int i;
	bool ok;

	compat_clock_set(1000 * C_GRAN);
	s.base = timeq_base_create(C_GRAN, C_HORIZON, C_DELTA, 0, GFP_KERNEL);
	s.timers = calloc(C_FAST_TIMERS + C_OWNED, sizeof(*s.timers));
	fast = calloc(nfast, sizeof(*fast));
	if (IS_ERR(s.base) || !s.timers || !fast)
		exit(1);
	s.q = tq_base_queue(s.base);
	for (i = 0; i < C_FAST_TIMERS + C_OWNED; i++) {
		timeq_timer_init(&s.timers[i].timer, c_fire);
		s.timers[i].s = &s;
		s.timers[i].index = i;
	}
	for (i = 0; i < nfast; i++) {
		fast[i].s = &s;
		fast[i].rand = seed * 7919 + i;
		if (pthread_create(&fast[i].thread, NULL, c_fast_thread, &fast[i]))
			exit(1);
	}
	if (pthread_create(&expiry, NULL, c_expiry_thread, &s))
		exit(1);
	while (__atomic_load_n(&s.progress, __ATOMIC_RELAXED) < calls * nfast)
		c_slow_step(&s, &rand);
	for (i = 0; i < nfast; i++) {
		pthread_join(fast[i].thread, NULL);
		applied += fast[i].applied;
		deferred += fast[i].deferred;
		refused += fast[i].refused;
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(expiry, NULL);

	printf("ok %u - clocked: %lu fast updates from %u threads beside %lu slow operations and %lu callbacks\n",
	       ++*tests, applied + deferred + refused, nfast, s.slow_ops,
	       s.fired);
	tq_stats_snapshot(s.q, &snap);
	printf("# clocked: %lu applied (%llu by a store), %lu deferred, %lu refused; %lu delete_syncs, %lu timeq_expire calls, %lu hrtimer firings, %lu re-armed by their callback\n",
	       applied, snap.counters.fast_stored, deferred, refused, s.syncs,
	       s.expires, s.fires, s.rearmed);
	ok = !s.failed && !refused;
	printf("%sok %u - clocked: the invariants held in %lu mid-stress checks and nothing was refused\n",
	       ok ? "" : "not ", ++*tests, s.checks);
	*failed += !ok;

	/* Quiescent: the hrtimer is armed no later than the minimum. */
	c_quiesce(&s);
	min = timeq_min(s.q);
	armed = compat_hrtimer_earliest();
	ok = min ? armed >= 0 && (u64)armed <= timeq_node_time(min) * C_GRAN :
		   armed < 0;
	printf("%sok %u - clocked: at quiescence the hrtimer is armed (%lld ns) %s\n",
	       ok ? "" : "not ", ++*tests, armed,
	       min ? "no later than the minimum" : "only while a timer is queued");
	if (!ok && min)
		printf("# the minimum is due at %llu ns\n",
		       timeq_node_time(min) * C_GRAN);
	*failed += !ok;

	/*
	 * Everything expires: the clock moves past the horizon, twice (the
	 * second for what the first's callbacks re-armed before they stop).
	 */
	for (i = 0; i < 2; i++) {
		__atomic_store_n(&s.draining, i, __ATOMIC_RELAXED);
		compat_clock_set(ktime_get_ns() + 2ULL * C_HORIZON * C_GRAN);
		c_quiesce(&s);
	}
	for (i = 0; i < C_FAST_TIMERS + C_OWNED; i++)
		pending += test_bit(TQ_TIMER_PENDING, &s.timers[i].timer.flags);
	ok = !pending && !s.base->handoffs.first && !timeq_count(s.q) &&
	     !tq_base_check(s.base, why, sizeof(why));
	printf("%sok %u - clocked: every timer expired, no request left (%lu pending, count %lu)\n",
	       ok ? "" : "not ", ++*tests, pending, timeq_count(s.q));
	*failed += !ok;
	ok = !s.early && !s.after_free;
	printf("%sok %u - clocked: the queue's clock never passed CLOCK_MONOTONIC, so no timer expired early (%lu times it had), no callback after its timer's delete_sync returned (%lu were)\n",
	       ok ? "" : "not ", ++*tests, s.early, s.after_free);
	*failed += !ok;
#ifdef TIMEQ_DEBUG_FIFO
	ok = (unsigned long)atomic64_read(&s.q->inserted) ==
	     s.fired + s.deleted;
	tq_stats_snapshot(s.q, &snap);
	printf("%sok %u - clocked: %lld insertions; %lu callbacks, %lu deletes (%llu timers filed again after a store)\n",
	       ok ? "" : "not ", ++*tests, atomic64_read(&s.q->inserted),
	       s.fired, s.deleted, snap.counters.refiled);
	*failed += !ok;
#endif
	timeq_base_destroy(s.base);
	free(s.timers);
	free(fast);
}

int main(int argc, char **argv)
{
	unsigned long applied = 0, deferred = 0, refused = 0, calls;
	unsigned long min_found = 0, min_empty = 0, min_busy = 0, pending = 0;
	struct stress s = { .ntimers = 1024, .fast_calls = 500000 };
	unsigned int i, nfast = 2, tests = 0, failed = 0;
	unsigned long clocked = 100000, lanes = 100000;
	uint64_t seed = 1, rand;
	struct fast *fast;
	double ns = 0;
	char why[128];

	/* Each TAP line out at once: a TSan report ends the run at once. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--fast") && i + 1 < (unsigned int)argc)
			s.fast_calls = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < (unsigned int)argc)
			nfast = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--timers") && i + 1 < (unsigned int)argc)
			s.ntimers = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--slow-every") && i + 1 < (unsigned int)argc)
			s.slow_every = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--clocked") && i + 1 < (unsigned int)argc)
			clocked = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--lanes") && i + 1 < (unsigned int)argc)
			lanes = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < (unsigned int)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--fast N] [--threads N] [--timers N]\n",
				argv[0]);
			fprintf(stderr, "\t[--slow-every N] [--lanes N]\n");
			fprintf(stderr, "\t[--clocked N] [--seed S]\n");
			return 2;
		}
	}
#ifdef TIMEQ_DEBUG_FIFO
	/* Insertion numbers for the checker (module/queue.h): every queue's. */
	tq_fifo_nodes = s.ntimers + C_FAST_TIMERS + C_OWNED + L_FAR + 1;
#endif
	if (!nfast || !s.ntimers)
		return 2;

	s.base = tq_base_create_test(0, HORIZON, 0, 0);
	s.timers = calloc(s.ntimers, sizeof(*s.timers));
	fast = calloc(nfast, sizeof(*fast));
	if (IS_ERR(s.base) || !s.timers || !fast)
		return 1;
	s.q = tq_base_queue(s.base);
	for (i = 0; i < s.ntimers; i++)
		timeq_timer_init(&s.timers[i], NULL);

	for (i = 0; i < nfast; i++) {
		fast[i].s = &s;
		fast[i].rand = seed * 1000 + i;
		if (pthread_create(&fast[i].thread, NULL, fast_thread, &fast[i]))
			return 1;
	}
	/* The slow thread is this one, until every fast thread is done. */
	rand = seed;
	for (;;) {
		calls = 0;
		for (i = 0; i < nfast; i++) {
			if (!__atomic_load_n(&fast[i].done, __ATOMIC_ACQUIRE))
				break;
		}
		if (i == nfast)
			break;
		for (i = 0; i < nfast; i++)
			calls += __atomic_load_n(&fast[i].progress,
						 __ATOMIC_RELAXED);
		if (s.slow_every && s.slow_ops * s.slow_every > calls) {
			sched_yield();
			continue;
		}
		slow_step(&s, &rand);
	}
	for (i = 0; i < nfast; i++) {
		pthread_join(fast[i].thread, NULL);
		applied += fast[i].applied;
		deferred += fast[i].deferred;
		refused += fast[i].refused;
		min_found += fast[i].min_found;
		min_empty += fast[i].min_empty;
		min_busy += fast[i].min_busy;
		ns += fast[i].seconds * 1e9;
	}
	calls = applied + deferred + refused;

	printf("ok %u - %lu fast updates and %lu fast mins from %u threads beside %lu slow operations\n",
	       ++tests, calls, min_found + min_empty + min_busy, nfast,
	       s.slow_ops);
	printf("# fast updates: %lu applied, %lu deferred, %lu refused; fast min: %lu found, %lu empty, %lu busy\n",
	       applied, deferred, refused, min_found, min_empty, min_busy);
	printf("# %.0f ns per fast update + fast min pair, per thread; %lu checks, %lu hand-off drains\n",
	       ns / calls, s.checks, s.drains);
	if (s.failed || refused) {
		printf("not ok %u - the invariants held mid-stress and nothing was refused\n",
		       ++tests);
		failed++;
	} else {
		printf("ok %u - the invariants held in %lu mid-stress checks and nothing was refused\n",
		       ++tests, s.checks);
	}

	/* Apply what is still handed off, then take every timer out. */
	compat_run_irq_work(&s.base->kick);
	compat_run_work(&s.base->work);
	for (i = 0; i < s.ntimers; i++) {
		pending += test_bit(TQ_TIMER_PENDING, &s.timers[i].flags);
		s.removed += tq_delete_sync(s.base, &s.timers[i]);
	}
	if (pending || s.base->handoffs.first || timeq_count(s.q) ||
	    tq_base_check(s.base, why, sizeof(why))) {
		printf("not ok %u - no request left: %lu pending, count %lu\n",
		       ++tests, pending, timeq_count(s.q));
		failed++;
	} else {
		printf("ok %u - no request left behind, the queue is empty\n",
		       ++tests);
	}
#ifdef TIMEQ_DEBUG_FIFO
	if ((unsigned long)atomic64_read(&s.q->inserted) != s.removed) {
		printf("not ok %u - %lld insertions, %lu removals\n", ++tests,
		       atomic64_read(&s.q->inserted), s.removed);
		failed++;
	} else {
		printf("ok %u - every one of %lld insertions was removed exactly once\n",
		       ++tests, atomic64_read(&s.q->inserted));
	}
#endif
	timeq_base_destroy(s.base);
	free(s.timers);
	free(fast);
	if (lanes)
		lanes_stress(lanes, &tests, &failed);
	if (clocked)
		clocked_stress(seed, nfast, clocked, &tests, &failed);
	if (compat_allocations) {
		printf("not ok %u - %ld allocations left\n", ++tests,
		       compat_allocations);
		failed++;
	}
	printf("1..%u\n", tests);
	return failed ? 1 : 0;
}
