// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests of /dev/timeq (include/uapi/linux/timeq.h), on the kernel's
 * kselftest_harness.h: every command's success path and errno, handles
 * that are stale or from another file, batches that stop halfway, read,
 * poll, epoll and O_NONBLOCK, the element cap, the monotonic clock never
 * early, closing with events unread, and 8 threads sharing one file
 * checked against their models at the end. Every test opens /dev/timeq,
 * so without the module every test fails. No test depends on the host's
 * speed: loops are bounded in count, waits are for events, and a test
 * that makes thousands of calls has a timeout far above what it takes
 * under qemu TCG with KASAN (SLOW_TIMEOUT).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/timeq.h>

#include "kselftest_harness.h"

#define DEV	"/dev/timeq"
#define PAGE	4096
/*
 * The timeout of a test that makes thousands of calls. Each takes a few
 * seconds at most under qemu TCG with KASAN on a busy host; this leaves
 * room for a host a hundred times slower than that.
 */
#define SLOW_TIMEOUT	300

/* One layout for 32- and 64-bit userspace: this file is built as both. */
_Static_assert(sizeof(struct timeq_configure) == 40, "ABI");
_Static_assert(sizeof(struct timeq_insert) == 32, "ABI");
_Static_assert(sizeof(struct timeq_delete) == 16, "ABI");
_Static_assert(sizeof(struct timeq_update) == 24, "ABI");
_Static_assert(sizeof(struct timeq_element) == 32, "ABI");
_Static_assert(sizeof(struct timeq_advance) == 24, "ABI");
_Static_assert(sizeof(struct timeq_stats) == 64, "ABI");
_Static_assert(sizeof(struct timeq_op) == 32, "ABI");
_Static_assert(sizeof(struct timeq_batch) == 24, "ABI");
_Static_assert(sizeof(struct timeq_event) == 24, "ABI");

/* A page no access is allowed to, for EFAULT. */
static void *no_access(void)
{
	static void *page;

	if (!page)
		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	return page;
}

/* @n zeroed pages, readable and writable. */
static char *pages(int n)
{
	char *p = mmap(NULL, (size_t)n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int configure_manual(int fd, __u64 start, __u64 horizon, __u32 cap)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL,
		.start = start, .horizon = horizon, .max_elements = cap,
	};

	return ioctl(fd, TIMEQ_CONFIGURE, &c);
}

static int configure_mono(int fd, __u64 granularity, __u64 horizon)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MONOTONIC,
		.granularity = granularity, .horizon = horizon,
	};

	return ioctl(fd, TIMEQ_CONFIGURE, &c);
}

static int insert(int fd, __u64 time, __u64 cookie, __u64 *handle)
{
	struct timeq_insert in = {
		.size = sizeof(in), .time = time, .cookie = cookie,
	};
	int ret = ioctl(fd, TIMEQ_INSERT, &in);

	if (!ret && handle)
		*handle = in.handle;
	return ret;
}

static int delete(int fd, __u64 handle)
{
	struct timeq_delete del = { .size = sizeof(del), .handle = handle };

	return ioctl(fd, TIMEQ_DELETE, &del);
}

static int update(int fd, __u64 handle, __u64 time)
{
	struct timeq_update up = {
		.size = sizeof(up), .handle = handle, .time = time,
	};

	return ioctl(fd, TIMEQ_UPDATE, &up);
}

static int element(int fd, unsigned long cmd, struct timeq_element *e)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	return ioctl(fd, cmd, e);
}

static int advance(int fd, __u64 time, __u64 *expired)
{
	struct timeq_advance adv = { .size = sizeof(adv), .time = time };
	int ret = ioctl(fd, TIMEQ_ADVANCE, &adv);

	if (!ret && expired)
		*expired = adv.expired;
	return ret;
}

static struct timeq_stats stats(int fd)
{
	struct timeq_stats st = { .size = sizeof(st) };

