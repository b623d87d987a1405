/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeq - a two-head calendar queue of timers (Brodnik and Karlsson).
 *
 * Two types: struct timeq, a queue of nodes whose clock its caller moves,
 * and struct timeq_base, a timer base that composes a struct timeq with a
 * clock on CLOCK_MONOTONIC, an hrtimer, the hand-off of the fast path and
 * the callbacks of its timers, and expires them itself (as an
 * hrtimer_clock_base composes a timerqueue_head). Each file of module/
 * has its design in a top comment: queue.c the data structure (no
 * locking); the paths over it: paths.c the locks and the queue's calls
 * below, fast.c the fast path, handoff.c the hand-off to the slow path
 * and the timer calls, life.c a queue's lifetime; clock.c a timer base's
 * clock and expiry; base.c the timer base's calls. tune.c gives callers
 * the tuning rule of tune.h.
 */

/**
 * DOC: Who may call what
 *
 * ::
 *
 *   calls                       context                 what they do
 *   -------------------------   ---------------------   ----------------------
 *   timeq_create(),             process, may sleep      allocate a queue or a
 *   timeq_base_create()                                   base, safe to share
 *   timeq_destroy(),            process, may sleep      the caller excludes
 *   timeq_base_destroy()                                  every other user
 *   the slow side:              process, may sleep      block on the queue's
 *   timeq_insert(),                                       spinlocks, with bottom
 *   timeq_delete(),                                       halves off while they
 *   timeq_update(),                                       hold one; a hold visits
 *   timeq_delete_min(),                                   a bounded number of
 *   timeq_del_less_than(),                                nodes (TIMEQ_HOLD,
 *   timeq_first(),                                        module/queue.h), and
 *   timeq_check(),                                        longer work reschedules
 *   timeq_timer_arm(),                                    between holds
 *   timeq_timer_move(),
 *   timeq_timer_delete()
 *   timeq_delete_sync(),        process, may sleep      also wait for a running
 *   timeq_shutdown_sync()                                 callback
 *   timeq_expire()              process, may sleep      run due callbacks here,
 *                                                         in turn with the work
 *   the fast path:              softirq, or bottom      only try spinlocks,
 *   timeq_fast_update(),          halves disabled;        never sleep; O(1)
 *   timeq_fast_min()              not hard interrupt      steps, two of them
 *                                 or NMI                  lock-free; hand what
 *                                                         they cannot do at
 *                                                         once to the slow path
 *   timeq_timer_store()         any but NMI             read the timer's
 *   (inline)                                              word, and one
 *                                                         compare-and-exchange
 *                                                         of it or nothing; no
 *                                                         lock
 *   timeq_tune()                any                     compute a queue's shape
 *   timeq_get_fast_stats(),     any                     read counts and sizes,
 *   timeq_defer_name(),                                   taking no lock
 *   timeq_bytes(),
 *   timeq_base_bytes()
 *   timeq_base_ticks()          any but NMI             read CLOCK_MONOTONIC
 *   timeq_min(), timeq_now(),   any                     a snapshot unless the
 *   timeq_count(), and the                                caller excludes writers
 *   node accessors (inline)
 *
 * The node calls (insert to check, min, now, count, bytes) take a queue;
 * the timer calls (arm to shutdown_sync, expire, the fast path, the
 * fast counts, ticks) take a base; timeq_timer_store() takes only the
 * timer, and acts in the base it is armed in.
 *
 * "Lock-free": llist_add() and irq_work_queue() retry their atomic step
 * only when another CPU's operation on the same word succeeded meanwhile
 * ("The fast path" in module/fast.c).
 *
 * The costs given for the slow-side calls are their own work's: one that
 * takes every lock first finishes the pending work (the minimum's search,
 * module/queue.c) that an earlier call left between its lock holds.
 *
 * The contexts are asserted: might_sleep() on the slow side,
 * lockdep_assert_in_softirq() on the fast path. Process context calls the
 * fast path between local_bh_disable() and local_bh_enable().
 *
 * Slow-side calls on different nodes may run at the same time; calls on one
 * node or timer must not race each other (as with list_add()), except that
 * the fast path and timeq_timer_store() may race anything. Nothing
 * allocates but the create calls, so nothing else can fail for memory.
 */
