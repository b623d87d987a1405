/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tuning rule: the bucket width and count of a queue from its expected
 * element count and mean jump, and the time per event the model predicts.
 * Plain C with integer arithmetic and no header of its own, so that the
 * module (timeq_create(), and timeq_tune() in tune.c) and userspace
 * (timeqctl tune, the benchmark's timeq peer) compile the same code.
 */
#ifndef _TIMEQ_TUNE_H
#define _TIMEQ_TUNE_H

/*
 * The costs of module/queue.c in the calendar-queue model of Erickson,
 * Ladner and LaMarca: b per bucket the clock passes, c per element in the
 * current bucket, d per event, in picoseconds, and sqrt(b / c) in units of
 * 1 / TIMEQ_TUNE_ONE. Fitted by tools/bench/calibrate.c (`make bench`) on
 * an AMD EPYC (Zen 5) guest; Documentation/bench.rst has the fit and how
 * far it holds.
 */
#define TIMEQ_TUNE_B_PS 41600
#define TIMEQ_TUNE_C_PS 9
#define TIMEQ_TUNE_D_PS 23560
#define TIMEQ_TUNE_ONE 256
#define TIMEQ_TUNE_RHO 17357

/*
 * The bound on log2 of delta and of M: TIMEQ_MAX_LISTS_SHIFT of queue.h,
 * which queue.c checks this equals. A horizon is at most
 * 2^(2 * TIMEQ_TUNE_MAX_SHIFT) ticks.
 */
#define TIMEQ_TUNE_MAX_SHIFT 20

/* order_base_2(): the least k with 2^k >= @n. */
static inline unsigned int tq_tune_order(unsigned long long n)
{
	return n > 1 ? 64 - __builtin_clzll(n - 1) : 0;
}

/**
 * __timeq_tune - timeq_tune() in log2s: the bucket width and count for a queue
 * @horizon:	the queue's window, 1 to 2^40
 * @count:	the number of elements the queue is expected to hold, or 0
 *		if unknown
 * @mean_jump:	the mean distance from the clock to a new time, or 0 if
 *		unknown
 * @delta_shift: set to log2 of the bucket width delta
 * @buckets_shift: set to log2 of the number of buckets M
 *
 * Erickson, Ladner and LaMarca (2000, section 6) give the expected time
 * per event of a calendar queue holding N elements with mean jump mu as
 * b * mu / (N * delta) + c * (1 + N * delta / (2 * mu)) + d, where b, c and
 * d are costs of the implementation, fitted by least squares to measured
 * times (TIMEQ_TUNE_* above); it is least when a bucket holds
 * lambda = N * delta / mu = sqrt(2 * b / c) elements. Over powers of two
 * the cost is convex in log2(delta), so the best delta = 2^k is the least
 * k at which doubling stops paying: N * 2^k >= sqrt(b / c) * mu. M is then
 * the least power of two that covers @horizon (delta * M + 1 >= @horizon):
 * the paper's "M large enough", since no bucket list ever holds two bucket
 * numbers.
 *
 * Two bounds the paper does not need: the three spread arrays take 3 *
 * delta lists, so delta is held to the larger of the count and the side
 * of a square calendar (memory O(N + sqrt(horizon))); and both delta and
 * M to 2^TIMEQ_TUNE_MAX_SHIFT. Unknown, @mean_jump is taken as @horizon
 * / 2 (times spread over the window) and @count as the side of a square
 * calendar, which makes the choice that square calendar: delta = 2^(h / 2)
 * (rounded down) and M = 2^(h - h / 2), 2^h the least power of two with
 * 2^h + 1 >= @horizon.
 *
 * Return: 0, or -1 if @horizon is out of range.
 */
static inline int __timeq_tune(unsigned long long horizon,
			       unsigned long long count,
			       unsigned long long mean_jump,
			       unsigned int *delta_shift,
			       unsigned int *buckets_shift)
{
	const unsigned long long top = 1ULL << (2 * TIMEQ_TUNE_MAX_SHIFT);
	unsigned int want, count_shift, k, low, high;

	if (!horizon || horizon > top)
		return -1;
	want = tq_tune_order(horizon - 1);
	if (!mean_jump)
		mean_jump = horizon / 2 ? horizon / 2 : 1;
	if (!count)
		count = 1ULL << (want / 2);
	/* Both bounded so that the products below fit in 64 bits. */
	if (mean_jump > top)
		mean_jump = top;
	if (count > 1ULL << 31)
		count = 1ULL << 31;
	count_shift = tq_tune_order(count);
	/* M <= 2^20 needs delta >= 2^(want - 20); want <= 40 keeps low <= high. */
	low = want > TIMEQ_TUNE_MAX_SHIFT ? want - TIMEQ_TUNE_MAX_SHIFT : 0;
	high = want / 2 > count_shift ? want / 2 : count_shift;
	if (high > want)
		high = want;
	if (high > TIMEQ_TUNE_MAX_SHIFT)
		high = TIMEQ_TUNE_MAX_SHIFT;
	for (k = low; k < high; k++)
		if ((count << k) * TIMEQ_TUNE_ONE >= TIMEQ_TUNE_RHO * mean_jump)
			break;
	*delta_shift = k;
	*buckets_shift = want - k;
	return 0;
}

/**
 * tq_tune_cost_ps - the model's time per event of a shape
 * @count:	the number of elements N, 1 to 2^31
 * @mean_jump:	the mean jump mu, 1 to 2^40
 * @delta_shift: log2 of the bucket width delta, at most 20
 *
 * The model's b * mu / (N * delta) + c * (1 + N * delta / (2 * mu)) + d,
 * with the fitted TIMEQ_TUNE_* costs. Documentation/bench.rst says where it
 * holds: below half an element a bucket timeq costs less than it says,
 * since its bitmaps skip empty buckets.
 *
 * Return: the predicted time per hold event, in picoseconds.
 */
static inline unsigned long long tq_tune_cost_ps(unsigned long long count,
						 unsigned long long mean_jump,
						 unsigned int delta_shift)
{
	unsigned long long n_delta = count << delta_shift;

	return TIMEQ_TUNE_B_PS * mean_jump / n_delta + TIMEQ_TUNE_C_PS +
	       TIMEQ_TUNE_C_PS * n_delta / (2 * mean_jump) + TIMEQ_TUNE_D_PS;
}

#endif /* _TIMEQ_TUNE_H */
