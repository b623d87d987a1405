// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace build has no registry of queues (module/stats.c needs
 * debugfs): a queue is numbered and nothing more, and a clocked queue's
 * lateness is not counted.
 */
#include "compat.h"
#include "../../../module/stats.h"

void tq_stats_register(struct timeq *q)
{
	static long long ids;

	q->id = __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);
}

void tq_stats_unregister(struct timeq *q)
{
	(void)q;
}

void tq_stats_lateness(struct timeq *q, u64 ns)
{
	(void)q;
	(void)ns;
}
