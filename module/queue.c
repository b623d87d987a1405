// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the two-head calendar queue of Brodnik and Karlsson ("Multiprocess
 * Time Queue", 2001), for elements with integer times in a sliding window.
 *
 * No locking is done by this file: the caller serialises every call on one
 * queue (module/paths.c holds the locks around the __timeq_* operations
 * here, and lets its fast path call them only where they cost O(1)).
 * Nothing here needs the kernel beyond lists, bit operations and one
 * allocation at creation, so tools/testing/queue builds this very file in
 * userspace.
 *
 * The shape
 * ---------
 *
 * A queue has a clock @now and a @horizon; every queued time t satisfies
 * now <= t < now + horizon. Time is cut into buckets of delta ticks (a power
 * of two); bucket number b = t / delta. Let cur = now / delta, and call
 * rel(t) = t / delta - cur the bucket of t relative to the current one.
 *
 *	head[delta]	rel 0: the current bucket spread into one list per
 *			time (list t % delta holds time t only)
 *	head2[delta]	rel 1: part of the next bucket, spread the same way
 *	buckets[M]	rel 1 .. M: bucket b in list b % M, unsorted
 *
 * The horizon is at most delta * M, so the window [now, now + horizon)
 * touches buckets rel 0 .. M (rel M only when now is not a multiple of
 * delta). Rel 1 .. M map one-to-one onto the M bucket lists, so a bucket
 * list never holds two different bucket numbers. Where the paper compares
 * bucket indices modulo M, an element a full revolution ahead lands in the
 * current head; comparing absolute bucket numbers through rel() cannot.
 *
 * Every list (head, head2 and bucket) is in insertion order, oldest first;
 * that is what makes equal times leave in FIFO order. An update is a new
 * insertion and goes to the tail.
 *
 * Above each of the three arrays sits a bitmap with one bit per non-empty
 * list and summary levels above it (struct timeq_bitmap), so the first
 * non-empty list at or after an index takes at most TIMEQ_BITMAP_LEVELS
 * word operations up and as many down: O(1), whatever delta and M are.
 *
 * Invariants (checked by timeq_check())
 * -------------------------------------
 *
 *  I1. Every queued time lies in [now, now + horizon); now never decreases.
 *  I2. A node is in head iff rel = 0; in head2 or bucket list (cur + 1) % M
 *      if rel = 1; in bucket list (t / delta) % M if rel >= 2. The head is
 *      always the bucket of @now, even when it is empty: that is what lets
 *      an insert land anywhere in the window, before the cached minimum
 *      too, in O(1). (The paper moves the head on to the next non-empty
 *      bucket; then an insert between now and that bucket has no home.)
 *  I3. The counts (H, H2, per-bucket, total) and bitmaps match the lists.
 *  I4. If the head is empty, the next bucket is entirely in head2: its
 *      bucket list is empty. So the minimum is the first node of the first
 *      non-empty list of head if H > 0, else of head2 if H2 > 0, else the
 *      first node with the smallest time in the first non-empty bucket.
 *  I5. @min is that node, or NULL when the queue is empty.
 *
 * What moves the head: advancing @now into a later bucket, which only
 * delete_min (now := the time it removes) and del_less_than (now := t) do.
 * Advancing by one bucket swaps head2 into head and pulls the rest of that
 * bucket's list in; advancing further (both heads are then empty) pulls the
 * list of the new current bucket into head.
 *
 * Keeping FIFO when a bucket list is pulled into a head: everything in the
 * bucket list was inserted before anything that went straight into head2
 * (an insert goes to head2 only once its bucket is the next one, and by
 * then the bucket list has stopped growing). So pulled nodes must go in
 * front of the head list, but behind nodes pulled earlier from the same
 * bucket list. Pulling from the tail of the bucket list and prepending each
 * node does exactly that, one node in O(1).
 *
 * The minimum, and who pays to find it
 * ------------------------------------
 *
 * min() returns the cached @min: O(1). An insert or update to a time
 * before the minimum makes that node the minimum: O(1). Removing or moving
 * the minimum itself needs the next one:
 *
 *  - H > 0: the first set bit of head's bitmap. O(1).
 *  - H = 0: pull what remains of the next bucket into head2 (I4), then the
 *    first set bit of head2's bitmap. O(B), B the nodes pulled, each pulled
 *    once in its life.
 *  - both heads empty: the bitmap finds the first non-empty bucket in O(1),
 *    and a walk of that one unsorted list finds its minimum: O(B).
 *
 * Costs (worst case; B is the size of one bucket list)
 * ----------------------------------------------------
 *
 *	insert			O(1)
 *	delete, update		O(1); O(B) when they take the minimum from a
 *				head that has no other node
 *	min, accessors		O(1)
 *	delete_min		O(1 + ceil(B' / H) + B) where the last term is
 *				paid only when the head moves or empties
 *	del_less_than(t)	O(k + v + B), k nodes removed, v non-empty
 *				lists visited through the bitmaps, B for the
 *				bucket that becomes current; never the
 *				distance jumped
 *
 * Deamortisation, as in the paper: each delete_min pulls ceil(B' / H) nodes
 * of the next bucket list (B' of them left) into head2, H the nodes left in
 * head. H drops by one per delete_min and B' by at least B' / H, so when
 * delete_min empties the head the next bucket is already in head2, and the
 * head swap costs O(1). Inserts into the next bucket go to head2 directly,
 * so B' never grows. del_less_than(t) pulls ceil(B' / (delta - t % delta)),
 * the paper's amount with its inverted loop condition put right.
 *
 * With delta = M = sqrt(horizon) (the default) and the elements spread
 * over the window, B and B' are O(1) expected, so delete_min is O(1)
 * expected, as in the paper's table 2.
 */

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#include <kunit/visibility.h>

#include "queue.h"

#ifndef TIMEQ_DEBUG_FIFO
static_assert(sizeof(struct timeq_node) <= 32 || BITS_PER_LONG != 64,
	      "struct timeq_node must fit in 32 bytes on 64-bit");
#endif

/* Largest horizon: both arrays at their maximum size. */
#define TIMEQ_MAX_HORIZON	(1ULL << (2 * TIMEQ_MAX_LISTS_SHIFT))

/* --- bitmaps: one bit per non-empty list, summary levels above --- */

/*
 * The bitmap operations are static but for KUnit, which tests them alone
 * (kunit/queue_test.c) through include/kunit/visibility.h.
 */

/* Words needed for a bitmap over @nbits lists, all levels together. */
VISIBLE_IF_KUNIT size_t timeq_bitmap_words(unsigned long nbits)
{
	size_t words = 0;

	do {
		nbits = DIV_ROUND_UP(nbits, BITS_PER_LONG);
		words += nbits;
	} while (nbits > 1);
	return words;
}
EXPORT_SYMBOL_IF_KUNIT(timeq_bitmap_words);

/* Lay a bitmap over @nbits lists out in zeroed @mem; return what follows. */
VISIBLE_IF_KUNIT unsigned long *timeq_bitmap_init(struct timeq_bitmap *map,
						  unsigned long *mem,
						  unsigned long nbits)
{
	unsigned int level = 0;

	do {
		nbits = DIV_ROUND_UP(nbits, BITS_PER_LONG);
		map->level[level] = mem;
		map->words[level] = nbits;
		mem += nbits;
		level++;
	} while (nbits > 1);
	map->levels = level;
	return mem;
}
EXPORT_SYMBOL_IF_KUNIT(timeq_bitmap_init);

VISIBLE_IF_KUNIT void timeq_bitmap_set(struct timeq_bitmap *map, unsigned long bit)
{
	unsigned int level;

	for (level = 0; level < map->levels; level++) {
		unsigned long *word = &map->level[level][bit / BITS_PER_LONG];
		unsigned long old = *word;

		*word = old | BIT(bit % BITS_PER_LONG);
		if (old)
			return;
		bit /= BITS_PER_LONG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(timeq_bitmap_set);

VISIBLE_IF_KUNIT void timeq_bitmap_clear(struct timeq_bitmap *map, unsigned long bit)
{
	unsigned int level;

	for (level = 0; level < map->levels; level++) {
		unsigned long *word = &map->level[level][bit / BITS_PER_LONG];

		*word &= ~BIT(bit % BITS_PER_LONG);
		if (*word)
			return;
		bit /= BITS_PER_LONG;
	}
}
EXPORT_SYMBOL_IF_KUNIT(timeq_bitmap_clear);

/*
 * The first set bit at or after @bit, or TIMEQ_NONE. Climbs while the rest
 * of a word is empty, then descends along first set bits: at most
 * 2 * levels word operations.
 */
VISIBLE_IF_KUNIT unsigned long timeq_bitmap_next(const struct timeq_bitmap *map,
						 unsigned long bit)
{
	unsigned int level;
	unsigned long word;

	for (level = 0; level < map->levels; level++) {
		unsigned long index = bit / BITS_PER_LONG;

		if (index < map->words[level]) {
			word = map->level[level][index] &
			       (~0UL << (bit % BITS_PER_LONG));
			if (word)
				goto found;
		}
		bit = index + 1;
	}
	return TIMEQ_NONE;

found:
	bit = (bit & ~(unsigned long)(BITS_PER_LONG - 1)) + __ffs(word);
	while (level--)
		bit = bit * BITS_PER_LONG + __ffs(map->level[level][bit]);
	return bit;
}
EXPORT_SYMBOL_IF_KUNIT(timeq_bitmap_next);

/* Positions (which list a time belongs to) are in queue.h. */

/* --- linking nodes into lists and out --- */

static void tq_head_add_tail(struct timeq *q, struct timeq_head *head,
			     struct timeq_node *node)
{
	unsigned long index = tq_index(q, node->time);

	list_add_tail(&node->entry, &head->lists[index]);
	timeq_bitmap_set(&head->map, index);
	head->count++;
	node->owner = (unsigned long)q | TIMEQ_NODE_IN_HEAD;
}

/* Append @node, whose time is in the window, to the list I2 says. */
static void tq_link(struct timeq *q, struct timeq_node *node)
{
	u64 rel = tq_rel(q, node->time);
	unsigned long slot;

#ifdef TIMEQ_DEBUG_FIFO
	node->seq = q->seq++;
#endif
	if (rel == 0) {
		tq_head_add_tail(q, &q->head, node);
	} else if (rel == 1) {
		tq_head_add_tail(q, &q->head2, node);
	} else {
		slot = tq_slot(q, node->time >> q->delta_shift);
		list_add_tail(&node->entry, &q->buckets[slot]);
		timeq_bitmap_set(&q->bucket_map, slot);
		q->bucket_count[slot]++;
		node->owner = (unsigned long)q;
	}
}

static void tq_unlink(struct timeq *q, struct timeq_node *node)
{
	struct timeq_head *head;
	unsigned long index;

	list_del_init(&node->entry);
	if (tq_in_head(node)) {
		head = tq_rel(q, node->time) == 0 ? &q->head : &q->head2;
		index = tq_index(q, node->time);
		if (list_empty(&head->lists[index]))
			timeq_bitmap_clear(&head->map, index);
		head->count--;
	} else {
		index = tq_slot(q, node->time >> q->delta_shift);
		if (list_empty(&q->buckets[index]))
			timeq_bitmap_clear(&q->bucket_map, index);
		q->bucket_count[index]--;
	}
	node->owner = 0;
}

/*
 * Move up to @max nodes from the tail of bucket list @slot to the front of
 * their lists in @head. See "Keeping FIFO" above for why tail-to-front.
 */
static void tq_pull(struct timeq *q, struct timeq_head *head,
		    unsigned long slot, unsigned long max)
{
	struct list_head *bucket = &q->buckets[slot];
	struct timeq_node *node;
	unsigned long index, moved = 0;

	while (moved < max && !list_empty(bucket)) {
		node = list_last_entry(bucket, struct timeq_node, entry);
		index = tq_index(q, node->time);
		list_move(&node->entry, &head->lists[index]);
		timeq_bitmap_set(&head->map, index);
		node->owner |= TIMEQ_NODE_IN_HEAD;
		moved++;
	}
	if (!moved)
		return;
	head->count += moved;
	q->bucket_count[slot] -= moved;
	if (list_empty(bucket))
		timeq_bitmap_clear(&q->bucket_map, slot);
}

/*
 * The deamortisation: pull ceil(B' / @share) nodes of the next bucket
 * list into head2, where B' is what is left in that list.
 */
static void tq_pull_share(struct timeq *q, unsigned long share)
{
	unsigned long slot = tq_slot(q, tq_cur(q) + 1);
	unsigned long left = q->bucket_count[slot];

	if (left && share)
		tq_pull(q, &q->head2, slot, DIV_ROUND_UP(left, share));
}

/*
 * Set the clock to @time, moving the head with it. Every queued node must
 * be at or after @time, so when the bucket changes the old head is empty
 * and, when it moves by two or more, so is head2.
 */
static void tq_advance(struct timeq *q, u64 time)
{
	u64 rel = tq_rel(q, time);

	WRITE_ONCE(q->now, time);
	if (rel == 0)
		return;
	if (rel == 1)
		swap(q->head, q->head2);
	tq_pull(q, &q->head, tq_slot(q, tq_cur(q)), TIMEQ_NONE);
}

/*
 * The smallest relative bucket number >= @from (at least 1) whose list is
 * non-empty, or 0 if there is none up to M. One circular bitmap search:
 * list (cur + @from) % M first, wrapping round to the list before it.
 */
static u64 tq_next_bucket(const struct timeq *q, u64 from)
{
	unsigned long start = tq_slot(q, tq_cur(q) + from);
	unsigned long slot;
	u64 rel;

	slot = timeq_bitmap_next(&q->bucket_map, start);
	if (slot == TIMEQ_NONE)
		slot = timeq_bitmap_next(&q->bucket_map, 0);
	if (slot == TIMEQ_NONE)
		return 0;
	rel = from + ((slot - start) & (tq_nbuckets(q) - 1));
	return rel <= tq_nbuckets(q) ? rel : 0;
}

static struct timeq_node *tq_head_first(const struct timeq_head *head)
{
	unsigned long index = timeq_bitmap_next(&head->map, 0);

	return list_first_entry(&head->lists[index], struct timeq_node, entry);
}

/* Re-establish I4 and I5 after the minimum was removed or moved. */
static void tq_find_min(struct timeq *q)
{
	struct timeq_node *node, *best = NULL;
	unsigned long slot;

	if (q->head.count) {
		q->min = tq_head_first(&q->head);
		return;
	}
	tq_pull(q, &q->head2, tq_slot(q, tq_cur(q) + 1), TIMEQ_NONE);
	if (q->head2.count) {
		q->min = tq_head_first(&q->head2);
		return;
	}
	if (q->count) {
		slot = tq_slot(q, tq_cur(q) + tq_next_bucket(q, 2));
		list_for_each_entry(node, &q->buckets[slot], entry)
			if (!best || node->time < best->time)
				best = node;
	}
	q->min = best;
}

/*
 * Lay out the data structure of a zeroed @q: the shapes timeq_create()
 * documents. Returns 0, -EINVAL or -ENOMEM; on error @q owns nothing.
 */
int __timeq_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		 unsigned int nbuckets, gfp_t gfp)
{
	unsigned int delta_shift, buckets_shift, want;
	unsigned long ndelta, nbucket, i, *words;
	struct list_head *lists;
	size_t size;

	if (!horizon || horizon > TIMEQ_MAX_HORIZON)
		return -EINVAL;
	if ((delta && !is_power_of_2(delta)) ||
	    (nbuckets && !is_power_of_2(nbuckets)))
		return -EINVAL;
	want = order_base_2(horizon);
	if (!delta && !nbuckets) {
		delta_shift = want / 2;
		buckets_shift = want - delta_shift;
	} else if (!nbuckets) {
		delta_shift = ilog2(delta);
		buckets_shift = want > delta_shift ? want - delta_shift : 0;
	} else if (!delta) {
		buckets_shift = ilog2(nbuckets);
		delta_shift = want > buckets_shift ? want - buckets_shift : 0;
	} else {
		delta_shift = ilog2(delta);
		buckets_shift = ilog2(nbuckets);
	}
	if (delta_shift > TIMEQ_MAX_LISTS_SHIFT ||
	    buckets_shift > TIMEQ_MAX_LISTS_SHIFT ||
	    horizon > 1ULL << (delta_shift + buckets_shift))
		return -EINVAL;

	/*
	 * One block: the bucket lists first (their pointer never moves, so it
	 * is the one to free), then both heads, then bitmaps and counts.
	 */
	ndelta = 1UL << delta_shift;
	nbucket = 1UL << buckets_shift;
	size = (nbucket + 2 * ndelta) * sizeof(struct list_head) +
	       (2 * timeq_bitmap_words(ndelta) + timeq_bitmap_words(nbucket) +
		nbucket) * sizeof(unsigned long);
	lists = kvzalloc(size, gfp);
	if (!lists)
		return -ENOMEM;

	q->buckets = lists;
	q->head.lists = lists + nbucket;
	q->head2.lists = lists + nbucket + ndelta;
	for (i = 0; i < nbucket + 2 * ndelta; i++)
		INIT_LIST_HEAD(&lists[i]);
	words = (unsigned long *)(lists + nbucket + 2 * ndelta);
	words = timeq_bitmap_init(&q->head.map, words, ndelta);
	words = timeq_bitmap_init(&q->head2.map, words, ndelta);
	words = timeq_bitmap_init(&q->bucket_map, words, nbucket);
	q->bucket_count = words;

	q->now = now;
	q->horizon = horizon;
	q->delta_shift = delta_shift;
	q->buckets_shift = buckets_shift;
	return 0;
}

static void tq_release_list(struct list_head *list)
{
	struct timeq_node *node, *next;

	list_for_each_entry_safe(node, next, list, entry) {
		INIT_LIST_HEAD(&node->entry);
		node->owner = 0;
	}
}

/*
 * Release every node still queued (each is left as after timeq_node_init()
 * but for its time) and free the arrays, not @q. O(N + delta + M).
 */
void __timeq_release(struct timeq *q)
{
	unsigned long i;

	for (i = 0; i < tq_delta(q); i++) {
		tq_release_list(&q->head.lists[i]);
		tq_release_list(&q->head2.lists[i]);
	}
	for (i = 0; i < tq_nbuckets(q); i++)
		tq_release_list(&q->buckets[i]);
	kvfree(q->buckets);
	q->buckets = NULL;
}

/*
 * The operations: timeq_insert() and the rest in module/paths.c take the
 * locks and call these, which keep the contracts documented there.
 */

/* Returns 0, -EBUSY (@node is queued) or -ERANGE; O(1). */
int __timeq_insert(struct timeq *q, struct timeq_node *node, u64 time)
{
	if (node->owner)
		return -EBUSY;
	if (!tq_in_window(q, time))
		return -ERANGE;
	node->time = time;
	tq_link(q, node);
	q->count++;
#ifdef TIMEQ_DEBUG_FIFO
	q->inserted++;
#endif
	if (!q->min || time < q->min->time)
		q->min = node;
	return 0;
}

/* Returns 0 or -ENOENT (@node is not in @q). */
int __timeq_delete(struct timeq *q, struct timeq_node *node)
{
	if (tq_owner(node) != q)
		return -ENOENT;
	tq_unlink(q, node);
	q->count--;
	if (q->min == node)
		tq_find_min(q);
	return 0;
}

/* Delete then insert, in one step; returns 0, -ENOENT or -ERANGE. */
int __timeq_update(struct timeq *q, struct timeq_node *node, u64 time)
{
	if (tq_owner(node) != q)
		return -ENOENT;
	if (!tq_in_window(q, time))
		return -ERANGE;
	tq_unlink(q, node);
	node->time = time;
	tq_link(q, node);
	if (q->min == node)
		tq_find_min(q);
	else if (time < q->min->time)
		q->min = node;
	return 0;
}

/* Remove the minimum, move the clock to it, pull a share of head2. */
struct timeq_node *__timeq_delete_min(struct timeq *q)
{
	struct timeq_node *node = q->min;

	if (!node)
		return NULL;
	tq_unlink(q, node);
	q->count--;
	tq_advance(q, node->time);
	tq_pull_share(q, q->head.count);
	tq_find_min(q);
	return node;
}

/*
 * Remove up to @max nodes before @time in order, calling @fn on each; if
 * fewer than @max were left before @time, set the clock to @time. @fn runs
 * with the queue consistent and may change it.
 */
unsigned long __timeq_del_less_than(struct timeq *q, u64 time,
				    unsigned long max, timeq_fn fn, void *arg)
{
	unsigned long removed = 0;
	struct timeq_node *node;

	if (time <= q->now)
		return 0;
	while (q->min && q->min->time < time) {
		if (removed == max)
			return removed;
		node = __timeq_delete_min(q);
		removed++;
		if (fn)
			fn(node, arg);
	}
	/*
	 * The caller that removes one node per call has its @fn run later,
	 * with the clock still at the node's time: move it on next call.
	 * (@max = 0 only moves the clock, if nothing is before @time.)
	 */
	if (removed && removed == max)
		return removed;
	/* @fn may have moved the clock on itself; it never goes back. */
	if (time > q->now) {
		tq_advance(q, time);
		tq_pull_share(q, tq_delta(q) - tq_index(q, time));
		tq_find_min(q);
	}
	return removed;
}

/* --- the invariant checker --- */

static __printf(3, 4) int tq_report(char *buf, size_t len, const char *fmt,
				    ...)
{
	va_list args;

	if (buf && len) {
		va_start(args, fmt);
		vsnprintf(buf, len, fmt, args);
		va_end(args);
	}
	return -EUCLEAN;
}

/* What timeq_check() learns on its walk. */
struct tq_walk {
	const struct timeq_node	*best;	/* the minimum as I5 defines it */
	unsigned long		nodes;	/* nodes seen in all lists */
};

/* Is @a before @b in the order the queue promises? */
static bool tq_before(const struct timeq_node *a, const struct timeq_node *b)
{
	if (a->time != b->time)
		return a->time < b->time;
#ifdef TIMEQ_DEBUG_FIFO
	return a->seq < b->seq;
#else
	return false;	/* same list: the walk meets the earlier one first */
#endif
}

/* Which array a checked list belongs to. */
enum tq_array { TQ_HEAD, TQ_HEAD2, TQ_BUCKETS };

static const char *const tq_array_name[] = { "head", "head2", "bucket" };

/*
 * Check one list: links, owner, window, placement and insertion order, and
 * note its earliest node in @walk. Store the number of nodes in @count;
 * return 0, or -EUCLEAN with @buf filled in.
 */
static int tq_check_list(const struct timeq *q, enum tq_array array,
			 unsigned long index, struct tq_walk *walk,
			 unsigned long *count, char *buf, size_t len)
{
	const char *name = tq_array_name[array];
	const struct list_head *list, *pos, *prev;
	const struct timeq_node *node;
	unsigned long owner = (unsigned long)q, n = 0;
	bool placed;
	u64 rel;

	*count = 0;
	if (array == TQ_BUCKETS) {
		list = &q->buckets[index];
	} else {
		list = array == TQ_HEAD ? &q->head.lists[index] :
					  &q->head2.lists[index];
		owner |= TIMEQ_NODE_IN_HEAD;
	}
	for (prev = list, pos = list->next; pos != list;
	     prev = pos, pos = pos->next) {
		if (pos->prev != prev)
			return tq_report(buf, len, "%s list %lu: broken link before node %lu",
					 name, index, n);
		if (++n > q->count)
			return tq_report(buf, len, "%s list %lu: more nodes than the count %lu",
					 name, index, q->count);
		node = list_entry(pos, struct timeq_node, entry);
		if (node->owner != owner)
			return tq_report(buf, len, "%s list %lu: node %lu owner %#lx, want %#lx",
					 name, index, n, node->owner, owner);
		if (!tq_in_window(q, node->time))
			return tq_report(buf, len,
					 "%s list %lu: time %llu outside window %llu+%llu",
					 name, index, node->time, q->now, q->horizon);
		rel = tq_rel(q, node->time);
		if (array == TQ_BUCKETS)
			placed = rel >= 1 && rel <= tq_nbuckets(q) &&
				 tq_slot(q, node->time >> q->delta_shift) == index;
		else
			placed = rel == (array == TQ_HEAD2) &&
				 tq_index(q, node->time) == index;
		if (!placed)
			return tq_report(buf, len,
					 "%s list %lu: time %llu (bucket +%llu) misplaced",
					 name, index, node->time, rel);
#ifdef TIMEQ_DEBUG_FIFO
		if (prev != list &&
		    list_entry(prev, struct timeq_node, entry)->seq >= node->seq)
			return tq_report(buf, len, "%s list %lu: time %llu out of insertion order",
					 name, index, node->time);
#endif
		if (!walk->best || tq_before(node, walk->best))
			walk->best = node;
	}
	if (list->prev != prev)
		return tq_report(buf, len, "%s list %lu: broken tail link",
				 name, index);
	walk->nodes += n;
	*count = n;
	return 0;
}

/* Check that @map says exactly which lists of @lists are non-empty. */
static int tq_check_map(const struct timeq_bitmap *map,
			const struct list_head *lists, unsigned long nlists,
			const char *name, char *buf, size_t len)
{
	unsigned long bit, nbits = nlists;
	unsigned int level;
	bool set, want;

	for (level = 0; level < map->levels; level++) {
		for (bit = 0; bit < map->words[level] * BITS_PER_LONG; bit++) {
			set = map->level[level][bit / BITS_PER_LONG] &
			      BIT(bit % BITS_PER_LONG);
			if (bit >= nbits)
				want = false;
			else if (level == 0)
				want = !list_empty(&lists[bit]);
			else
				want = map->level[level - 1][bit] != 0;
			if (set != want)
				return tq_report(buf, len,
						 "%s bitmap level %u: bit %lu %d, want %d",
						 name, level, bit, set, want);
		}
		nbits = map->words[level];
	}
	if (map->words[map->levels - 1] != 1)
		return tq_report(buf, len, "%s bitmap: top level has %u words",
				 name, map->words[map->levels - 1]);
	return 0;
}

/* Check every list of one array and its bitmap; @total gets the nodes. */
static int tq_check_array(const struct timeq *q, enum tq_array array,
			  struct tq_walk *walk, unsigned long *total,
			  char *buf, size_t len)
{
	unsigned long i, nodes, n = array == TQ_BUCKETS ? tq_nbuckets(q) :
							 tq_delta(q);
	const struct timeq_bitmap *map;
	const struct list_head *lists;
	int err;

	*total = 0;
	for (i = 0; i < n; i++) {
		err = tq_check_list(q, array, i, walk, &nodes, buf, len);
		if (err)
			return err;
		if (array == TQ_BUCKETS && q->bucket_count[i] != nodes)
			return tq_report(buf, len, "bucket list %lu: count %lu, holds %lu",
					 i, q->bucket_count[i], nodes);
		*total += nodes;
	}
	switch (array) {
	case TQ_HEAD:
		map = &q->head.map;
		lists = q->head.lists;
		break;
	case TQ_HEAD2:
		map = &q->head2.map;
		lists = q->head2.lists;
		break;
	default:
		map = &q->bucket_map;
		lists = q->buckets;
		break;
	}
	return tq_check_map(map, lists, n, tq_array_name[array], buf, len);
}

/*
 * Verify every invariant: each node's owner, window, list and position,
 * the links, the counts, the bitmaps at every level, the cached minimum,
 * I4 and, with %TIMEQ_DEBUG_FIFO, insertion order within each list.
 * O(N + delta + M). Returns 0, or -EUCLEAN with a description in @buf.
 */
int __timeq_check(const struct timeq *q, char *buf, size_t len)
{
	unsigned long head, head2, buckets, next;
	struct tq_walk walk = { };
	int err;

	if (q->delta_shift > TIMEQ_MAX_LISTS_SHIFT ||
	    q->buckets_shift > TIMEQ_MAX_LISTS_SHIFT || !q->horizon ||
	    q->horizon > 1ULL << (q->delta_shift + q->buckets_shift))
		return tq_report(buf, len, "bad shape: delta 2^%u, M 2^%u, horizon %llu",
				 q->delta_shift, q->buckets_shift, q->horizon);
	err = tq_check_array(q, TQ_HEAD, &walk, &head, buf, len);
	if (!err)
		err = tq_check_array(q, TQ_HEAD2, &walk, &head2, buf, len);
	if (!err)
		err = tq_check_array(q, TQ_BUCKETS, &walk, &buckets, buf, len);
	if (err)
		return err;
	if (q->head.count != head || q->head2.count != head2)
		return tq_report(buf, len, "head counts %lu and %lu, lists hold %lu and %lu",
				 q->head.count, q->head2.count, head, head2);
	if (q->count != walk.nodes)
		return tq_report(buf, len, "count %lu, lists hold %lu",
				 q->count, walk.nodes);
	next = q->bucket_count[tq_slot(q, tq_cur(q) + 1)];
	if (!q->head.count && next)
		return tq_report(buf, len, "head empty, %lu of the next bucket not in head2",
				 next);
	if (q->min != walk.best)
		return tq_report(buf, len, "min is %s (time %llu), want %s (time %llu)",
				 q->min ? "a node" : "NULL",
				 q->min ? q->min->time : 0,
				 walk.best ? "a node" : "NULL",
				 walk.best ? walk.best->time : 0);
	return 0;
}
