// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_flowtrack: idle time-outs of network flows, the use the
 * Brodnik-Karlsson queue was designed for, beside conntrack's own design.
 *
 * A netfilter hook in the initial network namespace sees every IPv4
 * packet, at PRE_ROUTING (received: softirq, but process context for a
 * packet that NFQUEUE gave to userspace at an earlier hook, and that
 * nf_reinject() sends on in the verdict's sender) and at LOCAL_OUT (sent:
 * process context). Both hooks disable bottom halves, as the fast path
 * asks, whatever the context they are called in. It finds
 * the packet's flow in an rhashtable, keyed by the 5-tuple with its two
 * ends in a fixed order so that both directions are one flow, or creates
 * it, and refreshes the flow's idle time-out. A flow idle for the time-out
 * expires: it is counted, unpublished and freed. The module is a monitor:
 * every packet is let through, also one whose flow could not be had (the
 * flow cap, an allocation failure, an insert the table refused, a flow
 * that is expiring at that instant); those are counted as drops, but for
 * a packet whose store lands in the timer of a flow being evicted, which
 * counts as a refresh (see "A flow's life").
 *
 * Two ways to expire flows, chosen at load (mode=):
 *
 *  timeq	each flow has a timer on one timer base
 *		(timeq_base_create()), due at the tick at which the flow
 *		will have been idle for the time-out; a packet moves it
 *		there with timeq_timer_store(), one compare-and-exchange on
 *		the timer, inline here. Its callback, on timeq's workqueue,
 *		expires the flow. Never early; late by the rounding up to a
 *		tick, the hrtimer and the workqueue.
 *  gc		conntrack's design since it dropped per-flow timers: a packet
 *		stores its time, and a worker scans the whole table in slices
 *		of at most 10 ms, expiring what is due, then sleeps for the
 *		average time left to the flows it saw, clamped to [1 s, 60 s]
 *		(gc_worker() of net/netfilter/nf_conntrack_core.c). An
 *		expiry is late by up to the sleep. conntrack refreshes with
 *		one store; here a refresh is one compare-and-exchange in
 *		both modes (below), so that they count alike.
 *
 * In mode gc, a packet that finds its flow idle for the time-out expires
 * it and starts a new one, as conntrack's lookup does. In mode timeq the
 * timer expires flows, and a packet that comes between a flow's tick and
 * its callback refreshes it instead. So the two modes end a flow alike
 * but for a packet that comes within the lateness of its expiry.
 *
 * At most max_flows flows are live. A packet of a new flow at that cap
 * makes room as conntrack's early drop does (early_drop(), which evicts a
 * flow that has seen no reply; this monitor does not tell replies apart):
 * it looks at the flows of up to FLOW_EVICT_BUCKETS buckets of the table
 * from a random one, at most FLOW_EVICT_SAMPLE of them, and evicts the
 * most idle if it has been idle for half the time-out; if none has, the
 * packet is a drop at the cap. So flows that a spoofer keeps alive with
 * one packet a time-out cannot hold the table against new ones, while a
 * flow that sees a packet every half time-out keeps its place. An evicted
 * flow counts as expired, but not in the lateness. Flows expired but not
 * yet freed (the reaper waits for a grace period) do not count against
 * the cap, or a spoofer's churn would hold it against new flows while
 * they wait; live and waiting together are at most twice the cap, which
 * bounds the memory.
 *
 * A flow's life, and why nothing freed is touched
 * -----------------------------------------------
 *
 * @last holds FLOW_DEAD once an expiry has claimed the flow, and before
 * that a time: in mode gc, that of the flow's latest packet; in mode
 * timeq, that of its creation or of its latest packet whose store did not
 * land. Every change to it is a compare-and-exchange, so that a refresh
 * and an expiry cannot both win:
 *
 *  - In mode gc, a packet moves @last forward to its time, unless it is
 *    FLOW_DEAD or the flow has been idle for the time-out (then the packet
 *    expires it).
 *  - In mode timeq, a packet stores the tick of its flow's time-out in
 *    the timer's word (timeq_timer_store()), unless the timer is at that
 *    tick or later already. A store lands while the timer is queued and
 *    nothing is moving or taking it: before the expiry takes it for its
 *    tick, which then files it again at the tick stored and runs no
 *    callback. A store that does not land changes nothing: the expiry has
 *    taken the timer or its callback is running, the timer is not armed
 *    yet, a request of it waits in timeq's slow path, another packet's
 *    store landed first, or the kernel is 32-bit. The packet then moves
 *    @last forward, unless it is FLOW_DEAD or later already; the
 *    callback, which runs after, or whose claim the move makes fail,
 *    finds the flow refreshed and arms the timer again, unless @last is a
 *    time-out old by then. A store that lands does not read @last: a
 *    flow that an eviction claimed keeps its timer armed until the reaper
 *    shuts it down, and a packet that stores in it then is taken as one
 *    that came before the eviction.
 *  - An expiry, from the timer's callback, the collector, a packet in mode
 *    gc, or a new flow's packet at the cap (an eviction), claims the flow
 *    by exchanging the @last it judged idle for FLOW_DEAD.
 *    If a packet moved @last in between, the claim fails and the flow
 *    lives on: a timer's callback arms the timer again for the new time.
 *    The one claim that succeeds counts the expiry, removes the flow from
 *    the table and puts it on the reap list.
 *
 * A callback runs for the latest tick stored before the expiry took the
 * timer, and no store lands until the callback arms the timer again: so
 * when it reads @last, every refresh since the timer was armed was stored
 * or fell in a tick stored already, and is a time-out old, or moved
 * @last. An eviction may claim a flow that a store refreshes at the same
 * moment; it evicts the flow all the same.
 *
 * Every arming of a timer, and every store, is for the deadline of some
 * packet's time, never a later one, so a timer is never due after its
 * flow is; it may be due before (a refresh that moved @last, or one racing
 * the callback), and the callback then finds @last recent and arms the
 * timer again.
 *
 * An expiry's lateness counts from the flow's latest packet plus the
 * time-out. In mode timeq, a packet whose refresh needs no move of @last
 * writes its time to flow_timed.seen (atomic64_set(), no read-modify-write:
 * of two packets of one flow on two CPUs, the older may write last), read
 * only for the lateness, which it may then overstate by their difference,
 * and for the eviction's choice.
 *
 * A packet reaches a flow only through the table, under rcu_read_lock(),
 * and the collector only inside an rhashtable walk, also under RCU; timer
 * callbacks reach it through the queue. The reaper, a work item, frees a
 * batch of claimed flows so:
 *
 *  1. synchronize_rcu(): every packet that found one of them in the table
 *     before it was removed has finished with it, and no packet can find
 *     it now. In particular no timeq_fast_update() or timeq_timer_store()
 *     of its timer runs or will run, which timeq_shutdown_sync() asks of
 *     its caller.
 *  2. timeq_shutdown_sync() of its timer: the timer is disarmed (a packet
 *     that refreshed it while it expired may have armed it again, in place
 *     or by a request to timeq's slow path), a request still pending is
 *     dropped, and a callback running for it is waited for. A callback
 *     that runs for a flow already claimed does nothing.
 *  3. kmem_cache_free().
 *
 * The callback never calls timeq_delete_sync() or timeq_shutdown_sync()
 * (a timer's own callback must not), and the reaper calls the latter with
 * no lock held, so it cannot hold one the callback waits for.
 *
 * Unloading with flows live: the hooks go first, and synchronize_net()
 * waits for those still running (unregistering does not: a packet that
 * found a hook before may still be in it); then the collector; then,
 * under flow_kill_lock, which every callback takes, flow_stopping is set,
 * after which no callback expires anything or queues the reaper; the
 * reaper is flushed; timeq_base_destroy() stops the base (it waits for a
 * running callback and releases the queued timers); and last the flows
 * still in the table are freed with it. A load whose hooks could not all
 * be registered ends the same way (flow_teardown()): netfilter registers
 * them one at a time and takes back the first when the second fails, but
 * the first, PRE_ROUTING, was live in between and may have made flows.
 *
 * Reporting, in debugfs (timeq_flowtrack/): stats, one "name value" a line
 * (flows live, created, expired and freed; packets; refreshes stored or
 * left to the callback; new flows' timers armed in place and
 * handed off; how many timers the base's expiry filed again for the
 * stores and why it handed updates off, as it counts them
 * (timeq_get_fast_stats());
 * expiry lateness p50/p99/max;
 * drops; CPU per packet; memory per flow and of the queue), and lateness,
 * the histogram of how late flows expired.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/timeq.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/net_namespace.h>

static char *mode = "timeq";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "how idle flows expire: timeq (a timer each) or gc (conntrack's scan)");

static unsigned int timeout_ms = 5000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "idle time-out of a flow, in ms (default 5000)");

