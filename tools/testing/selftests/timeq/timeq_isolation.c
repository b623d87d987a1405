// SPDX-License-Identifier: GPL-2.0
/*
 * Limits and isolation.
 *
 *  - memory_max: a child in a cgroup v2 group whose memory.max is a little
 *    above what it uses (cgroup2 is mounted if it is not) inserts until
 *    the group is full. What it allocates is charged to the group
 *    (GFP_KERNEL_ACCOUNT, SLAB_ACCOUNT), so the insert fails, and it must
 *    fail with ENOMEM and change nothing: not the stats, not the next
 *    handle, not a batch (which stops at its first refused insert), not a
 *    new file's configuration. The memory cgroup's OOM killer runs first;
 *    the child has oom_score_adj -1000, so it finds no one and the charge
 *    fails. A refused charge queues work that drains other CPUs' caches
 *    of the group's charges, so a later insert can succeed: it must then
 *    have done what it reports.
 *    Once memory.max is lifted, the same file takes exactly the inserts
 *    it refused.
 *  - files_apart: files of one user and of two users, each with elements
 *    and events: every handle one file issued, and handles near them,
 *    are refused by every other file (ENOENT), alone and in batches; no
 *    file's stats, minimum or events change or show another's cookie.
 *  - no_kernel_address: every byte /dev/timeq gives back (out fields of
 *    every command, at sizes up to a page, batch entries, events of up to
 *    a page, return values) is what the test expects, handles are counters
 *    (the generation grows by one per insert, the index is small), and no
 *    8-byte word of it is an address the test can learn: any symbol of
 *    /proc/kallsyms (the kernel's and timeq's own), the base of any module
 *    of /proc/modules, an hrtimer of /proc/timer_list (a monotonic file's
 *    queue is there, when the kernel runs with no_hash_pointers), or, where
 *    kmemleak runs, any object it tracks, heap and vmalloc (its "dump="
 *    answers for any address). The test first proves its net: timeq's own
 *    symbols are caught, and so is the file's hrtimer, found in timer_list
 *    and known to kmemleak.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "timeq_lib.h"
#include "kselftest_harness.h"

#define CG	"/sys/fs/cgroup"

/*
 * Far above what any test takes on any host: memory_max makes the kernel
 * print an OOM report for each refused charge, which a TCG guest's serial
 * console takes seconds to write (6.1 under a busy host exceeded the
 * harness's default 30 s).
 */
#define SLOW_TIMEOUT	600

/* The tests share nothing: a fixture only for the harness's timeout. */
FIXTURE(iso) {
	int	unused;
};

FIXTURE_SETUP(iso)
{
}

FIXTURE_TEARDOWN(iso)
{
}

/* --- memory.max --- */

/* A cgroup2 hierarchy with the memory controller; 0, or -1 to skip. */
static int cgroup2_ready(void)
{
	char buf[256];

	if (access(CG "/cgroup.controllers", R_OK) &&
	    mount("none", CG, "cgroup2", 0, NULL))
		return -1;
	if (tq_read_file(CG "/cgroup.controllers", buf, sizeof(buf)) ||
	    !strstr(buf, "memory"))
		return -1;
	tq_write_file(CG "/cgroup.subtree_control", "+memory");
	return 0;
}

/* What the child saw, for the parent to check and print. */
struct cg_report {
	int	line;		/* of the first check that failed, or 0 */
	int	err;
	__u64	before_limit;	/* elements inserted before the first ENOMEM */
	__u64	refused;	/* calls refused with ENOMEM */
	int	open_enomem;	/* the new file: open failed */
	int	conf_enomem;	/* the new file: configure failed */
	int	late;		/* inserts that worked after the first ENOMEM */
	int	after_delete;	/* inserts that worked after 200 deletes */
	__u64	after_lift;
};

/* Whether a check failed: if it did, the report says where and why. */
static int cg_failed(struct cg_report *r, int ok, int line)
{
	if (ok)
		return 0;
	r->line = line;
	r->err = errno;
	return 1;
}

#define CG_FAILED(r, cond) cg_failed(r, cond, __LINE__)

