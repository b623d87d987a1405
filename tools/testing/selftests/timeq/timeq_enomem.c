// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failure: /dev/timeq under failslab and fail_page_alloc.
 *
 *  - threads.*: four threads, each with two manual-clock files checked
 *    against the reference model (timeq_model.h) and one monotonic file
 *    checked by counting, make every command in a random mix while a
 *    share of their allocations fails: failslab at 1, 5, 20 and 50%,
 *    fail_page_alloc at 5 and 30%, and both at 10%. Only the workload's
 *    own threads fail (task-filter, /proc/thread-self/make-it-fail). A
 *    command may fail only with ENOMEM, only if it allocates (open,
 *    TIMEQ_CONFIGURE, TIMEQ_INSERT, a batch's inserts), and then changes
 *    nothing: TIMEQ_STATS equals the model after every command. Every
 *    other command does exactly what the model says. At the end every
 *    file is drained against its model with nothing failing.
 *  - targeted.*: where a random mix might not reach. The xarray node
 *    that an insert needs once a file has 63 elements: each allocation
 *    failing alone (fail-nth) must be survived, as the xarray retries
 *    with GFP_KERNEL; all of them failing (failslab's cache filter on
 *    radix_tree_node, at 100% for the test's thread) must give ENOMEM
 *    and change nothing, alone and inside a batch, which stops there.
 *    And TIMEQ_CONFIGURE with only the page allocator failing, one
 *    allocation at a time: a queue's arrays come from kvzalloc(), whose
 *    large kmalloc falls back to vmalloc.
 *
 * kmemleak, at the end of the run, checks that nothing a failed command
 * or a closed file allocated is left behind. Every test opens /dev/timeq:
 * without the module every test fails. Work is bounded in operations,
 * never in time.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>

#include "timeq_lib.h"
#include "timeq_model.h"
#include "kselftest_harness.h"

#define SLOW_TIMEOUT	600

/* --- the threaded workload --- */

#define W_THREADS	4
#define W_MANUAL	2		/* manual files per thread, then one monotonic */
#define W_FILES		(W_MANUAL + 1)
#define W_CAP		48
#define W_OPS		300		/* commands per thread */
#define W_BATCH		8
#define W_GRAN		1000000ULL	/* monotonic: 1 ms ticks */

enum { K_OPEN, K_CONFIGURE, K_INSERT, K_BATCH, K_DELETE, K_UPDATE, K_MIN,
	K_DELETE_MIN, K_ADVANCE, K_READ, K_KINDS };

static const char *const kind_name[K_KINDS] = {
	"open", "configure", "insert", "batch", "delete", "update", "min",
	"delete_min", "advance", "read",
};

struct tally {
	unsigned long	tries;
	unsigned long	ok;
	unsigned long	enomem;
	unsigned long	other;	/* an errno the model expected */
};

struct wfile {
	int		fd;
	int		mono;
	struct tqm_file	m;		/* manual */
	__u64		live[W_CAP];	/* monotonic: handles not yet read */
	int		nlive;
	__u64		cookie;
};

struct worker {
	int		id;
	__u64		rng;
	int		fail_fd;	/* its thread's make-it-fail */
	int		inject;
	struct wfile	f[W_FILES];
	struct tally	t[K_KINDS];
	char		why[512];
	int		failed;
};

/* Record the first failure of a worker; it stops at once. */
static __printf(3, 4) void w_fail(struct worker *w, int line,
				  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!w->failed) {
		n = snprintf(w->why, sizeof(w->why), "thread %d line %d: ",
			     w->id, line);
		va_start(ap, fmt);
		vsnprintf(w->why + n, sizeof(w->why) - n, fmt, ap);
		va_end(ap);
	}
	w->failed = 1;
}

#define W_FAIL(w, fmt, ...) w_fail(w, __LINE__, fmt, ##__VA_ARGS__)

/* The file's stats must equal the model's, field by field. */
static int w_check_stats(struct worker *w, struct wfile *f, const char *after)
{
	struct timeq_stats want = tqm_stats(&f->m), got = tq_stats(f->fd);

	if (!got.size) {
		W_FAIL(w, "TIMEQ_STATS after %s: %s", after, strerror(errno));
		return -1;
	}
	if (!tqm_stats_equal(&want, &got)) {
		W_FAIL(w,
		       "after %s: stats queued %llu events %llu inserted %llu expired %llu now %llu, model %llu %llu %llu %llu %llu",
		       after, (unsigned long long)got.queued,
		       (unsigned long long)got.events,
		       (unsigned long long)got.inserted,
		       (unsigned long long)got.expired,
		       (unsigned long long)got.now,
		       (unsigned long long)want.queued,
		       (unsigned long long)want.events,
		       (unsigned long long)want.inserted,
		       (unsigned long long)want.expired,
		       (unsigned long long)want.now);
		return -1;
	}
	return 0;
}

/*
 * The outcome of a command the model says must end with @want (0 or an
 * errno): @ret and errno from the kernel. ENOMEM is allowed only where
 * @may_enomem. Returns 1 if the kernel failed it for memory, 0 if it did
 * what the model said, -1 (and the worker failed) otherwise.
 */
static int w_outcome(struct worker *w, int kind, int ret, int err, int want,
		     int may_enomem)
{
	struct tally *t = &w->t[kind];

	t->tries++;
	if (ret < 0 && err == ENOMEM && may_enomem && !want) {
		t->enomem++;
		return 1;
	}
	if (ret < 0 ? err != want : want != 0) {
		W_FAIL(w, "%s: returned %d (%s), the model says %s",
		       kind_name[kind], ret, ret < 0 ? tq_errno_name(err) : "ok",
		       tq_errno_name(want));
		return -1;
	}
	if (want)
		t->other++;
	else
		t->ok++;
	return 0;
}

/* A handle to aim at: mostly a queued element, else a stale or random one. */
static __u64 w_handle(struct worker *w, struct wfile *f)
{
	__u32 i, start = tq_below(&w->rng, W_CAP);
	int kind = tq_below(&w->rng, 10);

	for (i = 0; i < W_CAP && kind < 8; i++) {
		struct tqm_elem *x = &f->m.e[(start + i) % W_CAP];

		if (x->state == TQM_QUEUED)
			return x->handle;
	}
	for (i = 0; i < W_CAP && kind < 9; i++) {
		struct tqm_elem *x = &f->m.e[(start + i) % W_CAP];

		if (x->state == TQM_EVENT)
			return x->handle;
	}
	return tq_rand(&w->rng);
}

/* A time to aim at: mostly in the window, sometimes just outside it. */
static __u64 w_time(struct worker *w, struct tqm_file *m)
{
	switch (tq_below(&w->rng, 12)) {
	case 0:
		return m->now - 1;
	case 1:
		return m->now + m->horizon;
	default:
		return m->now + tq_below(&w->rng, m->horizon ? m->horizon : 1);
	}
}

/* Open a new file for slot @f, configured or not, as the workload goes. */
static void w_reopen(struct worker *w, struct wfile *f)
{
	struct timeq_configure c = { .size = sizeof(c) };
	struct timeq_stats st;
	int ret, err, tries;

	if (f->fd >= 0)
		close(f->fd);
	for (tries = 0; tries < 10000; tries++) {
		f->fd = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (w_outcome(w, K_OPEN, f->fd, errno, 0, w->inject) <= 0)
			break;
	}
	if (f->fd < 0) {
		W_FAIL(w, "open kept failing");
		return;
	}
	tqm_reset(&f->m);
	f->nlive = 0;
	if (f->mono) {
		c.clock = TIMEQ_CLOCK_MONOTONIC;
		c.granularity = W_GRAN;
		c.horizon = 1 << 16;
		c.max_elements = W_CAP;
	} else {
		c.clock = TIMEQ_CLOCK_MANUAL;
		c.start = tq_below(&w->rng, 4) ? tq_below(&w->rng, 1000) :
						  -1ULL - 5000;
		c.horizon = 1 + tq_below(&w->rng, 1 << (1 + tq_below(&w->rng, 12)));
		c.max_elements = 1 + tq_below(&w->rng, W_CAP);
	}
	ret = ioctl(f->fd, TIMEQ_CONFIGURE, &c);
	err = errno;
	ret = w_outcome(w, K_CONFIGURE, ret, err, 0, w->inject);
	if (ret < 0)
		return;
	st = tq_stats(f->fd);
	if (st.configured != !ret) {
		W_FAIL(w, "configure returned %s but the file says configured=%u",
		       ret ? "ENOMEM" : "0", st.configured);
		return;
	}
	if (!ret && !f->mono)
		tqm_configure(&f->m, c.start, c.horizon, c.max_elements, 0);
	f->m.configured = !ret;
}

static void w_insert(struct worker *w, struct wfile *f)
{
	__u64 time = w_time(w, &f->m), handle = 0, cookie = ++f->cookie;
	struct tqm_elem *x = NULL;
	int want = tqm_insert(&f->m, time, cookie, &x), ret, err;

	ret = tq_insert(f->fd, time, cookie, &handle);
	err = errno;
	ret = w_outcome(w, K_INSERT, ret, err, want, 1);
	if (ret == 1)
		tqm_insert_undo(&f->m, x);
	else if (!ret && !want && tqm_set_handle(&f->m, x, handle))
		W_FAIL(w, "insert: handle %llx issued twice",
		       (unsigned long long)handle);
	w_check_stats(w, f, "insert");
}

static void w_batch(struct worker *w, struct wfile *f)
{
	struct timeq_op ops[W_BATCH];
	int n = 1 + tq_below(&w->rng, W_BATCH), i, ret, want;
	struct tqm_elem *x;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < n; i++) {
		ops[i].op = 1 + tq_below(&w->rng, 3);
		if (tq_below(&w->rng, 2))
			ops[i].op = TIMEQ_OP_INSERT;
		if (ops[i].op == TIMEQ_OP_INSERT) {
			ops[i].time = w_time(w, &f->m);
			ops[i].cookie = ++f->cookie;
		} else {
			ops[i].handle = w_handle(w, f);
			if (ops[i].op == TIMEQ_OP_UPDATE)
				ops[i].time = w_time(w, &f->m);
		}
	}
	ret = tq_batch(f->fd, ops, n);
	if (!f->m.configured) {
		w_outcome(w, K_BATCH, ret, errno, EBADFD, 0);
		return;
	}
	if (ret < 0 || ret > n) {
		W_FAIL(w, "batch of %d returned %d (%s)", n, ret,
		       tq_errno_name(errno));
		return;
	}
	w->t[K_BATCH].tries++;
	for (i = 0; i < n && i <= ret; i++) {
		x = NULL;
		switch (ops[i].op) {
		case TIMEQ_OP_INSERT:
			want = tqm_insert(&f->m, ops[i].time, ops[i].cookie, &x);
			break;
		case TIMEQ_OP_DELETE:
			want = tqm_delete(&f->m, ops[i].handle);
			break;
		default:
			want = tqm_update(&f->m, ops[i].handle, ops[i].time);
			break;
		}
		if (i < ret) {
			if (want || ops[i].result) {
				W_FAIL(w, "batch op %d of %d applied, result %d, the model says %s",
				       i, n, ops[i].result, tq_errno_name(want));
				return;
			}
			if (x && tqm_set_handle(&f->m, x, ops[i].handle))
				W_FAIL(w, "batch: handle issued twice");
			continue;
		}
		/* The operation the batch stopped at. */
		if (!want && x && ops[i].result == -ENOMEM) {
			tqm_insert_undo(&f->m, x);
			w->t[K_BATCH].enomem++;
			continue;
		}
		if (ops[i].result != -want || !want) {
			W_FAIL(w, "batch stopped at op %d of %d with %d, the model says %s",
			       i, n, ops[i].result, tq_errno_name(want));
			return;
		}
		w->t[K_BATCH].other++;
	}
	if (ret == n)
		w->t[K_BATCH].ok++;
	w_check_stats(w, f, "batch");
}

