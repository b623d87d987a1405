// SPDX-License-Identifier: GPL-2.0
/*
 * abi: timers through the ABI, as a userspace programmer would keep them.
 * Part 5 of `make bench`: run in Debian's stock 6.12 kernel under qemu with
 * timeq.ko loaded (tools/bench/bench.sh), one CPU, so that the time of a
 * phase is everything the machine did for it: the system calls, the
 * kernel's expiries (in interrupts, and for timeq in its kworker too), and
 * the collection.
 *
 * For each N it keeps N timers and drives them with one operation sequence,
 * generated once from the seed, through each method:
 *
 *	timeq		one /dev/timeq file (CLOCK_MONOTONIC, 16 us ticks),
 *			one ioctl per operation (libtimeq), read() 16 events
 *			at a time
 *	timeq-batch	the same file, operations in TIMEQ_BATCH calls of
 *			--batch operations (an operation on a timer whose
 *			insert waits in the batch sends the batch first, for
 *			its handle)
 *	timerfd		one timerfd per timer (TFD_TIMER_ABSTIME), all in one
 *			epoll; cancel is a zero it_value; collection is
 *			epoll_wait() then read() on each ready timer
 *	uring		io_uring timeouts (liburing): IORING_OP_TIMEOUT with
 *			IORING_TIMEOUT_ABS to arm, IORING_OP_TIMEOUT_REMOVE
 *			to cancel and, with IORING_TIMEOUT_UPDATE, to re-arm;
 *			--batch operations per io_uring_enter(), completions
 *			reaped from the ring after each. Both remove and
 *			update find their timeout by walking the ring's list
 *			of timeouts (io_uring/timeout.c, io_timeout_find();
 *			an update walks it twice): O(N) an operation
 *	uring-single	the same, one io_uring_enter() per operation (not run
 *			unless --methods names it)
 *
 * The sequence, in three timed phases:
 *
 *	arm	arm every timer far ahead: 2^22 to 2^23 ticks (67 to 134 s)
 *	churn	R operations on random timers: a live one is re-armed far
 *		(3 in 4) or cancelled, a cancelled one armed far again
 *	expire	a random sample of E timers (all when N is smaller):
 *		a live one is re-armed to a time within E us of the phase's
 *		start, so that most are due before the phase has issued them
 *		all and the CPU never waits; a cancelled one is armed 200 ms
 *		ahead and cancelled at once. What is due is collected
 *		every --batch operations, and at the end all the rest; the
 *		phase ends with the last expiry
 *
 * and checks, for every method: every timer re-armed near expires exactly
 * once, never before its time (the clock read when the expiry is collected
 * is at or past its deadline); no timer armed far expires; a timer
 * cancelled before its time never expires (after the last expiry, the
 * program waits on the method's descriptor until 20 ms past the latest of
 * those deadlines and takes anything that comes; a cancel that returned
 * only after the deadline may lose, and is counted and printed); every
 * operation succeeds. A failed check stops the runs, and the program
 * exits with status 1.
 *
 * R and E are --churn and --expire, by default 10^7 / N each, within
 * 100 .. 10^4: io_uring's walks make its operations cost O(N), and the
 * run has to stay within a minute or two of emulation.
 *
 * It prints ns per operation in each phase (expire: per timer of the
 * sample, its operations and its collection together), ns per operation
 * over the whole sequence, and each method's ratio to timeq's. Under
 * emulation the ratios mean something, the times less.
 *
 * Each (N, method) runs --reps times (5), the methods in turn with the
 * order rotated, and the median is printed. setup is the time to make the
 * method's timers, per timer: open and TIMEQ_CONFIGURE; N timerfds and
 * their EPOLL_CTL_ADDs; io_uring_queue_init. It is not in "all".
 *
 *	abi [--n 1000,10000,100000] [--churn R] [--expire E] [--batch B]
 *	    [--reps K] [--methods timeq,timeq-batch,timerfd,uring] [--seed S]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>
#include <timeq/timeq.h>

#define TICK_NS		16000ULL	/* timeq's granularity: 16 us */
#define HORIZON		(1ULL << 24)	/* the module's default max_horizon */
#define FAR_MIN		(1ULL << 22)	/* ticks: 67 s */
#define FAR_SPAN	(1ULL << 22)
#define GAP		12500ULL	/* ticks: 200 ms */
#define GAP_SPAN	64ULL
#define SLACK_NS	20000000LL	/* the final wait past the last gap */
#define MAX_BATCH	4096
#define MAX_N		(1U << 20)
#define NMETHODS	5

enum { OP_ARM, OP_REARM, OP_CANCEL };
enum { BASE_T0, BASE_NOW };	/* deadlines: from the phase's start, or now */
enum { T_IDLE, T_FAR, T_NEAR, T_DONE };	/* a timer as the program sees it */
enum { PH_ARM, PH_CHURN, PH_EXPIRE, NPHASES };

