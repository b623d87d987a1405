// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the differential check of diff.c driven by fuzzer
 * bytes instead of a seed. Byte 0 picks a shape, bytes 1-8 the starting
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

static const struct shape fuzz_shapes[] = {
	{ "1x1", 1, 1, 1, 8 },
	{ "1x2", 2, 1, 2, 8 },
	{ "2x1", 2, 2, 1, 8 },
	{ "2x2", 4, 2, 2, 16 },
	{ "4x4", 16, 4, 4, 32 },
	{ "4x4/h13", 13, 4, 4, 32 },
	{ "8x2", 16, 8, 2, 32 },
	{ "16x64/h1000", 1000, 16, 64, 64 },
	{ "auto/h3", 3, 0, 0, 8 },
	{ "64x64/h4000", 4000, 64, 64, 256 },
};

#define NSHAPES (sizeof(fuzz_shapes) / sizeof(fuzz_shapes[0]))
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

	if (size < 9)
		return 0;
	shape = &fuzz_shapes[data[0] % NSHAPES];
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
