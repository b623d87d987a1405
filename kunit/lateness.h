/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How late a timer base's callbacks run, beside the floor of the path
 * they take (an hrtimer, then a work item): measured in the debug kernel by
 * the KUnit suite and in Debian's stock kernels by the smoke module, which
 * print the figures. Only "never early" is a test; a figure is not.
 */
#ifndef TIMEQ_LATENESS_H
#define TIMEQ_LATENESS_H

#include <linux/types.h>

/* The lateness of one group of timers, in nanoseconds. */
struct lateness {
	unsigned int	n;
	unsigned int	early;	/* callbacks that ran before their time */
	u64		p50, p99, max;
};

/**
 * struct lateness_run - one measurement
 * @slow:	timers armed by timeq_timer_arm()
 * @fast:	timers armed by timeq_fast_update(), each moving the minimum
 *		earlier, so that the base's irq_work must re-arm the hrtimer
 * @floor:	plain hrtimers whose handler queues a work item, which notes
 *		the time: the two hops every timeq callback takes
 * @gran:	the bases' granularity, in nanoseconds
 */
struct lateness_run {
	struct lateness	slow;
	struct lateness	fast;
	struct lateness	floor;
	u64		gran;
};

int lateness_measure(struct lateness_run *run, unsigned int n);
void lateness_print(const struct lateness_run *run, const char *prefix);

#endif /* TIMEQ_LATENESS_H */