#ifndef _LINUX_TIMEQ_H
#define _LINUX_TIMEQ_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/types.h>

/**
 * struct timeq_node - an element of a timeq, embedded in the caller's object
 * @entry:	link in one list of the queue (a spread array or a bucket)
 * @time:	the element's time in ticks; valid while queued
 * @owner:	the queue this node is in, or 0 when it is in none; the low
 *		bits name the list array it is in, or that the queue's timer
 *		base holds it (module/queue.h)
 *
 * Initialise with timeq_node_init() before first use. The queue never
 * allocates nodes: callers embed them and use container_of() to get back
 * to their object. Fields are private to module/queue.c; use the accessors.
 */
struct timeq_node {
	struct list_head	entry;
	u64			time;
	unsigned long		owner;
};

/*
 * A queue and a timer base: their structures are private to module/
 * (module/queue.h, module/clock.h); callers hold a pointer from
 * timeq_create() or timeq_base_create().
 */
struct timeq;
struct timeq_base;
struct timeq_timer;

/**
 * typedef timeq_timer_fn - a timer's callback, run when it expires
 * @timer:	the timer, no longer queued; the callback may re-arm it
 *
 * Runs in process context (the module's workqueue, or the caller of
 * timeq_expire()), and may sleep. The callbacks of one base run one at a
 * time.
 */
typedef void (*timeq_timer_fn)(struct timeq_timer *timer);

/**
 * struct timeq_timer - a node that takes fast updates, and a callback
 * @expires:	the time the timer expires at, which a move later writes
 *		without moving @node, in the bits of %TIMEQ_EXPIRES_TIME,
 *		with %TIMEQ_EXPIRES_OPEN and %TIMEQ_EXPIRES_HANDED beside it
 *		(module/fast.c, "Refresh by a store"); first, so that the
 *		fields a user places just before the timer can share its
 *		cache line
 * @node:	the node queued for the timer
 * @handoff:	link in the queue's list of requests for the slow path
 * @want:	the time of the latest request handed off; an atomic64_t, so
 *		that a 32-bit kernel never reads it torn
 * @flags:	module/'s bits (atomic bit ops)
 * @fn:		the callback
 * @lockdep_map: with lockdep, the class of the timer's callback, named
 *		and keyed where timeq_timer_init() is called: each callback
 *		runs holding it, taken as a trylock, and timeq_delete_sync()
 *		and timeq_shutdown_sync() take it and release it first,
 *		whether or not the callback runs then, as
 *		timer_delete_sync() does a timer's. So lockdep reports a
 *		sync from a callback of the class, even of another timer,
 *		and one made holding a lock that a callback of the class
 *		takes (once it has seen both, in either order), but not
 *		callbacks of one class run nested
 *
 * A fast update that cannot be applied at once is handed to the slow path
 * in the timer itself, so handing off never allocates and never fails; a
 * bare &struct timeq_node stays at 32 bytes for callers that need no fast
 * path. A timer is used with one base at a time. Initialise it with
 * timeq_timer_init(); fields are private to module/, but for
 * @expires, which timeq_timer_expires() reads and timeq_timer_store()
 * writes.
 */
struct timeq_timer {
	atomic64_t		expires;
	struct timeq_node	node;
	struct llist_node	handoff;
	atomic64_t		want;
	unsigned long		flags;
	timeq_timer_fn		fn;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map	lockdep_map;
#endif
};

/*
 * The bits of timeq_timer.expires: the time, and beside it OPEN and
 * HANDED. A store may move the timer later while OPEN is set and HANDED
 * is not; HANDED is set while a request handed off to the slow path waits
 * to be applied (module/fast.c, "Refresh by a store").
 */