/* In the group: fill it, and check each refusal changed nothing. */
static void cg_child(struct cg_report *r, int go_fd, int ready_fd)
{
	struct timeq_op ops[4];
	struct timeq_stats st, now;
	struct timeq_element e;
	__u64 h, first = 0, last = 0;
	int fd, other, i, n;
	char c;

	fd = open(TQ_DEV, O_RDWR | O_NONBLOCK);
	if (CG_FAILED(r, fd >= 0))
		return;
	if (CG_FAILED(r, !tq_configure_manual(fd, 0, 1 << 16, 1000000)))
		return;
	if (CG_FAILED(r, write(ready_fd, "r", 1) == 1))
		return;
	if (CG_FAILED(r, read(go_fd, &c, 1) == 1))	/* memory.max is set */
		return;
	for (i = 0; i < 1000000; i++) {
		if (tq_insert(fd, 1 + i % 60000, i, &h))
			break;
		first = first ? first : h;
		last = h;
	}
	if (CG_FAILED(r, i < 1000000 && errno == ENOMEM))
		return;
	r->before_limit = i;
	r->refused++;
	st = tq_stats(fd);
	if (CG_FAILED(r, st.queued == (__u64)i && st.inserted == (__u64)i))
		return;
	/*
	 * Refused again, with nothing changed. The group's usage can drop
	 * meanwhile without anything of this file freed (a CPU's cache of
	 * charges drained by a work item the refusal queued): an insert
	 * that then succeeds must have done just what it reports.
	 */
	for (i = 0; i < 3; i++) {
		if (!tq_insert(fd, 7, 7, &h)) {
			r->late++;
			last = h;
			continue;
		}
		if (CG_FAILED(r, errno == ENOMEM))
			return;
		r->refused++;
	}
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 4; i++) {
		ops[i].op = TIMEQ_OP_INSERT;
		ops[i].time = 9;
	}
	/* A batch applies inserts up to its first refused one, and stops. */
	n = tq_batch(fd, ops, 4);
	if (CG_FAILED(r, n >= 0 && n <= 4))
		return;
	for (i = 0; i < n; i++) {
		if (CG_FAILED(r, !ops[i].result && ops[i].handle))
			return;
		r->late++;
		last = ops[i].handle;
	}
	if (n < 4) {
		if (CG_FAILED(r, ops[n].result == -ENOMEM && !ops[n].handle &&
			      (n == 3 || !ops[n + 1].result)))
			return;
		r->refused++;
	}
	now = tq_stats(fd);
	if (CG_FAILED(r, now.queued == st.queued + r->late &&
		      now.inserted == st.inserted + r->late &&
		      now.events == st.events))
		return;
	/* The minimum is the first element, as before. */
	if (CG_FAILED(r, !tq_element(fd, TIMEQ_MIN, &e) && e.handle == first))
		return;
	/* A new file: its open or its configuration is refused. */
	other = open(TQ_DEV, O_RDWR);
	if (other < 0) {
		if (CG_FAILED(r, errno == ENOMEM))
			return;
		r->open_enomem = 1;
	} else {
		if (tq_configure_mono(other, 1000, 1 << 20, 0)) {
			if (CG_FAILED(r, errno == ENOMEM))
				return;
			if (CG_FAILED(r, !tq_stats(other).configured))
				return;
			r->conf_enomem = 1;
		}
		close(other);
	}
	/* Deletes and reads need no memory. */
	if (CG_FAILED(r, tq_advance(fd, 100) > 0))
		return;
	for (i = 0; i < 200; i++)
		if (CG_FAILED(r, !tq_element(fd, TIMEQ_DELETE_MIN, &e)))
			return;
	for (i = 0; i < 10; i++)
		r->after_delete += !tq_insert(fd, 60000, i, NULL);
	st = tq_stats(fd);
	if (CG_FAILED(r, write(ready_fd, "r", 1) == 1))
		return;
	if (CG_FAILED(r, read(go_fd, &c, 1) == 1))	/* memory.max is lifted */
		return;
	for (i = 0; i < 1000; i++)
		if (CG_FAILED(r, !tq_insert(fd, 60001, i, &h)))
			return;
	now = tq_stats(fd);
	if (CG_FAILED(r, now.queued == st.queued + 1000 && now.inserted == st.inserted + 1000))
		return;
	/* The handles went on from where they were: no refusal used one. */
	if (CG_FAILED(r, (__u32)(h >> 32) - (__u32)(last >> 32) ==
		      r->after_delete + 1000))
		return;
	r->after_lift = 1000;
	close(fd);
}