struct op {
	uint32_t timer;
	uint8_t kind;
	uint8_t base;
	uint32_t off;		/* ticks past the base */
};

struct seq {
	uint32_t n;
	struct op *ops[NPHASES];
	uint32_t count[NPHASES];
	uint32_t sample;	/* timers in the expire phase */
	uint32_t near;		/* of them, re-armed near: the expiries */
};

struct timer {
	uint64_t deadline;	/* ticks */
	uint64_t handle;	/* timeq's */
	int64_t cancelled_at;	/* ns: when its cancel had been done, or 0 */
	uint8_t state;
	uint8_t pending;	/* timeq-batch: its insert waits in the batch */
};

struct ctx;

struct method {
	const char *name;
	/* NULL, or why the method cannot run here (printed, then skipped) */
	const char *(*setup)(struct ctx *c);
	void (*arm)(struct ctx *c, uint32_t i);
	void (*rearm)(struct ctx *c, uint32_t i);
	void (*cancel)(struct ctx *c, uint32_t i);
	void (*flush)(struct ctx *c);
	/* collect what is ready, waiting at most @wait_ns (-1: until one) */
	void (*collect)(struct ctx *c, int64_t wait_ns);
	void (*teardown)(struct ctx *c);
	int batch;
};

struct ctx {
	const struct method *m;
	struct timer *t;
	uint32_t n;
	uint64_t expired;	/* near timers collected */
	uint64_t cancels;	/* cancels sent */
	uint64_t cancelled;	/* uring: -ECANCELED completions */
	uint64_t late_cancels;	/* cancels that may have run past the deadline */
	int64_t gap_until;	/* ns: the latest deadline armed to be cancelled */
	int stamp_next;		/* the next cancel is one of those: note when */
	int bad;
	/* timeq */
	int fd;
	struct timeqfd_ops b;
	struct timeq_op ops[MAX_BATCH];
	uint32_t slot_timer[MAX_BATCH];
	/* timerfd */
	int ep;
	int *fds;
	/* uring */
	struct io_uring ring;
	struct __kernel_timespec ts[MAX_BATCH];
	int queued;
	/* pending cancels of the current batch, stamped when it is sent */
	uint32_t stamp[MAX_BATCH];
	int nstamp;
};

static int batch_size = 64;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void bad(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->bad++ < 10) {
		printf("abi: FAIL %s N=%u: ", c->m->name, c->n);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
}

/* --- the sequence --- */

static void push(struct seq *s, int ph, uint32_t timer, int kind, int base,
		 uint64_t off)
{
	struct op *o = &s->ops[ph][s->count[ph]++];

	o->timer = timer;
	o->kind = kind;
	o->base = base;
	o->off = off;
}

static struct op *alloc_ops(size_t n)
{
	struct op *o = calloc(n ? n : 1, sizeof(*o));

	if (!o) {
		fprintf(stderr, "abi: out of memory\n");
		exit(1);
	}
	return o;
}

static void make_seq(struct seq *s, uint32_t n, uint32_t churn,
		     uint32_t expire, uint32_t near_span, uint64_t seed)
{
	uint8_t *live = calloc(n, 1);
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint32_t i, j, k;

	if (!live || !perm) {
		fprintf(stderr, "abi: out of memory\n");
		exit(1);
	}
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->sample = expire < n ? expire : n;
	s->ops[PH_ARM] = alloc_ops(n);
	s->ops[PH_CHURN] = alloc_ops(churn);
	s->ops[PH_EXPIRE] = alloc_ops(2 * s->sample);
	rng_state = seed ^ ((uint64_t)n << 32);

	for (i = 0; i < n; i++) {
		push(s, PH_ARM, i, OP_ARM, BASE_T0, FAR_MIN + rnd() % FAR_SPAN);
		live[i] = 1;
	}
	for (k = 0; k < churn; k++) {
		i = rnd() % n;
		if (!live[i]) {
			push(s, PH_CHURN, i, OP_ARM, BASE_T0,
			     FAR_MIN + rnd() % FAR_SPAN);
			live[i] = 1;
		} else if (rnd() % 4) {
			push(s, PH_CHURN, i, OP_REARM, BASE_T0,
			     FAR_MIN + rnd() % FAR_SPAN);
		} else {
			push(s, PH_CHURN, i, OP_CANCEL, BASE_T0, 0);
			live[i] = 0;
		}
	}
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = 0; i < s->sample; i++) {
		j = i + rnd() % (n - i);
		k = perm[i];
		perm[i] = perm[j];
		perm[j] = k;
		k = perm[i];
		if (live[k]) {
			push(s, PH_EXPIRE, k, OP_REARM, BASE_T0,
			     rnd() % near_span);
			s->near++;
		} else {
			push(s, PH_EXPIRE, k, OP_ARM, BASE_NOW,
			     GAP + rnd() % GAP_SPAN);
			push(s, PH_EXPIRE, k, OP_CANCEL, BASE_NOW, 0);
		}
	}
	free(live);
	free(perm);
}

