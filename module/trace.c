// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the tracepoints of trace/timeq.h are created here, and the ids
 * they give nodes: a SipHash of the node's address under a key drawn when
 * the module loads, so that an id tells nothing of where a node is, and
 * names one address for the module's life: a node freed and its memory
 * used again for another node, as a slab cache does at once, gives the
 * new node the same id. An id follows a node from its insertion to its
 * removal; events on either side of a free may be two nodes'.
 */
#include <linux/random.h>
#include <linux/siphash.h>

#define CREATE_TRACE_POINTS
#include "trace/timeq.h"

static siphash_key_t tq_trace_key __read_mostly;

/* Called by enabled tracepoints only. */
u64 tq_trace_node(const struct timeq_node *node)
{
	return siphash_1u64((unsigned long)node, &tq_trace_key);
}

void tq_trace_init(void)
{
	get_random_bytes(&tq_trace_key, sizeof(tq_trace_key));
}