	if (ioctl(fd, TIMEQ_STATS, &st))
		st.size = 0;
	return st;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", DEV, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, configure_once)
{
	struct timeq_stats st = stats(self->fd);

	ASSERT_EQ(sizeof(st), st.size);
	EXPECT_EQ(0, st.configured);
	ASSERT_EQ(0, configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(-1, configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(EBUSY, errno);
	st = stats(self->fd);
	EXPECT_EQ(1, st.configured);
	EXPECT_EQ(100, st.now);
	EXPECT_EQ(1000, st.horizon);
	EXPECT_EQ(TIMEQ_CLOCK_MANUAL, st.clock);
	EXPECT_LT(0, st.max_elements);
}

TEST_F(dev, unconfigured)
{
	struct timeq_element e;
	struct timeq_event ev;

	EXPECT_EQ(-1, insert(self->fd, 1, 0, NULL));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, delete(self->fd, 1));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EBADFD, errno);
}

TEST_F(dev, configure_errors)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL, .horizon = 10,
	};
	struct {
		struct timeq_configure c;
		__u64 more;
	} big = { .c = c };

	c.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.__reserved = 0;
	c.horizon = 0;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.horizon = 10;
	c.granularity = 5;	/* only for the monotonic clock */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.granularity = 0;
	c.clock = 7;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EOPNOTSUPP, errno);
	c.clock = TIMEQ_CLOCK_MONOTONIC;	/* granularity 0 */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.clock = TIMEQ_CLOCK_MANUAL;
	c.max_elements = 0xffffffff;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.max_elements = 0;
	c.size = 4;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	/* A larger structure: the unknown tail must be zero. */
	big.c.size = sizeof(big);
	big.more = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, stats(self->fd).configured);
	big.more = 0;
	EXPECT_EQ(0, ioctl(self->fd, TIMEQ_CONFIGURE, &big));
}

/* --- sizes, for every command --- */

struct command {
	const char	*name;
	unsigned long	cmd;
	__u32		size;
};

static const struct command commands[] = {
	{ "CONFIGURE", TIMEQ_CONFIGURE, sizeof(struct timeq_configure) },
	{ "INSERT", TIMEQ_INSERT, sizeof(struct timeq_insert) },
	{ "DELETE", TIMEQ_DELETE, sizeof(struct timeq_delete) },
	{ "UPDATE", TIMEQ_UPDATE, sizeof(struct timeq_update) },
	{ "MIN", TIMEQ_MIN, sizeof(struct timeq_element) },
	{ "DELETE_MIN", TIMEQ_DELETE_MIN, sizeof(struct timeq_element) },
	{ "ADVANCE", TIMEQ_ADVANCE, sizeof(struct timeq_advance) },
	{ "STATS", TIMEQ_STATS, sizeof(struct timeq_stats) },
	{ "BATCH", TIMEQ_BATCH, sizeof(struct timeq_batch) },
};

#define NCOMMANDS	ARRAY_SIZE(commands)

/*
 * Sizes below the first version, above a page, and larger with a tail
 * that is not zero, or not readable: refused before anything is done,
 * configured or not. A size above a page is refused before the kernel
 * reads past the size field: the structure sits at the end of a page
 * before one that faults.
 */
TEST_F(dev, sizes_every_command)
{
	char *p = pages(2);
	unsigned int i, pass;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, mprotect(p + PAGE, PAGE, PROT_NONE));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < NCOMMANDS; i++) {
			const struct command *c = &commands[i];
			__u32 *at = (__u32 *)(p + PAGE - c->size);
			__u32 *mid = (__u32 *)(p + PAGE / 2);
			__u32 sizes[] = { 0, 4, c->size - 8 };
			unsigned int k;

			for (k = 0; k < 3; k++) {
				memset(p, 0, PAGE);
				*at = sizes[k];
				EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
				EXPECT_EQ(EINVAL, errno) TH_LOG("%s size %u", c->name, sizes[k]);
			}
			*at = PAGE + 1;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s size 4097", c->name);
			*at = 0xffffffff;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s size 2^32 - 1", c->name);
			/* Up to a page, the tail is read: here it faults. */
			*at = c->size + 8;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(EFAULT, errno) TH_LOG("%s tail unreadable", c->name);
			/* A tail that is not zero. */
			*mid = PAGE / 2;
			p[PAGE - 1] = 1;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, mid));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s tail not zero", c->name);
		}
		/* Nothing changed: the file is as configured, or not. */
		EXPECT_EQ(pass, stats(self->fd).configured);
		EXPECT_EQ(0, stats(self->fd).queued);
		if (!pass)
			ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	}
}

