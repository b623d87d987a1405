// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: the tuning rule for in-kernel callers. The rule itself is
 * __timeq_tune() in tune.h, in plain C so that userspace (timeqctl
 * tune, the benchmark's timeq peer) compiles the same code; this file
 * gives it to callers of timeq_create() in the units that takes.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/timeq.h>

#include "tune.h"

/**
 * timeq_tune - the bucket width and count for an expected load
 * @horizon:	the window the queue will be created with, 1 to 2^40
 * @count:	the number of elements the queue is expected to hold, or 0
 *		if unknown
 * @mean_jump:	the mean distance from the clock to a new time, in ticks,
 *		or 0 if unknown
 * @delta:	set to the bucket width to pass to timeq_create()
 * @nbuckets:	set to the number of buckets to pass to timeq_create()
 *
 * The rule of Erickson, Ladner and LaMarca with timeq's measured costs
 * (__timeq_tune() in tune.h says how it chooses; timeqctl tune
 * prints its choice): the buckets hold about a hundred elements each, as
 * far as a memory bound of O(@count + sqrt(@horizon)) allows, and
 * @delta * @nbuckets + 1 covers @horizon. With @count and @mean_jump 0 it
 * is the choice timeq_create() makes when given no delta and no
 * nbuckets. A queue created with the values it returns::
 *
 *	timeq_tune(horizon, 10000, horizon / 2, &delta, &nbuckets);
 *	q = timeq_create(0, horizon, delta, nbuckets, GFP_KERNEL);
 *
 * Context: any; integer arithmetic only.
 * Return: 0, or -EINVAL if @horizon is out of range (then @delta and
 * @nbuckets are unchanged).
 */
int timeq_tune(u64 horizon, u64 count, u64 mean_jump, unsigned int *delta,
	       unsigned int *nbuckets)
{
	unsigned int delta_shift, buckets_shift;

	if (__timeq_tune(horizon, count, mean_jump, &delta_shift,
			 &buckets_shift))
		return -EINVAL;
	*delta = 1U << delta_shift;
	*nbuckets = 1U << buckets_shift;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(timeq_tune, TIMEQ_NS);
