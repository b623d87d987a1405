// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_client.ko: an in-kernel user of the timeq API with work in flight,
 * for the teardown tests (tools/testing/selftests/timeq/timeq_teardown.c).
 * Built by the Kbuild with TIMEQ_CLIENT=y.
 *
 * Loading it creates @queues timer bases of @timers timers each. Every
 * callback re-arms its timer a few ticks later, for ever, and a soft
 * hrtimer per base makes fast updates from softirq context to random
 * timers of its base (half of them), near and far, every @kick_us.
 * Nothing stops by itself: unloading is what is tested.
 *
 * Unloading follows the shutdown order of include/linux/timeq.h:
 *
 *  1. timeq_shutdown_sync() on every timer, while its callback re-arms it
 *     and the softirq's fast updates race the call: from then on each is
 *     refused with -ESHUTDOWN, and no callback runs;
 *  2. the softirq sources stopped (hrtimer_cancel()), so that no fast
 *     update reaches a timer any more;
 *  3. timeq_base_destroy() on every base, then the timers freed.
 *
 * With @handoffs, every other base ends with requests in flight instead:
 * after step 2 its timers are made usable again (timeq_timer_init()),
 * armed through the fast path at times that the fast path hands to the
 * slow path, and timeq_base_destroy() runs at once, which must drop what
 * the slow path has not applied yet; the timers are freed right after.
 *
 * What must hold is checked with WARN_ON_ONCE(), which fails a test run:
 * no callback runs for a timer once its shutdown has returned, none runs
 * early, no timer is queued once shut down, and no call fails but those
 * refused for the shutdown. KASAN sees the rest: any access to a timer,
 * a base or this module's memory after it is freed. The read-only
 * parameter "progress" says how far the traffic got.
 *
 * It uses include/linux/timeq.h alone, as any in-kernel user would.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/timeq.h>

static unsigned int queues = 4;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "timer bases (default 4)");

static unsigned int timers = 16;
module_param(timers, uint, 0444);
MODULE_PARM_DESC(timers, "timers per base (default 16)");

static unsigned int kick_us = 1000;
module_param(kick_us, uint, 0444);
MODULE_PARM_DESC(kick_us, "microseconds between two rounds of fast updates (default 1000)");

static bool handoffs = true;
module_param(handoffs, bool, 0444);
MODULE_PARM_DESC(handoffs, "destroy every other base with hand-offs in flight (default on)");

#define CLIENT_GRAN	(1000 * 1000ULL)	/* ns per tick: 1 ms */
#define CLIENT_HORIZON	BIT(22)			/* ticks: about 70 min */
#define CLIENT_REARM	20			/* ticks ahead, at most */
#define CLIENT_FAR	100000			/* ticks ahead, far */
#define CLIENT_UPDATES	4			/* fast updates per round */

/**
 * struct client_timer - one timer of the client
 * @timer:	the timer
 * @cq:		its base, and what drives it
 * @dead:	set once timeq_shutdown_sync() has returned for it
 */
struct client_timer {
	struct timeq_timer	timer;
	struct client_queue	*cq;
	bool			dead;
};

/**
 * struct client_queue - one timer base of the client, and what drives it
 * @base:	the timer base
 * @t:		its timers
 * @kick:	the soft hrtimer that makes fast updates
 */
struct client_queue {
	struct timeq_base	*base;
	struct client_timer	*t;
	struct hrtimer		kick;
};

static struct client_queue *client;

/* Global, so that "progress" can be read at any time, even at unload. */
static atomic_long_t fired, rearm_refused, fast_applied, fast_deferred,
	fast_refused, early;

static int client_progress_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "fired %ld rearm_refused %ld fast_applied %ld fast_deferred %ld fast_refused %ld early %ld\n",
			  atomic_long_read(&fired),
			  atomic_long_read(&rearm_refused),
			  atomic_long_read(&fast_applied),
			  atomic_long_read(&fast_deferred),
			  atomic_long_read(&fast_refused),
			  atomic_long_read(&early));
}

