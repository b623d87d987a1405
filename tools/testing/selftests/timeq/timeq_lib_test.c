// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libtimeq (tools/lib/timeq) against the module: each function
 * once on its success path and once on an error, which must come back as
 * a negative errno; a batch built with timeqfd_ops_*() that stops at its
 * failing operation; events read on both clocks, and O_NONBLOCK; the
 * structures a caller owns at sizes other than the library's, as from a
 * program built against an older or a newer uapi header.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <timeq/timeq.h>

#include "kselftest_harness.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

FIXTURE(lib) {
	int fd;
};

FIXTURE_SETUP(lib)
{
	self->fd = timeqfd_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("timeqfd_open: %s", strerror(-self->fd));
}

FIXTURE_TEARDOWN(lib)
{
	close(self->fd);
}

TEST_F(lib, open_and_configure)
{
	struct timeq_stats st;

	EXPECT_EQ(O_NONBLOCK, fcntl(self->fd, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(FD_CLOEXEC, fcntl(self->fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(-EBADFD, timeqfd_insert(self->fd, 1, 0, NULL));
	EXPECT_EQ(-EINVAL, timeqfd_configure_manual(self->fd, 0, 0, 0));
	EXPECT_EQ(0, timeqfd_configure_manual(self->fd, 10, 100, 5));
	EXPECT_EQ(-EBUSY, timeqfd_configure_manual(self->fd, 10, 100, 5));
	EXPECT_EQ(0, timeqfd_stats(self->fd, &st));
	EXPECT_EQ(sizeof(st), st.filled);
	EXPECT_EQ(1, st.configured);
	EXPECT_EQ(10, st.now);
	EXPECT_EQ(100, st.horizon);
	EXPECT_EQ(5, st.max_elements);
	EXPECT_EQ(-EBADF, timeqfd_stats(-1, &st));
}

TEST_F(lib, insert_min_update_delete)
{
	struct timeq_element e;
	struct timeq_event ev;
	uint64_t a, b;

	ASSERT_EQ(0, timeqfd_configure_manual(self->fd, 0, 1000, 0));
	EXPECT_EQ(-ENODATA, timeqfd_min(self->fd, &e));
	ASSERT_EQ(0, timeqfd_insert(self->fd, 50, 500, &a));
	ASSERT_EQ(0, timeqfd_insert(self->fd, 40, 400, &b));
	EXPECT_EQ(0, timeqfd_insert(self->fd, 60, 600, NULL));
	EXPECT_EQ(-ERANGE, timeqfd_insert(self->fd, 1000, 0, NULL));
	ASSERT_EQ(0, timeqfd_min(self->fd, &e));
	EXPECT_EQ(b, e.handle);
	EXPECT_EQ(40, e.time);
	EXPECT_EQ(400, e.cookie);
	EXPECT_EQ(0, timeqfd_update(self->fd, b, 70));
	EXPECT_EQ(-ERANGE, timeqfd_update(self->fd, b, 5000));
	ASSERT_EQ(0, timeqfd_min(self->fd, &e));
	EXPECT_EQ(a, e.handle);
	EXPECT_EQ(0, timeqfd_delete(self->fd, a));
	EXPECT_EQ(-ENOENT, timeqfd_delete(self->fd, a));
	EXPECT_EQ(-ENOENT, timeqfd_update(self->fd, a, 80));
	/* delete-min moves the clock; no event is made. */
	ASSERT_EQ(0, timeqfd_delete_min(self->fd, &e));
	EXPECT_EQ(60, e.time);
	EXPECT_EQ(600, e.cookie);
	ASSERT_EQ(0, timeqfd_delete_min(self->fd, &e));
	EXPECT_EQ(b, e.handle);
	EXPECT_EQ(-ENODATA, timeqfd_delete_min(self->fd, &e));
	EXPECT_EQ(-EAGAIN, timeqfd_read(self->fd, &ev, 1));
	EXPECT_EQ(-EINVAL, timeqfd_read(self->fd, &ev, 0));
}

TEST_F(lib, advance_and_read)
{
	struct timeq_event ev[4];
	struct timeq_stats st;
	int i;

	ASSERT_EQ(0, timeqfd_configure_manual(self->fd, 0, 1000, 0));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, timeqfd_insert(self->fd, 10 * i, i, NULL));
	EXPECT_EQ(-EAGAIN, timeqfd_read(self->fd, ev, 4));
	EXPECT_EQ(5, timeqfd_advance(self->fd, 45));
	EXPECT_EQ(0, timeqfd_advance(self->fd, 45));
	/* Four fit; the fifth waits for the next read. */
	ASSERT_EQ(4, timeqfd_read(self->fd, ev, 4));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(sizeof(ev[i]), ev[i].size);
		EXPECT_EQ(10 * i, ev[i].time);
		EXPECT_EQ(i, ev[i].cookie);
	}
	ASSERT_EQ(1, timeqfd_read(self->fd, ev, 4));
	EXPECT_EQ(4, ev[0].cookie);
	EXPECT_EQ(-EAGAIN, timeqfd_read(self->fd, ev, 4));
	EXPECT_EQ(0, timeqfd_stats(self->fd, &st));
	EXPECT_EQ(45, st.now);
	EXPECT_EQ(1, st.queued);
	EXPECT_EQ(5, st.expired);
	EXPECT_EQ(1, st.expiry_runs);
}

TEST_F(lib, batch)
{
	struct timeq_op ops[4];
	struct timeqfd_ops b;
	uint64_t h;

	ASSERT_EQ(0, timeqfd_configure_manual(self->fd, 0, 1000, 0));
	ASSERT_EQ(0, timeqfd_insert(self->fd, 5, 0, &h));
	timeqfd_ops_init(&b, ops, 4);
	EXPECT_EQ(0, timeqfd_ops_insert(&b, 10, 1));
	EXPECT_EQ(1, timeqfd_ops_update(&b, h, 20));
	EXPECT_EQ(2, timeqfd_ops_delete(&b, h + 1));
	EXPECT_EQ(3, timeqfd_ops_insert(&b, 30, 3));
	EXPECT_EQ(-ENOSPC, timeqfd_ops_insert(&b, 40, 4));
	EXPECT_EQ(4, b.count);
	/* The stale handle stops the batch: two applied, the third says why. */
	EXPECT_EQ(2, timeqfd_ops_submit(self->fd, &b));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_NE(0, ops[0].handle);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(-ECANCELED, ops[3].result);
	EXPECT_EQ(0, ops[3].handle);
	EXPECT_EQ(0, timeqfd_delete(self->fd, ops[0].handle));
	EXPECT_EQ(0, timeqfd_delete(self->fd, h));
	/* A malformed batch applies nothing. */
	timeqfd_ops_init(&b, ops, 4);
	ASSERT_EQ(0, timeqfd_ops_insert(&b, 10, 1));
	ops[0].handle = 1;
	EXPECT_EQ(0, timeqfd_ops_submit(self->fd, &b));
	EXPECT_EQ(-EINVAL, ops[0].result);
	EXPECT_EQ(-EFAULT, timeqfd_ops_submit(self->fd, &(struct timeqfd_ops){
		.ops = (struct timeq_op *)8, .count = 1, .max = 1,
		.entry_len = sizeof(struct timeq_op) }));
}

#define CANARY	0xa5

/* Whether bytes [@from, @to) of @p all hold CANARY. */
static int canary_kept(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from] != CANARY)
			return 0;
	return 1;
}

