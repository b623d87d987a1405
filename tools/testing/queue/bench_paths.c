// SPDX-License-Identifier: GPL-2.0
/*
 * The concurrency layer's figures: module/paths.c, fast.c and handoff.c
 * over module/queue.c, built in userspace (compat/, with COMPAT_BENCH
 * locks that cost what the kernel's do), measured in one run. It prints;
 * it asserts nothing about speed (a figure is not a test), only that
 * every run ends consistent.
 *
 *  1. Uncontended cost, one thread, N = 1000 nodes, the same sequence of
 *     updates to random times for each: the bare __timeq_update(), the
 *     slow side's timeq_update(), and the fast path's tq_fast_update()
 *     (what timeq_fast_update() runs on a base's queue); the median of
 *     five interleaved runs of each.
 *  2. Contended, a fast thread on CPU 0 and a slow thread flat out on
 *     CPU 1. The fast thread moves 256 timers to times in the current and
 *     the next bucket; an update is "eligible" when the timer's old time
 *     lay there too (or it was in no queue). The slow thread works:
 *	far	on 10^4 nodes of its own beyond the next bucket: insert,
 *		delete and update, never moving the clock;
 *	mixed	the same, plus delete_min and del_less_than(), which move
 *		the clock and expire the fast thread's timers too.
 *     For each: the share of eligible updates applied in place, and the
 *     latency of the fast path (rdtsc around each call, calibrated against
 *     CLOCK_MONOTONIC) for applied and deferred calls: p50, p99, p99.9 and
 *     the maximum.
 *  3. The same two workloads behind one plain spinlock, the design timeq's
 *     paths replace: a bare queue (the __timeq_* calls, pending work
 *     finished in the same hold) that both threads lock with spin_lock();
 *     the fast thread's updates all apply, after waiting for the lock, and
 *     their latency is the same p50, p99, p99.9 and maximum.
 *  4. Refresh, one thread, N = 1000 timers, the same sequence of moves
 *     of a random timer to 1 to 16 ticks past the time it expires at: on
 *     a timer base, where each is a store (module/fast.c, "Refresh by a
 *     store"), and on a test base, where the lanes relink the node (but
 *     hand off a far move of the earliest timer, whose later moves then
 *     join that request: nothing runs the slow path meanwhile);
 *     then the base's expiry of the stored timers, each filed again once
 *     at its older time and then expired, against that of timers armed
 *     at those same final times: the difference is the cost of a re-file.
 *     Medians of five interleaved runs.
 *  5. A flow's refresh, one thread: samples/flowtrack's per-packet code, copied
 *     here, at N = 10^3 and 10^5 flows, each round a packet of every flow in a
 *     random order, the clock advancing 500 ms a round (ticks of 1 ms, a
 *     time-out of 5 s, so nearly every refresh needs a later tick, as in make
 *     bench-flowtrack), each packet reading the flow's key as the lookup does,
 *     the flows laid out as the sample's (struct bench_gc_flow, struct
 *     bench_flow): gc, the compare-and-exchange of the flow's last time
 *     (conntrack's design as the sample's gc mode runs it); store, its timeq
 *     mode, timeq_timer_store() (inline) of the tick, from the sample's per-CPU
 *     cache of it, to the flow's timer on a base; update, its timeq mode before
 *     the stores, the compare-and-exchange and then timeq_fast_update(). Each
 *     with the sample's counting. Then what the store is made of, each without
 *     the count and the packet's time that the sample's timeq mode adds and
 *     with the tick divided at run time, as the sample's granularity, a
 *     parameter, makes it: timeq_timer_store() of the tick, and the tick with
 *     one compare-and-exchange of the timer's word, checking only that the time
 *     is no earlier. Medians of five interleaved runs, ns a refresh, and each
 *     over gc; then every timer is checked to expire at the tick of its flow's
 *     last packet.
 *
 *	bench_paths [--seconds S]
 *
 * `make bench-paths` at the top of the tree builds and runs it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <linux/timeq.h>

#include "../../../module/clock.h"
#include "../../../module/paths.h"
#include "../../../module/queue.h"
#include "../../bench/bare.h"

#define HORIZON		(1u << 20)	/* delta 1024, M 1024 */
#define FAST_TIMERS	256
#define SLOW_NODES	10000
#define UNCONTENDED_N	1000
#define UNCONTENDED_OPS	4000000UL
#define MAX_SAMPLES	(1u << 22)