static void w_delete_update(struct worker *w, struct wfile *f, int update)
{
	__u64 handle = w_handle(w, f), time = w_time(w, &f->m);
	int want, ret;

	if (update) {
		want = tqm_update(&f->m, handle, time);
		ret = tq_update(f->fd, handle, time);
	} else {
		want = tqm_delete(&f->m, handle);
		ret = tq_delete(f->fd, handle);
	}
	w_outcome(w, update ? K_UPDATE : K_DELETE, ret, errno, want, 0);
	w_check_stats(w, f, update ? "update" : "delete");
}

static void w_min(struct worker *w, struct wfile *f, int del)
{
	struct timeq_element e;
	struct tqm_elem want_e, *x;
	int want, ret;

	if (del) {
		want = tqm_delete_min(&f->m, &want_e);
	} else {
		want = f->m.configured ? 0 : EBADFD;
		x = f->m.configured ? tqm_min(&f->m) : NULL;
		if (f->m.configured && !x)
			want = ENODATA;
		if (x)
			want_e = *x;
	}
	ret = tq_element(f->fd, del ? TIMEQ_DELETE_MIN : TIMEQ_MIN, &e);
	if (w_outcome(w, del ? K_DELETE_MIN : K_MIN, ret, errno, want, 0))
		return;
	if (!want && (e.handle != want_e.handle || e.time != want_e.time ||
		      e.cookie != want_e.cookie))
		W_FAIL(w, "%s: element %llx at %llu, the model says %llx at %llu",
		       del ? "delete_min" : "min", (unsigned long long)e.handle,
		       (unsigned long long)e.time,
		       (unsigned long long)want_e.handle,
		       (unsigned long long)want_e.time);
	w_check_stats(w, f, del ? "delete_min" : "min");
}

