/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeq - a two-head calendar queue of timers (Brodnik and Karlsson).
 *
 * The data structure lives in module/queue.c, whose top comment explains
 * the design, the invariants and the cost of every operation. This header
 * is the contract. The queue does no locking of its own:
 *
 *   operation               context              locking
 *   ---------------------   ------------------   ------------------------------
 *   timeq_create()          may sleep with       none: the queue is not yet
 *                           GFP_KERNEL             shared
 *   timeq_destroy()         any                  caller excludes every other user
 *   timeq_insert()          any                  caller serialises all calls
 *   timeq_delete()            "                    on one queue, as for
 *   timeq_update()            "                    lib/timerqueue.c
 *   timeq_delete_min()        "
 *   timeq_del_less_than()     "
 *   timeq_min(), accessors    "
 *   timeq_check()             "
 *
 * None of these allocate except timeq_create(), so none of them can fail
 * for memory.
 */
#ifndef _LINUX_TIMEQ_H
#define _LINUX_TIMEQ_H

#include <linux/list.h>
#include <linux/types.h>

/**
 * struct timeq_node - an element of a timeq, embedded in the caller's object
 * @entry:	link in one list of the queue (a head list or a bucket)
 * @time:	the element's time in ticks; valid while queued
 * @owner:	the queue this node is in, or 0 when it is in none; bit 0
 *		(%TIMEQ_NODE_IN_HEAD) is set while the node sits in one of the
 *		two heads rather than in a bucket
 * @seq:	the insertion number, with %TIMEQ_DEBUG_FIFO only: test builds
 *		set it so that timeq_check() can prove FIFO order among equal
 *		times, at 8 bytes per node and an increment per insertion
 *
 * Initialise with timeq_node_init() before first use. The queue never
 * allocates nodes: callers embed them and use container_of() to get back
 * to their object. Fields are private to module/queue.c; use the accessors.
 */
struct timeq_node {
	struct list_head	entry;
	u64			time;
	unsigned long		owner;
#ifdef TIMEQ_DEBUG_FIFO
	u64			seq;
#endif
};

/* Set in timeq_node.owner while the node is in head or head2. */
#define TIMEQ_NODE_IN_HEAD	1UL

/*
 * Bounds on the shape of a queue: at most 2^20 lists in each of the head
 * arrays and in the bucket array, so the bitmaps over them have at most
 * four levels (64^4 and 32^4 are both at least 2^20), and a horizon of at
 * most 2^40 ticks.
 */
#define TIMEQ_MAX_LISTS_SHIFT	20
#define TIMEQ_BITMAP_LEVELS	4

/**
 * struct timeq_bitmap - which lists of an array are non-empty
 * @level:	@level[0] has one bit per list; bit i of @level[l + 1] says
 *		whether word i of @level[l] is non-zero
 * @words:	the number of words in each level; the top one has one
 * @levels:	the number of levels in use
 */
struct timeq_bitmap {
	unsigned long	*level[TIMEQ_BITMAP_LEVELS];
	unsigned int	words[TIMEQ_BITMAP_LEVELS];
	unsigned int	levels;
};

/**
 * struct timeq_head - one bucket spread into one list per time
 * @lists:	delta lists; list i holds the nodes of time bucket * delta + i
 * @map:	the non-empty lists
 * @count:	the number of nodes in all of @lists (the paper's H or H2)
 */
struct timeq_head {
	struct list_head	*lists;
	struct timeq_bitmap	map;
	unsigned long		count;
};

/**
 * struct timeq - a two-head calendar queue
 * @now:	the clock, in ticks; never decreases
 * @horizon:	every queued time lies in [@now, @now + @horizon)
 * @min:	the earliest node (first inserted among equals), or NULL
 * @count:	the number of queued nodes
 * @head:	the current bucket, the one @now is in
 * @head2:	part of the next bucket
 * @buckets:	the calendar: bucket number b is list b % M
 * @bucket_map:	the non-empty lists of @buckets
 * @bucket_count: the number of nodes in each of @buckets
 * @delta_shift: log2 of the bucket width delta
 * @buckets_shift: log2 of the number of buckets M
 * @seq:	insertions so far (with %TIMEQ_DEBUG_FIFO only)
 *
 * Private to module/queue.c but for the accessors below.
 */
struct timeq {
	u64			now;
	u64			horizon;
	struct timeq_node	*min;
	unsigned long		count;
	struct timeq_head	head;
	struct timeq_head	head2;
	struct list_head	*buckets;
	struct timeq_bitmap	bucket_map;
	unsigned long		*bucket_count;
	unsigned int		delta_shift;
	unsigned int		buckets_shift;
#ifdef TIMEQ_DEBUG_FIFO
	u64			seq;
#endif
};

/**
 * typedef timeq_fn - called by timeq_del_less_than() for each removed node
 * @node:	the node, already removed from the queue
 * @arg:	the argument given to timeq_del_less_than()
 */
typedef void (*timeq_fn)(struct timeq_node *node, void *arg);

struct timeq *timeq_create(u64 now, u64 horizon, unsigned int delta,
			   unsigned int nbuckets, gfp_t gfp);
void timeq_destroy(struct timeq *q);

int timeq_insert(struct timeq *q, struct timeq_node *node, u64 time);
int timeq_delete(struct timeq *q, struct timeq_node *node);
int timeq_update(struct timeq *q, struct timeq_node *node, u64 time);
struct timeq_node *timeq_delete_min(struct timeq *q);
unsigned long timeq_del_less_than(struct timeq *q, u64 time, timeq_fn fn,
				  void *arg);
int timeq_check(const struct timeq *q, char *buf, size_t len);

/**
 * timeq_node_init - prepare a node for its first insertion
 * @node:	the node
 *
 * Context: any.
 */
static inline void timeq_node_init(struct timeq_node *node)
{
	INIT_LIST_HEAD(&node->entry);
	node->time = 0;
	node->owner = 0;
}

/**
 * timeq_node_queued - whether a node is in a queue
 * @node:	an initialised node
 *
 * Context: any; serialised with the queue's writers.
 * Return: true while @node is in some queue.
 */
static inline bool timeq_node_queued(const struct timeq_node *node)
{
	return node->owner != 0;
}

/**
 * timeq_node_time - the time of a node
 * @node:	an initialised node
 *
 * Context: any; serialised with the queue's writers.
 * Return: the time @node was last inserted or updated to; meaningful only
 * while timeq_node_queued(), or in the callback of timeq_del_less_than().
 */
static inline u64 timeq_node_time(const struct timeq_node *node)
{
	return node->time;
}

/**
 * timeq_min - the earliest node of a queue
 * @q:		the queue
 *
 * O(1) worst case: the queue keeps its minimum at hand.
 *
 * Context: any; serialised with the queue's writers.
 * Return: the node with the smallest time, the first inserted among equal
 * times, or NULL if @q is empty. The node stays queued.
 */
static inline struct timeq_node *timeq_min(const struct timeq *q)
{
	return q->min;
}

/**
 * timeq_now - the clock of a queue
 * @q:		the queue
 *
 * Context: any; serialised with the queue's writers.
 * Return: the current time of @q in ticks. Every queued time lies in
 * [timeq_now(), timeq_now() + horizon).
 */
static inline u64 timeq_now(const struct timeq *q)
{
	return q->now;
}

/**
 * timeq_count - the number of nodes in a queue
 * @q:		the queue
 *
 * Context: any; serialised with the queue's writers.
 * Return: how many nodes are queued in @q.
 */
static inline unsigned long timeq_count(const struct timeq *q)
{
	return q->count;
}

#endif /* _LINUX_TIMEQ_H */
