// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the two-head calendar queue (module/queue.c): the contract
 * of every operation and error code, FIFO among equal times, the window
 * edges with unaligned clocks, timeq_check() catching planted corruption,
 * and a seeded differential run against the reference model (queue_model.c)
 * with timeq_check() after every step.
 *
 * The same file runs in userspace: tools/testing/queue builds it against a
 * stand-in for <kunit/test.h>, under sanitizers and valgrind.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timeq.h>

#include "../module/queue.h"
#include "fifo.h"
#include "queue_diff.h"

#define NODES	64

/* A queue and NODES nodes, both freed when the test ends. */
struct fixture {
	struct timeq	*q;
	struct elem	*e;
};

static void destroy_queue(void *q)
{
	timeq_destroy(q);
}

static struct timeq *new_queue(struct kunit *test, u64 now, u64 horizon,
			       unsigned int delta, unsigned int nbuckets)
{
	struct timeq *q = timeq_create(now, horizon, delta, nbuckets, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, destroy_queue, q), 0);
	return q;
}

/* Nodes first, queue second: actions run in reverse, so the queue goes first. */
static void fixture_start(struct kunit *test, struct fixture *f, u64 now,
			  u64 horizon, unsigned int delta, unsigned int nbuckets)
{
	unsigned int i;

	f->e = kunit_kcalloc(test, NODES, sizeof(*f->e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->e);
	for (i = 0; i < NODES; i++) {
		timeq_node_init(&f->e[i].node);
		f->e[i].id = i;
	}
	f->q = new_queue(test, now, horizon, delta, nbuckets);
}

static int id_of(const struct timeq_node *node)
{
	return node ? (int)container_of(node, struct elem, node)->id : -1;
}

#define EXPECT_SOUND(test, q)							\
	do {									\
		char why_[128] = "";						\
		int err_ = timeq_check(q, why_, sizeof(why_));			\
		KUNIT_EXPECT_EQ_MSG(test, err_, 0, "timeq_check: %s", why_);	\
	} while (0)

/* --- creation --- */

struct shape_args {
	u64		horizon;
	unsigned int	delta, nbuckets;
};

static void queue_test_create_bad(struct kunit *test)
{
	static const struct shape_args bad[] = {
		{ 0, 0, 0 },	      { (1ULL << 40) + 1, 0, 0 },
		{ 16, 3, 0 },	      { 16, 0, 6 },
		{ 18, 4, 4 },	      { 16, 1U << 21, 0 },
		{ 16, 0, 1U << 21 },  { 1ULL << 40, 1, 0 },
		{ 1ULL << 40, 0, 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_PTR_EQ(test, timeq_create(7, bad[i].horizon, bad[i].delta,
						       bad[i].nbuckets, GFP_KERNEL),
				    ERR_PTR(-EINVAL));
	timeq_destroy(NULL);
}

static void queue_test_create_shapes(struct kunit *test)
{
	static const struct shape_args good[] = {
		{ 1, 0, 0 },	{ 1, 1, 1 },	{ 2, 2, 1 },
		{ 2, 1, 2 },	{ 13, 4, 4 },	{ 1000, 0, 0 },
		{ 1000, 8, 0 }, { 1000, 0, 8 }, { 3, 0, 0 },
		{ 17, 4, 4 },	{ 3, 1, 2 },	{ (1ULL << 20) + 1, 0, 0 },
	};
	u64 delta, nbuckets, n, h = (1ULL << 20) + 1, top = 1ULL << 40;
	unsigned int i, ds, bs, cap;
	struct timeq *q;
	bool least;
	int err;

	/*
	 * The rule given a count: the least shape that covers, delta no
	 * wider than the count or a square calendar.
	 */
	for (n = 1; n <= 1 << 24; n <<= 3) {
		err = __timeq_tune(h, n, 1 << 19, &ds, &bs);
		cap = max(10, order_base_2(n));
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_EQ(test, ds + bs, 20);
		KUNIT_EXPECT_LE(test, ds, cap);
	}
	err = __timeq_tune(0, 1, 1, &ds, &bs);
	KUNIT_EXPECT_EQ(test, err, -1);
	err = __timeq_tune(top + 1, 1, 1, &ds, &bs);
	KUNIT_EXPECT_EQ(test, err, -1);
	err = __timeq_tune(top, 1, 1, &ds, &bs);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ds, 20);
	KUNIT_EXPECT_EQ(test, bs, 20);

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		q = new_queue(test, 7, good[i].horizon, good[i].delta,
			      good[i].nbuckets);
		delta = 1ULL << q->delta_shift;
		nbuckets = 1ULL << q->buckets_shift;
		/* Rel 0 is the head, so delta * M covers horizon - 1. */
		KUNIT_EXPECT_LE(test, good[i].horizon, delta * nbuckets + 1);
		KUNIT_EXPECT_TRUE(test, !good[i].delta || delta == good[i].delta);
		KUNIT_EXPECT_TRUE(test,
				  !good[i].nbuckets || nbuckets == good[i].nbuckets);
		/*
		 * Chosen near sqrt(horizon): neither more than twice the
		 * other, and the least that covers (2^20 + 1 takes 2^20, not
		 * 2^21 with half the calendar never used).
		 */
		if (!good[i].delta && !good[i].nbuckets) {
			KUNIT_EXPECT_LE(test, delta, nbuckets);
			KUNIT_EXPECT_LE(test, nbuckets, 2 * delta);
			least = delta * nbuckets == 1 ||
				delta * nbuckets / 2 + 1 < good[i].horizon;
			KUNIT_EXPECT_TRUE(test, least);
		}
		KUNIT_EXPECT_EQ(test, timeq_now(q), 7);
		KUNIT_EXPECT_EQ(test, timeq_count(q), 0);
		KUNIT_EXPECT_NULL(test, timeq_min(q));
		EXPECT_SOUND(test, q);
	}
}

/* --- the operations and their errors --- */

static void queue_test_insert_errors(struct kunit *test)
{
	struct fixture f;

	fixture_start(test, &f, 5, 16, 4, 4);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 9), 0);
	/* Queued: EBUSY, and it stays where it was. */
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 10), -EBUSY);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&f.e[0].node), 9);
	/* Outside [5, 21): ERANGE, nothing changes. */
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, 4), -ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, 21), -ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, ~0ULL), -ERANGE);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&f.e[1].node));
	KUNIT_EXPECT_EQ(test, timeq_count(f.q), 1);
	EXPECT_SOUND(test, f.q);
}