static const struct kernel_param_ops client_progress_ops = {
	.get = client_progress_get,
};
module_param_cb(progress, &client_progress_ops, NULL, 0444);
MODULE_PARM_DESC(progress, "what the traffic did so far (read-only)");

/* A few ticks from now on @base: where callbacks re-arm. */
static u64 client_soon(struct timeq_base *base)
{
	return timeq_base_ticks(base) + 1 + get_random_u32() % CLIENT_REARM;
}

/*
 * Count a callback; it must not run after its timer's shutdown, nor early.
 * Only the timers of odd index are checked for the latter: the softirq
 * moves the others, and may arm one again while its callback runs, which
 * changes the time the callback would read.
 */
static void client_count(struct client_timer *ct)
{
	WARN_ON_ONCE(READ_ONCE(ct->dead));
	if ((ct - ct->cq->t) % 2 &&
	    WARN_ON_ONCE(ktime_get_ns() <
			 timeq_node_time(&ct->timer.node) * CLIENT_GRAN))
		atomic_long_inc(&early);
	atomic_long_inc(&fired);
}

/* The callback: run, then re-arm, until the shutdown refuses it. */
static void client_fire(struct timeq_timer *timer)
{
	struct client_timer *ct =
		container_of(timer, struct client_timer, timer);
	struct timeq_base *base = ct->cq->base;
	int ret;

	client_count(ct);
	ret = timeq_timer_arm(base, timer, client_soon(base));
	if (ret == -ESHUTDOWN)
		atomic_long_inc(&rearm_refused);
	else
		WARN_ONCE(ret, "re-arm from the callback: %d\n", ret);
}

/* The callback of the last round, with hand-offs: no re-arm. */
static void client_fire_once(struct timeq_timer *timer)
{
	client_count(container_of(timer, struct client_timer, timer));
}

/* Fast updates of random timers of @cq; softirq, or bottom halves off. */
static unsigned int client_fast(struct client_queue *cq, unsigned int n,
				bool far)
{
	unsigned int deferred = 0;
	struct client_timer *ct;
	u64 ticks;
	int ret;

	while (n--) {
		/* Timers of even index only: see client_count(). */
		ct = &cq->t[get_random_u32() % timers & ~1U];
		ticks = timeq_base_ticks(cq->base);
		if (far || get_random_u32() % 2)
			ticks += CLIENT_FAR + get_random_u32() % CLIENT_FAR;
		else
			ticks += get_random_u32() % CLIENT_REARM;
		ret = timeq_fast_update(cq->base, &ct->timer, ticks);
		if (ret == TIMEQ_APPLIED)
			atomic_long_inc(&fast_applied);
		else if (ret == TIMEQ_DEFERRED)
			deferred++;
		else if (ret == -ESHUTDOWN)
			atomic_long_inc(&fast_refused);
		else
			WARN_ONCE(ret, "fast update: %d\n", ret);
	}
	atomic_long_add(deferred, &fast_deferred);
	return deferred;
}

static enum hrtimer_restart client_kick(struct hrtimer *hrtimer)
{
	struct client_queue *cq;