static unsigned int granularity_us = 1000;
module_param(granularity_us, uint, 0444);
MODULE_PARM_DESC(granularity_us,
		 "tick of the timer queue, in us (default 1000)");

static bool store = true;
module_param(store, bool, 0444);
MODULE_PARM_DESC(store,
		 "mode timeq: a refresh stores in the timer (default); 0 moves the flow's last time instead, as when a store does not land, for the tests of that path");

static unsigned int max_flows = 65536;
module_param(max_flows, uint, 0444);
MODULE_PARM_DESC(max_flows,
		 "flows live at most, 1 to 2^30 - 1 (default 65536); as many again may wait to be freed");

/* At most this many ticks to a time-out: it keeps the queue small. */
#define FLOW_MAX_TICKS		BIT_ULL(24)

/* The value of flow.last once an expiry has claimed the flow. */
#define FLOW_DEAD		(-1LL)

/**
 * struct flow_key - a flow's 5-tuple, its lower end first
 * @addr:	the IPv4 addresses of the two ends
 * @port:	their ports, 0 for a protocol without ports and for fragments
 *		after the first
 * @proto:	the IP protocol
 * @pad:	zero, as the key is hashed and compared as 16 bytes
 */
struct flow_key {
	__be32	addr[2];
	__be16	port[2];
	u8	proto;
	u8	pad[3];
};

/**
 * struct flow - one flow, in both modes
 * @node:	link in flow_table
 * @key:	the 5-tuple
 * @last:	the time of the latest packet (ktime_get_ns()), or FLOW_DEAD
 *		once expired
 * @reap:	link in flow_reap_list, once expired
 */
struct flow {
	struct rhash_head	node;
	struct flow_key		key;
	atomic64_t		last;
	struct llist_node	reap;
};

/**
 * struct flow_timed - a flow in mode timeq: the flow and its timer
 * @flow:	the flow
 * @seen:	the time of a recent packet that did not move @flow.last
 *		(see the top of the file)
 * @timer:	due when the flow will have been idle for the time-out
 *
 * What a packet's lookup and refresh touch, @flow, @seen and the timer's
 * expires word, which comes first in @timer, lies in the first 64 bytes
 * (asserted), and flow_cache aligns each flow as SLAB_HWCACHE_ALIGN does,
 * to 64 bytes or more where lines have 64 or more: one line.
 */
struct flow_timed {
	struct flow		flow;
	atomic64_t		seen;
	struct timeq_timer	timer;
};

static_assert(offsetofend(struct flow_timed, timer.expires) <= 64);

static const struct rhashtable_params flow_params = {
	.key_len		= sizeof(struct flow_key),
	.key_offset		= offsetof(struct flow, key),
	.head_offset		= offsetof(struct flow, node),
	.automatic_shrinking	= true,
};

/* Histograms of nanoseconds: 8 buckets per power of two, up to 2^48. */
#define FLOW_HIST_SUB_SHIFT	3
#define FLOW_HIST_SUBS		BIT(FLOW_HIST_SUB_SHIFT)
#define FLOW_HIST_BUCKETS	(46 * FLOW_HIST_SUBS)

/**
 * struct flow_stats - counters of one CPU, summed when read
 * @packets:	packets the hooks saw
 * @created:	flows created
 * @expired:	flows expired, by any path
 * @expired_by_packet: of those, by a packet that found its flow idle
 * @freed:	flows freed by the reaper
 * @refreshes:	packets that refreshed a live flow (in mode timeq, also
 *		one whose store landed in the timer of a flow being evicted)
 * @left:	of those, in mode timeq, that found the timer not armed, or
 *		whose store did not land (or store=0): they moved
 *		the flow's last time, or found it later already, for its
 *		callback to arm the timer again
 * @failed:	timeq_fast_update() or timeq_timer_arm() calls that failed;
 *		in mode timeq, a callback's arm of a flow an eviction took
 * @ins_applied: new flows' timers that timeq_fast_update() armed in place
 * @ins_deferred: new flows' timers that it handed off
 * @callbacks:	timer callbacks
 * @rearmed:	callbacks that found the flow refreshed, and armed it again
 * @stale:	callbacks for a flow already claimed
 * @early:	callbacks that ran before their timer's tick, with no refresh
 *		to explain it
 * @evicted:	of the expired, flows evicted at the cap
 * @drop_cap:	packets whose new flow would pass max_flows, with no flow
 *		idle enough to evict
 * @drop_reaping: packets whose new flow would pass twice max_flows
 *		allocated: too many expired flows wait for the reaper
 * @drop_nomem:	packets whose new flow could not be allocated
 * @drop_insert: packets whose new flow the table refused
 * @drop_dying:	packets whose flow was claimed but still in the table,
 *		but for those @refreshes counts
 * @hook_ns:	time in the hooks, by local_clock()
 * @refresh_ns:	of that, time refreshing live flows
 * @gc_passes:	passes of the collector over the whole table
 * @gc_scanned:	flows the collector looked at
 * @gc_missed:	flows the collector expired that had been idle for the
 *		time-out when the pass before began: that pass missed them
 * @gc_ns:	time in the collector
 * @late:	expiries by lateness (flow_bucket())
 * @hook_cost:	packets by the time spent in the hooks
 * @refresh_cost: refreshes by the time they took
 */
