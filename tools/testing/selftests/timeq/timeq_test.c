// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests of /dev/timeq (include/uapi/linux/timeq.h), on the kernel's
 * kselftest_harness.h: every command's success path, and every row of the
 * errno table for every command it applies to; sizes (first version,
 * above 4096 bytes, larger with a non-zero tail); results that cannot be
 * written, from a read-only page and from a page another thread keeps
 * making read-only, which must change nothing; batches that stop halfway,
 * with entries that grow; events that grow; handles that are stale, from
 * another file, or that would leak another file's activity; read, poll,
 * epoll, O_NONBLOCK and signals; the caps of a file and of a user (run as
 * uid 65534); the monotonic clock never early, its window, deletes and
 * updates racing its expiry, and stats read while it expires; ENOMEM at
 * every allocation through fail-nth; closing with events unread; and 8
 * threads sharing one file checked against their models at the end.
 *
 * Every test opens /dev/timeq, so without the module every test fails.
 * No test depends on the host's speed: loops are bounded in count, waits
 * are for events, and the tests that make many calls have a timeout far
 * above what they take under qemu TCG with KASAN (SLOW_TIMEOUT).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/timeq.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "timeq_lib.h"

/*
 * The largest size of a structure, an event and a batch's operation
 * (uapi, "Structures"); a page is page_size bytes, whatever that is.
 */
#define SIZE_LIMIT	4096
static size_t page_size;

static void __attribute__((constructor)) init_page_size(void)
{
	page_size = sysconf(_SC_PAGESIZE);
}

/*
 * The timeout of a test that makes thousands of calls. Each takes a few
 * seconds at most under qemu TCG with KASAN on a busy host; this leaves
 * room for a host a hundred times slower than that.
 */
#define SLOW_TIMEOUT	300

/*
 * One layout for 32- and 64-bit userspace: this file is built as both,
 * and static_assert() (C11's _Static_assert) pins every size and offset.
 */
#define PIN(type, field, offset) \
	static_assert(offsetof(struct type, field) == (offset), #type "." #field)

static_assert(sizeof(struct timeq_configure) == 40, "ABI");
static_assert(TIMEQ_CONFIGURE_SIZE_VER0 == 40, "ABI");
PIN(timeq_configure, size, 0);
PIN(timeq_configure, clock, 4);
PIN(timeq_configure, granularity, 8);
PIN(timeq_configure, start, 16);
PIN(timeq_configure, horizon, 24);
PIN(timeq_configure, max_elements, 32);
PIN(timeq_configure, event_size, 36);
static_assert(sizeof(struct timeq_insert) == 32, "ABI");
static_assert(TIMEQ_INSERT_SIZE_VER0 == 32, "ABI");
PIN(timeq_insert, __reserved, 4);
PIN(timeq_insert, time, 8);
PIN(timeq_insert, cookie, 16);
PIN(timeq_insert, handle, 24);
static_assert(sizeof(struct timeq_delete) == 16, "ABI");
static_assert(TIMEQ_DELETE_SIZE_VER0 == 16, "ABI");
PIN(timeq_delete, __reserved, 4);
PIN(timeq_delete, handle, 8);
static_assert(sizeof(struct timeq_update) == 24, "ABI");
static_assert(TIMEQ_UPDATE_SIZE_VER0 == 24, "ABI");
PIN(timeq_update, __reserved, 4);
PIN(timeq_update, handle, 8);
PIN(timeq_update, time, 16);
static_assert(sizeof(struct timeq_element) == 32, "ABI");
static_assert(TIMEQ_ELEMENT_SIZE_VER0 == 32, "ABI");
PIN(timeq_element, __reserved, 4);
PIN(timeq_element, handle, 8);
PIN(timeq_element, time, 16);
PIN(timeq_element, cookie, 24);
static_assert(sizeof(struct timeq_advance) == 16, "ABI");
static_assert(TIMEQ_ADVANCE_SIZE_VER0 == 16, "ABI");
PIN(timeq_advance, __reserved, 4);
PIN(timeq_advance, time, 8);
static_assert(sizeof(struct timeq_stats) == 360, "ABI");
static_assert(TIMEQ_STATS_SIZE_VER0 == 64, "ABI");
static_assert(TIMEQ_STATS_SIZE_VER1 == 360, "ABI");
static_assert(TIMEQ_LATENESS_BUCKETS == 20, "ABI");
PIN(timeq_stats, clock, 4);
PIN(timeq_stats, now, 8);
PIN(timeq_stats, horizon, 16);
PIN(timeq_stats, queued, 24);
PIN(timeq_stats, events, 32);
PIN(timeq_stats, max_elements, 40);
PIN(timeq_stats, configured, 44);
PIN(timeq_stats, inserted, 48);
PIN(timeq_stats, expired, 56);
PIN(timeq_stats, filled, 64);
PIN(timeq_stats, delta, 68);
PIN(timeq_stats, buckets, 72);
PIN(timeq_stats, __reserved, 76);
PIN(timeq_stats, __retired, 80);
PIN(timeq_stats, expiry_runs, 192);
PIN(timeq_stats, lateness, 200);
static_assert(sizeof(struct timeq_op) == 32, "ABI");
static_assert(TIMEQ_OP_SIZE_VER0 == 32, "ABI");
PIN(timeq_op, op, 0);
PIN(timeq_op, result, 4);
PIN(timeq_op, handle, 8);
PIN(timeq_op, time, 16);
PIN(timeq_op, cookie, 24);
static_assert(sizeof(struct timeq_batch) == 24, "ABI");
static_assert(TIMEQ_BATCH_SIZE_VER0 == 24, "ABI");
PIN(timeq_batch, count, 4);
PIN(timeq_batch, ops, 8);
PIN(timeq_batch, entry_len, 16);
PIN(timeq_batch, __reserved, 20);
static_assert(sizeof(struct timeq_event) == 32, "ABI");
static_assert(TIMEQ_EVENT_SIZE_VER0 == 32, "ABI");
PIN(timeq_event, size, 0);
PIN(timeq_event, flags, 4);
PIN(timeq_event, handle, 8);
PIN(timeq_event, time, 16);
PIN(timeq_event, cookie, 24);

/* --- helpers --- */

/* A page no access is allowed to, for EFAULT. */
static void *no_access(void)
{
	static void *page;

	if (!page)
		page = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	return page;
}

/* @n zeroed pages, readable and writable. */
static char *pages(int n)
{
	char *p = mmap(NULL, (size_t)n * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(TQ_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->fd, 0) TH_LOG("open %s: %s", TQ_DEV, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

/* --- configuration --- */

TEST_F(dev, configure_once)
{
	struct timeq_stats st = tq_stats(self->fd);

	ASSERT_EQ(sizeof(st), st.size);
	EXPECT_EQ(0, st.configured);
	EXPECT_EQ(0, st.horizon);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(-1, tq_configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(EBUSY, errno);
	st = tq_stats(self->fd);
	EXPECT_EQ(1, st.configured);
	EXPECT_EQ(100, st.now);
	EXPECT_EQ(1000, st.horizon);
	EXPECT_EQ(TIMEQ_CLOCK_MANUAL, st.clock);
	EXPECT_EQ(tq_param("default_elements"), st.max_elements);
}

/* Every command but TIMEQ_CONFIGURE and TIMEQ_STATS, and read(). */
TEST_F(dev, unconfigured)
{
	struct timeq_insert in = { .size = sizeof(in), .time = 1 };
	struct timeq_delete del = { .size = sizeof(del), .handle = 1 };
	struct timeq_update up = { .size = sizeof(up), .handle = 1 };
	struct timeq_element e = { .size = sizeof(e) };
	struct timeq_advance adv = { .size = sizeof(adv), .time = 1 };
	struct timeq_op op = { .op = TIMEQ_OP_INSERT };
	struct timeq_batch b = {
		.size = sizeof(b), .count = 1, .ops = (uintptr_t)&op,
		.entry_len = sizeof(op),
	};
	struct timeq_event ev;
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_INSERT, &in));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE, &del));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_UPDATE, &up));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_ADVANCE, &adv));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EBADFD, errno);
	EXPECT_EQ(0, op.result);	/* not touched */
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EBADFD, errno);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EBADFD, errno);
	/* read() fails at once, so poll() does not wait. */
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents);
	EXPECT_EQ(0, tq_stats(self->fd).configured);
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
	__u64 max_horizon = tq_param("max_horizon");

	ASSERT_LT(0, max_horizon);
	c.horizon = 0;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.horizon = max_horizon + 1;
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
	c.granularity = 1;
	c.start = 5;		/* only for the manual clock */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.start = 0;
	c.granularity = 1ULL << 60;	/* horizon * granularity > 2^62 */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.granularity = 0;
	c.clock = TIMEQ_CLOCK_MANUAL;
	c.max_elements = 0xffffffff;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.max_elements = tq_param("max_elements") + 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.max_elements = 0;
	c.event_size = 8;	/* below the first version */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.event_size = 36;	/* not a multiple of 8 */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.event_size = SIZE_LIMIT + 8;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(E2BIG, errno);
	c.event_size = 0;
	c.size = 4;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	EXPECT_EQ(EINVAL, errno);
	/* A larger structure: the unknown tail must be zero. */
	big.c.size = sizeof(big);
	big.more = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_CONFIGURE, &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, tq_stats(self->fd).configured);
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
	{ "CONFIGURE", TIMEQ_CONFIGURE, TIMEQ_CONFIGURE_SIZE_VER0 },
	{ "INSERT", TIMEQ_INSERT, TIMEQ_INSERT_SIZE_VER0 },
	{ "DELETE", TIMEQ_DELETE, TIMEQ_DELETE_SIZE_VER0 },
	{ "UPDATE", TIMEQ_UPDATE, TIMEQ_UPDATE_SIZE_VER0 },
	{ "MIN", TIMEQ_MIN, TIMEQ_ELEMENT_SIZE_VER0 },
	{ "DELETE_MIN", TIMEQ_DELETE_MIN, TIMEQ_ELEMENT_SIZE_VER0 },
	{ "ADVANCE", TIMEQ_ADVANCE, TIMEQ_ADVANCE_SIZE_VER0 },
	{ "STATS", TIMEQ_STATS, TIMEQ_STATS_SIZE_VER0 },
	{ "BATCH", TIMEQ_BATCH, TIMEQ_BATCH_SIZE_VER0 },
};

#define NCOMMANDS	ARRAY_SIZE(commands)

/*
 * Sizes below the first version, above 4096, and larger with a tail
 * that is not zero, or not readable: refused before anything is done,
 * configured or not. A size above 4096 is refused before the kernel
 * reads past the size field: the structure sits at the end of a page
 * before one that faults.
 */
