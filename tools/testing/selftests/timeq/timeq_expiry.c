// SPDX-License-Identifier: GPL-2.0
/*
 * Expiry under load, on the monotonic clock.
 *
 *   timeq_expiry [--elements N] [--files F] [--threads T] [--granularity NS]
 *                [--seed S] [--quiet]
 *
 * N elements (default 100000) in F files (default 4) are inserted by
 * batches far ahead, so that none expires while they go in, however slow
 * the host. Then T threads (default 4), each owning every T-th element of
 * every file, bring each of theirs near: a window W ahead, W a quarter of
 * the time the inserts took (2 s at least), a third of them into storms,
 * ticks that thousands share. While those expire, the threads go on refreshing:
 * they move elements later, as idle time-outs are refreshed, move some
 * into the storms, and delete some, alone and in batches; a quarter of
 * the elements they leave where they were brought. A reader per file
 * waits in poll() and read()s its events as they come.
 *
 * It checks that every element is either deleted by its owner (the
 * delete said 0) or delivered exactly once as an event, never both, with
 * the handle and the cookie it was inserted with and a time no earlier
 * than its owner last asked for; that no event is read before its time
 * (CLOCK_MONOTONIC at the read is at or past time * granularity), and
 * each file's events are read in time order; and,
 * for lost elements, without a timeout: once every file's TIMEQ_STATS
 * says nothing is queued and nothing is unread, every element must be
 * accounted for.
 *
 * It prints the lateness of the events, the time from the tick an
 * element was due to its read() by a waiting reader, as a distribution:
 * a figure of the kernel it runs in, never judged.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <pthread.h>

#include "timeq_lib.h"
#include "kselftest.h"

static unsigned long opt_elements = 100000;
static unsigned int opt_files = 4;
static unsigned int opt_threads = 4;
static __u64 opt_gran = 100000;		/* 100 us per tick */
static __u64 opt_seed;
static int opt_quiet;

#define BATCH		512
#define FAR_MS		(20 * 60 * 1000)	/* inserted 20 minutes ahead */
#define STORMS		8

struct elem {
	__u64		handle;
	__u64		asked;		/* the time last set by its owner */
	__u64		time;		/* of its event */
	__u64		ev_handle;	/* of its event */
	__u64		late_ns;
	unsigned int	file;
	int		deleted;	/* the owner's delete said 0 */
	int		delivered;	/* events read for it */
};

static struct elem *el;
static int *fds;
static __u64 window;			/* W, in ticks */
static __u64 storm0, storm_gap;		/* the storms: storm0 + k * storm_gap */
static int done;
static int failed;
static char why[512];
static pthread_mutex_t why_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&why_lock);
	if (!failed) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	failed = 1;
	pthread_mutex_unlock(&why_lock);
}

static __u64 ms_ticks(__u64 ms)
{
	return ms * 1000000 / opt_gran;
}

static __u64 tick_now(void)
{
	return tq_mono_ns() / opt_gran;
}

/* The file of element @i, and its owner thread. */
static unsigned int file_of(unsigned long i)
{
	return i % opt_files;
}

static unsigned int owner_of(unsigned long i)
{
	return (i / opt_files) % opt_threads;
}

/*
 * A quarter of the elements are never refreshed: they expire where they
 * were inserted, storms included.
 */
static int left_alone(unsigned long i)
{
	return (i / (opt_files * opt_threads)) % 4 == 0;
}

/* --- inserting --- */