#define TIMEQ_EXPIRES_TIME	GENMASK_ULL(61, 0)
#define TIMEQ_EXPIRES_OPEN	BIT_ULL(63)
#define TIMEQ_EXPIRES_HANDED	BIT_ULL(62)

/* What timeq_fast_update() did, when it did not fail. */
#define TIMEQ_APPLIED		0
#define TIMEQ_DEFERRED		1

/**
 * enum timeq_defer - why timeq_fast_update() handed an update off
 * @TIMEQ_DEFER_CONTENDED: a lock it tried was taken
 * @TIMEQ_DEFER_JOINED:	the timer had a request pending, which it joined
 * @TIMEQ_DEFER_WORK:	the slow side had work pending (a pull, a walk)
 * @TIMEQ_DEFER_MIN_FAR: the move took the earliest timer far, where
 *			finding the next one may need a walk
 * @TIMEQ_DEFER_HEAD:	the move would empty the head while the calendar
 *			holds part of the next bucket, which would then be
 *			pulled
 * @TIMEQ_DEFER_CLOCK:	the time lies beyond the window of the base's
 *			queue, whose clock lags CLOCK_MONOTONIC until the
 *			slow side next runs
 * @TIMEQ_DEFER_DUE:	the timer's tick had passed, and it waited for its
 *			callback on the base's due list
 * @TIMEQ_DEFER_LANE:	the update needs locks other than those its lane
 *			tried: a far move of a timer that left the far
 *			region or would become the earliest, or a near one
 *			that turned out far (the timer or the clock moved
 *			between the racy reads that chose the lane and its
 *			locks)
 * @TIMEQ_DEFER_REASONS: the number of reasons
 *
 * The reason= of the timeq_fast_deferred event, and the index of
 * &struct timeq_fast_stats.deferred; timeq_defer_name() names them.
 */
enum timeq_defer {
	TIMEQ_DEFER_CONTENDED,
	TIMEQ_DEFER_JOINED,
	TIMEQ_DEFER_WORK,
	TIMEQ_DEFER_MIN_FAR,
	TIMEQ_DEFER_HEAD,
	TIMEQ_DEFER_CLOCK,
	TIMEQ_DEFER_DUE,
	TIMEQ_DEFER_LANE,
	TIMEQ_DEFER_REASONS
};

/**
 * struct timeq_fast_stats - what the fast path did with a base's updates
 * @applied:	updates applied in place
 * @stored:	those of them that moved a timer later by a store alone
 *		(timeq_fast_update(); timeq_timer_store() counts nothing)
 * @refiled:	timers filed again at the time a store (of the fast path,
 *		of timeq_timer_move() or of timeq_timer_store()) gave them:
 *		the work the stores left, once a timer per store that
 *		outlived its older time, and once more a window's span for
 *		a time stored beyond the window
 * @refused:	updates refused with an error
 * @deferred:	updates handed to the slow path, by &enum timeq_defer
 *
 * Sums over every CPU, read by timeq_get_fast_stats() without stopping
 * the paths: a sum taken while they run may lack the counts of that
 * moment.
 */
struct timeq_fast_stats {
	u64	applied;
	u64	stored;
	u64	refiled;
	u64	refused;
	u64	deferred[TIMEQ_DEFER_REASONS];
};

/**
 * typedef timeq_fn - called by timeq_del_less_than() for each removed node
 * @node:	the node, already removed from the queue
 * @arg:	the argument given to timeq_del_less_than()
 */
typedef void (*timeq_fn)(struct timeq_node *node, void *arg);

int timeq_tune(u64 horizon, u64 count, u64 mean_jump, unsigned int *delta,
	       unsigned int *nbuckets);

struct timeq *timeq_create(u64 now, u64 horizon, unsigned int delta,
			   unsigned int nbuckets, gfp_t gfp);
void timeq_destroy(struct timeq *q);
int timeq_insert(struct timeq *q, struct timeq_node *node, u64 time);
int timeq_delete(struct timeq *q, struct timeq_node *node);
int timeq_update(struct timeq *q, struct timeq_node *node, u64 time);
struct timeq_node *timeq_delete_min(struct timeq *q);
unsigned long timeq_del_less_than(struct timeq *q, u64 time, timeq_fn fn,
				  void *arg);
