/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the paths count of every queue, declared once: the counters and
 * the names of the reasons to defer (&enum timeq_defer). struct
 * timeq_counters, debugfs (stats.c) and the timeq_fast_deferred event
 * (trace/timeq.h) are written from these lists.
 *
 * They are X-macros, as the kernel's trace headers write them: the
 * checkpatch gate takes from this file the findings that such lists draw
 * (tools/testing/gates/lib.sh).
 */
#ifndef _TIMEQ_COUNTERS_H
#define _TIMEQ_COUNTERS_H

#include <linux/timeq.h>
#include <uapi/linux/timeq.h>

/*
 * The counters, each a u64 of struct timeq_counters, in the order debugfs
 * shows them, one "name value" a line:
 *	fast_applied	updates the fast path applied in place
 *	fast_stored	those of them that moved a timer later by a store to
 *			its expires word alone (fast.c)
 *	fast_deferred	updates the fast path handed to the slow path
 *	fast_contended	trylocks of the fast path that failed
 *	fast_refused	updates the fast path refused with an error
 *	handoffs	requests put on the hand-off list; an update of a
 *			timer whose request is pending joins that one instead
 *	drained		handed-off requests the slow side took off the list:
 *			applied, dropped (a shut-down timer, or one a newer
 *			request took over), or put back until the clock makes
 *			room (counted each time taken)
 *	slow_runs	runs of the base's work item
 *	expiry_runs	expiries that removed nodes: timeq_del_less_than()
 *			calls, and a timer base's runs of its expiry
 *	expired		nodes those removed
 *	refiled		filings of a timer again at the later time a store
 *			had given it, instead of expiring it: by a base's
 *			expiry, or as TIMEQ_MIN finds the minimum
 *			(tq_clock_first()); a time beyond the window is filed
 *			at its last tick first, and again from there
 */
#define TQ_COUNTERS(FN)    \
	FN(fast_applied)   \
	FN(fast_stored)    \
	FN(fast_deferred)  \
	FN(fast_contended) \
	FN(fast_refused)   \
	FN(handoffs)       \
	FN(drained)        \
	FN(slow_runs)      \
	FN(expiry_runs)    \
	FN(expired)        \
	FN(refiled)

#define TQ_COUNTER_FIELD(name) u64 name;

/**
 * struct timeq_counters - what one CPU counted of one queue
 * @fast_deferred_why: @fast_deferred by why (&enum timeq_defer): they add
 *		up to @fast_deferred
 * @lateness:	a timer base's expired timers by how late their
 *		callbacks started, in the buckets of &struct timeq_stats
 *
 * The struct opens with the counters of TQ_COUNTERS(), in its order. The
 * paths count with this_cpu_inc(): no lock, and a line no other CPU
 * writes. Every field is a u64, so that a sum is a loop over them
 * (stats.c).
 */
struct timeq_counters {
	TQ_COUNTERS(TQ_COUNTER_FIELD)
	u64 fast_deferred_why[TIMEQ_DEFER_REASONS];
	u64 lateness[TIMEQ_LATENESS_BUCKETS];
};

#undef TQ_COUNTER_FIELD

/*
 * The reasons to defer, each with the name that debugfs,
 * timeq_defer_name() and the timeq_fast_deferred event give it. EM()
 * takes each but the last, which EM_LAST() takes.
 */
#define TQ_DEFER_NAMES(EM, EM_LAST)            \
	EM(TIMEQ_DEFER_CONTENDED, "contended") \
	EM(TIMEQ_DEFER_JOINED, "joined")       \
	EM(TIMEQ_DEFER_WORK, "work")           \
	EM(TIMEQ_DEFER_MIN_FAR, "min_far")     \
	EM(TIMEQ_DEFER_HEAD, "head")           \
	EM(TIMEQ_DEFER_CLOCK, "clock")         \
	EM(TIMEQ_DEFER_DUE, "due")             \
	EM_LAST(TIMEQ_DEFER_LANE, "lane")

/* A reason and its name, as __print_symbolic() and stats.c take them. */
/* clang-format off */
#define TQ_DEFER_SYMBOL(why, name) { why, name },
#define TQ_DEFER_SYMBOL_LAST(why, name) { why, name }
/* clang-format on */
/* A reason's value, for the tools that read a trace's binary buffer. */
#define TQ_DEFER_ENUM(why, name) TRACE_DEFINE_ENUM(why);

#endif /* _TIMEQ_COUNTERS_H */