static void w_advance(struct worker *w, struct wfile *f)
{
	__u64 time = f->m.now + tq_below(&w->rng, f->m.horizon / 2 + 2) - 1;
	int want = f->m.configured ? tqm_advance(&f->m, time) : -EBADFD;
	int ret = tq_advance(f->fd, time);

	w->t[K_ADVANCE].tries++;
	if (ret != (want < 0 ? -1 : want) || (want < 0 && errno != -want)) {
		W_FAIL(w, "advance to %llu returned %d (%s), the model says %d",
		       (unsigned long long)time, ret, tq_errno_name(errno), want);
		return;
	}
	w->t[K_ADVANCE].ok++;
	w_check_stats(w, f, "advance");
}

static void w_read(struct worker *w, struct wfile *f)
{
	struct timeq_event ev[20];
	size_t len = sizeof(ev[0]) * (1 + tq_below(&w->rng, 20));
	int want = tqm_read_count(&f->m, len), i;
	ssize_t ret = read(f->fd, ev, len);

	w->t[K_READ].tries++;
	if (want < 0 ? ret != -1 || errno != -want :
		       ret != (ssize_t)(want * sizeof(ev[0]))) {
		W_FAIL(w, "read of %zu returned %zd (%s), the model says %d",
		       len, ret, tq_errno_name(errno), want);
		return;
	}
	for (i = 0; i < want; i++) {
		struct tqm_elem *x = tqm_first_event(&f->m);

		if (ev[i].handle != x->handle || ev[i].time != x->time ||
		    ev[i].cookie != x->cookie || ev[i].size != sizeof(ev[i]) ||
		    ev[i].flags) {
			W_FAIL(w, "event %d: %llx, the model says %llx", i,
			       (unsigned long long)ev[i].handle,
			       (unsigned long long)x->handle);
			return;
		}
		tqm_consume(&f->m, x);
	}
	if (want < 0)
		w->t[K_READ].other++;
	else
		w->t[K_READ].ok++;
	w_check_stats(w, f, "read");
}

