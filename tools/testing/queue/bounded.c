// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial sequences against the bound on work per lock hold: the slow
 * side (module/paths.c and handoff.c over module/queue.c, built in
 * userspace) may visit at most TIMEQ_HOLD nodes in one hold of its locks,
 * whatever the calls before did, and, but for the case queue.c's top
 * comment names, O(1) nodes per operation amortised. Each sequence below
 * was chosen to make one lock hold walk a long bucket list before queue.c
 * did its work in steps; each checks the queue's own count of visits:
 *
 *	q->max_visits	the most visits of any one lock hold, which must
 *			not exceed TIMEQ_HOLD; a hold that removes a node
 *			may visit that one beyond its budget (queue.h: "no
 *			call spends more than the budget it is given, plus
 *			the one node it was asked about"), so the sequences
 *			whose holds mix removals with pending steps are held
 *			to TIMEQ_HOLD + 1
 *	q->total_visits	all visits, which must stay within n + 4 per
 *			operation: each of the n nodes set up may be walked
 *			or pulled a bounded number of times, each operation
 *			adds O(1)
 *
 * The tq_base_check() calls between sequences are the tests' own, not part
 * of any count. Output is TAP.
 *
 *	bounded [--nodes N]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/timeq.h>

#include "../../../module/clock.h"
#include "../../../module/paths.h"
#include "../../../module/queue.h"

#define HORIZON		(1ULL << 32)	/* delta 2^16, M 2^16 */
#define DELTA		(1ULL << 16)
#define OPS		20000UL
#define TURNS		20	/* of alternating_buckets() */

static unsigned int tests, failed;
static unsigned long nodes = 1UL << 20;

struct run {
	struct timeq_base	*base;		/* a test base */
	struct timeq		*q;		/* its queue */
	struct timeq_node	*n;
	struct timeq_node	extra[4];
	unsigned long		ops;
	int			wrong;	/* the sequence did not do what it should */
};

static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A run on the queue of a test base (tq_base_create_test(), base.c). */
static void start(struct run *r)
{
	unsigned long i;

	memset(r, 0, sizeof(*r));
	r->base = tq_base_create_test(0, HORIZON, 0, 0);
	r->n = calloc(nodes, sizeof(*r->n));
	if (IS_ERR(r->base) || !r->n)
		exit(1);
	r->q = tq_base_queue(r->base);
	for (i = 0; i < nodes; i++)
		timeq_node_init(&r->n[i]);
	for (i = 0; i < 4; i++)
		timeq_node_init(&r->extra[i]);
}

/* Forget what setting up cost: only the sequence itself is judged. */
static void measure_from_here(struct run *r)
{
	r->q->max_visits = 0;
	r->q->total_visits = 0;
	r->ops = 0;
}

/*
 * Judge the sequence against @bound visits a hold, then tear the queue
 * down (in steps too).
 */
static void finish_bound(struct run *r, const char *name, int amortised,
			 unsigned long bound)
{
	unsigned long max = r->q->max_visits, total = r->q->total_visits;
	unsigned long allowed = nodes + 4 * r->ops;
	char why[160];
	int ok;

	ok = !r->wrong && max <= bound && (!amortised || total <= allowed) &&
	     !tq_base_check(r->base, why, sizeof(why));
	printf("%sok %u - %s: ", ok ? "" : "not ", ++tests, name);
	printf("%lu visits a hold at most (bound %lu), ", max, bound);
	printf("%.2f an operation, %lu operations, %lu nodes%s\n",
	       r->ops ? (double)total / r->ops : 0.0, r->ops, nodes,
	       amortised ? "" : " (not amortised: see queue.c)");
	if (!ok) {
		failed++;
		printf("# total visits %lu, allowed %lu\n", total, allowed);
	}
	measure_from_here(r);
	timeq_base_destroy(r->base);
	free(r->n);
}

static void finish(struct run *r, const char *name, int amortised)
{
	finish_bound(r, name, amortised, TIMEQ_HOLD);
}

/* All nodes at one far time; insert at the clock and delete, again and again. */
static void one_far_time(void)
{
	struct run r;
	unsigned long i;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 10 * DELTA);
	measure_from_here(&r);
	for (i = 0; i < OPS; i++, r.ops += 2) {
		timeq_insert(r.q, &r.extra[0], timeq_now(r.q));
		timeq_delete(r.q, &r.extra[0]);
	}
	finish(&r, "one far time, insert and delete at the clock", 1);
}