static void queue_test_delete_errors(struct kunit *test)
{
	struct fixture f, g;

	fixture_start(test, &f, 0, 16, 4, 4);
	fixture_start(test, &g, 0, 16, 4, 4);
	KUNIT_EXPECT_EQ(test, timeq_delete(f.q, &f.e[0].node), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_insert(g.q, &f.e[0].node, 3), 0);
	/* In another queue: not ours, and neither queue changes. */
	KUNIT_EXPECT_EQ(test, timeq_delete(f.q, &f.e[0].node), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[0].node, 4), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 4), -EBUSY);
	KUNIT_EXPECT_EQ(test, timeq_count(g.q), 1);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&f.e[0].node), 3);
	KUNIT_EXPECT_EQ(test, timeq_delete(g.q, &f.e[0].node), 0);
	KUNIT_EXPECT_EQ(test, timeq_delete(g.q, &f.e[0].node), -ENOENT);
	KUNIT_EXPECT_EQ(test, timeq_count(g.q), 0);
	KUNIT_EXPECT_NULL(test, timeq_min(g.q));
	EXPECT_SOUND(test, f.q);
	EXPECT_SOUND(test, g.q);
}

static void queue_test_update_errors(struct kunit *test)
{
	struct fixture f;

	fixture_start(test, &f, 0, 16, 4, 4);
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[0].node, 3), -ENOENT);
	KUNIT_EXPECT_FALSE(test, timeq_node_queued(&f.e[0].node));
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 3), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, 3), 0);
	/* A refused update keeps the node's place among equals. */
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[0].node, 16), -ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_node_time(&f.e[0].node), 3);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 0);
	EXPECT_SOUND(test, f.q);
}