/* --- the monotonic file: counted, as its clock moves by itself --- */

static int w_mono_forget(struct wfile *f, __u64 handle)
{
	int i;

	for (i = 0; i < f->nlive; i++) {
		if (f->live[i] == handle) {
			f->live[i] = f->live[--f->nlive];
			return 0;
		}
	}
	return -1;
}

/* Read what is ready; every event is one of ours. */
static void w_mono_read(struct worker *w, struct wfile *f, int wait)
{
	struct timeq_event ev[16];
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	ssize_t ret;
	int i;

	if (wait && poll(&pfd, 1, -1) != 1) {
		W_FAIL(w, "poll: %s", strerror(errno));
		return;
	}
	ret = read(f->fd, ev, sizeof(ev));
	w->t[K_READ].tries++;
	if (ret < 0) {
		if (errno != EAGAIN && errno != EBADFD)
			W_FAIL(w, "monotonic read: %s", tq_errno_name(errno));
		w->t[K_READ].other++;
		return;
	}
	w->t[K_READ].ok++;
	for (i = 0; i < ret / (ssize_t)sizeof(ev[0]); i++) {
		if (w_mono_forget(f, ev[i].handle))
			W_FAIL(w, "monotonic event for handle %llx, not ours",
			       (unsigned long long)ev[i].handle);
		if (ev[i].time * W_GRAN > tq_mono_ns())
			W_FAIL(w, "monotonic event early");
	}
}

static void w_mono(struct worker *w, struct wfile *f)
{
	struct timeq_stats before = tq_stats(f->fd), after;
	int k = tq_below(&w->rng, 10), ret, err, i;
	__u64 handle = 0;	/* tq_insert() sets it when it returns 0 */

	if (!f->m.configured) {
		ret = tq_insert(f->fd, 0, 0, NULL);
		w_outcome(w, K_INSERT, ret, errno, EBADFD, 0);
		return;
	}
	if (k < 5) {
		ret = tq_insert(f->fd, before.now + tq_below(&w->rng, 30),
				++f->cookie, &handle);
		err = errno;
		after = tq_stats(f->fd);
		if (ret && err == ENOSPC) {
			w->t[K_INSERT].tries++;
			w->t[K_INSERT].other++;
			if (after.queued + after.events != W_CAP)
				W_FAIL(w, "ENOSPC with %llu queued and %llu events, below the cap",
				       (unsigned long long)after.queued,
				       (unsigned long long)after.events);
			return;
		}
		if (w_outcome(w, K_INSERT, ret, err, 0, 1) < 0)
			return;
		if (after.inserted != before.inserted + !ret)
			W_FAIL(w, "monotonic insert %s: inserted %llu -> %llu",
			       ret ? "ENOMEM" : "ok",
			       (unsigned long long)before.inserted,
			       (unsigned long long)after.inserted);
		if (!ret)
			f->live[f->nlive++] = handle;
	} else if (k < 7 && f->nlive) {
		i = tq_below(&w->rng, f->nlive);
		handle = f->live[i];
		ret = tq_delete(f->fd, handle);
		/* ENOENT: it expired, and its event will say so. */
		if (!ret)
			w_mono_forget(f, handle);
		w_outcome(w, K_DELETE, ret, errno, ret ? ENOENT : 0, 0);
	} else {
		w_mono_read(w, f, 0);
	}
}

