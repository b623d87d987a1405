/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model: the same contract as the queue, written the obvious
 * way, so that the two can be run side by side. Elements are named by id
 * 0 .. nids - 1 and kept in one array sorted by (time, insertion sequence).
 * Builds in the kernel and, through tools/testing/queue/compat, in userspace.
 */
#ifndef TIMEQ_QUEUE_MODEL_H
#define TIMEQ_QUEUE_MODEL_H

#include <linux/types.h>

struct model_entry {
	u64		time;
	u64		seq;
	unsigned int	id;
};

struct model {
	u64			now;
	u64			horizon;
	u64			seq;
	unsigned int		nids;
	unsigned int		count;
	struct model_entry	*sorted;	/* count entries, in order */
	bool			*queued;	/* by id */
	struct model_entry	*by_id;		/* time and seq of queued ids */
};

int model_init(struct model *m, u64 now, u64 horizon, unsigned int nids);
void model_free(struct model *m);
int model_insert(struct model *m, unsigned int id, u64 time);
int model_delete(struct model *m, unsigned int id);
int model_update(struct model *m, unsigned int id, u64 time);
/* The id of the earliest element, or -1. */
int model_min(const struct model *m);
int model_delete_min(struct model *m);
/* Remove elements before @time into @ids (in order), set now; return how many. */
unsigned int model_del_less_than(struct model *m, u64 time, unsigned int *ids);

#endif
