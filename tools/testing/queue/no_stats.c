// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace build has no registry of queues (module/stats.c needs
 * debugfs): a queue is numbered and nothing more. What the KUnit suite of
 * the paths reads of the counters is here as stats.c has it: a lateness
 * counted in its power-of-two bucket of microseconds, a snapshot that
 * reads the queue under its locks and adds up every CPU's counters, and
 * the fast path's sums of a queue, which timeq_get_fast_stats() reads for
 * a base's; and a queue's bytes, which timeq_base_bytes() adds to.
 */
#include "compat.h"
#include "../../../module/paths.h"
#include "../../../module/queue.h"
#include "../../../module/stats.h"

void tq_stats_register(struct timeq *q)
{
	static long long ids;

	q->id = __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);
}

void tq_stats_unregister(struct timeq *q)
{
	(void)q;
}

void tq_stats_lateness(struct timeq *q, u64 ns)
{
	u64 us = ns / NSEC_PER_USEC;
	unsigned int i = us ? 64 - __builtin_clzll(us) : 0;

	i = min_t(unsigned int, i, TIMEQ_LATENESS_BUCKETS - 1);
	this_cpu_inc(q->counters->lateness[i]);
}

void tq_stats_snapshot(struct timeq *q, struct tq_snapshot *s)
{
	const u64 *from;
	u64 *to = (u64 *)&s->counters;
	size_t i;
	int cpu;

	memset(s, 0, sizeof(*s));
	tq_lock(q);
	s->horizon = q->horizon;
	s->delta = tq_delta(q);
	s->buckets = tq_nbuckets(q);
	s->now = q->now;
	s->bucket = tq_cur(q);
	s->head = q->head->count;
	s->head2 = q->head2->count;
	s->focus = q->focus->count;
	s->calendar = q->calendar_count;
	s->pend = q->pend;
	s->visits = q->total_visits;
	s->max_visits = q->max_visits;
	tq_unlock(q);
	for (cpu = 0; cpu < COMPAT_NR_CPUS; cpu++) {
		from = (const u64 *)per_cpu_ptr(q->counters, cpu);
		for (i = 0; i < sizeof(s->counters) / sizeof(u64); i++)
			to[i] += from[i];
	}
}

void tq_get_fast_stats(struct timeq *q, struct timeq_fast_stats *stats)
{
	struct tq_snapshot s;

	tq_stats_snapshot(q, &s);
	stats->applied = s.counters.fast_applied;
	stats->stored = s.counters.fast_stored;
	stats->refiled = s.counters.refiled;
	stats->refused = s.counters.fast_refused;
	memcpy(stats->deferred, s.counters.fast_deferred_why,
	       sizeof(stats->deferred));
}

size_t timeq_bytes(const struct timeq *q)
{
	return sizeof(*q) +
	       __timeq_lists_size(q->delta_shift, q->buckets_shift) +
	       COMPAT_NR_CPUS * sizeof(struct timeq_counters);
}
