// SPDX-License-Identifier: GPL-2.0
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "queue_diff.h"

const char *const diff_op_names[OP_KINDS] = {
	"insert", "delete", "update", "min", "delete_min", "del_less_than",
	"foreign",
};

int diff_start(struct diff *d, const struct shape *shape, u64 now)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->shape = shape;
	d->q = timeq_create(now, shape->horizon, shape->delta, shape->nbuckets,
			    GFP_KERNEL);
	if (IS_ERR(d->q))
		goto err;
	d->other = timeq_create(now, shape->horizon, shape->delta,
				shape->nbuckets, GFP_KERNEL);
	if (IS_ERR(d->other))
		goto err_destroy_q;
	if (model_init(&d->m, now, shape->horizon, shape->nids))
		goto err_destroy_other;
	d->elems = kcalloc(shape->nids, sizeof(*d->elems), GFP_KERNEL);
	d->expired = kcalloc(shape->nids, sizeof(*d->expired), GFP_KERNEL);
	d->expected = kcalloc(shape->nids, sizeof(*d->expected), GFP_KERNEL);
	if (!d->elems || !d->expired || !d->expected)
		goto err_free;
	for (i = 0; i < shape->nids; i++) {
		timeq_node_init(&d->elems[i].node);
		d->elems[i].id = i;
	}
	return 0;

err_free:
	kfree(d->elems);
	kfree(d->expired);
	kfree(d->expected);
	model_free(&d->m);
err_destroy_other:
	timeq_destroy(d->other);
err_destroy_q:
	timeq_destroy(d->q);
err:
	return -1;
}

void diff_stop(struct diff *d)
{
	timeq_destroy(d->q);
	timeq_destroy(d->other);
	model_free(&d->m);
	kfree(d->elems);
	kfree(d->expired);
	kfree(d->expected);
}

static __printf(2, 3) int diff_fail(struct diff *d, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, args);
	va_end(args);
	return -1;
}

static int node_id(const struct timeq_node *node)
{
	return node ? (int)container_of(node, struct elem, node)->id : -1;
}

/* The callback of timeq_del_less_than(): note the order, check the state. */
static void diff_collect(struct timeq_node *node, void *arg)
{
	struct diff *d = arg;

	if (timeq_node_queued(node) || timeq_now(d->q) != timeq_node_time(node))
		d->expired[d->nexpired++] = ~0u;	/* poisons the comparison */
	else if (d->nexpired < d->shape->nids)
		d->expired[d->nexpired++] = node_id(node);
}

/* After every operation: the whole observable state, then the invariants. */
static int diff_compare(struct diff *d)
{
	char why[256];
	unsigned int i;

	if (timeq_count(d->q) != d->m.count)
		return diff_fail(d, "count %lu, model %u", timeq_count(d->q),
				 d->m.count);
	if (timeq_now(d->q) != d->m.now)
		return diff_fail(d, "now %llu, model %llu", timeq_now(d->q),
				 d->m.now);
	if (node_id(timeq_min(d->q)) != model_min(&d->m))
		return diff_fail(d, "min is id %d, model %d",
				 node_id(timeq_min(d->q)), model_min(&d->m));
	for (i = 0; i < d->shape->nids; i++) {
		const struct timeq_node *node = &d->elems[i].node;

		if (timeq_node_queued(node) != d->m.queued[i])
			return diff_fail(d, "id %u queued %d, model %d", i,
					 timeq_node_queued(node), d->m.queued[i]);
		if (d->m.queued[i] && timeq_node_time(node) != d->m.by_id[i].time)
			return diff_fail(d, "id %u time %llu, model %llu", i,
					 timeq_node_time(node), d->m.by_id[i].time);
	}
	if (timeq_check(d->q, why, sizeof(why)))
		return diff_fail(d, "timeq_check: %s", why);
	if (timeq_count(d->other) || timeq_check(d->other, why, sizeof(why)))
		return diff_fail(d, "the other queue changed");
	return 0;
}

