// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace tests of module/queue.c, built against compat.h: directed tests
 * of every operation's edges and errors, tests that corrupt a queue and
 * expect timeq_check() to say so, and the differential run against the
 * reference model over many shapes and seeds. Output is TAP.
 *
 *	test_queue [--quick] [--seeds N] [--ops N] [--shape NAME --seed S]
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#ifndef TIMEQ_DEBUG_FIFO
static_assert(sizeof(struct timeq_node) <= 32, "the node is at most 32 bytes");
#endif

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

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("# %s:%d: CHECK(%s) failed\n",		\
			       __FILE__, __LINE__, #cond);		\
			return -1;					\
		}							\
	} while (0)

/* A queue and some nodes, with checks after every step. */
struct fixture {
	struct timeq	*q;
	struct elem	e[64];
};

static int fixture_start(struct fixture *f, u64 now, u64 horizon,
			 unsigned int delta, unsigned int nbuckets)
{
	unsigned int i;

	f->q = timeq_create(now, horizon, delta, nbuckets, GFP_KERNEL);
	if (IS_ERR(f->q))
		return -1;
	for (i = 0; i < 64; i++) {
		timeq_node_init(&f->e[i].node);
		f->e[i].id = i;
	}
	return 0;
}

static int sound(const struct timeq *q)
{
	char why[256];

	if (timeq_check(q, why, sizeof(why))) {
		printf("# timeq_check: %s\n", why);
		return 0;
	}
	return 1;
}

static int id_of(const struct timeq_node *node)
{
	return node ? (int)container_of(node, struct elem, node)->id : -1;
}

/* --- creation --- */

static int test_create_params(void)
{
	static const struct { u64 h; unsigned int delta, m; } bad[] = {
		{ 0, 0, 0 }, { (1ULL << 40) + 1, 0, 0 }, { 16, 3, 0 },
		{ 16, 0, 6 }, { 17, 4, 4 }, { 16, 1U << 21, 0 },
		{ 16, 0, 1U << 21 }, { 1ULL << 40, 1, 0 }, { 1ULL << 40, 0, 1 },
	};
	static const struct { u64 h; unsigned int delta, m; } good[] = {
		{ 1, 0, 0 }, { 1, 1, 1 }, { 2, 2, 1 }, { 2, 1, 2 }, { 13, 4, 4 },
		{ 1000, 0, 0 }, { 1000, 8, 0 }, { 1000, 0, 8 },
		{ 1ULL << 40, 0, 0 }, { 3, 0, 0 },
	};
	struct timeq *q;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		q = timeq_create(7, bad[i].h, bad[i].delta, bad[i].m, GFP_KERNEL);
		CHECK(q == ERR_PTR(-EINVAL));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		u64 delta, m;

		/* 2^40 with 2^20 x 2^20 would take 48 MiB: shape only. */
		if (good[i].h == 1ULL << 40)
			continue;
		q = timeq_create(7, good[i].h, good[i].delta, good[i].m, GFP_KERNEL);
		CHECK(!IS_ERR(q));
		delta = 1ULL << q->delta_shift;
		m = 1ULL << q->buckets_shift;
		CHECK(delta * m >= good[i].h);
		CHECK(!good[i].delta || delta == good[i].delta);
		CHECK(!good[i].m || m == good[i].m);
		/* Chosen values are near sqrt(horizon): neither more than twice the other. */
		if (!good[i].delta && !good[i].m)
			CHECK(delta <= m && m <= 2 * delta);
		CHECK(timeq_now(q) == 7 && timeq_count(q) == 0 && !timeq_min(q));
		CHECK(sound(q));
		timeq_destroy(q);
	}
	timeq_destroy(NULL);
	return 0;
}

static int test_create_nomem(void)
{
	struct timeq *q;
	long fail;

	for (fail = 1; fail <= 2; fail++) {
		compat_fail_countdown = fail;
		q = timeq_create(0, 1000, 0, 0, GFP_KERNEL);
		compat_fail_countdown = 0;
		CHECK(q == ERR_PTR(-ENOMEM));
	}
	return 0;	/* the harness checks that nothing leaked */
}

