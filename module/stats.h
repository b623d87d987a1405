/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the module shows what it counts of every queue (stats.c): the
 * registry that numbers the live queues, the sums of the counters of
 * counters.h, and one snapshot of a queue for debugfs and TIMEQ_STATS.
 */
#ifndef _TIMEQ_STATS_H
#define _TIMEQ_STATS_H

#include <linux/percpu.h>
#include <linux/timeq.h>

#include "counters.h"

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
