// SPDX-License-Identifier: GPL-2.0
/*
 * The limit with unbounded memory: a direct-mapped array with one list per
 * tick (Varghese and Lauck's scheme 4), 2^21 lists covering the whole
 * window [now, now + 2^20], each holding one time only. Start, stop and
 * move are a link and an unlink with no hashing collisions; expiry at a
 * tick takes its whole list, no time compared. Finding the next timer
 * (W1) walks the empty lists in between one by one, as scheme 4 does.
 */
#include <stdlib.h>

#include "bench.h"

#define DIRECT_SHIFT	21
#define DIRECT_SLOTS	(1u << DIRECT_SHIFT)

/* A list link; a bucket is a sentinel link, 16 bytes. */
struct dlink {
	struct dlink	*next, *prev;
};

struct dnode {
	struct dlink	link;
	uint64_t	time;
	uint64_t	unused;		/* 32 bytes, as timeq's node */
};

struct direct {
	struct dlink	*slot;		/* DIRECT_SLOTS sentinels */
	struct dnode	*node;
	uint64_t	now;
};

static bool direct_can(enum workload wl)
{
	(void)wl;
	return true;
}

static inline void dnode_link(struct direct *d, struct dnode *n, uint64_t t)
{
	struct dlink *head = &d->slot[t & (DIRECT_SLOTS - 1)];

	n->time = t;
	n->link.next = head;
	n->link.prev = head->prev;
	head->prev->next = &n->link;
	head->prev = &n->link;
}

static inline void dnode_unlink(struct dnode *n)
{
	n->link.next->prev = n->link.prev;
	n->link.prev->next = n->link.next;
}

static void *direct_create(const struct seq *s)
{
	struct direct *d = calloc(1, sizeof(*d));
	uint32_t i;

	if (!d)
		abort();
	d->slot = malloc(DIRECT_SLOTS * sizeof(*d->slot));
	d->node = calloc(s->n, sizeof(*d->node));
	if (!d->slot || !d->node)
		abort();
	for (i = 0; i < DIRECT_SLOTS; i++)
		d->slot[i].next = d->slot[i].prev = &d->slot[i];
	if (s->init)
		for (i = 0; i < s->n; i++)
			dnode_link(d, &d->node[i], s->init[i]);
	return d;
}

static void direct_destroy(void *arg)
{
	struct direct *d = arg;

	free(d->slot);
	free(d->node);
	free(d);
}

/* Fire the whole list of tick @d->now into @o; returns how many. */
static uint64_t direct_tick(struct direct *d, struct out *o)
{
	struct dlink *head = &d->slot[d->now & (DIRECT_SLOTS - 1)];
	struct dnode *n;
	uint64_t fired = 0;

	while (head->next != head) {
		n = (struct dnode *)head->next;
		dnode_unlink(n);
		out_add(o, n->time, n - d->node);
		fired++;
	}
	return fired;
}

static void direct_advance(struct direct *d, uint64_t time, struct out *o)
{
	for (; d->now < time; d->now++)
		direct_tick(d, o);
}

static void direct_run(void *arg, const struct seq *s, uint64_t from,
		       uint64_t to, struct out *o)
{
	struct direct *d = arg;
	struct dnode *n;
	uint64_t k, x;
	uint32_t e;

	switch (s->wl) {
	case W1_HOLD:
		for (k = from; k < to; d->now++) {
			x = o->n;
			if (!direct_tick(d, o))
				continue;
			for (; x < o->n; x++, k++) {
				n = &d->node[o->id[x]];
				dnode_link(d, n, n->time + s->t[k]);
			}
		}
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			n = &d->node[s->id[k]];
			dnode_unlink(n);
			dnode_link(d, n, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			e = s->id[k];
			if (e != BENCH_ADVANCE) {
				dnode_unlink(&d->node[e]);
				dnode_link(d, &d->node[e], s->t[k]);
				continue;
			}
			x = o->n;
			direct_advance(d, s->t[k], o);
			for (; x < o->n; x++)
				dnode_link(d, &d->node[o->id[x]],
					   w3_restart(o->id[x], s->t[k]));
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				dnode_link(d, &d->node[e], s->t[k]);
			direct_advance(d, s->t[k] + 1, o);
		}
		break;
	}
}

static void direct_drain(void *arg, const struct seq *s, struct out *o)
{
	struct direct *d = arg;
	uint64_t left = s->n;

	for (; left; d->now++)
		left -= direct_tick(d, o);
}

static size_t direct_elem_bytes(void)
{
	return sizeof(struct dnode);
}

const struct peer peer_direct = {
	.name = "direct",
	.how = "the limit: one list per tick over the whole window (2^21 lists); the clock walks every tick",
	.fifo = true,
	.can = direct_can,
	.create = direct_create,
	.destroy = direct_destroy,
	.run = direct_run,
	.drain = direct_drain,
	.elem_bytes = direct_elem_bytes,
};