static void *w_run(void *arg)
{
	struct worker *w = arg;
	int i, k;

	/* This thread's own, opened before anything may fail. */
	w->fail_fd = tq_make_it_fail_open();
	if (w->fail_fd < 0 || (w->inject && tq_make_it_fail(w->fail_fd, 1))) {
		W_FAIL(w, "make-it-fail: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < W_OPS && !w->failed; i++) {
		struct wfile *f = &w->f[tq_below(&w->rng, W_FILES)];

		if (f->mono) {
			if (tq_below(&w->rng, 40))
				w_mono(w, f);
			else
				w_reopen(w, f);
			continue;
		}
		k = tq_below(&w->rng, 100);
		if (k < 4)
			w_reopen(w, f);
		else if (k < 34)
			w_insert(w, f);
		else if (k < 46)
			w_batch(w, f);
		else if (k < 56)
			w_delete_update(w, f, 0);
		else if (k < 66)
			w_delete_update(w, f, 1);
		else if (k < 71)
			w_min(w, f, 0);
		else if (k < 76)
			w_min(w, f, 1);
		else if (k < 88)
			w_advance(w, f);
		else
			w_read(w, f);
	}
	if (w->inject)
		tq_make_it_fail(w->fail_fd, 0);
	close(w->fail_fd);
	return NULL;
}

/* Nothing failing any more: every file must drain as its model says. */
static void w_drain(struct worker *w)
{
	struct timeq_element e;
	int i;

	for (i = 0; i < W_FILES && !w->failed; i++) {
		struct wfile *f = &w->f[i];

		if (f->mono) {
			if (!f->m.configured)
				continue;
			if (fcntl(f->fd, F_SETFL, 0))
				W_FAIL(w, "fcntl: %s", strerror(errno));
			while (f->nlive && !w->failed)
				w_mono_read(w, f, 1);
			if (tq_stats(f->fd).events || tq_stats(f->fd).queued)
				W_FAIL(w, "monotonic file: elements no one inserted");
			continue;
		}
		if (!f->m.configured)
			continue;
		while (f->m.queued && !w->failed)
			w_min(w, f, 1);
		if (!w->failed && tq_element(f->fd, TIMEQ_DELETE_MIN, &e) != -1)
			W_FAIL(w, "delete_min found an element the model lacks");
		while (f->m.events && !w->failed)
			w_read(w, f);
		w_check_stats(w, f, "drain");
	}
}

FIXTURE(threads) {
	struct tq_fault_saved	slab;
	struct tq_fault_saved	page;
};

FIXTURE_VARIANT(threads) {
	int	slab_percent;
	int	page_percent;
};

FIXTURE_VARIANT_ADD(threads, failslab_1) { .slab_percent = 1 };
FIXTURE_VARIANT_ADD(threads, failslab_5) { .slab_percent = 5 };
FIXTURE_VARIANT_ADD(threads, failslab_20) { .slab_percent = 20 };
FIXTURE_VARIANT_ADD(threads, failslab_50) { .slab_percent = 50 };
FIXTURE_VARIANT_ADD(threads, fail_page_alloc_5) { .page_percent = 5 };
FIXTURE_VARIANT_ADD(threads, fail_page_alloc_30) { .page_percent = 30 };
FIXTURE_VARIANT_ADD(threads, both_10) { .slab_percent = 10, .page_percent = 10 };

FIXTURE_SETUP(threads)
{
	int fd = open(TQ_DEV, O_RDWR);

	ASSERT_GE(fd, 0) TH_LOG("open %s: %s", TQ_DEV, strerror(errno));
	close(fd);
	if (!tq_fault_present(TQ_FAILSLAB))
		SKIP(return, "no failslab in this kernel");
	if (variant->page_percent && !tq_fault_present(TQ_FAILPAGE))
		SKIP(return, "no fail_page_alloc in this kernel");
	tq_fault_save(TQ_FAILSLAB, &self->slab);
	tq_fault_save(TQ_FAILPAGE, &self->page);
}

FIXTURE_TEARDOWN(threads)
{
	tq_fault_set(TQ_FAILSLAB, "probability", "0");
	tq_fault_set(TQ_FAILPAGE, "probability", "0");
	tq_fault_restore(TQ_FAILSLAB, &self->slab);
	tq_fault_restore(TQ_FAILPAGE, &self->page);
}

#define W_TIMES		1000000000L

TEST_F_TIMEOUT(threads, only_enomem_and_nothing_changed, SLOW_TIMEOUT)
{
	static struct worker w[W_THREADS];
	pthread_t thread[W_THREADS];
	pthread_attr_t attr;
	struct tally total[K_KINDS];
	long slab_failed = 0, page_failed = 0;
	int i, j, k;

	memset(w, 0, sizeof(w));
	memset(total, 0, sizeof(total));
	for (i = 0; i < W_THREADS; i++) {
		w[i].id = i;
		w[i].rng = 0x5eed0000 + i * 7919 + variant->slab_percent * 131 +
			   variant->page_percent;
		w[i].inject = 1;
		for (j = 0; j < W_FILES; j++) {
			w[i].f[j].fd = -1;
			w[i].f[j].mono = j == W_MANUAL;
			ASSERT_EQ(0, tqm_init(&w[i].f[j].m, W_CAP, 4 * W_OPS));
			w_reopen(&w[i], &w[i].f[j]);
			ASSERT_EQ(0, w[i].failed) TH_LOG("%s", w[i].why);
		}
	}
	/*
	 * No page fault may need memory while allocations fail: the
	 * workload's memory is locked in, and the threads' stacks with it.
	 */
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE)) TH_LOG("mlockall: %s", strerror(errno));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 256 << 10));
	ASSERT_EQ(0, tq_fault_arm(TQ_FAILSLAB, variant->slab_percent, W_TIMES));
	if (variant->page_percent || tq_fault_present(TQ_FAILPAGE))
		ASSERT_EQ(0, tq_fault_arm(TQ_FAILPAGE, variant->page_percent,
					  W_TIMES));
	for (i = 0; i < W_THREADS; i++) {
		/* Each thread turns its own make-it-fail on once it runs. */
		for (j = 0; j < W_FILES; j++)
			w[i].f[j].cookie = (__u64)i << 48 | (__u64)j << 40;
		ASSERT_EQ(0, pthread_create(&thread[i], &attr, w_run, &w[i]));
	}
	for (i = 0; i < W_THREADS; i++)
		ASSERT_EQ(0, pthread_join(thread[i], NULL));
	slab_failed = W_TIMES - tq_fault_left(TQ_FAILSLAB);
	if (tq_fault_present(TQ_FAILPAGE))
		page_failed = W_TIMES - tq_fault_left(TQ_FAILPAGE);
	tq_fault_set(TQ_FAILSLAB, "probability", "0");
	tq_fault_set(TQ_FAILPAGE, "probability", "0");
	munlockall();
	for (i = 0; i < W_THREADS; i++) {
		EXPECT_EQ(0, w[i].failed) TH_LOG("%s", w[i].why);
		w[i].inject = 0;
		w_drain(&w[i]);
		EXPECT_EQ(0, w[i].failed) TH_LOG("drain: %s", w[i].why);
		for (k = 0; k < K_KINDS; k++) {
			total[k].tries += w[i].t[k].tries;
			total[k].ok += w[i].t[k].ok;
			total[k].enomem += w[i].t[k].enomem;
			total[k].other += w[i].t[k].other;
		}
		for (j = 0; j < W_FILES; j++) {
			close(w[i].f[j].fd);
			tqm_free(&w[i].f[j].m);
		}
	}
	/* The injection reached the workload: something failed. */
	EXPECT_LT(0, slab_failed + page_failed);
	TH_LOG("failslab %d%%, fail_page_alloc %d%%: %ld slab and %ld page allocations failed",
	       variant->slab_percent, variant->page_percent, slab_failed,
	       page_failed);
	TH_LOG("  each ENOMEM changed nothing, each other errno is the model's:");
	for (k = 0; k < K_KINDS; k++)
		TH_LOG("  %-10s %6lu calls: %6lu ok, %5lu ENOMEM, %5lu other errno",
		       kind_name[k], total[k].tries, total[k].ok,
		       total[k].enomem, total[k].other);
}

