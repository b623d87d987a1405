// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: what the module counts of every queue, and where it shows it.
 *
 * Counting. Each queue has a struct timeq_counters for each CPU, allocated
 * with it by timeq_create(). The paths count with this_cpu_inc(), which
 * takes no lock and writes a line that no other CPU writes (on x86, one
 * instruction), so counting keeps the fast path O(1) and never makes it
 * wait. A reader adds up the CPUs' copies; a sum taken while the queue
 * runs may lack the counts of that moment. The node visits of the slow
 * side (queue.c's @total_visits and @max_visits) are counted under the
 * queue's locks, and read under them.
 *
 * The registry. Every queue gets a number at creation, from 1, and is
 * listed until timeq_destroy(), under tq_registry_lock. The number names
 * the queue in debugfs and in the trace events (trace/timeq.h): no
 * address is ever shown. A destroyed queue's counts are added to those of
 * the queues destroyed before it, so the global figures cover every queue
 * the module has had.
 *
 * debugfs, under /sys/kernel/debug/timeq/, one "name value" a line:
 *
 *	stats		every queue together: how many were created, destroyed
 *			and are live, the elements of the live ones, and the
 *			sums of every counter
 *	queues/<id>	one live queue: its shape, its elements in each
 *			region, its current bucket and clock, its pending
 *			work, the slow side's node visits, and its counters
 *
 * The lateness histogram is one "lateness_us_<from>_<to> count" line a
 * bucket, "inf" closing the last.
 *
 * What root sees. The files are mode 0400, for root alone, however
 * debugfs is mounted. They hold counts and each queue's shape and clock,
 * and nothing about who uses a queue: no element's time, cookie or
 * handle, no uid, pid or command name, no address. /proc/timer_stats
 * showed every user the PIDs and command names behind the system's timers
 * (CVE-2017-5967); here even root sees only numbers. The owner of a
 * /dev/timeq file reads its queue's counts, shape, expiries and lateness,
 * not its internals, with TIMEQ_STATS, which does not tell the queue's
 * number, so no user learns from it how many queues others have made.
 */
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timeq.h>
#include <kunit/visibility.h>

#include "paths.h"
#include "queue.h"
#include "stats.h"

static_assert(sizeof(struct timeq_counters) % sizeof(u64) == 0);

static DEFINE_MUTEX(tq_registry_lock);
static LIST_HEAD(tq_queues);			/* under tq_registry_lock */
static u64 tq_created;				/* under tq_registry_lock */
static u64 tq_destroyed;			/* under tq_registry_lock */
static struct timeq_counters tq_retired;	/* under tq_registry_lock */

static struct dentry *tq_debugfs;
static struct dentry *tq_debugfs_queues;

/* The counters debugfs names, with where each lies. */
#define TQ_COUNTER(field) { #field, offsetof(struct timeq_counters, field) },

static const struct {
	const char	*name;
	size_t		offset;
} tq_counter_names[] = { TQ_COUNTERS(TQ_COUNTER) };

#undef TQ_COUNTER

static const struct {
	unsigned int	why;
	const char	*name;
} tq_defer_names[] = { TQ_DEFER_NAMES(TQ_DEFER_SYMBOL, TQ_DEFER_SYMBOL) };

static_assert(ARRAY_SIZE(tq_defer_names) == TIMEQ_DEFER_REASONS);

/*
 * Add @c to @sum, field by field. Another CPU may be counting in @c
 * (this_cpu_inc()) meanwhile: each word is read once, marked as such.
 */
static void tq_counters_add(struct timeq_counters *sum,
			    const struct timeq_counters *c)
{
	const u64 *from = (const u64 *)c;
	u64 *to = (u64 *)sum;
	size_t i;

	for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
		to[i] += READ_ONCE(from[i]);
}

/* Add the counters of every CPU of @q to @sum. */
static void tq_counters_sum(struct timeq_counters *sum, struct timeq *q)
{
	int cpu;

	for_each_possible_cpu(cpu)
		tq_counters_add(sum, per_cpu_ptr(q->counters, cpu));
}

/**
 * tq_stats_lateness - count a timer that expired late
 * @q:		a timer base's queue
 * @ns:		how late its callback starts, in nanoseconds
 *
 * Context: any; counts on this CPU.
 */
void tq_stats_lateness(struct timeq *q, u64 ns)
{
	unsigned int i = fls64(div_u64(ns, NSEC_PER_USEC));

	i = min_t(unsigned int, i, TIMEQ_LATENESS_BUCKETS - 1);
	this_cpu_inc(q->counters->lateness[i]);
}
EXPORT_SYMBOL_IF_KUNIT(tq_stats_lateness);

/**
 * tq_stats_snapshot - read a queue's shape, state and counters
 * @q:		the queue
 * @s:		where to put them
 *
 * Takes the queue's locks for O(1), to read the shape and state in one
 * hold; then adds up the CPUs' counters without them.
 *
 * Context: process context; takes every lock of @q.
 */
void tq_stats_snapshot(struct timeq *q, struct tq_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	tq_lock(q);
	s->horizon = q->horizon;
	s->delta = tq_delta(q);
	s->buckets = tq_nbuckets(q);
	s->now = q->now;
	s->bucket = tq_cur(q);
	s->head = q->head->count;
	s->head2 = q->head2->count;
	s->focus = q->focus->count;
	s->calendar = q->calendar_count;
	s->pend = q->pend;
	s->visits = q->total_visits;
	s->max_visits = q->max_visits;
	tq_unlock(q);
	tq_counters_sum(&s->counters, q);
}
EXPORT_SYMBOL_IF_KUNIT(tq_stats_snapshot);

/* timeq_get_fast_stats() of a queue. */
void tq_get_fast_stats(struct timeq *q, struct timeq_fast_stats *stats)
{
	struct timeq_counters sum = {};

	tq_counters_sum(&sum, q);
	stats->applied = sum.fast_applied;
	stats->stored = sum.fast_stored;
	stats->refiled = sum.refiled;
	stats->refused = sum.fast_refused;
	BUILD_BUG_ON(sizeof(stats->deferred) != sizeof(sum.fast_deferred_why));
	memcpy(stats->deferred, sum.fast_deferred_why, sizeof(stats->deferred));
}
EXPORT_SYMBOL_IF_KUNIT(tq_get_fast_stats);

/**
 * timeq_defer_name - the name of a reason to defer
 * @why:	an &enum timeq_defer
 *
 * As the timeq_fast_deferred event and debugfs spell it.
 *
 * Context: any.
 * Return: the name, or NULL for a value that is no reason.
 */
const char *timeq_defer_name(unsigned int why)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tq_defer_names); i++)
		if (tq_defer_names[i].why == why)
			return tq_defer_names[i].name;
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(timeq_defer_name, TIMEQ_NS);

