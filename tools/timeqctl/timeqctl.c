// SPDX-License-Identifier: GPL-2.0
/*
 * timeqctl - a small command line over /dev/timeq (include/uapi/linux/timeq.h),
 * through libtimeq (tools/lib/timeq)
 *
 *	timeqctl demo	arm timers at a spread of deadlines on a monotonic
 *			queue and print each as it fires, with its lateness
 *	timeqctl sim	a manual-clock hold-model run, printing ops/s
 *	timeqctl stats	the module's limits, or the figures of an open file
 *	timeqctl tune	the bucket width and count the tuning rule chooses,
 *			and the cost per event it predicts (no module needed)
 *
 * Every command takes --help. Exit status: 0 done (for demo: every timer
 * fired once and none early), 1 a check or a call failed, 2 bad usage.
 * Errors read "timeqctl: COMMAND: strerror (what was asked)".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <timeq/timeq.h>

/* The module's tuning rule, compiled from the module's own source. */
#include "../../module/tune.h"

#define DEV	"/dev/timeq"

static const char *command = "timeqctl";

/* Say that @what failed with libtimeq's @ret, a negative errno. */
static void fail(const char *what, int ret, const char *fmt, ...)
{
	va_list args;

	fprintf(stderr, "timeqctl: %s: %s", what, strerror(-ret));
	if (fmt) {
		fprintf(stderr, " (");
		va_start(args, fmt);
		vfprintf(stderr, fmt, args);
		va_end(args);
		fprintf(stderr, ")");
	}
	fprintf(stderr, "\n");
}

static int open_dev(void)
{
	int fd = timeqfd_open(0);

	if (fd < 0)
		fail("open", fd, "%s: is the timeq module loaded?", DEV);
	return fd;
}

/* The figures of TIMEQ_STATS. */
static void print_stats(const struct timeq_stats *st)
{
	static const char *const clocks[] = { "manual", "monotonic" };
	unsigned int i;

	if (!st->configured) {
		printf("file: not configured\n");
		return;
	}
	printf("file: %s clock, now %llu, horizon %llu, cap %u\n",
	       st->clock < 2 ? clocks[st->clock] : "unknown",
	       (unsigned long long)st->now, (unsigned long long)st->horizon,
	       st->max_elements);
	printf("  elements: %llu queued, %llu events unread; %llu inserted, %llu expired\n",
	       (unsigned long long)st->queued, (unsigned long long)st->events,
	       (unsigned long long)st->inserted,
	       (unsigned long long)st->expired);
	if (!st->filled) {
		printf("  (the module knows no more figures than these)\n");
		return;
	}
	printf("  queue: delta %u, %u buckets; %llu expiries\n", st->delta,
	       st->buckets, (unsigned long long)st->expiry_runs);
	/* Only the monotonic clock's expiry is late or not. */
	if (st->clock != TIMEQ_CLOCK_MONOTONIC)
		return;
	printf("  lateness:");
	for (i = 0; i < TIMEQ_LATENESS_BUCKETS; i++) {
		if (!st->lateness[i])
			continue;
		if (!i)
			printf(" <1us %llu", (unsigned long long)st->lateness[i]);
		else if (i == TIMEQ_LATENESS_BUCKETS - 1)
			printf(" >=%luus %llu", 1UL << (i - 1),
			       (unsigned long long)st->lateness[i]);
		else
			printf(" %lu-%luus %llu", 1UL << (i - 1), 1UL << i,
			       (unsigned long long)st->lateness[i]);
	}
	printf("%s\n", st->expired ? "" : " none expired");
}

/* Print the figures of @fd; 0, or 1 if they could not be had. */
static int show_stats(int fd)
{
	struct timeq_stats st;
	int ret = timeqfd_stats(fd, &st);

	if (ret) {
		fail("stats", ret, NULL);
		return 1;
	}
	print_stats(&st);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The number @arg of option @opt, at most @max; anything else, a sign
 * included (strtoull() takes "-1" as 2^64 - 1), exits with status 2.
 */
static uint64_t parse_max(const char *opt, const char *arg, uint64_t max)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (*arg < '0' || *arg > '9' || errno || *end || v > max) {
		fprintf(stderr,
			"timeqctl: %s: --%s wants a number up to %llu, not \"%s\"\n",
			command, opt, (unsigned long long)max, arg);
		exit(2);
	}
	return v;
}

static uint64_t parse(const char *opt, const char *arg)
{
	return parse_max(opt, arg, UINT64_MAX);
}

/* --- demo --- */

/* A day: a deadline's product with up to 10^5 timers stays in 64 bits. */
#define DEMO_MAX_SPREAD	86400000