static double ns_per_cycle;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void calibrate(void)
{
	double t0 = now_seconds(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do {
		t1 = now_seconds();
	} while (t1 - t0 < 0.2);
	c1 = __rdtsc();
	ns_per_cycle = (t1 - t0) * 1e9 / (double)(c1 - c0);
}

static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The queue of a test base (tq_base_create_test(), module/base.c). */
static struct timeq_base *test_base(u64 now)
{
	struct timeq_base *base = tq_base_create_test(now, HORIZON, 0, 0);

	if (IS_ERR(base))
		exit(1);
	return base;
}

/* Run the base's kick and work, as the kernel would when they are queued. */
static void run_slow_path(struct timeq_base *base)
{
	compat_run_irq_work(&base->kick);
	compat_run_work(&base->work);
}

static int check(struct timeq *q, const char *what)
{
	char why[160];

	if (!timeq_check(q, why, sizeof(why)))
		return 0;
	printf("not ok - %s: %s\n", what, why);
	return 1;
}

/* --- 1. uncontended --- */

static double uncontended(int kind, const u64 *times, const unsigned int *ids)
{
	struct timeq_timer *t = calloc(UNCONTENDED_N, sizeof(*t));
	struct timeq_base *base = test_base(0);
	struct timeq *q = tq_base_queue(base);
	unsigned long i;
	double start, ns;

	if (!t)
		exit(1);
	for (i = 0; i < UNCONTENDED_N; i++) {
		timeq_timer_init(&t[i], NULL);
		timeq_insert(q, &t[i].node, times[i]);
	}
	compat_in_softirq = kind == 2;
	start = now_seconds();
	for (i = 0; i < UNCONTENDED_OPS; i++) {
		struct timeq_timer *timer = &t[ids[i]];

		switch (kind) {
		case 0:
			q->budget = TIMEQ_HOLD;
			__timeq_update(q, &timer->node, times[i]);
			while (__timeq_step(q))
				q->budget = TIMEQ_HOLD;
			break;
		case 1:
			timeq_update(q, &timer->node, times[i]);
			break;
		default:
			tq_fast_update(base, timer, times[i]);
			break;
		}
	}
	ns = (now_seconds() - start) * 1e9 / UNCONTENDED_OPS;
	compat_in_softirq = 0;
	run_slow_path(base);
	if (check(q, "uncontended"))
		exit(1);
	timeq_base_destroy(base);
	free(t);
	return ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median5(double *v)
{
	qsort(v, 5, sizeof(v[0]), cmp_double);
	return v[2];
}

/* --- 2. contended --- */

struct samples {
	uint32_t	*v;
	unsigned int	n;
};

struct bench {
	struct timeq_base	*base;		/* a test base */
	struct timeq		*q;		/* its queue */
	struct timeq_timer	*fast;
	struct timeq_node	*slow;
	int			mixed;
	int			plain;	/* one spinlock around a bare queue */
	spinlock_t		lock;	/* that spinlock */
	int			stop;
	/* the fast thread's counts */
	unsigned long		calls, eligible, eligible_applied;
	unsigned long		applied, deferred, refused;
	struct samples		lat_applied, lat_deferred;
	/* the slow thread's */
	unsigned long		slow_ops;
};

static void sample(struct samples *s, uint64_t cycles)
{
	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = cycles > UINT32_MAX ? UINT32_MAX : cycles;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(struct samples *s, double p)
{
	unsigned int i;

	if (!s->n)
		return 0;
	i = (unsigned int)(p * (s->n - 1));
	return s->v[i] * ns_per_cycle;
}

static void report_latency(const char *what, struct samples *s)
{
	qsort(s->v, s->n, sizeof(s->v[0]), cmp_u32);
	printf("#   %-8s %9u calls: p50 %6.0f ns, p99 %6.0f ns, p99.9 %7.0f ns, max %8.0f ns\n",
	       what, s->n, pct(s, 0.5), pct(s, 0.99), pct(s, 0.999),
	       s->n ? s->v[s->n - 1] * ns_per_cycle : 0.0);
}

/* Is @time in the current or the next bucket of the clock @now? */
static int near(const struct timeq *q, u64 now, u64 time)
{
	return time >= now && (time >> q->delta_shift) - (now >> q->delta_shift) <= 1;
}

/* --- 3. one plain spinlock around the bare queue --- */

/* What tq_fast_update() does, waiting for the one lock instead. */
static int plain_update(struct bench *b, struct timeq_node *node, u64 time)
{
	struct timeq *q = b->q;
	int ret;

	spin_lock(&b->lock);
	q->budget = TIMEQ_HOLD;
	time = time > q->now ? time : q->now;
	if (node->owner)
		ret = __timeq_update(q, node, time);
	else
		ret = __timeq_insert(q, node, time);
	tq_bare_steps(q);
	spin_unlock(&b->lock);
	return ret;
}

/* The slow thread's calls: 0 insert, 1 delete, 2 update, 3 delete_min. */
static void plain_call(struct bench *b, int op, struct timeq_node *node,
		       u64 time)
{
	struct timeq *q = b->q;

	spin_lock(&b->lock);
	q->budget = TIMEQ_HOLD;
	switch (op) {
	case 0:
		__timeq_insert(q, node, time);
		break;
	case 1:
		__timeq_delete(q, node);
		break;
	case 2:
		__timeq_update(q, node, time);
		break;
	default:
		__timeq_delete_min(q);
		break;
	}
	tq_bare_steps(q);
	spin_unlock(&b->lock);
}

/* Expiry to @time, every node in one hold. */
static void plain_expire(struct bench *b, u64 time)
{
	spin_lock(&b->lock);
	tq_bare_expire(b->q, time, NULL, NULL);
	spin_unlock(&b->lock);
}

static void *fast_thread(void *arg)
{
	struct bench *b = arg;
	struct timeq *q = b->q;
	uint64_t rand = 7, c0, c1;
	u64 now, old, time;
	int ret, was_near;

	pin(0);
	compat_in_softirq = 1;
	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		uint64_t r = next_rand(&rand);
		struct timeq_timer *t = &b->fast[r % FAST_TIMERS];

		now = timeq_now(q);
		time = now + (r >> 8) % (2 * (1u << q->delta_shift) -
					 (now & ((1u << q->delta_shift) - 1)));
		old = timeq_node_time(&t->node);
		was_near = !timeq_node_queued(&t->node) || near(q, now, old);
		c0 = __rdtsc();
		if (b->plain)
			ret = plain_update(b, &t->node, time);
		else
			ret = tq_fast_update(b->base, t, time);
		c1 = __rdtsc();
		b->calls++;
		if (ret == TIMEQ_APPLIED) {
			b->applied++;
			sample(&b->lat_applied, c1 - c0);
		} else if (ret == TIMEQ_DEFERRED) {
			b->deferred++;
			sample(&b->lat_deferred, c1 - c0);
		} else {
			b->refused++;
		}
		if (was_near) {
			b->eligible++;
			b->eligible_applied += ret == TIMEQ_APPLIED;
		}
	}
	return NULL;
}

/* A far time: beyond the next bucket, in the window. */
static u64 far_time(struct timeq *q, uint64_t r)
{
	u64 now = timeq_now(q), from = ((now >> q->delta_shift) + 2) << q->delta_shift;

	return from + r % (now + HORIZON - from);
}

static void *slow_thread(void *arg)
{
	struct bench *b = arg;
	struct timeq *q = b->q;
	uint64_t rand = 11;

	pin(1);
	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		uint64_t r = next_rand(&rand);
		struct timeq_node *n = &b->slow[r % SLOW_NODES];

		if (!b->plain)
			run_slow_path(b->base);
		r /= SLOW_NODES;
		switch (b->mixed ? r % 10 : r % 8) {
		case 0 ... 2:
			if (b->plain)
				plain_call(b, timeq_node_queued(n) ? 1 : 0, n,
					   far_time(q, r / 10));
			else if (timeq_node_queued(n))
				timeq_delete(q, n);
			else
				timeq_insert(q, n, far_time(q, r / 10));
			break;
		case 3 ... 7:
			if (!timeq_node_queued(n))
				break;
			if (b->plain)
				plain_call(b, 2, n, far_time(q, r / 10));
			else
				timeq_update(q, n, far_time(q, r / 10));
			break;
		case 8:
			if (b->plain)
				plain_call(b, 3, NULL, 0);
			else
				timeq_delete_min(q);
			break;
		default:
			/* Expiry: the clock moves on by up to half a bucket. */
			if (b->plain)
				plain_expire(b, timeq_now(q) + (r / 10) % 512);
			else
				timeq_del_less_than(q, timeq_now(q) + (r / 10) % 512,
						    NULL, NULL);
			break;
		}
		b->slow_ops++;
	}
	return NULL;
}

static int contended(int mixed, int plain, double seconds)
{
	struct bench b = { .mixed = mixed, .plain = plain };
	pthread_t fast, slow;
	unsigned int i;
	int failed = 0;

	b.base = test_base(0);
	b.q = tq_base_queue(b.base);
	b.fast = calloc(FAST_TIMERS, sizeof(*b.fast));
	b.slow = calloc(SLOW_NODES, sizeof(*b.slow));
	b.lat_applied.v = malloc(MAX_SAMPLES * sizeof(uint32_t));
	b.lat_deferred.v = malloc(MAX_SAMPLES * sizeof(uint32_t));
	if (!b.fast || !b.slow || !b.lat_applied.v ||
	    !b.lat_deferred.v)
		exit(1);
	spin_lock_init(&b.lock);
	for (i = 0; i < FAST_TIMERS; i++)
		timeq_timer_init(&b.fast[i], NULL);
	for (i = 0; i < SLOW_NODES; i++) {
		timeq_node_init(&b.slow[i]);
		if (i % 2)
			timeq_insert(b.q, &b.slow[i], far_time(b.q, i * 7919));
	}
	pthread_create(&slow, NULL, slow_thread, &b);
	pthread_create(&fast, NULL, fast_thread, &b);
	usleep((useconds_t)(seconds * 1e6));
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELAXED);
	pthread_join(fast, NULL);
	pthread_join(slow, NULL);
	run_slow_path(b.base);
	failed |= check(b.q, mixed ? "mixed" : "far");

	printf("# %s, slow side %s: %lu slow operations beside %lu fast updates\n",
	       plain ? "one plain spinlock around the bare queue" :
		       "timeq's paths",
	       mixed ? "mixed (far work, delete_min, expiry)" :
		       "on the far calendar only",
	       b.slow_ops, b.calls);
	printf("#   eligible updates (old and new time in buckets cur, cur + 1): %lu, applied in place %lu (%.1f%%)\n",
	       b.eligible, b.eligible_applied,
	       b.eligible ? 100.0 * b.eligible_applied / b.eligible : 0.0);
	printf("#   all updates: %lu applied, %lu deferred, %lu refused\n",
	       b.applied, b.deferred, b.refused);
	report_latency("applied", &b.lat_applied);
	/* Behind the one lock nothing is deferred: every call waits. */
	if (!plain)
		report_latency("deferred", &b.lat_deferred);
	for (i = 0; i < FAST_TIMERS; i++)
		tq_delete_sync(b.base, &b.fast[i]);
	for (i = 0; i < SLOW_NODES; i++)
		timeq_delete(b.q, &b.slow[i]);
	if (timeq_count(b.q)) {
		printf("not ok - %lu nodes left\n", timeq_count(b.q));
		failed = 1;
	}
	timeq_base_destroy(b.base);
	free(b.fast);
	free(b.slow);
	free(b.lat_applied.v);
	free(b.lat_deferred.v);
	return failed;
}