struct flow_stats {
	u64	packets;
	u64	created;
	u64	expired;
	u64	expired_by_packet;
	u64	freed;
	u64	refreshes;
	u64	left;
	u64	failed;
	u64	ins_applied;
	u64	ins_deferred;
	u64	callbacks;
	u64	rearmed;
	u64	stale;
	u64	early;
	u64	evicted;
	u64	drop_cap;
	u64	drop_reaping;
	u64	drop_nomem;
	u64	drop_insert;
	u64	drop_dying;
	u64	hook_ns;
	u64	refresh_ns;
	u64	gc_passes;
	u64	gc_scanned;
	u64	gc_missed;
	u64	gc_ns;
	u64	late[FLOW_HIST_BUCKETS];
	u64	hook_cost[FLOW_HIST_BUCKETS];
	u64	refresh_cost[FLOW_HIST_BUCKETS];
};

/**
 * struct flow_cpu - what one CPU keeps
 * @tick:	the deadline of a recent packet on this CPU, for
 *		flow_deadline_packet(); 0 to begin with, which no time has
 * @stats:	the CPU's counters
 *
 * The packets of one CPU come nearly in time order, so a refresh divides
 * once a tick a CPU, not once a packet. @tick is one word, read and
 * written whole (this_cpu_read() and this_cpu_write()), so that tasks
 * that interleave on a CPU, as under PREEMPT_RT, each find a deadline
 * that some time had. It shares a cache line with the counter of
 * packets, which the hooks write first.
 */
struct flow_cpu {
	u64			tick;
	struct flow_stats	stats;
} ____cacheline_aligned;

static_assert(offsetofend(struct flow_cpu, stats.packets) <= 64);

/**
 * struct flow_conf - what a refresh reads of the parameters, set at load
 * @timed:	mode timeq
 * @store:	the parameter store, in mode timeq
 * @timeout_ns:	the time-out
 * @gran_ns:	the granularity
 */
struct flow_conf {
	bool	timed;
	bool	store;
	u64	timeout_ns;
	u64	gran_ns;
};

/* One cache line: a refresh reads no other line of the parameters. */
static struct flow_conf flow_conf __read_mostly ____cacheline_aligned;
static_assert(sizeof(struct flow_conf) <= SMP_CACHE_BYTES);

static u64 flow_clock_ns;	/* what a local_clock() pair costs, at least */
static struct flow_cpu __percpu *flow_cpus;
static atomic64_t flow_late_max = ATOMIC64_INIT(0);
static atomic_t flows_live = ATOMIC_INIT(0);
static atomic_t flows_allocated = ATOMIC_INIT(0);
static struct kmem_cache *flow_cache;
static struct rhashtable flow_table;
static struct timeq_base *flow_base;
static struct dentry *flow_dir;

static LLIST_HEAD(flow_reap_list);
static void flow_reap_fn(struct work_struct *work);
static DECLARE_WORK(flow_reap_work, flow_reap_fn);

/* Serialises timer callbacks with the unloading that stops them. */
static DEFINE_MUTEX(flow_kill_lock);
static bool flow_stopping;

static struct flow_timed *flow_to_timed(struct flow *f)
{
	return container_of(f, struct flow_timed, flow);
}

/* The time of @f's latest packet, of which @last is @f's last time. */
static s64 flow_latest(struct flow *f, s64 last)
{
	if (!flow_conf.timed)
		return last;
	return max_t(s64, last, atomic64_read(&flow_to_timed(f)->seen));
}

/* --- expiry: claim, count, unpublish, reap --- */

/* The histogram bucket of @ns nanoseconds. */
static unsigned int flow_bucket(u64 ns)
{
	unsigned int order, sub;

	if (ns < FLOW_HIST_SUBS)
		return ns;
	order = fls64(ns) - 1;
	sub = (ns >> (order - FLOW_HIST_SUB_SHIFT)) & (FLOW_HIST_SUBS - 1);
	return min_t(unsigned int,
		     (order - FLOW_HIST_SUB_SHIFT + 1) * FLOW_HIST_SUBS + sub,
		     FLOW_HIST_BUCKETS - 1);
}

/* The least number of nanoseconds that falls in bucket @b. */
static u64 flow_bucket_floor(unsigned int b)
{
	unsigned int order = b / FLOW_HIST_SUBS + FLOW_HIST_SUB_SHIFT - 1;

	if (b < FLOW_HIST_SUBS)
		return b;
	return (u64)(FLOW_HIST_SUBS + b % FLOW_HIST_SUBS)
	       << (order - FLOW_HIST_SUB_SHIFT);
}

/* @ns spent in the hooks or a refresh: add it to @sum and to @hist. */
static void flow_cost(u64 __percpu *sum, u64 __percpu *hist, u64 ns)
{
	this_cpu_add(*sum, ns);
	this_cpu_inc(hist[flow_bucket(ns)]);
}

/*
 * Claim @f for expiry if its last time is still @last: of all the paths
 * that may judge a flow idle, exactly one succeeds, and none after a
 * packet refreshed it.
 */
static bool flow_claim(struct flow *f, s64 last)
{
	return atomic64_try_cmpxchg(&f->last, &last, FLOW_DEAD);
}

/* A claimed flow: take it out of the table and hand it to the reaper. */
static void flow_unpublish(struct flow *f)
{
	this_cpu_inc(flow_cpus->stats.expired);
	rhashtable_remove_fast(&flow_table, &f->node, flow_params);
	atomic_dec(&flows_live);
	if (llist_add(&f->reap, &flow_reap_list))
		queue_work(system_unbound_wq, &flow_reap_work);
}

/*
 * The flow was claimed, idle since @latest, at @now: count it and its
 * lateness, and unpublish it. Any context.
 */
static void flow_expire(struct flow *f, s64 latest, u64 now)
{
	u64 late = now - (latest + flow_conf.timeout_ns);
	s64 max = atomic64_read(&flow_late_max);

	this_cpu_inc(flow_cpus->stats.late[flow_bucket(late)]);
	while ((u64)max < late &&
	       !atomic64_try_cmpxchg(&flow_late_max, &max, late))
		;
	flow_unpublish(f);
}

static void flow_free(struct flow *f)
{
	kmem_cache_free(flow_cache, f);
	atomic_dec(&flows_allocated);
}

/* The reaper: see "A flow's life" above. */
static void flow_reap_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&flow_reap_list);
	struct flow *f, *next;

	if (!list)
		return;
	synchronize_rcu();
	llist_for_each_entry_safe(f, next, list, reap) {
		if (flow_conf.timed)
			timeq_shutdown_sync(flow_base,
					    &flow_to_timed(f)->timer);
		flow_free(f);
		this_cpu_inc(flow_cpus->stats.freed);
		cond_resched();
	}
}