int diff_step(struct diff *d, const struct op *op)
{
	struct timeq_node *node = &d->elems[op->id % d->shape->nids].node;
	unsigned int id = op->id % d->shape->nids, n, i;
	int got, want;

	d->steps++;
	switch (op->kind) {
	case OP_INSERT:
		got = timeq_insert(d->q, node, op->time);
		want = model_insert(&d->m, id, op->time);
		break;
	case OP_DELETE:
		got = timeq_delete(d->q, node);
		want = model_delete(&d->m, id);
		break;
	case OP_UPDATE:
		got = timeq_update(d->q, node, op->time);
		want = model_update(&d->m, id, op->time);
		break;
	case OP_MIN:
		got = node_id(timeq_min(d->q));
		want = model_min(&d->m);
		break;
	case OP_DELETE_MIN:
		node = timeq_delete_min(d->q);
		got = node_id(node);
		want = model_delete_min(&d->m);
		if (node && timeq_node_queued(node))
			return diff_fail(d, "delete_min returned a queued node");
		break;
	case OP_DEL_LESS_THAN:
		d->nexpired = 0;
		got = timeq_del_less_than(d->q, op->time, diff_collect, d);
		want = model_del_less_than(&d->m, op->time, d->expected);
		if (got != (int)d->nexpired)
			return diff_fail(d, "del_less_than returned %d, called back %u",
					 got, d->nexpired);
		for (n = (unsigned int)(got < want ? got : want), i = 0; i < n; i++)
			if (d->expired[i] != d->expected[i])
				return diff_fail(d, "del_less_than removal %u is id %d, model %u",
						 i, (int)d->expired[i], d->expected[i]);
		break;
	case OP_FOREIGN:
		got = timeq_delete(d->other, node);
		want = -ENOENT;
		if (got == want) {
			got = timeq_update(d->other, node, op->time);
			if (got == want && timeq_node_queued(node))
				got = timeq_insert(d->other, node, op->time) == -EBUSY ?
				      want : -EBUSY;
		}
		break;
	default:
		return diff_fail(d, "bad operation %d", op->kind);
	}
	if (got != want)
		return diff_fail(d, "%s id %u time %llu: got %d, model %d",
				 diff_op_names[op->kind], id, op->time, got, want);
	d->tried[op->kind]++;
	if (op->kind == OP_DEL_LESS_THAN ? got > 0 :
	    op->kind == OP_DELETE_MIN || op->kind == OP_MIN ? got >= 0 :
	    op->kind == OP_FOREIGN ? timeq_node_queued(node) : got == 0)
		d->done[op->kind]++;
	d->sizes += d->m.count;
	return diff_compare(d);
}

static u64 add_sat(u64 a, u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

static u64 diff_pick_time(struct diff *d, u64 *rng, unsigned int profile)
{
	u64 now = d->m.now, horizon = d->shape->horizon;
	u64 delta = 1ULL << d->q->delta_shift, r = diff_rand(rng);
	u64 base = now - now % delta;
	unsigned int id = diff_rand(rng) % d->shape->nids;

	if (profile == 1 && r % 4)	/* clustered: a handful of times */
		return add_sat(base, (diff_rand(rng) % 4) * (delta / 2 + 1));
	switch (r % 16) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		return add_sat(now, diff_rand(rng) % horizon);
	case 6: case 7: case 8:		/* the current and next bucket */
		return add_sat(now, diff_rand(rng) % (2 * delta + 1));
	case 9: case 10:		/* equal to a queued time */
		return d->m.queued[id] ? d->m.by_id[id].time : now;
	case 11:			/* bucket edges */
		return add_sat(base, (diff_rand(rng) % 4) * delta +
				     diff_rand(rng) % 3) - 1;
	case 12:			/* window edges and just outside */
		switch (diff_rand(rng) % 5) {
		case 0: return now;
		case 1: return add_sat(now, horizon - 1);
		case 2: return add_sat(now, horizon);
		case 3: return now - 1;
		default: return add_sat(now, horizon + delta);
		}
	case 13:
		return diff_rand(rng);
	default:			/* sparse: the far end of the window */
		return add_sat(now, horizon - 1 - diff_rand(rng) % (horizon / 4 + 1));
	}
}