static int insert_all(__u64 *rng)
{
	static struct timeq_op ops[BATCH];
	unsigned long i, at[BATCH];
	unsigned int f;
	int n, k, ret;

	for (f = 0; f < opt_files; f++) {
		n = 0;
		for (i = f; i < opt_elements; i += opt_files) {
			__u64 t = tick_now() + ms_ticks(FAR_MS) +
				  tq_below(rng, ms_ticks(1000));

			memset(&ops[n], 0, sizeof(ops[n]));
			ops[n].op = TIMEQ_OP_INSERT;
			ops[n].time = t;
			ops[n].cookie = i;
			el[i].asked = t;
			el[i].file = f;
			at[n++] = i;
			if (n < BATCH && i + opt_files < opt_elements)
				continue;
			ret = tq_batch(fds[f], ops, n);
			if (ret != n) {
				fail("insert batch of %d into file %u: %d (%s, result %d)",
				     n, f, ret, strerror(errno),
				     ret >= 0 ? ops[ret].result : 0);
				return -1;
			}
			for (k = 0; k < n; k++)
				el[at[k]].handle = ops[k].handle;
			n = 0;
		}
	}
	return 0;
}

/* --- refreshing --- */

struct refresher {
	unsigned int	id;
	__u64		rng;
	unsigned long	calls, updates, deletes, enoent, batches;
};

/* Whether tick @t is one of the storms. */
static int is_storm(__u64 t)
{
	return t >= storm0 && (t - storm0) % storm_gap == 0 &&
	       (t - storm0) / storm_gap < STORMS;
}

/*
 * A new time for an element: in the window ahead, as an idle time-out is
 * refreshed, or a storm not yet due (the last one, once all are).
 */
static __u64 refresh_time(__u64 *rng)
{
	__u64 now = tick_now(), k;

	if (tq_below(rng, 3))
		return now + window + tq_below(rng, window);
	k = now >= storm0 ? (now - storm0) / storm_gap + 1 : 0;
	k += tq_below(rng, 3);
	return storm0 + (k < STORMS ? k : STORMS - 1) * storm_gap;
}

/* An element of @r's, picked at random, that is still its to act on. */
static long pick_own(struct refresher *r)
{
	unsigned long i, tries;

	for (tries = 0; tries < 64; tries++) {
		i = tq_below(&r->rng, opt_elements);
		i -= i % (opt_files * opt_threads);
		i += r->id * opt_files + tq_below(&r->rng, opt_files);
		if (i >= opt_elements || owner_of(i) != r->id || left_alone(i))
			continue;
		if (!el[i].deleted &&
		    !__atomic_load_n(&el[i].delivered, __ATOMIC_ACQUIRE))
			return i;
	}
	return -1;
}

/*
 * The outcome of a delete or an update of element @i: 0 applied it,
 * ENOENT means the element has expired (its event will say so), nothing
 * else may come.
 */
static void outcome(struct refresher *r, long i, int del, __u64 t, int err)
{
	if (!err) {
		if (del)
			el[i].deleted = 1;
		else
			el[i].asked = t;
		del ? r->deletes++ : r->updates++;
	} else if (err == ENOENT) {
		r->enoent++;
	} else {
		fail("%s of element %ld: %s", del ? "delete" : "update", i,
		     tq_errno_name(err));
	}
}

/* Bring every element of @r's near, by batches of updates into one file. */
static void bring_near(struct refresher *r)
{
	struct timeq_op ops[16];
	unsigned long i, at[16];
	unsigned int f;
	int n, k, ret;

	for (f = 0; f < opt_files && !failed; f++) {
		n = 0;
		for (i = r->id * opt_files + f; i < opt_elements;
		     i += opt_files * opt_threads) {
			memset(&ops[n], 0, sizeof(ops[n]));
			ops[n].op = TIMEQ_OP_UPDATE;
			ops[n].handle = el[i].handle;
			ops[n].time = refresh_time(&r->rng);
			at[n++] = i;
			if (n < 16 && i + opt_files * opt_threads < opt_elements)
				continue;
			ret = tq_batch(fds[f], ops, n);
			if (ret != n) {
				fail("bringing near: a batch of %d applied %d (%s, result %d)",
				     n, ret, strerror(errno),
				     ret >= 0 ? ops[ret].result : 0);
				return;
			}
			for (k = 0; k < n; k++)
				el[at[k]].asked = ops[k].time;
			n = 0;
		}
	}
}

