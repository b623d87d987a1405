// SPDX-License-Identifier: GPL-2.0
/*
 * timeq.ko: the module around the two-head calendar queue. It exports the
 * API of include/linux/timeq.h in the TIMEQ symbol namespace
 * (Documentation/api.rst says how to import it), owns the workqueue that
 * runs every queue's slow path, makes its debugfs directory (stats.c), and
 * registers /dev/timeq (dev.c).
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include "dev.h"
#include "paths.h"
#include "stats.h"
#include "trace/timeq.h"

/*
 * The slow path of every queue, one work item per queue. Unbound: a run
 * applies hand-offs, expires up to a budget of timers and runs callbacks
 * that may sleep, and the softirq that queued it (the fast path's CPU)
 * should not also pay for that, so the scheduler may place it on any idle
 * CPU. Its own workqueue rather than system_unbound_wq: slow callbacks do
 * not hold up unrelated system work, and unloading drains it. Not
 * WQ_MEM_RECLAIM: no memory reclaim waits on a timer queue. A work item
 * never runs on two CPUs at once, which is what serialises a queue's
 * expiry.
 */
struct workqueue_struct *timeq_wq;

static int __init timeq_init(void)
{
	int ret;

	tq_trace_init();
	timeq_wq = alloc_workqueue("timeq", WQ_UNBOUND, 0);
	if (!timeq_wq)
		return -ENOMEM;
	tq_stats_init();
	ret = timeq_dev_init();
	if (ret)
		goto err_stats;
	return 0;

err_stats:
	tq_stats_exit();
	destroy_workqueue(timeq_wq);
	return ret;
}

static void __exit timeq_exit(void)
{
	timeq_dev_exit();
	tq_stats_exit();
	destroy_workqueue(timeq_wq);
}

module_init(timeq_init);
module_exit(timeq_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The timeq authors");
MODULE_DESCRIPTION("timeq: a two-head calendar queue of timers");
MODULE_VERSION("0.4");