TEST_F(dev, insert_update_delete_min)
{
	struct timeq_element e;
	__u64 h1, h2;

	ASSERT_EQ(0, configure_manual(self->fd, 100, 1000, 0));
	ASSERT_EQ(0, insert(self->fd, 150, 1, &h1));
	ASSERT_EQ(0, insert(self->fd, 120, 2, &h2));
	EXPECT_NE(h1, h2);
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(120, e.time);
	EXPECT_EQ(2, e.cookie);
	ASSERT_EQ(0, update(self->fd, h1, 110));
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h1, e.handle);
	EXPECT_EQ(110, e.time);
	EXPECT_EQ(1, e.cookie);
	EXPECT_EQ(2, stats(self->fd).queued);
	ASSERT_EQ(0, delete(self->fd, h1));
	EXPECT_EQ(-1, delete(self->fd, h1));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, update(self->fd, h1, 130));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(1, stats(self->fd).queued);
	EXPECT_EQ(2, stats(self->fd).inserted);
}

TEST_F(dev, window)
{
	struct timeq_element e;
	__u64 h;

	ASSERT_EQ(0, configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(-1, insert(self->fd, 99, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, insert(self->fd, 1100, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, stats(self->fd).queued);
	ASSERT_EQ(0, insert(self->fd, 1099, 5, &h));
	EXPECT_EQ(-1, update(self->fd, h, 1100));
	EXPECT_EQ(ERANGE, errno);
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(1099, e.time);
	ASSERT_EQ(0, update(self->fd, h, 100));
}

TEST_F(dev, foreign_and_stale_handles)
{
	int other = open(DEV, O_RDWR);
	__u64 h, mine;

	ASSERT_GE(other, 0);
	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, configure_manual(other, 0, 1000, 0));
	ASSERT_EQ(0, insert(other, 10, 0, &h));
	ASSERT_EQ(0, insert(self->fd, 10, 0, &mine));
	/* Same index, other generation: refused. */
	EXPECT_EQ(-1, delete(self->fd, h));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, update(self->fd, h, 20));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, delete(self->fd, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, delete(self->fd, mine ^ (1ULL << 32)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, delete(self->fd, mine + 1));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, stats(self->fd).queued);
	EXPECT_EQ(1, stats(other).queued);
	EXPECT_EQ(0, delete(other, h));
	close(other);
}

TEST_F(dev, delete_min)
{
	struct timeq_element e;
	__u64 h1, h2;

	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	EXPECT_EQ(-1, element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, insert(self->fd, 30, 3, &h1));
	ASSERT_EQ(0, insert(self->fd, 20, 2, &h2));
	ASSERT_EQ(0, element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(20, e.time);
	EXPECT_EQ(2, e.cookie);
	EXPECT_EQ(20, stats(self->fd).now);
	EXPECT_EQ(-1, delete(self->fd, h2));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, insert(self->fd, 19, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, stats(self->fd).events);
}

TEST_F(dev, advance_read_poll)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct epoll_event eev = { .events = EPOLLIN }, got;
	struct timeq_event ev[4];
	__u64 h[3], expired;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_GE(ep, 0);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &eev));
	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, insert(self->fd, 50, 500, &h[0]));
	ASSERT_EQ(0, insert(self->fd, 10, 100, &h[1]));
	ASSERT_EQ(0, insert(self->fd, 10, 101, &h[2]));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(0, advance(self->fd, 50, &expired));
	EXPECT_EQ(2, expired);
	EXPECT_EQ(50, stats(self->fd).now);
	EXPECT_EQ(2, stats(self->fd).events);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents);
	EXPECT_EQ(1, epoll_wait(ep, &got, 1, 0));
	/* Expired: the handles are stale; the events still carry them. */
	EXPECT_EQ(-1, delete(self->fd, h[1]));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, ev, sizeof(ev[0])));
	EXPECT_EQ(h[1], ev[0].handle);
	EXPECT_EQ(10, ev[0].time);
	EXPECT_EQ(100, ev[0].cookie);
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(h[2], ev[0].handle);
	EXPECT_EQ(101, ev[0].cookie);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(1, stats(self->fd).queued);
	EXPECT_EQ(2, stats(self->fd).expired);
	close(ep);
}