TEST_F(dev, sizes_every_command)
{
	char *p = pages(2);
	unsigned int i, pass;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, mprotect(p + page_size, page_size, PROT_NONE));
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < NCOMMANDS; i++) {
			const struct command *c = &commands[i];
			__u32 *at = (__u32 *)(p + page_size - c->size);
			__u32 *mid = (__u32 *)(p + page_size - SIZE_LIMIT / 2);
			__u32 sizes[] = { 0, 4, c->size - 8 };
			unsigned int k;

			for (k = 0; k < 3; k++) {
				memset(p, 0, page_size);
				*at = sizes[k];
				EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
				EXPECT_EQ(EINVAL, errno) TH_LOG("%s size %u", c->name, sizes[k]);
			}
			*at = SIZE_LIMIT + 1;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s size 4097", c->name);
			*at = 0xffffffff;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s size 2^32 - 1", c->name);
			/* Up to 4096, the tail is read: here it faults. */
			*at = c->size + 8;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, at));
			EXPECT_EQ(EFAULT, errno) TH_LOG("%s tail unreadable", c->name);
			/* A tail that is not zero. */
			*mid = SIZE_LIMIT / 2;
			p[page_size - 1] = 1;
			EXPECT_EQ(-1, ioctl(self->fd, c->cmd, mid));
			EXPECT_EQ(E2BIG, errno) TH_LOG("%s tail not zero", c->name);
		}
		/* Nothing changed: the file is as configured, or not. */
		EXPECT_EQ(pass, tq_stats(self->fd).configured);
		EXPECT_EQ(0, tq_stats(self->fd).queued);
		if (!pass)
			ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	}
}

/* A structure of 4096 bytes whose tail is zero is taken, and its out fields written. */
TEST_F(dev, sizes_up_to_a_page)
{
	char *p = pages(1);
	struct timeq_insert *in = (struct timeq_insert *)p;
	struct timeq_stats *st = (struct timeq_stats *)p;
	struct timeq_element *e = (struct timeq_element *)p;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	in->size = SIZE_LIMIT;
	in->time = 7;
	in->cookie = 70;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_INSERT, in));
	EXPECT_NE(0, in->handle);
	memset(p, 0, SIZE_LIMIT);
	e->size = SIZE_LIMIT;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_MIN, e));
	EXPECT_EQ(7, e->time);
	EXPECT_EQ(70, e->cookie);
	memset(p, 0, SIZE_LIMIT);
	st->size = SIZE_LIMIT;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_STATS, st));
	EXPECT_EQ(SIZE_LIMIT, st->size);
	EXPECT_EQ(1, st->queued);
	EXPECT_EQ(1, st->configured);
	/* Nothing is written past what the kernel knows. */
	EXPECT_TRUE(!memchr(p + sizeof(*st), 1, SIZE_LIMIT - sizeof(*st)));
}

/* --- the basic commands --- */

TEST_F(dev, insert_update_delete_min)
{
	struct timeq_element e;
	__u64 h1, h2;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 100, 1000, 0));
	ASSERT_EQ(0, tq_insert(self->fd, 150, 1, &h1));
	ASSERT_EQ(0, tq_insert(self->fd, 120, 2, &h2));
	EXPECT_NE(h1, h2);
	EXPECT_NE(0, h1);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(120, e.time);
	EXPECT_EQ(2, e.cookie);
	ASSERT_EQ(0, tq_update(self->fd, h1, 110));
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h1, e.handle);
	EXPECT_EQ(110, e.time);
	EXPECT_EQ(1, e.cookie);
	EXPECT_EQ(2, tq_stats(self->fd).queued);
	ASSERT_EQ(0, tq_delete(self->fd, h1));
	EXPECT_EQ(-1, tq_delete(self->fd, h1));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, tq_update(self->fd, h1, 130));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(2, tq_stats(self->fd).inserted);
}

TEST_F(dev, window)
{
	struct timeq_element e;
	__u64 h;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 100, 1000, 0));
	EXPECT_EQ(-1, tq_insert(self->fd, 99, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, tq_insert(self->fd, 1100, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, tq_insert(self->fd, ~0ULL, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(0, tq_stats(self->fd).inserted);
	ASSERT_EQ(0, tq_insert(self->fd, 1099, 5, &h));
	EXPECT_EQ(-1, tq_update(self->fd, h, 1100));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, tq_update(self->fd, h, 99));
	EXPECT_EQ(ERANGE, errno);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(1099, e.time);
	ASSERT_EQ(0, tq_update(self->fd, h, 100));
}

TEST_F(dev, handles_stale_and_foreign)
{
	int other = open(TQ_DEV, O_RDWR);
	__u64 h, mine, again;

	ASSERT_GE(other, 0);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_configure_manual(other, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(other, 10, 0, &h));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &mine));
	/* Generations start at random: a match is a 2^-32 chance. */
	if (h != mine) {
		EXPECT_EQ(-1, tq_delete(self->fd, h));
		EXPECT_EQ(ENOENT, errno);
		EXPECT_EQ(-1, tq_update(self->fd, h, 20));
		EXPECT_EQ(ENOENT, errno);
	}
	EXPECT_EQ(-1, tq_delete(self->fd, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, tq_delete(self->fd, mine ^ (1ULL << 32)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, tq_delete(self->fd, mine + 1));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(1, tq_stats(other).queued);
	/* A deleted element's index is used again, with another generation. */
	ASSERT_EQ(0, tq_delete(self->fd, mine));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &again));
	EXPECT_EQ((__u32)mine, (__u32)again);
	EXPECT_NE(mine, again);
	EXPECT_EQ(-1, tq_delete(self->fd, mine));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, tq_delete(self->fd, again));
	EXPECT_EQ(0, tq_delete(other, h));
	close(other);
}

/* A file's handles do not move with another file's inserts. */
TEST_F(dev, handles_leak_nothing)
{
	int other = open(TQ_DEV, O_RDWR), i;
	__u64 h[4];

	ASSERT_GE(other, 0);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_configure_manual(other, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &h[0]));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &h[1]));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &h[2]));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, tq_insert(other, 10, 0, NULL));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 0, &h[3]));
	/* The generation moved as much with the other's 100 as without. */
	EXPECT_EQ((__u32)((h[1] >> 32) - (h[0] >> 32)),
		  (__u32)((h[3] >> 32) - (h[2] >> 32)));
	close(other);
}

TEST_F(dev, delete_min)
{
	struct timeq_element e;
	__u64 h1, h2;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	EXPECT_EQ(-1, tq_element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, tq_insert(self->fd, 30, 3, &h1));
	ASSERT_EQ(0, tq_insert(self->fd, 20, 2, &h2));
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(h2, e.handle);
	EXPECT_EQ(20, e.time);
	EXPECT_EQ(2, e.cookie);
	EXPECT_EQ(20, tq_stats(self->fd).now);
	EXPECT_EQ(-1, tq_delete(self->fd, h2));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, tq_insert(self->fd, 19, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, tq_stats(self->fd).events);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
}

TEST_F(dev, advance_read_poll)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct epoll_event eev = { .events = EPOLLIN }, got;
	struct timeq_event ev[4];
	__u64 h[3];
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_GE(ep, 0);
	/* Added before it is configured: it must still see the events. */
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &eev));
	EXPECT_EQ(1, epoll_wait(ep, &got, 1, 0));
	EXPECT_EQ(EPOLLERR, got.events);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(self->fd, 50, 500, &h[0]));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 100, &h[1]));
	ASSERT_EQ(0, tq_insert(self->fd, 10, 101, &h[2]));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);

	EXPECT_EQ(2, tq_advance(self->fd, 50));
	EXPECT_EQ(50, tq_stats(self->fd).now);
	EXPECT_EQ(2, tq_stats(self->fd).events);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents);
	EXPECT_EQ(1, epoll_wait(ep, &got, 1, 0));
	/* A clock that does not move on expires nothing. */
	EXPECT_EQ(0, tq_advance(self->fd, 50));
	EXPECT_EQ(0, tq_advance(self->fd, 3));
	EXPECT_EQ(50, tq_stats(self->fd).now);
	/* Expired: the handles are stale; the events still carry them. */
	EXPECT_EQ(-1, tq_delete(self->fd, h[1]));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, tq_update(self->fd, h[1], 60));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, ev, sizeof(ev[0])));
	EXPECT_EQ(sizeof(ev[0]), ev[0].size);
	EXPECT_EQ(0, ev[0].flags);
	EXPECT_EQ(h[1], ev[0].handle);
	EXPECT_EQ(10, ev[0].time);
	EXPECT_EQ(100, ev[0].cookie);
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(h[2], ev[0].handle);
	EXPECT_EQ(101, ev[0].cookie);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(2, tq_stats(self->fd).expired);
	close(ep);
}

/* An event size above the first version: zero past what the kernel fills. */
TEST_F(dev, event_size)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL, .horizon = 100,
		.event_size = 48,
	};
	unsigned char buf[2 * 48 + 40];
	unsigned char *page = (unsigned char *)pages(1);
	struct timeq_event ev;
	int other = open(TQ_DEV, O_RDWR), i;
	__u64 h[3];

	ASSERT_GE(other, 0);
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_CONFIGURE, &c));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, tq_insert(self->fd, 5 + i, 50 + i, &h[i]));
	ASSERT_EQ(3, tq_advance(self->fd, 10));
	EXPECT_EQ(-1, read(self->fd, buf, 47));
	EXPECT_EQ(EINVAL, errno);
	memset(buf, 0xff, sizeof(buf));
	/* Two whole events fit in 136 bytes. */
	ASSERT_EQ(96, read(self->fd, buf, sizeof(buf)));
	for (i = 0; i < 2; i++) {
		memcpy(&ev, buf + 48 * i, sizeof(ev));
		EXPECT_EQ(sizeof(ev), ev.size);
		EXPECT_EQ(0, ev.flags);
		EXPECT_EQ(h[i], ev.handle);
		EXPECT_EQ(5 + i, ev.time);
		EXPECT_EQ(50 + i, ev.cookie);
		EXPECT_TRUE(!memchr(buf + 48 * i + sizeof(ev), 0xff, 48 - sizeof(ev)));
	}
	EXPECT_EQ(0xff, buf[96]);	/* nothing past the last whole event */
	ASSERT_EQ(48, read(self->fd, buf, sizeof(buf)));
	memcpy(&ev, buf, sizeof(ev));
	EXPECT_EQ(h[2], ev.handle);
	/* The largest event size. */
	c.event_size = SIZE_LIMIT;
	ASSERT_EQ(0, ioctl(other, TIMEQ_CONFIGURE, &c));
	ASSERT_EQ(0, tq_insert(other, 1, 9, NULL));
	ASSERT_EQ(1, tq_advance(other, 2));
	ASSERT_FALSE(!page);
	memset(page, 0xff, SIZE_LIMIT);
	ASSERT_EQ(SIZE_LIMIT, read(other, page, SIZE_LIMIT));
	memcpy(&ev, page, sizeof(ev));
	EXPECT_EQ(sizeof(ev), ev.size);
	EXPECT_EQ(9, ev.cookie);
	EXPECT_TRUE(!memchr(page + sizeof(ev), 0xff, SIZE_LIMIT - sizeof(ev)));
	close(other);
}

TEST_F(dev, cap_counts_unread_events)
{
	struct timeq_event ev[4];
	int i;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 4));
	EXPECT_EQ(4, tq_stats(self->fd).max_elements);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, tq_insert(self->fd, 10 + i, i, NULL));
	EXPECT_EQ(-1, tq_insert(self->fd, 10, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(2, tq_advance(self->fd, 12));
	EXPECT_EQ(-1, tq_insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(2 * sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(0, tq_insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(0, tq_insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(-1, tq_insert(self->fd, 20, 9, NULL));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(6, tq_stats(self->fd).inserted);
}

/* A blocking read() waits until a signal; then EINTR, nothing consumed. */
static void on_signal(int sig)
{
}

TEST_F(dev, read_interrupted)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	/* Again and again, so that one comes once read() waits. */
	struct itimerval it = {
		.it_interval = { .tv_usec = 10000 },
		.it_value = { .tv_usec = 10000 },
	}, off = { };
	struct timeq_event ev;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));	/* no SA_RESTART */
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EINTR, errno);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &off, NULL));
	ASSERT_EQ(0, sigaction(SIGALRM, &old, NULL));
	/* A waiting read() returns the event that comes. */
	ASSERT_EQ(0, tq_insert(self->fd, 3, 33, NULL));
	ASSERT_EQ(1, tq_advance(self->fd, 4));
	ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(33, ev.cookie);
}

