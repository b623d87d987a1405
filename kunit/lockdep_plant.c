// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_lockdep_plant.ko: a misuse that the kernel-doc of timeq_delete_sync()
 * or of timeq_expire() forbids, planted for lockdep to report
 * (tools/testing/vm/plant-lockdep.sh, which alone loads it). Built by the
 * Kbuild with TIMEQ_CLIENT=y.
 *
 * Loading it arms a timer, due at once, whose callback takes plant_lock,
 * and expires the base: when timeq_expire() returns, the callback has run,
 * here or in the base's work. Then, holding plant_lock, it calls
 * timeq_delete_sync() on the timer (misuse=sync) or timeq_expire() on its
 * base (misuse=expire). Had the callback been running then, waiting for
 * plant_lock, that would deadlock; it has returned, so nothing waits, and
 * lockdep reports the circular dependency between plant_lock and the
 * timer's class, or the base's @expiry, all the same. The load then
 * succeeds, and unloading does nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timeq.h>

static char *misuse = "sync";
module_param(misuse, charp, 0444);
MODULE_PARM_DESC(misuse, "what to call holding plant_lock: sync (timeq_delete_sync(), the default) or expire (timeq_expire())");

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
	bool expire = !strcmp(misuse, "expire");
	struct timeq_timer plant_timer;
	struct timeq_base *base;
	int ret;

	if (!expire && strcmp(misuse, "sync"))
		return -EINVAL;
	base = timeq_base_create(NSEC_PER_MSEC, 1 << 10, 0, 0, GFP_KERNEL);
	if (IS_ERR(base))
		return PTR_ERR(base);
	timeq_timer_init(&plant_timer, plant_fn);
	ret = timeq_timer_arm(base, &plant_timer, timeq_base_ticks(base));
	if (ret)
		goto out;
	timeq_expire(base);
	if (WARN_ON(!completion_done(&plant_ran))) {
		timeq_delete_sync(base, &plant_timer);
		ret = -EIO;
		goto out;
	}
	mutex_lock(&plant_lock);
	if (expire)
		timeq_expire(base);
	else
		timeq_delete_sync(base, &plant_timer);
	mutex_unlock(&plant_lock);
	pr_info("misuse=%s done under plant_lock\n", misuse);
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
MODULE_DESCRIPTION("timeq: a sync or an expiry under a lock a callback takes, for lockdep");
MODULE_IMPORT_NS(TIMEQ_NS);
