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

#include "tune.h"

/*
 * Bounded work (module/queue.c, "Bounded work: steps"): one step of
 * pending work moves at most TIMEQ_STEP nodes; a far bucket list of at
 * most TIMEQ_WALK nodes is walked for its minimum instead of spread into
 * the focus. The caller gives each lock hold a budget of TIMEQ_HOLD node
 * visits in q->budget; no call spends more than the budget it is given,
 * plus the one node it was asked about.
 */
#define TIMEQ_STEP	32
#define TIMEQ_WALK	16
#define TIMEQ_HOLD	64

/* Pending work (q->pend); queue.c's top comment says what each does. */
enum {
	TQ_PEND_NONE,
	TQ_PEND_PULL_NEXT,
	TQ_PEND_PULL_HEAD,
	TQ_PEND_WALK,
	TQ_PEND_EVICT,
	TQ_PEND_RESOLVE,
};

int __timeq_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		 unsigned int nbuckets, gfp_t gfp);
bool __timeq_release_step(struct timeq *q);
void __timeq_free(struct timeq *q);
size_t __timeq_lists_size(unsigned int delta_shift, unsigned int buckets_shift);
int __timeq_insert(struct timeq *q, struct timeq_node *node, u64 time);
int __timeq_delete(struct timeq *q, struct timeq_node *node);
int __timeq_update(struct timeq *q, struct timeq_node *node, u64 time);
int __timeq_far_insert(struct timeq *q, struct timeq_node *node, u64 time);
int __timeq_far_delete(struct timeq *q, struct timeq_node *node);
int __timeq_far_update(struct timeq *q, struct timeq_node *node, u64 time);
struct timeq_node *__timeq_delete_min(struct timeq *q);
unsigned long __timeq_del_less_than(struct timeq *q, u64 time,
				    unsigned long max, timeq_fn fn, void *arg);
bool __timeq_step(struct timeq *q);
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

/* The list of @time within a spread array. */
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

/* --- where a node is: its owner word, the queue and a tag --- */

/* The tag of a node in the calendar; spread array i has tag i + 1. */
#define TQ_TAG_CALENDAR	0
/*
 * The tag of a node that is @q's but in none of its lists: the timer
 * facility holds it, on its list of timers due (module/clock.c). The
 * operations here take it as not queued: insert says -EBUSY, delete and
 * update -ENOENT, and the fast path's lanes leave it to the slow side.
 */
#define TQ_TAG_OUT	4
/* The spread arrays behind head, head2 and focus. */
#define TQ_HEADS	ARRAY_SIZE(((struct timeq *)NULL)->heads)

static inline struct timeq *tq_owner(const struct timeq_node *node)
{
	return (struct timeq *)(READ_ONCE(node->owner) & ~TIMEQ_NODE_TAG_MASK);
}

/*
 * Is @node in a queue other than @q? One read of its owner word: a node
 * leaving its queue under other locks must not read as in another.
 */
static inline bool tq_foreign(const struct timeq_node *node,
			      const struct timeq *q)
{
	unsigned long owner = READ_ONCE(node->owner);

	return owner && (struct timeq *)(owner & ~TIMEQ_NODE_TAG_MASK) != q;
}

static inline unsigned int tq_tag(const struct timeq_node *node)
{
	return READ_ONCE(node->owner) & TIMEQ_NODE_TAG_MASK;
}

/* Is @node in one of the lists of @q? One read of its owner word. */
static inline bool tq_in(const struct timeq_node *node, const struct timeq *q)
{
	unsigned long owner = READ_ONCE(node->owner);

	return (owner & ~TIMEQ_NODE_TAG_MASK) == (unsigned long)q &&
	       (owner & TIMEQ_NODE_TAG_MASK) != TQ_TAG_OUT;
}

static inline unsigned long tq_owner_word(const struct timeq *q,
					  unsigned int tag)
{
	return (unsigned long)q | tag;
}

static inline unsigned int tq_head_tag(const struct timeq *q,
				       const struct timeq_head *head)
{
	return 1 + (head - q->heads);
}

static inline struct timeq_head *tq_tag_head(struct timeq *q, unsigned int tag)
{
	return &q->heads[tag - 1];
}

/* Does @tag name the array that plays @role (q->head, head2 or focus)? */
static inline bool tq_tag_plays(const struct timeq *q, unsigned int tag,
				const struct timeq_head *role)
{
	return tag != TQ_TAG_CALENDAR && tag <= TQ_HEADS &&
	       &q->heads[tag - 1] == role;
}

/* Is @node (queued in @q) in the far region: the calendar or the focus? */
static inline bool tq_is_far(const struct timeq *q,
			     const struct timeq_node *node)
{
	unsigned int tag = tq_tag(node);

	return tag == TQ_TAG_CALENDAR ||
	       tq_tag_plays(q, tag, READ_ONCE(q->focus));
}

/* Is @node (queued in @q) in the array playing head? */
static inline bool tq_is_head(const struct timeq *q,
			      const struct timeq_node *node)
{
	return tq_tag_plays(q, tq_tag(node), READ_ONCE(q->head));
}

#ifdef TIMEQ_DEBUG_FIFO
/* The next insertion number: shared by writers under different locks. */
static inline u64 tq_debug_next(atomic64_t *counter)
{
	return atomic64_inc_return(counter) - 1;
}
#endif

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
