// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the tracepoints of trace/timeq.h are created here, and the ids
 * they give nodes: a SipHash of the node's address under a key drawn when
 * the module loads, so that an id names one node for the module's life
 * and tells nothing of where it is.
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
