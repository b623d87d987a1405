// SPDX-License-Identifier: GPL-2.0
/*
 * explore: an interleaving explorer over the real C of module/queue.c,
 * paths.c, fast.c, handoff.c and clock.c, for the concurrency defects
 * README lists.
 *
 * The five files are built unchanged against tools/testing/queue/compat
 * with -DCOMPAT_EXPLORE, in which every synchronisation call is a
 * scheduling point (compat/explore.h has the list): spin_lock(),
 * spin_unlock() and spin_trylock() with their _bh/_irq/_irqsave and raw
 * variants, mutexes, cond_resched(), the atomic bit operations, the llist,
 * irq_work_queue(), queue_work(), wait_event() and wake_up_all(), the
 * hrtimer calls, the clock, and READ_ONCE()/WRITE_ONCE()/test_bit() by a
 * thread that holds fewer than three spinlocks (--rw-limit). Between two
 * points a thread runs alone; so a run is a sequence of steps, each the
 * code from one point to the next.
 *
 * Threads are coroutines (ucontext) of one OS thread, so a run depends on
 * nothing but its seed: the scheduler picks, at each point, the thread to
 * run next among those that can (a thread waiting for a lock, an
 * unwoken wait or, for a daemon, work, cannot). Besides a scenario's two
 * or three threads, the asynchronous parts of the kernel are threads too:
 * the workqueue's worker runs queued work items; each CPU (each thread is
 * a CPU) has an interrupt thread that runs the irq_works queued on it, as
 * the self-interrupt would; the hrtimer interrupt fires an armed hrtimer
 * once the virtual clock, which scenario threads move in steps, reaches
 * it.
 *
 * Schedulers:
 *
 *  - PCT (Burckhardt, Kothari, Musuvathi and Nagarakatte, "A randomized
 *    scheduler with probabilistic guarantees of finding bugs", ASPLOS
 *    2010): each thread gets a random distinct priority >= d; d - 1
 *    change points are drawn among the first k steps; the highest
 *    priority thread that can run runs, and at the i-th change point the
 *    running thread's priority drops to d - i, below all. A bug of depth d
 *    (d ordering constraints) is found with probability at least
 *    1 / (n k^(d-1)) per run. Strict priorities are also how SCHED_FIFO
 *    behaves: a thread that waits by spinning (cond_resched() in a loop)
 *    for a lower one never lets it run, and the run exhausts its step
 *    budget: a livelock.
 *  - random: a uniform choice among the runnable threads at every point.
 *
 * k is measured by a first run (seed 0) unless given. A campaign runs
 * schedules with seeds derived from a base seed until one fails or the
 * budget of schedules is spent; a failure prints its seed, and
 * `--seed S --replay` runs that one schedule again with every step
 * printed.
 *
 * What fails a run: an oracle or invariant of the scenario (world.c: the
 * queue's invariants at every moment no lock is held and no work is
 * pending, no work pending at quiescence, the hrtimer against the
 * minimum, timers lost, early, out of order, or touched after their
 * owner freed them, requests applied out of order or lost, insertions
 * not removed once), a check of compat/explore.h (lockdep_assert_held(),
 * unlocking what one does not hold, sleeping in atomic context, a lock
 * both taken in softirq context and with softirqs enabled), a deadlock
 * (nothing can run but something has not ended: a lost wake-up), a
 * livelock (the step budget), and a crash (with ASan, any touch of a
 * freed timer).
 *
 *	explore [--scenario NAME]... [--sched pct|random] [--depth D] [--k K]
 *		[--schedules N] [--seed S] [--max-steps N] [--rw-limit N]
 *		[--yield-demotes N] [--changes S1,S2...] [--no-quiet-checks]
 *		[--replay] [--find C] [--list] [--tap] [--selftest]
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/timeq.h>

#include "explore.h"

struct options {
	struct xp_config	cfg;
	const char		*only[64];
	unsigned int		nonly;
	unsigned long		schedules;
	uint64_t		seed;
	bool			seed_given;
	bool			replay;
	unsigned long		find;		/* campaigns to measure */
	bool			tap;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The seed of schedule @i of the campaign with base seed @base. */
static uint64_t schedule_seed(uint64_t base, unsigned long i)
{
	uint64_t z = base * 0x9e3779b97f4a7c15ULL + i + 1;

	z = (z ^ (z >> 31)) * 0x7fb5d329728ea185ULL;
	z = (z ^ (z >> 27)) * 0x81dadef4bc2dd44dULL;
	return (z ^ (z >> 33)) & ((1ULL << 48) - 1);
}

static const char *const verdict_name[] = {
	[XP_OK] = "ok", [XP_FAIL] = "failure", [XP_DEADLOCK] = "deadlock",
	[XP_LIVELOCK] = "livelock", [XP_CRASH] = "crash",
};