/* --- what every method reports back --- */

static void on_expiry(struct ctx *c, uint32_t i, int64_t now)
{
	struct timer *t;

	if (i >= c->n) {
		bad(c, "an expiry for timer %u, which does not exist", i);
		return;
	}
	t = &c->t[i];
	if (now < (int64_t)(t->deadline * TICK_NS))
		bad(c, "timer %u expired %lld ns early", i,
		    (long long)(t->deadline * TICK_NS - now));
	switch (t->state) {
	case T_NEAR:
		t->state = T_DONE;
		c->expired++;
		break;
	case T_FAR:
		bad(c, "timer %u, armed far, expired (a phase ran over 67 s?)",
		    i);
		t->state = T_DONE;
		break;
	case T_DONE:
		bad(c, "timer %u expired twice", i);
		break;
	case T_IDLE:
		if (t->cancelled_at &&
		    t->cancelled_at >= (int64_t)(t->deadline * TICK_NS)) {
			c->late_cancels++;
			break;
		}
		bad(c, "timer %u expired after it was cancelled", i);
		break;
	}
}

/*
 * The cancels of the batch just sent: the time by which they were done.
 * A cancel done before its timer's deadline must win; one that may have
 * run after it (the guest stalled, or a batch of io_uring's O(N) walks
 * ran long) may lose, and the expiry is then counted, not failed.
 */
static void stamp_cancels(struct ctx *c)
{
	int64_t now;
	int k;

	if (!c->nstamp)
		return;
	now = now_ns();
	for (k = 0; k < c->nstamp; k++)
		c->t[c->stamp[k]].cancelled_at = now;
	c->nstamp = 0;
}

/* --- timeq --- */

static const char *tq_setup(struct ctx *c)
{
	int err;

	c->fd = timeqfd_open(0);
	if (c->fd < 0)
		return "/dev/timeq cannot be opened (timeq.ko not loaded?)";
	err = timeqfd_configure_monotonic(c->fd, TICK_NS, HORIZON, c->n + 16);
	if (err) {
		bad(c, "TIMEQ_CONFIGURE: %s", strerror(-err));
		return "TIMEQ_CONFIGURE failed";
	}
	timeqfd_ops_init(&c->b, c->ops, batch_size);
	return NULL;
}

static void tq_arm(struct ctx *c, uint32_t i)
{
	int err = timeqfd_insert(c->fd, c->t[i].deadline, i, &c->t[i].handle);

	if (err)
		bad(c, "TIMEQ_INSERT of timer %u: %s", i, strerror(-err));
}

static void tq_rearm(struct ctx *c, uint32_t i)
{
	int err = timeqfd_update(c->fd, c->t[i].handle, c->t[i].deadline);

	if (err)
		bad(c, "TIMEQ_UPDATE of timer %u: %s", i, strerror(-err));
}

static void tq_cancel(struct ctx *c, uint32_t i)
{
	int err;

	err = timeqfd_delete(c->fd, c->t[i].handle);
	if (c->stamp_next)
		c->t[i].cancelled_at = now_ns();
	if (err && !(err == -ENOENT && c->t[i].cancelled_at >=
				       (int64_t)(c->t[i].deadline * TICK_NS)))
		bad(c, "TIMEQ_DELETE of timer %u: %s", i, strerror(-err));
}

static void tq_flush(struct ctx *c)
{
	uint32_t count = c->b.count, k;
	int done;

	if (!count)
		return;
	done = timeqfd_ops_submit(c->fd, &c->b);
	stamp_cancels(c);
	timeqfd_ops_init(&c->b, c->ops, batch_size);
	if (done != (int)count) {
		bad(c, "TIMEQ_BATCH applied %d of %u: %s", done, count,
		    done < 0 ? strerror(-done) :
			       strerror(-c->ops[done].result));
		return;
	}
	for (k = 0; k < count; k++) {
		if (c->ops[k].op != TIMEQ_OP_INSERT)
			continue;
		c->t[c->slot_timer[k]].handle = c->ops[k].handle;
		c->t[c->slot_timer[k]].pending = 0;
	}
}

static void tqb_add(struct ctx *c, int slot, uint32_t i)
{
	if (slot < 0) {
		tq_flush(c);
		bad(c, "a batch had no room");
		return;
	}
	c->slot_timer[slot] = i;
	if (c->b.count == c->b.max)
		tq_flush(c);
}