TEST_F(dev, cap_counts_unread_events)
{
	struct timeq_event ev[4];
	int i;

	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 4));
	EXPECT_EQ(4, stats(self->fd).max_elements);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, insert(self->fd, 10 + i, i, NULL));
	EXPECT_EQ(-1, insert(self->fd, 10, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, advance(self->fd, 12, NULL));
	EXPECT_EQ(-1, insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(2 * sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(0, insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(0, insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(-1, insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
}

TEST_F(dev, batch_stops_at_first_failure)
{
	struct timeq_op ops[4] = {
		{ .op = TIMEQ_OP_INSERT, .time = 10, .cookie = 1 },
		{ .op = TIMEQ_OP_INSERT, .time = 20, .cookie = 2 },
		{ .op = TIMEQ_OP_DELETE, .handle = 12345 },
		{ .op = TIMEQ_OP_INSERT, .time = 30, .cookie = 3 },
	};
	struct timeq_batch b = {
		.size = sizeof(b), .count = 4, .ops = (uintptr_t)ops,
	};

	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(2, b.done);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_NE(0, ops[0].handle);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(0, ops[3].handle);
	EXPECT_EQ(2, stats(self->fd).queued);
	/* The handles it returned work. */
	ops[0].op = TIMEQ_OP_UPDATE;
	ops[0].time = 40;
	ops[0].cookie = 0;
	ops[1].op = TIMEQ_OP_DELETE;
	ops[1].time = 0;
	ops[1].cookie = 0;
	b.count = 2;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(2, b.done);
	EXPECT_EQ(1, stats(self->fd).queued);
	ops[0].op = 99;
	b.count = 1;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(0, b.done);
	EXPECT_EQ(-EOPNOTSUPP, ops[0].result);
	b.count = 4097;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, bad_pointers_and_commands)
{
	struct timeq_batch b = {
		.size = sizeof(b), .count = 2, .ops = (uintptr_t)no_access(),
	};

	ASSERT_TRUE(no_access() != MAP_FAILED);
	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_INSERT, no_access()));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_STATS, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, read(self->fd, no_access(), sizeof(struct timeq_event)));
	EXPECT_EQ(EAGAIN, errno);	/* nothing to copy yet */
	EXPECT_EQ(-1, ioctl(self->fd, _IO(TIMEQ_TYPE, 0x99), &b));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW('x', 1, int), &b));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, stats(self->fd).queued);
	/* A read into a bad buffer fails and keeps the event. */
	ASSERT_EQ(0, insert(self->fd, 5, 0, NULL));
	ASSERT_EQ(0, advance(self->fd, 6, NULL));
	EXPECT_EQ(-1, read(self->fd, no_access(), sizeof(struct timeq_event)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, stats(self->fd).events);
}

