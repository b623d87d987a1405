/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data structure's side of the module: the unlocked operations of
 * queue.c that paths.c wraps in locks, the positions the fast path reads
 * to decide, and the bitmap calls that KUnit tests alone (static in a
 * kernel without KUnit, exported to the EXPORTED_FOR_KUNIT_TESTING
 * namespace in one with it, through include/kunit/visibility.h).
 */
#ifndef _TIMEQ_QUEUE_H
#define _TIMEQ_QUEUE_H

#include <linux/timeq.h>

int __timeq_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		 unsigned int nbuckets, gfp_t gfp);
void __timeq_release(struct timeq *q);
int __timeq_insert(struct timeq *q, struct timeq_node *node, u64 time);
int __timeq_delete(struct timeq *q, struct timeq_node *node);
int __timeq_update(struct timeq *q, struct timeq_node *node, u64 time);
struct timeq_node *__timeq_delete_min(struct timeq *q);
unsigned long __timeq_del_less_than(struct timeq *q, u64 time,
				    unsigned long max, timeq_fn fn, void *arg);
int __timeq_check(const struct timeq *q, char *buf, size_t len);

/* --- positions: which list a time belongs to --- */

static inline unsigned long tq_delta(const struct timeq *q)
{
	return 1UL << q->delta_shift;
}

static inline unsigned long tq_nbuckets(const struct timeq *q)
{
	return 1UL << q->buckets_shift;
}

/* The current bucket number: the bucket of @now. */
static inline u64 tq_cur(const struct timeq *q)
{
	return q->now >> q->delta_shift;
}

/* The bucket of @time relative to the current one; @time >= now. */
static inline u64 tq_rel(const struct timeq *q, u64 time)
{
	return (time >> q->delta_shift) - tq_cur(q);
}

/* The list of @time within a head. */
static inline unsigned long tq_index(const struct timeq *q, u64 time)
{
	return time & (tq_delta(q) - 1);
}

/* The bucket list of bucket number @bucket. */
static inline unsigned long tq_slot(const struct timeq *q, u64 bucket)
{
	return bucket & (tq_nbuckets(q) - 1);
}

static inline bool tq_in_window(const struct timeq *q, u64 time)
{
	return time >= q->now && time - q->now < q->horizon;
}

static inline struct timeq *tq_owner(const struct timeq_node *node)
{
	return (struct timeq *)(node->owner & ~TIMEQ_NODE_IN_HEAD);
}

static inline bool tq_in_head(const struct timeq_node *node)
{
	return node->owner & TIMEQ_NODE_IN_HEAD;
}

/* "No bit found" from timeq_bitmap_next(). */
#define TIMEQ_NONE	ULONG_MAX

#if IS_ENABLED(CONFIG_KUNIT)
size_t timeq_bitmap_words(unsigned long nbits);
unsigned long *timeq_bitmap_init(struct timeq_bitmap *map, unsigned long *mem,
				 unsigned long nbits);
void timeq_bitmap_set(struct timeq_bitmap *map, unsigned long bit);
void timeq_bitmap_clear(struct timeq_bitmap *map, unsigned long bit);
unsigned long timeq_bitmap_next(const struct timeq_bitmap *map,
				unsigned long bit);
#endif

#endif /* _TIMEQ_QUEUE_H */
