// SPDX-License-Identifier: GPL-2.0
/*
 * module/paths.c in userspace: the fast and slow paths over one queue,
 * with pthread spinlocks standing in for the kernel's (compat/compat.h).
 * Built under ThreadSanitizer by `make check`, and without it for
 * measuring the fast path natively.
 *
 * Fast threads stand in for softirqs: they only call timeq_fast_update()
 * and timeq_fast_min(), which only try locks. One slow thread stands in
 * for process context and the workqueue: it arms, deletes, delete-mins,
 * expires with del_less_than(), runs the invariant checker under the locks
 * and runs the queue's work item (the hand-off drain) when it is queued.
 * At the end every insertion is accounted for exactly once, as a removal
 * by the slow thread or as a node still queued, and no request is left.
 * Output is TAP.
 *
 * By default the slow thread runs flat out, the worst case for the fast
 * path's trylocks; --slow-every N paces it to one step per N fast calls,
 * nearer what a workqueue does.
 *
 *	stress_paths [--fast N] [--threads N] [--timers N] [--slow-every N]
 *		     [--seed S]
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <linux/timeq.h>

#define HORIZON		(1u << 16)	/* delta 256, M 256 */

struct stress {
	struct timeq		*q;
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
	double		seconds;
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
		r = next_rand(&f->rand);
		ret = timeq_fast_update(s->q, &s->timers[r % s->ntimers],
					pick_time(s->q, r / s->ntimers));
		if (ret == TIMEQ_APPLIED)
			f->applied++;
		else if (ret == TIMEQ_DEFERRED)
			f->deferred++;
		else
			f->refused++;
		ret = timeq_fast_min(s->q, &t);
		if (!ret)
			f->min_found++;
		else if (ret == -ENOENT)
			f->min_empty++;
		else
			f->min_busy++;
		if (i % 64 == 0)
			__atomic_store_n(&f->progress, i, __ATOMIC_RELAXED);
	}
	f->seconds = seconds() - start;
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
	compat_run_irq_work(&s->q->kick);
	s->drains += compat_run_work(&s->q->work);
	r /= s->ntimers;
	switch (r % 12) {
	case 0 ... 5:
		timeq_timer_arm(s->q, timer, pick_time(s->q, r / 12));
		break;
	case 6 ... 8:
		s->removed += timeq_timer_delete(s->q, timer);
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
		if (timeq_check(s->q, why, sizeof(why))) {
			printf("# mid-stress: %s\n", why);
			s->failed = 1;
		}
		s->checks++;
		break;
	}
	s->slow_ops++;
}

int main(int argc, char **argv)
{
	unsigned long applied = 0, deferred = 0, refused = 0, calls;
	unsigned long min_found = 0, min_empty = 0, min_busy = 0, pending = 0;
	struct stress s = { .ntimers = 1024, .fast_calls = 500000 };
	unsigned int i, nfast = 2, tests = 0, failed = 0;
	uint64_t seed = 1, rand;
	struct fast *fast;
	double ns = 0;
	char why[128];

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--fast") && i + 1 < (unsigned int)argc)
			s.fast_calls = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < (unsigned int)argc)
			nfast = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--timers") && i + 1 < (unsigned int)argc)
			s.ntimers = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--slow-every") && i + 1 < (unsigned int)argc)
			s.slow_every = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < (unsigned int)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--fast N] [--threads N] [--timers N] [--slow-every N] [--seed S]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nfast || !s.ntimers)
		return 2;

	s.q = timeq_create(0, HORIZON, 0, 0, GFP_KERNEL);
	s.timers = calloc(s.ntimers, sizeof(*s.timers));
	fast = calloc(nfast, sizeof(*fast));
	if (IS_ERR(s.q) || !s.timers || !fast)
		return 1;
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
	compat_run_irq_work(&s.q->kick);
	compat_run_work(&s.q->work);
	for (i = 0; i < s.ntimers; i++) {
		pending += test_bit(TIMEQ_TIMER_PENDING, &s.timers[i].flags);
		s.removed += timeq_delete_sync(s.q, &s.timers[i]);
	}
	if (pending || s.q->handoffs.first || timeq_count(s.q) ||
	    timeq_check(s.q, why, sizeof(why))) {
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
	timeq_destroy(s.q);
	free(s.timers);
	free(fast);
	if (compat_allocations) {
		printf("not ok %u - %ld allocations left\n", ++tests,
		       compat_allocations);
		failed++;
	}
	printf("1..%u\n", tests);
	return failed ? 1 : 0;
}
