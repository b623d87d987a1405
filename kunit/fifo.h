/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queues of a KUnit suite keep their nodes' insertion numbers, with
 * which timeq_check() proves FIFO order among equal times in a
 * TIMEQ_DEBUG_FIFO build (module/queue.h): a suite names these as its
 * suite_init and suite_exit. In other builds they do nothing.
 */
#ifndef _TIMEQ_KUNIT_FIFO_H
#define _TIMEQ_KUNIT_FIFO_H

#include <kunit/test.h>

#include "../module/queue.h"

/* Room for the most nodes a test links in one queue (2048), and more. */
#define FIFO_NODES	4096

#ifdef TIMEQ_DEBUG_FIFO
static unsigned long fifo_saved;
#endif

static inline int fifo_suite_init(struct kunit_suite *suite)
{
	(void)suite;
#ifdef TIMEQ_DEBUG_FIFO
	fifo_saved = tq_fifo_nodes;
	tq_fifo_nodes = FIFO_NODES;
#endif
	return 0;
}

static inline void fifo_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
#ifdef TIMEQ_DEBUG_FIFO
	tq_fifo_nodes = fifo_saved;
#endif
}

#endif /* _TIMEQ_KUNIT_FIFO_H */
