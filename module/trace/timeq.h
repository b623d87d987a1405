/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeq's tracepoints, named and shaped after include/trace/events/timer.h
 * (timer_start, timer_expire_entry, timer_expire_exit, timer_cancel):
 *
 *	timeq_insert		the slow side queued a node or armed a timer
 *	timeq_update		... moved one
 *	timeq_delete		... removed one before it expired
 *	timeq_fast_applied	the fast path moved or armed a timer in place
 *	timeq_fast_deferred	... handed the request to the slow path
 *	timeq_fast_refused	... refused it with an error
 *	timeq_handoff_drained	the slow side applied handed-off requests
 *	timeq_expire_entry	a node expires: just before its callback
 *	timeq_expire_exit	... just after it
 *	timeq_slow_entry	a run of the queue's slow path begins
 *	timeq_slow_exit		... and ends
 *
 * A queue is shown by its number (queue=), as in debugfs. A node is shown
 * by a keyed hash of its address (node=, tq_trace_node()), the same for a
 * node in every event: it follows one node through its life (module/
 * trace.c says how far an id names one node) and shows no
 * kernel address. timer.h stores the pointer itself and prints it with %p,
 * which hashes only the text; the binary ring buffer (trace_pipe_raw,
 * perf) would still hold the address. Nor is a callback's address
 * recorded: a stack trace trigger on an event names the caller.
 *
 * Times are in the queue's ticks; now= is the queue's clock, read without
 * its locks where the event is outside them. lateness= is in nanoseconds.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM timeq

#if !defined(_TRACE_TIMEQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TIMEQ_H

#include <linux/timeq.h>
#include <linux/tracepoint.h>

#include "../counters.h"
#include "../queue.h"

/* module/trace.c: a node's id in the events; the key, drawn at load. */
u64 tq_trace_node(const struct timeq_node *node);
void tq_trace_init(void);

/*
 * timeq_fast_deferred's reason= is an &enum timeq_defer: its values for
 * the tools that read the binary buffer, and below, for the text, the
 * names that timeq_defer_name() gives (counters.h).
 */
TQ_DEFER_NAMES(TQ_DEFER_ENUM, TQ_DEFER_ENUM)

/*
 * Laid out by hand, as the kernel's trace headers are, but aligned to the
 * open parenthesis so that checkpatch --strict is content; clang-format
 * does not know these macros, and would run the fields together.
 */
/* clang-format off */
DECLARE_EVENT_CLASS(timeq_node_class,
		    TP_PROTO(struct timeq *q, struct timeq_node *node,
			     u64 time),
		    TP_ARGS(q, node, time),
		    TP_STRUCT__entry(__field(u64, queue)
				     __field(u64, node)
				     __field(u64, time)
				     __field(u64, now)),
		    TP_fast_assign(__entry->queue = q->id;
				   __entry->node = tq_trace_node(node);
				   __entry->time = time;
				   __entry->now = READ_ONCE(q->now);),
		    TP_printk("queue=%llu node=%016llx time=%llu now=%llu",
			      __entry->queue, __entry->node, __entry->time,
			      __entry->now));

/* timeq_insert(), timeq_timer_arm() of a timer not queued, a drain. */
DEFINE_EVENT(timeq_node_class, timeq_insert,
	     TP_PROTO(struct timeq *q, struct timeq_node *node, u64 time),
	     TP_ARGS(q, node, time));

/* timeq_delete(), the timer deletes, timeq_delete_min(). */
DEFINE_EVENT(timeq_node_class, timeq_delete,
	     TP_PROTO(struct timeq *q, struct timeq_node *node, u64 time),
	     TP_ARGS(q, node, time));

/* timeq_update(), timeq_timer_arm() of a queued timer, a drain. */
TRACE_EVENT(timeq_update,
	    TP_PROTO(struct timeq *q, struct timeq_node *node, u64 old,
		     u64 time),
	    TP_ARGS(q, node, old, time),
	    TP_STRUCT__entry(__field(u64, queue)
			     __field(u64, node)
			     __field(u64, old)
			     __field(u64, time)
			     __field(u64, now)),
	    TP_fast_assign(__entry->queue = q->id;
			   __entry->node = tq_trace_node(node);
			   __entry->old = old;
			   __entry->time = time;
			   __entry->now = READ_ONCE(q->now);),
	    TP_printk("queue=%llu node=%016llx old=%llu time=%llu now=%llu",
		      __entry->queue, __entry->node, __entry->old,
		      __entry->time, __entry->now));

/*
 * The fast path's outcomes: @time is the time asked for, @result what
 * came of it (an errno for timeq_fast_refused, an &enum timeq_defer for
 * timeq_fast_deferred, 0 for timeq_fast_applied).
 */