static void demo_help(FILE *out)
{
	fprintf(out,
		"usage: timeqctl demo [--timers N] [--spread MS] [--granularity NS]\n"
		"                     [--stats]\n"
		"\n"
		"Arms N timers (1 to 100000, default 10) on a CLOCK_MONOTONIC queue at\n"
		"deadlines spread over MS milliseconds (at most a day, default 500),\n"
		"in shuffled order, ticks of NS nanoseconds (default 1000). Prints\n"
		"each timer as it fires, with how late it was, and with --stats the\n"
		"queue's figures at the end. Exits 0 only if every timer fired once\n"
		"and none fired early.\n");
}

static int cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timers", required_argument, NULL, 'n' },
		{ "spread", required_argument, NULL, 's' },
		{ "granularity", required_argument, NULL, 'g' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	uint64_t n = 10, spread_ms = 500, gran = 1000, start, now, *deadline;
	uint64_t horizon, time;
	unsigned int *fired, bad = 0, i, got = 0;
	int fd, opt, ret, stats = 0;
	struct timeq_event ev;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			n = parse("timers", optarg);
			break;
		case 's':
			spread_ms = parse_max("spread", optarg, DEMO_MAX_SPREAD);
			break;
		case 'g':
			gran = parse("granularity", optarg);
			break;
		case 'S':
			stats = 1;
			break;
		case 'h':
			demo_help(stdout);
			return 0;
		default:
			demo_help(stderr);
			return 2;
		}
	}
	if (optind != argc || !n || n > 100000 || !gran) {
		demo_help(stderr);
		return 2;
	}
	fd = open_dev();
	if (fd < 0)
		return 1;
	horizon = (spread_ms * 1000000 + 1000000000) / gran + 1;
	ret = timeqfd_configure_monotonic(fd, gran, horizon, 0);
	if (ret) {
		fail("configure", ret, "granularity %llu ns, horizon %llu ticks",
		     (unsigned long long)gran, (unsigned long long)horizon);
		return 1;
	}
	deadline = calloc(n, sizeof(*deadline));
	fired = calloc(n, sizeof(*fired));
	if (!deadline || !fired)
		return 1;
	start = mono_ns();
	printf("demo: %llu timers over %llu ms, ticks of %llu ns\n",
	       (unsigned long long)n, (unsigned long long)spread_ms,
	       (unsigned long long)gran);
	for (i = 0; i < n; i++) {
		/* Armed in a shuffled order: deadline j for timer i. */
		uint64_t j = (i * (n % 7919 ? 7919 : 7907)) % n;

		deadline[i] = start + (j + 1) * spread_ms * 1000000 / n;
		time = (deadline[i] + gran - 1) / gran;
		ret = timeqfd_insert(fd, time, i, NULL);
		if (ret) {
			fail("insert", ret, "timer %u at %llu", i,
			     (unsigned long long)time);
			return 1;
		}
	}
	while (got < n) {
		ret = timeqfd_read(fd, &ev, 1);
		if (ret != 1) {
			fail("read", ret, NULL);
			return 1;
		}
		now = mono_ns();
		got++;
		if (ev.cookie >= n) {
			printf("  unknown timer %llu\n", (unsigned long long)ev.cookie);
			continue;
		}
		fired[ev.cookie]++;
		if (now < ev.time * gran)
			bad++;
		printf("  timer %2llu fired at +%8.3f ms, %s %.3f ms%s\n",
		       (unsigned long long)ev.cookie, (now - start) / 1e6,
		       now < ev.time * gran ? "EARLY by" : "late",
		       (now < ev.time * gran ? ev.time * gran - now :
			now - ev.time * gran) / 1e6,
		       fired[ev.cookie] > 1 ? " (AGAIN)" : "");
	}
	for (i = 0, got = 0; i < n; i++)
		got += fired[i] == 1;
	printf("demo: %u of %llu timers fired exactly once, %u early%s\n",
	       got, (unsigned long long)n, bad,
	       got == n && !bad ? "" : "; CHECK FAILED");
	bad += n - got;
	if (stats)
		bad += show_stats(fd);
	close(fd);
	return bad ? 1 : 0;
}

/* --- sim --- */