TEST_F(dev, monotonic_never_early)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MONOTONIC,
		.granularity = 1000, .horizon = 10000000,
	};
	struct timeq_element e;
	struct timeq_event ev;
	__u64 now, seen = 0, last = 0;
	int i, n = 20;

	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(-1, advance(self->fd, 1, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(EOPNOTSUPP, errno);
	now = mono_ns() / 1000;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, insert(self->fd, now + 1000 * (n - i), i, NULL));
	EXPECT_EQ(-1, insert(self->fd, now + 20000000, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_GE(mono_ns(), ev.time * 1000) TH_LOG("event %d early", i);
		EXPECT_LE(last, ev.time);
		last = ev.time;
		seen |= 1ULL << ev.cookie;
	}
	EXPECT_EQ((1ULL << n) - 1, seen);
	EXPECT_EQ(0, stats(self->fd).queued);
}

/*
 * Stats is one snapshot: while elements expire, every call counts each
 * element once, as queued or as an event.
 */
#define SNAPSHOT_ELEMS	200

TEST_F_TIMEOUT(dev, monotonic_stats_snapshot, SLOW_TIMEOUT)
{
	const __u64 gran = 1000;
	struct timeq_event ev;
	struct timeq_stats st;
	__u64 tick, calls = 0, mixed = 0;
	static char seen[SNAPSHOT_ELEMS];
	int i;

	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, configure_mono(self->fd, gran, 1 << 24));
	tick = mono_ns() / gran;
	/* A millisecond apart, from 10 ms after the inserts began. */
	for (i = 0; i < SNAPSHOT_ELEMS; i++)
		ASSERT_EQ(0, insert(self->fd, tick + 10000 + 1000 * i, i, NULL));
	do {
		st = stats(self->fd);
		ASSERT_EQ(SNAPSHOT_ELEMS, st.queued + st.events)
			TH_LOG("queued %llu, events %llu",
			       (unsigned long long)st.queued,
			       (unsigned long long)st.events);
		ASSERT_EQ(st.events, st.expired);
		ASSERT_EQ(SNAPSHOT_ELEMS, st.inserted);
		calls++;
		mixed += st.queued && st.events;
	} while (st.events < SNAPSHOT_ELEMS);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < SNAPSHOT_ELEMS; i++) {
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		ASSERT_GT(SNAPSHOT_ELEMS, ev.cookie);
		EXPECT_EQ(0, seen[ev.cookie]);
		seen[ev.cookie] = 1;
	}
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	TH_LOG("%llu snapshots, %llu of them mid-expiry", (unsigned long long)calls,
	       (unsigned long long)mixed);
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

#define FAILSLAB "/sys/kernel/debug/failslab/"

/*
 * Make the next slab allocation of this task fail (failslab, in the debug
 * kernel), run @cmd on @fd with @arg, and give back what it returned and
 * the errno; -2 if this kernel has no failslab.
 */
static int with_failslab(int fd, unsigned long cmd, void *arg, int *err)
{
	int fail, ret;

	if (access(FAILSLAB "probability", W_OK))
		return -2;
	fail = open("/proc/self/make-it-fail", O_WRONLY);
	if (fail < 0 ||
	    write_file(FAILSLAB "task-filter", "Y") ||
	    write_file(FAILSLAB "ignore-gfp-wait", "N") ||
	    write_file(FAILSLAB "verbose", "0") ||
	    write_file(FAILSLAB "interval", "1") ||
	    write_file(FAILSLAB "space", "0") ||
	    write_file(FAILSLAB "times", "1") ||
	    write_file(FAILSLAB "probability", "100") ||
	    write(fail, "1", 1) != 1)
		return -3;
	ret = ioctl(fd, cmd, arg);
	*err = errno;
	if (pwrite(fail, "0", 1, 0) != 1 ||
	    write_file(FAILSLAB "probability", "0"))
		ret = -3;
	close(fail);
	return ret;
}