/* --- a command that holds the mutex asleep in a fault --- */

struct held_batch {
	int fd;
	struct timeq_op *ops;
	int ret;
};

static void *held_batch_run(void *arg)
{
	struct held_batch *h = arg;

	h->ret = tq_batch(h->fd, h->ops, 1);
	return NULL;
}

/* The state letter of task @pid ('R', 'S', 'D', ...), or 0. */
static char task_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (tq_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Whether task @pid sleeps in the kernel in dev.c, as far as its stack
 * tells (without /proc/PID/stack, or without symbols in it, the state
 * alone then): the stack, which leaves out the scheduler's functions,
 * starts in dev.c, or in an rtmutex wait (PREEMPT_RT), and passes
 * through dev.c.
 */
static int asleep_in_dev(pid_t pid)
{
	char path[64], stack[4096], top[256];
	ssize_t n;
	int fd;

	if (task_state(pid) != 'D')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, stack, sizeof(stack) - 1);
	close(fd);
	if (n < 0)
		return 1;
	stack[n] = 0;
	if (!strstr(stack, "+0x"))
		return 1;
	snprintf(top, sizeof(top), "%.*s", (int)strcspn(stack, "\n"), stack);
	return (strstr(top, "tq_dev_") || strstr(top, "mutex")) &&
	       strstr(stack, "tq_dev_");
}

/* Tries of a millisecond: far more than any host takes. */
#define KILL_TRIES	30000

/*
 * A batch holds the file's mutex while a fault of its operations waits
 * on userfaultfd. A task waiting behind it, in a command or in read(),
 * dies when killed, before the fault is resolved; then the batch goes on.
 */
TEST_F_TIMEOUT(dev, mutex_wait_killable, SLOW_TIMEOUT)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct timeq_op op = { .op = TIMEQ_OP_INSERT, .time = 10, .cookie = 7 };
	struct held_batch held = { .fd = self->fd };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_copy copy = { .len = page_size };
	int uffd, i, w, status, go[2], exited[2] = { 0, 0 };
	struct pollfd pfd;
	struct uffd_msg msg;
	char *page, *src, c;
	pthread_t thread;
	pid_t pid[2];

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	page = pages(1);
	src = pages(1);
	ASSERT_TRUE(page && src);
	reg.range.start = (uintptr_t)page;
	reg.range.len = page_size;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	held.ops = (struct timeq_op *)page;
	ASSERT_EQ(0, pthread_create(&thread, NULL, held_batch_run, &held));
	/* The batch reads its operation under the mutex, and faults. */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, -1));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(go));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			struct timeq_event ev;

			close(go[0]);
			if (write(go[1], "x", 1) != 1)
				_exit(1);
			if (i)
				_exit(read(self->fd, &ev, sizeof(ev)) < 0);
			tq_stats(self->fd);
			_exit(0);
		}
		close(go[1]);
		ASSERT_EQ(1, read(go[0], &c, 1));
		close(go[0]);
		/* Asleep in dev.c: for the mutex. */
		for (w = 0; w < KILL_TRIES && !asleep_in_dev(pid[i]); w++)
			usleep(1000);
		ASSERT_TRUE(asleep_in_dev(pid[i]))
			TH_LOG("state %c", task_state(pid[i]));
		ASSERT_EQ(0, kill(pid[i], SIGKILL));
		for (w = 0; w < KILL_TRIES && !exited[i]; w++) {
			exited[i] = waitpid(pid[i], &status, WNOHANG) == pid[i];
			if (!exited[i])
				usleep(1000);
		}
	}
	/* The fault resolved: the batch's operation, an insert, applies. */
	memcpy(src, &op, sizeof(op));
	copy.dst = (uintptr_t)page;
	copy.src = (uintptr_t)src;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(1, held.ret);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	for (i = 0; i < 2; i++) {
		if (!exited[i])
			waitpid(pid[i], &status, 0);
		EXPECT_TRUE(exited[i])
			TH_LOG("%s waiting for the mutex was not killed",
			       i ? "read()" : "TIMEQ_STATS");
	}
	close(uffd);
}

/* --- batches --- */

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
		.entry_len = sizeof(ops[0]),
	};

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	EXPECT_EQ(0, tq_batch(self->fd, ops, 0));
	ASSERT_EQ(2, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_NE(0, ops[0].handle);
	EXPECT_NE(ops[0].handle, ops[1].handle);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(0, ops[3].handle);
	EXPECT_EQ(2, tq_stats(self->fd).queued);
	EXPECT_EQ(2, tq_stats(self->fd).inserted);
	/* The handles it returned work. */
	ops[0].op = TIMEQ_OP_UPDATE;
	ops[0].time = 40;
	ops[0].cookie = 0;
	ops[1].op = TIMEQ_OP_DELETE;
	ops[1].time = 0;
	ops[1].cookie = 0;
	ASSERT_EQ(2, tq_batch(self->fd, ops, 2));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	ops[0].op = 99;
	ASSERT_EQ(0, tq_batch(self->fd, ops, 1));
	EXPECT_EQ(-EOPNOTSUPP, ops[0].result);
	b.count = 4097;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
}

/* Every errno an operation of a batch can have, and nothing applied for it. */
TEST_F(dev, batch_errors)
{
	struct timeq_op op;
	__u64 h;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 100, 100, 2));
	ASSERT_EQ(0, tq_insert(self->fd, 150, 0, &h));
#define ONE(_op, _handle, _time, _cookie, _errno) do {			\
		int __errno = (_errno);					\
									\
		memset(&op, 0, sizeof(op));				\
		op.op = _op;						\
		op.handle = _handle;					\
		op.time = _time;					\
		op.cookie = _cookie;					\
		EXPECT_EQ(!__errno, tq_batch(self->fd, &op, 1));		\
		EXPECT_EQ(-__errno, op.result);				\
	} while (0)
	ONE(TIMEQ_OP_INSERT, 0, 99, 0, ERANGE);
	ONE(TIMEQ_OP_INSERT, 0, 200, 0, ERANGE);
	ONE(TIMEQ_OP_INSERT, 5, 150, 0, EINVAL);	/* out field set */
	ONE(TIMEQ_OP_UPDATE, h, 200, 0, ERANGE);
	ONE(TIMEQ_OP_UPDATE, h, 99, 0, ERANGE);
	ONE(TIMEQ_OP_UPDATE, h + 1, 150, 0, ENOENT);
	ONE(TIMEQ_OP_UPDATE, h, 150, 1, EINVAL);	/* no cookie */
	ONE(TIMEQ_OP_DELETE, h + 1, 0, 0, ENOENT);
	ONE(TIMEQ_OP_DELETE, h, 1, 0, EINVAL);		/* no time */
	ONE(TIMEQ_OP_DELETE, h, 0, 1, EINVAL);		/* no cookie */
	ONE(0, 0, 0, 0, EOPNOTSUPP);
	ONE(TIMEQ_OP_INSERT, 0, 150, 0, 0);		/* the cap is 2 */
	EXPECT_NE(0, op.handle);
	ONE(TIMEQ_OP_INSERT, 0, 150, 0, ENOSPC);
	EXPECT_EQ(0, op.handle);
#undef ONE
	/* The result is an out field: it must be zero on input. */
	memset(&op, 0, sizeof(op));
	op.op = TIMEQ_OP_DELETE;
	op.handle = h;
	op.result = 1;
	EXPECT_EQ(0, tq_batch(self->fd, &op, 1));
	EXPECT_EQ(-EINVAL, op.result);
	EXPECT_EQ(2, tq_stats(self->fd).queued);
	EXPECT_EQ(2, tq_stats(self->fd).inserted);
	EXPECT_EQ(100, tq_stats(self->fd).now);
}

/* Entries larger than struct timeq_op: the excess must be zero. */
TEST_F(dev, batch_entry_len)
{
	struct {
		struct timeq_op op;
		__u64 more;
	} ops[3] = {
		{ { .op = TIMEQ_OP_INSERT, .time = 1 } },
		{ { .op = TIMEQ_OP_INSERT, .time = 2 } },
		{ { .op = TIMEQ_OP_INSERT, .time = 3 }, 1 },
	};
	struct timeq_batch b = {
		.size = sizeof(b), .count = 3, .ops = (uintptr_t)ops,
		.entry_len = sizeof(ops[0]),
	};

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 100, 0));
	ASSERT_EQ(2, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_NE(0, ops[0].op.handle);
	EXPECT_NE(0, ops[1].op.handle);
	EXPECT_EQ(0, ops[1].op.result);
	EXPECT_EQ(-E2BIG, ops[2].op.result);
	EXPECT_EQ(0, ops[2].op.handle);
	EXPECT_EQ(2, tq_stats(self->fd).queued);
	b.entry_len = TIMEQ_OP_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.entry_len = TIMEQ_OP_SIZE_VER0 + 4;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.entry_len = SIZE_LIMIT + 8;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(E2BIG, errno);
	b.entry_len = sizeof(ops[0]);
	b.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, tq_stats(self->fd).queued);
}

/* --- results that cannot be written --- */

/*
 * A command whose out fields are in a read-only page fails with EFAULT
 * and changes nothing; one without out fields works from a read-only
 * page. The structure is readable, so the command gets as far as
 * delivering its result.
 */
TEST_F(dev, readonly_results_change_nothing)
{
	char *p = pages(1);
	struct timeq_insert *in = (struct timeq_insert *)p;
	struct timeq_element *e = (struct timeq_element *)(p + 64);
	struct timeq_stats *st = (struct timeq_stats *)(p + 128);
	struct timeq_delete *del = (struct timeq_delete *)(p + 256);
	struct timeq_update *up = (struct timeq_update *)(p + 320);
	struct timeq_advance *adv = (struct timeq_advance *)(p + 384);
	struct timeq_configure *c = (struct timeq_configure *)(p + 448);
	struct timeq_element got;
	int i, other = open(TQ_DEV, O_RDWR);
	__u64 h, h2;

	ASSERT_GE(other, 0);
	ASSERT_FALSE(!p);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 1));
	in->size = sizeof(*in);
	in->time = 5;
	in->cookie = 50;
	e->size = sizeof(*e);
	/* The first version: the structures after it start at 256. */
	st->size = TIMEQ_STATS_SIZE_VER0;
	c->size = sizeof(*c);
	c->horizon = 10;
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ));
	/* The cap is 1: an insert that left anything behind would use it. */
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_INSERT, in));
		EXPECT_EQ(EFAULT, errno);
	}
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(0, tq_stats(self->fd).inserted);
	ASSERT_EQ(0, tq_insert(self->fd, 5, 50, &h));
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_MIN, e));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_STATS, st));
	EXPECT_EQ(EFAULT, errno);
	/* A delete-min that cannot report its element keeps it. */
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE_MIN, e));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(0, tq_stats(self->fd).now);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &got));
	EXPECT_EQ(h, got.handle);
	/* Commands without out fields only read. */
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ | PROT_WRITE));
	up->size = sizeof(*up);
	up->handle = h;
	up->time = 8;
	adv->size = sizeof(*adv);
	adv->time = 6;
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ));
	EXPECT_EQ(0, ioctl(self->fd, TIMEQ_UPDATE, up));
	EXPECT_EQ(0, ioctl(self->fd, TIMEQ_ADVANCE, adv));
	EXPECT_EQ(6, tq_stats(self->fd).now);
	EXPECT_EQ(0, ioctl(other, TIMEQ_CONFIGURE, c));
	EXPECT_EQ(10, tq_stats(other).horizon);
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ | PROT_WRITE));
	del->size = sizeof(*del);
	del->handle = h;
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ));
	EXPECT_EQ(0, ioctl(self->fd, TIMEQ_DELETE, del));
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	/* The same on the monotonic clock. */
	ASSERT_EQ(0, tq_insert(other, 5, 0, &h2));
	close(other);
	other = open(TQ_DEV, O_RDWR);
	ASSERT_GE(other, 0);
	ASSERT_EQ(0, tq_configure_mono(other, 1000000, 1000000, 0));
	EXPECT_EQ(-1, ioctl(other, TIMEQ_INSERT, in));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, tq_stats(other).queued);
	EXPECT_EQ(0, tq_stats(other).events);
	EXPECT_EQ(0, tq_stats(other).inserted);
	close(other);
}

