// SPDX-License-Identifier: GPL-2.0
/*
 * The explorer's own tests: small programs, each with a known bug or
 * known to be right, over the compat primitives of compat/explore.h that
 * module/ uses and those the fixes of README's defects will
 * (wait_var_event(), completions, raw spinlocks with irqsave). A detector
 * that misses its bug, or a correct program that fails, fails the
 * self-test, so that a clean run of a scenario means something.
 *
 *	explore --selftest
 */
#include <stdlib.h>
#include <string.h>

#include <linux/timeq.h>

#include "explore.h"

/* The state of one self-test run: a few words and locks. */
static struct st {
	int			flag, count, done;
	spinlock_t		a, b;
	raw_spinlock_t		raw;
	struct mutex		m1, m2;
	wait_queue_head_t	wq;
	struct completion	comp;
	struct irq_work		iw;
	int			irqsave;
} st;

struct selftest {
	const char	*name;
	bool		buggy;		/* a schedule must fail */
	enum xp_sched	sched;
	unsigned int	yield_demotes;
	void		(*setup)(void);
	void		(*check)(void);	/* at quiescence */
};

static void st_signal_nowake(void *arg)
{
	(void)arg;
	WRITE_ONCE(st.flag, 1);
}

static void st_signal_wake(void *arg)
{
	(void)arg;
	WRITE_ONCE(st.flag, 1);
	wake_up_all(&st.wq);
}

static void st_wait(void *arg)
{
	(void)arg;
	wait_event(st.wq, READ_ONCE(st.flag));
}

static void lost_wakeup_setup(void)
{
	xp_spawn("waiter", st_wait, NULL, 0);
	xp_spawn("signal", st_signal_nowake, NULL, 0);
}

static void wakeup_setup(void)
{
	xp_spawn("waiter", st_wait, NULL, 0);
	xp_spawn("signal", st_signal_wake, NULL, 0);
}

static void st_var_signal(void *arg)
{
	(void)arg;
	WRITE_ONCE(st.flag, 1);
	wake_up_var(&st.flag);
}

static void st_var_wait(void *arg)
{
	(void)arg;
	wait_var_event(&st.flag, READ_ONCE(st.flag));
}

static void var_setup(void)
{
	xp_spawn("waiter", st_var_wait, NULL, 0);
	xp_spawn("signal", st_var_signal, NULL, 0);
}

static void st_spin(void *arg)
{
	(void)arg;
	while (!READ_ONCE(st.flag))
		cond_resched();
}

static void busy_wait_setup(void)
{
	xp_spawn("spinner", st_spin, NULL, 0);
	xp_spawn("signal", st_signal_nowake, NULL, 0);
}

static void st_incr(void *arg)
{
	int x;

	(void)arg;
	x = READ_ONCE(st.count);
	WRITE_ONCE(st.count, x + 1);
}

static void st_incr_locked(void *arg)
{
	(void)arg;
	spin_lock(&st.a);
	st.count++;
	spin_unlock(&st.a);
}

static void lost_update_setup(void)
{
	xp_spawn("inc1", st_incr, NULL, 0);
	xp_spawn("inc2", st_incr, NULL, 0);
}

static void locked_update_setup(void)
{
	xp_spawn("inc1", st_incr_locked, NULL, 0);
	xp_spawn("inc2", st_incr_locked, NULL, 0);
}

static void two_check(void)
{
	if (st.count != 2)
		xp_fail(__FILE__, __LINE__, "count %d, want 2", st.count);
}

static void st_ab(void *arg)
{
	(void)arg;
	mutex_lock(&st.m1);
	mutex_lock(&st.m2);
	mutex_unlock(&st.m2);
	mutex_unlock(&st.m1);
}

static void st_ba(void *arg)
{
	(void)arg;
	mutex_lock(&st.m2);
	mutex_lock(&st.m1);
	mutex_unlock(&st.m1);
	mutex_unlock(&st.m2);
}

static void abba_setup(void)
{
	xp_spawn("ab", st_ab, NULL, 0);
	xp_spawn("ba", st_ba, NULL, 0);
}

static void st_assert(void *arg)
{
	(void)arg;
	spin_lock(&st.a);
	lockdep_assert_held(&st.b);
	spin_unlock(&st.a);
}

static void assert_setup(void)
{
	xp_spawn("asserter", st_assert, NULL, 0);
}

/* The raw lock in an irq_work, and in process context. */
static void st_irq_handler(struct irq_work *work)
{
	(void)work;
	raw_spin_lock(&st.raw);
	st.count++;
	raw_spin_unlock(&st.raw);
}

static void st_raw_user(void *arg)
{
	unsigned long flags;

	(void)arg;
	irq_work_queue(&st.iw);
	if (st.irqsave) {
		raw_spin_lock_irqsave(&st.raw, flags);
		st.count++;
		raw_spin_unlock_irqrestore(&st.raw, flags);
	} else {
		raw_spin_lock(&st.raw);
		st.count++;
		raw_spin_unlock(&st.raw);
	}
}

static void irq_unsafe_setup(void)
{
	st.irqsave = 0;
	xp_spawn("user", st_raw_user, NULL, 0);
}

static void irq_safe_setup(void)
{
	st.irqsave = 1;
	xp_spawn("user", st_raw_user, NULL, 0);
}