static void queue_test_empty(struct kunit *test)
{
	struct fixture f;

	fixture_start(test, &f, 42, 16, 4, 4);
	KUNIT_EXPECT_NULL(test, timeq_min(f.q));
	KUNIT_EXPECT_NULL(test, timeq_delete_min(f.q));
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 42);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 42, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 10, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 42);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 43, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 43);
	EXPECT_SOUND(test, f.q);
}

/* Equal times leave in insertion order; an update is a new insertion. */
static void queue_test_fifo_equal_times(struct kunit *test)
{
	static const int want[] = { 1, 2, 0, 3 };
	struct fixture f;
	unsigned int i;

	fixture_start(test, &f, 0, 64, 8, 8);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[i].node, 20), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[3].node, 30), 0);
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[0].node, 20), 0);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), want[i]);
		EXPECT_SOUND(test, f.q);
	}
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 30);
}

/*
 * Nodes pulled from a bucket list into head2 stay ahead of nodes inserted
 * into head2 directly, whichever call pulled them:
 *
 *	now 0, delta 4: buckets[2] = [x0 x1 x2 x3 x4]     (all time 9)
 *	del_less_than(4): now 4, head = [h]; ceil(5 / 4) = 2 pulled:
 *			  head2[1] = [x3 x4]
 *	insert y at 9:	  head2[1] = [x3 x4 y]
 *	delete_min (h):	  head empty, the rest pulled in front:
 *			  head2[1] = [x0 x1 x2 x3 x4 y]
 */
static void queue_test_fifo_pulled_before_direct(struct kunit *test)
{
	struct fixture f;
	unsigned int i;

	fixture_start(test, &f, 0, 16, 4, 4);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[i].node, 9), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[10].node, 5), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 4, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, f.q->head->count, 1);
	KUNIT_EXPECT_EQ(test, f.q->head2->count, 2);
	EXPECT_SOUND(test, f.q);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[5].node, 9), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 10);
	KUNIT_EXPECT_EQ(test, f.q->head2->count, 6);
	for (i = 0; i < 6; i++) {
		KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), i);
		EXPECT_SOUND(test, f.q);
	}
}

/*
 * Every time of the window is accepted whatever the alignment of now,
 * including now + horizon - 1, a full revolution ahead in the bucket list
 * of the current bucket; and they leave in order.
 */
static void queue_test_window_edges(struct kunit *test)
{
	struct fixture f;
	u64 now, t;

	for (now = 0; now < 9; now++) {
		fixture_start(test, &f, now, 16, 4, 4);
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, now - 1), -ERANGE);
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, now + 16), -ERANGE);
		for (t = now + 15; t + 1 > now; t--)
			KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[t - now].node, t), 0);
		EXPECT_SOUND(test, f.q);
		for (t = now; t < now + 16; t++) {
			KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), t - now);
			KUNIT_EXPECT_EQ(test, timeq_now(f.q), t);
		}
		EXPECT_SOUND(test, f.q);
	}
}

/* Near the end of time the window is cut at U64_MAX; nothing wraps. */
static void queue_test_window_top(struct kunit *test)
{
	struct fixture f;

	fixture_start(test, &f, ~0ULL - 3, 16, 4, 4);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, ~0ULL), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, ~0ULL - 3), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[2].node, ~0ULL - 4), -ERANGE);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, ~0ULL, NULL, NULL), 1);
	KUNIT_EXPECT_TRUE(test, timeq_now(f.q) == ~0ULL);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, ~0ULL), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 1);
	KUNIT_EXPECT_TRUE(test, timeq_now(f.q) == ~0ULL);
	EXPECT_SOUND(test, f.q);
}

/*
 * An insert before the cached minimum becomes the minimum; removing or
 * moving the minimum finds the next one, also across an empty gap.
 */
