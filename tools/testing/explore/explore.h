/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interleaving explorer's own interfaces: the scheduler (sched.c), the
 * world a scenario runs in (world.c), and the scenarios (scenarios.c).
 * explore.c's top comment explains the design.
 */
#ifndef TIMEQ_EXPLORE_H
#define TIMEQ_EXPLORE_H

#include <stdint.h>

#include <linux/timeq.h>

/* --- the scheduler (sched.c) --- */

enum xp_sched {
	XP_SCHED_PCT,		/* priorities with d - 1 change points */
	XP_SCHED_RANDOM,	/* a uniform choice at every point */
};

/* How one schedule is run. */
struct xp_config {
	enum xp_sched	sched;
	unsigned int	depth;		/* PCT's d: d - 1 change points */
	unsigned long	k;		/* PCT's estimate of the steps of a run */
	unsigned long	max_steps;	/* past this, the run is a livelock */
	int		rw_limit;	/* see compat/explore.h */
	int		trace;		/* print every step as it is taken */
	int		quiet_checks;	/* call hooks->quiet, see there */
	/*
	 * PCT: a thread that yields this many times in a row (no other
	 * thread ran) drops below all, as a thread that is not SCHED_FIFO
	 * would let others run; 0: never (strict priorities, so a busy-wait
	 * on a lower thread is a livelock).
	 */
	unsigned int	yield_demotes;
	/*
	 * PCT: each CPU's interrupt thread runs below every other thread,
	 * as irq_work does where there is no self-interrupt and it waits for
	 * the next tick (a queued irq_work then runs once all else waits).
	 */
	bool		lazy_irq_work;
	unsigned int	nchanges;	/* PCT: change points given, not drawn */
	unsigned long	changes[16];
};

/* How a schedule ended. */
enum xp_verdict {
	XP_OK,
	XP_FAIL,		/* an oracle, an invariant or a check failed */
	XP_DEADLOCK,		/* nothing can run, something has not ended */
	XP_LIVELOCK,		/* the step budget ran out */
	XP_CRASH,		/* a signal (without ASan: a touch of poison) */
};

struct xp_result {
	enum xp_verdict	verdict;
	char		message[512];
	unsigned long	steps;
	uint64_t	fingerprint;	/* of the schedule: who ran at each point */
};

/* A thread of a scenario. */
enum {
	XP_SOFTIRQ	= 1,		/* runs in softirq context throughout */
};

void xp_spawn(const char *name, void (*fn)(void *arg), void *arg,
	      unsigned int flags);
/* A step of a scenario thread: the clock moves to @ns (never back). */
void xp_clock_set(u64 ns);
/* A scheduling point of a scenario's own, for its steps. */
#define xp_step()	xp_point(XP_OP_USER, NULL, __FILE__, __LINE__)
/* Name an object for the trace. */
void xp_name(const void *obj, size_t size, const char *name);
/* The hrtimers set up in this run, in order. */
struct hrtimer *xp_hrtimer_first(void);
/* The step count of the run so far. */
unsigned long xp_steps(void);
/*
 * The step at which the running thread first took a lock, or stored by a
 * compare-and-exchange (compat/explore.h), since its last xp_mark(), or
 * 0: where a call's first critical section began, at the latest.
 */
void xp_mark(void);
unsigned long xp_first_lock(void);
/*
 * At quiescence (from a hook): run what is due of the hrtimers, the
 * irq_works and the work items in the main context, with no scheduling
 * point, until all are idle.
 */
void xp_settle(void);

/* The scenario's side of a run, called with no point live. */
struct xp_hooks {
	void	(*setup)(void *ctx);
	/*
	 * Whenever the last spinlock held by anyone is released (if
	 * cfg->quiet_checks): a moment when the queue must be sound unless
	 * work is pending. No point is live inside it.
	 */
	void	(*quiet)(void *ctx);
	/* At quiescence: check, and spawn more threads (return true), or end. */
	bool	(*quiescent)(void *ctx, unsigned int phase);
	void	(*teardown)(void *ctx, bool failed);
	void	*ctx;
};

void xp_run(const struct xp_config *cfg, uint64_t seed,
	    const struct xp_hooks *hooks, struct xp_result *res);
/* Print the last @n steps of the trace of the run that just ended. */
void xp_print_trace(FILE *f, unsigned int n);
/* @note is printed with the seed if the run crashes (or ASan reports). */
void xp_init(void (*note)(FILE *f, uint64_t seed));

/* The explorer's self-test (selftest.c); TAP, 0 if it passed. */
int xp_selftest(void);

/* --- the world of a scenario (world.c) --- */

#define XW_TIMERS	256
#define XW_NODES	256

struct xw;

/* A scenario's timer: a timer its owner may free, and what it saw. */
struct xt {
	struct timeq_timer	timer;
	struct xw		*w;
	unsigned int		index;
	char			name[12];
	bool			freed;		/* its owner freed it */
	bool			exact;		/* no re-arm races its expiry */
	bool			must_fire;	/* by the end of the run */
	unsigned int		fired;
	void			(*hook)(struct xt *t);	/* in its callback */
	unsigned long		last;		/* scenario's own use */
	bool			tracked;	/* its requests are judged */
};

/*
 * A request for a timer's time, as spin/spec.pml defines them: request r
 * is older than s if r returned before s began, for s handed off, or
 * before s entered its critical section, for s applied in place (a slow
 * call's is taken at its first lock, at the latest).
 */