/* An insert that cannot have its memory fails with ENOMEM, changing nothing. */
TEST_F(dev, enomem_insert_changes_nothing)
{
	struct timeq_insert in = { .size = sizeof(in), .time = 5, .cookie = 50 };
	struct timeq_element e;
	int ret, err;
	__u64 h;

	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, insert(self->fd, 7, 70, &h));
	ret = with_failslab(self->fd, TIMEQ_INSERT, &in, &err);
	if (ret == -2)
		SKIP(return, "no failslab in this kernel");
	ASSERT_EQ(-1, ret);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(1, stats(self->fd).queued);
	EXPECT_EQ(1, stats(self->fd).inserted);
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h, e.handle);
	EXPECT_EQ(0, insert(self->fd, 5, 50, NULL));
}

/* So does a configure: the file stays unconfigured, and can be configured. */
TEST_F(dev, enomem_configure_changes_nothing)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL, .horizon = 1000,
	};
	int ret, err;

	ret = with_failslab(self->fd, TIMEQ_CONFIGURE, &c, &err);
	if (ret == -2)
		SKIP(return, "no failslab in this kernel");
	ASSERT_EQ(-1, ret);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(0, stats(self->fd).configured);
	EXPECT_EQ(-1, insert(self->fd, 1, 0, NULL));
	EXPECT_EQ(EBADFD, errno);
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(0, insert(self->fd, 1, 0, NULL));
}

/* Reserved fields must be zero, in every command that has one. */
TEST_F(dev, reserved_fields)
{
	struct timeq_insert in = { .size = sizeof(in), .__reserved = 1, .time = 5 };
	struct timeq_delete del = { .size = sizeof(del), .__reserved = 1 };
	struct timeq_update up = { .size = sizeof(up), .__reserved = 1 };
	struct timeq_element e = { .size = sizeof(e), .__reserved = 1 };
	struct timeq_advance adv = { .size = sizeof(adv), .__reserved = 1, .time = 9 };
	struct timeq_batch b = { .size = sizeof(b), .__reserved = 1 };
	struct timeq_op op = { .op = TIMEQ_OP_DELETE, .cookie = 1 };
	__u64 h;

	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, insert(self->fd, 5, 0, &h));
	del.handle = h;
	up.handle = h;
	up.time = 6;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE, &del));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_UPDATE, &up));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_ADVANCE, &adv));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	/* A delete in a batch takes no cookie. */
	op.handle = h;
	b.__reserved = 0;
	b.count = 1;
	b.ops = (uintptr_t)&op;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(0, b.done);
	EXPECT_EQ(-EINVAL, op.result);
	/* Nothing changed. */
	EXPECT_EQ(1, stats(self->fd).queued);
	EXPECT_EQ(0, stats(self->fd).now);
	ASSERT_EQ(0, element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(5, e.time);
}

/* --- 8 threads on one file, each with a model of its own elements --- */

#define THREADS		8
#define THREAD_OPS	1000
#define THREAD_ELEMS	64

struct model_elem {
	__u64	handle;
	__u64	time;
	__u64	cookie;
	int	live;		/* not deleted (it may have expired) */
};

struct worker {
	int			fd;
	int			id;
	unsigned int		seed;
	int			failed;
	struct model_elem	elem[THREAD_ELEMS];
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct timeq_stats st;
	int i, k;

	for (i = 0; i < THREAD_OPS && !w->failed; i++) {
		struct model_elem *m = &w->elem[rand_r(&w->seed) % THREAD_ELEMS];
		__u64 t;

		st = stats(w->fd);
		t = st.now + rand_r(&w->seed) % 500;
		k = rand_r(&w->seed) % 16;
		if (!m->live) {
			/* Insert; a clock moved on by thread 0 may refuse t. */
			__u64 cookie = (__u64)w->id << 32 | i;

			if (!insert(w->fd, t, cookie, &m->handle)) {
				m->time = t;
				m->cookie = cookie;
				m->live = 1;
			} else if (errno != ERANGE) {
				w->failed = errno;
			}
		} else if (k < 6) {
			if (!update(w->fd, m->handle, t))
				m->time = t;
			else if (errno != ENOENT && errno != ERANGE)
				w->failed = errno;
		} else if (k < 10) {
			if (!delete(w->fd, m->handle))
				m->live = 0;
			else if (errno != ENOENT)
				w->failed = errno;
			/* ENOENT: it expired, and its event will say so. */
		} else if (k == 10 && w->id == 0 && i < THREAD_OPS * 9 / 10) {
			/* The clock stops for the last tenth: some stay queued. */
			if (advance(w->fd, st.now + rand_r(&w->seed) % 50, NULL))
				w->failed = errno;
		}
	}
	return NULL;
}