/* --- mode timeq --- */

/* The tick at which a flow last seen at @last has been idle long enough. */
static u64 flow_deadline(s64 last)
{
	return div64_u64(last + flow_conf.timeout_ns + flow_conf.gran_ns - 1,
			 flow_conf.gran_ns);
}

/* flow_deadline() of a packet's time @now, through this CPU's tick. */
static __always_inline u64 flow_deadline_packet(u64 now)
{
	u64 tick = this_cpu_read(flow_cpus->tick);

	/*
	 * @tick is @now's if (tick - 1) * gran < now + time-out <= tick * gran,
	 * modulo 2^64 as written.
	 */
	if (now + flow_conf.timeout_ns - (tick - 1) * flow_conf.gran_ns - 1 >=
	    flow_conf.gran_ns) {
		tick = flow_deadline(now);
		this_cpu_write(flow_cpus->tick, tick);
	}
	return tick;
}

/* Arm a new flow @f's timer for @tick, its deadline, from its packet. */
static void flow_arm_fast(struct flow *f, u64 tick)
{
	int ret = timeq_fast_update(flow_base, &flow_to_timed(f)->timer, tick);

	if (ret < 0)
		this_cpu_inc(flow_cpus->stats.failed);
	else if (ret == TIMEQ_APPLIED)
		this_cpu_inc(flow_cpus->stats.ins_applied);
	else
		this_cpu_inc(flow_cpus->stats.ins_deferred);
}

/*
 * Arm @f's timer for @last from its callback. However late the callback
 * runs, the deadline lies at most a time-out and a tick past the current
 * tick, and timeq_timer_arm()'s window is the current one (the base makes
 * room past timers still waiting to expire), so it fails only with
 * -ESHUTDOWN: an eviction claimed the flow meanwhile (it claims a flow
 * that the callback still finds fresh, idle for half the time-out), and
 * the reaper is shutting its timer down. That is counted in @failed.
 */
static void flow_arm_slow(struct flow *f, s64 last)
{
	if (timeq_timer_arm(flow_base, &flow_to_timed(f)->timer,
			    flow_deadline(last)))
		this_cpu_inc(flow_cpus->stats.failed);
}

/*
 * A flow's timer is due: expire the flow if it has been idle for the
 * time-out, else arm the timer for when it will have been. In process
 * context, on timeq's workqueue.
 */
static void flow_timer_fn(struct timeq_timer *timer)
{
	struct flow *f = &container_of(timer, struct flow_timed, timer)->flow;
	u64 tick, now;
	s64 last;

	mutex_lock(&flow_kill_lock);
	if (flow_stopping)
		goto out;
	this_cpu_inc(flow_cpus->stats.callbacks);
	/*
	 * @tick is the latest tick stored before the expiry took the timer.
	 * A packet whose store could not land since moved @last; then @last
	 * is read here as new, and the flow is not idle.
	 */
	tick = timeq_node_time(&timer->node);
	/* Pairs with the full barrier of a packet's cmpxchg of @last. */
	smp_rmb();
	last = atomic64_read(&f->last);
	now = ktime_get_ns();
	if (last == FLOW_DEAD) {
		this_cpu_inc(flow_cpus->stats.stale);
		goto out;
	}
	if (now < last + flow_conf.timeout_ns) {
		this_cpu_inc(flow_cpus->stats.rearmed);
		flow_arm_slow(f, last);
		goto out;
	}
	if (now < tick * flow_conf.gran_ns)
		this_cpu_inc(flow_cpus->stats.early);
	if (flow_claim(f, last)) {
		flow_expire(f, flow_latest(f, last), now);
	} else {
		/* A packet refreshed it after all. */
		last = atomic64_read(&f->last);
		if (last != FLOW_DEAD) {
			this_cpu_inc(flow_cpus->stats.rearmed);
			flow_arm_slow(f, last);
		}
	}
out:
	mutex_unlock(&flow_kill_lock);
}

/* --- mode gc: conntrack's collector --- */

/* As net/netfilter/nf_conntrack_core.c, in ns but for the last. */
#define GC_SCAN_INTERVAL_MIN	(1ULL * NSEC_PER_SEC)
#define GC_SCAN_INTERVAL_MAX	(60ULL * NSEC_PER_SEC)
#define GC_SCAN_INTERVAL_CLAMP	(300ULL * NSEC_PER_SEC)
#define GC_SCAN_INITIAL_COUNT	100
#define GC_SCAN_MAX_DURATION	(10ULL * NSEC_PER_MSEC)
#define GC_SCAN_EXPIRED_MAX	(64000U / HZ)

static unsigned int gc_expired_max = GC_SCAN_EXPIRED_MAX;
module_param(gc_expired_max, uint, 0444);
MODULE_PARM_DESC(gc_expired_max,
		 "mode gc: a run of the collector stops once it has expired more than this many flows (default 64000 / HZ, as conntrack's)");

/**
 * struct flow_gc - the collector's state between two runs
 * @work:	the collector
 * @iter:	the walk of flow_table, while a pass is under way
 * @in_pass:	@iter is entered
 * @start:	when the pass began
 * @prev_start:	when the pass before began, 0 in the first
 * @avg:	the running average of the time left to the flows seen
 * @count:	the weight of @avg
 */
struct flow_gc {
	struct delayed_work	work;
	struct rhashtable_iter	iter;
	bool			in_pass;
	u64			start;
	u64			prev_start;
	u64			avg;
	u64			count;
};

static struct flow_gc flow_gc;

/* End the walk of a pass; with the collector not running. */
static void flow_gc_end_pass(void)
{
	if (flow_gc.in_pass)
		rhashtable_walk_exit(&flow_gc.iter);
	flow_gc.in_pass = false;
}

/*
 * One run: scan the table from where the last run stopped, then run again
 * at once (after a jiffy if it stopped for its expiries), or at the end
 * of a pass after the average time left. A run that has looked at a flow
 * stops before the next one once it has spent GC_SCAN_MAX_DURATION or
 * expired more than gc_expired_max flows.
 *
 * So a run stops on a flow it has not looked at, and which it left in
 * the table, and the next run begins with it: rhashtable_walk_start()
 * finds it and counts its place anew, and rhashtable_walk_peek() returns
 * it, where rhashtable_walk_next() would return the flow after it. A flow
 * that is no longer in the table is not found, and the walk resumes at
 * its place as counted, which also counts the flows removed ahead of it
 * in its bucket since: the peek steps back one place, and one flow after
 * it is missed for the pass for each of the others. That can still
 * happen when the flow a run stopped on leaves the table before the next
 * run (a packet expires it, or an eviction takes it) and others ahead of
 * it in its bucket have left too (rhashtable_walk_start()'s limit).
 */