static void *refresh_run(void *arg)
{
	struct refresher *r = arg;
	struct timeq_op ops[16];
	long at[16], i;
	int n, k, ret, del;
	__u64 t;

	/* First, each of its elements near: batches of updates. */
	bring_near(r);
	/* Then a number of calls, not a time: as much work on any host. */
	while (r->calls++ < opt_elements / opt_threads / 8 && !failed) {
		if (tq_below(&r->rng, 4)) {
			i = pick_own(r);
			if (i < 0)
				continue;
			del = !tq_below(&r->rng, 20);
			t = refresh_time(&r->rng);
			ret = del ? tq_delete(fds[el[i].file], el[i].handle) :
				    tq_update(fds[el[i].file], el[i].handle, t);
			outcome(r, i, del, t, ret ? errno : 0);
			continue;
		}
		/* A batch into one file, which stops at the first ENOENT. */
		n = 0;
		memset(ops, 0, sizeof(ops));
		while (n < 16) {
			i = pick_own(r);
			if (i < 0)
				break;
			for (k = 0; k < n && at[k] != i; k++)
				;
			if (k < n || (n && el[i].file != el[at[0]].file))
				continue;
			del = !tq_below(&r->rng, 20);
			ops[n].op = del ? TIMEQ_OP_DELETE : TIMEQ_OP_UPDATE;
			ops[n].handle = el[i].handle;
			ops[n].time = del ? 0 : refresh_time(&r->rng);
			at[n++] = i;
		}
		if (!n)
			continue;
		ret = tq_batch(fds[el[at[0]].file], ops, n);
		if (ret < 0) {
			fail("refresh batch: %s", strerror(errno));
			break;
		}
		r->batches++;
		for (k = 0; k < n && k <= ret; k++)
			outcome(r, at[k], ops[k].op == TIMEQ_OP_DELETE, ops[k].time,
				k < ret ? 0 : -ops[k].result);
	}
	return NULL;
}

/* --- reading --- */

struct reader {
	unsigned int	file;
	unsigned long	events;
	unsigned long	reads;
	__u64		last;		/* the time of the last event read */
};

static void *read_run(void *arg)
{
	struct reader *rd = arg;
	struct timeq_event ev[16];
	struct pollfd pfd = { .fd = fds[rd->file], .events = POLLIN };
	ssize_t n;
	__u64 now;
	int k;

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED) && !failed) {
		/* A wake-up cadence to notice the end, not a wait for data. */
		if (poll(&pfd, 1, 100) < 0) {
			fail("poll: %s", strerror(errno));
			break;
		}
		n = read(fds[rd->file], ev, sizeof(ev));
		now = tq_mono_ns();
		if (n < 0) {
			if (errno != EAGAIN)
				fail("read: %s", strerror(errno));
			continue;
		}
		rd->reads++;
		for (k = 0; k < n / (ssize_t)sizeof(ev[0]); k++) {
			__u64 i = ev[k].cookie;

			if (i >= opt_elements || file_of(i) != rd->file) {
				fail("file %u: an event with cookie %llu", rd->file,
				     (unsigned long long)i);
				return NULL;
			}
			/*
			 * Its handle is checked at the end: it may expire
			 * before the batch that inserted it has returned.
			 */
			if (ev[k].size != sizeof(ev[k]) || ev[k].flags) {
				fail("element %llu: event of size %u, flags %u",
				     (unsigned long long)i, ev[k].size,
				     ev[k].flags);
				return NULL;
			}
			el[i].ev_handle = ev[k].handle;
			if (now < ev[k].time * opt_gran) {
				fail("element %llu: read %llu ns before its time",
				     (unsigned long long)i,
				     (unsigned long long)(ev[k].time * opt_gran - now));
				return NULL;
			}
			if (ev[k].time < rd->last) {
				fail("file %u: event at %llu read after one at %llu",
				     rd->file, (unsigned long long)ev[k].time,
				     (unsigned long long)rd->last);
				return NULL;
			}
			rd->last = ev[k].time;
			el[i].time = ev[k].time;
			el[i].late_ns = now - ev[k].time * opt_gran;
			if (__atomic_add_fetch(&el[i].delivered, 1,
					       __ATOMIC_RELEASE) != 1) {
				fail("element %llu delivered twice",
				     (unsigned long long)i);
				return NULL;
			}
			rd->events++;
		}
	}
	return NULL;
}