static void sim_help(FILE *out)
{
	fprintf(out,
		"usage: timeqctl sim [--size N] [--ops N] [--jump T] [--stats]\n"
		"\n"
		"The hold model on a manual clock: keeps N elements queued (default\n"
		"10000); each of --ops steps (default 100000) deletes the minimum,\n"
		"which moves the clock to it, and inserts an element a random 1..T\n"
		"ticks later (default 1000). Prints the rate in operations per\n"
		"second, counting each delete-min and each insert, syscalls\n"
		"included, and with --stats the queue's figures at the end.\n");
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmd_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 'n' },
		{ "ops", required_argument, NULL, 'o' },
		{ "jump", required_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	uint64_t size = 10000, ops = 100000, jump = 1000, i, t0, t1, time;
	int fd, opt, ret, stats = 0;
	struct timeq_element e;
	struct timeq_stats st;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			size = parse("size", optarg);
			break;
		case 'o':
			ops = parse("ops", optarg);
			break;
		case 'j':
			jump = parse("jump", optarg);
			break;
		case 'S':
			stats = 1;
			break;
		case 'h':
			sim_help(stdout);
			return 0;
		default:
			sim_help(stderr);
			return 2;
		}
	}
	if (optind != argc || !size || size > UINT32_MAX || !jump ||
	    jump > (1ULL << 31)) {
		sim_help(stderr);
		return 2;
	}
	fd = open_dev();
	if (fd < 0)
		return 1;
	ret = timeqfd_configure_manual(fd, 0, jump + 1, size);
	if (ret) {
		fail("configure", ret, "%llu elements, horizon %llu",
		     (unsigned long long)size, (unsigned long long)jump + 1);
		return 1;
	}
	for (i = 0; i < size; i++) {
		time = 1 + next_rand() % jump;
		ret = timeqfd_insert(fd, time, 0, NULL);
		if (ret) {
			fail("insert", ret, "element %llu at %llu",
			     (unsigned long long)i, (unsigned long long)time);
			return 1;
		}
	}
	t0 = mono_ns();
	for (i = 0; i < ops; i++) {
		ret = timeqfd_delete_min(fd, &e);
		if (ret) {
			fail("delete-min", ret, "step %llu",
			     (unsigned long long)i);
			return 1;
		}
		time = e.time + 1 + next_rand() % jump;
		ret = timeqfd_insert(fd, time, 0, NULL);
		if (ret) {
			fail("insert", ret, "time %llu, now %llu",
			     (unsigned long long)time,
			     (unsigned long long)e.time);
			return 1;
		}
	}
	t1 = mono_ns();
	printf("sim: %llu hold steps on %llu elements (jumps 1..%llu): ",
	       (unsigned long long)ops, (unsigned long long)size,
	       (unsigned long long)jump);
	printf("%.0f ops/s, %.0f ns per operation\n",
	       ops ? 2.0 * ops / ((t1 - t0) / 1e9) : 0.0,
	       ops ? (t1 - t0) / (2.0 * ops) : 0.0);
	ret = timeqfd_stats(fd, &st);
	if (ret) {
		fail("stats", ret, NULL);
		return 1;
	}
	printf("sim: the clock moved to %llu\n", (unsigned long long)st.now);
	if (stats)
		print_stats(&st);
	close(fd);
	return 0;
}

/* --- stats --- */

static void stats_help(FILE *out)
{
	fprintf(out,
		"usage: timeqctl stats [--fd N]\n"
		"\n"
		"Prints the timeq module's limits (its parameters). With --fd, prints\n"
		"instead the figures of the /dev/timeq file open as descriptor N,\n"
		"inherited from the program that runs timeqctl: its elements, its\n"
		"queue's shape, and its expiries and, on the monotonic clock, their\n"
		"lateness (TIMEQ_STATS; root sees every queue, and its internals,\n"
		"in /sys/kernel/debug/timeq/).\n");
}

static void print_param(const char *name)
{
	char path[128], value[64] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/timeq/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(value, sizeof(value), f))
			snprintf(value, sizeof(value), "?");
		value[strcspn(value, "\n")] = 0;
		fclose(f);
	}
	printf("  %-17s %s\n", name, value);
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt, fd = -1;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			fd = parse_max("fd", optarg, INT_MAX);
			break;
		case 'h':
			stats_help(stdout);
			return 0;
		default:
			stats_help(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		stats_help(stderr);
		return 2;
	}
	if (fd >= 0)
		return show_stats(fd);
	fd = open_dev();
	if (fd < 0)
		return 1;
	close(fd);
	printf("timeq module parameters:\n");
	print_param("default_elements");
	print_param("max_elements");
	print_param("max_horizon");
	print_param("max_user_files");
	print_param("max_user_elements");
	print_param("expire_budget");
	return 0;
}

/* --- tune --- */