/* --- 4. refresh by a store --- */

#define REFRESH_GRAN	1000ULL		/* ns per tick of the base */

/*
 * @kind 0: the moves on a base (stores); 1: on a test base (the lanes);
 * 2: no moves, the timers armed at the final times of kind 0's. Kinds 0
 * and 2 then expire every timer: *@expire_ns is that per timer, and
 * *@refiled how many the expiry filed again.
 */
static double refresh(int kind, const unsigned int *ids, const u64 *steps,
		      u64 *final, double *expire_ns, u64 *refiled)
{
	struct timeq_timer *t = calloc(UNCONTENDED_N, sizeof(*t));
	struct timeq_base *base = NULL;
	struct timeq_fast_stats fs;
	struct timeq *q = NULL;
	unsigned long i, n;
	double start, ns = 0;
	u64 at = 1000;

	compat_clock_set(at * REFRESH_GRAN);
	if (kind == 1) {
		base = test_base(at);
		q = tq_base_queue(base);
	} else {
		base = timeq_base_create(REFRESH_GRAN, HORIZON, 0, 0,
					 GFP_KERNEL);
	}
	if (!t || IS_ERR(base))
		exit(1);
	for (i = 0; i < UNCONTENDED_N; i++) {
		timeq_timer_init(&t[i], NULL);
		if (kind == 1)
			timeq_insert(q, &t[i].node, at + 10 + i);
		else
			timeq_timer_arm(base, &t[i],
					kind == 2 ? final[i] : at + 10 + i);
	}
	if (kind != 2) {
		compat_in_softirq = 1;
		start = now_seconds();
		for (i = 0; i < UNCONTENDED_OPS; i++) {
			struct timeq_timer *timer = &t[ids[i]];
			/* A test base's timer is where its node is. */
			u64 time = steps[i] +
				   (kind == 1 ? timeq_node_time(&timer->node) :
						timeq_timer_expires(timer));

			if (kind == 1)
				tq_fast_update(base, timer, time);
			else
				timeq_fast_update(base, timer, time);
		}
		ns = (now_seconds() - start) * 1e9 / UNCONTENDED_OPS;
		compat_in_softirq = 0;
	}
	if (kind == 1) {
		run_slow_path(base);
		if (check(q, "refresh"))
			exit(1);
		timeq_base_destroy(base);
		free(t);
		return ns;
	}
	for (i = 0; i < UNCONTENDED_N && kind == 0; i++)
		final[i] = timeq_timer_expires(&t[i]);
	compat_clock_set((at + HORIZON) * REFRESH_GRAN);
	start = now_seconds();
	n = timeq_expire(base);
	*expire_ns = (now_seconds() - start) * 1e9 / UNCONTENDED_N;
	timeq_get_fast_stats(base, &fs);
	*refiled = fs.refiled;
	if (n != UNCONTENDED_N || check(tq_base_queue(base), "refresh"))
		exit(1);
	timeq_base_destroy(base);
	free(t);
	return ns;
}