/*
 * A batch whose entries run from a writable page into a read-only one:
 * the operations whose results can be written are applied, the rest not.
 * Entry 3 straddles the two pages, its result writable and its handle
 * not, so it is not applied either.
 */
TEST_F(dev, readonly_batch_applies_what_it_reports)
{
	char *p = pages(2);
	struct timeq_op *ops = (struct timeq_op *)(p + page_size - 3 * 32 - 8);
	int i;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	for (i = 0; i < 6; i++) {
		ops[i].op = TIMEQ_OP_INSERT;
		ops[i].time = 10 + i;
		ops[i].cookie = i;
	}
	ASSERT_EQ(0, mprotect(p + page_size, page_size, PROT_READ));
	ASSERT_EQ(3, tq_batch(self->fd, ops, 6));
	EXPECT_EQ(3, tq_stats(self->fd).queued);
	EXPECT_EQ(3, tq_stats(self->fd).inserted);
	EXPECT_EQ(0, ops[3].result);
	EXPECT_EQ(0, ops[3].handle);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, ops[i].result);
		EXPECT_EQ(0, tq_delete(self->fd, ops[i].handle));
	}
	/* Entirely read-only: EFAULT, nothing applied. */
	ops = (struct timeq_op *)(p + page_size);
	EXPECT_EQ(-1, tq_batch(self->fd, ops, 2));
	EXPECT_EQ(EFAULT, errno);
	/* Not readable at all. */
	EXPECT_EQ(-1, tq_batch(self->fd, no_access(), 2));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(3, tq_stats(self->fd).inserted);
}

/*
 * An insert whose handle reached userspace but whose result could not be
 * written is not applied (entry 0 straddles a read-only page and a
 * writable one: its result in the first, its handle in the second), and
 * its handle is never given out again: not to the next insert, which
 * takes the same slot, and not as a handle that names anything.
 */
TEST_F(dev, batch_aborted_handle_not_reused)
{
	char *p = pages(2);
	struct timeq_op *op = (struct timeq_op *)(p + page_size - 8);
	__u64 leaked, handle;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	op->op = TIMEQ_OP_INSERT;
	op->time = 10;
	op->cookie = 1;
	ASSERT_EQ(0, mprotect(p, page_size, PROT_READ));
	EXPECT_EQ(-1, tq_batch(self->fd, op, 1));
	EXPECT_EQ(EFAULT, errno);
	leaked = op->handle;
	ASSERT_NE(0, leaked);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(0, tq_stats(self->fd).inserted);
	EXPECT_EQ(-1, tq_delete(self->fd, leaked));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, tq_insert(self->fd, 10, 2, &handle));
	EXPECT_NE(leaked, handle);
	EXPECT_EQ(-1, tq_delete(self->fd, leaked));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, tq_delete(self->fd, handle));
}

/* A read() into a buffer that faults part way returns what it wrote. */
TEST_F(dev, read_fault_consumes_only_what_it_wrote)
{
	char *p = pages(2);
	struct timeq_event *ev = (struct timeq_event *)(p + page_size - 2 * 32);
	int i;

	ASSERT_FALSE(!p);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, tq_insert(self->fd, 1 + i, i, NULL));
	ASSERT_EQ(3, tq_advance(self->fd, 10));
	ASSERT_EQ(0, mprotect(p + page_size, page_size, PROT_READ));
	ASSERT_EQ(2 * sizeof(*ev), read(self->fd, ev, 4 * sizeof(*ev)));
	EXPECT_EQ(0, ev[0].cookie);
	EXPECT_EQ(1, ev[1].cookie);
	EXPECT_EQ(1, tq_stats(self->fd).events);
	EXPECT_EQ(-1, read(self->fd, p + page_size, sizeof(*ev)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, read(self->fd, no_access(), sizeof(*ev)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, tq_stats(self->fd).events);
	ASSERT_EQ(sizeof(*ev), read(self->fd, p, sizeof(*ev)));
	EXPECT_EQ(2, ((struct timeq_event *)p)->cookie);
	EXPECT_EQ(0, tq_stats(self->fd).events);
}

/*
 * The copy-out race: another thread makes the result page read-only and
 * writable again, over and over, while inserts, batches of inserts and
 * delete-mins write their results there. Whatever the interleaving,
 * a call that fails changed nothing, and one that succeeded did exactly
 * what it reported: checked against a model after every call, and at the
 * end by draining the queue in order. The page is a memfd mapped twice:
 * the kernel writes through the mapping that flips, this thread through
 * one that stays writable.
 */
#define RACE_CALLS	3000

struct race_elem {
	__u64	handle;
	__u64	time;
	__u64	cookie;
	__u64	seq;
};

struct race {
	char	*flip;
	int	stop;
	long	flips;
};

static void *race_flipper(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		if (mprotect(r->flip, page_size, PROT_READ) ||
		    mprotect(r->flip, page_size, PROT_READ | PROT_WRITE))
			return (void *)1;
		r->flips++;
	}
	return NULL;
}

/* The model's minimum: earliest time, first inserted among equals. */
static int race_min(struct race_elem *m, int n)
{
	int i, best = -1;

	for (i = 0; i < n; i++)
		if (best < 0 || m[i].time < m[best].time ||
		    (m[i].time == m[best].time && m[i].seq < m[best].seq))
			best = i;
	return best;
}

TEST_F_TIMEOUT(dev, copy_out_race_changes_nothing, SLOW_TIMEOUT)
{
	static struct race_elem m[2 * RACE_CALLS];
	struct race r = { };
	struct timeq_batch b = {
		.size = sizeof(b), .count = 2, .entry_len = sizeof(struct timeq_op),
	};
	int memfd = memfd_create("timeq-race", 0), n = 0, i, k, at, ret;
	__u64 seq = 0, now = 0, inserted = 0, faults[3] = { 0 };
	struct timeq_element *e, got;
	struct timeq_insert *in;
	struct timeq_op *ops;
	struct timeq_stats st;
	pthread_t flipper;
	char *rw;
	void *res;

	ASSERT_GE(memfd, 0);
	ASSERT_EQ(0, ftruncate(memfd, page_size));
	rw = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	r.flip = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
		      0);
	ASSERT_TRUE(rw != MAP_FAILED);
	ASSERT_TRUE(r.flip != MAP_FAILED);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, pthread_create(&flipper, NULL, race_flipper, &r));
	for (i = 0; i < RACE_CALLS; i++) {
		memset(rw, 0, page_size);
		switch (i % 3) {
		case 0:
			in = (struct timeq_insert *)rw;
			in->size = sizeof(*in);
			in->time = now + 1 + (i * 7) % 500;
			in->cookie = i;
			ret = ioctl(self->fd, TIMEQ_INSERT, r.flip);
			if (!ret) {
				m[n++] = (struct race_elem){
					in->handle, in->time, i, seq++ };
				inserted++;
			}
			break;
		case 1:
			ops = (struct timeq_op *)rw;
			for (k = 0; k < 2; k++) {
				ops[k].op = TIMEQ_OP_INSERT;
				ops[k].time = now + 1 + (i * 13 + k) % 500;
				ops[k].cookie = (__u64)i << 1 | k;
			}
			b.ops = (uintptr_t)r.flip;
			ret = ioctl(self->fd, TIMEQ_BATCH, &b);
			/* Stopped early only for an entry it could not write. */
			ASSERT_TRUE(ret == 1 || ret == 2 ||
				    (ret == -1 && errno == EFAULT))
				TH_LOG("batch returned %d", ret);
			for (k = 0; k < ret; k++) {
				ASSERT_EQ(0, ops[k].result);
				m[n++] = (struct race_elem){ ops[k].handle,
					ops[k].time, ops[k].cookie, seq++ };
				inserted++;
			}
			ret = ret == 2 ? 0 : -1;
			errno = EFAULT;
			break;
		default:
			e = (struct timeq_element *)rw;
			e->size = sizeof(*e);
			ret = ioctl(self->fd, TIMEQ_DELETE_MIN, r.flip);
			if (ret && !n) {
				/* Empty: said before any result is written. */
				ASSERT_EQ(ENODATA, errno);
				ret = 0;
			} else if (!ret) {
				at = race_min(m, n);
				ASSERT_LE(0, at);
				EXPECT_EQ(m[at].handle, e->handle);
				EXPECT_EQ(m[at].time, e->time);
				EXPECT_EQ(m[at].cookie, e->cookie);
				now = m[at].time;
				m[at] = m[--n];
			}
			break;
		}
		if (ret) {
			ASSERT_EQ(EFAULT, errno);
			faults[i % 3]++;
		}
		st = tq_stats(self->fd);
		ASSERT_EQ(n, st.queued) TH_LOG("call %d", i);
		ASSERT_EQ(inserted, st.inserted) TH_LOG("call %d", i);
		ASSERT_EQ(now, st.now) TH_LOG("call %d", i);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(flipper, &res));
	EXPECT_TRUE(!res);
	while (!tq_element(self->fd, TIMEQ_DELETE_MIN, &got)) {
		at = race_min(m, n);
		ASSERT_LE(0, at);
		EXPECT_EQ(m[at].handle, got.handle);
		EXPECT_EQ(m[at].cookie, got.cookie);
		m[at] = m[--n];
	}
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(0, n);
	TH_LOG("%d calls, %ld flips: EFAULT from %llu inserts, %llu batches, %llu delete-mins",
	       RACE_CALLS, r.flips, (unsigned long long)faults[0],
	       (unsigned long long)faults[1], (unsigned long long)faults[2]);
}

/* --- bad pointers, unknown commands, reserved and out fields --- */

TEST_F(dev, bad_pointers_every_command)
{
	struct timeq_event ev;
	unsigned int i;

	ASSERT_TRUE(no_access() != MAP_FAILED);
	for (i = 0; i < NCOMMANDS; i++) {
		EXPECT_EQ(-1, ioctl(self->fd, commands[i].cmd, NULL));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%s NULL", commands[i].name);
		EXPECT_EQ(-1, ioctl(self->fd, commands[i].cmd, no_access()));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%s PROT_NONE", commands[i].name);
	}
	EXPECT_EQ(0, tq_stats(self->fd).configured);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	for (i = 1; i < NCOMMANDS; i++) {
		EXPECT_EQ(-1, ioctl(self->fd, commands[i].cmd, NULL));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%s NULL", commands[i].name);
	}
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, no_access(), sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);	/* nothing to copy yet */
	ASSERT_EQ(0, tq_insert(self->fd, 5, 0, NULL));
	ASSERT_EQ(1, tq_advance(self->fd, 6));
	EXPECT_EQ(-1, read(self->fd, no_access(), sizeof(ev)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, tq_stats(self->fd).events);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
}