/* One far bucket at distinct times; delete its minimum, in order, until empty. */
static void far_mins_in_order(void)
{
	uint64_t rand = 1;
	struct run r;
	unsigned long i, j;

	start(&r);
	/* Times 10 * DELTA + i, inserted in a shuffled order. */
	for (i = 0; i < nodes; i++)
		r.n[i].time = i;
	for (i = nodes - 1; i > 0; i--) {
		j = next_rand(&rand) % (i + 1);
		swap(r.n[i].time, r.n[j].time);
	}
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 10 * DELTA + r.n[i].time % DELTA);
	measure_from_here(&r);
	while (timeq_min(r.q)) {
		timeq_delete(r.q, timeq_min(r.q));
		r.ops++;
	}
	finish(&r, "one far bucket, its minimum deleted until empty", 1);
}

/* Refreshed time-outs: the clock creeps, every operation moves one far. */
static void refreshed_timeouts(void)
{
	uint64_t rand = 2;
	struct run r;
	unsigned long i;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 5 * DELTA + i % DELTA);
	measure_from_here(&r);
	for (i = 0; i < OPS; i++, r.ops += 2) {
		timeq_del_less_than(r.q, timeq_now(r.q) + 7, NULL, NULL);
		timeq_update(r.q, &r.n[next_rand(&rand) % nodes],
			     timeq_now(r.q) + 5 * DELTA + next_rand(&rand) % 1000);
	}
	finish(&r, "refreshed time-outs beyond the next bucket, the clock creeping", 1);
}

/* The clock jumps into a bucket of every node. */
static void jump_into_a_bucket(void)
{
	struct run r;
	unsigned long i;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 10 * DELTA + 5);
	measure_from_here(&r);
	timeq_del_less_than(r.q, 10 * DELTA, NULL, NULL);
	r.ops++;
	for (i = 0; i < OPS; i++, r.ops += 2) {
		timeq_insert(r.q, &r.extra[0], timeq_now(r.q));
		timeq_delete_min(r.q);
	}
	finish(&r, "the clock jumps into a bucket holding every node", 1);
}

/*
 * Every node in the bucket list of the next bucket (inserted while it was
 * far), and the head emptied again and again: the head's last node leaves
 * the whole of the next bucket to pull into head2 (I4).
 */
static void next_bucket(void)
{
	struct run r;
	unsigned long i;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 2 * DELTA + i % DELTA);
	/* A node keeps the head non-empty while the clock moves next to them. */
	timeq_insert(r.q, &r.extra[1], DELTA + 1);
	timeq_del_less_than(r.q, DELTA, NULL, NULL);
	measure_from_here(&r);
	timeq_delete(r.q, &r.extra[1]);
	r.ops++;
	for (i = 0; i < OPS; i++, r.ops += 2) {
		timeq_insert(r.q, &r.extra[0], timeq_now(r.q));
		timeq_delete(r.q, &r.extra[0]);
	}
	finish(&r, "every node in the next bucket's list, the head emptied each time", 1);
}

/* An expiry storm: every node at one time, expired by one call. */
static void storm(void)
{
	struct run r;
	unsigned long i;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 3 * DELTA);
	measure_from_here(&r);
	r.ops = timeq_del_less_than(r.q, 3 * DELTA + 1, NULL, NULL);
	finish(&r, "an expiry storm, every node due at once", 1);
}