/*
 * 5: samples/flowtrack's refresh (its flow_touch(), flow_refresh_timed()),
 * after its lookup.
 */
#define FLOW_GRAN	1000000ULL	/* ns a tick: 1 ms */
#define FLOW_TIMEOUT	5000000000ULL	/* 5 s */
#define FLOW_ROUND	500000000ULL	/* a packet of each flow a round */
#define FLOW_ROUNDS_OPS	2000000UL	/* packets a run, in whole rounds */
#define FLOW_DEAD	(-1LL)
#define FLOW_HORIZON	(1u << 20)	/* ticks: the run's times, and more */

/*
 * The sample's flows, laid out as in its slab: in mode gc its struct flow
 * (@key stands for the table's link and the 5-tuple, which a packet's
 * lookup reads), 40 bytes, packed; in mode timeq that, the time seen and
 * the timer, whose expires word comes first, 120 bytes aligned to a cache
 * line: what a packet touches lies in the first 56.
 */
struct bench_gc_flow {
	u64			key[3];
	atomic64_t		last;
	u64			reap;
};

struct bench_flow {
	u64			key[3];
	atomic64_t		last;
	u64			reap;
	atomic64_t		seen;
	struct timeq_timer	timer;
} __aligned(64);

/*
 * @bytes of flows, zeroed, in huge pages where the kernel gives them: the
 * sample's flows lie in the kernel's direct map, which huge pages map, and
 * in pages of 4 KiB the TLB's misses would cost more than the refreshes.
 */