TEST_F(dev, unknown_commands)
{
	struct timeq_stats st = { .size = sizeof(st) };

	EXPECT_EQ(-1, ioctl(self->fd, _IO(TIMEQ_TYPE, 0x99), &st));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(TIMEQ_TYPE, 0x7f), &st));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(TIMEQ_TYPE, TIMEQ_CMD_BATCH + 1), &st));
	EXPECT_EQ(ENOTTY, errno);
	/* A known number with a direction or a size is another command. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(TIMEQ_TYPE, TIMEQ_CMD_STATS,
					    struct timeq_stats), &st));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO('x', TIMEQ_CMD_STATS), &st));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW('x', 1, int), &st));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, ioctl(self->fd, TIMEQ_STATS, &st));
}

/* Reserved fields, and out fields on input, must be zero, in every command. */
TEST_F(dev, reserved_and_out_fields)
{
	struct timeq_insert in = { .size = sizeof(in), .__reserved = 1, .time = 5 };
	struct timeq_delete del = { .size = sizeof(del), .__reserved = 1 };
	struct timeq_update up = { .size = sizeof(up), .__reserved = 1 };
	struct timeq_element e = { .size = sizeof(e), .__reserved = 1 };
	struct timeq_advance adv = { .size = sizeof(adv), .__reserved = 1, .time = 9 };
	struct timeq_batch b = {
		.size = sizeof(b), .__reserved = 1,
		.entry_len = sizeof(struct timeq_op),
	};
	struct timeq_stats st = { .size = sizeof(st) };
	unsigned int i;
	__u64 h;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(self->fd, 5, 0, &h));
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
	/* Out fields. */
	in.__reserved = 0;
	in.handle = 1;
	EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	for (i = 0; i < 3; i++) {
		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		(&e.handle)[i] = 1;
		EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_MIN, &e));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_DELETE_MIN, &e));
		EXPECT_EQ(EINVAL, errno);
	}
	for (i = sizeof(__u32); i < sizeof(st); i += sizeof(__u32)) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		((__u32 *)&st)[i / sizeof(__u32)] = 1;
		EXPECT_EQ(-1, ioctl(self->fd, TIMEQ_STATS, &st));
		EXPECT_EQ(EINVAL, errno) TH_LOG("stats word %u", i / 4);
	}
	/* Nothing changed. */
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(1, tq_stats(self->fd).inserted);
	EXPECT_EQ(0, tq_stats(self->fd).now);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(5, e.time);
	EXPECT_EQ(h, e.handle);
}

/* --- the queue's figures --- */

static __u64 lateness_sum(const struct timeq_stats *st)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < TIMEQ_LATENESS_BUCKETS; i++)
		sum += st->lateness[i];
	return sum;
}

/* Whether the @n words at @w are all 0. */
static int words_zero(const __u64 *w, size_t n)
{
	while (n--)
		if (*w++)
			return 0;
	return 1;
}

/*
 * The figures of the second version: the queue's shape and its expiries;
 * the queue's internals are debugfs's, so their old place reads 0. A
 * caller that knows the first version gets that only.
 */
TEST_F(dev, stats_queue_figures)
{
	struct timeq_stats st, old;
	int i;

	st = tq_stats(self->fd);
	EXPECT_EQ(sizeof(st), st.filled);
	EXPECT_EQ(0, st.delta);
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 4096, 0));
	st = tq_stats(self->fd);
	EXPECT_EQ(sizeof(st), st.filled);
	ASSERT_NE(0, st.delta);
	EXPECT_LE(4096, (__u64)st.delta * st.buckets);
	/* The current bucket, the next one and a far one. */
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, tq_insert(self->fd, i, i, NULL));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, tq_insert(self->fd, st.delta + i, i, NULL));
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, tq_insert(self->fd, 8 * st.delta + i, i, NULL));
	st = tq_stats(self->fd);
	EXPECT_EQ(22, st.queued);
	EXPECT_EQ(0, st.expiry_runs);
	EXPECT_TRUE(words_zero(st.__retired, ARRAY_SIZE(st.__retired)));
	/* One expiry takes the two near buckets. */
	ASSERT_EQ(15, tq_advance(self->fd, 2 * st.delta + 1));
	st = tq_stats(self->fd);
	EXPECT_EQ(7, st.queued);
	EXPECT_EQ(1, st.expiry_runs);
	EXPECT_TRUE(words_zero(st.__retired, ARRAY_SIZE(st.__retired)));
	EXPECT_EQ(0, lateness_sum(&st));
	/* The first version: 64 bytes written, the rest left as it was. */
	memset(&old, 0, sizeof(old));
	old.size = TIMEQ_STATS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->fd, TIMEQ_STATS, &old));
	EXPECT_EQ(7, old.queued);
	EXPECT_EQ(0, old.filled);
	EXPECT_EQ(0, old.delta);
	EXPECT_EQ(0, old.expiry_runs);
}

/* On the monotonic clock every expired element's lateness is counted once. */
TEST_F(dev, stats_lateness_monotonic)
{
	struct timeq_event ev;
	struct timeq_stats st;
	__u64 now;
	int i, n = 5;

	ASSERT_EQ(0, tq_configure_mono(self->fd, 1000, 1 << 20, 0));
	now = tq_mono_ns() / 1000;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, tq_insert(self->fd, now + 1000 * (i + 1), i, NULL));
	for (i = 0; i < n; i++)
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	st = tq_stats(self->fd);
	EXPECT_EQ(n, st.expired);
	EXPECT_EQ(n, lateness_sum(&st));
	EXPECT_LE(1, st.expiry_runs);
	EXPECT_LE(st.expiry_runs, n);
}

/* --- the monotonic clock --- */

TEST_F(dev, monotonic_never_early)
{
	struct timeq_element e;
	struct timeq_event ev;
	__u64 now, seen = 0, last = 0;
	int i, n = 20;

	ASSERT_EQ(0, tq_configure_mono(self->fd, 1000, 10000000, 0));
	EXPECT_EQ(-1, tq_advance(self->fd, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, tq_element(self->fd, TIMEQ_DELETE_MIN, &e));
	EXPECT_EQ(EOPNOTSUPP, errno);
	now = tq_mono_ns() / 1000;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, tq_insert(self->fd, now + 1000 * (n - i), i, NULL));
	EXPECT_EQ(-1, tq_insert(self->fd, now + 20000000, 0, NULL));
	EXPECT_EQ(ERANGE, errno);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_GE(tq_mono_ns(), ev.time * 1000) TH_LOG("event %d early", i);
		EXPECT_LE(last, ev.time);
		last = ev.time;
		seen |= 1ULL << ev.cookie;
	}
	EXPECT_EQ((1ULL << n) - 1, seen);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(n, tq_stats(self->fd).expired);
}

/*
 * An update to a later time on the monotonic clock is a store in the
 * kernel (timeq_timer_move(), "Refresh by a store" in module/fast.c):
 * the element stays filed at its older time until then. TIMEQ_MIN still
 * answers the earliest time an element expires at, and each event comes
 * at the time it was moved to, in that order, never at the older one.
 * Ticks of a millisecond; the times lie a second ahead, far more than
 * the calls take on a slow host.
 */
#define LATER_N		4

TEST_F(dev, monotonic_update_later)
{
	const __u64 gran = 1000000;
	__u64 h[LATER_N + 1], at, t;
	struct timeq_element e;
	struct timeq_event ev;
	int i;

	ASSERT_EQ(0, tq_configure_mono(self->fd, gran, 100000, 0));
	at = tq_mono_ns() / gran + 1000;
	for (i = 0; i < LATER_N; i++)
		ASSERT_EQ(0, tq_insert(self->fd, at, i, &h[i]));
	ASSERT_EQ(0, tq_insert(self->fd, at + 100, LATER_N, &h[LATER_N]));
	for (i = 0; i < LATER_N; i++)
		ASSERT_EQ(0, tq_update(self->fd, h[i], at + 200 + i));
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h[LATER_N], e.handle);
	EXPECT_EQ(at + 100, e.time);
	EXPECT_EQ(LATER_N + 1, tq_stats(self->fd).queued);
	for (i = 0; i <= LATER_N; i++) {
		t = i ? at + 200 + i - 1 : at + 100;
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_EQ(h[i ? i - 1 : LATER_N], ev.handle);
		EXPECT_EQ(t, ev.time);
		EXPECT_GE(tq_mono_ns(), ev.time * gran);
	}
	EXPECT_EQ(0, tq_stats(self->fd).queued);
	EXPECT_EQ(LATER_N + 1, tq_stats(self->fd).expired);
}

/*
 * The order among equal times that the move later gives, as struct
 * timeq_update documents it: A and B, filed at one time, are moved to a
 * later one, where C was inserted after A's move and before B's; A and B
 * take their places there when TIMEQ_MIN finds them ahead of C, so D,
 * inserted after that, comes last: C, A, B, D. A 32-bit kernel makes no
 * stores (module/fast.c), and moves at once.
 */
TEST_F(dev, monotonic_update_later_order)
{
	const __u64 gran = 1000000;
	struct timeq_element e;
	struct timeq_event ev;
	struct utsname u;
	__u64 h[4], at;
	int i;

	ASSERT_EQ(0, uname(&u));
	if (!strstr(u.machine, "64") && strcmp(u.machine, "s390x"))
		SKIP(return, "stores are made on 64-bit kernels only (%s)",
		     u.machine);
	ASSERT_EQ(0, tq_configure_mono(self->fd, gran, 100000, 0));
	at = tq_mono_ns() / gran + 1000;
	ASSERT_EQ(0, tq_insert(self->fd, at, 0, &h[0]));	/* A */
	ASSERT_EQ(0, tq_insert(self->fd, at, 1, &h[1]));	/* B */
	ASSERT_EQ(0, tq_update(self->fd, h[0], at + 300));
	ASSERT_EQ(0, tq_insert(self->fd, at + 300, 2, &h[2]));	/* C */
	ASSERT_EQ(0, tq_update(self->fd, h[1], at + 300));
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h[2], e.handle);
	EXPECT_EQ(at + 300, e.time);
	ASSERT_EQ(0, tq_insert(self->fd, at + 300, 3, &h[3]));	/* D */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_EQ(at + 300, ev.time);
		EXPECT_EQ("\2\0\1\3"[i], ev.cookie) TH_LOG("event %d", i);
	}
}

/*
 * The window on the monotonic clock: a time at or before the current
 * tick is taken whatever the horizon, and queued at the clock; one at or
 * beyond the tick plus the horizon (plus the one tick the expiry may set
 * the clock ahead) is refused. Ticks of a second, so that the tick moves
 * rarely during a call; an attempt during which it moved is made again.
 */