struct xreq {
	struct xt		*t;
	u64			time;
	unsigned long		start, end, cs;
	bool			handed_off;
};

#define XW_REQS		64

struct xw {
	struct timeq		*q;		/* the base's queue */
	struct timeq_base	*base;		/* clocked, or a test base */
	bool			clocked;
	bool			destroyed;	/* xw_destroy() has begun */
	u64			gran;		/* ns per tick, clocked only */
	u64			horizon;
	struct xt		t[XW_TIMERS];
	unsigned int		ntimers;
	struct timeq_node	n[XW_NODES];
	unsigned int		nnodes;
	/* Delivery order of exact timers. */
	u64			last_time, last_seq;
	bool			delivered;
	unsigned long		deliveries;
	unsigned long		removed;	/* by the scenario's calls */
	long			allocations;	/* before setup */
	struct xreq		req[XW_REQS];
	unsigned int		nreq;
	/* For the scenarios' own use. */
	unsigned long		v[8];
	uint64_t		rand;
};

void xw_create(struct xw *w, bool clocked, u64 now, u64 horizon,
	       unsigned int delta, unsigned int nbuckets);
struct xt *xw_timer(struct xw *w, bool exact);
struct timeq_node *xw_node(struct xw *w);
void xw_free(struct xw *w, struct xt *t);
u64 xw_tick(struct xw *w);
void xw_advance_to(struct xw *w, u64 tick);
/*
 * timeq_base_destroy() of the world's base, from a scenario's thread: the
 * world's checks no longer look at the base once it has begun, and the
 * run's end checks only the timers, released; the free itself is checked
 * by xp_freeing() (sched.c).
 */
void xw_destroy(struct xw *w);
/*
 * The timer calls of include/linux/timeq.h on the world's base: a clocked
 * one, or a test base (tq_base_create_test(), module/base.c).
 */
int xw_timer_arm(struct xw *w, struct xt *t, u64 time);
int xw_timer_move(struct xw *w, struct xt *t, u64 time);
int xw_timer_delete(struct xw *w, struct xt *t);
int xw_delete_sync(struct xw *w, struct xt *t);
int xw_shutdown_sync(struct xw *w, struct xt *t);
int xw_fast_min(struct xw *w, u64 *time);
/* timeq_fast_update() as a softirq would call it; only -ESHUTDOWN may fail. */
int xw_fast_update(struct xw *w, struct xt *t, u64 time);
/*
 * The same, and timeq_timer_arm(), recorded as requests of a tracked
 * timer: at the end, the time it is queued at must be that of a request
 * older than no other ("no request lost, none applied out of order",
 * P-a and P-b of spin/spec.pml): the time it expires at
 * (timeq_timer_expires()), which a store may have moved past its node's.
 */
int xw_fast_request(struct xw *w, struct xt *t, u64 time);
/*
 * timeq_timer_store() (inline), recorded as such a request when its
 * exchange lands; one that writes nothing records nothing. Return: what
 * it returned.
 */
bool xw_store_request(struct xw *w, struct xt *t, u64 time);
int xw_arm_request(struct xw *w, struct xt *t, u64 time);
/* timeq_timer_delete() as a request that leaves the timer unarmed. */
#define XW_UNARMED	U64_MAX
int xw_delete_request(struct xw *w, struct xt *t);
/*
 * Check every tracked timer as above: at the end for a test base; a
 * clocked scenario calls it from its phase, before its timers expire.
 */
void xw_check_tracked(struct xw *w);
/* Make every fast update hand off: hold bucket_lock (setup only). */
void xw_defer_begin(struct xw *w);
void xw_defer_end(struct xw *w);
uint64_t xw_rand(struct xw *w);
void xw_check(struct xw *w, const char *when);
void xw_check_armed(struct xw *w);
/*
 * Empty a test base's queue by delete_min, checking the order, and expect
 * @want nodes (XW_ANY: any number); the final phase of a test base. Every
 * insertion must have been removed once: by the scenario's calls, which
 * count what they remove in w->removed, or by this drain.
 */
#define XW_ANY		(~0UL)
void xw_drain_test_base(struct xw *w, unsigned long want);

#define xw_fail(...)	xp_fail(__FILE__, __LINE__, __VA_ARGS__)

/* --- the scenarios (scenarios.c) --- */

struct scenario {
	const char	*name;
	const char	*what;		/* what it covers, and its oracle */
	int		defect;		/* the defect (README) it targets */
	void		(*setup)(struct xw *w);
	/* Extra phases: at quiescence @phase (1, 2 ...), spawn or end. */
	bool		(*phase)(struct xw *w, unsigned int phase);
	/* Checks at the very end, before teardown. */
	void		(*final)(struct xw *w);
	/*
	 * At least this --rw-limit (0: as given): a race whose window lies
	 * inside a slow side's critical section needs its accesses there to
	 * be points.
	 */
	int		rw_limit;
	/* Run with xp_config's lazy_irq_work. */
	bool		lazy_irq_work;
};

extern const struct scenario xw_scenarios[];
extern const unsigned int xw_nscenarios;

bool xw_quiescent(void *ctx, unsigned int phase);
void xw_quiet(void *ctx);
void xw_setup(void *ctx);
void xw_teardown(void *ctx, bool failed);
void *xw_new_run(const struct scenario *sc, uint64_t seed);
void xw_free_run(void *ctx);

#endif /* TIMEQ_EXPLORE_H */