/*
 * Two long far buckets taking turns as the earliest: one in the focus,
 * and, again and again, one before it just long enough to want the focus
 * (more than TIMEQ_WALK nodes once its minimum is gone, inserted out of
 * time order), which is then emptied, so the long one is the earliest
 * again. The focus hands the long one back to its bucket list in time
 * order, so it needs no walk when it returns: amortised O(1). With @unsort,
 * each turn also inserts a node out of time order into the long bucket's
 * list, which then needs the focus again: that is the one sequence
 * queue.c does not amortise. Bounded per lock hold all the same; its
 * visits per operation are printed, not judged.
 */
static void alternating_buckets(int unsort)
{
	struct timeq_node *gap = calloc(TIMEQ_WALK + 2 + TURNS, sizeof(*gap));
	struct timeq_node *late = gap + TIMEQ_WALK + 2;
	unsigned long i, j;
	struct run r;

	if (!gap)
		exit(1);
	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], 10 * DELTA + 1000 + i % 997);
	/* Its minimum deleted: the long bucket goes into the focus. */
	timeq_delete(r.q, timeq_min(r.q));
	measure_from_here(&r);
	for (i = 0; i < TURNS; i++) {
		if (unsort) {
			timeq_node_init(&late[i]);
			timeq_insert(r.q, &late[i], 10 * DELTA + 999 - i);
			r.ops++;
		}
		for (j = 0; j < TIMEQ_WALK + 2; j++, r.ops++) {
			timeq_node_init(&gap[j]);
			timeq_insert(r.q, &gap[j], 5 * DELTA + TIMEQ_WALK + 2 - j);
		}
		/* In time order: the minimum goes first, the rest want the focus. */
		for (j = TIMEQ_WALK + 2; j-- > 0; r.ops++)
			timeq_delete(r.q, &gap[j]);
	}
	finish(&r, unsort ? "two long far buckets taking turns, the later one unsorted each turn" :
			    "two long far buckets taking turns as the earliest", !unsort);
	free(gap);
}

/* --- lock holds that mix removals with pending steps --- */

/* Count the nodes a timeq_del_less_than() callback is given. */
static void count_one(struct timeq_node *node, void *arg)
{
	(void)node;
	++*(unsigned long *)arg;
}

/*
 * Removals mixed with WALKs and pulls: far buckets of TIMEQ_WALK nodes,
 * each out of time order, so that each one's minimum is a WALK, and the
 * clock moving into it leaves the rest to pull into the head (PULL_HEAD).
 * del_less_than() sweeps them, without a callback (a batch of removals to
 * a hold, stopped by the work each leaves) or with one (a removal to a
 * hold, the work it leaves finished at the start of the next).
 */
static void walks_between_removals(int callback)
{
	unsigned long per = TIMEQ_WALK, buckets, i, removed = 0;
	u64 end;
	struct run r;

	buckets = min(nodes / per, 1UL << 15);
	start(&r);
	for (i = 0; i < buckets * per; i++)
		timeq_insert(r.q, &r.n[i], (2 + i / per) * DELTA + per - 1 - i % per);
	measure_from_here(&r);
	end = (2 + buckets) * DELTA;
	r.ops = timeq_del_less_than(r.q, end, callback ? count_one : NULL,
				    &removed);
	r.wrong = timeq_count(r.q) || (callback && removed != r.ops);
	if (r.wrong)
		printf("# %lu nodes left, %lu counted\n", timeq_count(r.q), removed);
	finish_bound(&r, callback ? "a WALK, a PULL_HEAD a bucket; del_less_than, callback" :
				    "a WALK, a PULL_HEAD a bucket; del_less_than in batches",
		     1, TIMEQ_HOLD + 1);
}

/*
 * Removals mixed with EVICT and RESOLVE: far buckets longer than
 * TIMEQ_WALK, each out of time order, and the last of them already in
 * the focus, so the sweep's first minimum evicts it, and each bucket
 * after is resolved into the focus as the clock reaches it.
 */