DECLARE_EVENT_CLASS(timeq_fast_class,
		    TP_PROTO(struct timeq *q, struct timeq_timer *timer,
			     u64 time, int result),
		    TP_ARGS(q, timer, time, result),
		    TP_STRUCT__entry(__field(u64, queue)
				     __field(u64, node)
				     __field(u64, time)
				     __field(u64, now)
				     __field(int, result)),
		    TP_fast_assign(__entry->queue = q->id;
				   __entry->node = tq_trace_node(&timer->node);
				   __entry->time = time;
				   __entry->now = READ_ONCE(q->now);
				   __entry->result = result;),
		    TP_printk("queue=%llu node=%016llx time=%llu now=%llu",
			      __entry->queue, __entry->node, __entry->time,
			      __entry->now));

DEFINE_EVENT(timeq_fast_class, timeq_fast_applied,
	     TP_PROTO(struct timeq *q, struct timeq_timer *timer, u64 time,
		      int result),
	     TP_ARGS(q, timer, time, result));

DEFINE_EVENT_PRINT(timeq_fast_class, timeq_fast_deferred,
		   TP_PROTO(struct timeq *q, struct timeq_timer *timer,
			    u64 time, int result),
		   TP_ARGS(q, timer, time, result),
		   TP_printk("queue=%llu node=%016llx time=%llu now=%llu reason=%s",
			     __entry->queue, __entry->node, __entry->time,
			     __entry->now,
			     __print_symbolic(__entry->result,
					      TQ_DEFER_NAMES(TQ_DEFER_SYMBOL,
							     TQ_DEFER_SYMBOL_LAST))));

DEFINE_EVENT_PRINT(timeq_fast_class, timeq_fast_refused,
		   TP_PROTO(struct timeq *q, struct timeq_timer *timer,
			    u64 time, int result),
		   TP_ARGS(q, timer, time, result),
		   TP_printk("queue=%llu node=%016llx time=%llu now=%llu error=%d",
			     __entry->queue, __entry->node, __entry->time,
			     __entry->now, __entry->result));

/* The slow side applied @count handed-off requests, oldest first. */
TRACE_EVENT(timeq_handoff_drained,
	    TP_PROTO(struct timeq *q, unsigned long count),
	    TP_ARGS(q, count),
	    TP_STRUCT__entry(__field(u64, queue)
			     __field(unsigned long, count)
			     __field(u64, now)),
	    TP_fast_assign(__entry->queue = q->id;
			   __entry->count = count;
			   __entry->now = READ_ONCE(q->now);),
	    TP_printk("queue=%llu count=%lu now=%llu",
		      __entry->queue, __entry->count, __entry->now));

/*
 * Just before an expired node's callback: the node has left the queue,
 * whose clock has moved to its time at most. @lateness is how long after
 * its time the callback starts, in nanoseconds, in a timer base; 0 on
 * a plain one, whose ticks are not tied to a clock.
 */
TRACE_EVENT(timeq_expire_entry,
	    TP_PROTO(struct timeq *q, struct timeq_node *node, u64 time,
		     u64 lateness),
	    TP_ARGS(q, node, time, lateness),
	    TP_STRUCT__entry(__field(u64, queue)
			     __field(u64, node)
			     __field(u64, time)
			     __field(u64, now)
			     __field(u64, lateness)),
	    TP_fast_assign(__entry->queue = q->id;
			   __entry->node = tq_trace_node(node);
			   __entry->time = time;
			   __entry->now = READ_ONCE(q->now);
			   __entry->lateness = lateness;),
	    TP_printk("queue=%llu node=%016llx time=%llu now=%llu lateness=%llu",
		      __entry->queue, __entry->node, __entry->time,
		      __entry->now, __entry->lateness));

/*
 * Just after the callback returns. The callback may have freed the node:
 * @node is hashed, never read.
 */
TRACE_EVENT(timeq_expire_exit,
	    TP_PROTO(struct timeq *q, struct timeq_node *node),
	    TP_ARGS(q, node),
	    TP_STRUCT__entry(__field(u64, queue)
			     __field(u64, node)),
	    TP_fast_assign(__entry->queue = q->id;
			   __entry->node = tq_trace_node(node);),
	    TP_printk("queue=%llu node=%016llx",
		      __entry->queue, __entry->node));

/* A run of the slow path (the base's work item) begins, and ends. */
DECLARE_EVENT_CLASS(timeq_slow_class,
		    TP_PROTO(struct timeq *q),
		    TP_ARGS(q),
		    TP_STRUCT__entry(__field(u64, queue)
				     __field(u64, now)
				     __field(unsigned long, elements)),
		    TP_fast_assign(__entry->queue = q->id;
				   __entry->now = READ_ONCE(q->now);
				   __entry->elements = tq_count(q);),
		    TP_printk("queue=%llu now=%llu elements=%lu",
			      __entry->queue, __entry->now,
			      __entry->elements));

DEFINE_EVENT(timeq_slow_class, timeq_slow_entry,
	     TP_PROTO(struct timeq *q),
	     TP_ARGS(q));

DEFINE_EVENT(timeq_slow_class, timeq_slow_exit,
	     TP_PROTO(struct timeq *q),
	     TP_ARGS(q));
/* clang-format on */

#endif /* _TRACE_TIMEQ_H */

/* The module is out of tree: define_trace.h finds this file by -I. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE timeq
#include <trace/define_trace.h>
