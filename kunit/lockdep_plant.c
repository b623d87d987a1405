// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_lockdep_plant.ko: the misuse that timeq_delete_sync()'s kernel-doc
 * forbids, planted for lockdep to report (tools/testing/vm/plant-lockdep.sh,
 * which alone loads it). Built by the Kbuild with TIMEQ_CLIENT=y.
 *
 * Loading it arms a timer whose callback takes plant_lock, waits until the
 * callback has run, then calls timeq_delete_sync() on the timer holding
 * plant_lock. Had the callback not yet run, that would deadlock; run
 * first, it cannot, and lockdep reports the circular dependency between
 * plant_lock and the timer's class all the same. The load then succeeds,
 * and unloading does nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/time64.h>
#include <linux/timeq.h>

static DEFINE_MUTEX(plant_lock);
static DECLARE_COMPLETION(plant_ran);

static void plant_fn(struct timeq_timer *timer)
{
	mutex_lock(&plant_lock);
	mutex_unlock(&plant_lock);
	complete(&plant_ran);
}

static int __init timeq_lockdep_plant_init(void)
{
	struct timeq_timer timer;
	struct timeq_base *base;
	int ret;

	base = timeq_base_create(NSEC_PER_MSEC, 1 << 10, 0, 0, GFP_KERNEL);
	if (IS_ERR(base))
		return PTR_ERR(base);
	timeq_timer_init(&timer, plant_fn);
	ret = timeq_timer_arm(base, &timer, timeq_base_ticks(base));
	if (ret)
		goto out;
	wait_for_completion(&plant_ran);
	mutex_lock(&plant_lock);
	timeq_delete_sync(base, &timer);
	mutex_unlock(&plant_lock);
	pr_info("timeq_delete_sync() called under plant_lock\n");
out:
	timeq_base_destroy(base);
	return ret;
}

static void __exit timeq_lockdep_plant_exit(void)
{
}

module_init(timeq_lockdep_plant_init);
module_exit(timeq_lockdep_plant_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq: timeq_delete_sync() under a lock its callback takes, for lockdep");
MODULE_IMPORT_NS(TIMEQ_NS);