static void queue_test_min_moves(struct kunit *test)
{
	struct fixture f;

	fixture_start(test, &f, 0, 1024, 32, 32);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 900), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[1].node, 901), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[2].node, 900), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 0);
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 900);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[3].node, 1500), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[4].node, 900), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 2);
	KUNIT_EXPECT_EQ(test, timeq_delete(f.q, &f.e[2].node), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 4);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 901, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[5].node, 901), 0);
	/* Only a far node left: then one before it, which moves away again. */
	KUNIT_EXPECT_EQ(test, timeq_delete(f.q, &f.e[1].node), 0);
	KUNIT_EXPECT_EQ(test, timeq_delete(f.q, &f.e[5].node), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 3);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[6].node, 1000), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 6);
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[6].node, 1600), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 3);
	KUNIT_EXPECT_EQ(test, timeq_update(f.q, &f.e[3].node, 1600), 0);
	KUNIT_EXPECT_EQ(test, id_of(timeq_min(f.q)), 6);
	EXPECT_SOUND(test, f.q);
}

/*
 * The focus emptied by deletes keeps its bucket number, which is stale
 * from then on; a bucket list of that number filled again, then reached
 * by the clock, is pulled into the head like any other (PULL_HEAD), not
 * taken for the focus.
 *
 *	bucket 10 (320 .. 351) resolved into the focus, its 40 nodes deleted;
 *	x (330), y (331) in bucket list 10; the clock moved to 320
 */
static void queue_test_focus_emptied(struct kunit *test)
{
	struct fixture f;
	unsigned int i;

	fixture_start(test, &f, 0, 1024, 32, 32);
	for (i = 0; i < 40; i++)
		KUNIT_ASSERT_EQ(test,
				timeq_insert(f.q, &f.e[i].node,
					     320 + (39 - i) % 32),
				0);
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, &f.e[40].node, 5), 0);
	KUNIT_ASSERT_EQ(test, timeq_delete(f.q, &f.e[40].node), 0);
	KUNIT_ASSERT_EQ(test, f.q->focus->count, 40);
	for (i = 0; i < 40; i++)
		KUNIT_ASSERT_EQ(test, timeq_delete(f.q, &f.e[i].node), 0);
	KUNIT_EXPECT_EQ(test, f.q->focus->count, 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[41].node, 330), 0);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[42].node, 331), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 320, NULL, NULL), 0);
	EXPECT_SOUND(test, f.q);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 41);
	KUNIT_EXPECT_EQ(test, id_of(timeq_delete_min(f.q)), 42);
	KUNIT_EXPECT_NULL(test, timeq_min(f.q));
	EXPECT_SOUND(test, f.q);
}

struct expiry {
	struct kunit	*test;
	struct timeq	*q;
	int		ids[NODES];
	unsigned int	n;
	unsigned int	rearm;	/* re-insert this many times, 5 ticks on */
};

static void expire(struct timeq_node *node, void *arg)
{
	struct expiry *x = arg;

	KUNIT_EXPECT_FALSE(x->test, timeq_node_queued(node));
	KUNIT_EXPECT_EQ(x->test, timeq_now(x->q), timeq_node_time(node));
	EXPECT_SOUND(x->test, x->q);
	if (x->n < NODES)
		x->ids[x->n++] = id_of(node);
	if (x->rearm) {
		x->rearm--;
		KUNIT_EXPECT_EQ(x->test, timeq_insert(x->q, node,
						      timeq_node_time(node) + 5), 0);
	}
}