TEST_F(dev, monotonic_window)
{
	const __u64 gran = 1000000000, horizon = 4;
	struct timeq_event ev;
	__u64 tick, asked[3], h;
	int i, tries, refused = 0;

	ASSERT_EQ(0, tq_configure_mono(self->fd, gran, horizon, 0));
	tick = tq_mono_ns() / gran;
	asked[0] = 0;
	asked[1] = tick - 1;
	asked[2] = tick;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, tq_insert(self->fd, asked[i], i, NULL));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_LE(asked[ev.cookie], ev.time);
		EXPECT_LE(tick, ev.time);	/* queued at the clock */
		EXPECT_GE(tq_mono_ns(), ev.time * gran);
	}
	for (tries = 0; tries < 100 && !refused; tries++) {
		tick = tq_mono_ns() / gran;
		if (tq_insert(self->fd, tick + horizon + 1, 0, &h))
			refused = errno;
		else
			ASSERT_EQ(0, tq_delete(self->fd, h));
		if (tq_mono_ns() / gran != tick)
			refused = 0;
	}
	EXPECT_EQ(ERANGE, refused);
	ASSERT_EQ(0, tq_insert(self->fd, tq_mono_ns() / gran + horizon - 1, 0, &h));
	EXPECT_EQ(0, tq_update(self->fd, h, 0));	/* now: it expires */
	ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(h, ev.handle);
	EXPECT_EQ(0, tq_stats(self->fd).queued);
}

/*
 * Deletes and updates racing the expiry. First one at a time: each element
 * is inserted due now or a few ticks later, then deleted, or moved far
 * ahead (and then deleted), at once. Then a storm: elements all due at
 * one tick, deleted by batches while the workqueue expires them. Whichever
 * wins, every element ends exactly once: deleted or moved (no event ever),
 * or expired (one event, and the delete or update said ENOENT).
 */
#define EXPIRY_RACE	600
#define EXPIRY_STORM	1000

static void expect_events(struct __test_metadata *_metadata, int fd,
			  const char *fate, const __u64 *handle, int n,
			  int expected)
{
	static char seen[EXPIRY_STORM];
	struct timeq_event ev;
	int got = 0;

	memset(seen, 0, sizeof(seen));
	while (got < expected) {
		ASSERT_EQ(sizeof(ev), read(fd, &ev, sizeof(ev)));
		ASSERT_GT(n, ev.cookie);
		EXPECT_EQ('e', fate[ev.cookie])
			TH_LOG("element %llu", (unsigned long long)ev.cookie);
		EXPECT_EQ(handle[ev.cookie], ev.handle);
		EXPECT_EQ(0, seen[ev.cookie]);
		seen[ev.cookie] = 1;
		got++;
	}
}

TEST_F_TIMEOUT(dev, monotonic_expiry_races_delete_and_update, SLOW_TIMEOUT)
{
	const __u64 gran = 10000;	/* 10 us */
	static char fate[EXPIRY_STORM];	/* 'd'eleted, 'm'oved, 'e'xpired */
	static __u64 handle[EXPIRY_STORM];
	static struct timeq_op ops[EXPIRY_STORM];
	int i, j, ret, expected = 0, moved = 0, stopped = 0;
	__u64 tick;
	struct timeq_stats st;

	ASSERT_EQ(0, tq_configure_mono(self->fd, gran, 1 << 20, 0));
	for (i = 0; i < EXPIRY_RACE; i++) {
		tick = tq_mono_ns() / gran;
		ASSERT_EQ(0, tq_insert(self->fd, tick + i % 7 * 3, i, &handle[i]));
		if (i % 2 ? !tq_delete(self->fd, handle[i]) :
			    !tq_update(self->fd, handle[i], tick + (1 << 19))) {
			fate[i] = i % 2 ? 'd' : 'm';
			/* Moved 5 s ahead: it is still there to delete. */
			if (fate[i] == 'm')
				ASSERT_EQ(0, tq_delete(self->fd, handle[i]));
			moved += fate[i] == 'm';
		} else {
			ASSERT_EQ(ENOENT, errno);
			fate[i] = 'e';
			expected++;
		}
	}
	expect_events(_metadata, self->fd, fate, handle, EXPIRY_RACE, expected);
	st = tq_stats(self->fd);
	EXPECT_EQ(0, st.queued);
	EXPECT_EQ(0, st.events);
	EXPECT_EQ(expected, st.expired);
	TH_LOG("one by one, %d elements: %d expired first, %d moved, %d deleted",
	       EXPIRY_RACE, expected, moved, EXPIRY_RACE - expected - moved);

	/*
	 * The storm: due a second from now. The deletes start 1 ms before,
	 * to meet the expiry: aimed at it, not synchronised with it, as
	 * the outcome is checked whatever it is.
	 */
	tick = tq_mono_ns() / gran + 100000;
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < EXPIRY_STORM; i++) {
		ops[i].op = TIMEQ_OP_INSERT;
		ops[i].time = tick;
		ops[i].cookie = i;
	}
	ASSERT_EQ(EXPIRY_STORM, tq_batch(self->fd, ops, EXPIRY_STORM));
	for (i = 0; i < EXPIRY_STORM; i++)
		handle[i] = ops[i].handle;
	while (tq_mono_ns() < (tick - 100) * gran)
		;
	memset(fate, 'd', sizeof(fate));
	expected = 0;
	for (i = 0; i < EXPIRY_STORM; i = j + 1) {
		memset(ops, 0, sizeof(ops));
		for (j = i; j < EXPIRY_STORM; j++) {
			ops[j].op = TIMEQ_OP_DELETE;
			ops[j].handle = handle[j];
		}
		ret = tq_batch(self->fd, ops + i, EXPIRY_STORM - i);
		ASSERT_LE(0, ret);
		j = i + ret;
		if (j < EXPIRY_STORM) {
			/* Stopped: that one had expired. */
			ASSERT_EQ(-ENOENT, ops[j].result);
			fate[j] = 'e';
			expected++;
			stopped++;
		}
	}
	expect_events(_metadata, self->fd, fate, handle, EXPIRY_STORM, expected);
	st = tq_stats(self->fd);
	EXPECT_EQ(0, st.queued);
	EXPECT_EQ(0, st.events);
	EXPECT_EQ(EXPIRY_RACE + EXPIRY_STORM, st.inserted);
	TH_LOG("storm of %d: %d expired first, %d deleted", EXPIRY_STORM,
	       expected, EXPIRY_STORM - expected);
}

/*
 * An element expires while its queue looks for the next minimum far
 * ahead, work of many lock holds with the locks dropped between them:
 * here a bucket of thousands of elements sits spread in the queue's
 * focus, and a short bucket before it, filled out of time order, wants
 * the focus. A MIN or a DELETE in that time must find the element queued
 * or expired, never gone between the two: MIN never says ENODATA while
 * elements are queued, a deleted element is never delivered, an expired
 * one is delivered once. A thread polls MIN through each expiry, and
 * deletes the element the moment MIN finds the queue between the two.
 */
#define GAP_LONG	32768
#define GAP_SHORT	17		/* more than the queue walks */
#define GAP_BATCH	4096
#define GAP_ROUNDS	12

struct gap {
	int		fd;
	int		stop;
	__u64		handle;		/* of the element about to expire */
	int		calls;
	int		enodata;
	int		deleted;	/* its DELETE's result; 1 before */
};

static void *gap_thread(void *arg)
{
	struct gap *g = arg;
	struct timeq_element e;

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE)) {
		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		__atomic_add_fetch(&g->calls, 1, __ATOMIC_RELAXED);
		if (!tq_element(g->fd, TIMEQ_MIN, &e) || errno != ENODATA)
			continue;
		__atomic_add_fetch(&g->enodata, 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&g->deleted, __ATOMIC_ACQUIRE) == 1)
			__atomic_store_n(&g->deleted, tq_delete(g->fd, g->handle) ?
					 -errno : 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Insert @n elements of cookie @cookie + i at time @time(i). */
static void gap_fill(struct __test_metadata *_metadata, int fd, int n,
		     __u64 cookie, __u64 base, __u64 stride, __u64 mod)
{
	static struct timeq_op ops[GAP_BATCH];
	int i, j;

	for (j = 0; j < n; j += GAP_BATCH) {
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < GAP_BATCH && j + i < n; i++) {
			ops[i].op = TIMEQ_OP_INSERT;
			ops[i].time = base + (__u64)(j + i) * stride % mod;
			ops[i].cookie = cookie + j + i;
		}
		ASSERT_EQ(i, tq_batch(fd, ops, i));
	}
}