static void *flow_alloc(size_t bytes)
{
	size_t huge = 2 << 20, len = (bytes + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, len);

	if (!p)
		exit(1);
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return p;
}

/* The words a packet's lookup compares before it refreshes @key's flow. */
static u64 flow_sink;

static void flow_lookup(const u64 *key)
{
	WRITE_ONCE(flow_sink,
		   READ_ONCE(key[0]) + READ_ONCE(key[1]) + READ_ONCE(key[2]));
}

/*
 * What the sample counts of a refresh, per CPU with this_cpu_inc() as it
 * does (compat's costs what timeq's own counting costs here). One thread.
 */
struct flow_counts {
	u64	refreshes, skipped, left, applied, deferred, failed;
};

static struct flow_counts *flow_pcpu;

static u64 flow_deadline(u64 now)
{
	return div64_u64(now + FLOW_TIMEOUT + FLOW_GRAN - 1, FLOW_GRAN);
}

enum { FLOW_TOUCHED, FLOW_FRESHER, FLOW_IDLE, FLOW_GONE };

static int flow_touch(atomic64_t *at, u64 now, bool idle)
{
	s64 last = atomic64_read(at);

	do {
		if (last == FLOW_DEAD)
			return FLOW_GONE;
		if (idle && now >= last + FLOW_TIMEOUT)
			return FLOW_IDLE;
		if (last >= now)
			return FLOW_FRESHER;
	} while (!atomic64_try_cmpxchg(at, &last, now));
	return FLOW_TOUCHED;
}

