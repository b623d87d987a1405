// SPDX-License-Identifier: GPL-2.0
/*
 * A timer queue on the kernel's red-black tree, the way perf and the
 * kernel's own lib/timerqueue.c use it: tools/lib/rbtree.c and
 * tools/include/linux/rbtree.h, taken at build time from Debian's
 * linux-source-6.12 (the Makefile extracts them; they are never copied
 * into this tree), with the leftmost node cached. Insert descends
 * comparing times and goes right on equal times, so equal times leave in
 * insertion order; delete-min takes the cached leftmost node.
 */
#include <stdlib.h>
#include <linux/rbtree.h>

#include "bench.h"

struct rb_timer {
	struct rb_node	node;
	uint64_t	time;
};

struct rb_peer {
	struct rb_root_cached	root;
	struct rb_timer		*timer;
};

static bool rbp_can(enum workload wl)
{
	(void)wl;
	return true;
}

static void rbp_insert(struct rb_peer *p, struct rb_timer *t, uint64_t time)
{
	struct rb_node **link = &p->root.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	t->time = time;
	while (*link) {
		parent = *link;
		if (time < rb_entry(parent, struct rb_timer, node)->time) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&t->node, parent, link);
	rb_insert_color_cached(&t->node, &p->root, leftmost);
}

static void rbp_erase(struct rb_peer *p, struct rb_timer *t)
{
	rb_erase_cached(&t->node, &p->root);
}

static struct rb_timer *rbp_first(struct rb_peer *p)
{
	struct rb_node *first = rb_first_cached(&p->root);

	return first ? rb_entry(first, struct rb_timer, node) : NULL;
}

static void *rbp_create(const struct seq *s)
{
	struct rb_peer *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p)
		abort();
	p->root = RB_ROOT_CACHED;
	p->timer = calloc(s->n, sizeof(*p->timer));
	if (!p->timer)
		abort();
	if (s->init)
		for (i = 0; i < s->n; i++)
			rbp_insert(p, &p->timer[i], s->init[i]);
	return p;
}

static void rbp_destroy(void *arg)
{
	struct rb_peer *p = arg;

	free(p->timer);
	free(p);
}

/* Remove everything before @time, in order, into @o. */
static void rbp_expire(struct rb_peer *p, uint64_t time, struct out *o)
{
	struct rb_timer *t;

	while ((t = rbp_first(p)) && t->time < time) {
		rbp_erase(p, t);
		out_add(o, t->time, t - p->timer);
	}
}

static void rbp_run(void *arg, const struct seq *s, uint64_t from, uint64_t to,
		    struct out *o)
{
	struct rb_peer *p = arg;
	struct rb_timer *t;
	uint64_t k, x;
	uint32_t e;

	switch (s->wl) {
	case W1_HOLD:
		for (k = from; k < to; k++) {
			t = rbp_first(p);
			rbp_erase(p, t);
			out_add(o, t->time, t - p->timer);
			rbp_insert(p, t, t->time + s->t[k]);
		}
		break;
	case W2_CHURN:
		for (k = from; k < to; k++) {
			t = &p->timer[s->id[k]];
			rbp_erase(p, t);
			rbp_insert(p, t, s->t[k]);
		}
		break;
	case W3_REFRESH:
	case W3_MOVE:
		for (k = from; k < to; k++) {
			e = s->id[k];
			if (e != BENCH_ADVANCE) {
				rbp_erase(p, &p->timer[e]);
				rbp_insert(p, &p->timer[e], s->t[k]);
				continue;
			}
			x = o->n;
			rbp_expire(p, s->t[k], o);
			for (; x < o->n; x++)
				rbp_insert(p, &p->timer[o->id[x]],
					   w3_restart(o->id[x], s->t[k]));
		}
		break;
	default:
		for (k = from; k < to; k++) {
			for (e = 0; e < s->n; e++)
				rbp_insert(p, &p->timer[e], s->t[k]);
			rbp_expire(p, s->t[k] + 1, o);
		}
		break;
	}
}

static void rbp_drain(void *arg, const struct seq *s, struct out *o)
{
	(void)s;
	rbp_expire(arg, UINT64_MAX, o);
}

static size_t rbp_elem_bytes(void)
{
	return sizeof(struct rb_timer);
}

const struct peer peer_rbtree = {
	.name = "rbtree",
	.how = "the kernel's lib/rbtree.c (tools/lib), leftmost cached: insert by descent, delete-min = erase leftmost",
	.fifo = true,
	.can = rbp_can,
	.create = rbp_create,
	.destroy = rbp_destroy,
	.run = rbp_run,
	.drain = rbp_drain,
	.elem_bytes = rbp_elem_bytes,
};
