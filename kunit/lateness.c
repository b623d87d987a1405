// SPDX-License-Identifier: GPL-2.0
/*
 * The lateness measurement of lateness.h. Each group arms @n timers for
 * times spread over LAT_SPREAD, LAT_MARGIN from now, so that arming ends
 * before the first is due even on an emulated machine, and waits for every
 * callback. A timer's lateness is the clock when its callback runs minus
 * the time it was due: node time times granularity for timeq, the armed
 * expiry for the floor.
 */
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/timeq.h>
#include <linux/workqueue.h>

#include "lateness.h"

#define LAT_GRAN	(10 * NSEC_PER_USEC)	/* ns per tick */
#define LAT_HORIZON	BIT(20)			/* ticks: about 10 s */
#define LAT_MARGIN	(200 * NSEC_PER_MSEC)
#define LAT_SPREAD	(100 * NSEC_PER_MSEC)

/* One timer of any group; @late is written by its callback. */
struct lat_timer {
	struct timeq_timer	timer;
	struct hrtimer		hrtimer;
	struct work_struct	work;
	u64			due;	/* ns, for the floor */
	s64			late;
	atomic_t		*left;
	struct completion	*done;
};

static void lat_done(struct lat_timer *lt, u64 due)
{
	lt->late = (s64)(ktime_get_ns() - due);
	if (atomic_dec_and_test(lt->left))
		complete(lt->done);
}

static void lat_fire(struct timeq_timer *timer)
{
	lat_done(container_of(timer, struct lat_timer, timer),
		 timeq_node_time(&timer->node) * LAT_GRAN);
}

static void lat_floor_work(struct work_struct *work)
{
	struct lat_timer *lt = container_of(work, struct lat_timer, work);

	lat_done(lt, lt->due);
}

static enum hrtimer_restart lat_floor_fire(struct hrtimer *hrtimer)
{
	struct lat_timer *lt = container_of(hrtimer, struct lat_timer, hrtimer);

	queue_work(system_unbound_wq, &lt->work);
	return HRTIMER_NORESTART;
}

static int lat_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* Sort the lateness of @n timers into @out. */
static void lat_sum(struct lateness *out, struct lat_timer *lt, unsigned int n,
		    s64 *scratch)
{
	unsigned int i;

	out->n = n;
	out->early = 0;
	for (i = 0; i < n; i++) {
		scratch[i] = lt[i].late;
		out->early += lt[i].late < 0;
	}
	sort(scratch, n, sizeof(*scratch), lat_cmp, NULL);
	out->p50 = max_t(s64, scratch[n / 2], 0);
	out->p99 = max_t(s64, scratch[(n * 99) / 100], 0);
	out->max = max_t(s64, scratch[n - 1], 0);
}