static void flow_gc_fn(struct work_struct *work)
{
	u64 t0 = local_clock(), now = ktime_get_ns(), left, next;
	unsigned int expired = 0;
	bool looked = false;
	struct flow *f;
	s64 last;

	if (!flow_gc.in_pass) {
		rhashtable_walk_enter(&flow_table, &flow_gc.iter);
		flow_gc.in_pass = true;
		flow_gc.prev_start = flow_gc.start;
		flow_gc.start = now;
		flow_gc.avg = GC_SCAN_INTERVAL_MAX;
		flow_gc.count = GC_SCAN_INITIAL_COUNT;
	}
	rhashtable_walk_start(&flow_gc.iter);
	for (f = rhashtable_walk_peek(&flow_gc.iter); f;
	     f = rhashtable_walk_next(&flow_gc.iter)) {
		if (IS_ERR(f)) {
			if (PTR_ERR(f) == -EAGAIN)
				continue;
			break;
		}
		if (looked && (expired > gc_expired_max ||
			       local_clock() - t0 > GC_SCAN_MAX_DURATION))
			break;
		looked = true;
		this_cpu_inc(flow_cpus->stats.gc_scanned);
		last = atomic64_read(&f->last);
		if (last == FLOW_DEAD)
			continue;
		now = ktime_get_ns();
		if (now >= last + flow_conf.timeout_ns) {
			if (flow_claim(f, last)) {
				/*
				 * Idle for the time-out when the pass before
				 * began, and in the table (only a claim
				 * takes a flow off it): that pass missed it.
				 */
				if (last + flow_conf.timeout_ns <
				    flow_gc.prev_start)
					this_cpu_inc(flow_cpus->stats.gc_missed);
				flow_expire(f, last, now);
				expired++;
			}
		} else {
			left = clamp(last + flow_conf.timeout_ns - now,
				     GC_SCAN_INTERVAL_MIN,
				     GC_SCAN_INTERVAL_CLAMP);
			flow_gc.count++;
			if (left > flow_gc.avg)
				flow_gc.avg += div64_u64(left - flow_gc.avg,
							 flow_gc.count);
			else
				flow_gc.avg -= div64_u64(flow_gc.avg - left,
							 flow_gc.count);
		}
	}
	rhashtable_walk_stop(&flow_gc.iter);
	if (f) {
		/* Mid-pass: at once, or after a jiffy if many expired. */
		next = expired > gc_expired_max;
	} else {
		flow_gc_end_pass();
		this_cpu_inc(flow_cpus->stats.gc_passes);
		next = clamp(flow_gc.avg, GC_SCAN_INTERVAL_MIN,
			     GC_SCAN_INTERVAL_MAX);
		now = ktime_get_ns() - flow_gc.start;
		next = nsecs_to_jiffies(next > now ? next - now : 0) ?: 1;
	}
	this_cpu_add(flow_cpus->stats.gc_ns, local_clock() - t0);
	queue_delayed_work(system_power_efficient_wq, &flow_gc.work, next);
}

/* --- the packet path --- */

/* What a refresh found. */
enum { FLOW_TOUCHED, FLOW_FRESHER, FLOW_IDLE, FLOW_GONE };

/*
 * Move @f's last time forward to @now, unless it is FLOW_DEAD, and, if
 * @idle, unless the flow has been idle for the time-out. FLOW_TOUCHED:
 * done, and *@old is the time it had; FLOW_FRESHER: a packet of @now or
 * later did it first; FLOW_IDLE: the flow has been idle for the time-out
 * since *@old, and is left for the caller to expire; FLOW_GONE: an expiry
 * claimed it.
 */
static int flow_touch(struct flow *f, u64 now, bool idle, s64 *old)
{
	s64 last = atomic64_read(&f->last);

	do {
		if (last == FLOW_DEAD)
			return FLOW_GONE;
		*old = last;
		if (idle && now >= last + flow_conf.timeout_ns)
			return FLOW_IDLE;
		if (last >= now)
			return FLOW_FRESHER;
	} while (!atomic64_try_cmpxchg(&f->last, &last, now));
	return FLOW_TOUCHED;
}

/* Mode timeq, when the store did not land: move @f's last time. */
static noinline int flow_refresh_left(struct flow *f, u64 now, s64 *old)
{
	int ret = flow_touch(f, now, false, old);

	if (ret != FLOW_GONE)
		this_cpu_inc(flow_cpus->stats.left);
	return ret;
}

/*
 * Mode timeq: store in @f's timer the tick at which a packet of @now
 * leaves the flow idle for the time-out, unless the armed timer is at that
 * tick or later already; if the timer is not armed or the store does not
 * land, move @f's last time instead (see "A flow's life"). Never
 * FLOW_IDLE.
 */
static int flow_refresh_timed(struct flow *f, u64 now, s64 *old)
{
	struct flow_timed *ft = flow_to_timed(f);

	if (flow_conf.store &&
	    timeq_timer_store(&ft->timer, flow_deadline_packet(now))) {
		atomic64_set(&ft->seen, now);
		return FLOW_TOUCHED;
	}
	/* Out of line, so that a store needs no register saved. */
	return flow_refresh_left(f, now, old);
}

/* Refresh @f with a packet of @now, as its mode does. */
static int flow_refresh(struct flow *f, u64 now, s64 *old)
{
	if (flow_conf.timed)
		return flow_refresh_timed(f, now, old);
	return flow_touch(f, now, true, old);
}

/* The early drop's look: at most so many buckets, and so many flows. */
#define FLOW_EVICT_BUCKETS	64
#define FLOW_EVICT_SAMPLE	8

/*
 * At the cap, at @now: evict the most idle of a sample of flows if it has
 * been idle for half the time-out (see the top of the file). Under RCU.
 */
static bool flow_evict(u64 now)
{
	unsigned int i, b, buckets, seen = 0;
	const struct bucket_table *tbl;
	s64 last, latest, best_last = 0, best_latest = 0;
	struct flow *f, *best = NULL;
	struct rhash_head *pos;

	/*
	 * Under the hook's rcu_read_lock(), as a lookup walks: every flow
	 * reached is safe to read. During a resize a walk may miss a flow
	 * being moved, or follow it into the new table: the sample differs,
	 * nothing else.
	 */
	tbl = rht_dereference_rcu(flow_table.tbl, &flow_table);
	b = get_random_u32_below(tbl->size);
	/* A small table is looked at once, not round and round. */
	buckets = min_t(unsigned int, FLOW_EVICT_BUCKETS, tbl->size);
	for (i = 0; i < buckets && seen < FLOW_EVICT_SAMPLE; i++) {
		/* tbl->size is a power of two. */
		rht_for_each_entry_rcu(f, pos, tbl, (b + i) & (tbl->size - 1),
				       node) {
			last = atomic64_read(&f->last);
			latest = flow_latest(f, last);
			if (last != FLOW_DEAD &&
			    (!best || latest < best_latest)) {
				best = f;
				best_last = last;
				best_latest = latest;
			}
			if (++seen == FLOW_EVICT_SAMPLE)
				break;
		}
	}
	if (!best || now < best_latest + flow_conf.timeout_ns / 2 ||
	    !flow_claim(best, best_last))
		return false;
	this_cpu_inc(flow_cpus->stats.evicted);
	flow_unpublish(best);
	return true;
}