static void tqb_arm(struct ctx *c, uint32_t i)
{
	c->t[i].pending = 1;
	tqb_add(c, timeqfd_ops_insert(&c->b, c->t[i].deadline, i), i);
}

static void tqb_rearm(struct ctx *c, uint32_t i)
{
	if (c->t[i].pending)
		tq_flush(c);
	tqb_add(c, timeqfd_ops_update(&c->b, c->t[i].handle, c->t[i].deadline),
		i);
}

static void tqb_cancel(struct ctx *c, uint32_t i)
{
	if (c->t[i].pending)
		tq_flush(c);
	if (c->stamp_next)
		c->stamp[c->nstamp++] = i;
	tqb_add(c, timeqfd_ops_delete(&c->b, c->t[i].handle), i);
}

static void tq_collect(struct ctx *c, int64_t wait_ns)
{
	struct timeq_event ev[16];
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t got, k;
	int64_t now;

	if (wait_ns >= 0) {
		/* poll() takes ms: round up, so the wait is never short */
		if (poll(&p, 1, (int)((wait_ns + 999999) / 1000000)) <= 0)
			return;
	}
	got = timeqfd_read(c->fd, ev, 16);
	if (got == -EAGAIN || got == -EINTR)
		return;
	if (got < 0) {
		bad(c, "read: %s", strerror(-got));
		return;
	}
	now = now_ns();
	for (k = 0; k < got; k++) {
		if (ev[k].cookie < c->n && ev[k].handle != c->t[ev[k].cookie].handle)
			bad(c, "timer %llu's event has handle %llx, not %llx",
			    (unsigned long long)ev[k].cookie,
			    (unsigned long long)ev[k].handle,
			    (unsigned long long)c->t[ev[k].cookie].handle);
		on_expiry(c, (uint32_t)ev[k].cookie, now);
	}
}

static void tq_teardown(struct ctx *c)
{
	struct timeq_stats st;
	uint64_t far = 0;
	uint32_t i;
	int err;

	for (i = 0; i < c->n; i++)
		far += c->t[i].state == T_FAR;
	err = timeqfd_stats(c->fd, &st);
	if (err)
		bad(c, "TIMEQ_STATS: %s", strerror(-err));
	else if (st.queued != far || st.events)
		bad(c, "%llu queued and %llu events at the end, not %llu and 0",
		    (unsigned long long)st.queued,
		    (unsigned long long)st.events, (unsigned long long)far);
	close(c->fd);
}

/* --- timerfd under epoll --- */

static const char *tfd_setup(struct ctx *c)
{
	struct rlimit rl = { c->n + 64, c->n + 64 };
	struct epoll_event ev = { .events = EPOLLIN };
	uint32_t i;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return "RLIMIT_NOFILE cannot be raised to N + 64";
	c->fds = malloc(c->n * sizeof(*c->fds));
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!c->fds || c->ep < 0)
		return "epoll_create1 or memory failed";
	for (i = 0; i < c->n; i++) {
		c->fds[i] = timerfd_create(CLOCK_MONOTONIC,
					   TFD_NONBLOCK | TFD_CLOEXEC);
		if (c->fds[i] < 0) {
			bad(c, "timerfd_create: %s", strerror(errno));
			return "timerfd_create failed";
		}
		ev.data.u32 = i;
		if (epoll_ctl(c->ep, EPOLL_CTL_ADD, c->fds[i], &ev)) {
			bad(c, "EPOLL_CTL_ADD: %s", strerror(errno));
			return "epoll_ctl failed";
		}
	}
	return NULL;
}

static void tfd_set(struct ctx *c, uint32_t i, uint64_t ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = ns / 1000000000ULL,
			      .tv_nsec = ns % 1000000000ULL },
	};

	if (timerfd_settime(c->fds[i], TFD_TIMER_ABSTIME, &its, NULL))
		bad(c, "timerfd_settime of timer %u: %s", i, strerror(errno));
}

static void tfd_arm(struct ctx *c, uint32_t i)
{
	tfd_set(c, i, c->t[i].deadline * TICK_NS);
}

static void tfd_cancel(struct ctx *c, uint32_t i)
{
	tfd_set(c, i, 0);
	if (c->stamp_next)
		c->t[i].cancelled_at = now_ns();
}