/* The sample's per-CPU tick, of the one CPU here: 0, which no time has. */
static u64 flow_tick;

static u64 flow_deadline_packet(u64 now)
{
	if (now + FLOW_TIMEOUT - (flow_tick - 1) * FLOW_GRAN - 1 >= FLOW_GRAN)
		flow_tick = flow_deadline(now);
	return flow_tick;
}

static int flow_store(struct bench_flow *f, u64 now)
{
	int ret;

	if (timeq_timer_store(&f->timer, flow_deadline_packet(now))) {
		atomic64_set(&f->seen, now);
		return FLOW_TOUCHED;
	}
	ret = flow_touch(&f->last, now, false);
	if (ret != FLOW_GONE)
		this_cpu_inc(flow_pcpu->left);
	return ret;
}

/* The granularity as the sample has it, a parameter: a real division. */
static u64 flow_gran;

static u64 flow_deadline_div(u64 now)
{
	return div64_u64(now + FLOW_TIMEOUT + flow_gran - 1, flow_gran);
}

/*
 * The store alone: flow_store() without the sample's counts and seen,
 * but for the count of a store that did not land, which the run checks.
 */
static int flow_store_alone(struct bench_flow *f, u64 now)
{
	if (timeq_timer_store(&f->timer, flow_deadline_div(now)))
		return FLOW_TOUCHED;
	this_cpu_inc(flow_pcpu->left);
	return flow_touch(&f->last, now, false);
}

/*
 * The least a store of the tick can cost: the tick, and one
 * compare-and-exchange of the timer's word, written as a store that
 * lands writes it, with none of the checks that make that safe
 * (module/fast.c, "Refresh by a store") but that the time is no earlier.
 */
static int flow_cas_alone(struct bench_flow *f, u64 now)
{
	u64 deadline = flow_deadline_div(now);
	s64 old = atomic64_read(&f->timer.expires);

	if (atomic64_read(&f->last) == FLOW_DEAD)
		return FLOW_GONE;
	do {
		if ((u64)(old & TIMEQ_EXPIRES_TIME) >= deadline)
			return FLOW_FRESHER;
	} while (!atomic64_try_cmpxchg(&f->timer.expires, &old,
				       (old & ~TIMEQ_EXPIRES_TIME) | deadline));
	return FLOW_TOUCHED;
}

/* The design before: the flow's last time, then the timer moved. */
static int flow_update(struct timeq_base *base, struct bench_flow *f,
		       u64 now)
{
	int ret = flow_touch(&f->last, now, true);
	u64 deadline;

	if (ret != FLOW_TOUCHED)
		return ret;
	deadline = flow_deadline(now);
	if (deadline == timeq_timer_expires(&f->timer)) {
		this_cpu_inc(flow_pcpu->skipped);
		return ret;
	}
	switch (timeq_fast_update(base, &f->timer, deadline)) {
	case TIMEQ_APPLIED:
		this_cpu_inc(flow_pcpu->applied);
		break;
	case TIMEQ_DEFERRED:
		this_cpu_inc(flow_pcpu->deferred);
		break;
	default:
		this_cpu_inc(flow_pcpu->failed);
		break;
	}
	return ret;
}

/*
 * One run of @kind (0 gc, 1 store, 2 update, 3 the store alone, 4 the
 * compare-and-exchange alone) on @n flows, the packets' flows @ids: ns a
 * refresh. Exits if a timer does not expire at the tick of its flow's
 * last packet, or a store did not land.
 */
