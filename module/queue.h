/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data structure's side of the module: struct timeq, which only
 * module/ sees (callers hold a pointer), the unlocked operations of
 * queue.c that paths.c wraps in locks, the positions the fast path reads
 * to decide, and the bitmap calls that KUnit tests alone (static in a
 * kernel without KUnit, exported to the EXPORTED_FOR_KUNIT_TESTING
 * namespace in one with it, through include/kunit/visibility.h).
 */
#ifndef _TIMEQ_QUEUE_H
#define _TIMEQ_QUEUE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/list.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>

#include "tune.h"

/*
 * The low bits of timeq_node.owner: which list array the node is in. A
 * struct timeq is aligned to at least 8 bytes, so three bits are free.
 */
#define TIMEQ_NODE_TAG_MASK	7UL

struct timeq_counters;
struct tq_fifo;

/*
 * Bounds on the shape of a queue: at most 2^20 lists in each of the spread
 * arrays and in the bucket array, so the bitmaps over them have at most
 * four levels (64^4 and 32^4 are both at least 2^20), and a horizon of at
 * most 2^40 ticks.
 */
#define TIMEQ_MAX_LISTS_SHIFT	20
#define TIMEQ_BITMAP_LEVELS	4

/**
 * struct timeq_bitmap - which lists of an array are non-empty
 * @level:	the levels: level 0 has one bit per list, and bit i of level
 *		l + 1 says whether word i of level l is non-zero
 * @words:	the number of words in each level; the top one has one
 * @levels:	the number of levels in use
 */
struct timeq_bitmap {
	unsigned long	*level[TIMEQ_BITMAP_LEVELS];
	unsigned int	words[TIMEQ_BITMAP_LEVELS];
	unsigned int	levels;
};

/**
 * struct timeq_spread - one bucket spread into one list per time
 * @lists:	delta lists; list i holds the nodes of time bucket * delta + i
 * @map:	the non-empty lists
 * @count:	the number of nodes in all of @lists
 */
struct timeq_spread {
	struct list_head	*lists;
	struct timeq_bitmap	map;
	unsigned long		count;
} ____cacheline_aligned_in_smp;

/**
 * struct timeq - a two-head calendar queue
 * @now:	the clock, in ticks; never decreases
 * @horizon:	every queued time lies in [@now, @now + @horizon)
 * @min:	the earliest node (first inserted among equals), or NULL when
 *		the queue is empty or work is pending
 * @min_time:	the time of @min, or U64_MAX without one
 * @min_seq:	odd while @min_time is written, on a 32-bit kernel only, for
 *		reads without head_lock (tq_min_time_read())
 * @head:	the spread array of the current bucket, the one @now is in
 * @head2:	the spread array of part of the next bucket
 * @focus:	the spread array of one far bucket, @focus_bucket
 * @spreads:	the three spread arrays behind @head, @head2 and @focus
 * @focus_bucket: the bucket number @focus holds, while it holds nodes
 * @buckets:	the calendar: bucket number b is list b % M
 * @bucket_map:	the non-empty lists of @buckets
 * @bucket_count: the number of nodes in each of @buckets
 * @calendar_count: the number of nodes in all of @buckets
 * @bucket_sorted: one bit per list of @buckets: set, the list is in order
 *		of time (an empty list is)
 * @delta_shift: log2 of the bucket width delta
 * @buckets_shift: log2 of the number of buckets M
 * @pend:	the kind of pending work, TQ_PEND_NONE without (module/queue.h)
 * @pend_bucket: the far bucket that pending work is about
 * @budget:	node visits left to the current lock hold of the slow side
 * @visits:	node visits of the current lock hold of the slow side
 * @max_visits:	the most any one lock hold of the slow side visited
 * @total_visits: node visits of the slow side, all lock holds together
 * @seq:	links so far, by insertion or update (with %TIMEQ_DEBUG_FIFO
 *		only)
 * @inserted:	insertions so far (with %TIMEQ_DEBUG_FIFO only): tests
 *		account for every element with it
 * @fifo:	each node's insertion number, or NULL (with %TIMEQ_DEBUG_FIFO
 *		only; struct tq_fifo)
 * @head_lock:	guards @head, @now, @min, @min_time and @min_seq
 * @head2_lock:	guards @head2
 * @bucket_lock: guards the calendar, @focus and @focus_bucket
 * @counters:	what each CPU counted of the queue (module/counters.h)
 * @id:		the queue's number, from 1 in order of creation: it names
 *		the queue in debugfs and in trace events, which never show
 *		its address
 * @registry:	the queue's place in the list of live queues
 *		(module/stats.c)
 *
 * Callers see none of it: timeq_min(), timeq_now() and timeq_count()
 * (paths.c) read what they may. Changing which array plays which role,
 * @now's bucket, or @pend takes all three locks, in the order above;
 * module/paths.c says who takes which for the rest.
 */
struct timeq {
	/* Read by every path; set at creation, or under all three locks. */
	u64			horizon;
	unsigned int		delta_shift;
	unsigned int		buckets_shift;
	struct timeq_spread	*head;
	struct timeq_spread	*head2;
	struct timeq_spread	*focus;
	unsigned int		pend;
	struct timeq_counters __percpu *counters;

	/* The near region: head_lock and what it guards. */
	spinlock_t		head_lock ____cacheline_aligned_in_smp;
	u64			now;
	struct timeq_node	*min;
	u64			min_time;
	seqcount_t		min_seq;

