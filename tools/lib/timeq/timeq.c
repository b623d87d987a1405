// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtimeq: each function fills one structure of the ABI, with its size,
 * makes one system call, and turns a failure into a negative errno. The
 * structures the caller owns come with their sizes (the header's inline
 * functions pass them), checked by caller_size() before anything is
 * written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "timeq.h"

#define TIMEQ_DEV	"/dev/timeq"
/* The largest size of a structure the kernel takes (uapi, "Structures"). */
#define ABI_SIZE_MAX	4096

/* A system call's result: itself, or the negative errno it failed with. */
static long sys_result(long ret)
{
	return ret < 0 ? -errno : ret;
}

/*
 * A size the caller gives for one of its structures, whose first version
 * has @ver0 bytes: 0 if the kernel may take it, else the negative errno
 * the kernel would give (the uapi header's "Structures").
 */
static int caller_size(size_t size, size_t ver0)
{
	if (size > ABI_SIZE_MAX)
		return -E2BIG;
	return size < ver0 ? -EINVAL : 0;
}

int timeqfd_open(int flags)
{
	return sys_result(open(TIMEQ_DEV, O_RDWR | O_CLOEXEC | flags));
}

static int configure(int fd, uint32_t clock, uint64_t granularity,
		     uint64_t start, uint64_t horizon, uint32_t max_elements,
		     size_t event_size)
{
	struct timeq_configure c;
	int ret = caller_size(event_size, TIMEQ_EVENT_SIZE_VER0);

	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.clock = clock;
	c.granularity = granularity;
	c.start = start;
	c.horizon = horizon;
	c.max_elements = max_elements;
	c.event_size = event_size;
	return sys_result(ioctl(fd, TIMEQ_CONFIGURE, &c));
}

int timeqfd_configure_manual_sized(int fd, uint64_t start, uint64_t horizon,
				   uint32_t max_elements, size_t event_size)
{
	return configure(fd, TIMEQ_CLOCK_MANUAL, 0, start, horizon,
			 max_elements, event_size);
}

int timeqfd_configure_monotonic_sized(int fd, uint64_t granularity,
				      uint64_t horizon, uint32_t max_elements,
				      size_t event_size)
{
	return configure(fd, TIMEQ_CLOCK_MONOTONIC, granularity, 0, horizon,
			 max_elements, event_size);
}

int timeqfd_insert(int fd, uint64_t time, uint64_t cookie, uint64_t *handle)
{
	struct timeq_insert in;
	int ret;

	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	in.time = time;
	in.cookie = cookie;
	ret = sys_result(ioctl(fd, TIMEQ_INSERT, &in));
	if (!ret && handle)
		*handle = in.handle;
	return ret;
}

int timeqfd_delete(int fd, uint64_t handle)
{
	struct timeq_delete del;

	memset(&del, 0, sizeof(del));
	del.size = sizeof(del);
	del.handle = handle;
	return sys_result(ioctl(fd, TIMEQ_DELETE, &del));
}

int timeqfd_update(int fd, uint64_t handle, uint64_t time)
{
	struct timeq_update up;

	memset(&up, 0, sizeof(up));
	up.size = sizeof(up);
	up.handle = handle;
	up.time = time;
	return sys_result(ioctl(fd, TIMEQ_UPDATE, &up));
}

static int element(int fd, unsigned long cmd, struct timeq_element *e,
		   size_t size)
{
	int ret = caller_size(size, TIMEQ_ELEMENT_SIZE_VER0);

	if (ret)
		return ret;
	memset(e, 0, size);
	e->size = size;
	return sys_result(ioctl(fd, cmd, e));
}

int timeqfd_min_sized(int fd, struct timeq_element *min, size_t size)
{
	return element(fd, TIMEQ_MIN, min, size);
}

int timeqfd_delete_min_sized(int fd, struct timeq_element *min, size_t size)
{
	return element(fd, TIMEQ_DELETE_MIN, min, size);
}

long timeqfd_advance(int fd, uint64_t time)
{
	struct timeq_advance adv;

	memset(&adv, 0, sizeof(adv));
	adv.size = sizeof(adv);
	adv.time = time;
	return sys_result(ioctl(fd, TIMEQ_ADVANCE, &adv));
}

