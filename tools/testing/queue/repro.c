// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <time.h>

#include "repro.h"

void diff_print_op(FILE *f, const struct op *op)
{
	fprintf(f, "%s id=%u time=%llu\n", diff_op_names[op->kind], op->id,
		op->time);
}

long diff_replay(const struct shape *shape, u64 now, const struct op *ops,
		 size_t n, char *why, size_t len)
{
	struct diff d;
	long failed = -1;
	size_t i;

	if (diff_start(&d, shape, now)) {
		snprintf(why, len, "cannot create the queue");
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (diff_step(&d, &ops[i])) {
			snprintf(why, len, "%s", d.why);
			failed = i;
			break;
		}
	}
	diff_stop(&d);
	return failed;
}

/*
 * Delta debugging, simply: drop chunks of halving size while the rest still
 * fails, and cut everything after the first failing operation.
 */
size_t diff_shrink(const struct shape *shape, u64 now, struct op *ops,
		   size_t n)
{
	struct op *trial = malloc(n * sizeof(*trial));
	clock_t deadline = clock() + 20 * CLOCKS_PER_SEC;
	size_t chunk, start;
	char why[512];
	long failed;

	if (!trial)
		return n;
	failed = diff_replay(shape, now, ops, n, why, sizeof(why));
	if (failed >= 0)
		n = failed + 1;
	/* Replays cost O(n (delta + M)): give up shrinking after 20 s. */
	for (chunk = n / 2; chunk && clock() < deadline; ) {
		bool removed = false;

		for (start = 0; start + chunk <= n && clock() < deadline; ) {
			memcpy(trial, ops, start * sizeof(*ops));
			memcpy(trial + start, ops + start + chunk,
			       (n - start - chunk) * sizeof(*ops));
			failed = diff_replay(shape, now, trial, n - chunk, why,
					     sizeof(why));
			if (failed >= 0) {
				n = failed + 1;
				memcpy(ops, trial, n * sizeof(*ops));
				removed = true;
			} else {
				start += chunk;
			}
		}
		if (!removed || chunk > n / 2)
			chunk = chunk > n / 2 ? n / 2 : chunk / 2;
	}
	free(trial);
	return n;
}