static void tune_help(FILE *out)
{
	fprintf(out,
		"usage: timeqctl tune --count N --mean-jump MU [--horizon H]\n"
		"\n"
		"Prints the bucket width delta and the number of buckets M that the\n"
		"tuning rule (__timeq_tune(), Documentation/bench.rst \"The\n"
		"rule\") chooses for a queue of about N elements whose new times lie\n"
		"MU ticks past the clock on average, in a window of H ticks (default\n"
		"2 * MU + 1: jumps up to twice the mean), and the time per event that\n"
		"the model of Erickson, Ladner and LaMarca predicts for that shape\n"
		"from the costs make bench fitted (module/tune.h); beside them, the\n"
		"shape timeq_create() and TIMEQ_CONFIGURE take when they know only\n"
		"the horizon. Computed here from the module's source; no module is\n"
		"needed. N is 1 to 2^31, MU 1 to 2^40, H 1 to 2^40 ticks.\n");
}

/* One shape: delta, M, elements a bucket, list heads, predicted cost. */
static void print_shape(const char *what, uint64_t n, uint64_t mu,
			unsigned int ds, unsigned int bs)
{
	uint64_t cost = tq_tune_cost_ps(n, mu, ds);
	double per_bucket = (double)(n << ds) / mu;

	printf("%s: delta 2^%u = %llu ticks, M 2^%u = %llu buckets\n", what, ds,
	       1ULL << ds, bs, 1ULL << bs);
	fprintf(stdout,
		"  %.*f elements a bucket (N delta / MU); %llu KiB of list heads (16 (3 delta + M) bytes)\n",
		per_bucket < 10 ? 2 : per_bucket < 100 ? 1 : 0, per_bucket,
		(unsigned long long)(16 * (3 * (1ULL << ds) + (1ULL << bs)) /
				     1024));
	printf("  predicted %llu.%01llu ns per hold event\n",
	       (unsigned long long)(cost + 50) / 1000,
	       (unsigned long long)(cost + 50) / 100 % 10);
}

static int cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "mean-jump", required_argument, NULL, 'm' },
		{ "horizon", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t n = 0, mu = 0, horizon = 0;
	unsigned int ds, bs;
	int c, have_horizon = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = parse("count", optarg);
			break;
		case 'm':
			mu = parse("mean-jump", optarg);
			break;
		case 'H':
			horizon = parse("horizon", optarg);
			have_horizon = 1;
			break;
		case 'h':
			tune_help(stdout);
			return 0;
		default:
			tune_help(stderr);
			return 2;
		}
	}
	if (!have_horizon && mu && mu < 1ULL << 39)
		horizon = 2 * mu + 1;
	if (optind != argc || !n || n > 1ULL << 31 || !mu || mu > 1ULL << 40 ||
	    __timeq_tune(horizon, n, mu, &ds, &bs)) {
		tune_help(stderr);
		return 2;
	}
	printf("tune: N = %llu elements, mean jump %llu ticks, horizon %llu ticks\n",
	       (unsigned long long)n, (unsigned long long)mu,
	       (unsigned long long)horizon);
	print_shape("rule", n, mu, ds, bs);
	__timeq_tune(horizon, 0, 0, &ds, &bs);
	print_shape("horizon only", n, mu, ds, bs);
	fprintf(stdout,
		"costs (module/tune.h): b %.1f ns a bucket passed, c %.3f ns an element in the bucket,\n"
		"  d %.1f ns an event; below about half an element a bucket timeq costs less\n"
		"  than the model says (its bitmaps skip empty buckets)\n",
		TIMEQ_TUNE_B_PS / 1e3, TIMEQ_TUNE_C_PS / 1e3,
		TIMEQ_TUNE_D_PS / 1e3);
	return 0;
}

static void print_commands(FILE *out)
{
	fprintf(out,
		"usage: timeqctl COMMAND [OPTIONS]   (timeqctl COMMAND --help)\n"
		"\n"
		"  demo    arm timers on a monotonic queue and watch them fire\n"
		"  sim     a manual-clock hold-model run, in operations per second\n"
		"  stats   the module's limits, or an open file's figures\n"
		"  tune    the bucket width and count for a count and mean jump\n"
		"\n"
		"Exit status: 0 done, 1 a check or a call failed, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_commands(stderr);
		return 2;
	}
	command = argv[1];
	if (!strcmp(command, "--help") || !strcmp(command, "help")) {
		print_commands(stdout);
		return 0;
	}
	if (!strcmp(command, "demo"))
		return cmd_demo(argc - 1, argv + 1);
	if (!strcmp(command, "sim"))
		return cmd_sim(argc - 1, argv + 1);
	if (!strcmp(command, "stats"))
		return cmd_stats(argc - 1, argv + 1);
	if (!strcmp(command, "tune"))
		return cmd_tune(argc - 1, argv + 1);
	fprintf(stderr, "timeqctl: %s: no such command\n", command);
	print_commands(stderr);
	return 2;
}