static void st_complete(void *arg)
{
	(void)arg;
	WRITE_ONCE(st.done, 1);
	complete(&st.comp);
}

static void st_wait_completion(void *arg)
{
	(void)arg;
	wait_for_completion(&st.comp);
	if (!READ_ONCE(st.done))
		xp_fail(__FILE__, __LINE__, "completion returned before complete()");
}

static void completion_setup(void)
{
	xp_spawn("waiter", st_wait_completion, NULL, 0);
	xp_spawn("completer", st_complete, NULL, 0);
}

static void st_sleep_in_lock(void *arg)
{
	(void)arg;
	spin_lock(&st.a);
	mutex_lock(&st.m1);
	mutex_unlock(&st.m1);
	spin_unlock(&st.a);
}

static void sleep_in_atomic_setup(void)
{
	xp_spawn("sleeper", st_sleep_in_lock, NULL, 0);
}

static const struct selftest selftests[] = {
	{ "lost wake-up is a deadlock", true, XP_SCHED_PCT, 0,
	  lost_wakeup_setup, NULL },
	{ "wait_event with wake_up_all", false, XP_SCHED_PCT, 0,
	  wakeup_setup, NULL },
	{ "wait_var_event with wake_up_var", false, XP_SCHED_RANDOM, 0,
	  var_setup, NULL },
	{ "busy-wait on a lower thread is a livelock under PCT", true,
	  XP_SCHED_PCT, 0, busy_wait_setup, NULL },
	{ "busy-wait ends under the random scheduler", false, XP_SCHED_RANDOM,
	  0, busy_wait_setup, NULL },
	{ "busy-wait ends with --yield-demotes", false, XP_SCHED_PCT, 2,
	  busy_wait_setup, NULL },
	{ "READ_ONCE/WRITE_ONCE increment loses an update", true,
	  XP_SCHED_PCT, 0, lost_update_setup, two_check },
	{ "locked increment keeps both", false, XP_SCHED_RANDOM, 0,
	  locked_update_setup, two_check },
	{ "ABBA mutexes deadlock", true, XP_SCHED_PCT, 0, abba_setup, NULL },
	{ "lockdep_assert_held of a lock not held", true, XP_SCHED_PCT, 0,
	  assert_setup, NULL },
	{ "raw lock in hardirq and with irqs on", true, XP_SCHED_PCT, 0,
	  irq_unsafe_setup, NULL },
	{ "raw lock in hardirq and with irqsave", false, XP_SCHED_RANDOM, 0,
	  irq_safe_setup, NULL },
	{ "completion", false, XP_SCHED_RANDOM, 0, completion_setup, NULL },
	{ "mutex under a spinlock sleeps in atomic", true, XP_SCHED_PCT, 0,
	  sleep_in_atomic_setup, NULL },
};

static const struct selftest *current_test;

static void st_setup(void *ctx)
{
	(void)ctx;
	memset(&st, 0, sizeof(st));
	spin_lock_init(&st.a);
	spin_lock_init(&st.b);
	raw_spin_lock_init(&st.raw);
	mutex_init(&st.m1);
	mutex_init(&st.m2);
	init_waitqueue_head(&st.wq);
	init_completion(&st.comp);
	init_irq_work(&st.iw, st_irq_handler);
	xp_name(&st.a, sizeof(st.a), "a");
	xp_name(&st.b, sizeof(st.b), "b");
	xp_name(&st.raw, sizeof(st.raw), "raw");
	xp_name(&st.m1, sizeof(st.m1), "m1");
	xp_name(&st.m2, sizeof(st.m2), "m2");
	xp_name(&st.flag, sizeof(st.flag), "flag");
	current_test->setup();
}

static bool st_quiescent(void *ctx, unsigned int phase)
{
	(void)ctx;
	(void)phase;
	if (current_test->check)
		current_test->check();
	return false;
}

static void st_teardown(void *ctx, bool failed)
{
	(void)ctx;
	(void)failed;
}

int xp_selftest(void)
{
	struct xp_hooks hooks = {
		.setup = st_setup,
		.quiescent = st_quiescent,
		.teardown = st_teardown,
	};
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(selftests); i++) {
		const struct selftest *t = &selftests[i];
		struct xp_config cfg = {
			.sched = t->sched,
			.depth = 3,
			.k = 20,
			.max_steps = 20000,
			.rw_limit = 3,
			.yield_demotes = t->yield_demotes,
		};
		struct xp_result res = { .verdict = XP_OK };
		unsigned long n;

		current_test = t;
		for (n = 0; n < 2000; n++) {
			xp_run(&cfg, n * 7919 + 1, &hooks, &res);
			if (res.verdict != XP_OK)
				break;
		}
		if (t->buggy != (res.verdict != XP_OK))
			bad++;
		printf("%sok %u - selftest: %s: %s after %lu schedules%s%s\n",
		       t->buggy != (res.verdict != XP_OK) ? "not " : "", i + 1,
		       t->name, t->buggy ? "a bug, so found" : "right, so clean",
		       n + (res.verdict != XP_OK), res.verdict ? ": " : "",
		       res.message);
	}
	printf("1..%zu\n", ARRAY_SIZE(selftests));
	return bad ? 1 : 0;
}