/* --- one allocation at a time, through fail-nth --- */

#define SLAB	"/sys/kernel/slab/"
#define CACHE_NAME_MAX	64

FIXTURE(targeted) {
	struct tq_fault_saved	slab;
	struct tq_fault_saved	page;
	char			filtered[CACHE_NAME_MAX];
	int			fd;
};

FIXTURE_SETUP(targeted)
{
	self->fd = open(TQ_DEV, O_RDWR | O_NONBLOCK);
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", TQ_DEV, strerror(errno));
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    !tq_fault_present(TQ_FAILSLAB))
		SKIP(return, "no failslab or fail-nth in this kernel");
	tq_fault_save(TQ_FAILSLAB, &self->slab);
	tq_fault_save(TQ_FAILPAGE, &self->page);
	/* fail-nth only: probability 0, sleeping allocations too. */
	ASSERT_EQ(0, tq_fault_arm(TQ_FAILSLAB, 0, -1));
	if (tq_fault_present(TQ_FAILPAGE))
		ASSERT_EQ(0, tq_fault_arm(TQ_FAILPAGE, 0, -1));
}

FIXTURE_TEARDOWN(targeted)
{
	char path[128];

	if (self->filtered[0]) {
		snprintf(path, sizeof(path), SLAB "%s/failslab", self->filtered);
		tq_write_file(path, "0");
	}
	tq_fault_restore(TQ_FAILSLAB, &self->slab);
	tq_fault_restore(TQ_FAILPAGE, &self->page);
	close(self->fd);
}

