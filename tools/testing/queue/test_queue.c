// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace tests of module/queue.c, built against compat/: the KUnit suite
 * of kunit/queue_test.c through the <kunit/test.h> stand-in, what only
 * userspace can do (failing allocations on demand), and the long
 * differential run against the reference model over many shapes and
 * seeds, which prints a shrunk reproduction when it fails. Output is TAP.
 *
 *	test_queue [--quick] [--seeds N] [--ops N] [--shape NAME [--seed S]]
 */
#include <stdlib.h>
#include <string.h>

#include <kunit/test.h>

#include "../../../module/queue.h"
#include "fifo.h"
#include "repro.h"

static_assert(sizeof(struct timeq_node) <= 32, "the node is at most 32 bytes");

static unsigned int tap_count, tap_failed;

static void tap(bool ok, const char *fmt, ...) __printf(2, 3);
static void tap(bool ok, const char *fmt, ...)
{
	va_list args;

	printf("%sok %u - ", ok ? "" : "not ", ++tap_count);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

static void tap_report(bool ok, const char *name)
{
	tap(ok, "%s", name);
}

/* timeq_create() fails cleanly at each of its allocations, however many. */
static int test_create_nomem(void)
{
	long fail, before = compat_allocations;
	struct timeq *q;

	for (fail = 1;; fail++) {
		compat_fail_countdown = fail;
		q = timeq_create(0, 1000, 0, 0, GFP_KERNEL);
		compat_fail_countdown = 0;
		if (!IS_ERR(q))
			break;
		if (q != ERR_PTR(-ENOMEM) || compat_allocations != before)
			return -1;
	}
	timeq_destroy(q);
	/* The queue and its lists at least; a failure in each was seen. */
	return fail > 2 && compat_allocations == before ? 0 : -1;
}

/*
 * __timeq_delete_min() that leaves PULL_HEAD pending leaves no minimum:
 * the slow side drops its locks between steps of the pull, and
 * timeq_min() and timeq_fast_min() must not report the node it removed
 * (found by the spin model, tools/testing/spin).
 */
static int test_min_while_pull_pending(void)
{
	struct timeq_node nodes[TIMEQ_STEP + 1], *node;
	struct timeq *q;
	unsigned int i;
	int err = -1;

	/* delta 32: bucket 3 holds times 96 .. 127, far from bucket 0. */
	q = timeq_create(0, 1024, 32, 32, GFP_KERNEL);
	if (IS_ERR(q))
		return -1;
	/* More than a step of nodes, so the pull takes two. */
	for (i = 0; i <= TIMEQ_STEP; i++) {
		timeq_node_init(&nodes[i]);
		if (timeq_insert(q, &nodes[i], 100 + i % 8))
			goto out;
	}
	if (timeq_min(q) != &nodes[0])
		goto out;
	q->budget = TIMEQ_HOLD;
	node = __timeq_delete_min(q);
	if (node != &nodes[0] || q->pend != TQ_PEND_PULL_HEAD ||
	    timeq_min(q) || q->min_time != U64_MAX)
		goto out;
	while (__timeq_step(q))
		q->budget = TIMEQ_HOLD;
	if (timeq_min(q) != &nodes[8] || timeq_check(q, NULL, 0))
		goto out;
	err = 0;
out:
	timeq_destroy(q);
	return err;
}

/* --- the differential run --- */

static unsigned long long total_steps, total_sizes;
static unsigned long total_tried[OP_KINDS], total_done[OP_KINDS];

static int run_seed(const struct shape *shape, u64 seed, size_t nops)
{
	u64 rng = seed, now = diff_start_now(seed, shape->horizon);
	struct op *ops = malloc(nops * sizeof(*ops));
	unsigned int profile = seed % DIFF_PROFILES;
	struct diff d;
	size_t i, n;
	int err = 0, k;

	if (!ops || diff_start(&d, shape, now)) {
		free(ops);
		printf("# %s seed %llu: cannot start\n", shape->name, seed);
		return -1;
	}
	for (i = 0; i < nops; i++) {
		diff_generate(&d, &rng, profile, &ops[i]);
		if (diff_step(&d, &ops[i])) {
			err = -1;
			break;
		}
	}
	total_steps += d.steps;
	total_sizes += d.sizes;
	for (k = 0; k < OP_KINDS; k++) {
		total_tried[k] += d.tried[k];
		total_done[k] += d.done[k];
	}
	if (err) {
		printf("# FAIL shape %s seed %llu (now %llu), operation %zu: %s\n",
		       shape->name, seed, now, i, d.why);
		printf("# rerun: test_queue --shape %s --seed %llu --ops %zu\n",
		       shape->name, seed, nops);
	}
	diff_stop(&d);
	if (err) {
		n = diff_shrink(shape, now, ops, i + 1);
		printf("# minimal reproduction, %zu operations from now %llu:\n",
		       n, now);
		for (i = 0; i < n; i++) {
			printf("#   ");
			diff_print_op(stdout, &ops[i]);
		}
	}
	free(ops);
	return err;
}

static void run_differential(unsigned int seeds, size_t nops,
			     const char *only, long long one_seed)
{
	unsigned int s, i, nshapes = 0, nseeds = 0;
	unsigned long long before;
	size_t ops;
	int err;

	for (i = 0; i < diff_nshapes; i++) {
		const struct shape *shape = &diff_shapes[i];

		if (only && strcmp(only, shape->name))
			continue;
		/* Big shapes cost O(delta + M) per check: fewer steps. */
		ops = shape->horizon >= 1 << 20 ? nops / 10 : nops;
		before = total_steps;
		err = 0;
		for (s = 0; s < seeds && !err; s++)
			err = run_seed(shape, one_seed >= 0 ? (u64)one_seed :
					      s * 7919ULL + i, ops);
		nshapes++;
		nseeds += s;
		tap(!err, "differential %s: %u seeds, %llu operations", shape->name,
		    s, total_steps - before);
	}
	printf("# differential: %llu operations checked over %u shapes and %u seeds\n",
	       total_steps, nshapes, nseeds);
	printf("# mean queue size %.1f; operations that took effect / tried:",
	       total_steps ? (double)total_sizes / total_steps : 0.0);
	for (i = 0; i < OP_KINDS; i++)
		printf(" %s %lu/%lu", diff_op_names[i], total_done[i], total_tried[i]);
	printf("\n");
}

static void run(const char *name, int (*fn)(void))
{
	long allocations = compat_allocations;
	int err = fn();

	if (!err && compat_allocations != allocations) {
		printf("# %ld allocations leaked\n", compat_allocations - allocations);
		err = -1;
	}
	tap(!err, "%s", name);
}

int main(int argc, char **argv)
{
	unsigned int seeds = 24;
	long long one_seed = -1;
	const char *only = NULL;
	size_t nops = 20000;
	int i;

#ifdef TIMEQ_DEBUG_FIFO
	tq_fifo_nodes = FIFO_NODES;
#endif
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			seeds = 3;
			nops = 2000;
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			seeds = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			nops = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			one_seed = strtoll(argv[++i], NULL, 0);
			seeds = 1;
		} else {
			fprintf(stderr, "usage: %s [--quick] [--seeds N] [--ops N] [--shape NAME [--seed S]]\n",
				argv[0]);
			return 2;
		}
	}
	printf("TAP version 13\n");
	if (!only) {
		compat_kunit_run_all(tap_report);
		run("timeq_create: ENOMEM at each allocation unwinds", test_create_nomem);
		run("__timeq_delete_min: no minimum while PULL_HEAD is pending",
		    test_min_while_pull_pending);
	}
	run_differential(seeds, nops, only, one_seed);
	printf("1..%u\n", tap_count);
	printf("# %u passed, %u failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