/* A place for a new flow at @now: a live one under the cap, and memory. */
static bool flow_admit(u64 now)
{
	bool live = atomic_add_unless(&flows_live, 1, max_flows);

	/* The place an eviction makes may go to another packet first. */
	if (!live && flow_evict(now))
		live = atomic_add_unless(&flows_live, 1, max_flows);
	if (!live) {
		this_cpu_inc(flow_cpus->stats.drop_cap);
		return false;
	}
	if (!atomic_add_unless(&flows_allocated, 1, 2 * max_flows)) {
		atomic_dec(&flows_live);
		this_cpu_inc(flow_cpus->stats.drop_reaping);
		return false;
	}
	return true;
}

/* Create the flow of @key, first seen at @now, or refresh a racing twin. */
static void flow_create(const struct flow_key *key, u64 now)
{
	struct flow *f, *twin;
	s64 old;

	if (!flow_admit(now))
		return;
	f = kmem_cache_alloc(flow_cache, GFP_ATOMIC | __GFP_NOWARN);
	if (!f) {
		atomic_dec(&flows_allocated);
		atomic_dec(&flows_live);
		this_cpu_inc(flow_cpus->stats.drop_nomem);
		return;
	}
	f->key = *key;
	atomic64_set(&f->last, now);
	if (flow_conf.timed) {
		timeq_timer_init(&flow_to_timed(f)->timer, flow_timer_fn);
		atomic64_set(&flow_to_timed(f)->seen, now);
	}
	twin = rhashtable_lookup_get_insert_fast(&flow_table, &f->node,
						 flow_params);
	if (!twin) {
		this_cpu_inc(flow_cpus->stats.created);
		if (flow_conf.timed)
			flow_arm_fast(f, flow_deadline_packet(now));
		return;
	}
	/* Never published: no one else saw @f. */
	flow_free(f);
	atomic_dec(&flows_live);
	if (IS_ERR(twin)) {
		this_cpu_inc(flow_cpus->stats.drop_insert);
		return;
	}
	/* A packet on another CPU created it first, or it is expiring. */
	switch (flow_refresh(twin, now, &old)) {
	case FLOW_TOUCHED:
	case FLOW_FRESHER:
		this_cpu_inc(flow_cpus->stats.refreshes);
		break;
	default:
		this_cpu_inc(flow_cpus->stats.drop_dying);
		break;
	}
}

/* Find or create the flow of @key and refresh it; under RCU. */
static void flow_packet(const struct flow_key *key)
{
	u64 now = ktime_get_ns(), t0;
	struct flow *f;
	s64 old;

	f = rhashtable_lookup(&flow_table, key, flow_params);
	if (!f) {
		flow_create(key, now);
		return;
	}
	t0 = local_clock();
	switch (flow_refresh(f, now, &old)) {
	case FLOW_TOUCHED:
	case FLOW_FRESHER:
		this_cpu_inc(flow_cpus->stats.refreshes);
		flow_cost(&flow_cpus->stats.refresh_ns,
			  flow_cpus->stats.refresh_cost, local_clock() - t0);
		return;
	case FLOW_IDLE:
		if (!flow_claim(f, old)) {
			this_cpu_inc(flow_cpus->stats.drop_dying);
			return;
		}
		this_cpu_inc(flow_cpus->stats.expired_by_packet);
		flow_expire(f, old, now);
		flow_create(key, now);
		return;
	default:
		this_cpu_inc(flow_cpus->stats.drop_dying);
		return;
	}
}

/* The 5-tuple of an IPv4 packet, its lower end first. */
static void flow_key_of(const struct sk_buff *skb, struct flow_key *key)
{
	const struct iphdr *iph = ip_hdr(skb);
	__be16 buf[2];
	const __be16 *ports = NULL;

	memset(key, 0, sizeof(*key));
	key->proto = iph->protocol;
	key->addr[0] = iph->saddr;
	key->addr[1] = iph->daddr;
	switch (iph->protocol) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		if (!(iph->frag_off & htons(IP_OFFSET)))
			ports = skb_header_pointer(skb,
						   skb_network_offset(skb) +
							   ip_hdrlen(skb),
						   sizeof(buf), buf);
		break;
	}
	if (ports) {
		key->port[0] = ports[0];
		key->port[1] = ports[1];
	}
	if (ntohl(key->addr[0]) > ntohl(key->addr[1]) ||
	    (key->addr[0] == key->addr[1] &&
	     ntohs(key->port[0]) > ntohs(key->port[1]))) {
		swap(key->addr[0], key->addr[1]);
		swap(key->port[0], key->port[1]);
	}
}

/* The hook at PRE_ROUTING and LOCAL_OUT, in any of their contexts. */
static unsigned int flow_hook(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct flow_key key;
	u64 t0;

	local_bh_disable();
	t0 = local_clock();
	this_cpu_inc(flow_cpus->stats.packets);
	flow_key_of(skb, &key);
	rcu_read_lock();
	flow_packet(&key);
	rcu_read_unlock();
	flow_cost(&flow_cpus->stats.hook_ns, flow_cpus->stats.hook_cost,
		  local_clock() - t0);
	local_bh_enable();
	return NF_ACCEPT;
}

static const struct nf_hook_ops flow_ops[] = {
	{
		.hook		= flow_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_CONNTRACK,
	},
	{
		.hook		= flow_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_CONNTRACK,
	},
};

/* --- reporting --- */