/*
 * Let failslab fail only the slab cache @cache (failslab's cache filter
 * and the cache's failslab flag): fail-nth then counts its allocations
 * alone. -1 if this kernel cannot.
 */
static int only_cache(char *filtered, const char *cache)
{
	char path[128];

	snprintf(path, sizeof(path), SLAB "%s/failslab", cache);
	if (tq_write_file(path, "1"))
		return -1;
	snprintf(filtered, CACHE_NAME_MAX, "%s", cache);
	return tq_fault_set(TQ_FAILSLAB, "cache-filter", "Y");
}

/*
 * Fail every allocation of the slab cache @cache made by this thread:
 * failslab's cache filter, probability 100%, and make-it-fail on this
 * thread through @fail (from tq_make_it_fail_open()). -1 if this kernel
 * cannot.
 */
static int fail_cache(char *filtered, const char *cache, int fail)
{
	return only_cache(filtered, cache) ||
	       tq_fault_arm(TQ_FAILSLAB, 100, -1) ||
	       tq_make_it_fail(fail, 1);
}

static void fail_cache_off(int fail)
{
	tq_make_it_fail(fail, 0);
	tq_fault_set(TQ_FAILSLAB, "probability", "0");
}

/*
 * The insert that needs the file's xarray to grow a level (index 64, the
 * 64th element: indices start at 1). Each xarray allocation failing
 * alone is survived: the xarray first tries without sleeping under its
 * lock, and on failure allocates with GFP_KERNEL and tries again. With
 * every xarray allocation of the thread failing, the insert fails with
 * ENOMEM and changes nothing, and an insert that needs no node still
 * works.
 */
TEST_F_TIMEOUT(targeted, xarray_node, SLOW_TIMEOUT)
{
	struct timeq_insert in = { .size = sizeof(in), .time = 500, .cookie = 64 };
	int nth, ret, injected, err, survived = 0, i, fail;
	struct timeq_stats st, before;
	__u64 h[64];

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	for (i = 0; i < 62; i++)
		ASSERT_EQ(0, tq_insert(self->fd, 10 + i, i, &h[i]));
	if (only_cache(self->filtered, "radix_tree_node"))
		SKIP(return, "no failslab cache filter for radix_tree_node");
	/* The 63rd element, index 63, fits the first node. */
	in.time = 499;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_INSERT, &in));
	h[62] = in.handle;
	EXPECT_EQ(63, (__u32)in.handle);
	for (nth = 1; nth < 50; nth++) {
		in.handle = 0;
		in.time = 500;
		ret = tq_ioctl_nth(self->fd, TIMEQ_INSERT, &in, nth, &injected,
				   &err);
		ASSERT_EQ(0, ret) TH_LOG("allocation %d: %s", nth, strerror(err));
		EXPECT_EQ(64, tq_stats(self->fd).queued);
		EXPECT_EQ(64, (__u32)in.handle);
		if (!injected)
			break;
		survived++;
		/* Deleting it shrinks the xarray back to one node. */
		ASSERT_EQ(0, tq_delete(self->fd, in.handle));
	}
	EXPECT_LT(nth, 50);
	EXPECT_LT(0, survived);
	ASSERT_EQ(0, tq_delete(self->fd, in.handle));

	fail = tq_make_it_fail_open();
	ASSERT_LE(0, fail);
	before = tq_stats(self->fd);
	ASSERT_EQ(0, fail_cache(self->filtered, "radix_tree_node", fail));
	in.handle = 0;
	ret = ioctl(self->fd, TIMEQ_INSERT, &in);
	err = errno;
	/* Index 63 again, in the node there is: no allocation, it works. */
	ASSERT_EQ(0, tq_delete(self->fd, h[62]));
	EXPECT_EQ(0, tq_insert(self->fd, 499, 63, &h[62]));
	fail_cache_off(fail);
	close(fail);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(0, in.handle);
	st = tq_stats(self->fd);
	EXPECT_EQ(before.queued, st.queued);
	EXPECT_EQ(before.inserted + 1, st.inserted);
	EXPECT_EQ(63, (__u32)h[62]);
	ASSERT_EQ(0, tq_insert(self->fd, 500, 64, &h[63]));
	EXPECT_EQ(64, (__u32)h[63]);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, tq_delete(self->fd, h[i])) TH_LOG("element %d", i);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	TH_LOG("xarray growth: %d allocations, each survived alone; all failing: ENOMEM",
	       survived);
}

/*
 * A batch of inserts across that boundary with every xarray allocation
 * failing: the batch applies the inserts before the one that needs the
 * node, that one's result is -ENOMEM, and nothing after it is applied.
 */