static void tfd_collect(struct ctx *c, int64_t wait_ns)
{
	struct epoll_event ev[256];
	uint64_t ticks;
	int got, k, ms = wait_ns < 0 ? -1 : (int)((wait_ns + 999999) / 1000000);
	int64_t now;

	got = epoll_wait(c->ep, ev, 256, ms);
	if (got < 0 && errno != EINTR)
		bad(c, "epoll_wait: %s", strerror(errno));
	if (got <= 0)
		return;
	now = now_ns();
	for (k = 0; k < got; k++) {
		uint32_t i = ev[k].data.u32;

		if (read(c->fds[i], &ticks, sizeof(ticks)) != sizeof(ticks)) {
			/* ready when epoll looked, disarmed since: no expiry */
			if (errno != EAGAIN)
				bad(c, "read of timer %u: %s", i,
				    strerror(errno));
			continue;
		}
		if (ticks != 1)
			bad(c, "timer %u: %llu expirations in one read", i,
			    (unsigned long long)ticks);
		on_expiry(c, i, now);
	}
}

static void tfd_teardown(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		close(c->fds[i]);
	close(c->ep);
	free(c->fds);
}

/* --- io_uring timeouts --- */

#define UD_CTRL		(1ULL << 63)	/* a remove's or update's own result */
#define UD_UPDATE	(1ULL << 62)

static const char *ur_setup(struct ctx *c)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE,
		.cq_entries = 65536,
	};
	static char why[160];
	FILE *f;
	int err, disabled = 0;

	err = io_uring_queue_init_params(MAX_BATCH, &c->ring, &p);
	if (err) {
		f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		if (f) {
			if (fscanf(f, "%d", &disabled) != 1)
				disabled = 0;
			fclose(f);
		}
		snprintf(why, sizeof(why),
			 "io_uring_setup failed: %s (kernel.io_uring_disabled = %d)",
			 strerror(-err), disabled);
		return why;
	}
	c->queued = 0;
	return NULL;
}

static void ur_reap(struct ctx *c);

static void ur_submit(struct ctx *c)
{
	int ret;

	if (!c->queued)
		return;
	ret = io_uring_submit(&c->ring);
	stamp_cancels(c);
	if (ret != c->queued)
		bad(c, "io_uring_submit sent %d of %d: %s", ret, c->queued,
		    ret < 0 ? strerror(-ret) : "short");
	c->queued = 0;
	ur_reap(c);
}

static struct io_uring_sqe *ur_sqe(struct ctx *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);

	if (!sqe) {
		ur_submit(c);
		sqe = io_uring_get_sqe(&c->ring);
	}
	return sqe;
}

static void ur_queued(struct ctx *c)
{
	if (++c->queued >= c->m->batch)
		ur_submit(c);
}

static struct __kernel_timespec *ur_ts(struct ctx *c, uint32_t i)
{
	struct __kernel_timespec *ts = &c->ts[c->queued];
	uint64_t ns = c->t[i].deadline * TICK_NS;

	ts->tv_sec = ns / 1000000000ULL;
	ts->tv_nsec = ns % 1000000000ULL;
	return ts;
}

static void ur_arm(struct ctx *c, uint32_t i)
{
	struct io_uring_sqe *sqe = ur_sqe(c);

	io_uring_prep_timeout(sqe, ur_ts(c, i), 0, IORING_TIMEOUT_ABS);
	io_uring_sqe_set_data64(sqe, i + 1);
	ur_queued(c);
}

static void ur_rearm(struct ctx *c, uint32_t i)
{
	struct io_uring_sqe *sqe = ur_sqe(c);

	io_uring_prep_timeout_update(sqe, ur_ts(c, i), i + 1,
				     IORING_TIMEOUT_ABS);
	io_uring_sqe_set_data64(sqe, UD_CTRL | UD_UPDATE | i);
	ur_queued(c);
}

static void ur_cancel(struct ctx *c, uint32_t i)
{
	struct io_uring_sqe *sqe = ur_sqe(c);

	io_uring_prep_timeout_remove(sqe, i + 1, 0);
	io_uring_sqe_set_data64(sqe, UD_CTRL | i);
	if (c->stamp_next)
		c->stamp[c->nstamp++] = i;
	ur_queued(c);
}

static void ur_cqe(struct ctx *c, struct io_uring_cqe *cqe, int64_t now)
{
	uint64_t ud = cqe->user_data;
	uint32_t i = (uint32_t)ud;

	if (ud & UD_CTRL) {
		if (!cqe->res)
			return;
		/* a cancel sent after the deadline may find it gone */
		if (cqe->res == -ENOENT && i < c->n && !(ud & UD_UPDATE) &&
		    c->t[i].cancelled_at >= (int64_t)(c->t[i].deadline * TICK_NS))
			return;
		bad(c, "timeout %s of timer %u: %s",
		    ud & UD_UPDATE ? "update" : "remove", i,
		    strerror(-cqe->res));
		return;
	}
	if (cqe->res == -ECANCELED) {
		c->cancelled++;
		return;
	}
	if (cqe->res != -ETIME) {
		bad(c, "timeout of timer %llu completed with %d",
		    (unsigned long long)ud - 1, cqe->res);
		return;
	}
	on_expiry(c, (uint32_t)(ud - 1), now);
}

