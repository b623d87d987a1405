/* SPDX-License-Identifier: GPL-2.0 */
/* timeq_check() for the userspace tests; see check.c. */
#ifndef TIMEQ_TEST_CHECK_H
#define TIMEQ_TEST_CHECK_H

#include <linux/timeq.h>

/* timeq_check(), under the locks, with evicted lists renumbered first. */
int test_check(struct timeq *q, char *why, size_t len);
/* The same with the locks held and no work pending (paths.h, queue.h). */
int __test_check(struct timeq *q, char *why, size_t len);

#endif