/* The sums of every CPU's counters, into @sum. */
static void flow_stats_sum(struct flow_stats *sum)
{
	const u64 *src;
	u64 *dst = (u64 *)sum;
	unsigned int i;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		src = (const u64 *)&per_cpu_ptr(flow_cpus, cpu)->stats;
		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

/*
 * The least bucket ceiling under which a share @pct of the values of @hist
 * fall: an upper bound, 1/8 of a power of two above the exact value at most.
 */
static u64 flow_hist_pct(const u64 *hist, unsigned int pct)
{
	u64 total = 0, want, seen = 0;
	unsigned int b;

	for (b = 0; b < FLOW_HIST_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	want = div_u64(total * pct + 99, 100);
	for (b = 0; b < FLOW_HIST_BUCKETS - 1; b++) {
		seen += hist[b];
		if (seen >= want)
			break;
	}
	return flow_bucket_floor(b + 1) - 1;
}

/* The same for the lateness, no more than the largest seen. */
static u64 flow_late_pct(const struct flow_stats *s, unsigned int pct)
{
	return min_t(u64, flow_hist_pct(s->late, pct),
		     atomic64_read(&flow_late_max));
}

/*
 * Bytes of a flow in its slab: in mode timeq, its size rounded up to the
 * alignment SLAB_HWCACHE_ALIGN gives it, a cache line halved while the
 * size fits in half of it.
 */
static unsigned int flow_slot_bytes(void)
{
	unsigned int size = kmem_cache_size(flow_cache);
	unsigned int align = cache_line_size();

	if (!flow_conf.timed)
		return size;
	while (size <= align / 2)
		align /= 2;
	return ALIGN(size, align);
}

/* Bytes of the table's current bucket array (not of one a resize fills). */
static u64 flow_table_bytes(void)
{
	const struct bucket_table *tbl;
	u64 bytes;

	rcu_read_lock();
	tbl = rcu_dereference(flow_table.tbl);
	bytes = sizeof(*tbl) + (u64)tbl->size * sizeof(tbl->buckets[0]);
	rcu_read_unlock();
	return bytes;
}

/*
 * How many timers the base's expiry filed again for the refreshes' stores
 * (which timeq does not count), and why timeq handed new flows' timers
 * off, as it counts them.
 */
static void flow_show_deferred(struct seq_file *m)
{
	struct timeq_fast_stats fs;
	unsigned int i;
	u64 sum = 0;

	timeq_get_fast_stats(flow_base, &fs);
	seq_printf(m, "queue_refiled %llu\n", fs.refiled);
	for (i = 0; i < TIMEQ_DEFER_REASONS; i++)
		sum += fs.deferred[i];
	seq_printf(m, "queue_deferred %llu\n", sum);
	for (i = 0; i < TIMEQ_DEFER_REASONS; i++)
		seq_printf(m, "queue_deferred_%s %llu\n", timeq_defer_name(i),
			   fs.deferred[i]);
}

/*
 * Mode timeq: the refreshes not left to the callback, for which the timer
 * expires at their tick or later, by a store or already. A sum read while
 * packets come may count a refresh's left before the refresh.
 */
static u64 flow_stored(const struct flow_stats *s)
{
	if (!flow_conf.timed || s->refreshes <= s->left)
		return 0;
	return s->refreshes - s->left;
}

static int flow_stats_show(struct seq_file *m, void *v)
{
	struct flow_stats *s = kmalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	flow_stats_sum(s);
	seq_printf(m, "mode %s\n", flow_conf.timed ? "timeq" : "gc");
	seq_printf(m, "timeout_ms %u\n", timeout_ms);
	seq_printf(m, "granularity_us %u\n", granularity_us);
	seq_printf(m, "store %d\n", store);
	seq_printf(m, "max_flows %u\n", max_flows);
	seq_printf(m, "flows_live %d\n", atomic_read(&flows_live));
	seq_printf(m, "flows_allocated %d\n", atomic_read(&flows_allocated));
	seq_printf(m, "flows_created %llu\n", s->created);
	seq_printf(m, "flows_expired %llu\n", s->expired);
	seq_printf(m, "flows_expired_by_packet %llu\n", s->expired_by_packet);
	seq_printf(m, "flows_freed %llu\n", s->freed);
	seq_printf(m, "packets %llu\n", s->packets);
	seq_printf(m, "refreshes %llu\n", s->refreshes);
	seq_printf(m, "refresh_stored %llu\n", flow_stored(s));
	seq_printf(m, "refresh_left %llu\n", s->left);
	seq_printf(m, "refresh_failed %llu\n", s->failed);
	seq_printf(m, "insert_applied %llu\n", s->ins_applied);
	seq_printf(m, "insert_deferred %llu\n", s->ins_deferred);
	if (flow_conf.timed)
		flow_show_deferred(m);
	seq_printf(m, "callbacks %llu\n", s->callbacks);
	seq_printf(m, "callbacks_rearmed %llu\n", s->rearmed);
	seq_printf(m, "callbacks_stale %llu\n", s->stale);
	seq_printf(m, "callbacks_early %llu\n", s->early);
	seq_printf(m, "flows_evicted %llu\n", s->evicted);
	seq_printf(m, "drop_cap %llu\n", s->drop_cap);
	seq_printf(m, "drop_reaping %llu\n", s->drop_reaping);
	seq_printf(m, "drop_nomem %llu\n", s->drop_nomem);
	seq_printf(m, "drop_insert %llu\n", s->drop_insert);
	seq_printf(m, "drop_dying %llu\n", s->drop_dying);
	seq_printf(m, "lateness_p50_ns %llu\n", flow_late_pct(s, 50));
	seq_printf(m, "lateness_p99_ns %llu\n", flow_late_pct(s, 99));
	seq_printf(m, "lateness_max_ns %lld\n", atomic64_read(&flow_late_max));
	seq_printf(m, "hook_ns %llu\n", s->hook_ns);
	seq_printf(m, "hook_p50_ns %llu\n", flow_hist_pct(s->hook_cost, 50));
	seq_printf(m, "refresh_ns %llu\n", s->refresh_ns);
	seq_printf(m, "refresh_p50_ns %llu\n",
		   flow_hist_pct(s->refresh_cost, 50));
	seq_printf(m, "clock_ns %llu\n", flow_clock_ns);
	seq_printf(m, "gc_passes %llu\n", s->gc_passes);
	seq_printf(m, "gc_scanned %llu\n", s->gc_scanned);
	seq_printf(m, "gc_missed %llu\n", s->gc_missed);
	seq_printf(m, "gc_ns %llu\n", s->gc_ns);
	seq_printf(m, "flow_bytes %u\n", flow_slot_bytes());
	seq_printf(m, "table_bytes %llu\n", flow_table_bytes());
	seq_printf(m, "queue_bytes %zu\n",
		   flow_base ? timeq_base_bytes(flow_base) : 0);
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flow_stats);

/* @ns in a unit that keeps three digits. */
static void flow_print_ns(struct seq_file *m, u64 ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;
	u64 frac = 0;

	while (ns >= 1000 && u < ARRAY_SIZE(unit) - 1) {
		frac = do_div(ns, 1000);
		u++;
	}
	if (u && ns < 100)
		seq_printf(m, "%4llu.%01llu%-2s", ns, div_u64(frac, 100),
			   unit[u]);
	else
		seq_printf(m, "%6llu%-2s", ns, unit[u]);
}

/* One row per power of two, from the first non-empty to the last. */
static int flow_lateness_show(struct seq_file *m, void *v)
{
	struct flow_stats *s = kmalloc(sizeof(*s), GFP_KERNEL);
	unsigned int b, i, first = FLOW_HIST_BUCKETS, last = 0;
	u64 row, total = 0;

	if (!s)
		return -ENOMEM;
	flow_stats_sum(s);
	/* Evictions are expiries too, but have no lateness: count the rows. */
	for (b = 0; b < FLOW_HIST_BUCKETS; b++) {
		total += s->late[b];
		if (!s->late[b])
			continue;
		first = min(first, b / FLOW_HIST_SUBS);
		last = b / FLOW_HIST_SUBS;
	}
	seq_printf(m, "lateness of %llu expiries, from the flow's last packet plus the time-out\n",
		   total);
	for (b = first; b <= last; b++) {
		row = 0;
		for (i = 0; i < FLOW_HIST_SUBS; i++)
			row += s->late[b * FLOW_HIST_SUBS + i];
		seq_puts(m, "  ");
		flow_print_ns(m, flow_bucket_floor(b * FLOW_HIST_SUBS));
		seq_puts(m, " .. ");
		flow_print_ns(m, flow_bucket_floor((b + 1) * FLOW_HIST_SUBS));
		seq_printf(m, " %8llu\n", row);
	}
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flow_lateness);

/* Every non-empty bucket, "floor ceiling count" in ns, for programs. */
static int flow_buckets_show(struct seq_file *m, void *v)
{
	struct flow_stats *s = kmalloc(sizeof(*s), GFP_KERNEL);
	unsigned int b;

	if (!s)
		return -ENOMEM;
	flow_stats_sum(s);
	for (b = 0; b < FLOW_HIST_BUCKETS; b++)
		if (s->late[b])
			seq_printf(m, "%llu %llu %llu\n", flow_bucket_floor(b),
				   flow_bucket_floor(b + 1) - 1, s->late[b]);
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flow_buckets);

/* --- load and unload --- */

/*
 * What a pair of local_clock() calls costs, so it can be taken off: the
 * least of a thousand, as a mean would take in any interruption.
 */
static u64 flow_measure_clock(void)
{
	u64 t0, least = U64_MAX;
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		t0 = local_clock();
		least = min(least, local_clock() - t0);
	}
	return least;
}

static int flow_check_params(void)
{
	u64 ticks;

	if (sysfs_streq(mode, "timeq"))
		flow_conf.timed = true;
	else if (!sysfs_streq(mode, "gc"))
		goto bad;
	flow_conf.store = flow_conf.timed && store;
	flow_conf.timeout_ns = (u64)timeout_ms * NSEC_PER_MSEC;
	flow_conf.gran_ns = (u64)granularity_us * NSEC_PER_USEC;
	/* The flow counts are atomic_t, and twice the cap must fit one. */
	if (!flow_conf.timeout_ns || !flow_conf.gran_ns || !max_flows ||
	    max_flows > INT_MAX / 2)
		goto bad;
	ticks = div64_u64(flow_conf.timeout_ns, flow_conf.gran_ns);
	if (ticks < 1 || ticks > FLOW_MAX_TICKS)
		goto bad;
	return 0;

bad:
	pr_err("mode=timeq|gc, timeout_ms >= granularity_us / 1000, at most 2^24 ticks to a time-out, 1 <= max_flows <= 2^30 - 1\n");
	return -EINVAL;
}

static void flow_free_unloaded(void *ptr, void *arg)
{
	flow_free(ptr);
}

/*
 * Stop and free everything the load made, once the hooks are unregistered:
 * see "Unloading with flows live" above.
 */
static void flow_teardown(void)
{
	synchronize_net();
	debugfs_remove_recursive(flow_dir);
	if (!flow_conf.timed) {
		cancel_delayed_work_sync(&flow_gc.work);
		flow_gc_end_pass();
	}
	mutex_lock(&flow_kill_lock);
	flow_stopping = true;
	mutex_unlock(&flow_kill_lock);
	flush_work(&flow_reap_work);
	timeq_base_destroy(flow_base);
	rhashtable_free_and_destroy(&flow_table, flow_free_unloaded, NULL);
	kmem_cache_destroy(flow_cache);
	free_percpu(flow_cpus);
}

static int __init flow_init(void)
{
	struct rhashtable_params params = flow_params;
	u64 horizon;
	size_t size;
	int err;

	err = flow_check_params();
	if (err)
		return err;
	size = flow_conf.timed ? sizeof(struct flow_timed) :
				 sizeof(struct flow);
	flow_cpus = alloc_percpu(struct flow_cpu);
	if (!flow_cpus)
		return -ENOMEM;
	/* SLAB_HWCACHE_ALIGN in mode timeq: see struct flow_timed. */
	flow_cache = kmem_cache_create("timeq_flow", size, 0,
				       flow_conf.timed ? SLAB_HWCACHE_ALIGN : 0,
				       NULL);
	if (!flow_cache) {
		err = -ENOMEM;
		goto err_stats;
	}
	params.nelem_hint = min(max_flows, 1024U);
	err = rhashtable_init(&flow_table, &params);
	if (err)
		goto err_cache;
	if (flow_conf.timed) {
		/*
		 * Four time-outs: the queue's own clock lags while timers
		 * wait to expire, and a time stored beyond its window is filed
		 * at the window's end and again from there; with this horizon
		 * that takes an expiry three time-outs behind.
		 */
		horizon = 4 * flow_deadline(0) + 64;
		flow_base = timeq_base_create(flow_conf.gran_ns, horizon, 0, 0,
					      GFP_KERNEL);
		if (IS_ERR(flow_base)) {
			err = PTR_ERR(flow_base);
			flow_base = NULL;
			goto err_table;
		}
	} else {
		INIT_DELAYED_WORK(&flow_gc.work, flow_gc_fn);
		queue_delayed_work(system_power_efficient_wq, &flow_gc.work,
				   HZ);
	}
	flow_clock_ns = flow_measure_clock();
	flow_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, flow_dir, NULL, &flow_stats_fops);
	debugfs_create_file("lateness", 0444, flow_dir, NULL,
			    &flow_lateness_fops);
	debugfs_create_file("lateness_buckets", 0444, flow_dir, NULL,
			    &flow_buckets_fops);
	err = nf_register_net_hooks(&init_net, flow_ops, ARRAY_SIZE(flow_ops));
	if (err) {
		/* PRE_ROUTING was live: see "Unloading with flows live". */
		flow_teardown();
		return err;
	}
	pr_info("mode %s, time-out %u ms, tick %u us, at most %u flows\n",
		flow_conf.timed ? "timeq" : "gc", timeout_ms, granularity_us,
		max_flows);
	return 0;

err_table:
	rhashtable_destroy(&flow_table);
err_cache:
	kmem_cache_destroy(flow_cache);
err_stats:
	free_percpu(flow_cpus);
	return err;
}

static void __exit flow_exit(void)
{
	nf_unregister_net_hooks(&init_net, flow_ops, ARRAY_SIZE(flow_ops));
	flow_teardown();
}

module_init(flow_init);
module_exit(flow_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq sample: idle time-outs of network flows, against conntrack's scan");
MODULE_IMPORT_NS(TIMEQ_NS);
