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
 *	head		rel 0: the current bucket spread into one list per
 *			time (list t % delta holds time t only)
 *	head2		rel 1: part of the next bucket, spread the same way
 *	focus		rel >= 2: at most one far bucket, spread the same way
 *	buckets[M]	rel 1 .. M: bucket b in list b % M, unsorted
 *
 * head, head2 and focus are roles played by three identical spread arrays
 * (struct timeq_spread); moving the clock swaps roles, never nodes. Each node
 * carries a tag in the low bits of its owner word naming the array it is
 * in, or the calendar, so unlinking it never has to guess.
 *
 * The horizon is at most delta * M + 1, so the window [now, now + horizon)
 * touches buckets rel 0 .. M: its last time, now + horizon - 1, is at most
 * now + delta * M, which is in bucket rel M. Rel 1 .. M map one-to-one
 * onto the M bucket lists, so a bucket list never holds two different
 * bucket numbers (rel 0 is the head, never a bucket list, which is what
 * the + 1 gains: a horizon of 2^20 + 1, jumps of 1 .. 2^20, fits in
 * delta * M = 2^20 rather than 2^21). Where the paper compares
 * bucket indices modulo M, an element a full revolution ahead lands in the
 * current head; comparing absolute bucket numbers through rel() cannot.
 *
 * Every list is in insertion order, oldest first; that is what makes equal
 * times leave in FIFO order. An update is a new insertion and goes to the
 * tail. Above each array and the calendar sits a bitmap with one bit per
 * non-empty list and summary levels above it (struct timeq_bitmap), so the
 * first non-empty list at or after an index takes at most
 * TIMEQ_BITMAP_LEVELS word operations up and as many down: O(1), whatever
 * delta and M are.
 *
 * Invariants (checked by __timeq_check() whenever no work is pending)
 * -------------------------------------------------------------------
 *
 *  I1. Every queued time lies in [now, now + horizon); now never decreases.
 *  I2. A node is in head iff rel = 0; in head2 or bucket list (cur + 1) % M
 *      if rel = 1; in the focus or bucket list (t / delta) % M if rel >= 2,
 *      the focus only if its bucket is the focus bucket. The head is always
 *      the bucket of @now, even when it is empty: that is what lets an
 *      insert land anywhere in the window, before the minimum too, in O(1).
 *      (The paper requires every insert to be later than the minimum, and
 *      moves the head on to the minimum's bucket; timeq accepts any time
 *      from @now on.)
 *  I3. The counts and bitmaps match the lists.
 *  I4. If the head is empty, the next bucket is entirely in head2: its
 *      bucket list is empty.
 *  I5. The bucket list of the focus bucket is empty: a far bucket is either
 *      spread in the focus or in the calendar, never split.
 *  I6. @min is the earliest node (by time, then insertion), or NULL when
 *      the queue is empty.
 *
 * Bounded work: steps
 * -------------------
 *
 * No operation visits more than O(1) nodes. Where keeping the invariants
 * needs more (pulling a bucket list into a head, finding the minimum of a
 * far bucket), the operation records it as pending work (@pend), leaves
 * @min NULL, and returns. __timeq_step() then does at most TIMEQ_STEP
 * nodes of that work per call; when the work is done, @min is set again.
 * The caller (module/paths.c) calls the steps before anything else touches
 * the queue, and may drop its locks between two of them, so that no lock
 * hold visits more than a few dozen nodes, whatever the calls before it
 * did. While work is pending the queue is consistent but for I4 - I6, and
 * only the steps may change it.
 *
 * The kinds of pending work:
 *
 *	PULL_NEXT	the head emptied while bucket list cur + 1 still holds
 *			part of the next bucket: pull it into head2 (I4)
 *	PULL_HEAD	the clock jumped two buckets or more: pull the bucket
 *			list of the new current bucket into the head (I2)
 *	WALK		the minimum is in a far bucket list of at most
 *			TIMEQ_WALK nodes: walk it once
 *	EVICT		a larger far bucket is wanted in the focus, which holds
 *			another one: move that one back into its bucket list,
 *			in time order, then RESOLVE
 *	RESOLVE		spread a far bucket list into the focus (I5)
 *
 * Keeping FIFO when a bucket list is pulled into a spread array: everything
 * in the bucket list was inserted before anything that went straight into
 * the array (an insert goes to head2 only once its bucket is the next one,
 * and to the focus only once its bucket is the focus bucket; by then the
 * bucket list has stopped growing). So pulled nodes go in front of the
 * array's list, but behind nodes pulled earlier from the same bucket list.
 * Pulling from the tail of the bucket list and prepending each node does
 * exactly that, one node in O(1).
 *
 * The minimum, and who pays to find it
 * ------------------------------------
 *
 * min() returns the cached @min: O(1). An insert or update to a time
 * before the minimum makes that node the minimum: O(1). Removing or moving
 * the minimum itself needs the next one (tq_settle()):
 *
 *  - H > 0: the first set bit of head's bitmap. O(1).
 *  - H = 0: PULL_NEXT what remains of the next bucket into head2 (I4),
 *    then the first set bit of head2's bitmap. Each node is pulled into
 *    head2 once in its life.
 *  - both heads empty: the earlier of the focus bucket and the first
 *    non-empty bucket list (a bitmap search). The focus: its first set bit,
 *    O(1). A bucket list known to be in order of time (@bucket_sorted): its
 *    first node, O(1). Another list of at most TIMEQ_WALK nodes: WALK it,
 *    O(1). A longer one: RESOLVE it into the focus, each node once, after
 *    which every minimum of that bucket is a bitmap search again.
 *
 * A bucket list is in order of time while nothing joins it out of turn:
 * the bit is set by a node joining an empty list and cleared by an append
 * earlier than the list's tail (the bit of an empty list means nothing).
 * Times that only grow (refreshed time-outs, a bucket of one time) keep
 * it; so does EVICT, which hands the focus back to its bucket list in
 * order, when a bucket list earlier than the focus bucket and longer than
 * TIMEQ_WALK needs the focus, so that the evicted bucket needs no walk
 * when it is the earliest again. So every node pays
 * O(1) for its insertion, O(1) for each head it is pulled into, and O(1)
 * for each spread into the focus it waits for. The one sequence that is not
 * O(1) amortised repeats: a node inserted out of time order into an evicted
 * long bucket, then a shorter bucket before it resolved and emptied, so
 * that the long one is spread anew each time (tools/testing/queue/bounded.c
 * measures it). Its walks are still done in steps.
 *
 * Costs per call (worst case; S = TIMEQ_STEP)
 * -------------------------------------------
 *
 *	insert			O(1)
 *	delete, update		O(1), then pending work if they took the
 *				minimum
 *	min, accessors		O(1)
 *	delete_min		O(1) plus a pull of at most S nodes of the next
 *				bucket into head2 (the deamortisation below)
 *	del_less_than		at most the caller's budget of removals and
 *				pulls, then it returns to be called again
 *	step			at most S nodes
 *
 * Deamortisation, as in the paper: each delete_min pulls ceil(B' / H)
 * nodes of the next bucket list (B' of them left) into head2, H the nodes
 * left in head, at most S. So when the head empties, little of the next
 * bucket is left to PULL_NEXT. Inserts into the next bucket go to head2
 * directly, so B' never grows. del_less_than(t) pulls
 * ceil(B' / (delta - t % delta)), the paper's amount with its inverted loop
 * condition put right.
 *
 * With delta = M = sqrt(horizon) (the default) and the elements spread
 * over the window, bucket lists hold O(1) nodes and no pending work is
 * longer than a step, as in the paper's table 2.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/timeq.h>
#include <kunit/visibility.h>

#include "queue.h"

static_assert(sizeof(struct timeq_node) <= 32 || BITS_PER_LONG != 64,
	      "struct timeq_node must fit in 32 bytes on 64-bit");
static_assert(__alignof__(struct timeq) > TIMEQ_NODE_TAG_MASK,
	      "an owner word keeps its tag in the low bits of the queue's address");
static_assert(TQ_TAG_OUT > TQ_SPREADS && TQ_TAG_OUT <= TIMEQ_NODE_TAG_MASK,
	      "the tags are the calendar, the spread arrays and out");

/* Largest horizon: both arrays at their maximum size. */
#define TIMEQ_MAX_HORIZON	(1ULL << (2 * TIMEQ_MAX_LISTS_SHIFT))
static_assert(TIMEQ_TUNE_MAX_SHIFT == TIMEQ_MAX_LISTS_SHIFT,
	      "tune.h's rule must know the bound on delta and M");

/* --- bitmaps: one bit per non-empty list, summary levels above --- */

/*
 * The bitmap operations are static but for KUnit, which tests them alone
 * (kunit/queue_test.c) through include/kunit/visibility.h.
 */

/* Words needed for a bitmap over @nbits lists, all levels together. */
VISIBLE_IF_KUNIT size_t tq_bitmap_words(unsigned long nbits)
{
	size_t words = 0;

	do {
		nbits = DIV_ROUND_UP(nbits, BITS_PER_LONG);
		words += nbits;
	} while (nbits > 1);
	return words;
}
EXPORT_SYMBOL_IF_KUNIT(tq_bitmap_words);

/* Lay a bitmap over @nbits lists out in zeroed @mem; return what follows. */
VISIBLE_IF_KUNIT unsigned long *tq_bitmap_init(struct timeq_bitmap *map,
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
EXPORT_SYMBOL_IF_KUNIT(tq_bitmap_init);

VISIBLE_IF_KUNIT void tq_bitmap_set(struct timeq_bitmap *map, unsigned long bit)
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
EXPORT_SYMBOL_IF_KUNIT(tq_bitmap_set);

/* Clear the bits above word @bit / BITS_PER_LONG of level 0, now empty. */
static void tq_bitmap_clear_above(struct timeq_bitmap *map, unsigned long bit)
{
	unsigned int level;

	for (level = 1; level < map->levels; level++) {
		unsigned long *word;

		bit /= BITS_PER_LONG;
		word = &map->level[level][bit / BITS_PER_LONG];
		*word &= ~BIT(bit % BITS_PER_LONG);
		if (*word)
			return;
	}
}

/*
 * Clear set @bit if @clear, which is 0 or 1, with no branch on @clear: an
 * unlink asks "did the list just empty?", and with about one node a list
 * the answer is a coin toss that a branch would mispredict half the time.
 * The word of level 0 keeps its other bits, so it becomes zero only when
 * @clear was 1; only then does this climb.
 */
static void tq_bitmap_clear_if(struct timeq_bitmap *map, unsigned long bit,
			       unsigned long clear)
{
	unsigned long *word = &map->level[0][bit / BITS_PER_LONG];

	*word &= ~(clear << (bit % BITS_PER_LONG));
	if (!*word)
		tq_bitmap_clear_above(map, bit);
}

VISIBLE_IF_KUNIT void tq_bitmap_clear(struct timeq_bitmap *map,
				      unsigned long bit)
{
	tq_bitmap_clear_if(map, bit, 1);
}
EXPORT_SYMBOL_IF_KUNIT(tq_bitmap_clear);

/*
 * The first set bit at or after @bit, or TIMEQ_NONE. Climbs while the rest
 * of a word is empty, then descends along first set bits: at most
 * 2 * levels word operations.
 */
VISIBLE_IF_KUNIT unsigned long tq_bitmap_next(const struct timeq_bitmap *map,
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
EXPORT_SYMBOL_IF_KUNIT(tq_bitmap_next);

/* Positions (which list a time belongs to) are in queue.h. */

/* --- linking nodes into lists and out --- */

/*
 * @min and @min_time are read without head_lock too: by tq_min_time_read()
 * and by tq_far_ok() (module/paths.h).
 */
static void tq_set_min(struct timeq *q, struct timeq_node *node)
{
	WRITE_ONCE(q->min, node);
	if (!IS_ENABLED(CONFIG_64BIT))
		raw_write_seqcount_begin(&q->min_seq);
	WRITE_ONCE(q->min_time, node ? node->time : U64_MAX);
	if (!IS_ENABLED(CONFIG_64BIT))
		raw_write_seqcount_end(&q->min_seq);
}

/* Append @node to its list in spread array @spread. */
static void tq_spread_add_tail(struct timeq *q, struct timeq_spread *spread,
			       struct timeq_node *node)
{
	unsigned long index = tq_index(q, node->time);

	list_add_tail(&node->entry, &spread->lists[index]);
	tq_bitmap_set(&spread->map, index);
	WRITE_ONCE(spread->count, spread->count + 1);
	WRITE_ONCE(node->owner, tq_owner_word(q, tq_spread_tag(q, spread)));
}

static void tq_bucket_add_tail(struct timeq *q, struct timeq_node *node)
{
	unsigned long slot = tq_slot(q, node->time >> q->delta_shift);
	struct list_head *list = &q->buckets[slot];
	unsigned long early = 0;

	/*
	 * A list stays in time order only if nothing joins it out of turn.
	 * Whether @node does is a coin toss for random times, decided by the
	 * tail, which may be a cache miss away: no branch waits for it.
	 */
	if (list_empty(list))
		__set_bit(slot, q->bucket_sorted);
	else
		early = list_last_entry(list, struct timeq_node, entry)->time >
			node->time;
	q->bucket_sorted[slot / BITS_PER_LONG] &=
		~(early << (slot % BITS_PER_LONG));
	list_add_tail(&node->entry, list);
	tq_bitmap_set(&q->bucket_map, slot);
	q->bucket_count[slot]++;
	WRITE_ONCE(q->calendar_count, q->calendar_count + 1);
	WRITE_ONCE(node->owner, tq_owner_word(q, TQ_TAG_CALENDAR));
}

#ifdef TIMEQ_DEBUG_FIFO
/*
 * The insertion numbers of a TIMEQ_DEBUG_FIFO build (queue.h): open
 * addressing on the node's address. The lanes of the fast path link under
 * different locks, so a slot is claimed, and each slot looked at on the
 * way, by a compare-and-exchange; a node is linked by one path at a time,
 * under a lock that timeq_check() takes too, so its number is written and
 * read plainly. A node is looked for in at most TQ_FIFO_PROBES slots, and
 * the table has at least twice the slots of the nodes it is sized for: an
 * entry stays when its node leaves, so those are the nodes linked over the
 * queue's life.
 */
#define TQ_FIFO_PROBES	64

struct tq_fifo_slot {
	const struct timeq_node	*node;
	u64			seq;
};

struct tq_fifo {
	unsigned long		mask;
	bool			full;
	struct tq_fifo_slot	slot[];
};

/* Nodes a new queue's table has room for; 0: queues have none. */
unsigned long tq_fifo_nodes;
EXPORT_SYMBOL_IF_KUNIT(tq_fifo_nodes);

static int tq_fifo_init(struct timeq *q, gfp_t gfp)
{
	unsigned long slots;

	if (!tq_fifo_nodes)
		return 0;
	slots = roundup_pow_of_two(2 * tq_fifo_nodes);
	q->fifo = kvzalloc(struct_size(q->fifo, slot, slots), gfp);
	if (!q->fifo)
		return -ENOMEM;
	q->fifo->mask = slots - 1;
	return 0;
}

/*
 * @node's slot, claimed for it if @claim, or NULL. Without @claim, with
 * every lock of the queue held (tq_lock()), or nothing linking in it.
 */
static struct tq_fifo_slot *
tq_fifo_find(const struct timeq *q, const struct timeq_node *node, bool claim)
{
	struct tq_fifo *fifo = q->fifo;
	unsigned long i = hash_ptr(node, ilog2(fifo->mask + 1)), n;
	const struct timeq_node *old;
	struct tq_fifo_slot *slot;

	for (n = 0; n < TQ_FIFO_PROBES && n <= fifo->mask; n++, i++) {
		slot = &fifo->slot[i & fifo->mask];
		old = NULL;
		if (claim ? try_cmpxchg(&slot->node, &old, node) || old == node :
			    slot->node == node)
			return slot;
		if (!claim && !slot->node)
			break;
	}
	return NULL;
}

static void tq_fifo_free(struct timeq *q)
{
	kvfree(q->fifo);
	q->fifo = NULL;
}

/* Give @node, being linked, the next insertion number. */
static void tq_fifo_stamp(struct timeq *q, const struct timeq_node *node)
{
	u64 seq = tq_debug_next(&q->seq);
	struct tq_fifo_slot *slot;

	if (!q->fifo)
		return;
	slot = tq_fifo_find(q, node, true);
	if (slot)
		slot->seq = seq;
	else
		WRITE_ONCE(q->fifo->full, true);
}

/**
 * tq_fifo_seq - the insertion number @node had when last linked in @q
 * @q:		a queue of a TIMEQ_DEBUG_FIFO build
 * @node:	a node linked in @q, or one that was
 * @seq:	where to store it
 *
 * Context: with every lock of @q held (tq_lock()), or nothing linking in
 * @q.
 * Return: whether @q keeps the numbers and has one for @node.
 */
bool tq_fifo_seq(const struct timeq *q, const struct timeq_node *node, u64 *seq)
{
	struct tq_fifo_slot *slot;

	if (!q->fifo)
		return false;
	slot = tq_fifo_find(q, node, false);
	if (slot)
		*seq = slot->seq;
	return slot;
}
EXPORT_SYMBOL_IF_KUNIT(tq_fifo_seq);
#else
#define tq_fifo_init(q, gfp)	((void)(q), (void)(gfp), 0)
#define tq_fifo_free(q)		((void)(q))
#define tq_fifo_stamp(q, node)	((void)(q), (void)(node))
#endif

/*
 * Append @node, whose time is in the window, to the list I2 says. No work
 * may be pending: then the focus bucket's list is empty (I5), so a node of
 * that bucket belongs in the focus.
 */
static void tq_link(struct timeq *q, struct timeq_node *node)
{
	u64 rel = tq_rel(q, node->time);

	tq_fifo_stamp(q, node);
	if (rel == 0) {
		tq_spread_add_tail(q, q->head, node);
	} else if (rel == 1) {
		tq_spread_add_tail(q, q->head2, node);
	} else if (q->focus->count &&
		   node->time >> q->delta_shift == q->focus_bucket) {
		tq_spread_add_tail(q, q->focus, node);
	} else {
		tq_bucket_add_tail(q, node);
	}
}

/*
 * Take @node out of the list its tag names. Its owner word stays until the
 * caller relinks it or clears it, so an update never shows a queued node
 * as in no queue (module/paths.c reads owner words under other locks).
 */
static void tq_unlink(struct timeq *q, struct timeq_node *node)
{
	unsigned int tag = tq_tag(node);
	struct timeq_spread *head;
	unsigned long index;

	list_del_init(&node->entry);
	if (tag == TQ_TAG_CALENDAR) {
		index = tq_slot(q, node->time >> q->delta_shift);
		tq_bitmap_clear_if(&q->bucket_map, index,
				   list_empty(&q->buckets[index]));
		q->bucket_count[index]--;
		WRITE_ONCE(q->calendar_count, q->calendar_count - 1);
	} else {
		head = tq_tag_spread(q, tag);
		index = tq_index(q, node->time);
		tq_bitmap_clear_if(&head->map, index,
				   list_empty(&head->lists[index]));
		WRITE_ONCE(head->count, head->count - 1);
	}
}

/* Take @node out of the queue altogether. */
static void tq_remove(struct timeq *q, struct timeq_node *node)
{
	tq_unlink(q, node);
	WRITE_ONCE(node->owner, 0);
}

/*
 * Move up to @max nodes from the tail of bucket list @slot to the front of
 * their lists in spread array @head. See "Keeping FIFO" above for why
 * tail-to-front. Returns the number moved.
 */
static unsigned long tq_pull(struct timeq *q, struct timeq_spread *head,
			     unsigned long slot, unsigned long max)
{
	struct list_head *bucket = &q->buckets[slot];
	unsigned long index, moved = 0, owner;
	struct timeq_node *node;

	owner = tq_owner_word(q, tq_spread_tag(q, head));
	while (moved < max && !list_empty(bucket)) {
		node = list_last_entry(bucket, struct timeq_node, entry);
		index = tq_index(q, node->time);
		list_move(&node->entry, &head->lists[index]);
		tq_bitmap_set(&head->map, index);
		WRITE_ONCE(node->owner, owner);
		moved++;
	}
	if (!moved)
		return 0;
	WRITE_ONCE(head->count, head->count + moved);
	q->bucket_count[slot] -= moved;
	if (list_empty(bucket))
		tq_bitmap_clear(&q->bucket_map, slot);
	WRITE_ONCE(q->calendar_count, q->calendar_count - moved);
	q->visits += moved;
	return moved;
}

/*
 * The deamortisation: pull ceil(B' / @share) nodes of the next bucket
 * list into head2, where B' is what is left in that list, but no more than
 * the budget of this lock hold allows.
 */
static void tq_pull_share(struct timeq *q, unsigned long share)
{
	unsigned long slot = tq_slot(q, tq_cur(q) + 1);
	unsigned long left = q->bucket_count[slot], want;

	if (!left || !share)
		return;
	want = min3(DIV_ROUND_UP(left, share), (unsigned long)TIMEQ_STEP,
		    q->budget);
	q->budget -= tq_pull(q, q->head2, slot, want);
}

/* The first node of a non-empty spread array. */
static struct timeq_node *tq_spread_first(const struct timeq_spread *spread)
{
	unsigned long index = tq_bitmap_next(&spread->map, 0);

	return list_first_entry(&spread->lists[index], struct timeq_node,
				entry);
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

	slot = tq_bitmap_next(&q->bucket_map, start);
	if (slot == TIMEQ_NONE)
		slot = tq_bitmap_next(&q->bucket_map, 0);
	if (slot == TIMEQ_NONE)
		return 0;
	rel = from + ((slot - start) & (tq_nbuckets(q) - 1));
	return rel <= tq_nbuckets(q) ? rel : 0;
}

/*
 * The next minimum after the old one was removed or moved, or NULL with
 * the pending work that will find it recorded (see "The minimum, and who
 * pays to find it"). O(1).
 */
static struct timeq_node *tq_next_min(struct timeq *q)
{
	unsigned long next = tq_slot(q, tq_cur(q) + 1), slot;
	u64 far, focus_rel;

	if (q->head->count)
		return tq_spread_first(q->head);
	if (q->bucket_count[next]) {
		q->pend = TQ_PEND_PULL_NEXT;
		return NULL;
	}
	if (q->head2->count)
		return tq_spread_first(q->head2);
	if (!q->calendar_count && !q->focus->count)
		return NULL;
	far = tq_next_bucket(q, 2);
	if (q->focus->count) {
		focus_rel = q->focus_bucket - tq_cur(q);
		if (!far || focus_rel < far)
			return tq_spread_first(q->focus);
	}
	q->pend_bucket = tq_cur(q) + far;
	slot = tq_slot(q, q->pend_bucket);
	if (test_bit(slot, q->bucket_sorted))
		return list_first_entry(&q->buckets[slot], struct timeq_node,
					entry);
	if (q->bucket_count[slot] <= TIMEQ_WALK)
		q->pend = TQ_PEND_WALK;
	else
		q->pend = q->focus->count ? TQ_PEND_EVICT : TQ_PEND_RESOLVE;
	return NULL;
}

/*
 * Find the minimum after it was removed or moved, or record the pending
 * work that will. @min is written once, with its final value: the fast
 * path's near lane settles under head_lock and head2_lock only, and the
 * far lane, under bucket_lock alone, reads @min meanwhile; it must never
 * see a NULL that stands for "not found yet" (module/paths.c, "Locks").
 * The near lane's node stays in the heads, so it never ends with NULL.
 */
static void tq_settle(struct timeq *q)
{
	/*
	 * A change of @pend takes every lock (module/paths.c, "Locks"); the
	 * fast path's near lane settles under two, and only with none
	 * pending, so it must not store even the same value.
	 */
	if (q->pend != TQ_PEND_NONE)
		q->pend = TQ_PEND_NONE;
	tq_set_min(q, tq_next_min(q));
}

/* Swap two roles; the fast path reads them without the locks (queue.h). */
static void tq_swap_roles(struct timeq_spread **a, struct timeq_spread **b)
{
	struct timeq_spread *t = *a;

	WRITE_ONCE(*a, *b);
	WRITE_ONCE(*b, t);
}

/*
 * Set the clock to @time, moving the roles with it. Every queued node must
 * be at or after @time and no work pending, so when the bucket changes the
 * old head is empty, when it moves by one the next bucket is all in head2
 * (I4), and when it moves by two or more head2 is empty as well. The focus
 * becomes the head or head2 when its bucket becomes the current or the
 * next one. Leaves PULL_HEAD pending if the new current bucket's list must
 * be pulled into the head.
 */
static void tq_advance(struct timeq *q, u64 time)
{
	u64 rel = tq_rel(q, time), cur;

	WRITE_ONCE(q->now, time);
	if (rel == 0)
		return;
	cur = tq_cur(q);
	if (rel == 1)
		tq_swap_roles(&q->head, &q->head2);
	else if (q->focus->count && q->focus_bucket == cur)
		tq_swap_roles(&q->head, &q->focus);
	else if (q->bucket_count[tq_slot(q, cur)])
		q->pend = TQ_PEND_PULL_HEAD;
	if (q->focus->count && q->focus_bucket == cur + 1)
		tq_swap_roles(&q->head2, &q->focus);
}

/* One step of PULL_NEXT or PULL_HEAD; done when the bucket list is empty. */
static bool tq_step_pull(struct timeq *q, struct timeq_spread *head, u64 bucket)
{
	unsigned long slot = tq_slot(q, bucket);

	q->budget -= tq_pull(q, head, slot,
			     min_t(unsigned long, q->budget, TIMEQ_STEP));
	return !q->bucket_count[slot];
}

/* WALK: the earliest node of a short bucket list becomes the minimum. */
static void tq_step_walk(struct timeq *q)
{
	struct list_head *list = &q->buckets[tq_slot(q, q->pend_bucket)];
	struct timeq_node *node, *best = NULL;

	list_for_each_entry(node, list, entry) {
		q->visits++;
		if (!best || node->time < best->time)
			best = node;
	}
	q->budget -= q->bucket_count[tq_slot(q, q->pend_bucket)];
	q->pend = TQ_PEND_NONE;
	/* The fast path may have put a node in the heads meanwhile. */
	if (q->head->count || q->head2->count)
		tq_settle(q);
	else
		tq_set_min(q, best);
}

/*
 * EVICT: move nodes of the focus back to the end of its bucket's list, in
 * time order (the first node of the first non-empty list each time), so the
 * list ends up sorted and FIFO among equal times. Done when it is empty.
 */
static bool tq_step_evict(struct timeq *q)
{
	unsigned long slot = tq_slot(q, q->focus_bucket), index, moved = 0;
	struct timeq_spread *focus = q->focus;
	struct timeq_node *node;
	unsigned long owner = tq_owner_word(q, TQ_TAG_CALENDAR);

	while (focus->count - moved && moved < TIMEQ_STEP && moved < q->budget) {
		index = tq_bitmap_next(&focus->map, 0);
		node = list_first_entry(&focus->lists[index], struct timeq_node,
					entry);
		list_move_tail(&node->entry, &q->buckets[slot]);
		if (list_empty(&focus->lists[index]))
			tq_bitmap_clear(&focus->map, index);
		WRITE_ONCE(node->owner, owner);
		moved++;
	}
	if (moved) {
		WRITE_ONCE(focus->count, focus->count - moved);
		q->bucket_count[slot] += moved;
		WRITE_ONCE(q->calendar_count, q->calendar_count + moved);
		tq_bitmap_set(&q->bucket_map, slot);
		/* The list was empty (I5), and is built in time order. */
		__set_bit(slot, q->bucket_sorted);
		q->visits += moved;
		q->budget -= moved;
	}
	return !focus->count;
}

/*
 * Do at most TIMEQ_STEP nodes, and no more than the budget, of the pending
 * work (see "Bounded work: steps"). Returns true while work is left.
 */
bool __timeq_step(struct timeq *q)
{
	while (q->pend != TQ_PEND_NONE && q->budget) {
		switch (q->pend) {
		case TQ_PEND_PULL_NEXT:
			if (!tq_step_pull(q, q->head2, tq_cur(q) + 1))
				return true;
			tq_settle(q);
			break;
		case TQ_PEND_PULL_HEAD:
			if (!tq_step_pull(q, q->head, tq_cur(q)))
				return true;
			tq_settle(q);
			break;
		case TQ_PEND_WALK:
			if (q->budget < q->bucket_count[tq_slot(q, q->pend_bucket)])
				return true;
			tq_step_walk(q);
			break;
		case TQ_PEND_EVICT:
			if (!tq_step_evict(q))
				return true;
			q->pend = TQ_PEND_RESOLVE;
			break;
		case TQ_PEND_RESOLVE:
			q->focus_bucket = q->pend_bucket;
			if (!tq_step_pull(q, q->focus, q->pend_bucket))
				return true;
			tq_settle(q);
			break;
		}
	}
	return q->pend != TQ_PEND_NONE;
}

/*
 * The bytes of the one block that holds a queue's lists, bitmaps and
 * counts, for 2^@delta_shift lists in each spread array and 2^@buckets_shift
 * buckets; laid out in __timeq_init().
 */
size_t __timeq_lists_size(unsigned int delta_shift, unsigned int buckets_shift)
{
	unsigned long ndelta = 1UL << delta_shift,
		      nbucket = 1UL << buckets_shift;

	return (nbucket + TQ_SPREADS * ndelta) * sizeof(struct list_head) +
	       (TQ_SPREADS * tq_bitmap_words(ndelta) +
		tq_bitmap_words(nbucket) + nbucket + BITS_TO_LONGS(nbucket)) *
		       sizeof(unsigned long);
}

/*
 * Lay out the data structure of a zeroed @q: the shapes timeq_create()
 * documents. Returns 0, -EINVAL or -ENOMEM; on error @q owns nothing.
 */
int __timeq_init(struct timeq *q, u64 now, u64 horizon, unsigned int delta,
		 unsigned int nbuckets, gfp_t gfp)
{
	unsigned int delta_shift, buckets_shift, want, i;
	unsigned long ndelta, nbucket, n, *words;
	struct list_head *lists;

	if (!horizon || horizon > TIMEQ_MAX_HORIZON)
		return -EINVAL;
	if ((delta && !is_power_of_2(delta)) ||
	    (nbuckets && !is_power_of_2(nbuckets)))
		return -EINVAL;
	want = order_base_2(horizon - 1);
	if (!delta && !nbuckets) {
		__timeq_tune(horizon, 0, 0, &delta_shift, &buckets_shift);
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
	    horizon - 1 > 1ULL << (delta_shift + buckets_shift))
		return -EINVAL;

	/*
	 * One block: the bucket lists first (their pointer never moves, so it
	 * is the one to free), then the three spread arrays, then bitmaps,
	 * counts and the bit per bucket list that says it is in time order.
	 */
	ndelta = 1UL << delta_shift;
	nbucket = 1UL << buckets_shift;
	n = nbucket + TQ_SPREADS * ndelta;
	if (tq_fifo_init(q, gfp))
		return -ENOMEM;
	lists = kvzalloc(__timeq_lists_size(delta_shift, buckets_shift), gfp);
	if (!lists) {
		tq_fifo_free(q);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&lists[i]);

	q->buckets = lists;
	words = (unsigned long *)(lists + n);
	for (i = 0; i < TQ_SPREADS; i++) {
		q->spreads[i].lists = lists + nbucket + i * ndelta;
		words = tq_bitmap_init(&q->spreads[i].map, words, ndelta);
	}
	words = tq_bitmap_init(&q->bucket_map, words, nbucket);
	q->bucket_count = words;
	q->bucket_sorted = words + nbucket;
	bitmap_fill(q->bucket_sorted, nbucket);
	q->head = &q->spreads[0];
	q->head2 = &q->spreads[1];
	q->focus = &q->spreads[2];

	q->now = now;
	q->horizon = horizon;
	q->delta_shift = delta_shift;
	q->buckets_shift = buckets_shift;
	q->min_time = U64_MAX;
	seqcount_init(&q->min_seq);
	q->budget = TIMEQ_STEP;
	return 0;
}

/* Any queued node, found through the bitmaps in O(1), or NULL. */
static struct timeq_node *tq_any(const struct timeq *q)
{
	unsigned long slot;
	unsigned int i;

	for (i = 0; i < TQ_SPREADS; i++)
		if (q->spreads[i].count)
			return tq_spread_first(&q->spreads[i]);
	slot = tq_bitmap_next(&q->bucket_map, 0);
	if (slot == TIMEQ_NONE)
		return NULL;
	return list_first_entry(&q->buckets[slot], struct timeq_node, entry);
}

/*
 * Release up to TIMEQ_STEP nodes still queued, each left as after
 * timeq_node_init() but for its time, then passed to @fn with @arg if @fn
 * is not NULL. Returns true while nodes are left; then call again. The
 * queue stays consistent in between but for @min.
 */
bool __timeq_release_step(struct timeq *q, timeq_fn fn, void *arg)
{
	struct timeq_node *node;
	unsigned int n;

	tq_set_min(q, NULL);
	q->pend = TQ_PEND_NONE;
	for (n = 0; n < TIMEQ_STEP; n++) {
		node = tq_any(q);
		if (!node)
			return false;
		tq_remove(q, node);
		q->visits++;
		if (fn)
			fn(node, arg);
	}
	return tq_any(q);
}

/* Free the arrays of a queue that __timeq_release_step() emptied. */
void __timeq_free(struct timeq *q)
{
	kvfree(q->buckets);
	q->buckets = NULL;
	tq_fifo_free(q);
}

/*
 * The operations: timeq_insert() and the rest in module/paths.c take the
 * locks and call these, which keep the contracts documented there. None
 * may be called while work is pending.
 */

/* Link @node at @time: 0, -EBUSY (@node is queued) or -ERANGE; O(1). */
static int tq_link_at(struct timeq *q, struct timeq_node *node, u64 time)
{
	if (READ_ONCE(node->owner))
		return -EBUSY;
	if (!tq_in_window(q, time))
		return -ERANGE;
	WRITE_ONCE(node->time, time);
	tq_link(q, node);
#ifdef TIMEQ_DEBUG_FIFO
	tq_debug_next(&q->inserted);
#endif
	return 0;
}

/* Relink @node at @time: 0, -ENOENT (not in @q) or -ERANGE; O(1). */
static int tq_relink_at(struct timeq *q, struct timeq_node *node, u64 time)
{
	if (!tq_in(node, q))
		return -ENOENT;
	if (!tq_in_window(q, time))
		return -ERANGE;
	tq_unlink(q, node);
	WRITE_ONCE(node->time, time);
	tq_link(q, node);
	return 0;
}

/* Returns 0, -EBUSY (@node is queued) or -ERANGE; O(1). */
int __timeq_insert(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret = tq_link_at(q, node, time);

	if (!ret && (!q->min || time < q->min_time))
		tq_set_min(q, node);
	return ret;
}

/* Returns 0 or -ENOENT (@node is not in @q); may leave work pending. */
int __timeq_delete(struct timeq *q, struct timeq_node *node)
{
	if (!tq_in(node, q))
		return -ENOENT;
	tq_remove(q, node);
	if (q->min == node)
		tq_settle(q);
	return 0;
}

/*
 * Delete then insert, in one step; returns 0, -ENOENT or -ERANGE; may
 * leave work pending.
 */
int __timeq_update(struct timeq *q, struct timeq_node *node, u64 time)
{
	int ret = tq_relink_at(q, node, time);

	if (ret)
		return ret;
	if (q->min == node)
		tq_settle(q);
	else if (!q->min || time < q->min_time)
		tq_set_min(q, node);
	return 0;
}

/*
 * The far operations, for module/paths.c's far lane: @node is far and not
 * the minimum (or in no queue, for an insert), and @time is far and no
 * earlier than the minimum, so the minimum stays. The caller guarantees
 * it (tq_far_ok()); these neither read nor write @min, which a holder of
 * head_lock may be changing meanwhile. Same returns as the above.
 */
int __timeq_far_insert(struct timeq *q, struct timeq_node *node, u64 time)
{
	return tq_link_at(q, node, time);
}

int __timeq_far_delete(struct timeq *q, struct timeq_node *node)
{
	if (!tq_in(node, q))
		return -ENOENT;
	tq_remove(q, node);
	return 0;
}

int __timeq_far_update(struct timeq *q, struct timeq_node *node, u64 time)
{
	return tq_relink_at(q, node, time);
}

/*
 * Remove the minimum, move the clock to it, pull a share of head2; may
 * leave work pending.
 */
struct timeq_node *__timeq_delete_min(struct timeq *q)
{
	struct timeq_node *node = q->min;

	if (!node)
		return NULL;
	tq_remove(q, node);
	q->visits++;
	if (q->budget)
		q->budget--;
	tq_advance(q, node->time);
	if (q->pend == TQ_PEND_NONE)
		tq_pull_share(q, q->head->count);
	if (q->pend == TQ_PEND_NONE)
		tq_settle(q);
	else
		/* PULL_HEAD: no minimum until its last step settles one. */
		tq_set_min(q, NULL);
	return node;
}

/*
 * Remove nodes before @time in order, calling @fn on each, until none is
 * left before @time (then set the clock to @time), or @max are removed, or
 * the budget is spent, or work is pending. The caller finishes the pending
 * work and calls again until this returns 0 with the clock at @time or
 * later. @fn runs with the queue consistent and may change it.
 */
unsigned long __timeq_del_less_than(struct timeq *q, u64 time,
				    unsigned long max, timeq_fn fn, void *arg)
{
	unsigned long removed = 0;
	struct timeq_node *node;

	while (q->pend == TQ_PEND_NONE && q->budget && removed < max &&
	       q->min && q->min->time < time) {
		node = __timeq_delete_min(q);
		removed++;
		if (fn)
			fn(node, arg);
	}
	if (removed || q->pend != TQ_PEND_NONE || time <= q->now ||
	    (q->min && q->min_time < time))
		return removed;
	/* Nothing left before @time: move the clock there. */
	tq_advance(q, time);
	if (q->pend == TQ_PEND_NONE)
		tq_pull_share(q, tq_delta(q) - tq_index(q, time));
	/* The minimum is the same node, but I4 may want a pull. */
	if (q->pend == TQ_PEND_NONE && !q->head->count)
		tq_settle(q);
	return 0;
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
	const struct timeq_node	*best;	/* the minimum as I6 defines it */
	u64			best_seq; /* its insertion number, or 0 */
	unsigned long		nodes;	/* nodes seen in all lists */
};

/*
 * Is @a, of insertion number @sa, before @b, of @sb, in the order the
 * queue promises? Without the numbers (0), two of one time are in one
 * list, where the walk meets the earlier first.
 */
static bool tq_before(const struct timeq_node *a, u64 sa,
		      const struct timeq_node *b, u64 sb)
{
	return a->time != b->time ? a->time < b->time : sa < sb;
}

#ifdef TIMEQ_DEBUG_FIFO
/*
 * What FIFO order asks of a list: among equal times, the order of
 * insertion. A spread list holds one time, so it is in insertion order. A
 * bucket list is appended to in insertion order, but EVICT rebuilds it in
 * order of time (FIFO among equal times), and later appends, newer than
 * all of it, follow: so it is a prefix in order of time, FIFO among equal
 * times, then a part in insertion order, all newer than the prefix.
 * tq_fifo_next() takes the prefix as long as it can; a list of that shape
 * passes whatever the split, and each that passes is FIFO among equal
 * times.
 */
struct tq_fifo_walk {
	bool	sorted;		/* still in the prefix in order of time */
	u64	max_seq;	/* the newest node seen so far */
	u64	prev_seq;	/* the previous node's */
};

static bool tq_fifo_next(const struct timeq_node *prev,
			 const struct timeq_node *node, u64 seq, bool bucket,
			 struct tq_fifo_walk *walk)
{
	if (bucket && walk->sorted &&
	    (prev->time < node->time ||
	     (prev->time == node->time && walk->prev_seq < seq)))
		return true;
	walk->sorted = false;
	return bucket ? seq > walk->max_seq : walk->prev_seq < seq;
}
#endif

/* Which array a checked list belongs to. */
enum tq_array { TQ_HEAD, TQ_HEAD2, TQ_FOCUS, TQ_BUCKETS };

static const char *const tq_array_name[] = { "head", "head2", "focus", "bucket" };

static struct timeq_spread *tq_role(const struct timeq *q, enum tq_array array)
{
	switch (array) {
	case TQ_HEAD:
		return q->head;
	case TQ_HEAD2:
		return q->head2;
	default:
		return q->focus;
	}
}

/* Is a node of time @time rightly in list @index of @array? */
static bool tq_placed(const struct timeq *q, enum tq_array array,
		      unsigned long index, u64 time)
{
	u64 rel = tq_rel(q, time);

	switch (array) {
	case TQ_HEAD:
		return rel == 0 && tq_index(q, time) == index;
	case TQ_HEAD2:
		return rel == 1 && tq_index(q, time) == index;
	case TQ_FOCUS:
		return rel >= 2 && time >> q->delta_shift == q->focus_bucket &&
		       tq_index(q, time) == index;
	default:
		return rel >= 1 && rel <= tq_nbuckets(q) &&
		       tq_slot(q, time >> q->delta_shift) == index;
	}
}

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
	unsigned long owner, n = 0;
#ifdef TIMEQ_DEBUG_FIFO
	struct tq_fifo_walk order = { .sorted = true };
#endif
	u64 seq = 0;

	*count = 0;
	if (array == TQ_BUCKETS) {
		list = &q->buckets[index];
		owner = tq_owner_word(q, TQ_TAG_CALENDAR);
	} else {
		list = &tq_role(q, array)->lists[index];
		owner = tq_owner_word(q, tq_spread_tag(q, tq_role(q, array)));
	}
	for (prev = list, pos = list->next; pos != list;
	     prev = pos, pos = pos->next) {
		if (pos->prev != prev)
			return tq_report(buf, len, "%s list %lu: broken link before node %lu",
					 name, index, n);
		if (++n > tq_count(q))
			return tq_report(buf, len, "%s list %lu: more nodes than the count %lu",
					 name, index, tq_count(q));
		node = list_entry(pos, struct timeq_node, entry);
		if (node->owner != owner)
			return tq_report(buf, len, "%s list %lu: node %lu owner %#lx, want %#lx",
					 name, index, n, node->owner, owner);
		if (!tq_in_window(q, node->time))
			return tq_report(buf, len,
					 "%s list %lu: time %llu outside window %llu+%llu",
					 name, index, node->time, q->now, q->horizon);
		if (!tq_placed(q, array, index, node->time))
			return tq_report(buf, len,
					 "%s list %lu: time %llu (bucket +%llu) misplaced",
					 name, index, node->time,
					 tq_rel(q, node->time));
#ifdef TIMEQ_DEBUG_FIFO
		if (q->fifo && !tq_fifo_seq(q, node, &seq))
			return tq_report(buf, len, "%s list %lu: node %lu has no insertion number",
					 name, index, n);
		if (q->fifo && prev != list &&
		    !tq_fifo_next(list_entry(prev, struct timeq_node, entry),
				  node, seq, array == TQ_BUCKETS, &order))
			return tq_report(buf, len, "%s list %lu: time %llu out of insertion order",
					 name, index, node->time);
		if (q->fifo) {
			order.max_seq = max(order.max_seq, seq);
			order.prev_seq = seq;
		}
#endif
		if (!walk->best ||
		    tq_before(node, seq, walk->best, walk->best_seq)) {
			walk->best = node;
			walk->best_seq = seq;
		}
	}
	if (list->prev != prev)
		return tq_report(buf, len, "%s list %lu: broken tail link",
				 name, index);
	walk->nodes += n;
	*count = n;
	return 0;
}

/* Is @list in order of time (FIFO among equal times is checked apart)? */
static bool tq_list_sorted(const struct list_head *list)
{
	const struct timeq_node *node, *prev = NULL;

	list_for_each_entry(node, list, entry) {
		if (prev && prev->time > node->time)
			return false;
		prev = node;
	}
	return true;
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
		if (array == TQ_BUCKETS && test_bit(i, q->bucket_sorted) &&
		    !tq_list_sorted(&q->buckets[i]))
			return tq_report(buf, len, "bucket list %lu: marked sorted, is not",
					 i);
		*total += nodes;
	}
	if (array == TQ_BUCKETS) {
		map = &q->bucket_map;
		lists = q->buckets;
	} else {
		map = &tq_role(q, array)->map;
		lists = tq_role(q, array)->lists;
	}
	return tq_check_map(map, lists, n, tq_array_name[array], buf, len);
}

/*
 * Verify every invariant: each node's owner and tag, window, list and
 * position, the links, the counts, the bitmaps at every level, I4, I5, the
 * cached minimum and, for a queue that keeps insertion numbers (queue.h),
 * insertion order within each list. O(N + delta + M). Returns 0, or
 * -EUCLEAN with a description in @buf; -EBUSY if work is pending (then the
 * queue is between steps).
 */
int __timeq_check(const struct timeq *q, char *buf, size_t len)
{
	unsigned long counts[TQ_BUCKETS + 1], next;
	struct tq_walk walk = { };
	enum tq_array array;
	int err;

	if (q->pend != TQ_PEND_NONE)
		return -EBUSY;
	if (q->delta_shift > TIMEQ_MAX_LISTS_SHIFT ||
	    q->buckets_shift > TIMEQ_MAX_LISTS_SHIFT || !q->horizon ||
	    q->horizon - 1 > 1ULL << (q->delta_shift + q->buckets_shift))
		return tq_report(buf, len, "bad shape: delta 2^%u, M 2^%u, horizon %llu",
				 q->delta_shift, q->buckets_shift, q->horizon);
	if (q->head == q->head2 || q->head == q->focus || q->head2 == q->focus)
		return tq_report(buf, len, "two roles share one array");
#ifdef TIMEQ_DEBUG_FIFO
	if (q->fifo && READ_ONCE(q->fifo->full))
		return tq_report(buf, len,
				 "more nodes than the table of insertion numbers holds (%lu)",
				 (q->fifo->mask + 1) / 2);
#endif
	for (array = TQ_HEAD; array <= TQ_BUCKETS; array++) {
		err = tq_check_array(q, array, &walk, &counts[array], buf, len);
		if (err)
			return err;
	}
	if (q->head->count != counts[TQ_HEAD] ||
	    q->head2->count != counts[TQ_HEAD2] ||
	    q->focus->count != counts[TQ_FOCUS])
		return tq_report(buf, len,
				 "array counts %lu, %lu, %lu; lists hold %lu, %lu, %lu",
				 q->head->count, q->head2->count, q->focus->count,
				 counts[TQ_HEAD], counts[TQ_HEAD2], counts[TQ_FOCUS]);
	if (q->calendar_count != counts[TQ_BUCKETS])
		return tq_report(buf, len, "calendar count %lu, lists hold %lu",
				 q->calendar_count, counts[TQ_BUCKETS]);
	next = q->bucket_count[tq_slot(q, tq_cur(q) + 1)];
	if (!q->head->count && next)
		return tq_report(buf, len, "head empty, %lu of the next bucket not in head2",
				 next);
	if (q->focus->count && q->bucket_count[tq_slot(q, q->focus_bucket)])
		return tq_report(buf, len, "focus bucket %llu split with its bucket list",
				 q->focus_bucket);
	if (q->min != walk.best)
		return tq_report(buf, len, "min is %s (time %llu), want %s (time %llu)",
				 q->min ? "a node" : "NULL",
				 q->min ? q->min->time : 0,
				 walk.best ? "a node" : "NULL",
				 walk.best ? walk.best->time : 0);
	if (q->min_time != (q->min ? q->min->time : U64_MAX))
		return tq_report(buf, len, "min_time %llu does not match the min",
				 q->min_time);
	return 0;
}