static void resolves_between_removals(void)
{
	unsigned long per = 40, buckets, i, last;
	struct run r;

	buckets = min(nodes / per, 1UL << 13);
	last = (buckets - 1) * per;
	start(&r);
	/* The last bucket first, resolved into the focus. */
	for (i = last; i < buckets * per; i++)
		timeq_insert(r.q, &r.n[i], (2 + i / per) * DELTA + per - 1 - i % per);
	timeq_insert(r.q, &r.extra[0], 1);
	timeq_delete(r.q, &r.extra[0]);
	for (i = 0; i < last; i++)
		timeq_insert(r.q, &r.n[i], (2 + i / per) * DELTA + per - 1 - i % per);
	measure_from_here(&r);
	r.ops = timeq_del_less_than(r.q, (2 + buckets) * DELTA, NULL, NULL);
	r.wrong = timeq_count(r.q) != 0;
	finish_bound(&r, "an EVICT, then a RESOLVE per bucket, del_less_than in batches",
		     1, TIMEQ_HOLD + 1);
}

/*
 * Removals mixed with pulls of the next bucket: half the nodes in one far
 * bucket, half in the next, in no order. Once the clock is in the first,
 * each removal pulls a share of the second into head2 (the paper's
 * deamortisation), within the hold's budget, and the head's last leaves
 * a PULL_NEXT of what remains. Removed by delete_min one at a time, or by
 * del_less_than in batches.
 */
static void removals_with_pulls(int batch)
{
	unsigned long i;
	struct run r;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], (10 + i % 2) * DELTA +
			     (i * 7919) % DELTA);
	measure_from_here(&r);
	if (batch) {
		r.ops = timeq_del_less_than(r.q, 12 * DELTA, NULL, NULL);
	} else {
		while (timeq_delete_min(r.q))
			r.ops++;
	}
	r.wrong = timeq_count(r.q) != 0;
	finish_bound(&r, batch ? "two far buckets, del_less_than in batches: pulls" :
				 "two far buckets, delete_min until empty: pulls",
		     1, TIMEQ_HOLD + 1);
}

/*
 * A drain of requests, each moving the minimum out of a short far bucket
 * in no order: each leaves a WALK of the rest, which the drain finishes
 * before the next request, so a hold mixes requests with walks. The
 * requests are handed off while the test holds bucket_lock (the far lane
 * then defers), then drained by the base's work.
 */
static void walks_between_requests(void)
{
	const unsigned long rounds = 1000;
	struct timeq_timer t[TIMEQ_WALK];
	unsigned long i, j;
	struct run r;

	start(&r);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < TIMEQ_WALK; j++) {
			timeq_timer_init(&t[j], NULL);
			tq_timer_arm(r.base, &t[j], timeq_now(r.q) + 2 * DELTA +
				     TIMEQ_WALK - 1 - j);
		}
		if (!i)
			measure_from_here(&r);
		/* The minimum, then each next one, goes far: all deferred. */
		spin_lock(&r.q->bucket_lock);
		compat_in_softirq = 1;
		for (j = TIMEQ_WALK; j-- > 0; r.ops++)
			tq_fast_update(r.base, &t[j], timeq_now(r.q) + 9 * DELTA);
		compat_in_softirq = 0;
		spin_unlock(&r.q->bucket_lock);
		compat_run_irq_work(&r.base->kick);
		compat_run_work(&r.base->work);
		for (j = 0; j < TIMEQ_WALK; j++) {
			r.wrong |= timeq_node_time(&t[j].node) !=
				   timeq_now(r.q) + 9 * DELTA;
			tq_delete_sync(r.base, &t[j]);
		}
	}
	finish_bound(&r, "a drain of requests, a WALK after each", 1, TIMEQ_HOLD + 1);
}

/*
 * A timer base whose clock an overdue timer holds back: arming a timer
 * beyond that window makes room, moving every timer it passes onto the
 * list of timers due, a budget of them to a hold (tq_clock_make_room());
 * then timeq_expire() runs them all, a removal to a hold.
 */
#define C_HORIZON	BIT_ULL(20)

/*
 * A base with @n of the @n + 1 timers @t armed across its window, its clock
 * then run two horizons past it: @t[@n] is left for the arm that makes room.
 */
static struct timeq_base *overdue_base(struct timeq_timer *t, unsigned long n)
{
	struct timeq_base *base;
	unsigned long i;