/* Whether bytes [@from, @to) of @p are all zero. */
static int zeroed(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from])
			return 0;
	return 1;
}

/*
 * The statistics and an element at their first version's size, and at a
 * larger one: written up to the size given, not a byte past it. Sizes the
 * kernel refuses are refused before anything is written.
 */
TEST_F(lib, sizes_of_results)
{
	union {
		struct timeq_stats st;
		struct timeq_element e;
		unsigned char b[sizeof(struct timeq_stats) + 64];
	} u;
	const size_t big = sizeof(struct timeq_element) + 8;

	ASSERT_EQ(0, timeqfd_configure_manual(self->fd, 10, 100, 5));
	memset(&u, CANARY, sizeof(u));
	ASSERT_EQ(0,
		  timeqfd_stats_sized(self->fd, &u.st, TIMEQ_STATS_SIZE_VER0));
	EXPECT_EQ(TIMEQ_STATS_SIZE_VER0, u.st.size);
	EXPECT_EQ(10, u.st.now);
	EXPECT_EQ(100, u.st.horizon);
	EXPECT_TRUE(canary_kept(&u, TIMEQ_STATS_SIZE_VER0, sizeof(u)));
	memset(&u, CANARY, sizeof(u));
	EXPECT_EQ(-EINVAL, timeqfd_stats_sized(self->fd, &u.st,
					       TIMEQ_STATS_SIZE_VER0 - 8));
	EXPECT_EQ(-EINVAL, timeqfd_stats_sized(self->fd, &u.st, 0));
	EXPECT_EQ(-E2BIG, timeqfd_stats_sized(self->fd, &u.st, 4097));
	EXPECT_TRUE(canary_kept(&u, 0, sizeof(u)));

	ASSERT_EQ(0, timeqfd_insert(self->fd, 20, 200, NULL));
	memset(&u, CANARY, sizeof(u));
	ASSERT_EQ(0, timeqfd_min_sized(self->fd, &u.e, big));
	EXPECT_EQ(big, u.e.size);
	EXPECT_EQ(20, u.e.time);
	EXPECT_EQ(200, u.e.cookie);
	EXPECT_TRUE(zeroed(&u, sizeof(u.e), big));
	EXPECT_TRUE(canary_kept(&u, big, sizeof(u)));
	memset(&u, CANARY, sizeof(u));
	EXPECT_EQ(-EINVAL, timeqfd_min_sized(self->fd, &u.e,
					     TIMEQ_ELEMENT_SIZE_VER0 - 8));
	EXPECT_EQ(-EINVAL, timeqfd_delete_min_sized(self->fd, &u.e, 4));
	EXPECT_TRUE(canary_kept(&u, 0, sizeof(u)));
	ASSERT_EQ(0, timeqfd_delete_min_sized(self->fd, &u.e,
					      TIMEQ_ELEMENT_SIZE_VER0));
	EXPECT_EQ(20, u.e.time);
	EXPECT_TRUE(canary_kept(&u, TIMEQ_ELEMENT_SIZE_VER0, sizeof(u)));
}