	spinlock_t		head2_lock ____cacheline_aligned_in_smp;

	/* The far region: bucket_lock and what it guards. */
	spinlock_t		bucket_lock ____cacheline_aligned_in_smp;
	u64			focus_bucket;
	struct list_head	*buckets;
	struct timeq_bitmap	bucket_map;
	unsigned long		*bucket_count;
	unsigned long		*bucket_sorted;
	unsigned long		calendar_count;
	u64			pend_bucket;
	unsigned long		budget;
	unsigned long		visits;

	/* Each spread array on lines of its own: roles move between them. */
	struct timeq_spread	spreads[3] ____cacheline_aligned_in_smp;

	/*
	 * Cold: the slow side's totals, at each unlock (module/paths.c);
	 * set at creation, for the registry (module/stats.c).
	 */
	unsigned long		max_visits;
	unsigned long		total_visits;
	u64			id;
	struct list_head	registry;
#ifdef TIMEQ_DEBUG_FIFO
	atomic64_t		seq;
	atomic64_t		inserted;
	struct tq_fifo		*fifo;
#endif
} __aligned(TIMEQ_NODE_TAG_MASK + 1);

/* timeq_count(), for the data structure, which calls nothing above it. */
static inline unsigned long tq_count(const struct timeq *q)
{
	return READ_ONCE(q->spreads[0].count) + READ_ONCE(q->spreads[1].count) +
	       READ_ONCE(q->spreads[2].count) + READ_ONCE(q->calendar_count);
}

/*
 * @min_time read without head_lock into *@time, whole: on a 64-bit kernel
 * by one load; on a 32-bit one, which may read a u64 torn, only if no
 * write of it was under way or landed during the read. It never waits:
 * the caller may have interrupted the writer on its own CPU (or, on
 * PREEMPT_RT, where head_lock sleeps, preempted it), which is why
 * @min_seq is a plain seqcount_t written with the raw_ calls.
 * Return: whether *@time was read.
 */
static inline bool tq_min_time_read(struct timeq *q, u64 *time)
{
	unsigned int seq;

	if (IS_ENABLED(CONFIG_64BIT)) {
		*time = READ_ONCE(q->min_time);
		return true;
	}
	/* Odd, a write under way: even, and the retry fails. */
	seq = raw_seqcount_begin(&q->min_seq);
	*time = READ_ONCE(q->min_time);
	return !read_seqcount_retry(&q->min_seq, seq);
}

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
bool __timeq_release_step(struct timeq *q, timeq_fn fn, void *arg);
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
 * base holds it, on its list of timers due (module/clock.c). The
 * operations here take it as not queued: insert says -EBUSY, delete and
 * update -ENOENT, and the fast path's lanes leave it to the slow side.
 */
#define TQ_TAG_OUT	4
/* The spread arrays behind head, head2 and focus. */
#define TQ_SPREADS	ARRAY_SIZE(((struct timeq *)NULL)->spreads)

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

static inline unsigned int tq_spread_tag(const struct timeq *q,
					 const struct timeq_spread *spread)
{
	return 1 + (spread - q->spreads);
}

static inline struct timeq_spread *tq_tag_spread(struct timeq *q,
						 unsigned int tag)
{
	return &q->spreads[tag - 1];
}

/* Does @tag name the array that plays @role (q->head, head2 or focus)? */
static inline bool tq_tag_plays(const struct timeq *q, unsigned int tag,
				const struct timeq_spread *role)
{
	return tag != TQ_TAG_CALENDAR && tag <= TQ_SPREADS &&
	       &q->spreads[tag - 1] == role;
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

/*
 * FIFO order among equal times is a matter of the order in which nodes
 * were linked, which no node records: struct timeq_node is the callers'
 * layout, the same in every build. A queue of a TIMEQ_DEBUG_FIFO build
 * made while tq_fifo_nodes is not 0 (tests set it) keeps, beside its
 * lists, each node's insertion number, the value of @seq when the node was
 * last linked: a table of its own, keyed by the node's address, with room
 * for tq_fifo_nodes nodes linked over the queue's life (an entry outlives
 * its node's stay), allocated when the queue is. Nothing is allocated
 * when a node is linked; a node the table has no room for marks it full,
 * and timeq_check() then fails rather than prove less. A test may read
 * the number of a node just removed (tq_fifo_seq()).
 */
extern unsigned long tq_fifo_nodes;
bool tq_fifo_seq(const struct timeq *q, const struct timeq_node *node,
		 u64 *seq);
#endif

/*
 * An insertion that goes on a timer's life (it left its queue for its
 * callback, not for good): tests count the timer as inserted once.
 */
#ifdef TIMEQ_DEBUG_FIFO
#define tq_debug_uninsert(q)	atomic64_dec(&(q)->inserted)
#else
#define tq_debug_uninsert(q)	((void)(q))
#endif

/* "No bit found" from tq_bitmap_next(). */
#define TIMEQ_NONE	ULONG_MAX

#if IS_ENABLED(CONFIG_KUNIT)
size_t tq_bitmap_words(unsigned long nbits);
unsigned long *tq_bitmap_init(struct timeq_bitmap *map, unsigned long *mem,
			      unsigned long nbits);
void tq_bitmap_set(struct timeq_bitmap *map, unsigned long bit);
void tq_bitmap_clear(struct timeq_bitmap *map, unsigned long bit);
unsigned long tq_bitmap_next(const struct timeq_bitmap *map, unsigned long bit);
#endif

#endif /* _TIMEQ_QUEUE_H */