	compat_clock_set(0);
	base = timeq_base_create(1, C_HORIZON, 0, 0, GFP_KERNEL);
	if (IS_ERR(base) || !t)
		exit(1);
	for (i = 0; i <= n; i++)
		timeq_timer_init(&t[i], NULL);
	for (i = 0; i < n; i++)
		timeq_timer_arm(base, &t[i], (i * 7919) % C_HORIZON);
	compat_clock_set(3 * C_HORIZON);
	return base;
}

static void make_room_clocked(void)
{
	unsigned long n = nodes / 8, expired, max, total, allowed;
	struct timeq_timer *t = calloc(n + 1, sizeof(*t));
	struct timeq_base *base = overdue_base(t, n);
	struct timeq *q = tq_base_queue(base);
	char why[160];
	int ok;

	q->max_visits = 0;
	q->total_visits = 0;
	ok = !timeq_timer_arm(base, &t[n], 4 * C_HORIZON - 1) &&
	     timeq_count(q) == 1;
	max = q->max_visits;
	expired = timeq_expire(base);
	ok = ok && expired == n && !tq_base_check(base, why, sizeof(why));
	max = max > q->max_visits ? max : q->max_visits;
	total = q->total_visits;
	allowed = n + 4 * (n + 1);
	ok = ok && max <= TIMEQ_HOLD + 1 && total <= allowed;
	printf("%sok %u - room made past %lu due timers, expired: ",
	       ok ? "" : "not ", ++tests, n);
	printf("%lu visits a hold at most (bound %d), %.2f a timer\n", max,
	       TIMEQ_HOLD + 1, (double)total / n);
	if (!ok)
		printf("# %lu expired, count %lu, total visits %lu, allowed %lu\n",
		       expired, timeq_count(q), total, allowed);
	failed += !ok;
	timeq_delete_sync(base, &t[n]);
	timeq_base_destroy(base);
	free(t);
}

/*
 * A timer base whose timers were all moved later by a store: the expiry
 * that finds them due at their older times files each again, a visit of
 * a lock hold, and the hold goes on to the next while its budget is not
 * spent (tq_clock_run()). So a hold ends when it has spent TIMEQ_HOLD
 * visits (the filings and what they leave pending, counted in
 * total_visits), or at the end of a run of the expiry, which takes at
 * most EXPIRE_BUDGET timers, and may start the next hold. Then each
 * timer expires once, at its new time.
 */
#define EXPIRE_BUDGET	64	/* clock.c's expire_budget, by default */

static void refiled_clocked(void)
{
	unsigned long i, n = nodes / 8, refiled, holds, expired, late = 0;
	unsigned long visits, runs = n / EXPIRE_BUDGET + 1, allowed;
	struct timeq_timer *t = calloc(n, sizeof(*t));
	u64 d = C_HORIZON / 4, time;
	struct timeq_fast_stats fs;
	struct timeq_base *base;
	struct timeq *q;
	char why[160];
	int ok = 1;

	compat_clock_set(0);
	base = timeq_base_create(1, C_HORIZON, 0, 0, GFP_KERNEL);
	if (IS_ERR(base) || !t)
		exit(1);
	q = tq_base_queue(base);
	for (i = 0; i < n; i++) {
		time = 1 + (i * 7919) % d;
		timeq_timer_init(&t[i], NULL);
		ok &= !timeq_timer_arm(base, &t[i], time);
		ok &= !timeq_timer_move(base, &t[i], time + 2 * d);
	}
	timeq_get_fast_stats(base, &fs);
	refiled = fs.refiled;
	q->max_visits = 0;
	q->total_visits = 0;
	compat_bh_locks = 0;
	compat_clock_set(d + 1);
	expired = timeq_expire(base);
	holds = compat_bh_locks;
	visits = q->total_visits;
	allowed = visits / TIMEQ_HOLD + 2 * runs + 1;
	timeq_get_fast_stats(base, &fs);
	refiled = fs.refiled - refiled;
	ok &= !expired && refiled == n && !tq_base_check(base, why, sizeof(why));
	ok &= q->max_visits <= TIMEQ_HOLD + 1;
	ok &= visits >= n && holds <= allowed;
	compat_clock_set(3 * d);
	expired = timeq_expire(base);
	for (i = 0; i < n; i++)
		late += timeq_node_queued(&t[i].node);
	ok &= expired == n && !late && !timeq_count(q);
	printf("%sok %u - an expiry of %lu timers stored later: each filed again, %lu visits a hold at most (bound %d), %lu lock holds (bound %lu)\n",
	       ok ? "" : "not ", ++tests, n, q->max_visits, TIMEQ_HOLD + 1,
	       holds, allowed);
	if (!ok)
		printf("# filed again %lu, %lu visits, expired %lu, left %lu\n",
		       refiled, visits, expired, late);
	failed += !ok;
	timeq_base_destroy(base);
	free(t);
}