/*
 * Events and a batch's operations 8 bytes larger than the library's: read
 * and built at that stride, each one's extra bytes zero, nothing written
 * past the last.
 */
TEST_F(lib, sizes_of_arrays)
{
	enum {
		N = 3,
		SIZE = sizeof(struct timeq_event) + 8,
		OSIZE = sizeof(struct timeq_op) + 8
	};
	/* malloc()'s memory takes the type it is used as. */
	char *buf = malloc((N + 1) * SIZE), *obuf = malloc((N + 1) * OSIZE);
	struct timeq_op *ops = (struct timeq_op *)obuf;
	struct timeqfd_ops b;
	const uint32_t code[N] = { TIMEQ_OP_INSERT, TIMEQ_OP_DELETE,
				   TIMEQ_OP_INSERT };
	const int32_t result[N] = { 0, -ENOENT, -ECANCELED };
	struct timeq_event *ev;
	uint64_t stale;
	int i;

	ASSERT_TRUE(buf && obuf);
	/* Refused by the library (0, 4097) and by the kernel (33). */
	EXPECT_EQ(-EINVAL,
		  timeqfd_configure_manual_sized(self->fd, 0, 1000, 0, 0));
	EXPECT_EQ(-E2BIG,
		  timeqfd_configure_manual_sized(self->fd, 0, 1000, 0, 4097));
	EXPECT_EQ(-EINVAL,
		  timeqfd_configure_manual_sized(self->fd, 0, 1000, 0, 33));
	ASSERT_EQ(0,
		  timeqfd_configure_manual_sized(self->fd, 0, 1000, 0, SIZE));
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, timeqfd_insert(self->fd, 10 + i, i, NULL));
	ASSERT_EQ(N, timeqfd_advance(self->fd, 100));
	memset(buf, CANARY, (N + 1) * SIZE);
	ASSERT_EQ(N, timeqfd_read_sized(self->fd, (struct timeq_event *)buf, N,
					SIZE));
	for (i = 0; i < N; i++) {
		ev = (struct timeq_event *)(buf + i * SIZE);
		EXPECT_EQ(sizeof(*ev), ev->size);
		EXPECT_EQ(10 + i, ev->time);
		EXPECT_EQ(i, ev->cookie);
		EXPECT_TRUE(zeroed(ev, sizeof(*ev), SIZE));
	}
	ev = (struct timeq_event *)buf;
	stale = ev->handle;
	EXPECT_TRUE(canary_kept(buf, N * SIZE, (N + 1) * SIZE));
	EXPECT_EQ(-EINVAL, timeqfd_read_sized(self->fd, (struct timeq_event *)buf,
					      N, 16));

	/* A batch made by hand, without its entry_len, is refused. */
	b = (struct timeqfd_ops){ .ops = ops, .max = N };
	EXPECT_EQ(-EINVAL, timeqfd_ops_insert(&b, 200, 7));
	EXPECT_EQ(0, b.count);
	/* The library refuses it: the kernel would say EBADF of fd -1. */
	EXPECT_EQ(-EINVAL, timeqfd_ops_submit(-1, &b));
	b.entry_len = 4104;
	EXPECT_EQ(-EINVAL, timeqfd_ops_submit(-1, &b));
	b.entry_len = OSIZE;
	b.max = 1U << 31;
	EXPECT_EQ(-EINVAL, timeqfd_ops_submit(-1, &b));
	b.max = N;
	b.count = N + 1;
	EXPECT_EQ(-EINVAL, timeqfd_ops_submit(-1, &b));
	EXPECT_EQ(-EINVAL, timeqfd_ops_insert(&b, 200, 7));
	/* Refused sizes leave the batch as it was. */
	b = (struct timeqfd_ops){ .ops = ops, .max = N };
	EXPECT_EQ(-EINVAL, timeqfd_ops_init_sized(&b, ops, N, OSIZE - 4));
	EXPECT_EQ(-EINVAL, timeqfd_ops_init_sized(&b, ops, N, 24));
	EXPECT_EQ(-E2BIG, timeqfd_ops_init_sized(&b, ops, N, 4104));
	EXPECT_EQ(-EINVAL, timeqfd_ops_init_sized(&b, ops, 1U << 31, OSIZE));
	EXPECT_EQ(0, b.entry_len);
	memset(obuf, CANARY, (N + 1) * OSIZE);
	ASSERT_EQ(0, timeqfd_ops_init_sized(&b, ops, N, OSIZE));
	EXPECT_EQ(0, timeqfd_ops_insert(&b, 200, 7));
	/* The first event's element is gone: its handle is stale. */
	EXPECT_EQ(1, timeqfd_ops_delete(&b, stale));
	EXPECT_EQ(2, timeqfd_ops_insert(&b, 300, 8));
	EXPECT_EQ(-ENOSPC, timeqfd_ops_insert(&b, 400, 9));
	ASSERT_EQ(1, timeqfd_ops_submit(self->fd, &b));
	for (i = 0; i < N; i++) {
		struct timeq_op *op = (struct timeq_op *)(obuf + i * OSIZE);

		EXPECT_EQ(code[i], op->op);
		EXPECT_EQ(result[i], op->result);
		EXPECT_TRUE(zeroed(op, sizeof(*op), OSIZE));
	}
	EXPECT_NE(0, ops->handle);
	EXPECT_TRUE(canary_kept(obuf, N * OSIZE, (N + 1) * OSIZE));
	free(obuf);
	free(buf);
}

TEST_F(lib, monotonic)
{
	struct timeq_event ev;
	uint64_t now;
	int fd = timeqfd_open(0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, timeqfd_configure_monotonic(fd, 1000, 1 << 20, 0));
	EXPECT_EQ(-EOPNOTSUPP, timeqfd_advance(fd, 1));
	now = mono_ns() / 1000;
	ASSERT_EQ(0, timeqfd_insert(fd, now + 2000, 7, NULL));
	/* Opened without O_NONBLOCK: the read waits for the event. */
	ASSERT_EQ(1, timeqfd_read(fd, &ev, 1));
	EXPECT_EQ(7, ev.cookie);
	EXPECT_LE(ev.time * 1000, mono_ns());
	close(fd);
}

TEST_HARNESS_MAIN