TEST_F_TIMEOUT(dev, monotonic_expiry_meets_far_work, SLOW_TIMEOUT)
{
	const __u64 gran = 1000000;	/* 1 ms; buckets of 1024 ticks */
	__u64 now, far, mid, tick, handle, spare, h[GAP_SHORT];
	int round, i, deleted = 0, expired = 0, calls = 0;
	struct timeq_event ev;
	struct pollfd pfd;
	pthread_t thread;
	struct gap g;

	memset(&g, 0, sizeof(g));
	g.fd = self->fd;
	ASSERT_EQ(0, fcntl(g.fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, tq_configure_mono(g.fd, gran, 1 << 20, 0));
	/*
	 * The long bucket, about 13 minutes ahead, out of time order, and
	 * the short one at half that: neither comes due before the test's
	 * timeout, however slow the host.
	 */
	now = tq_mono_ns() / gran;
	far = ((now >> 10) + 768) << 10;
	mid = ((now >> 10) + 384) << 10;
	gap_fill(_metadata, g.fd, GAP_LONG, 1000, far, 617, 1024);
	g.deleted = 0;
	ASSERT_EQ(0, pthread_create(&thread, NULL, gap_thread, &g));
	for (round = 0; round < GAP_ROUNDS; round++) {
		/* An element before it, deleted: the long bucket is spread. */
		ASSERT_EQ(0, tq_insert(g.fd, mid - 1024, 999, &spare));
		ASSERT_EQ(0, tq_delete(g.fd, spare));
		/* The short bucket before it, backwards: it wants the focus. */
		for (i = 0; i < GAP_SHORT; i++)
			ASSERT_EQ(0, tq_insert(g.fd, mid + GAP_SHORT - i, 1 + i,
					       &h[i]));
		tick = tq_mono_ns() / gran;
		ASSERT_EQ(0, tq_insert(g.fd, tick + 20, 0, &handle));
		g.handle = handle;
		__atomic_store_n(&g.deleted, 1, __ATOMIC_RELEASE);
		/* Until the element is an event, or the thread deleted it. */
		pfd.fd = g.fd;
		pfd.events = POLLIN;
		for (i = 0; i < 600 && __atomic_load_n(&g.deleted,
						       __ATOMIC_ACQUIRE) == 1; i++)
			if (poll(&pfd, 1, 100) == 1)
				break;
		/* An insert waits for the expiry that runs to be done. */
		ASSERT_EQ(0, tq_insert(g.fd, far, 0, &spare));
		ASSERT_EQ(0, tq_delete(g.fd, spare));
		if (__atomic_load_n(&g.deleted, __ATOMIC_ACQUIRE) == 0) {
			deleted++;
		} else {
			ASSERT_EQ(sizeof(ev), read(g.fd, &ev, sizeof(ev)));
			EXPECT_EQ(0, ev.cookie);
			EXPECT_EQ(handle, ev.handle);
			EXPECT_EQ(-1, tq_delete(g.fd, handle));
			EXPECT_EQ(ENOENT, errno);
			expired++;
		}
		EXPECT_EQ(-1, read(g.fd, &ev, sizeof(ev)))
			TH_LOG("round %d: an event for element %llu", round,
			       (unsigned long long)ev.cookie);
		EXPECT_EQ(EAGAIN, errno);
		for (i = 0; i < GAP_SHORT; i++)
			ASSERT_EQ(0, tq_delete(g.fd, h[i]));
		/* One more out of order: spread again next round. */
		ASSERT_EQ(0, tq_insert(g.fd, far + round % 1000, 2000 + round,
				       &spare));
	}
	__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	calls = g.calls;
	EXPECT_EQ(0, g.enodata)
		TH_LOG("MIN said ENODATA %d times of %d", g.enodata, g.calls);
	TH_LOG("%d rounds: %d deleted in the expiry, %d expired; %d MIN calls",
	       GAP_ROUNDS, deleted, expired, calls);
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
	ASSERT_EQ(0, tq_configure_mono(self->fd, gran, 1 << 24, 0));
	tick = tq_mono_ns() / gran;
	/* A millisecond apart, from 10 ms after the inserts began. */
	for (i = 0; i < SNAPSHOT_ELEMS; i++)
		ASSERT_EQ(0, tq_insert(self->fd, tick + 10000 + 1000 * i, i, NULL));
	do {
		st = tq_stats(self->fd);
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

/* --- ENOMEM at every allocation, through fail-nth --- */

#define FAILSLAB	"/sys/kernel/debug/failslab/"

struct failslab {
	char	gfp_wait[8];
	char	verbose[8];
};

/*
 * Let failslab fail GFP_KERNEL allocations, quietly, for
 * /proc/thread-self/fail-nth; -1 if this kernel cannot.
 */
static int failslab_on(struct failslab *saved)
{
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    tq_read_file(FAILSLAB "ignore-gfp-wait", saved->gfp_wait,
			 sizeof(saved->gfp_wait)) ||
	    tq_read_file(FAILSLAB "verbose", saved->verbose,
			 sizeof(saved->verbose)))
		return -1;
	if (tq_write_file(FAILSLAB "ignore-gfp-wait", "N") ||
	    tq_write_file(FAILSLAB "verbose", "0"))
		return -1;
	return 0;
}

static void failslab_off(struct failslab *saved)
{
	tq_write_file(FAILSLAB "ignore-gfp-wait", saved->gfp_wait);
	tq_write_file(FAILSLAB "verbose", saved->verbose);
}

/* TIMEQ_CONFIGURE with each of its allocations failing in turn. */
TEST(enomem_configure_changes_nothing)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MONOTONIC,
		.granularity = 1000, .horizon = 1 << 20,
	};
	struct failslab saved;
	int nth, ret, injected, err, fd, failed = 0;

	if (failslab_on(&saved))
		SKIP(return, "no failslab or fail-nth in this kernel");
	for (nth = 1; nth < 100; nth++) {
		fd = open(TQ_DEV, O_RDWR);
		ASSERT_GE(fd, 0);
		ret = tq_ioctl_nth(fd, TIMEQ_CONFIGURE, &c, nth, &injected, &err);
		ASSERT_NE(-2, ret);
		if (ret) {
			EXPECT_EQ(ENOMEM, err) TH_LOG("allocation %d", nth);
			EXPECT_EQ(0, tq_stats(fd).configured);
			EXPECT_EQ(-1, tq_insert(fd, 1, 0, NULL));
			EXPECT_EQ(EBADFD, errno);
			failed++;
		}
		/* Whatever happened, the file can still be configured. */
		if (ret)
			EXPECT_EQ(0, ioctl(fd, TIMEQ_CONFIGURE, &c));
		EXPECT_EQ(0, tq_insert(fd, 0, 0, NULL));
		close(fd);
		if (!ret && !injected)
			break;
	}
	failslab_off(&saved);
	EXPECT_LT(nth, 100);
	EXPECT_LT(0, failed);
	TH_LOG("%d allocation points, %d failed with ENOMEM", nth - 1, failed);
}

/* TIMEQ_INSERT, and a batch of two inserts, the same way. */
TEST_F(dev, enomem_insert_changes_nothing)
{
	struct timeq_insert in = { .size = sizeof(in), .time = 5, .cookie = 50 };
	struct timeq_op ops[2];
	struct timeq_batch b = {
		.size = sizeof(b), .count = 2, .ops = (uintptr_t)ops,
		.entry_len = sizeof(ops[0]),
	};
	struct failslab saved;
	int nth, ret, injected, err, failed = 0, k;
	struct timeq_element e;
	struct timeq_stats st;
	__u64 h;

	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, tq_insert(self->fd, 7, 70, &h));
	if (failslab_on(&saved))
		SKIP(return, "no failslab or fail-nth in this kernel");
	for (nth = 1; nth < 100; nth++) {
		in.handle = 0;
		ret = tq_ioctl_nth(self->fd, TIMEQ_INSERT, &in, nth, &injected, &err);
		ASSERT_NE(-2, ret);
		st = tq_stats(self->fd);
		if (ret) {
			EXPECT_EQ(ENOMEM, err);
			EXPECT_EQ(1, st.queued);
			failed++;
		} else {
			EXPECT_EQ(2, st.queued);
			EXPECT_EQ(0, tq_delete(self->fd, in.handle));
		}
		if (!ret && !injected)
			break;
	}
	EXPECT_LT(nth, 100);
	EXPECT_LT(0, failed);
	for (nth = 1; nth < 100; nth++) {
		memset(ops, 0, sizeof(ops));
		for (k = 0; k < 2; k++) {
			ops[k].op = TIMEQ_OP_INSERT;
			ops[k].time = 8 + k;
		}
		ret = tq_ioctl_nth(self->fd, TIMEQ_BATCH, &b, nth, &injected, &err);
		ASSERT_LE(0, ret) TH_LOG("batch: %s", strerror(err));
		st = tq_stats(self->fd);
		EXPECT_EQ(1 + ret, st.queued);
		for (k = 0; k < ret; k++)
			EXPECT_EQ(0, tq_delete(self->fd, ops[k].handle));
		if (ret < 2)
			EXPECT_EQ(-ENOMEM, ops[ret].result);
		if (ret == 2 && !injected)
			break;
	}
	failslab_off(&saved);
	EXPECT_LT(nth, 100);
	ASSERT_EQ(0, tq_element(self->fd, TIMEQ_MIN, &e));
	EXPECT_EQ(h, e.handle);
	EXPECT_EQ(1, tq_stats(self->fd).queued);
	EXPECT_EQ(0, tq_insert(self->fd, 5, 50, NULL));
}

/* --- per-user limits, as uid 65534 --- */

#define NOBODY	65534

FIXTURE(limits) {
	char	files[32];
	char	elements[32];
	int	saved;
};

FIXTURE_SETUP(limits)
{
	int fd = open(TQ_DEV, O_RDWR);

	ASSERT_GE(fd, 0);
	close(fd);
	if (geteuid() != 0)
		SKIP(return, "needs root, to set the limits and become uid %d",
		     NOBODY);
	ASSERT_EQ(0, tq_read_file(TQ_PARAM "max_user_files", self->files,
				  sizeof(self->files)));
	ASSERT_EQ(0, tq_read_file(TQ_PARAM "max_user_elements", self->elements,
				  sizeof(self->elements)));
	self->saved = 1;
}

FIXTURE_TEARDOWN(limits)
{
	if (self->saved) {
		tq_write_file(TQ_PARAM "max_user_files", self->files);
		tq_write_file(TQ_PARAM "max_user_elements", self->elements);
	}
}

/* In a child that is uid 65534: the line of the first check that fails. */
#define CHILD_CHECK(cond) do {						\
		if (!(cond)) {						\
			fprintf(stderr, "uid %d, line %d: %s (%s)\n",	\
				NOBODY, __LINE__, #cond, strerror(errno)); \
			_exit(1);					\
		}							\
	} while (0)

static void become_nobody(void)
{
	CHILD_CHECK(setgid(NOBODY) == 0);
	CHILD_CHECK(setuid(NOBODY) == 0);
}

/* Wait for a child; its exit status. */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* uid 65534 configures up to max_user_files files; root is not counted. */
TEST_F(limits, files_per_user)
{
	int go[2], ready[2], fd, mine;
	char c;
	pid_t pid;

	ASSERT_EQ(0, tq_write_file(TQ_PARAM "max_user_files", "3"));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int f[5], i;

		become_nobody();
		for (i = 0; i < 5; i++)
			CHILD_CHECK((f[i] = open(TQ_DEV, O_RDWR)) >= 0);
		for (i = 0; i < 3; i++)
			CHILD_CHECK(!tq_configure_manual(f[i], 0, 100, 0));
		CHILD_CHECK(tq_configure_manual(f[3], 0, 100, 0) == -1 &&
			    errno == EMFILE);
		CHILD_CHECK(tq_stats(f[3]).configured == 0);
		/* Bad input is refused as such, at the limit too. */
		CHILD_CHECK(tq_configure_mono(f[3], 0, 100, 0) == -1 &&
			    errno == EINVAL);
		CHILD_CHECK(tq_configure_mono(f[3], 1ULL << 62, 2, 0) == -1 &&
			    errno == EINVAL);
		/* Unconfigured files are not counted, and still work. */
		CHILD_CHECK(tq_stats(f[4]).size == sizeof(struct timeq_stats));
		close(f[0]);
		CHILD_CHECK(!tq_configure_manual(f[3], 0, 100, 0));
		CHILD_CHECK(tq_configure_manual(f[4], 0, 100, 0) == -1 &&
			    errno == EMFILE);
		/* At the limit: root configures a file meanwhile. */
		CHILD_CHECK(write(ready[1], "r", 1) == 1);
		CHILD_CHECK(read(go[0], &c, 1) == 1);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	fd = open(TQ_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, tq_configure_manual(fd, 0, 100, 0));
	close(fd);
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, reap(pid));
	/* Its files closed with it: uid 65534 has all three again. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int i;

		become_nobody();
		for (i = 0; i < 3; i++) {
			CHILD_CHECK((mine = open(TQ_DEV, O_RDWR)) >= 0);
			CHILD_CHECK(!tq_configure_manual(mine, 0, 100, 0));
		}
		CHILD_CHECK((mine = open(TQ_DEV, O_RDWR)) >= 0);
		CHILD_CHECK(tq_configure_manual(mine, 0, 100, 0) == -1 &&
			    errno == EMFILE);
		_exit(0);
	}
	EXPECT_EQ(0, reap(pid));
}

/* uid 65534 holds up to max_user_elements over all its files. */
TEST_F(limits, elements_per_user)
{
	int go[2], ready[2], fd, i;
	char c;
	pid_t pid;

	ASSERT_EQ(0, tq_write_file(TQ_PARAM "max_user_elements", "10"));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct timeq_op op = { .op = TIMEQ_OP_INSERT, .time = 50 };
		struct timeq_event ev[4];
		int a, b;
		__u64 h = 0;

		become_nobody();
		CHILD_CHECK((a = open(TQ_DEV, O_RDWR | O_NONBLOCK)) >= 0);
		CHILD_CHECK((b = open(TQ_DEV, O_RDWR)) >= 0);
		CHILD_CHECK(!tq_configure_manual(a, 0, 100, 100));
		CHILD_CHECK(!tq_configure_manual(b, 0, 100, 100));
		for (i = 0; i < 6; i++)
			CHILD_CHECK(!tq_insert(a, 10 + i, i, i ? NULL : &h));
		for (i = 0; i < 4; i++)
			CHILD_CHECK(!tq_insert(b, 10 + i, i, NULL));
		CHILD_CHECK(tq_insert(a, 20, 0, NULL) == -1 && errno == ENOSPC);
		CHILD_CHECK(tq_insert(b, 20, 0, NULL) == -1 && errno == ENOSPC);
		CHILD_CHECK(tq_batch(b, &op, 1) == 0 && op.result == -ENOSPC);
		CHILD_CHECK(tq_stats(a).queued == 6 && tq_stats(b).queued == 4);
		/* A delete gives one back, to any of its files. */
		CHILD_CHECK(!tq_delete(a, h));
		CHILD_CHECK(!tq_insert(b, 20, 0, NULL));
		CHILD_CHECK(tq_insert(b, 20, 0, NULL) == -1 && errno == ENOSPC);
		/* Unread events still count; read ones do not. */
		CHILD_CHECK(tq_advance(a, 13) == 2);
		CHILD_CHECK(tq_insert(a, 20, 0, NULL) == -1 && errno == ENOSPC);
		CHILD_CHECK(read(a, ev, sizeof(ev)) == 2 * sizeof(ev[0]));
		CHILD_CHECK(!tq_insert(a, 20, 0, NULL));
		CHILD_CHECK(!tq_insert(a, 20, 0, NULL));
		CHILD_CHECK(tq_insert(a, 20, 0, NULL) == -1 && errno == ENOSPC);
		/* Closing a file gives back all of its elements. */
		close(a);
		for (i = 0; i < 5; i++)
			CHILD_CHECK(!tq_insert(b, 30, 0, NULL));
		CHILD_CHECK(tq_insert(b, 30, 0, NULL) == -1 && errno == ENOSPC);
		CHILD_CHECK(tq_stats(b).queued == 10);
		CHILD_CHECK(write(ready[1], "r", 1) == 1);
		CHILD_CHECK(read(go[0], &c, 1) == 1);
		_exit(0);
	}
	/* While uid 65534 is at its limit, root is not. */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	fd = open(TQ_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tq_configure_manual(fd, 0, 100, 100));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(0, tq_insert(fd, 10, 0, NULL));
	close(fd);
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, reap(pid));
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

		st = tq_stats(w->fd);
		t = st.now + rand_r(&w->seed) % 500;
		k = rand_r(&w->seed) % 16;
		if (!m->live) {
			/* Insert; a clock moved on by thread 0 may refuse t. */
			__u64 cookie = (__u64)w->id << 32 | i;

			if (!tq_insert(w->fd, t, cookie, &m->handle)) {
				m->time = t;
				m->cookie = cookie;
				m->live = 1;
			} else if (errno != ERANGE) {
				w->failed = errno;
			}
		} else if (k < 6) {
			if (!tq_update(w->fd, m->handle, t))
				m->time = t;
			else if (errno != ENOENT && errno != ERANGE)
				w->failed = errno;
		} else if (k < 10) {
			if (!tq_delete(w->fd, m->handle))
				m->live = 0;
			else if (errno != ENOENT)
				w->failed = errno;
			/* ENOENT: it expired, and its event will say so. */
		} else if (k == 10 && w->id == 0 && i < THREAD_OPS * 9 / 10) {
			/* The clock stops for the last tenth: some stay queued. */
			if (tq_advance(w->fd, st.now + rand_r(&w->seed) % 50) < 0)
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
	__u64 found = 0, want = 0, last = 0, events = 0, t0 = tq_mono_ns();
	int i, at;

	memset(w, 0, sizeof(w));
	memset(seen, 0, sizeof(seen));
	ASSERT_EQ(0, tq_configure_manual(self->fd, 0, 1000, 0));
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
	while (!tq_element(self->fd, TIMEQ_DELETE_MIN, &e)) {
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
	       (unsigned long long)(tq_mono_ns() - t0) / 1000000);
}