static u64 diff_pick_step(struct diff *d, u64 *rng)
{
	u64 delta = 1ULL << d->q->delta_shift, horizon = d->shape->horizon;
	unsigned int id = diff_rand(rng) % d->shape->nids;
	u64 queued = d->m.queued[id] ? d->m.by_id[id].time - d->m.now : 1;

	switch (diff_rand(rng) % 16) {
	case 0: return 0;
	case 1: return 1;
	case 2: return delta - 1;
	case 3: return delta;
	case 4: return delta + 1;
	case 5: return horizon - 1;
	case 6: return horizon + diff_rand(rng) % (3 * horizon);
	case 7:				/* far, but not to the end of time */
		return horizon * (2 + diff_rand(rng) % 1000);
	case 8: case 9:			/* to a queued time, or just past it */
		return queued + diff_rand(rng) % 2;
	case 10: case 11:
		return diff_rand(rng) % (horizon / 2 + 1);
	default:
		return diff_rand(rng) % (2 * delta + 2);
	}
}

void diff_generate(struct diff *d, u64 *rng, unsigned int profile,
		   struct op *op)
{
	/* Weights per profile: mixed, clustered, churn-heavy. */
	static const unsigned int weights[DIFF_PROFILES][OP_KINDS] = {
		{ 30, 12, 22, 2, 15, 8, 2 },
		{ 35, 8, 20, 2, 20, 6, 1 },
		{ 25, 25, 30, 2, 8, 5, 1 },
	};
	unsigned int w[OP_KINDS], total = 0, k, pick;
	unsigned int nids = d->shape->nids;
	int min = model_min(&d->m);

	/* Keep the queue about half full: more inserts when it is low. */
	for (k = 0; k < OP_KINDS; k++)
		w[k] = weights[profile % DIFF_PROFILES][k];
	if (d->m.count < nids / 2)
		w[OP_INSERT] *= 3;
	else if (d->m.count > nids - nids / 4)
		w[OP_INSERT] /= 3;
	for (k = 0; k < OP_KINDS; k++)
		total += w[k];
	pick = diff_rand(rng) % total;
	for (k = 0; pick >= w[k]; k++)
		pick -= w[k];
	op->kind = k;
	op->id = diff_rand(rng) % nids;
	/* Aim at the minimum a fair share of the time: its removal is the hard case. */
	if ((k == OP_DELETE || k == OP_UPDATE) && min >= 0 && diff_rand(rng) % 3 == 0)
		op->id = min;
	/* Inserts pick an idle node most of the time, so they mostly succeed. */
	if (k == OP_INSERT && diff_rand(rng) % 8) {
		for (pick = 0; pick < 4 && d->m.queued[op->id]; pick++)
			op->id = diff_rand(rng) % nids;
	}
	if (k == OP_DEL_LESS_THAN)
		op->time = add_sat(d->m.now, diff_pick_step(d, rng));
	else
		op->time = diff_pick_time(d, rng, profile);
}

u64 diff_start_now(u64 seed, u64 horizon)
{
	u64 rng = seed ^ 0x5eed;

	switch (seed % 4) {
	case 0:
		return 0;
	case 1:
		return diff_rand(&rng) % 1000;
	case 2:
		return diff_rand(&rng) >> 24;
	default:
		return ~0ULL - diff_rand(&rng) % (4 * horizon);
	}
}

const struct shape diff_shapes[] = {
	{ "1x1",		1,		1,	1,	8 },
	{ "1x2",		2,		1,	2,	8 },
	{ "2x1",		2,		2,	1,	8 },
	{ "2x2",		4,		2,	2,	16 },
	{ "4x4",		16,		4,	4,	32 },
	{ "4x4/h13",		13,		4,	4,	32 },
	{ "8x2",		16,		8,	2,	32 },
	{ "16x64/h1000",	1000,		16,	64,	64 },
	{ "auto/h3",		3,		0,	0,	8 },
	{ "auto/h1000",		1000,		0,	0,	128 },
	{ "64x8/h500",		500,		64,	8,	256 },
	{ "16x16/dense",	256,		16,	16,	1024 },
	{ "1024x1024",		1 << 20,	1024,	1024,	2048 },
	{ "1024x1024/h1000003",	1000003,	1024,	1024,	512 },
};

const unsigned int diff_nshapes = ARRAY_SIZE(diff_shapes);