static void queue_test_del_less_than(struct kunit *test)
{
	/* id 1 at 14, re-armed to 19 and 24; id 2 at 25 */
	static const int rearmed[] = { 1, 1, 1, 2 };
	struct expiry *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	struct fixture f;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, x);
	fixture_start(test, &f, 3, 256, 16, 16);
	x->test = test;
	x->q = f.q;
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[i].node, 3 + 11 * i), 0);
	/* t <= now, and t = the first time: nothing. One past it: exactly it. */
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 2, expire, x), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 3, expire, x), 0);
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 4, expire, x), 1);
	KUNIT_EXPECT_EQ(test, x->ids[0], 0);
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 4);
	/* Callbacks in time order; a callback may re-insert. */
	x->n = 0;
	x->rearm = 2;
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 30, expire, x), 4);
	for (i = 0; i < ARRAY_SIZE(rearmed); i++)
		KUNIT_EXPECT_EQ(test, x->ids[i], rearmed[i]);
	KUNIT_EXPECT_EQ(test, timeq_now(f.q), 30);
	/* Far beyond the horizon: everything goes, in order, and now jumps. */
	x->n = 0;
	KUNIT_EXPECT_EQ(test, timeq_del_less_than(f.q, 1ULL << 50, expire, x), 17);
	for (i = 1; i < x->n; i++)
		KUNIT_EXPECT_LE(test, timeq_node_time(&f.e[x->ids[i - 1]].node),
				timeq_node_time(&f.e[x->ids[i]].node));
	KUNIT_EXPECT_EQ(test, timeq_count(f.q), 0);
	KUNIT_EXPECT_TRUE(test, timeq_now(f.q) == 1ULL << 50);
	KUNIT_EXPECT_NULL(test, timeq_min(f.q));
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, (1ULL << 50) + 255), 0);
	EXPECT_SOUND(test, f.q);
}

static void queue_test_destroy_releases(struct kunit *test)
{
	struct fixture f;
	unsigned int i;

	fixture_start(test, &f, 0, 64, 8, 8);
	for (i = 0; i < 30; i++)
		KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[i].node, (i * 7) % 64), 0);
	kunit_release_action(test, destroy_queue, f.q);
	for (i = 0; i < 30; i++)
		KUNIT_EXPECT_FALSE(test, timeq_node_queued(&f.e[i].node));
	/* Released nodes go into another queue as if new. */
	f.q = new_queue(test, 0, 64, 8, 8);
	KUNIT_EXPECT_EQ(test, timeq_insert(f.q, &f.e[0].node, 1), 0);
	EXPECT_SOUND(test, f.q);
}

/* --- the checker finds what is wrong --- */

static void expect_broken(struct kunit *test, struct timeq *q, const char *word)
{
	char why[128] = "";

	KUNIT_EXPECT_EQ(test, timeq_check(q, why, sizeof(why)), -EUCLEAN);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, word),
				  "timeq_check said \"%s\", want \"%s\"", why, word);
}

/*
 * Plant one fault at a time in a queue with nodes in head, head2 and the
 * buckets, expect the checker to name it, and repair it.
 */
static void queue_test_check_catches(struct kunit *test)
{
	static const u64 times[] = { 2, 2, 3, 5, 5, 6, 9, 13, 13, 14 };
	struct list_head *saved;
	struct fixture f;
	unsigned long word;
	unsigned int i;

	fixture_start(test, &f, 1, 16, 4, 4);
	for (i = 0; i < ARRAY_SIZE(times); i++)
		KUNIT_ASSERT_EQ(test, timeq_insert(f.q, &f.e[i].node, times[i]), 0);
	EXPECT_SOUND(test, f.q);

	/* A time changed behind the queue's back. */
	f.e[7].node.time = 6;
	expect_broken(test, f.q, "misplaced");
	f.e[7].node.time = 13;

	/* A bitmap bit lost, and one set for an empty list. */
	word = f.q->head->map.level[0][0];
	f.q->head->map.level[0][0] = 0;
	expect_broken(test, f.q, "bitmap");
	f.q->head->map.level[0][0] = word;
	f.q->bucket_map.level[0][0] |= BIT(0);
	expect_broken(test, f.q, "bitmap");
	f.q->bucket_map.level[0][0] &= ~BIT(0);

	/* Counts off. */
	f.q->calendar_count++;
	expect_broken(test, f.q, "count");
	f.q->calendar_count--;
	f.q->bucket_count[3]++;
	expect_broken(test, f.q, "count");
	f.q->bucket_count[3]--;
	f.q->head2->count--;
	expect_broken(test, f.q, "count");
	f.q->head2->count++;

	/* The cached minimum not the first of the earliest time. */
	f.q->min = &f.e[1].node;
	expect_broken(test, f.q, "min");
	f.q->min = &f.e[0].node;

#ifdef TIMEQ_DEBUG_FIFO
	/* Equal times out of insertion order: only seen with sequence numbers. */
	list_move(&f.e[3].node.entry, f.e[3].node.entry.next);
	expect_broken(test, f.q, "insertion order");
	list_move(&f.e[4].node.entry, f.e[4].node.entry.next);
#endif

	/* A node tagged as in the calendar while in a head. */
	word = f.e[2].node.owner;
	f.e[2].node.owner &= ~TIMEQ_NODE_TAG_MASK;
	expect_broken(test, f.q, "owner");
	f.e[2].node.owner = word;

	/* A broken back link. */
	saved = f.e[8].node.entry.prev;
	f.e[8].node.entry.prev = &f.e[9].node.entry;
	expect_broken(test, f.q, "link");
	f.e[8].node.entry.prev = saved;

	EXPECT_SOUND(test, f.q);
}