/* --- the figures --- */

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void print_lateness(const char *what, __u64 *v, unsigned long n)
{
	static const double q[] = { 0.5, 0.9, 0.99, 0.999 };
	char line[256];
	int at, k;

	if (!n) {
		ksft_print_msg("lateness %s: no events\n", what);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	at = snprintf(line, sizeof(line), "lateness %s, %lu events (ms):", what, n);
	for (k = 0; k < 4; k++)
		at += snprintf(line + at, sizeof(line) - at, " p%g %.3f",
			       q[k] * 100, v[(unsigned long)(q[k] * (n - 1))] / 1e6);
	snprintf(line + at, sizeof(line) - at, " max %.3f", v[n - 1] / 1e6);
	ksft_print_msg("%s\n", line);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "elements", required_argument, NULL, 'n' },
		{ "files", required_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 'j' },
		{ "granularity", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ }
	};
	struct refresher *r;
	struct reader *rd;
	pthread_t *rt, *dt;
	unsigned long i, deleted = 0, delivered = 0, lost = 0, storm_n = 0,
		      spread_n = 0, updates = 0, deletes = 0, enoent = 0;
	__u64 rng, *storm_late, *spread_late, start;
	unsigned int f;
	int opt, quiet;

	opt_seed = tq_mono_ns() ^ (__u64)getpid() << 32;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'n':
			opt_elements = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			opt_files = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			opt_threads = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			opt_gran = strtoull(optarg, NULL, 0);
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			opt_quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [--elements N] [--files F] [--threads T] [--granularity NS] [--seed S] [--quiet]\n",
				argv[0]);
			return 2;
		}
	}
	if (!opt_elements || !opt_files || opt_files > 64 || !opt_threads ||
	    opt_threads > 64 || opt_gran < 1000 || opt_gran > 10000000) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	ksft_print_header();
	ksft_set_plan(3);
	ksft_print_msg("seed %#llx: %lu elements, %u files, %u refreshers, %llu ns a tick\n",
		       (unsigned long long)opt_seed, opt_elements, opt_files,
		       opt_threads, (unsigned long long)opt_gran);
	el = calloc(opt_elements, sizeof(*el));
	fds = calloc(opt_files, sizeof(*fds));
	r = calloc(opt_threads, sizeof(*r));
	rd = calloc(opt_files, sizeof(*rd));
	rt = calloc(opt_threads, sizeof(*rt));
	dt = calloc(opt_files, sizeof(*dt));
	storm_late = calloc(opt_elements, sizeof(*storm_late));
	spread_late = calloc(opt_elements, sizeof(*spread_late));
	if (!el || !fds || !r || !rd || !rt || !dt || !storm_late || !spread_late)
		ksft_exit_fail_msg("out of memory\n");
	rng = opt_seed;
	for (f = 0; f < opt_files; f++) {
		fds[f] = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fds[f] < 0)
			ksft_exit_fail_msg("open %s: %s\n", TQ_DEV, strerror(errno));
		if (tq_configure_mono(fds[f], opt_gran, 1 << 24,
				      opt_elements / opt_files + 1))
			ksft_exit_fail_msg("configure: %s\n", strerror(errno));
	}

	start = tq_mono_ns();
	/* The readers first: they wait while the elements go in. */
	for (f = 0; f < opt_files; f++) {
		rd[f].file = f;
		if (pthread_create(&dt[f], NULL, read_run, &rd[f]))
			ksft_exit_fail_msg("pthread_create\n");
	}
	if (insert_all(&rng))
		ksft_test_result_fail("insert %lu elements: %s\n", opt_elements, why);
	else
		ksft_test_result_pass("inserted %lu elements in %u files in %.1f s\n",
				      opt_elements, opt_files,
				      (tq_mono_ns() - start) / 1e9);
	/*
	 * W: a quarter of the time the inserts took, 2 s at least, so that
	 * what is brought near first expires while the rest is brought near
	 * and refreshed; storms W/4 apart.
	 */
	window = (tq_mono_ns() - start) / opt_gran / 4;
	if (window < ms_ticks(2000))
		window = ms_ticks(2000);
	storm_gap = window / 4;
	storm0 = tick_now() + window;
	ksft_print_msg("window %.1f s: storms every %.2f s from then on\n",
		       window * opt_gran / 1e9, storm_gap * opt_gran / 1e9);
	for (i = 0; i < opt_threads; i++) {
		r[i].id = i;
		r[i].rng = opt_seed + 977 * (i + 1);
		if (pthread_create(&rt[i], NULL, refresh_run, &r[i]))
			ksft_exit_fail_msg("pthread_create\n");
	}
	/* The refreshers make their calls; then everything expires. */
	for (i = 0; i < opt_threads; i++) {
		pthread_join(rt[i], NULL);
		updates += r[i].updates;
		deletes += r[i].deletes;
		enoent += r[i].enoent;
	}
	/*
	 * The end, without a timeout: every file says nothing is queued and
	 * nothing is unread. Then every element must be accounted for once
	 * the readers have finished with what they read.
	 */
	for (;;) {
		__u64 left = 0;

		for (f = 0; f < opt_files; f++) {
			struct timeq_stats st = tq_stats(fds[f]);

			left += st.queued + st.events;
		}
		if (!left || failed)
			break;
		usleep(50000);	/* how often to look, not what to wait for */
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	for (f = 0; f < opt_files; f++)
		pthread_join(dt[f], NULL);

	for (i = 0; i < opt_elements; i++) {
		struct elem *e = &el[i];

		deleted += e->deleted;
		delivered += !!e->delivered;
		if (e->deleted && e->delivered) {
			fail("element %lu deleted and delivered", i);
		} else if (!e->deleted && !e->delivered) {
			if (!lost)
				fail("element %lu (handle %llx, time %llu) lost",
				     i, (unsigned long long)e->handle,
				     (unsigned long long)e->asked);
			lost++;
		} else if (e->delivered && e->time < e->asked) {
			fail("element %lu: event time %llu before %llu asked", i,
			     (unsigned long long)e->time,
			     (unsigned long long)e->asked);
		} else if (e->delivered && e->ev_handle != e->handle) {
			fail("element %lu: event handle %llx, inserted %llx", i,
			     (unsigned long long)e->ev_handle,
			     (unsigned long long)e->handle);
		}
		if (e->delivered) {
			if (is_storm(e->asked))
				storm_late[storm_n++] = e->late_ns;
			else
				spread_late[spread_n++] = e->late_ns;
		}
	}
	quiet = opt_quiet;
	if (!failed || lost)
		ksft_test_result(!lost && !failed,
				 "every element deleted by its owner or delivered once: %lu deleted, %lu delivered, %lu lost (%lu updates, %lu deletes, %lu found expired)\n",
				 deleted, delivered, lost, updates, deletes,
				 enoent);
	else
		ksft_test_result_fail("%s\n", why);
	ksft_test_result(!failed, "no event early or out of place, over %lu events%s%s\n",
			 delivered, failed ? ": " : "", failed ? why : "");
	if (!quiet) {
		print_lateness("in storms", storm_late, storm_n);
		print_lateness("spread", spread_late, spread_n);
	}
	for (f = 0; f < opt_files; f++)
		close(fds[f]);
	ksft_print_msg("%.1f s in all\n", (tq_mono_ns() - start) / 1e9);
	ksft_finished();
}