static void run_one(const struct scenario *sc, const struct xp_config *cfg,
		    uint64_t seed, struct xp_result *res)
{
	struct xp_hooks hooks = {
		.setup = xw_setup,
		.quiet = xw_quiet,
		.quiescent = xw_quiescent,
		.teardown = xw_teardown,
	};

	hooks.ctx = xw_new_run(sc, seed);
	xp_run(cfg, seed, &hooks, res);
	xw_free_run(hooks.ctx);
}

/*
 * PCT's k, if not given: the most steps of eight runs under the random
 * scheduler (seeds 0 to 7) that ended without a livelock, whose step
 * count says nothing; 1000 if every one did.
 */
static unsigned long measure_k(const struct scenario *sc,
			       const struct xp_config *cfg)
{
	struct xp_config c = *cfg;
	unsigned long k = 0;
	struct xp_result res;
	uint64_t seed;

	c.sched = XP_SCHED_RANDOM;
	c.trace = 0;
	for (seed = 0; seed < 8; seed++) {
		run_one(sc, &c, seed, &res);
		if (res.verdict != XP_LIVELOCK && res.steps > k)
			k = res.steps;
	}
	return k ? k : 1000;
}

static void fprint_replay(FILE *f, const struct scenario *sc,
			  const struct xp_config *cfg, uint64_t seed)
{
	fprintf(f, "#   replay: explore --scenario %s --sched %s --depth %u --k %lu --max-steps %lu --rw-limit %d --yield-demotes %u%s --seed %llu --replay\n",
		sc->name, cfg->sched == XP_SCHED_PCT ? "pct" : "random",
		cfg->depth, cfg->k, cfg->max_steps, cfg->rw_limit,
		cfg->yield_demotes, cfg->quiet_checks ? "" : " --no-quiet-checks",
		(unsigned long long)seed);
}

static void print_replay(const struct scenario *sc, const struct xp_config *cfg,
			 uint64_t seed)
{
	fprint_replay(stdout, sc, cfg, seed);
}

/* What the crash handler prints: how to replay the run that crashed. */
static struct {
	const struct scenario	*sc;
	struct xp_config	cfg;
} crash_note;

static void note_crash(FILE *f, uint64_t seed)
{
	if (crash_note.sc)
		fprint_replay(f, crash_note.sc, &crash_note.cfg, seed);
}

/*
 * A campaign: schedules from @base until one fails or @budget are run.
 * Returns the number run (the failing one included), and whether one
 * failed in *@failed.
 */
static unsigned long campaign(const struct scenario *sc,
			      const struct xp_config *cfg, uint64_t base,
			      unsigned long budget, bool *failed,
			      unsigned long *steps, unsigned long *distinct,
			      bool verbose)
{
	uint64_t *seen = calloc(4096, sizeof(*seen));
	struct xp_result res;
	unsigned long i;
	uint64_t seed;

	*failed = false;
	*steps = 0;
	*distinct = 0;
	crash_note.sc = sc;
	crash_note.cfg = *cfg;
	for (i = 0; i < budget; i++) {
		seed = schedule_seed(base, i);
		run_one(sc, cfg, seed, &res);
		*steps += res.steps;
		/* Distinct schedules, by their fingerprints (a small set). */
		if (seen) {
			unsigned long h = res.fingerprint % 4096;

			while (seen[h] && seen[h] != (res.fingerprint | 1))
				h = (h + 1) % 4096;
			if (!seen[h] && *distinct < 3000) {
				seen[h] = res.fingerprint | 1;
				++*distinct;
			}
		}
		if (res.verdict != XP_OK) {
			*failed = true;
			if (verbose) {
				printf("# %s: %s after %lu schedules (seed %llu, %lu steps): %s\n",
				       sc->name, verdict_name[res.verdict], i + 1,
				       (unsigned long long)seed, res.steps,
				       res.message);
				printf("#   the last steps:\n");
				xp_print_trace(stdout, 30);
				print_replay(sc, cfg, seed);
			}
			i++;
			break;
		}
	}
	free(seen);
	return i;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static bool selected(const struct options *o, const struct scenario *sc)
{
	unsigned int i;

	if (!o->nonly)
		return true;
	for (i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], sc->name) || !strcmp(o->only[i], "all"))
			return true;
	return false;
}

