// SPDX-License-Identifier: GPL-2.0
/*
 * The floor: a bare hashed timing wheel (Varghese and Lauck's scheme 6),
 * 1024 buckets of circular doubly linked lists with 32-byte nodes; time t
 * goes to bucket t % 1024, at the tail. No counts, no bitmaps, no heads,
 * no minimum. Start, stop and move are a link and an unlink: what any
 * list-based O(1) timer queue must at least pay.
 *
 * It has no minimum: it would expire the way a wheel does, the clock
 * moving one tick at a time and each tick walking its bucket for the
 * nodes of that very time, so delete-min and expiry would cost the ticks
 * passed and the nodes walked (N / 1024 a tick), not the nodes fired.
 * The bench runs it where it is a floor: churn (W2) and refresh moves
 * (W3 moves). Equal times are in insertion order in their bucket.
 */
#include <stdlib.h>

#include "bench.h"

#define WHEEL_BUCKETS	1024

/* A list link; a bucket is a sentinel link, 16 bytes. */
struct wlink {
	struct wlink	*next, *prev;
};

struct wnode {
	struct wlink	link;
	uint64_t	time;
	uint64_t	unused;		/* 32 bytes, as timeq's node */
};

struct wheel {
	struct wlink	bucket[WHEEL_BUCKETS];
	struct wnode	*node;
};

/* A floor for what is a link and an unlink: churn and refresh moves. */
static bool wheel_can(enum workload wl)
{
	return wl == W2_CHURN || wl == W3_MOVE;
}

static inline void wnode_link(struct wheel *w, struct wnode *n, uint64_t t)
{
	struct wlink *head = &w->bucket[t % WHEEL_BUCKETS];

	n->time = t;
	n->link.next = head;
	n->link.prev = head->prev;
	head->prev->next = &n->link;
	head->prev = &n->link;
}

static inline void wnode_unlink(struct wnode *n)
{
	n->link.next->prev = n->link.prev;
	n->link.prev->next = n->link.next;
}

static void *wheel_create(const struct seq *s)
{
	struct wheel *w = calloc(1, sizeof(*w));
	uint32_t i;

	if (!w)
		abort();
	for (i = 0; i < WHEEL_BUCKETS; i++)
		w->bucket[i].next = w->bucket[i].prev = &w->bucket[i];
	w->node = calloc(s->n, sizeof(*w->node));
	if (!w->node)
		abort();
	if (s->init)
		for (i = 0; i < s->n; i++)
			wnode_link(w, &w->node[i], s->init[i]);
	return w;
}

static void wheel_destroy(void *arg)
{
	struct wheel *w = arg;

	free(w->node);
	free(w);
}

static void wheel_run(void *arg, const struct seq *s, uint64_t from,
		      uint64_t to, struct out *o)
{
	struct wheel *w = arg;
	struct wnode *n;
	uint64_t k;

	(void)o;
	/* W2 and W3 moves alike: unlink, then link at the new time. */
	for (k = from; k < to; k++) {
		n = &w->node[s->id[k]];
		wnode_unlink(n);
		wnode_link(w, n, s->t[k]);
	}
}

struct wsorted {
	uint64_t	time;
	uint32_t	order;		/* bucket by bucket, in list order */
	uint32_t	id;
};

static int wsorted_cmp(const void *a, const void *b)
{
	const struct wsorted *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Everything, in order, for the final check. Ticking would walk N / 1024
 * nodes a tick over the whole window; instead sort what the buckets hold.
 * Equal times share a bucket, so their list order (insertion order) is
 * kept by sorting on (time, position).
 */
static void wheel_drain(void *arg, const struct seq *s, struct out *o)
{
	struct wsorted *all = malloc(s->n * sizeof(*all));
	struct wheel *w = arg;
	struct wlink *l;
	uint32_t b, i = 0;

	if (!all)
		abort();
	for (b = 0; b < WHEEL_BUCKETS; b++) {
		for (l = w->bucket[b].next; l != &w->bucket[b] && i < s->n;
		     l = l->next, i++) {
			all[i].time = ((struct wnode *)l)->time;
			all[i].order = i;
			all[i].id = (struct wnode *)l - w->node;
		}
		w->bucket[b].next = w->bucket[b].prev = &w->bucket[b];
	}
	qsort(all, i, sizeof(*all), wsorted_cmp);
	for (b = 0; b < i; b++)
		out_add(o, all[b].time, all[b].id);
	free(all);
}

static size_t wheel_elem_bytes(void)
{
	return sizeof(struct wnode);
}

const struct peer peer_wheel = {
	.name = "wheel",
	.how = "the floor: 1024 hashed buckets, link/unlink; churn and refresh moves only (no minimum)",
	.fifo = true,
	.can = wheel_can,
	.create = wheel_create,
	.destroy = wheel_destroy,
	.run = wheel_run,
	.drain = wheel_drain,
	.elem_bytes = wheel_elem_bytes,
};
