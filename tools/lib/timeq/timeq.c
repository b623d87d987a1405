// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libtimeq: each function fills one structure of the ABI, with its size,
 * makes one system call, and turns a failure into a negative errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "timeq.h"

#define TIMEQ_DEV	"/dev/timeq"

/* A system call's result: itself, or the negative errno it failed with. */
static long sys_result(long ret)
{
	return ret < 0 ? -errno : ret;
}

int timeqfd_open(int flags)
{
	return sys_result(open(TIMEQ_DEV, O_RDWR | O_CLOEXEC | flags));
}

static int configure(int fd, uint32_t clock, uint64_t granularity,
		     uint64_t start, uint64_t horizon, uint32_t max_elements)
{
	struct timeq_configure c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.clock = clock;
	c.granularity = granularity;
	c.start = start;
	c.horizon = horizon;
	c.max_elements = max_elements;
	c.event_size = sizeof(struct timeq_event);
	return sys_result(ioctl(fd, TIMEQ_CONFIGURE, &c));
}

int timeqfd_configure_manual(int fd, uint64_t start, uint64_t horizon,
			     uint32_t max_elements)
{
	return configure(fd, TIMEQ_CLOCK_MANUAL, 0, start, horizon,
			 max_elements);
}

int timeqfd_configure_monotonic(int fd, uint64_t granularity, uint64_t horizon,
				uint32_t max_elements)
{
	return configure(fd, TIMEQ_CLOCK_MONOTONIC, granularity, 0, horizon,
			 max_elements);
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

static int element(int fd, unsigned long cmd, struct timeq_element *e)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	return sys_result(ioctl(fd, cmd, e));
}

int timeqfd_min(int fd, struct timeq_element *min)
{
	return element(fd, TIMEQ_MIN, min);
}

int timeqfd_delete_min(int fd, struct timeq_element *min)
{
	return element(fd, TIMEQ_DELETE_MIN, min);
}

long timeqfd_advance(int fd, uint64_t time)
{
	struct timeq_advance adv;

	memset(&adv, 0, sizeof(adv));
	adv.size = sizeof(adv);
	adv.time = time;
	return sys_result(ioctl(fd, TIMEQ_ADVANCE, &adv));
}

int timeqfd_stats(int fd, struct timeq_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->size = sizeof(*stats);
	return sys_result(ioctl(fd, TIMEQ_STATS, stats));
}

ssize_t timeqfd_read(int fd, struct timeq_event *events, size_t n)
{
	ssize_t ret = read(fd, events, n * sizeof(*events));

	return ret < 0 ? -errno : ret / (ssize_t)sizeof(*events);
}

void timeqfd_ops_init(struct timeqfd_ops *b, struct timeq_op *ops, uint32_t max)
{
	b->ops = ops;
	b->count = 0;
	b->max = max;
}

/* The next free operation of @b, zeroed, or NULL. */
static struct timeq_op *ops_add(struct timeqfd_ops *b, uint32_t code)
{
	struct timeq_op *op;

	if (b->count >= b->max)
		return NULL;
	op = &b->ops[b->count++];
	memset(op, 0, sizeof(*op));
	op->op = code;
	return op;
}

int timeqfd_ops_insert(struct timeqfd_ops *b, uint64_t time, uint64_t cookie)
{
	struct timeq_op *op = ops_add(b, TIMEQ_OP_INSERT);

	if (!op)
		return -ENOSPC;
	op->time = time;
	op->cookie = cookie;
	return op - b->ops;
}

int timeqfd_ops_delete(struct timeqfd_ops *b, uint64_t handle)
{
	struct timeq_op *op = ops_add(b, TIMEQ_OP_DELETE);

	if (!op)
		return -ENOSPC;
	op->handle = handle;
	return op - b->ops;
}

int timeqfd_ops_update(struct timeqfd_ops *b, uint64_t handle, uint64_t time)
{
	struct timeq_op *op = ops_add(b, TIMEQ_OP_UPDATE);

	if (!op)
		return -ENOSPC;
	op->handle = handle;
	op->time = time;
	return op - b->ops;
}

int timeqfd_ops_submit(int fd, struct timeqfd_ops *b)
{
	struct timeq_batch batch;
	uint32_t i;
	int ret;

	memset(&batch, 0, sizeof(batch));
	batch.size = sizeof(batch);
	batch.count = b->count;
	batch.ops = (uintptr_t)b->ops;
	batch.entry_len = sizeof(*b->ops);
	ret = sys_result(ioctl(fd, TIMEQ_BATCH, &batch));
	if (ret < 0 || (uint32_t)ret >= b->count)
		return ret;
	/* The kernel wrote no result where it could not (uapi header). */
	if (!b->ops[ret].result)
		b->ops[ret].result = -EFAULT;
	for (i = ret + 1; i < b->count; i++)
		b->ops[i].result = -ECANCELED;
	return ret;
}