/* Take every completion there is, without a system call. */
static void ur_reap(struct ctx *c)
{
	struct io_uring_cqe *cqes[256];
	unsigned int got, k;
	int64_t now;

	while ((got = io_uring_peek_batch_cqe(&c->ring, cqes, 256))) {
		now = now_ns();
		for (k = 0; k < got; k++)
			ur_cqe(c, cqes[k], now);
		io_uring_cq_advance(&c->ring, got);
	}
}

static void ur_collect(struct ctx *c, int64_t wait_ns)
{
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = {
		.tv_sec = wait_ns / 1000000000LL,
		.tv_nsec = wait_ns % 1000000000LL,
	};
	int err;

	ur_submit(c);
	if (!wait_ns)
		return;		/* ur_submit() reaped what there was */
	if (wait_ns < 0)
		err = io_uring_wait_cqe(&c->ring, &cqe);
	else
		err = io_uring_wait_cqe_timeout(&c->ring, &cqe, &ts);
	if (err && err != -ETIME && err != -EINTR)
		bad(c, "io_uring_wait_cqe: %s", strerror(-err));
	ur_reap(c);
}

static void ur_teardown(struct ctx *c)
{
	ur_reap(c);
	if (c->cancelled != c->cancels - c->late_cancels)
		bad(c, "%llu timeouts completed as cancelled, %llu cancels sent",
		    (unsigned long long)c->cancelled,
		    (unsigned long long)(c->cancels - c->late_cancels));
	io_uring_queue_exit(&c->ring);
}

static void no_flush(struct ctx *c)
{
	(void)c;
}

static const struct method methods[NMETHODS] = {
	{ "timeq", tq_setup, tq_arm, tq_rearm, tq_cancel, no_flush,
	  tq_collect, tq_teardown, 1 },
	{ "timeq-batch", tq_setup, tqb_arm, tqb_rearm, tqb_cancel, tq_flush,
	  tq_collect, tq_teardown, 0 },
	{ "timerfd", tfd_setup, tfd_arm, tfd_arm, tfd_cancel, no_flush,
	  tfd_collect, tfd_teardown, 1 },
	{ "uring", ur_setup, ur_arm, ur_rearm, ur_cancel, ur_submit,
	  ur_collect, ur_teardown, 0 },
	{ "uring-single", ur_setup, ur_arm, ur_rearm, ur_cancel, ur_submit,
	  ur_collect, ur_teardown, 1 },
};

/* --- the run --- */

/*
 * Collect until @near expiries have come. Waiting is bounded only to fail
 * rather than hang: 10 s without a new expiry, when the last deadline was
 * milliseconds away, is a lost timer.
 */
static void collect_all(struct ctx *c, uint64_t near)
{
	int64_t last = now_ns(), now;
	uint64_t had = c->expired;

	while (c->expired < near && !c->bad) {
		c->m->collect(c, 1000000000LL);
		now = now_ns();
		if (c->expired != had) {
			had = c->expired;
			last = now;
		} else if (now - last > 10000000000LL) {
			bad(c, "%llu of %llu expiries never came",
			    (unsigned long long)(near - c->expired),
			    (unsigned long long)near);
		}
	}
}

/* Apply phase @ph of @s; return its time in ns. */
static int64_t run_phase(struct ctx *c, const struct seq *s, int ph)
{
	const struct op *o = s->ops[ph], *end = o + s->count[ph];
	int64_t start = now_ns(), now;
	uint64_t t0 = start / TICK_NS;
	struct timer *t;

	for (; o < end; o++) {
		/*
		 * Take what is due every --batch operations of the expire
		 * phase, as an event loop would: the timers armed before their
		 * time are then collected before it too, if they fire early.
		 */
		if (ph == PH_EXPIRE && o != s->ops[ph] &&
		    !((o - s->ops[ph]) % batch_size))
			c->m->collect(c, 0);
		t = &c->t[o->timer];
		switch (o->kind) {
		case OP_ARM:
		case OP_REARM:
			if (o->base == BASE_NOW) {
				t->deadline = now_ns() / TICK_NS + o->off;
				t->state = T_IDLE;	/* cancelled next */
				if ((int64_t)(t->deadline * TICK_NS) > c->gap_until)
					c->gap_until = t->deadline * TICK_NS;
			} else {
				t->deadline = t0 + o->off;
				t->state = ph == PH_EXPIRE ? T_NEAR : T_FAR;
			}
			t->cancelled_at = 0;
			if (o->kind == OP_ARM)
				c->m->arm(c, o->timer);
			else
				c->m->rearm(c, o->timer);
			break;
		case OP_CANCEL:
			t->state = T_IDLE;
			c->cancels++;
			/* a cancel that might race its deadline: note when */
			c->stamp_next = o->base == BASE_NOW;
			c->m->cancel(c, o->timer);
			break;
		}
	}
	c->m->flush(c);
	if (ph == PH_EXPIRE)
		collect_all(c, s->near);
	now = now_ns();
	return now - start;
}