static int find(struct worker *w, __u64 handle)
{
	int i, j;

	for (i = 0; i < THREADS; i++)
		for (j = 0; j < THREAD_ELEMS; j++)
			if (w[i].elem[j].live && w[i].elem[j].handle == handle)
				return i * THREAD_ELEMS + j;
	return -1;
}

TEST_F_TIMEOUT(dev, threads_against_models, SLOW_TIMEOUT)
{
	static struct worker w[THREADS];
	static char seen[THREADS * THREAD_ELEMS];
	pthread_t thread[THREADS];
	struct timeq_element e;
	struct timeq_event ev;
	__u64 found = 0, want = 0, last = 0, events = 0, t0 = mono_ns();
	int i, at;

	memset(w, 0, sizeof(w));
	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, configure_manual(self->fd, 0, 1000, 0));
	for (i = 0; i < THREADS; i++) {
		w[i].fd = self->fd;
		w[i].id = i;
		w[i].seed = i + 1;
		ASSERT_EQ(0, pthread_create(&thread[i], NULL, worker_run, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(thread[i], NULL));
		EXPECT_EQ(0, w[i].failed) TH_LOG("thread %d: %s", i, strerror(w[i].failed));
		for (at = 0; at < THREAD_ELEMS; at++)
			want += w[i].elem[at].live;
	}
	/* Expired elements are events; the rest leave by delete-min, in order. */
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	while (read(self->fd, &ev, sizeof(ev)) == sizeof(ev)) {
		at = find(w, ev.handle);
		ASSERT_LE(0, at) TH_LOG("event for an element no thread has");
		struct model_elem *m = &w[at / THREAD_ELEMS].elem[at % THREAD_ELEMS];

		EXPECT_EQ(0, seen[at]);
		EXPECT_EQ(m->time, ev.time);
		EXPECT_EQ(m->cookie, ev.cookie);
		seen[at] = 1;
		found++;
		events++;
	}
	EXPECT_EQ(EAGAIN, errno);
	while (!element(self->fd, TIMEQ_DELETE_MIN, &e)) {
		at = find(w, e.handle);
		ASSERT_LE(0, at) TH_LOG("an element no thread has");
		struct model_elem *m = &w[at / THREAD_ELEMS].elem[at % THREAD_ELEMS];

		EXPECT_EQ(0, seen[at]);
		EXPECT_EQ(m->time, e.time);
		EXPECT_EQ(m->cookie, e.cookie);
		EXPECT_LE(last, e.time);
		last = e.time;
		seen[at] = 1;
		found++;
	}
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(want, found);
	EXPECT_LT(0, events);
	TH_LOG("%d threads x %d ops: %llu elements left, %llu of them as events, in %llu ms",
	       THREADS, THREAD_OPS, (unsigned long long)want,
	       (unsigned long long)events,
	       (unsigned long long)(mono_ns() - t0) / 1000000);
}

TEST(close_with_events_unread)
{
	int fd = open(DEV, O_RDWR), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, configure_manual(fd, 0, 1000, 0));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, insert(fd, i, i, NULL));
	ASSERT_EQ(0, advance(fd, 50, NULL));
	EXPECT_EQ(50, stats(fd).events);
	EXPECT_EQ(50, stats(fd).queued);
	/* kmemleak, at the end of the run, sees whether close freed them. */
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
