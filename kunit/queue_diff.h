/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential check: run the same operations on a timeq and on the
 * reference model, compare every result, and run timeq_check() after every
 * operation. Shared by the KUnit suite (queue_test.c), the userspace run
 * (tools/testing/queue/test_queue.c, random operations from seeds) and the
 * fuzzer (operations decoded from fuzzer bytes).
 */
#ifndef TIMEQ_QUEUE_DIFF_H
#define TIMEQ_QUEUE_DIFF_H

#include <linux/timeq.h>

#include "../module/queue.h"

#include "queue_model.h"

enum op_kind {
	OP_INSERT,
	OP_DELETE,
	OP_UPDATE,
	OP_MIN,
	OP_DELETE_MIN,
	OP_DEL_LESS_THAN,
	OP_FOREIGN,	/* delete/update/insert through the wrong queue */
	OP_KINDS
};

struct op {
	enum op_kind	kind;
	unsigned int	id;
	u64		time;
};

/* A queue shape: the parameters given to timeq_create(). */
struct shape {
	const char	*name;
	u64		horizon;
	unsigned int	delta;
	unsigned int	nbuckets;
	unsigned int	nids;	/* nodes available to the operations */
};

struct elem {
	struct timeq_node	node;
	unsigned int		id;
};

struct diff {
	const struct shape	*shape;
	struct timeq		*q;
	struct timeq		*other;	/* stays empty: for OP_FOREIGN */
	struct model		m;
	struct elem		*elems;
	unsigned int		*expired;	/* ids the queue's callback saw */
	unsigned int		*expected;	/* ids the model removed */
	unsigned int		nexpired;
	unsigned long		steps;
	unsigned long		tried[OP_KINDS];	/* per kind */
	unsigned long		done[OP_KINDS];		/* of which took effect */
	unsigned long long	sizes;			/* sum of counts after steps */
	char			why[512];
};

int diff_start(struct diff *d, const struct shape *shape, u64 now);
void diff_stop(struct diff *d);
/* Apply one operation to both; 0, or -1 with d->why saying what differs. */
int diff_step(struct diff *d, const struct op *op);
extern const char *const diff_op_names[OP_KINDS];

/* A small fast generator (splitmix64): the same seed, the same run. */
static inline u64 diff_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Choose the next operation from the state of @d. */
void diff_generate(struct diff *d, u64 *rng, unsigned int profile,
		   struct op *op);
#define DIFF_PROFILES	3

/* The starting clock of a seed: zero, small, unaligned, or near the top. */
u64 diff_start_now(u64 seed, u64 horizon);

/* The shapes every differential run covers, tiny to realistic. */
extern const struct shape diff_shapes[];
extern const unsigned int diff_nshapes;

#endif