/* An empty head with part of the next bucket outside head2 breaks I4. */
static void queue_test_check_catches_empty_head(struct kunit *test)
{
	struct timeq_node *node;
	unsigned long owner;
	struct fixture f;

	fixture_start(test, &f, 0, 16, 4, 4);
	node = &f.e[0].node;
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, node, 5), 0);
	owner = node->owner;
	/* Move it from head2 list 1 to bucket list 1, counts and bits too. */
	list_move(&node->entry, &f.q->buckets[1]);
	f.q->head2->map.level[0][0] = 0;		/* 4 lists: one level */
	f.q->head2->count = 0;
	f.q->bucket_map.level[0][0] = BIT(1);
	f.q->bucket_count[1] = 1;
	f.q->calendar_count = 1;
	node->owner &= ~TIMEQ_NODE_TAG_MASK;
	expect_broken(test, f.q, "head empty");
	/* Put it back the way it was. */
	list_move(&node->entry, &f.q->head2->lists[1]);
	f.q->head2->map.level[0][0] = BIT(1);
	f.q->head2->count = 1;
	f.q->bucket_map.level[0][0] = 0;
	f.q->bucket_count[1] = 0;
	f.q->calendar_count = 0;
	node->owner = owner;
	EXPECT_SOUND(test, f.q);
}

#ifdef TIMEQ_DEBUG_FIFO
/*
 * A bucket list is FIFO among equal times in either of the shapes the
 * queue makes: in insertion order, or in order of time (as EVICT leaves
 * it) with newer nodes appended. Equal times out of insertion order are
 * caught even when other times stand between them.
 *
 *	inserted B(41) A(40) C(40); list [A C B]: in order of time, sound
 *	list [C B A]: C before A, both 40, C newer: broken
 */
static void queue_test_check_bucket_fifo(struct kunit *test)
{
	struct timeq_node *a, *b, *c;
	struct list_head *list;
	struct fixture f;

	fixture_start(test, &f, 0, 256, 4, 64);
	b = &f.e[0].node;
	a = &f.e[1].node;
	c = &f.e[2].node;
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, b, 41), 0);
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, a, 40), 0);
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, c, 40), 0);
	list = &f.q->buckets[10];
	KUNIT_ASSERT_PTR_EQ(test, list->next, &b->entry);
	EXPECT_SOUND(test, f.q);
	/* In order of time, FIFO among equal times: what EVICT leaves. */
	list_move_tail(&b->entry, list);
	KUNIT_ASSERT_PTR_EQ(test, list->next, &a->entry);
	EXPECT_SOUND(test, f.q);
	/* [C B A]: the two of time 40 the wrong way round, apart. */
	list_move(&c->entry, list);
	list_move_tail(&a->entry, list);
	expect_broken(test, f.q, "insertion order");
	list_move(&a->entry, list);
	list_move_tail(&c->entry, list);
	EXPECT_SOUND(test, f.q);
}

