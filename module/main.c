// SPDX-License-Identifier: GPL-2.0
/*
 * timeq.ko: the module around the two-head calendar queue. For now it
 * exports the data structure of queue.c to other modules, in the TIMEQ
 * symbol namespace (MODULE_IMPORT_NS(TIMEQ) to use it).
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The timeq authors");
MODULE_DESCRIPTION("timeq: a two-head calendar queue of timers");
MODULE_VERSION("0.1");