static double flow_refresh(int kind, unsigned int n, const unsigned int *ids)
{
	struct bench_gc_flow *g = flow_alloc(n * sizeof(*g));
	struct bench_flow *f = flow_alloc(n * sizeof(*f));
	u64 t0 = 1000 * FLOW_GRAN, step = FLOW_ROUND / n, now = t0;
	unsigned long k, ops = FLOW_ROUNDS_OPS / n * n;
	struct flow_counts *c;
	struct timeq_base *base;
	unsigned int i;
	double start, ns;
	int ret = FLOW_GONE;

	if (!flow_pcpu)
		flow_pcpu = alloc_percpu_gfp(struct flow_counts, GFP_KERNEL);
	if (!flow_pcpu)
		exit(1);
	c = per_cpu_ptr(flow_pcpu, compat_this_cpu());
	compat_clock_set(t0);
	flow_tick = 0;
	base = timeq_base_create(FLOW_GRAN, FLOW_HORIZON, 0, 0, GFP_KERNEL);
	if (IS_ERR(base))
		exit(1);
	for (i = 0; i < n; i++) {
		atomic64_set(&g[i].last, t0);
		atomic64_set(&f[i].last, t0);
		atomic64_set(&f[i].seen, t0);
		timeq_timer_init(&f[i].timer, NULL);
		if (timeq_timer_arm(base, &f[i].timer, flow_deadline(t0)))
			exit(1);
	}
	memset(c, 0, sizeof(*c));
	compat_in_softirq = 1;
	start = now_seconds();
	for (k = 0; k < ops; k++) {
		now += step;
		flow_lookup(kind ? f[ids[k]].key : g[ids[k]].key);
		if (kind == 0)
			ret = flow_touch(&g[ids[k]].last, now, true);
		else if (kind == 1)
			ret = flow_store(&f[ids[k]], now);
		else if (kind == 2)
			ret = flow_update(base, &f[ids[k]], now);
		else if (kind == 3)
			ret = flow_store_alone(&f[ids[k]], now);
		else
			ret = flow_cas_alone(&f[ids[k]], now);
		/* As the sample's flow_packet() counts. */
		if (ret == FLOW_TOUCHED || ret == FLOW_FRESHER)
			this_cpu_inc(flow_pcpu->refreshes);
	}
	ns = (now_seconds() - start) * 1e9 / ops;
	compat_in_softirq = 0;
	/* The last round's packets, again, for the times each flow ends at. */
	for (k = ops - n, now = t0 + (ops - n) * step; k < ops; k++) {
		now += step;
		if (kind ? timeq_timer_expires(&f[ids[k]].timer) !=
				   flow_deadline(now) :
			   (u64)atomic64_read(&g[ids[k]].last) != now) {
			fprintf(stderr, "flow refresh %d: flow %u ends wrong\n",
				kind, ids[k]);
			exit(1);
		}
	}
	if (c->refreshes != ops || c->left || c->deferred || c->failed) {
		fprintf(stderr, "flow refresh %d: %llu refreshes of %lu, %llu left, %llu deferred\n",
			kind, (unsigned long long)c->refreshes, ops,
			(unsigned long long)c->left,
			(unsigned long long)c->deferred);
		exit(1);
	}
	timeq_base_destroy(base);
	free(g);
	free(f);
	return ns;
}

/* Rounds of a packet of each of @n flows, each round in a random order. */
static unsigned int *flow_ids(unsigned int n, uint64_t *rand)
{
	unsigned int *ids = malloc(FLOW_ROUNDS_OPS * sizeof(*ids)), i, j, x;
	unsigned long k;

	if (!ids)
		exit(1);
	for (k = 0; k + n <= FLOW_ROUNDS_OPS; k += n) {
		for (i = 0; i < n; i++)
			ids[k + i] = i;
		for (i = n - 1; i > 0; i--) {
			j = next_rand(rand) % (i + 1);
			x = ids[k + i];
			ids[k + i] = ids[k + j];
			ids[k + j] = x;
		}
	}
	return ids;
}