	cq = container_of(hrtimer, struct client_queue, kick);
	client_fast(cq, CLIENT_UPDATES, false);
	hrtimer_forward_now(hrtimer, ns_to_ktime(kick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/*
 * The end of a base with requests in flight: its timers, shut down and
 * quiet, are made usable again and armed far through the fast path, which
 * hands the requests to the slow path (the base is empty, and a far
 * minimum is the slow path's to settle); then the base is destroyed at
 * once. Returns whether the fast path handed any of them off, just before
 * the destroy: whether the slow path has applied them yet, a caller of
 * include/linux/timeq.h cannot tell.
 */
static bool client_destroy_handoffs(struct client_queue *cq)
{
	bool handed = false;
	unsigned int i;

	for (i = 0; i < timers; i++) {
		timeq_timer_init(&cq->t[i].timer, client_fire_once);
		cq->t[i].dead = false;
	}
	local_bh_disable();
	for (i = 0; i < timers; i++)
		handed |= client_fast(cq, 1, true);
	local_bh_enable();
	timeq_base_destroy(cq->base);
	return handed;
}

/* Tear down the first @n bases, in the documented order. */
static void client_stop(unsigned int n)
{
	unsigned int i, j, handed = 0;
	struct client_timer *ct;

	for (i = 0; i < n; i++) {
		for (j = 0; j < timers; j++) {
			ct = &client[i].t[j];
			timeq_shutdown_sync(client[i].base, &ct->timer);
			WRITE_ONCE(ct->dead, true);
			WARN_ON_ONCE(timeq_node_queued(&ct->timer.node));
		}
	}
	for (i = 0; i < n; i++)
		hrtimer_cancel(&client[i].kick);
	for (i = 0; i < n; i++) {
		/* No fast update reaches them now; none re-armed them. */
		for (j = 0; j < timers; j++)
			WARN_ON_ONCE(timeq_node_queued(&client[i].t[j].timer.node));
		if (handoffs && i % 2)
			handed += client_destroy_handoffs(&client[i]);
		else
			timeq_base_destroy(client[i].base);
		kfree(client[i].t);
	}
	pr_info("stopped %u queues: %ld callbacks, %ld re-arms refused, %ld fast updates applied, %ld deferred, %ld refused; %u destroyed just after hand-offs\n",
		n, atomic_long_read(&fired), atomic_long_read(&rearm_refused),
		atomic_long_read(&fast_applied),
		atomic_long_read(&fast_deferred),
		atomic_long_read(&fast_refused), handed);
}

static int client_start(struct client_queue *cq)
{
	unsigned int i;
	int ret;

	cq->t = kcalloc(timers, sizeof(*cq->t), GFP_KERNEL);
	if (!cq->t)
		return -ENOMEM;
	cq->base = timeq_base_create(CLIENT_GRAN, CLIENT_HORIZON, 0, 0,
				     GFP_KERNEL);
	if (IS_ERR(cq->base)) {
		ret = PTR_ERR(cq->base);
		goto err_free;
	}
	for (i = 0; i < timers; i++) {
		cq->t[i].cq = cq;
		timeq_timer_init(&cq->t[i].timer, client_fire);
	}
	for (i = 0; i < timers; i++) {
		ret = timeq_timer_arm(cq->base, &cq->t[i].timer,
				      client_soon(cq->base));
		if (ret)
			goto err_destroy;
	}
	hrtimer_setup(&cq->kick, client_kick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&cq->kick, ns_to_ktime(kick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
	return 0;

err_destroy:
	for (i = 0; i < timers; i++)
		timeq_shutdown_sync(cq->base, &cq->t[i].timer);
	timeq_base_destroy(cq->base);
err_free:
	kfree(cq->t);
	return ret;
}

static int __init timeq_client_init(void)
{
	unsigned int i;
	int ret;

	if (!queues || !timers || !kick_us)
		return -EINVAL;
	client = kcalloc(queues, sizeof(*client), GFP_KERNEL);
	if (!client)
		return -ENOMEM;
	for (i = 0; i < queues; i++) {
		ret = client_start(&client[i]);
		if (ret)
			goto err_stop;
	}
	pr_info("%u queues of %u timers running\n", queues, timers);
	return 0;

err_stop:
	client_stop(i);
	kfree(client);
	return ret;
}

static void __exit timeq_client_exit(void)
{
	client_stop(queues);
	kfree(client);
}

module_init(timeq_client_init);
module_exit(timeq_client_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq: an in-kernel client with timers in flight, for teardown tests");
MODULE_IMPORT_NS(TIMEQ_NS);