/**
 * timeq_bytes - the memory a queue holds
 * @q:		the queue
 *
 * Its structure; the one block of its lists, bitmaps and counts, whose
 * size its shape gives (timeq_create()); and its counters, one set for
 * each possible CPU: the sizes asked of the allocators, not what they
 * round them up to. Not its nodes, which are the caller's, nor its file
 * in debugfs. timeq_base_bytes() counts a timer base.
 *
 * Context: any.
 * Return: the bytes.
 */
size_t timeq_bytes(const struct timeq *q)
{
	return sizeof(*q) +
	       __timeq_lists_size(q->delta_shift, q->buckets_shift) +
	       num_possible_cpus() * sizeof(struct timeq_counters);
}
EXPORT_SYMBOL_NS_GPL(timeq_bytes, TIMEQ_NS);

static void tq_show_counters(struct seq_file *m, const struct timeq_counters *c)
{
	unsigned long from;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tq_counter_names); i++)
		seq_printf(m, "%s %llu\n", tq_counter_names[i].name,
			   *(const u64 *)((const char *)c +
					  tq_counter_names[i].offset));
	for (i = 0; i < TIMEQ_DEFER_REASONS; i++)
		seq_printf(m, "fast_deferred_%s %llu\n", timeq_defer_name(i),
			   c->fast_deferred_why[i]);
	for (i = 0; i < TIMEQ_LATENESS_BUCKETS; i++) {
		from = i ? 1UL << (i - 1) : 0;
		if (i == TIMEQ_LATENESS_BUCKETS - 1)
			seq_printf(m, "lateness_us_%lu_inf %llu\n", from,
				   c->lateness[i]);
		else
			seq_printf(m, "lateness_us_%lu_%lu %llu\n", from,
				   1UL << i, c->lateness[i]);
	}
}