int main(int argc, char **argv)
{
	static u64 times[UNCONTENDED_OPS];
	static unsigned int ids[UNCONTENDED_OPS];
	double seconds = 3, bare, locked, fast;
	double bare_ns[5], locked_ns[5], fast_ns[5];
	uint64_t rand = 3;
	unsigned long i;
	int failed = 0;

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--seconds S]\n", argv[0]);
		return 2;
	}
	calibrate();
	printf("# bench_paths: module/paths.c, fast.c and handoff.c in userspace, %ld CPUs, %.2f ns per TSC cycle\n",
	       sysconf(_SC_NPROCESSORS_ONLN), ns_per_cycle);

	for (i = 0; i < UNCONTENDED_OPS; i++) {
		uint64_t r = next_rand(&rand);

		ids[i] = r % UNCONTENDED_N;
		times[i] = (r >> 16) % HORIZON;
	}
	pin(0);
	/* Interleaved, five of each, and the median: a busy host shows less. */
	for (i = 0; i < 5; i++) {
		bare_ns[i] = uncontended(0, times, ids);
		locked_ns[i] = uncontended(1, times, ids);
		fast_ns[i] = uncontended(2, times, ids);
	}
	bare = median5(bare_ns);
	locked = median5(locked_ns);
	fast = median5(fast_ns);
	printf("# uncontended, N = %u, updates to random times in the window (clock at 0), median of 5:\n",
	       UNCONTENDED_N);
	printf("#   __timeq_update %.1f ns, timeq_update %.1f ns (+%.1f), tq_fast_update %.1f ns (+%.1f)\n",
	       bare, locked, locked - bare, fast, fast - bare);

	{
		static u64 steps[UNCONTENDED_OPS], final[UNCONTENDED_N];
		double st[5], ln[5], ex[5], eg[5], dummy;
		u64 refiled = 0, none = 0;

		for (i = 0; i < UNCONTENDED_OPS; i++)
			steps[i] = 1 + next_rand(&rand) % 16;
		for (i = 0; i < 5; i++) {
			st[i] = refresh(0, ids, steps, final, &ex[i], &refiled);
			ln[i] = refresh(1, ids, steps, final, &dummy, &none);
			refresh(2, ids, steps, final, &eg[i], &none);
		}
		printf("# refresh, N = %u, moves 1 to 16 ticks past the time a timer expires at, median of 5:\n",
		       UNCONTENDED_N);
		printf("#   a store on a base %.1f ns, the lanes on a test base %.1f ns (%.2fx)\n",
		       median5(st), median5(ln), median5(ln) / median5(st));
		printf("#   expiry: %.1f ns a timer after the stores (%llu filed again once each), %.1f ns a timer armed at its final time: a re-file %.1f ns\n",
		       median5(ex), (unsigned long long)refiled, median5(eg),
		       median5(ex) - median5(eg));
	}

	{
		static const unsigned int sizes[] = { 1000, 100000 };
		double gc[5], st[5], up[5], alone[5], cas[5];
		unsigned int *ids, z;

		flow_gran = FLOW_GRAN;

		printf("# a flow's refresh (samples/flowtrack) after its lookup, a packet of every flow a round, a later tick each, median of 5:\n");
		for (z = 0; z < 2; z++) {
			ids = flow_ids(sizes[z], &rand);
			for (i = 0; i < 5; i++) {
				gc[i] = flow_refresh(0, sizes[z], ids);
				st[i] = flow_refresh(1, sizes[z], ids);
				up[i] = flow_refresh(2, sizes[z], ids);
				alone[i] = flow_refresh(3, sizes[z], ids);
				cas[i] = flow_refresh(4, sizes[z], ids);
			}
			printf("#   N = %u: gc %.1f ns, store %.1f ns (%.2fx gc), update %.1f ns (%.2fx gc)\n",
			       sizes[z], median5(gc), median5(st),
			       median5(st) / median5(gc), median5(up),
			       median5(up) / median5(gc));
			printf("#     of the store: timeq_timer_store() of the tick %.1f ns (%.2fx gc), the tick and a compare-and-exchange %.1f ns (%.2fx gc)\n",
			       median5(alone), median5(alone) / median5(gc),
			       median5(cas), median5(cas) / median5(gc));
			free(ids);
		}
	}

	failed |= contended(0, 0, seconds);
	failed |= contended(1, 0, seconds);
	failed |= contended(0, 1, seconds);
	failed |= contended(1, 1, seconds);
	printf("%s - bench_paths ran to the end with every queue consistent\n",
	       failed ? "not ok" : "ok");
	return failed;
}
