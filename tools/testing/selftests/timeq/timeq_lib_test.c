// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libtimeq (tools/lib/timeq) against the module: each function
 * once on its success path and once on an error, which must come back as
 * a negative errno; a batch built with timeqfd_ops_*() that stops at its
 * failing operation; events read on both clocks, and O_NONBLOCK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
		.ops = (struct timeq_op *)8, .count = 1, .max = 1 }));
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
