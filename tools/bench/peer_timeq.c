// SPDX-License-Identifier: GPL-2.0
/*
 * timeq itself, two ways: the bare data structure (the __timeq_* calls of
 * module/queue.c, as the slow side calls them under its locks) and the
 * locked API of module/paths.c (timeq_insert() and the rest, three
 * spinlocks a call). Both are the module's own sources, built unchanged
 * against tools/testing/queue/compat with COMPAT_BENCH locks and NDEBUG.
 *
 * The bare calls are driven as paths.c drives them: each call gets a
 * budget of TIMEQ_HOLD node visits, and pending work is finished with
 * __timeq_step() before the next call. Expiry is __timeq_del_less_than(),
 * called until the clock has reached the time; the nodes it removes are
 * restarted (W3) after it returns, since no other call may run while its
 * work is pending. The locked API's timeq_del_less_than() calls back for
 * each node, which is how a timer user learns what expired.
 *
 * The queue's shape is the tuning rule's choice (__timeq_tune() in
 * module/tune.h) for the cell's N and mean jump.
 */
#include <stdlib.h>

#include <linux/timeq.h>

#include "../../module/queue.h"
#include "bare.h"
#include "bench.h"

struct tq_peer {
	struct timeq		*q;
	struct timeq_node	*node;
	bool			locked;
	char			shape[48];
};

static bool tq_can(enum workload wl)
{
	(void)wl;
	return true;
}

/*
 * The rule's shape for @count timers of mean jump @mean, and the hold
 * cost per event the paper's model predicts for it from the constants in
 * module/tune.h: what `timeqctl tune` prints, from the same code.
 */
void timeq_bench_shape(uint64_t horizon, uint64_t count, uint64_t mean,
		       unsigned int *delta_shift, unsigned int *buckets_shift,
		       double *predicted_ns)
{
	if (__timeq_tune(horizon, count, mean, delta_shift, buckets_shift)) {
		*delta_shift = 0;
		*buckets_shift = 0;
	}
	if (predicted_ns)
		*predicted_ns = tq_tune_cost_ps(count, mean, *delta_shift) / 1e3;
}

void *timeq_bench_create(const struct seq *s, unsigned int ds,
			 unsigned int bs, bool locked)
{
	struct tq_peer *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p)
		abort();
	p->q = timeq_create(0, BENCH_HORIZON, 1u << ds, 1u << bs, GFP_KERNEL);
	p->node = calloc(s->n, sizeof(*p->node));
	if (IS_ERR(p->q) || !p->node)
		abort();
	p->locked = locked;
	snprintf(p->shape, sizeof(p->shape), "delta 2^%u M 2^%u", ds, bs);
	for (i = 0; i < s->n; i++) {
		timeq_node_init(&p->node[i]);
		if (s->init && timeq_insert(p->q, &p->node[i], s->init[i]))
			abort();
	}
	return p;
}

/*
 * The rule's shape, or TIMEQ_BENCH_DELTA_SHIFT's (an experiment: M is then
 * the least that covers the horizon).
 */
static void *tq_create_common(const struct seq *s, bool locked)
{
	const char *force = getenv("TIMEQ_BENCH_DELTA_SHIFT");
	unsigned int ds, bs;

	timeq_bench_shape(BENCH_HORIZON, s->n, s->mean, &ds, &bs, NULL);
	if (force) {
		bs += ds;
		ds = atoi(force);
		bs = bs > ds ? bs - ds : 0;
	}
	return timeq_bench_create(s, ds, bs, locked);
}

static void *tq_create(const struct seq *s)
{
	return tq_create_common(s, false);
}

static void *tq_create_locked(const struct seq *s)
{
	return tq_create_common(s, true);
}

static void tq_destroy(void *arg)
{
	struct tq_peer *p = arg;

	timeq_destroy(p->q);
	free(p->node);
	free(p);
}

static const char *tq_shape(void *arg)
{
	return ((struct tq_peer *)arg)->shape;
}

static size_t tq_elem_bytes(void)
{
	return sizeof(struct timeq_node);
}

/* --- the bare calls --- */

struct tq_expiry {
	struct tq_peer	*p;
	struct out	*o;
};

static void tq_record(struct timeq_node *node, void *arg)
{
	struct tq_expiry *x = arg;

	out_add(x->o, node->time, node - x->p->node);
}