/* Destroying a queue of every node: released in steps, as timeq_destroy(). */
static void destroy(void)
{
	unsigned long i, max, owners = 0;
	struct run r;
	int ok;

	start(&r);
	for (i = 0; i < nodes; i++)
		timeq_insert(r.q, &r.n[i], i % HORIZON);
	measure_from_here(&r);
	tq_lock(r.q);
	while (__timeq_release_step(r.q, NULL, NULL)) {
		tq_unlock(r.q);
		tq_lock(r.q);
	}
	tq_unlock(r.q);
	max = r.q->max_visits;
	for (i = 0; i < nodes; i++)
		owners |= r.n[i].owner;
	ok = max <= TIMEQ_STEP && !owners && !timeq_count(r.q);
	printf("%sok %u - destroy: %lu nodes released, at most %lu in a lock hold (bound %d)\n",
	       ok ? "" : "not ", ++tests, nodes, max, TIMEQ_STEP);
	failed += !ok;
	timeq_base_destroy(r.base);
	free(r.n);
}

/*
 * A timer base destroyed with timers on its list of timers due: made room
 * past them as above, then released by tq_clock_release(), the last step
 * of timeq_base_destroy(), TIMEQ_STEP of them to a lock hold.
 */
static void destroy_due_clocked(void)
{
	unsigned long i, n = nodes / 8, owners = 0;
	struct timeq_timer *t = calloc(n + 1, sizeof(*t));
	struct timeq_base *base = overdue_base(t, n);
	struct timeq *q = tq_base_queue(base);
	int ok;

	ok = !timeq_timer_arm(base, &t[n], 4 * C_HORIZON - 1) &&
	     timeq_count(q) == 1;
	timeq_timer_delete(base, &t[n]);
	q->max_visits = 0;
	tq_clock_release(base);
	for (i = 0; i < n; i++)
		owners |= t[i].node.owner;
	ok = ok && q->max_visits <= TIMEQ_STEP && !owners;
	printf("%sok %u - destroy of a base: %lu due timers released, at most %lu in a lock hold (bound %d)\n",
	       ok ? "" : "not ", ++tests, n, q->max_visits, TIMEQ_STEP);
	failed += !ok;
	timeq_base_destroy(base);
	free(t);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--nodes"))
		nodes = strtoul(argv[2], NULL, 0);
	else if (argc != 1)
		return 2;
	if (nodes < 1024)
		return 2;
	one_far_time();
	far_mins_in_order();
	refreshed_timeouts();
	jump_into_a_bucket();
	next_bucket();
	storm();
	alternating_buckets(0);
	alternating_buckets(1);
	walks_between_removals(0);
	walks_between_removals(1);
	resolves_between_removals();
	removals_with_pulls(0);
	removals_with_pulls(1);
	walks_between_requests();
	make_room_clocked();
	refiled_clocked();
	destroy_due_clocked();
	destroy();
	if (compat_allocations) {
		printf("not ok %u - %ld allocations left\n", ++tests,
		       compat_allocations);
		failed++;
	}
	printf("1..%u\n", tests);
	return failed ? 1 : 0;
}
