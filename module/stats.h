/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module counts of every queue, and where it shows it (stats.c):
 * the counters each CPU keeps of a queue, the registry that numbers the
 * live queues, and one snapshot of a queue for debugfs and TIMEQ_STATS.
 */
#ifndef _TIMEQ_STATS_H
#define _TIMEQ_STATS_H

#include <linux/percpu.h>
#include <linux/timeq.h>
#include <uapi/linux/timeq.h>

/**
 * struct timeq_counters - what one CPU counted of one queue
 * @fast_applied: updates the fast path applied in place
 * @fast_deferred: updates the fast path handed to the slow path
 * @fast_deferred_why: the same, by why (&enum timeq_defer): they add up
 *		to @fast_deferred
 * @fast_contended: trylocks of the fast path that failed
 * @fast_refused: updates the fast path refused with an error
 * @handoffs:	requests put on the hand-off list; an update of a timer
 *		whose request is pending joins that one instead
 * @drained:	handed-off requests the slow side applied
 * @slow_runs:	runs of the queue's work item
 * @expiry_runs: expiries that removed nodes: timeq_del_less_than() calls,
 *		and a timer base's runs of its expiry
 * @expired:	nodes those removed
 * @lateness:	a timer base's expired timers by how late their
 *		callbacks started, in the buckets of &struct timeq_stats
 *
 * The paths count with this_cpu_inc(): no lock, and a line no other CPU
 * writes. Every field is a u64, so that a sum is a loop over them
 * (stats.c).
 */
struct timeq_counters {
	u64	fast_applied;
	u64	fast_deferred;
	u64	fast_deferred_why[TIMEQ_DEFER_REASONS];
	u64	fast_contended;
	u64	fast_refused;
	u64	handoffs;
	u64	drained;
	u64	slow_runs;
	u64	expiry_runs;
	u64	expired;
	u64	lateness[TIMEQ_LATENESS_BUCKETS];
};

/**
 * struct tq_snapshot - one queue's shape, state and counts
 * @horizon:	the queue's horizon, in ticks
 * @delta:	its bucket width
 * @buckets:	its number of buckets M
 * @now:	its clock
 * @bucket:	the current bucket number, @now / @delta
 * @head:	nodes in the array playing head (H)
 * @head2:	nodes in the array playing head2 (H2)
 * @focus:	nodes in the array playing focus
 * @calendar:	nodes in the bucket lists
 * @pend:	the pending work, a TQ_PEND_* of queue.h
 * @visits:	nodes the slow side visited, over the queue's life
 * @max_visits:	the most nodes one lock hold of the slow side visited
 * @counters:	the counters of every CPU, added up
 *
 * @horizon to @max_visits are read in one lock hold, so they agree.
 */
struct tq_snapshot {
	u64			horizon;
	u32			delta;
	u32			buckets;
	u64			now;
	u64			bucket;
	u64			head;
	u64			head2;
	u64			focus;
	u64			calendar;
	unsigned int		pend;
	u64			visits;
	u64			max_visits;
	struct timeq_counters	counters;
};

void tq_stats_register(struct timeq *q);
void tq_stats_unregister(struct timeq *q);
void tq_stats_lateness(struct timeq *q, u64 ns);
void tq_stats_snapshot(struct timeq *q, struct tq_snapshot *s);
void tq_get_fast_stats(struct timeq *q, struct timeq_fast_stats *stats);
void tq_stats_init(void);
void tq_stats_exit(void);

#endif /* _TIMEQ_STATS_H */