/*
 * A table of insertion numbers with no room for a node it is asked to
 * number marks itself full, and the checker then fails rather than prove
 * less (module/queue.h).
 */
static void queue_test_check_fifo_full(struct kunit *test)
{
	unsigned long nodes = tq_fifo_nodes;
	struct fixture f;

	tq_fifo_nodes = 1;	/* two slots */
	fixture_start(test, &f, 0, 256, 4, 64);
	tq_fifo_nodes = nodes;
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, &f.e[0].node, 40), 0);
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, &f.e[1].node, 40), 0);
	EXPECT_SOUND(test, f.q);
	KUNIT_ASSERT_EQ(test, timeq_insert(f.q, &f.e[2].node, 40), 0);
	expect_broken(test, f.q, "table of insertion numbers");
}
#endif

/* --- the bitmaps, alone, at every number of levels --- */

static const unsigned long bitmap_sizes[] = {
	1, 2, 63, 64, 65, 127, 4095, 4096, 4097, 262143, 262144, 262145,
	1UL << 20,
};

static const void *bitmap_gen_params(const void *prev, char *desc)
{
	const unsigned long *next = prev ? (const unsigned long *)prev + 1 :
					   bitmap_sizes;

	if (next == bitmap_sizes + ARRAY_SIZE(bitmap_sizes))
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%lu lists", *next);
	return next;
}

#define BITMAP_SET_MAX	48

/*
 * Against a reference of at most BITMAP_SET_MAX set bits, kept sorted: set
 * and clear bits near word and level edges, and search from everywhere
 * interesting, including past the last list.
 */
static void queue_test_bitmap(struct kunit *test)
{
	unsigned long nbits = *(const unsigned long *)test->param_value;
	unsigned long set[BITMAP_SET_MAX], nset = 0, i, j, bit, from, want;
	unsigned int step, levels = 0;
	struct timeq_bitmap map = { };
	unsigned long *mem, *end;
	u64 rng = nbits;

	mem = kunit_kcalloc(test, tq_bitmap_words(nbits), sizeof(*mem),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	end = tq_bitmap_init(&map, mem, nbits);
	KUNIT_EXPECT_EQ(test, end - mem, tq_bitmap_words(nbits));
	for (i = 1; i < nbits; i *= BITS_PER_LONG)
		levels++;
	KUNIT_EXPECT_EQ(test, map.levels, levels ? levels : 1);
	KUNIT_EXPECT_EQ(test, map.words[map.levels - 1], 1);
	KUNIT_EXPECT_EQ(test, tq_bitmap_next(&map, 0), TIMEQ_NONE);

	for (step = 0; step < 3000; step++) {
		/* Mostly near a multiple of a word or of a word of words. */
		bit = diff_rand(&rng);
		switch (bit % 4) {
		case 0:
			bit = (bit >> 2) % nbits;
			break;
		case 1:
			bit = ((bit >> 2) % (nbits / BITS_PER_LONG + 1)) * BITS_PER_LONG;
			break;
		case 2:
			bit = ((bit >> 2) % (nbits / 4096 + 1)) * 4096 - 1;
			break;
		default:
			bit = nbits - 1 - (bit >> 2) % 3;
			break;
		}
		if (bit >= nbits)
			bit = nbits - 1;
		for (i = 0; i < nset && set[i] < bit; i++)
			;
		if (i < nset && set[i] == bit) {
			tq_bitmap_clear(&map, bit);
			for (j = i; j + 1 < nset; j++)
				set[j] = set[j + 1];
			nset--;
		} else if (nset < BITMAP_SET_MAX) {
			tq_bitmap_set(&map, bit);
			for (j = nset; j > i; j--)
				set[j] = set[j - 1];
			set[i] = bit;
			nset++;
		}
		/* Search from each set bit, its neighbours and a random place. */
		for (j = 0; j <= nset; j++) {
			from = j < nset ? set[j] + diff_rand(&rng) % 3 - 1 :
					  diff_rand(&rng) % (nbits + 1);
			if (from > nbits)
				from = 0;
			for (i = 0; i < nset && set[i] < from; i++)
				;
			want = i < nset ? set[i] : TIMEQ_NONE;
			KUNIT_ASSERT_EQ_MSG(test, tq_bitmap_next(&map, from),
					    want,
					    "%lu lists, from %lu, step %u",
					    nbits, from, step);
		}
	}
}

/* --- the differential run, one case per shape --- */

/* Sized for a debug kernel under emulation; tools/testing/queue runs more. */
#define DIFF_SEEDS	4
#define DIFF_STEPS	5000

/* One parameter per shape of diff_shapes[], named after it. */
static const void *shape_gen_params(const void *prev, char *desc)
{
	const struct shape *next = prev ? (const struct shape *)prev + 1 :
					  diff_shapes;

	if (next == diff_shapes + diff_nshapes)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", next->name);
	return next;
}

static void stop_diff(void *d)
{
	diff_stop(d);
}

static void queue_test_differential(struct kunit *test)
{
	const struct shape *shape = test->param_value;
	unsigned int seed, step, steps;
	struct diff *d;
	struct op op;
	u64 rng, now;

	steps = shape->horizon >= 1 << 20 ? DIFF_STEPS / 10 : DIFF_STEPS;
	for (seed = 0; seed < DIFF_SEEDS; seed++) {
		d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
		rng = seed;
		now = diff_start_now(seed, shape->horizon);
		KUNIT_ASSERT_EQ(test, diff_start(d, shape, now), 0);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, stop_diff, d), 0);
		for (step = 0; step < steps; step++) {
			diff_generate(d, &rng, seed % DIFF_PROFILES, &op);
			KUNIT_ASSERT_EQ_MSG(test, diff_step(d, &op), 0,
					    "seed %u (now %llu) step %u: %s; rerun in userspace: test_queue --shape %s --seed %u",
					    seed, now, step, d->why, shape->name, seed);
		}
		kunit_release_action(test, stop_diff, d);
	}
}