/* --- the operations and their errors --- */

static int test_insert_errors(void)
{
	struct fixture f;

	CHECK(!fixture_start(&f, 5, 16, 4, 4));
	CHECK(timeq_insert(f.q, &f.e[0].node, 9) == 0);
	/* Queued: EBUSY, and it stays where it was. */
	CHECK(timeq_insert(f.q, &f.e[0].node, 10) == -EBUSY);
	CHECK(timeq_node_time(&f.e[0].node) == 9 && timeq_count(f.q) == 1);
	/* Outside [5, 21): ERANGE, nothing changes. */
	CHECK(timeq_insert(f.q, &f.e[1].node, 4) == -ERANGE);
	CHECK(timeq_insert(f.q, &f.e[1].node, 21) == -ERANGE);
	CHECK(timeq_insert(f.q, &f.e[1].node, ~0ULL) == -ERANGE);
	CHECK(!timeq_node_queued(&f.e[1].node) && timeq_count(f.q) == 1);
	CHECK(sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

static int test_delete_errors(void)
{
	struct fixture f, g;

	CHECK(!fixture_start(&f, 0, 16, 4, 4));
	CHECK(!fixture_start(&g, 0, 16, 4, 4));
	CHECK(timeq_delete(f.q, &f.e[0].node) == -ENOENT);
	CHECK(timeq_insert(g.q, &f.e[0].node, 3) == 0);
	/* In another queue: not ours, ENOENT, and neither queue changes. */
	CHECK(timeq_delete(f.q, &f.e[0].node) == -ENOENT);
	CHECK(timeq_update(f.q, &f.e[0].node, 4) == -ENOENT);
	CHECK(timeq_insert(f.q, &f.e[0].node, 4) == -EBUSY);
	CHECK(timeq_count(g.q) == 1 && timeq_node_time(&f.e[0].node) == 3);
	CHECK(timeq_delete(g.q, &f.e[0].node) == 0);
	CHECK(timeq_delete(g.q, &f.e[0].node) == -ENOENT);
	CHECK(timeq_count(g.q) == 0 && !timeq_min(g.q));
	CHECK(sound(f.q) && sound(g.q));
	timeq_destroy(f.q);
	timeq_destroy(g.q);
	return 0;
}

static int test_update_errors(void)
{
	struct fixture f;

	CHECK(!fixture_start(&f, 0, 16, 4, 4));
	CHECK(timeq_update(f.q, &f.e[0].node, 3) == -ENOENT);
	CHECK(!timeq_node_queued(&f.e[0].node));
	CHECK(timeq_insert(f.q, &f.e[0].node, 3) == 0);
	CHECK(timeq_insert(f.q, &f.e[1].node, 3) == 0);
	/* A refused update keeps the node's place among equals. */
	CHECK(timeq_update(f.q, &f.e[0].node, 16) == -ERANGE);
	CHECK(timeq_node_time(&f.e[0].node) == 3);
	CHECK(id_of(timeq_min(f.q)) == 0);
	CHECK(sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

static int test_empty(void)
{
	struct fixture f;

	CHECK(!fixture_start(&f, 42, 16, 4, 4));
	CHECK(!timeq_min(f.q) && !timeq_delete_min(f.q));
	CHECK(timeq_now(f.q) == 42);
	CHECK(timeq_del_less_than(f.q, 42, NULL, NULL) == 0 && timeq_now(f.q) == 42);
	CHECK(timeq_del_less_than(f.q, 10, NULL, NULL) == 0 && timeq_now(f.q) == 42);
	CHECK(timeq_del_less_than(f.q, 43, NULL, NULL) == 0 && timeq_now(f.q) == 43);
	CHECK(sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

/*
 * Equal times leave in insertion order; an update is a new insertion, even
 * to the same time.
 */
static int test_fifo_equal_times(void)
{
	static const int want[] = { 1, 2, 0, 3 };
	struct fixture f;
	unsigned int i;

	CHECK(!fixture_start(&f, 0, 64, 8, 8));
	for (i = 0; i < 3; i++)
		CHECK(timeq_insert(f.q, &f.e[i].node, 20) == 0);
	CHECK(timeq_insert(f.q, &f.e[3].node, 30) == 0);
	CHECK(timeq_update(f.q, &f.e[0].node, 20) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(id_of(timeq_delete_min(f.q)) == want[i]);
		CHECK(sound(f.q));
	}
	CHECK(timeq_now(f.q) == 30);
	timeq_destroy(f.q);
	return 0;
}

/*
 * Nodes pulled from a bucket list into head2 stay ahead of nodes inserted
 * into head2 directly, whichever delete_min pulled them:
 *
 *	now 0, delta 4: buckets[2] = [x0 x1 x2 x3 x4] (all time 9)
 *	del_less_than(4): now 4, head = [h]; 2 of the 5 go to head2 front
 *	insert y at 9: head2[1] = [x3 x4 y]
 *	delete_min (h): head empty, the rest go in front: [x0 .. x4 y]
 */
static int test_fifo_pulled_before_direct(void)
{
	struct fixture f;
	unsigned int i;

	CHECK(!fixture_start(&f, 0, 16, 4, 4));
	for (i = 0; i < 5; i++)
		CHECK(timeq_insert(f.q, &f.e[i].node, 9) == 0);
	CHECK(timeq_insert(f.q, &f.e[10].node, 5) == 0);
	CHECK(timeq_del_less_than(f.q, 4, NULL, NULL) == 0);
	CHECK(f.q->head.count == 1 && f.q->head2.count == 2);
	CHECK(sound(f.q));
	CHECK(timeq_insert(f.q, &f.e[5].node, 9) == 0);
	CHECK(id_of(timeq_delete_min(f.q)) == 10);
	CHECK(f.q->head2.count == 6);
	for (i = 0; i < 6; i++) {
		CHECK(id_of(timeq_delete_min(f.q)) == (int)i);
		CHECK(sound(f.q));
	}
	timeq_destroy(f.q);
	return 0;
}

/*
 * Every time of the window is accepted whatever the alignment of now,
 * including now + horizon - 1, which sits a full revolution ahead in the
 * bucket list of the current bucket; and they leave in order.
 */
static int test_window_edges(void)
{
	struct fixture f;
	u64 now, t;

	for (now = 0; now < 9; now++) {
		CHECK(!fixture_start(&f, now, 16, 4, 4));
		CHECK(timeq_insert(f.q, &f.e[0].node, now - 1) == (now ? -ERANGE : -ERANGE));
		CHECK(timeq_insert(f.q, &f.e[0].node, now + 16) == -ERANGE);
		for (t = now + 15; t + 1 > now; t--)
			CHECK(timeq_insert(f.q, &f.e[t - now].node, t) == 0);
		CHECK(sound(f.q));
		for (t = now; t < now + 16; t++) {
			CHECK(id_of(timeq_delete_min(f.q)) == (int)(t - now));
			CHECK(timeq_now(f.q) == t && sound(f.q));
		}
		timeq_destroy(f.q);
	}
	return 0;
}

static int test_window_top(void)
{
	struct fixture f;

	/* Near the end of time: the window is cut at U64_MAX, nothing wraps. */
	CHECK(!fixture_start(&f, ~0ULL - 3, 16, 4, 4));
	CHECK(timeq_insert(f.q, &f.e[0].node, ~0ULL) == 0);
	CHECK(timeq_insert(f.q, &f.e[1].node, ~0ULL - 3) == 0);
	CHECK(timeq_insert(f.q, &f.e[2].node, ~0ULL - 4) == -ERANGE);
	CHECK(timeq_del_less_than(f.q, ~0ULL, NULL, NULL) == 1);
	CHECK(timeq_now(f.q) == ~0ULL && sound(f.q));
	CHECK(timeq_insert(f.q, &f.e[1].node, ~0ULL) == 0);
	CHECK(id_of(timeq_delete_min(f.q)) == 0);
	CHECK(id_of(timeq_delete_min(f.q)) == 1);
	CHECK(timeq_now(f.q) == ~0ULL && sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

/* An insert before the cached minimum becomes the minimum; deleting it finds the old one. */
static int test_insert_before_min(void)
{
	struct fixture f;

	CHECK(!fixture_start(&f, 0, 1024, 32, 32));
	CHECK(timeq_insert(f.q, &f.e[0].node, 900) == 0);
	CHECK(timeq_insert(f.q, &f.e[1].node, 901) == 0);
	CHECK(timeq_insert(f.q, &f.e[2].node, 900) == 0);
	CHECK(id_of(timeq_delete_min(f.q)) == 0 && timeq_now(f.q) == 900);
	CHECK(timeq_insert(f.q, &f.e[3].node, 1500) == 0);
	CHECK(timeq_insert(f.q, &f.e[4].node, 900) == 0);
	CHECK(id_of(timeq_min(f.q)) == 2);
	CHECK(timeq_delete(f.q, &f.e[2].node) == 0);
	CHECK(id_of(timeq_min(f.q)) == 4);
	CHECK(timeq_del_less_than(f.q, 901, NULL, NULL) == 1);
	CHECK(timeq_insert(f.q, &f.e[5].node, 901) == 0);
	/* Gap: the minimum far away, then one before it, then it goes. */
	CHECK(timeq_delete(f.q, &f.e[1].node) == 0);
	CHECK(timeq_delete(f.q, &f.e[5].node) == 0);
	CHECK(id_of(timeq_min(f.q)) == 3);
	CHECK(timeq_insert(f.q, &f.e[6].node, 1000) == 0);
	CHECK(id_of(timeq_min(f.q)) == 6 && sound(f.q));
	CHECK(timeq_update(f.q, &f.e[6].node, 1600) == 0);
	CHECK(id_of(timeq_min(f.q)) == 3 && sound(f.q));
	CHECK(timeq_update(f.q, &f.e[3].node, 1600) == 0);
	CHECK(id_of(timeq_min(f.q)) == 6 && sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

struct expiry {
	struct timeq	*q;
	int		ids[64];
	unsigned int	n;
	unsigned int	rearm;	/* re-insert this many times, 5 ticks on */
	bool		bad;
};

static void expire(struct timeq_node *node, void *arg)
{
	struct expiry *x = arg;

	if (timeq_node_queued(node) || timeq_now(x->q) != timeq_node_time(node) ||
	    x->n == 64)
		x->bad = true;
	else
		x->ids[x->n++] = id_of(node);
	if (x->rearm) {
		x->rearm--;
		if (timeq_insert(x->q, node, timeq_node_time(node) + 5))
			x->bad = true;
	}
	if (!sound(x->q))
		x->bad = true;
}

static int test_del_less_than(void)
{
	struct expiry x = { };
	struct fixture f;
	unsigned int i;

	CHECK(!fixture_start(&f, 3, 256, 16, 16));
	x.q = f.q;
	for (i = 0; i < 20; i++)
		CHECK(timeq_insert(f.q, &f.e[i].node, 3 + 11 * i) == 0);
	/* t <= now: nothing. */
	CHECK(timeq_del_less_than(f.q, 3, expire, &x) == 0 && x.n == 0);
	/* t = first time: nothing either; one past it: exactly it. */
	CHECK(timeq_del_less_than(f.q, 3, expire, &x) == 0);
	CHECK(timeq_del_less_than(f.q, 4, expire, &x) == 1 && x.ids[0] == 0);
	CHECK(timeq_now(f.q) == 4 && sound(f.q));
	/* Callbacks in time order; a callback may re-insert. */
	x.n = 0;
	x.rearm = 2;
	CHECK(timeq_del_less_than(f.q, 30, expire, &x) == 4 && !x.bad);
	{
		/* id 1 at 14, re-armed at 19 and 24; id 2 at 25 */
		static const int want[] = { 1, 1, 1, 2 };

		for (i = 0; i < 4; i++)
			CHECK(x.ids[i] == want[i]);
	}
	CHECK(timeq_now(f.q) == 30 && sound(f.q));
	/* Far beyond the horizon: everything goes, now jumps. */
	x.n = 0;
	CHECK(timeq_del_less_than(f.q, 1ULL << 50, expire, &x) == 17 && !x.bad);
	for (i = 1; i < x.n; i++)
		CHECK(timeq_node_time(&f.e[x.ids[i - 1]].node) <=
		      timeq_node_time(&f.e[x.ids[i]].node));
	CHECK(timeq_count(f.q) == 0 && timeq_now(f.q) == 1ULL << 50);
	CHECK(!timeq_min(f.q) && sound(f.q));
	CHECK(timeq_insert(f.q, &f.e[0].node, (1ULL << 50) + 255) == 0);
	CHECK(sound(f.q));
	timeq_destroy(f.q);
	return 0;
}

static int test_destroy_releases(void)
{
	struct fixture f;
	unsigned int i;

	CHECK(!fixture_start(&f, 0, 64, 8, 8));
	for (i = 0; i < 30; i++)
		CHECK(timeq_insert(f.q, &f.e[i].node, (i * 7) % 64) == 0);
	timeq_destroy(f.q);
	for (i = 0; i < 30; i++)
		CHECK(!timeq_node_queued(&f.e[i].node));
	/* Released nodes go into another queue as if new. */
	CHECK(!fixture_start(&f, 0, 64, 8, 8));
	timeq_destroy(f.q);
	return 0;
}

/* --- the checker finds what is wrong --- */

/* A queue with nodes in head, head2 and buckets, some at equal times. */
static int corrupt_start(struct fixture *f)
{
	static const u64 times[] = { 2, 2, 3, 5, 5, 6, 9, 13, 13, 14 };
	unsigned int i;

	CHECK(!fixture_start(f, 1, 16, 4, 4));
	for (i = 0; i < 10; i++)
		CHECK(timeq_insert(f->q, &f->e[i].node, times[i]) == 0);
	CHECK(sound(f->q));
	return 0;
}

static int expect_broken(struct fixture *f, const char *word)
{
	char why[256] = "";

	CHECK(timeq_check(f->q, why, sizeof(why)) == -EUCLEAN);
	if (!strstr(why, word)) {
		printf("# timeq_check said \"%s\", wanted \"%s\"\n", why, word);
		return -1;
	}
	return 0;
}

static int test_check_catches(void)
{
	struct timeq_node *node;
	struct list_head *saved;
	struct fixture f;
	unsigned long w;

	CHECK(!corrupt_start(&f));

	/* A time changed behind the queue's back. */
	f.e[7].node.time = 6;
	CHECK(!expect_broken(&f, "misplaced"));
	f.e[7].node.time = 13;

	/* A bitmap bit lost, at the bottom level and above. */
	w = f.q->head.map.level[0][0];
	f.q->head.map.level[0][0] = 0;
	CHECK(!expect_broken(&f, "bitmap"));
	f.q->head.map.level[0][0] = w;
	f.q->bucket_map.level[0][0] |= BIT(0);
	CHECK(!expect_broken(&f, "bitmap"));
	f.q->bucket_map.level[0][0] &= ~BIT(0);

	/* Counts off. */
	f.q->count++;
	CHECK(!expect_broken(&f, "count"));
	f.q->count--;
	f.q->bucket_count[3]++;
	CHECK(!expect_broken(&f, "count"));
	f.q->bucket_count[3]--;
	f.q->head2.count--;
	CHECK(!expect_broken(&f, "count"));
	f.q->head2.count++;

	/* The cached minimum not the first of the earliest time. */
	f.q->min = &f.e[1].node;
	CHECK(!expect_broken(&f, "min"));
	f.q->min = &f.e[0].node;

#ifdef TIMEQ_DEBUG_FIFO
	/* Equal times out of insertion order: only seen with sequence numbers. */
	node = &f.e[3].node;
	list_move(&node->entry, node->entry.next);
	CHECK(!expect_broken(&f, "insertion order"));
	list_move(&f.e[4].node.entry, f.e[4].node.entry.next);
#endif

	/* A node marked as in a bucket while in a head. */
	f.e[2].node.owner &= ~TIMEQ_NODE_IN_HEAD;
	CHECK(!expect_broken(&f, "owner"));
	f.e[2].node.owner |= TIMEQ_NODE_IN_HEAD;

	/* A broken back link. */
	saved = f.e[8].node.entry.prev;
	f.e[8].node.entry.prev = &f.e[9].node.entry;
	CHECK(!expect_broken(&f, "link"));
	f.e[8].node.entry.prev = saved;

	CHECK(sound(f.q));
	timeq_destroy(f.q);

	/* Head empty while the next bucket still has a node in its bucket list. */
	CHECK(!fixture_start(&f, 0, 16, 4, 4));
	CHECK(timeq_insert(f.q, &f.e[0].node, 5) == 0);
	node = &f.e[0].node;
	list_move(&node->entry, &f.q->buckets[1]);
	f.q->head2.map.level[0][0] = 0;	/* 4 lists: one level */
	f.q->head2.count = 0;
	f.q->bucket_map.level[0][0] = BIT(1);
	f.q->bucket_count[1] = 1;
	node->owner &= ~TIMEQ_NODE_IN_HEAD;
	CHECK(!expect_broken(&f, "head empty"));
	timeq_destroy(f.q);
	return 0;
}

/* --- the differential run --- */

static const struct shape shapes[] = {
	{ "1x1",	1,	1,	1,	8 },
	{ "1x2",	2,	1,	2,	8 },
	{ "2x1",	2,	2,	1,	8 },
	{ "2x2",	4,	2,	2,	16 },
	{ "4x4",	16,	4,	4,	32 },
	{ "4x4/h13",	13,	4,	4,	32 },
	{ "8x2",	16,	8,	2,	32 },
	{ "16x64/h1000", 1000,	16,	64,	64 },
	{ "auto/h3",	3,	0,	0,	8 },
	{ "auto/h1000",	1000,	0,	0,	128 },
	{ "64x8/h500",	500,	64,	8,	256 },
	{ "16x16/dense", 256,	16,	16,	1024 },
	{ "1024x1024",	1 << 20, 1024,	1024,	2048 },
	{ "1024x1024/h1000003", 1000003, 1024, 1024, 512 },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* The starting clock of a seed: zero, small, unaligned, or near the top. */
static u64 start_now(u64 seed, u64 horizon)
{
	u64 rng = seed ^ 0x5eed;

	switch (seed % 4) {
	case 0: return 0;
	case 1: return diff_rand(&rng) % 1000;
	case 2: return diff_rand(&rng) >> 24;
	default: return ~0ULL - diff_rand(&rng) % (4 * horizon);
	}
}

static unsigned long long total_steps, total_sizes;
static unsigned long total_tried[OP_KINDS], total_done[OP_KINDS];

static int run_seed(const struct shape *shape, u64 seed, size_t nops)
{
	u64 rng = seed, now = start_now(seed, shape->horizon);
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

	for (i = 0; i < NSHAPES; i++) {
		const struct shape *shape = &shapes[i];

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
		run("create: bad parameters refused, chosen ones cover", test_create_params);
		run("create: ENOMEM unwinds", test_create_nomem);
		run("insert: EBUSY, ERANGE change nothing", test_insert_errors);
		run("delete: ENOENT for idle and foreign nodes", test_delete_errors);
		run("update: ENOENT, ERANGE keep the node's place", test_update_errors);
		run("empty queue: min, delete_min, del_less_than", test_empty);
		run("fifo: equal times, update is a new insertion", test_fifo_equal_times);
		run("fifo: pulled nodes stay ahead of direct inserts", test_fifo_pulled_before_direct);
		run("window: every time accepted whatever now's alignment", test_window_edges);
		run("window: near U64_MAX", test_window_top);
		run("min: inserts before it, deletes and updates of it", test_insert_before_min);
		run("del_less_than: edges, order, re-arming callbacks, far jumps", test_del_less_than);
		run("destroy: queued nodes released", test_destroy_releases);
		run("check: catches planted corruption", test_check_catches);
	}
	run_differential(seeds, nops, only, one_seed);
	printf("1..%u\n", tap_count);
	printf("# %u passed, %u failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