TEST_F_TIMEOUT(iso, memory_max, SLOW_TIMEOUT)
{
	char cg[128], path[192], buf[64];
	struct cg_report *r;
	int go[2], ready[2], status;
	long long current;
	pid_t pid;
	char c;

	ASSERT_EQ(0, access(TQ_DEV, R_OK | W_OK)) TH_LOG("%s: %s", TQ_DEV, strerror(errno));
	if (geteuid())
		SKIP(return, "needs root for cgroups");
	if (cgroup2_ready())
		SKIP(return, "no cgroup2 with the memory controller");
	snprintf(cg, sizeof(cg), CG "/timeq-isolation.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755)) TH_LOG("%s: %s", cg, strerror(errno));
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(r != MAP_FAILED);
	memset(r, 0, sizeof(*r));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	/* Short OOM reports: each refusal makes one. */
	tq_write_file("/proc/sys/vm/oom_dump_tasks", "0");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* No page fault may need memory once in the group. */
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		close(go[1]);
		close(ready[0]);
		if (mlockall(MCL_CURRENT | MCL_FUTURE) ||
		    tq_write_file("/proc/self/oom_score_adj", "-1000") ||
		    tq_write_file(path, "0"))
			_exit(2);
		cg_child(r, go[0], ready[1]);
		_exit(r->line ? 1 : 0);
	}
	/*
	 * Only the child writes @ready and reads @go: if it ends early, its
	 * ends close and the reads below see the end of file.
	 */
	close(go[0]);
	close(ready[1]);
	/* The child is in, its file made: a little room above what it uses. */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	current = tq_read_ll(path);
	ASSERT_LT(0, current);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	snprintf(buf, sizeof(buf), "%lld", (current + (1 << 20)) & ~4095LL);
	ASSERT_EQ(0, tq_write_file(path, buf));
	ASSERT_EQ(1, write(go[1], "g", 1));
	/* It filled the group; lift the limit. */
	if (read(ready[0], &c, 1) == 1) {
		ASSERT_EQ(0, tq_write_file(path, "max"));
		ASSERT_EQ(1, write(go[1], "g", 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	tq_write_file("/proc/sys/vm/oom_dump_tasks", "1");
	rmdir(cg);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child: status %#x, check at line %d failed (%s)", status,
		       r->line, strerror(r->err));
	TH_LOG("memory.max %s: %llu elements, then %llu calls refused with ENOMEM",
	       buf, (unsigned long long)r->before_limit,
	       (unsigned long long)r->refused);
	TH_LOG("  (%d inserts taken between them as the group's charges came free),",
	       r->late);
	TH_LOG("  nothing changed (new file: %s); %d of 10 inserts after 200 deletes;",
	       r->open_enomem ? "open refused" : r->conf_enomem ?
	       "configure refused" : "configured", r->after_delete);
	TH_LOG("  %llu after the limit lifted",
	       (unsigned long long)r->after_lift);
}

/* --- files apart --- */

#define APART_FILES	4
#define APART_ELEMS	64

struct apart {
	int	fd;
	__u64	handle[APART_ELEMS];
	__u64	cookie_base;
};

/* Whether @h names a live element of @a (then using it is no leak). */
static int apart_owns(const struct apart *a, __u64 h)
{
	int i;

	for (i = 0; i < APART_ELEMS; i++)
		if (a->handle[i] == h)
			return 1;
	return 0;
}

/* What a file shows: its stats, minimum and events are its own. */
static int apart_check(const struct apart *a, __u64 queued, __u64 events)
{
	struct timeq_stats st = tq_stats(a->fd);
	struct timeq_element e;

	if (st.queued != queued || st.events != events ||
	    st.inserted != APART_ELEMS)
		return -1;
	if (queued && (tq_element(a->fd, TIMEQ_MIN, &e) ||
		       e.cookie < a->cookie_base ||
		       e.cookie >= a->cookie_base + APART_ELEMS ||
		       !apart_owns(a, e.handle)))
		return -1;
	return 0;
}

/*
 * Configure @fd as user @uid, in a child that becomes it when that is not
 * who we are (root only): the file is that user's for its life.
 */
static int configure_as(int fd, uid_t uid)
{
	int status;
	pid_t pid;

	if (uid == geteuid())
		return tq_configure_manual(fd, 0, 1000, 0);
	if (geteuid())
		return tq_configure_manual(fd, 0, 1000, 0);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(3);
		_exit(tq_configure_manual(fd, 0, 1000, 0) ? 4 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) ? -1 : 0;
}

TEST_F_TIMEOUT(iso, files_apart, SLOW_TIMEOUT)
{
	static struct apart f[APART_FILES];
	struct timeq_op ops[APART_ELEMS];
	struct timeq_event ev[16];
	int i, j, k, n, refused = 0, coincide = 0;
	__u64 h, probe;

	/* Two files of root, two of uid 65534 (opened, then configured). */
	for (i = 0; i < APART_FILES; i++) {
		f[i].fd = open(TQ_DEV, O_RDWR | O_NONBLOCK);
		ASSERT_LE(0, f[i].fd) TH_LOG("%s: %s", TQ_DEV, strerror(errno));
		f[i].cookie_base = (__u64)(i + 1) << 40;
	}
	for (i = 0; i < APART_FILES; i++)
		ASSERT_EQ(0, configure_as(f[i].fd, i >= 2 ? 65534 : geteuid()))
			TH_LOG("file %d", i);
	/* Interleaved inserts; half of each file's elements become events. */
	for (j = 0; j < APART_ELEMS; j++)
		for (i = 0; i < APART_FILES; i++)
			ASSERT_EQ(0, tq_insert(f[i].fd, j < APART_ELEMS / 2 ? 10 : 500,
					       f[i].cookie_base + j,
					       &f[i].handle[j]));
	for (i = 0; i < APART_FILES; i++)
		ASSERT_EQ(APART_ELEMS / 2, tq_advance(f[i].fd, 11));
	/* Every handle, and its neighbours, on every other file. */
	for (i = 0; i < APART_FILES; i++) {
		for (k = 0; k < APART_FILES; k++) {
			if (k == i)
				continue;
			for (j = 0; j < APART_ELEMS; j++) {
				static const __u64 near[] = {
					0, 1, -1ULL, 1ULL << 32, -(1ULL << 32),
				};
				int m;

				for (m = 0; m < 5; m++) {
					probe = f[i].handle[j] + near[m];
					if (apart_owns(&f[k], probe)) {
						coincide++;
						continue;
					}
					EXPECT_EQ(-1, tq_delete(f[k].fd, probe));
					EXPECT_EQ(ENOENT, errno);
					EXPECT_EQ(-1, tq_update(f[k].fd, probe, 600));
					EXPECT_EQ(ENOENT, errno);
					refused += 2;
				}
			}
			/* A batch of all of them stops at the first. */
			memset(ops, 0, sizeof(ops));
			for (j = 0; j < APART_ELEMS; j++) {
				ops[j].op = j % 2 ? TIMEQ_OP_DELETE : TIMEQ_OP_UPDATE;
				ops[j].handle = f[i].handle[j];
				ops[j].time = j % 2 ? 0 : 600;
			}
			if (!apart_owns(&f[k], f[i].handle[0])) {
				EXPECT_EQ(0, tq_batch(f[k].fd, ops, APART_ELEMS));
				EXPECT_EQ(-ENOENT, ops[0].result);
				refused++;
			}
		}
	}
	/* Nothing moved, and nothing shows another's elements. */
	for (i = 0; i < APART_FILES; i++) {
		EXPECT_EQ(0, apart_check(&f[i], APART_ELEMS / 2, APART_ELEMS / 2))
			TH_LOG("file %d", i);
		n = read(f[i].fd, ev, sizeof(ev));
		ASSERT_EQ(16 * sizeof(ev[0]), n);
		for (j = 0; j < 16; j++) {
			EXPECT_EQ(f[i].cookie_base + j, ev[j].cookie);
			EXPECT_TRUE(apart_owns(&f[i], ev[j].handle));
		}
	}
	/* A closed file's handles mean nothing to the file after it. */
	h = f[0].handle[APART_ELEMS - 1];
	close(f[0].fd);
	f[0].fd = open(TQ_DEV, O_RDWR);
	ASSERT_LE(0, f[0].fd);
	ASSERT_EQ(0, tq_configure_manual(f[0].fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(f[0].fd, 600, 0, &probe));
	if (probe != h) {
		EXPECT_EQ(-1, tq_delete(f[0].fd, h));
		EXPECT_EQ(ENOENT, errno);
	}
	for (i = 0; i < APART_FILES; i++)
		close(f[i].fd);
	EXPECT_EQ(0, coincide);
	TH_LOG("%d foreign handles and neighbours refused over %d files of 2 users,",
	       refused, APART_FILES);
	TH_LOG("  %d coincided with a file's own", coincide);
}

/* --- no kernel address comes out --- */

/* Addresses the test learned, and ranges of symbols: sorted. */
struct kaddrs {
	__u64	*a;
	size_t	n;
	size_t	size;
	__u64	lo;		/* the lowest and highest symbol */
	__u64	hi;
	__u64	module_lo;	/* timeq's own symbols */
	__u64	module_hi;
	__u64	hrtimer;	/* the monotonic file's, from timer_list */
	int	kmemleak;
};

static int kaddr_add(struct kaddrs *k, __u64 a)
{
	if (k->n == k->size) {
		size_t size = k->size ? 2 * k->size : 4096;
		__u64 *p = realloc(k->a, size * sizeof(*p));

		if (!p)
			return -1;
		k->a = p;
		k->size = size;
	}
	k->a[k->n++] = a;
	return 0;
}

/* Every address of /proc/kallsyms and /proc/modules; root sees them. */
static int learn_symbols(struct kaddrs *k)
{
	char line[512], name[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return -1;
	k->lo = ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		/* Per-CPU symbols are offsets, not addresses: leave them. */
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 ||
		    a < 0xffff800000000000ULL)
			continue;
		if (a < k->lo)
			k->lo = a;
		if (a > k->hi)
			k->hi = a;
		if (strstr(line, "[timeq]")) {
			if (!k->module_lo || a < k->module_lo)
				k->module_lo = a;
			if (a > k->module_hi)
				k->module_hi = a;
		}
		if (kaddr_add(k, a))
			return -1;
	}
	fclose(f);
	f = fopen("/proc/modules", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*u %*d %*s %*s 0x%llx", &a) == 1 && a)
			kaddr_add(k, a);
	fclose(f);
	return k->lo < k->hi ? 0 : -1;
}

/*
 * The hrtimers of /proc/timer_list, which prints their addresses (%p)
 * when the kernel runs with no_hash_pointers: the one of tq_clock_fire is
 * our file's queue, a heap object of timeq's.
 */
static int learn_timers(struct kaddrs *k)
{
	char line[512], fn[128];
	unsigned long long a;
	FILE *f = fopen("/proc/timer_list", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " #%*d: <%llx>, %127[^,]", &a, fn) != 2 ||
		    a < 0xffff800000000000ULL)
			continue;
		kaddr_add(k, a);
		if (!strncmp(fn, "tq_clock_fire", 13))
			k->hrtimer = a;
	}
	fclose(f);
	return 0;
}

/* Whether the kernel prints raw pointers: booted with no_hash_pointers. */
static int no_hash_pointers(void)
{
	char buf[1024];

	return !tq_read_file("/proc/cmdline", buf, sizeof(buf)) &&
	       strstr(buf, "no_hash_pointers");
}

/* Whether kmemleak tracks an object holding @a: its "dump=" says. */
static int kmemleak_knows(__u64 a)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "dump=0x%llx", (unsigned long long)a);
	return !tq_write_file("/sys/kernel/debug/kmemleak", cmd);
}