static struct kunit_case queue_test_cases[] = {
	KUNIT_CASE(queue_test_create_bad),
	KUNIT_CASE(queue_test_create_shapes),
	KUNIT_CASE(queue_test_insert_errors),
	KUNIT_CASE(queue_test_delete_errors),
	KUNIT_CASE(queue_test_update_errors),
	KUNIT_CASE(queue_test_empty),
	KUNIT_CASE(queue_test_fifo_equal_times),
	KUNIT_CASE(queue_test_fifo_pulled_before_direct),
	KUNIT_CASE(queue_test_window_edges),
	KUNIT_CASE(queue_test_window_top),
	KUNIT_CASE(queue_test_min_moves),
	KUNIT_CASE(queue_test_focus_emptied),
	KUNIT_CASE(queue_test_del_less_than),
	KUNIT_CASE(queue_test_destroy_releases),
	KUNIT_CASE(queue_test_check_catches),
	KUNIT_CASE(queue_test_check_catches_empty_head),
#ifdef TIMEQ_DEBUG_FIFO
	KUNIT_CASE(queue_test_check_bucket_fifo),
	KUNIT_CASE(queue_test_check_fifo_full),
#endif
	KUNIT_CASE_PARAM(queue_test_bitmap, bitmap_gen_params),
	/*
	 * Very slow: minutes in a KCSAN kernel under TCG, where vm-kcsan
	 * skips it (kunit.filter=speed>very_slow): one thread on queues
	 * no other context touches has no race for KCSAN to find.
	 */
	KUNIT_CASE_PARAM_ATTR(queue_test_differential, shape_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	{}
};

static struct kunit_suite queue_test_suite = {
	.name = "timeq_queue",
	.test_cases = queue_test_cases,
	.suite_init = fifo_suite_init,
	.suite_exit = fifo_suite_exit,
};

kunit_test_suite(queue_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the timeq data structure");
MODULE_IMPORT_NS(TIMEQ_NS);
MODULE_IMPORT_NS(TIMEQ_KUNIT_NS);
