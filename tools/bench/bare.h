/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module/queue.c's bare calls, driven the way module/paths.c drives them
 * under its locks, for the code that calls them without those locks: the
 * userspace benchmark (peer_timeq.c), the kernel one (kernel/timeq_bench.c)
 * and tools/testing/queue/bench_paths.c's plain-spinlock runs. Include
 * module/queue.h first.
 */
#ifndef TIMEQ_BENCH_BARE_H
#define TIMEQ_BENCH_BARE_H

/* Finish the pending work, a hold's budget at a time, as tq_finish() does. */
static inline void tq_bare_steps(struct timeq *q)
{
	while (q->pend != TQ_PEND_NONE) {
		q->budget = TIMEQ_HOLD;
		__timeq_step(q);
	}
}

/*
 * Expire everything before @time, @fn called on each node in order, and
 * move the clock to @time: __timeq_del_less_than() until it returns 0
 * with the clock there, pending work finished in between, as
 * timeq_del_less_than() does.
 */
static inline void tq_bare_expire(struct timeq *q, u64 time, timeq_fn fn,
				  void *arg)
{
	unsigned long n;

	for (;;) {
		q->budget = TIMEQ_HOLD;
		n = __timeq_del_less_than(q, time, ULONG_MAX, fn, arg);
		if (q->pend != TQ_PEND_NONE)
			tq_bare_steps(q);
		else if (!n && q->now >= time)
			return;
	}
}

#endif /* TIMEQ_BENCH_BARE_H */