/*
 * After the run: nothing more may expire until the deadlines of the timers
 * the expire phase armed and cancelled have passed.
 */
static void final_wait(struct ctx *c)
{
	int64_t until = c->gap_until + SLACK_NS, now;

	while ((now = now_ns()) < until && !c->bad)
		c->m->collect(c, until - now);
}

#define MAX_REPS	9
#define NCOLS		(NPHASES + 2)	/* setup, the phases, all */

struct result {
	double per[MAX_REPS][NCOLS];	/* ns an operation (a timer) */
	double med[NCOLS];		/* the median over the runs */
	int runs;
	int skipped;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void median(struct result *r)
{
	double v[MAX_REPS];
	int col, k;

	for (col = 0; col < NCOLS; col++) {
		for (k = 0; k < r->runs; k++)
			v[k] = r->per[k][col];
		qsort(v, r->runs, sizeof(v[0]), cmp_double);
		r->med[col] = r->runs % 2 ? v[r->runs / 2] :
			(v[r->runs / 2 - 1] + v[r->runs / 2]) / 2;
	}
}

static void print_row(uint32_t n, const char *name, const double *v,
		      const char *fmt)
{
	int ph;

	printf("abi: %-7u %-12s", n, name);
	for (ph = 0; ph < NCOLS; ph++) {
		putchar(' ');
		printf(fmt, v[ph]);
	}
	putchar('\n');
}

/*
 * The churn or the expire sample for @n timers: @given, or by default
 * 10^7 / @n within 100 .. 10^4.
 */
static uint32_t ops_for(uint32_t given, uint32_t n)
{
	uint32_t r = 10000000 / n;

	if (given)
		return given;
	return r < 100 ? 100 : r > 10000 ? 10000 : r;
}

static int run_one(const struct method *m, const struct seq *s,
		   struct result *r)
{
	static struct ctx c;
	int64_t ns[NCOLS], start;
	double *per = r->per[r->runs];
	const char *why;
	int ph;