static int zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

struct scan {
	struct kaddrs	*k;
	long		words;
	long		queried;
	char		why[256];
};

/*
 * Every 8-byte word of @len bytes at @p: not a learned address, not in
 * the span of the symbols, not an object kmemleak knows.
 */
static int scan_words(struct scan *s, const char *what, const void *p,
		      size_t len)
{
	size_t i;
	__u64 w;

	for (i = 0; i + 8 <= len; i += 4) {
		memcpy(&w, (const char *)p + i, 8);
		s->words++;
		if (w >= s->k->lo && w <= s->k->hi + (1 << 20))
			goto found;
		if (bsearch(&w, s->k->a, s->k->n, sizeof(w), cmp_u64))
			goto found;
		if (s->k->kmemleak && w >= 0xffff800000000000ULL) {
			s->queried++;
			if (kmemleak_knows(w))
				goto found;
		}
	}
	return 0;
found:
	snprintf(s->why, sizeof(s->why), "%s, byte %zu: %#llx is a kernel address",
		 what, i, (unsigned long long)w);
	return -1;
}

TEST_F_TIMEOUT(iso, no_kernel_address, SLOW_TIMEOUT)
{
	static unsigned char page[TQ_PAGE * 2];
	struct kaddrs k = { 0 };
	struct scan s = { .k = &k };
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL, .horizon = 1000,
		.event_size = TQ_PAGE,
	};
	struct timeq_insert *in = (void *)page;
	struct timeq_element *e = (void *)page;
	struct timeq_stats *st = (void *)page;
	struct timeq_op ops[8];
	__u64 handles[40], gen = 0;
	int man, mono, i, n, ret;

	man = open(TQ_DEV, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, man) TH_LOG("%s: %s", TQ_DEV, strerror(errno));
	mono = open(TQ_DEV, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, mono);
	if (geteuid())
		SKIP(return, "needs root to read kernel addresses");
	ASSERT_EQ(0, ioctl(man, TIMEQ_CONFIGURE, &c));
	/* A monotonic file with an element an hour ahead: its hrtimer is set. */
	ASSERT_EQ(0, tq_configure_mono(mono, 1000000, 1 << 24, 0));
	ASSERT_EQ(0, tq_insert(mono, tq_mono_ns() / 1000000 + 3600000, 1, NULL));
	ASSERT_EQ(0, learn_symbols(&k));
	ASSERT_EQ(0, learn_timers(&k));
	qsort(k.a, k.n, sizeof(*k.a), cmp_u64);
	k.kmemleak = !access("/sys/kernel/debug/kmemleak", W_OK);
	/*
	 * The net: timeq's symbols are in it, and when the kernel prints raw
	 * pointers (no_hash_pointers) its queue's hrtimer too, a heap object
	 * that kmemleak must know.
	 */
	ASSERT_NE(0, k.module_lo) TH_LOG("no [timeq] symbol in /proc/kallsyms");
	ASSERT_NE(0, scan_words(&s, "the net", &k.module_lo, 8));
	if (no_hash_pointers()) {
		ASSERT_NE(0, k.hrtimer)
			TH_LOG("the file's hrtimer is not in /proc/timer_list");
		ASSERT_NE(0, scan_words(&s, "the net", &k.hrtimer, 8));
		if (k.kmemleak)
			ASSERT_TRUE(kmemleak_knows(k.hrtimer))
				TH_LOG("kmemleak does not know %#llx",
				       (unsigned long long)k.hrtimer);
	}

	/* Inserts at a page's size: the handle, and a page of nothing else. */
	for (i = 0; i < 40; i++) {
		memset(page, 0, TQ_PAGE);
		in->size = TQ_PAGE;
		in->time = 10 + i % 5;
		in->cookie = i;
		ASSERT_EQ(0, ioctl(man, TIMEQ_INSERT, in));
		handles[i] = in->handle;
		/* Counters: one generation more each time, a small index. */
		if (i)
			EXPECT_EQ(gen + 1, handles[i] >> 32);
		gen = handles[i] >> 32;
		EXPECT_GE(41, (__u32)handles[i]);
		EXPECT_NE(0, (__u32)handles[i]);
		in->handle = 0;
		EXPECT_EQ(0, scan_words(&s, "INSERT", page, TQ_PAGE)) TH_LOG("%s", s.why);
		/* Nothing written past what the kernel knows. */
		EXPECT_TRUE(zero(page + sizeof(*in), TQ_PAGE - sizeof(*in)));
	}
	for (i = 0; i < 2; i++) {
		memset(page, 0, TQ_PAGE);
		e->size = TQ_PAGE;
		ASSERT_EQ(0, ioctl(man, i ? TIMEQ_DELETE_MIN : TIMEQ_MIN, e));
		EXPECT_EQ(handles[0], e->handle);
		EXPECT_EQ(10, e->time);
		EXPECT_EQ(0, e->cookie);
		EXPECT_EQ(0, scan_words(&s, "MIN", page, TQ_PAGE)) TH_LOG("%s", s.why);
		EXPECT_TRUE(zero(page + sizeof(*e), TQ_PAGE - sizeof(*e)));
	}
	memset(page, 0, TQ_PAGE);
	st->size = TQ_PAGE;
	ASSERT_EQ(0, ioctl(man, TIMEQ_STATS, st));
	EXPECT_EQ(39, st->queued);
	EXPECT_EQ(40, st->inserted);
	EXPECT_EQ(10, st->now);
	EXPECT_EQ(0, scan_words(&s, "STATS", page, TQ_PAGE)) TH_LOG("%s", s.why);
	EXPECT_TRUE(zero(page + sizeof(*st), TQ_PAGE - sizeof(*st)));
	memset(page, 0, TQ_PAGE);
	st->size = TQ_PAGE;
	ASSERT_EQ(0, ioctl(mono, TIMEQ_STATS, st));
	EXPECT_EQ(0, scan_words(&s, "STATS monotonic", page, TQ_PAGE)) TH_LOG("%s", s.why);
	/* A batch: results and handles. */
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 8; i++) {
		ops[i].op = i < 6 ? TIMEQ_OP_INSERT : TIMEQ_OP_DELETE;
		ops[i].time = i < 6 ? 20 : 0;
		ops[i].cookie = i < 6 ? 100 + i : 0;
		ops[i].handle = i < 6 ? 0 : handles[i];
	}
	ops[7].handle = 12345;	/* refused: its result is written too */
	ret = tq_batch(man, ops, 8);
	EXPECT_EQ(7, ret);
	EXPECT_EQ(-ENOENT, ops[7].result);
	EXPECT_EQ(0, scan_words(&s, "BATCH", ops, sizeof(ops))) TH_LOG("%s", s.why);
	/* Return values. */
	/* The 40 at 10 to 14, but the one taken by DELETE_MIN and batch. */
	ret = tq_advance(man, 15);
	EXPECT_EQ(38, ret);
	EXPECT_EQ(0, scan_words(&s, "ADVANCE's return", &(__u64){ ret }, 8)) TH_LOG("%s", s.why);
	/* Events of a page: one event's bytes, then zero. */
	n = 0;
	for (;;) {
		memset(page, 0xff, sizeof(page));
		ret = read(man, page, sizeof(page));
		if (ret < 0)
			break;
		ASSERT_EQ(0, ret % TQ_PAGE);
		for (i = 0; i < ret / TQ_PAGE; i++) {
			struct timeq_event *ev = (void *)(page + i * TQ_PAGE);

			EXPECT_EQ(sizeof(*ev), ev->size);
			EXPECT_EQ(0, ev->flags);
			EXPECT_TRUE(!memchr(page + i * TQ_PAGE + sizeof(*ev), 0xff,
					    TQ_PAGE - sizeof(*ev)));
			EXPECT_EQ(0, scan_words(&s, "event", ev, TQ_PAGE)) TH_LOG("%s", s.why);
			n++;
		}
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LT(0, n);
	close(man);
	close(mono);
	free(k.a);
	TH_LOG("%ld words checked against %zu kernel addresses%s%ld asked of kmemleak",
	       s.words, k.n, k.kmemleak ? ", " : ", no kmemleak: ", s.queried);
	TH_LOG("  (symbols %#llx-%#llx, timeq at %#llx, its hrtimer at %#llx)",
	       (unsigned long long)k.lo, (unsigned long long)k.hi,
	       (unsigned long long)k.module_lo, (unsigned long long)k.hrtimer);
}

TEST_HARNESS_MAIN
