// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the differential check of kunit/queue_diff.c driven
 * by fuzzer bytes instead of a seed. Byte 0 picks a shape, bytes 1-8 the starting
 * clock (through a few patterns), then every 6 bytes are one operation:
 *
 *	kind, node, time pattern, 24-bit operand
 *
 * Any disagreement with the model, or any complaint of timeq_check(),
 * prints the operations and aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

/*
 * The shapes of diff_shapes[] with a horizon of at most this many ticks:
 * a hundred lists or so, a short walk for timeq_check() after every
 * operation, so that every input runs fast.
 */
#define FUZZ_MAX_HORIZON	1024

static const struct shape *fuzz_shapes[32];
static unsigned int fuzz_nshapes;

static void fuzz_pick_shapes(void)
{
	unsigned int i;

	for (i = 0; i < diff_nshapes && fuzz_nshapes < ARRAY_SIZE(fuzz_shapes); i++)
		if (diff_shapes[i].horizon <= FUZZ_MAX_HORIZON)
			fuzz_shapes[fuzz_nshapes++] = &diff_shapes[i];
#ifdef TIMEQ_DEBUG_FIFO
	/* Insertion numbers (module/queue.h) for every node of a shape. */
	for (i = 0; i < fuzz_nshapes; i++)
		tq_fifo_nodes = max(tq_fifo_nodes, fuzz_shapes[i]->nids);
#endif
}

#define MAX_OPS 4096

static u64 fuzz_u64(const uint8_t *p)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Turn a pattern and operand into a time near what the queue holds. */
static u64 fuzz_time(const struct diff *d, unsigned int pattern, u64 operand)
{
	u64 now = d->m.now, delta = 1ULL << d->q->delta_shift;
	unsigned int id = operand % d->shape->nids;

	switch (pattern % 8) {
	case 0: return now + operand % d->shape->horizon;
	case 1: return now + operand;
	case 2: return now - operand;
	case 3: return d->m.queued[id] ? d->m.by_id[id].time : now;
	case 4: return now - now % delta + operand;
	case 5: return now + d->shape->horizon - 1 - operand % 4;
	case 6: return now + (operand % 8) * delta;
	default: return ~0ULL - operand;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct op ops[MAX_OPS];
	const struct shape *shape;
	struct diff d;
	size_t i, n = 0;
	u64 now;

	if (!fuzz_nshapes)
		fuzz_pick_shapes();
	if (size < 9)
		return 0;
	shape = fuzz_shapes[data[0] % fuzz_nshapes];
	now = fuzz_u64(data + 1);
	switch (data[1] % 4) {
	case 0: now = 0; break;
	case 1: now %= 1000; break;
	case 2: now >>= 24; break;
	default: now = ~0ULL - now % (4 * shape->horizon); break;
	}
	if (diff_start(&d, shape, now))
		abort();
	for (i = 9; i + 6 <= size && n < MAX_OPS; i += 6, n++) {
		struct op *op = &ops[n];
		u64 operand = (u64)data[i + 3] << 16 | data[i + 4] << 8 | data[i + 5];

		op->kind = data[i] % OP_KINDS;
		op->id = data[i + 1] % shape->nids;
		op->time = fuzz_time(&d, data[i + 2], operand);
		if (diff_step(&d, op)) {
			fprintf(stderr, "shape %s, now %llu, operation %zu: %s\n",
				shape->name, now, n, d.why);
			for (i = 0; i <= n; i++)
				diff_print_op(stderr, &ops[i]);
			abort();
		}
	}
	diff_stop(&d);
	if (compat_allocations)
		abort();
	return 0;
}
