/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace only: print, replay and shrink a sequence of operations. */
#ifndef TIMEQ_REPRO_H
#define TIMEQ_REPRO_H

#include <stdio.h>

#include "queue_diff.h"

void diff_print_op(FILE *f, const struct op *op);
/*
 * Replay @ops on a fresh pair; return the index of the first operation that
 * fails (with @why filled in), or -1 if all agree.
 */
long diff_replay(const struct shape *shape, u64 now, const struct op *ops,
		 size_t n, char *why, size_t len);
/* Shrink a failing sequence to a small one that still fails; new length. */
size_t diff_shrink(const struct shape *shape, u64 now, struct op *ops,
		   size_t n);

#endif