struct timeq_node *timeq_first(struct timeq *q);
int timeq_check(struct timeq *q, char *buf, size_t len);
struct timeq_node *timeq_min(const struct timeq *q);
u64 timeq_now(const struct timeq *q);
unsigned long timeq_count(const struct timeq *q);
size_t timeq_bytes(const struct timeq *q);

struct timeq_base *timeq_base_create(u64 granularity, u64 horizon,
				     unsigned int delta, unsigned int nbuckets,
				     gfp_t gfp);
void timeq_base_destroy(struct timeq_base *base);
int timeq_timer_arm(struct timeq_base *base, struct timeq_timer *timer,
		    u64 time);
int timeq_timer_move(struct timeq_base *base, struct timeq_timer *timer,
		     u64 time);
int timeq_timer_delete(struct timeq_base *base, struct timeq_timer *timer);
int timeq_delete_sync(struct timeq_base *base, struct timeq_timer *timer);
int timeq_shutdown_sync(struct timeq_base *base, struct timeq_timer *timer);
unsigned long timeq_expire(struct timeq_base *base);
int timeq_fast_update(struct timeq_base *base, struct timeq_timer *timer,
		      u64 time);
int timeq_fast_min(struct timeq_base *base, u64 *time);
void timeq_get_fast_stats(struct timeq_base *base,
			  struct timeq_fast_stats *stats);
const char *timeq_defer_name(unsigned int why);
u64 timeq_base_ticks(const struct timeq_base *base);
size_t timeq_base_bytes(const struct timeq_base *base);

/**
 * timeq_node_init - prepare a node for its first insertion
 * @node:	the node
 *
 * Context: any.
 */
static inline void timeq_node_init(struct timeq_node *node)
{
	INIT_LIST_HEAD(&node->entry);
	node->time = 0;
	node->owner = 0;
}

/* timeq_timer_init() but for the lockdep class. */
static inline void __timeq_timer_init(struct timeq_timer *timer,
				      timeq_timer_fn fn)
{
	timeq_node_init(&timer->node);
	timer->handoff.next = NULL;
	atomic64_set(&timer->want, 0);
	atomic64_set(&timer->expires, 0);
	timer->flags = 0;
	timer->fn = fn;
}

#ifdef CONFIG_LOCKDEP
#define __timeq_timer_init_site(timer, fn)				\
	do {								\
		static struct lock_class_key _tq_key;			\
		struct timeq_timer *_tq_timer = (timer);		\
									\
		__timeq_timer_init(_tq_timer, (fn));			\
		lockdep_init_map(&_tq_timer->lockdep_map, #timer, &_tq_key, \
				 0);					\
	} while (0)
#else
#define __timeq_timer_init_site(timer, fn) __timeq_timer_init((timer), (fn))
#endif

/**
 * timeq_timer_init - prepare a timer for its first use
 * @timer:	the timer
 * @fn:		its callback, or NULL for none
 *
 * Also re-enables a timer after timeq_shutdown_sync(). With lockdep, also
 * gives the timer its class (&struct timeq_timer's @lockdep_map).
 *
 * Context: any; @timer must not be in use.
 */
#define timeq_timer_init(timer, fn)	__timeq_timer_init_site(timer, fn)

/**
 * timeq_node_queued - whether a node is in a queue
 * @node:	an initialised node
 *
 * Context: any. Unless the caller excludes the queue's writers, the answer
 * is a snapshot that may already be out of date.
 * Return: true while @node is in some queue, or, for a timer, while it
 * waits in its base for its callback after its tick has passed (it is
 * still armed: module/clock.c).
 */
static inline bool timeq_node_queued(const struct timeq_node *node)
{
	return READ_ONCE(node->owner) != 0;
}