static void bad_args(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--scenario NAME]... [--sched pct|random] [--depth D] [--k K]\n"
		"          [--schedules N] [--seed S] [--max-steps N] [--rw-limit N]\n"
		"          [--yield-demotes N] [--changes S1,S2...] [--no-quiet-checks]\n"
		"          [--replay] [--find C] [--list] [--tap] [--selftest]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct options o = {
		.cfg = {
			.sched = XP_SCHED_PCT,
			.depth = 3,
			.max_steps = 200000,
			.rw_limit = 3,
			.quiet_checks = 1,
		},
		.schedules = 1000,
		.seed = 1,
	};
	unsigned int i, tests = 0, bad = 0;
	int a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(arg, "--list")) {
			for (i = 0; i < xw_nscenarios; i++)
				printf("%-28s %s\n", xw_scenarios[i].name,
				       xw_scenarios[i].what);
			return 0;
		} else if (!strcmp(arg, "--selftest")) {
			xp_init(NULL);
			return xp_selftest();
		} else if (!strcmp(arg, "--replay")) {
			o.replay = true;
		} else if (!strcmp(arg, "--tap")) {
			o.tap = true;
		} else if (!strcmp(arg, "--no-quiet-checks")) {
			o.cfg.quiet_checks = 0;
		} else if (!val) {
			bad_args(argv[0]);
		} else if (!strcmp(arg, "--scenario") && o.nonly < 64) {
			o.only[o.nonly++] = val;
			a++;
		} else if (!strcmp(arg, "--sched")) {
			if (!strcmp(val, "pct"))
				o.cfg.sched = XP_SCHED_PCT;
			else if (!strcmp(val, "random"))
				o.cfg.sched = XP_SCHED_RANDOM;
			else
				bad_args(argv[0]);
			a++;
		} else if (!strcmp(arg, "--depth")) {
			o.cfg.depth = strtoul(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--k")) {
			o.cfg.k = strtoul(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--schedules")) {
			o.schedules = strtoul(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--seed")) {
			o.seed = strtoull(val, NULL, 0);
			o.seed_given = true;
			a++;
		} else if (!strcmp(arg, "--max-steps")) {
			o.cfg.max_steps = strtoul(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--rw-limit")) {
			o.cfg.rw_limit = strtol(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--yield-demotes")) {
			o.cfg.yield_demotes = strtoul(val, NULL, 0);
			a++;
		} else if (!strcmp(arg, "--changes")) {
			char *end = (char *)val;

			o.cfg.nchanges = 0;
			while (*end && o.cfg.nchanges < 16) {
				o.cfg.changes[o.cfg.nchanges++] =
					strtoul(end, &end, 0);
				if (*end == ',')
					end++;
			}
			a++;
		} else if (!strcmp(arg, "--find")) {
			o.find = strtoul(val, NULL, 0);
			a++;
		} else {
			bad_args(argv[0]);
		}
	}
	if (!o.cfg.depth || o.cfg.depth > 16)
		bad_args(argv[0]);
	xp_init(note_crash);

	for (i = 0; i < xw_nscenarios; i++) {
		const struct scenario *sc = &xw_scenarios[i];
		struct xp_config cfg = o.cfg;
		unsigned long n, steps, distinct;
		struct xp_result res;
		double start;
		bool failed;

		if (!selected(&o, sc))
			continue;
		if (sc->rw_limit > cfg.rw_limit)
			cfg.rw_limit = sc->rw_limit;
		cfg.lazy_irq_work = sc->lazy_irq_work;
		if (cfg.sched == XP_SCHED_PCT && !cfg.k)
			cfg.k = measure_k(sc, &cfg);

		if (o.replay) {
			cfg.trace = 1;
			crash_note.sc = sc;
			crash_note.cfg = cfg;
			printf("# %s, seed %llu, every step:\n", sc->name,
			       (unsigned long long)o.seed);
			run_one(sc, &cfg, o.seed, &res);
			printf("# %s: %s after %lu steps%s%s\n", sc->name,
			       verdict_name[res.verdict], res.steps,
			       res.verdict ? ": " : "", res.message);
			bad += res.verdict != XP_OK;
			continue;
		}

		if (o.find) {
			/* Schedules to the first failure, over @find campaigns. */
			unsigned long *found = calloc(o.find, sizeof(*found));
			unsigned long c, nfound = 0, total = 0;

			start = now_seconds();
			for (c = 0; c < o.find; c++) {
				n = campaign(sc, &cfg, o.seed + c, o.schedules,
					     &failed, &steps, &distinct, false);
				total += n;
				if (failed)
					found[nfound++] = n;
			}
			qsort(found, nfound, sizeof(*found), cmp_ulong);
			printf("%s: found in %lu of %lu campaigns (budget %lu, %s d=%u k=%lu); schedules to find: min %lu, median %lu, max %lu; %lu schedules in %.1f s\n",
			       sc->name, nfound, o.find, o.schedules,
			       cfg.sched == XP_SCHED_PCT ? "pct" : "random",
			       cfg.depth, cfg.k, nfound ? found[0] : 0,
			       nfound ? found[nfound / 2] : 0,
			       nfound ? found[nfound - 1] : 0, total,
			       now_seconds() - start);
			free(found);
			continue;
		}

		start = now_seconds();
		n = campaign(sc, &cfg, o.seed, o.schedules, &failed, &steps,
			     &distinct, true);
		tests++;
		bad += failed;
		printf("%sok %u - %s: %lu schedules (%lu distinct), %lu steps, %.1f s%s\n",
		       failed ? "not " : "", tests, sc->name, n, distinct, steps,
		       now_seconds() - start, failed ? ", FAILED" : "");
	}
	if (tests && o.tap)
		printf("1..%u\n", tests);
	return bad ? 1 : 0;
}