TEST_F_TIMEOUT(targeted, xarray_node_in_batch, SLOW_TIMEOUT)
{
	struct timeq_op ops[4];
	int ret, k, fail;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	/* 61 elements: the batch's third insert gets index 64. */
	for (k = 0; k < 61; k++)
		ASSERT_EQ(0, tq_insert(self->fd, 10, k, NULL));
	memset(ops, 0, sizeof(ops));
	for (k = 0; k < 4; k++) {
		ops[k].op = TIMEQ_OP_INSERT;
		ops[k].time = 20 + k;
		ops[k].cookie = 100 + k;
	}
	fail = tq_make_it_fail_open();
	ASSERT_LE(0, fail);
	if (fail_cache(self->filtered, "radix_tree_node", fail)) {
		fail_cache_off(fail);
		SKIP(return, "no failslab cache filter for radix_tree_node");
	}
	ret = tq_batch(self->fd, ops, 4);
	fail_cache_off(fail);
	close(fail);
	ASSERT_EQ(2, ret);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(-ENOMEM, ops[2].result);
	EXPECT_EQ(0, ops[2].handle);
	EXPECT_EQ(0, ops[3].result);	/* not reached: untouched */
	EXPECT_EQ(0, ops[3].handle);
	EXPECT_EQ(63, tq_stats(self->fd).queued);
	EXPECT_EQ(63, tq_stats(self->fd).inserted);
	ops[2].result = 0;
	ASSERT_EQ(2, tq_batch(self->fd, ops + 2, 2));
	EXPECT_EQ(64, (__u32)ops[2].handle);
	EXPECT_EQ(65, tq_stats(self->fd).queued);
	for (k = 0; k < 4; k++)
		EXPECT_EQ(0, tq_delete(self->fd, ops[k].handle));
	EXPECT_EQ(61, tq_stats(self->fd).queued);
}

/*
 * Only the page allocator fails (failslab ignores sleeping allocations):
 * TIMEQ_CONFIGURE of a horizon whose arrays (256 KiB, one kvzalloc())
 * take a large kmalloc, which goes to the page allocator. Each failure
 * alone is survived: kvzalloc() falls back to vmalloc. Every page
 * allocation of the thread failing, vmalloc's highmem pages included,
 * gives ENOMEM, and nothing changed; only those of more than one page
 * failing is survived again.
 */
static int configure_big(void *arg)
{
	int fd = *(int *)arg;

	return tq_configure_mono(fd, 1000, 1 << 24, 0);
}

TEST_F_TIMEOUT(targeted, page_allocator, SLOW_TIMEOUT)
{
	int nth, ret, injected, err, survived = 0, fd = -1, fail, order;

	if (!tq_fault_present(TQ_FAILPAGE))
		SKIP(return, "no fail_page_alloc in this kernel");
	ASSERT_EQ(0, tq_fault_set(TQ_FAILSLAB, "ignore-gfp-wait", "Y"));
	for (nth = 1; nth < 100; nth++) {
		fd = open(TQ_DEV, O_RDWR);
		ASSERT_LE(0, fd);
		ret = tq_with_nth(configure_big, &fd, nth, &injected, &err);
		ASSERT_EQ(0, ret) TH_LOG("allocation %d: %s", nth, strerror(err));
		EXPECT_EQ(0, tq_insert(fd, tq_mono_ns() / 1000 + 1000000, 0, NULL));
		close(fd);
		if (!injected)
			break;
		survived++;
	}
	EXPECT_LT(nth, 100);
	EXPECT_LT(0, survived);
	fail = tq_make_it_fail_open();
	ASSERT_LE(0, fail);
	for (order = 0; order < 2; order++) {
		fd = open(TQ_DEV, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, tq_fault_arm(TQ_FAILPAGE, 100, -1));
		ASSERT_EQ(0, tq_fault_set(TQ_FAILPAGE, "min-order", order ? "1" : "0"));
		/* vmalloc asks for highmem pages; fail those too, or not. */
		ASSERT_EQ(0, tq_fault_set(TQ_FAILPAGE, "ignore-gfp-highmem",
					  order ? "Y" : "N"));
		ASSERT_EQ(0, tq_make_it_fail(fail, 1));
		ret = configure_big(&fd);
		err = errno;
		tq_make_it_fail(fail, 0);
		tq_fault_set(TQ_FAILPAGE, "probability", "0");
		if (order) {
			/* Single pages still come: vmalloc gives the arrays. */
			EXPECT_EQ(0, ret) TH_LOG("only large pages failing: %s",
						 strerror(err));
		} else {
			EXPECT_EQ(-1, ret);
			EXPECT_EQ(ENOMEM, err);
			EXPECT_EQ(0, tq_stats(fd).configured);
			EXPECT_EQ(0, configure_big(&fd));
		}
		EXPECT_EQ(1, tq_stats(fd).configured);
		EXPECT_EQ(0, tq_insert(fd, tq_mono_ns() / 1000 + 1000000, 0, NULL));
		close(fd);
	}
	close(fail);
	TH_LOG("configure, page allocator only: %d points, each survived alone",
	       survived);
}

TEST_HARNESS_MAIN