int timeqfd_stats_sized(int fd, struct timeq_stats *stats, size_t size)
{
	int ret = caller_size(size, TIMEQ_STATS_SIZE_VER0);

	if (ret)
		return ret;
	memset(stats, 0, size);
	stats->size = size;
	return sys_result(ioctl(fd, TIMEQ_STATS, stats));
}

ssize_t timeqfd_read_sized(int fd, struct timeq_event *events, size_t n,
			   size_t size)
{
	ssize_t ret = caller_size(size, TIMEQ_EVENT_SIZE_VER0);

	if (ret)
		return ret;
	/* The kernel gives at most 16 a call; a length must fit ssize_t. */
	if (n > SSIZE_MAX / size)
		n = SSIZE_MAX / size;
	ret = read(fd, events, n * size);
	return ret < 0 ? -errno : ret / (ssize_t)size;
}

/* An operation's size, as the kernel takes it: 0 or a negative errno. */
static int op_size(size_t size)
{
	int ret = caller_size(size, TIMEQ_OP_SIZE_VER0);

	return ret ? ret : size % 8 ? -EINVAL : 0;
}

int timeqfd_ops_init_sized(struct timeqfd_ops *b, struct timeq_op *ops,
			   uint32_t max, size_t size)
{
	int ret = op_size(size);

	if (ret)
		return ret;
	/* An index is returned as an int. */
	if (max > INT_MAX)
		return -EINVAL;
	b->ops = ops;
	b->count = 0;
	b->max = max;
	b->entry_len = size;
	return 0;
}

/* Operation @i of @b, whose operations lie @b->entry_len bytes apart. */
static struct timeq_op *ops_at(const struct timeqfd_ops *b, uint32_t i)
{
	return (struct timeq_op *)((char *)b->ops + (size_t)i * b->entry_len);
}

/*
 * Whether @b's entry_len and max are ones timeqfd_ops_init_sized() takes,
 * and its count within its max.
 */
static int ops_ok(const struct timeqfd_ops *b)
{
	return !op_size(b->entry_len) && b->max <= INT_MAX &&
	       b->count <= b->max;
}

/*
 * Add an operation of code @code to @b, zeroed, at *@op: its index, or
 * -ENOSPC if @b is full, -EINVAL if ops_ok() refuses @b.
 */
static int ops_add(struct timeqfd_ops *b, uint32_t code, struct timeq_op **op)
{
	int i;

	if (!ops_ok(b))
		return -EINVAL;
	if (b->count >= b->max)
		return -ENOSPC;
	i = b->count++;
	*op = ops_at(b, i);
	memset(*op, 0, b->entry_len);
	(*op)->op = code;
	return i;
}

int timeqfd_ops_insert(struct timeqfd_ops *b, uint64_t time, uint64_t cookie)
{
	struct timeq_op *op;
	int i = ops_add(b, TIMEQ_OP_INSERT, &op);

	if (i >= 0) {
		op->time = time;
		op->cookie = cookie;
	}
	return i;
}

int timeqfd_ops_delete(struct timeqfd_ops *b, uint64_t handle)
{
	struct timeq_op *op;
	int i = ops_add(b, TIMEQ_OP_DELETE, &op);

	if (i >= 0)
		op->handle = handle;
	return i;
}

int timeqfd_ops_update(struct timeqfd_ops *b, uint64_t handle, uint64_t time)
{
	struct timeq_op *op;
	int i = ops_add(b, TIMEQ_OP_UPDATE, &op);

	if (i >= 0) {
		op->handle = handle;
		op->time = time;
	}
	return i;
}

int timeqfd_ops_submit(int fd, struct timeqfd_ops *b)
{
	struct timeq_batch batch;
	uint32_t i;
	int ret;

	if (!ops_ok(b))
		return -EINVAL;
	memset(&batch, 0, sizeof(batch));
	batch.size = sizeof(batch);
	batch.count = b->count;
	batch.ops = (uintptr_t)b->ops;
	batch.entry_len = b->entry_len;
	ret = sys_result(ioctl(fd, TIMEQ_BATCH, &batch));
	if (ret < 0 || (uint32_t)ret >= b->count)
		return ret;
	/* The kernel wrote no result where it could not (uapi header). */
	if (!ops_at(b, ret)->result)
		ops_at(b, ret)->result = -EFAULT;
	for (i = ret + 1; i < b->count; i++)
		ops_at(b, i)->result = -ECANCELED;
	return ret;
}
