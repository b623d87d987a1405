// SPDX-License-Identifier: GPL-2.0
/*
 * timeq.ko: the module around the two-head calendar queue. It exports the
 * API of include/linux/timeq.h in the TIMEQ symbol namespace
 * (Documentation/api.rst says how to import it), makes the workqueue that
 * runs every queue's slow path (paths.c) and its debugfs directory
 * (stats.c), and registers /dev/timeq (dev.c).
 */
#include <linux/module.h>

#include "dev.h"
#include "paths.h"
#include "stats.h"
#include "trace/timeq.h"

static int __init timeq_init(void)
{
	int ret;

	tq_trace_init();
	ret = tq_wq_init();
	if (ret)
		return ret;
	tq_stats_init();
	ret = tq_dev_init();
	if (ret)
		goto err_stats;
	return 0;

err_stats:
	tq_stats_exit();
	tq_wq_exit();
	return ret;
}

static void __exit timeq_exit(void)
{
	tq_dev_exit();
	tq_stats_exit();
	tq_wq_exit();
}

module_init(timeq_init);
module_exit(timeq_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The timeq authors");
MODULE_DESCRIPTION("timeq: a two-head calendar queue of timers");
MODULE_VERSION("0.4");