/* Expire everything before @time, recording it, as timeq_del_less_than(). */
static void tq_expire(struct tq_peer *p, u64 time, struct out *o)
{
	struct tq_expiry x = { p, o };

	tq_bare_expire(p->q, time, tq_record, &x);
}

static void tq_run_bare(struct tq_peer *p, const struct seq *s, uint64_t from,
			uint64_t to, struct out *o)
{
	struct timeq *q = p->q;
	struct timeq_node *node;
	uint64_t k, x;
	uint32_t e;

	switch (s->wl) {
	case W1_HOLD:
		for (k = from; k < to; k++) {
			q->budget = TIMEQ_HOLD;
			node = __timeq_delete_min(q);
			tq_bare_steps(q);
			out_add(o, node->time, node - p->node);
			q->budget = TIMEQ_HOLD;
			__timeq_insert(q, node, node->time + s->t[k]);
		}
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			node = &p->node[s->id[k]];
			q->budget = TIMEQ_HOLD;
			__timeq_delete(q, node);
			tq_bare_steps(q);
			__timeq_insert(q, node, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			if (s->id[k] != BENCH_ADVANCE) {
				q->budget = TIMEQ_HOLD;
				__timeq_update(q, &p->node[s->id[k]], s->t[k]);
				tq_bare_steps(q);
				continue;
			}
			x = o->n;
			tq_expire(p, s->t[k], o);
			for (; x < o->n; x++) {
				q->budget = TIMEQ_HOLD;
				__timeq_insert(q, &p->node[o->id[x]],
					       w3_restart(o->id[x], s->t[k]));
			}
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++) {
				q->budget = TIMEQ_HOLD;
				__timeq_insert(q, &p->node[e], s->t[k]);
			}
			tq_expire(p, s->t[k] + 1, o);
		}
		break;
	}
}

/* --- the locked API --- */

static void tq_run_locked(struct tq_peer *p, const struct seq *s,
			  uint64_t from, uint64_t to, struct out *o)
{
	struct tq_expiry x = { p, o };
	struct timeq *q = p->q;
	struct timeq_node *node;
	uint64_t k, first;
	uint32_t e;

	switch (s->wl) {
	case W1_HOLD:
		for (k = from; k < to; k++) {
			node = timeq_delete_min(q);
			out_add(o, node->time, node - p->node);
			timeq_insert(q, node, node->time + s->t[k]);
		}
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			node = &p->node[s->id[k]];
			timeq_delete(q, node);
			timeq_insert(q, node, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			if (s->id[k] != BENCH_ADVANCE) {
				timeq_update(q, &p->node[s->id[k]], s->t[k]);
				continue;
			}
			first = o->n;
			timeq_del_less_than(q, s->t[k], tq_record, &x);
			for (; first < o->n; first++)
				timeq_insert(q, &p->node[o->id[first]],
					     w3_restart(o->id[first], s->t[k]));
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				timeq_insert(q, &p->node[e], s->t[k]);
			timeq_del_less_than(q, s->t[k] + 1, tq_record, &x);
		}
		break;
	}
}

static void tq_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		   struct out *o)
{
	struct tq_peer *p = arg;

	if (p->locked)
		tq_run_locked(p, s, from, to, o);
	else
		tq_run_bare(p, s, from, to, o);
}

static void tq_drain(void *arg, const struct seq *s, struct out *o)
{
	struct tq_peer *p = arg;
	struct timeq_node *node;

	(void)s;
	while ((node = timeq_delete_min(p->q)))
		out_add(o, node->time, node - p->node);
}

const struct peer peer_timeq = {
	.name = "timeq",
	.how = "module/queue.c's __timeq_* calls, a budget a call, steps until no work is pending",
	.fifo = true,
	.can = tq_can,
	.create = tq_create,
	.destroy = tq_destroy,
	.run = tq_run,
	.drain = tq_drain,
	.elem_bytes = tq_elem_bytes,
	.shape = tq_shape,
};

const struct peer peer_timeq_locked = {
	.name = "timeq-locked",
	.how = "module/paths.c's timeq_insert() etc.: three spinlocks a call; expiry calls back per node",
	.fifo = true,
	.can = tq_can,
	.create = tq_create_locked,
	.destroy = tq_destroy,
	.run = tq_run,
	.drain = tq_drain,
	.elem_bytes = tq_elem_bytes,
	.shape = tq_shape,
};