	memset(&c, 0, sizeof(c));
	c.m = m;
	c.n = s->n;
	c.t = calloc(s->n, sizeof(*c.t));
	if (!c.t) {
		fprintf(stderr, "abi: out of memory\n");
		exit(1);
	}
	start = now_ns();
	why = m->setup(&c);
	ns[0] = now_ns() - start;
	if (why) {
		if (!r->skipped++)
			printf("abi: %s skipped at N=%u: %s\n", m->name, s->n,
			       why);
		free(c.t);
		return c.bad ? -1 : 0;
	}
	for (ph = 0; ph < NPHASES && !c.bad; ph++)
		ns[ph + 1] = run_phase(&c, s, ph);
	if (!c.bad)
		final_wait(&c);
	m->teardown(&c);
	printf("abi: %-12s N=%-6u setup %5.2f s, arm %5.2f s, churn %5.2f s, "
	       "expire %5.2f s\n", m->name, s->n, ns[0] / 1e9, ns[1] / 1e9,
	       ns[2] / 1e9, ns[3] / 1e9);
	if (!c.bad) {
		per[0] = ns[0] / (double)s->n;
		per[1] = ns[1] / (double)s->n;
		per[2] = ns[2] / (double)(s->count[PH_CHURN] ?
					  s->count[PH_CHURN] : 1);
		per[3] = ns[3] / (double)s->sample;
		per[4] = (ns[1] + ns[2] + ns[3]) /
			 (double)(s->n + s->count[PH_CHURN] + s->sample);
		r->runs++;
	}
	if (c.late_cancels)
		printf("abi: %s N=%u: %llu cancels done only after their "
		       "deadline had passed, and lost to the expiry\n",
		       m->name, s->n, (unsigned long long)c.late_cancels);
	free(c.t);
	return c.bad ? -1 : 0;
}

static int parse_list(const char *arg, uint32_t *v, int max)
{
	char *end;
	int k = 0;

	while (*arg && k < max) {
		v[k++] = strtoul(arg, &end, 10);
		if (end == arg || (*end && *end != ','))
			return -1;
		arg = *end ? end + 1 : end;
	}
	return k;
}

int main(int argc, char **argv)
{
	uint32_t ns[8] = { 1000, 10000, 100000 }, churn = 0, expire = 0;
	const char *names = "timeq,timeq-batch,timerfd,uring";
	struct method ms[NMETHODS];
	struct result res[8][NMETHODS];
	struct seq s;
	uint64_t seed = 1;
	int nn = 3, k, j, jj, ph, fail = 0, used[NMETHODS] = { 0 };
	int rep, reps = 5;

	for (k = 1; k < argc; k++) {
		const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;

		if (!v)
			goto usage;
		if (!strcmp(a, "--n"))
			nn = parse_list(v, ns, 8);
		else if (!strcmp(a, "--churn"))
			churn = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--expire"))
			expire = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--batch"))
			batch_size = atoi(v);
		else if (!strcmp(a, "--methods"))
			names = v;
		else if (!strcmp(a, "--reps"))
			reps = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else
			goto usage;
		k++;
	}
	if (nn <= 0 || batch_size < 1 || batch_size > MAX_BATCH || reps < 1 ||
	    reps > MAX_REPS)
		goto usage;
	for (k = 0; k < nn; k++)
		if (ns[k] < 1 || ns[k] > MAX_N - 64)
			goto usage;
	for (j = 0; j < NMETHODS; j++) {
		const char *p = strstr(names, methods[j].name);
		size_t len = strlen(methods[j].name);

		/* a whole item of the list: "timeq" is not "timeq-batch" */
		while (p && ((p != names && p[-1] != ',') ||
			     (p[len] && p[len] != ',')))
			p = strstr(p + 1, methods[j].name);
		used[j] = !!p;
		ms[j] = methods[j];
		if (!ms[j].batch)
			ms[j].batch = batch_size;
	}

	printf("abi: timers through the ABI on CLOCK_MONOTONIC, ticks of %llu us; "
	       "batch %d, seed %llu\n", TICK_NS / 1000, batch_size,
	       (unsigned long long)seed);
	memset(res, 0, sizeof(res));
	for (k = 0; k < nn; k++) {
		uint32_t sample = ops_for(expire, ns[k]) < ns[k] ?
				  ops_for(expire, ns[k]) : ns[k];
		/* near deadlines over 1 us per timer of the sample */
		uint32_t span = sample * 1000ULL / TICK_NS + 1;

		printf("abi: N = %u: churn %u operations, expire sample %u\n",
		       ns[k], ops_for(churn, ns[k]), sample);
		make_seq(&s, ns[k], ops_for(churn, ns[k]), sample, span, seed);
		/* each method in turn, the order rotated from run to run */
		for (rep = 0; rep < reps && !fail; rep++)
			for (jj = 0; jj < NMETHODS && !fail; jj++) {
				j = (jj + rep) % NMETHODS;
				if (!used[j])
					continue;
				if (run_one(&ms[j], &s, &res[k][j]))
					fail = 1;
				fflush(stdout);
			}
		for (j = 0; j < NMETHODS; j++)
			if (res[k][j].runs)
				median(&res[k][j]);
		for (ph = 0; ph < NPHASES; ph++)
			free(s.ops[ph]);
	}

	printf("abi:\nabi: ns per operation, the median of %d runs. setup: per "
	       "timer, not in all;\nabi: expire: per timer of the sample, its "
	       "operations and its collection;\nabi: all: arm, churn and expire "
	       "over N + R + E\n", reps);
	printf("abi: %-7s %-12s %9s %9s %9s %9s %9s\n", "N", "method", "setup",
	       "arm", "churn", "expire", "all");
	for (k = 0; k < nn; k++)
		for (j = 0; j < NMETHODS; j++)
			if (res[k][j].runs)
				print_row(ns[k], methods[j].name, res[k][j].med,
					  "%9.0f");
	printf("abi:\nabi: over timeq's (single ioctls): above 1, timeq is that "
	       "many times faster\n");
	printf("abi: %-7s %-12s %9s %9s %9s %9s %9s\n", "N", "method", "setup",
	       "arm", "churn", "expire", "all");
	for (k = 0; k < nn; k++) {
		if (!res[k][0].runs)
			continue;
		for (j = 1; j < NMETHODS; j++) {
			double x[NCOLS];

			if (!res[k][j].runs)
				continue;
			for (ph = 0; ph < NCOLS; ph++)
				x[ph] = res[k][j].med[ph] / res[k][0].med[ph];
			print_row(ns[k], methods[j].name, x, "%8.2fx");
		}
	}
	printf("abi: %s\n", fail ? "FAILED: a check failed (above)" :
				  "every check held");
	return fail;

usage:
	fprintf(stderr, "usage: abi [--n 1000,10000,100000] [--churn R] "
		"[--expire E] [--batch B] [--reps K] [--methods LIST] "
		"[--seed S]\n");
	return 2;
}