/* Arm one group: 0 slow side, 1 fast path, 2 the floor; wait for it. */
static int lat_group(int kind, struct lat_timer *lt, unsigned int n)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(n);
	struct timeq_base *base = NULL;
	struct timeq_timer anchor;
	unsigned int i;
	int err = 0;
	u64 start;

	if (kind < 2) {
		base = timeq_base_create(LAT_GRAN, LAT_HORIZON, 0, 0,
					 GFP_KERNEL);
		if (IS_ERR(base))
			return PTR_ERR(base);
	}
	start = ktime_get_ns() + LAT_MARGIN;
	if (kind == 1) {
		/* A minimum beyond every timer, for each to move earlier. */
		timeq_timer_init(&anchor, NULL);
		err = timeq_timer_arm(base, &anchor,
				      (start + 2 * LAT_SPREAD) / LAT_GRAN);
	}
	for (i = 0; i < n && !err; i++) {
		lt[i].left = &left;
		lt[i].done = &done;
		/* Earlier and earlier, for the fast path; random otherwise. */
		if (kind == 1)
			lt[i].due = start + LAT_SPREAD - i * (LAT_SPREAD / n);
		else
			lt[i].due = start + get_random_u64() % LAT_SPREAD;
		switch (kind) {
		case 0:
			timeq_timer_init(&lt[i].timer, lat_fire);
			err = timeq_timer_arm(base, &lt[i].timer,
					      lt[i].due / LAT_GRAN);
			break;
		case 1:
			timeq_timer_init(&lt[i].timer, lat_fire);
			local_bh_disable();
			err = timeq_fast_update(base, &lt[i].timer,
						lt[i].due / LAT_GRAN);
			local_bh_enable();
			err = err < 0 ? err : 0;
			break;
		default:
			INIT_WORK(&lt[i].work, lat_floor_work);
			hrtimer_setup(&lt[i].hrtimer, lat_floor_fire,
				      CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
			hrtimer_start(&lt[i].hrtimer, ns_to_ktime(lt[i].due),
				      HRTIMER_MODE_ABS);
			break;
		}
	}
	/* What was armed fires; on an error, wait only for those. */
	if (err)
		atomic_sub(n - i + 1, &left);
	if (!err || atomic_read(&left) > 0)
		if (!wait_for_completion_timeout(&done, 60 * HZ))
			err = err ?: -ETIMEDOUT;
	for (i = 0; i < n; i++) {
		if (kind < 2) {
			timeq_delete_sync(base, &lt[i].timer);
		} else {
			hrtimer_cancel(&lt[i].hrtimer);
			cancel_work_sync(&lt[i].work);
		}
	}
	if (kind == 1)
		timeq_delete_sync(base, &anchor);
	timeq_base_destroy(base);
	return err;
}

/**
 * lateness_measure - arm and wait for three groups of timers
 * @run:	the figures
 * @n:		timers in each group, at least 2
 *
 * Context: process context, may sleep; takes about half a second.
 * Return: 0, or an error from arming or allocating, or -ETIMEDOUT.
 */
int lateness_measure(struct lateness_run *run, unsigned int n)
{
	struct lat_timer *lt = kcalloc(n, sizeof(*lt), GFP_KERNEL);
	s64 *scratch = kcalloc(n, sizeof(*scratch), GFP_KERNEL);
	struct lateness *group[] = { &run->slow, &run->fast, &run->floor };
	int kind, err = -ENOMEM;

	run->gran = LAT_GRAN;
	if (!lt || !scratch || n < 2)
		goto out;
	for (kind = 0; kind < 3; kind++) {
		memset(lt, 0, n * sizeof(*lt));
		err = lat_group(kind, lt, n);
		if (err)
			goto out;
		lat_sum(group[kind], lt, n, scratch);
	}
out:
	kfree(lt);
	kfree(scratch);
	return err;
}

static void lat_line(const char *prefix, const char *what,
		     const struct lateness *l)
{
	pr_info("%s%-34s p50 %6llu us, p99 %6llu us, max %6llu us, %u early\n",
		prefix, what, l->p50 / NSEC_PER_USEC, l->p99 / NSEC_PER_USEC,
		l->max / NSEC_PER_USEC, l->early);
}

/**
 * lateness_print - print a measurement, one line a group, and the excess
 * @run:	the figures
 * @prefix:	put before each line
 *
 * Context: any.
 */
void lateness_print(const struct lateness_run *run, const char *prefix)
{
	s64 slow = run->slow.p99 - run->floor.p99;
	s64 fast = run->fast.p99 - run->floor.p99;

	pr_info("%slateness of %u timers a group, granularity %llu us:\n",
		prefix, run->slow.n, run->gran / NSEC_PER_USEC);
	lat_line(prefix, "  armed by the slow side", &run->slow);
	lat_line(prefix, "  armed by the fast path (the kick)", &run->fast);
	lat_line(prefix, "  floor: hrtimer, then a work item", &run->floor);
	pr_info("%s  p99 over the floor's: slow side %lld us (%lld.%02lld granularities), fast path %lld us (%lld.%02lld)\n",
		prefix, slow / NSEC_PER_USEC, slow / (s64)run->gran,
		abs(slow % (s64)run->gran) * 100 / run->gran,
		fast / NSEC_PER_USEC, fast / (s64)run->gran,
		abs(fast % (s64)run->gran) * 100 / run->gran);
}