/* clang-format off */
static const char *const tq_pend_names[] = {
	[TQ_PEND_NONE]		= "none",
	[TQ_PEND_PULL_NEXT]	= "pull_next",
	[TQ_PEND_PULL_HEAD]	= "pull_head",
	[TQ_PEND_WALK]		= "walk",
	[TQ_PEND_EVICT]		= "evict",
	[TQ_PEND_RESOLVE]	= "resolve",
};

/* clang-format on */

static int tq_queue_show(struct seq_file *m, void *unused)
{
	struct tq_snapshot s;

	tq_stats_snapshot(m->private, &s);
	seq_printf(m, "horizon %llu\ndelta %u\nbuckets %u\nnow %llu\n",
		   s.horizon, s.delta, s.buckets, s.now);
	seq_printf(m, "bucket %llu\nelements %llu\n", s.bucket,
		   s.head + s.head2 + s.focus + s.calendar);
	seq_printf(m, "head %llu\nhead2 %llu\nfocus %llu\ncalendar %llu\n",
		   s.head, s.head2, s.focus, s.calendar);
	seq_printf(m, "pending %s\nvisits %llu\nmax_visits %llu\n",
		   s.pend < ARRAY_SIZE(tq_pend_names) ? tq_pend_names[s.pend] :
							"?",
		   s.visits, s.max_visits);
	tq_show_counters(m, &s.counters);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tq_queue);

static int tq_global_show(struct seq_file *m, void *unused)
{
	struct timeq_counters sum;
	unsigned long elements = 0, live = 0;
	struct timeq *q;

	mutex_lock(&tq_registry_lock);
	sum = tq_retired;
	list_for_each_entry(q, &tq_queues, registry) {
		live++;
		elements += tq_count(q);
		tq_counters_sum(&sum, q);
	}
	seq_printf(m, "created %llu\ndestroyed %llu\nlive %lu\nelements %lu\n",
		   tq_created, tq_destroyed, live, elements);
	mutex_unlock(&tq_registry_lock);
	tq_show_counters(m, &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tq_global);

/**
 * tq_stats_register - number a new queue and show it
 * @q:		the queue, ready for use
 *
 * Context: process context, may sleep.
 */
void tq_stats_register(struct timeq *q)
{
	char name[24];

	mutex_lock(&tq_registry_lock);
	q->id = ++tq_created;
	list_add_tail(&q->registry, &tq_queues);
	mutex_unlock(&tq_registry_lock);
	snprintf(name, sizeof(name), "%llu", q->id);
	debugfs_create_file(name, 0400, tq_debugfs_queues, q, &tq_queue_fops);
}

/**
 * tq_stats_unregister - remove a queue from view, and keep its counts
 * @q:		the queue; nothing counts on it any more
 *
 * Waits for readers of its debugfs file.
 *
 * Context: process context, may sleep.
 */
void tq_stats_unregister(struct timeq *q)
{
	char name[24];

	snprintf(name, sizeof(name), "%llu", q->id);
	debugfs_lookup_and_remove(name, tq_debugfs_queues);
	mutex_lock(&tq_registry_lock);
	list_del(&q->registry);
	tq_counters_sum(&tq_retired, q);
	tq_destroyed++;
	mutex_unlock(&tq_registry_lock);
}

/* The module's debugfs directory. A failure leaves timeq without it. */
void tq_stats_init(void)
{
	tq_debugfs = debugfs_create_dir("timeq", NULL);
	debugfs_create_file("stats", 0400, tq_debugfs, NULL, &tq_global_fops);
	tq_debugfs_queues = debugfs_create_dir("queues", tq_debugfs);
}

void tq_stats_exit(void)
{
	debugfs_remove(tq_debugfs);
}