/**
 * timeq_node_time - the time of a node
 * @node:	an initialised node
 *
 * Context: any. Unless the caller excludes the queue's writers, the answer
 * is a snapshot that may already be out of date.
 * Return: the time @node was last inserted or updated to; meaningful only
 * while timeq_node_queued(), or in the callback of timeq_del_less_than().
 * For a timer, the time its node is filed at, which a store may have
 * left behind the time it expires at (timeq_timer_expires()); in its
 * callback, the time it expired for.
 */
static inline u64 timeq_node_time(const struct timeq_node *node)
{
	return READ_ONCE(node->time);
}

/**
 * timeq_timer_expires - the time a timer expires at
 * @timer:	an initialised timer
 *
 * A fast update that moves a queued timer later only writes this time;
 * the timer's node stays where it is filed until that tick, and is then
 * filed again (module/fast.c, "Refresh by a store"). So while the timer
 * is armed this is the time its callback runs at, and timeq_node_time()
 * of its node the tick at which the base looks at it next, no later.
 *
 * Context: any. Unless the caller excludes the base's writers, the answer
 * is a snapshot that may already be out of date.
 * Return: the latest time @timer was armed or moved to, as its base took
 * it (a time that had passed is the clock's); meaningful while
 * timeq_node_queued(&@timer->node), and in its callback.
 */
static inline u64 timeq_timer_expires(const struct timeq_timer *timer)
{
	return (u64)atomic64_read(&timer->expires) & TIMEQ_EXPIRES_TIME;
}

/**
 * timeq_timer_store - make an armed timer expire no earlier, by one store
 * @timer:	an initialised timer
 * @time:	the time it is to expire at, at the earliest
 *
 * A time-out's refresh, inline in the caller: if @timer is armed and no
 * request of it waits in its base's slow path, and @time is later than
 * the time it expires at, writes @time to its expires word with one
 * compare-and-exchange, tried once, which fails if the word changed since
 * it was read. It reads nothing but the word and takes no lock. The
 * timer's node stays filed at its older time, and the expiry files it
 * again when that comes (module/fast.c, "Refresh by a store"), in the
 * base the timer is armed in: at @time, or, for a @time beyond the
 * window of the base's clock (which this call does not read), at the
 * window's last tick and again from there, a filing of O(1) a window's
 * span, until @time lies in the window. If @time is no later than the
 * time the timer expires at, writes nothing, and orders nothing: the
 * word is read with atomic64_read().
 *
 * Otherwise changes nothing: the timer is not armed, is being taken out
 * or moved (its callback may be running), a request of it waits, another
 * store changed the word first, @time exceeds %TIMEQ_EXPIRES_TIME, or the
 * kernel is 32-bit (stores are not made there); the caller then moves it
 * with timeq_fast_update() or the slow side, or records the time where
 * the timer's callback reads it and lets the callback arm it again
 * (samples/flowtrack). A timer is never moved earlier by this call.
 *
 * It is a fast update to the rules of timeq_delete_sync() and
 * timeq_shutdown_sync(), and not counted (&struct timeq_fast_stats counts
 * the filings it leads to).
 *
 * Context: any but NMI.
 * Return: true if @timer is armed and expires at @time or later: it did
 * already, or the store landed; false if nothing changed.
 */
static inline bool timeq_timer_store(struct timeq_timer *timer, u64 time)
{
	s64 new = time | TIMEQ_EXPIRES_OPEN, old;

	if (!IS_ENABLED(CONFIG_64BIT) || time > TIMEQ_EXPIRES_TIME)
		return false;
	old = atomic64_read(&timer->expires);
	/* The bits beside the time, 63 and 62: OPEN set, HANDED clear. */
	if ((u64)old >> 62 != TIMEQ_EXPIRES_OPEN >> 62)
		return false;
	/* Both OPEN alone beside their times, which so compare. */
	if ((u64)new <= (u64)old)
		return true;
	return atomic64_try_cmpxchg(&timer->expires, &old, new);
}

#endif /* _LINUX_TIMEQ_H */