/* --- debugfs --- */

#define DEBUGFS		"/sys/kernel/debug/timeq/"

/* The whole of a small text file, or -1. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	if (n < 0)
		return -1;
	buf[got] = 0;
	return 0;
}

/* The value of line "@name value" of @text, or -1. */
static long long text_field(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/*
 * Every line is "name value": a lower-case name, and a decimal number or
 * a lower-case word, so nothing in it is an address or anyone's data.
 */
static int numbers_only(const char *text)
{
	const char *p = text;
	size_t n;

	while (*p) {
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (!n || p[n] != ' ')
			return 0;
		p += n + 1;
		n = strspn(p, "0123456789");
		if (!n)
			n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		if (!n || n > 20 || p[n] != '\n')
			return 0;
		p += n + 1;
	}
	return 1;
}

/*
 * Root reads a file's queue in debugfs, its internals and the figures
 * TIMEQ_STATS gives its owner too, in files of numbers only, mode 0400:
 * uid 65534 reads none.
 * The file goes when the queue does.
 */
TEST(debugfs_shows_counts_only)
{
	char path[320], text[8192], found[320] = "";
	struct timeq_stats st;
	struct dirent *de;
	struct stat sb;
	int fd, i, matches = 0;
	pid_t pid;
	DIR *dir;

	if (geteuid() != 0)
		SKIP(return, "needs root to read debugfs");
	dir = opendir(DEBUGFS "queues");
	if (!dir)
		SKIP(return, "no " DEBUGFS "queues: debugfs not mounted");
	fd = open(TQ_DEV, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, tq_configure_manual(fd, 0, 1 << 12, 0));
	st = tq_stats(fd);
	ASSERT_NE(0, st.delta);
	/*
	 * The current bucket, the next one and a far one: 23 elements, which
	 * no other test's queue of this horizon holds.
	 */
	for (i = 0; i < 11; i++)
		ASSERT_EQ(0, tq_insert(fd, i, i, NULL));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, tq_insert(fd, st.delta + i, i, NULL));
	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, tq_insert(fd, 8 * st.delta + i, i, NULL));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DEBUGFS "queues/%s", de->d_name);
		ASSERT_EQ(0, stat(path, &sb));
		EXPECT_EQ(S_IFREG | 0400, sb.st_mode) TH_LOG("%s", path);
		ASSERT_EQ(0, read_text(path, text, sizeof(text)));
		EXPECT_TRUE(numbers_only(text)) TH_LOG("%s:\n%s", path, text);
		if (text_field(text, "horizon") != 1 << 12 ||
		    text_field(text, "elements") != 23)
			continue;
		matches++;
		snprintf(found, sizeof(found), "%s", path);
	}
	closedir(dir);
	ASSERT_EQ(1, matches);
	/* The internals, which TIMEQ_STATS leaves to debugfs. */
	ASSERT_EQ(0, read_text(found, text, sizeof(text)));
	EXPECT_EQ(11, text_field(text, "head"));
	EXPECT_EQ(5, text_field(text, "head2"));
	EXPECT_EQ(7, text_field(text, "focus") + text_field(text, "calendar"));
	EXPECT_EQ(0, text_field(text, "bucket"));
	/* One expiry takes the two near buckets; the clock moves on. */
	ASSERT_EQ(16, tq_advance(fd, 2 * st.delta + 1));
	st = tq_stats(fd);
	ASSERT_EQ(0, read_text(found, text, sizeof(text)));
	EXPECT_EQ(7, text_field(text, "elements"));
	EXPECT_EQ(2, text_field(text, "bucket"));
	EXPECT_EQ(16, text_field(text, "expired"));
	EXPECT_LT(0, text_field(text, "visits"));
	EXPECT_LT(0, text_field(text, "max_visits"));
	EXPECT_LE(text_field(text, "max_visits"), text_field(text, "visits"));
	/* A file never takes the fast path. */
	EXPECT_EQ(0, text_field(text, "fast_applied"));
	EXPECT_EQ(0, text_field(text, "fast_deferred"));
	EXPECT_EQ(0, text_field(text, "fast_contended"));
	EXPECT_EQ(0, text_field(text, "fast_refused"));
	EXPECT_EQ(0, text_field(text, "handoffs"));
	EXPECT_EQ(0, text_field(text, "drained"));
	/* And the figures both show agree. */
	EXPECT_EQ(st.now, text_field(text, "now"));
	EXPECT_EQ(st.delta, text_field(text, "delta"));
	EXPECT_EQ(st.buckets, text_field(text, "buckets"));
	EXPECT_EQ(2, st.now / st.delta);
	EXPECT_EQ(1, st.expiry_runs);
	EXPECT_EQ(st.expiry_runs, text_field(text, "expiry_runs"));
	ASSERT_EQ(0, read_text(DEBUGFS "stats", text, sizeof(text)));
	EXPECT_TRUE(numbers_only(text)) TH_LOG("%s", text);
	EXPECT_LE(1, text_field(text, "live"));
	EXPECT_LE(text_field(text, "live") + text_field(text, "destroyed"),
		  text_field(text, "created"));
	EXPECT_LE(7, text_field(text, "elements"));
	ASSERT_EQ(0, stat(DEBUGFS "stats", &sb));
	EXPECT_EQ(S_IFREG | 0400, sb.st_mode);
	/* Another user reads neither file, whatever the mount allows. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		become_nobody();
		CHILD_CHECK(open(DEBUGFS "stats", O_RDONLY) < 0 &&
			    errno == EACCES);
		CHILD_CHECK(!found[0] || (open(found, O_RDONLY) < 0 &&
					  errno == EACCES));
		_exit(0);
	}
	EXPECT_EQ(0, reap(pid));
	close(fd);
	if (found[0])
		EXPECT_NE(0, stat(found, &sb)) TH_LOG("%s outlived its queue", found);
}

TEST(close_with_events_unread)
{
	int fd = open(TQ_DEV, O_RDWR), i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, tq_configure_manual(fd, 0, 1000, 0));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, tq_insert(fd, i, i, NULL));
	ASSERT_EQ(50, tq_advance(fd, 50));
	EXPECT_EQ(50, tq_stats(fd).events);
	EXPECT_EQ(50, tq_stats(fd).queued);
	/* kmemleak, at the end of the run, sees whether close freed them. */
	EXPECT_EQ(0, close(fd));
}

/* The figure @name of /proc/lockdep_stats, or -1 without lockdep. */
static long long lockdep_stat(const char *name)
{
	int fd = open("/proc/lockdep_stats", O_RDONLY | O_CLOEXEC);
	char buf[8192], *p;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, name);
	return p ? strtoll(p + strlen(name), NULL, 10) : -1;
}

#define CLASS_FILES	64

/*
 * With lockdep, monotonic files take no lock class each: their expiry
 * mutexes, which TIMEQ_MIN takes, are of one class, so that a user's
 * files cannot use up lockdep's classes.
 */
TEST(lockdep_one_class_for_files)
{
	struct timeq_element e = { .size = sizeof(e) };
	long long before, after;
	int fd[CLASS_FILES], i;

	/* Once lockdep has turned itself off, it counts nothing. */
	if (lockdep_stat("debug_locks:") != 1)
		SKIP(return, "no lockdep, or turned off");
	before = lockdep_stat("lock-classes:");
	for (i = 0; i < CLASS_FILES; i++) {
		fd[i] = open(TQ_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd[i]);
		ASSERT_EQ(0, tq_configure_mono(fd[i], 1000000, 1000, 0));
		EXPECT_EQ(-1, tq_element(fd[i], TIMEQ_MIN, &e));
		EXPECT_EQ(ENODATA, errno);
	}
	after = lockdep_stat("lock-classes:");
	for (i = 0; i < CLASS_FILES; i++)
		close(fd[i]);
	EXPECT_GT(CLASS_FILES / 2, after - before)
		TH_LOG("%d files: lock classes %lld, then %lld", CLASS_FILES,
		       before, after);
}

TEST_HARNESS_MAIN
