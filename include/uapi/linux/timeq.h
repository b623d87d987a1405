/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * timeq: the userspace ABI of /dev/timeq. module/dev.c implements it.
 */
#ifndef _UAPI_LINUX_TIMEQ_H
#define _UAPI_LINUX_TIMEQ_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* 0xD7 is free in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define TIMEQ_TYPE	0xD7

/**
 * DOC: the /dev/timeq ABI
 *
 * Each open() of /dev/timeq is its own timer queue, freed on the last
 * close(). TIMEQ_CONFIGURE sets it up, once. Then the other commands add,
 * move and remove elements. An element is a time and a 64-bit cookie of
 * the caller's, named by an opaque handle. When an element expires, it
 * becomes an event that read() returns as a &struct timeq_event.
 *
 * Every command takes a pointer to its structure, whose first __u32 is the
 * size userspace knows. The kernel accepts a smaller size down to the
 * first version of the structure. It accepts a larger one, up to 4096
 * bytes, if the bytes it does not know are zero, so the ABI can grow; a
 * size above 4096 is refused before anything past the size is read.
 * Only __u32 and
 * __aligned_u64 fields are used, with explicit padding, so 32-bit and
 * 64-bit userspace share one layout. Reserved fields must be zero.
 *
 * Errors, for every command:
 *
 *  - ENOTTY: the command number is unknown.
 *  - EFAULT: the structure, or an array it points to, is not readable or
 *    writable.
 *  - EINVAL: the size is below the first version, a reserved field is not
 *    zero, or a field has a value out of its documented range.
 *  - E2BIG: the size is above 4096, or larger than the kernel knows with
 *    the excess bytes not all zero.
 *  - EBADFD: the file is not configured yet (every command but
 *    TIMEQ_CONFIGURE and TIMEQ_STATS).
 *  - EBUSY: TIMEQ_CONFIGURE on a file that is already configured.
 *  - ENOENT: the handle is not that of a queued element of this file: never
 *    issued by it, or stale (deleted, expired or read).
 *  - ERANGE: the time lies outside the window: before the clock (manual
 *    clock only; on the monotonic clock a past time means now), or at or
 *    beyond the clock plus the horizon.
 *  - ENOSPC: the file holds as many elements as its cap allows. Unread
 *    events count, so a reader that falls behind makes inserts fail, and
 *    events are never dropped.
 *  - ENODATA: TIMEQ_MIN or TIMEQ_DELETE_MIN on an empty queue.
 *  - EOPNOTSUPP: a clock or a batch operation the kernel does not know;
 *    TIMEQ_ADVANCE or TIMEQ_DELETE_MIN on a monotonic clock, whose time
 *    only the kernel moves.
 *  - ENOMEM: no memory for a new element.
 *
 * A command that fails changes nothing. TIMEQ_BATCH applies its operations
 * in order and stops at the first that fails: the earlier ones stay
 * applied.
 *
 * read() returns whole events, as many as fit and are ready. With
 * O_NONBLOCK and none ready, it fails with EAGAIN; otherwise it waits.
 * A buffer smaller than one event gives EINVAL. poll() and epoll report
 * EPOLLIN while an event is ready.
 */
enum {
	TIMEQ_CMD_CONFIGURE = 0x80,
	TIMEQ_CMD_INSERT = 0x81,
	TIMEQ_CMD_DELETE = 0x82,
	TIMEQ_CMD_UPDATE = 0x83,
	TIMEQ_CMD_MIN = 0x84,
	TIMEQ_CMD_DELETE_MIN = 0x85,
	TIMEQ_CMD_ADVANCE = 0x86,
	TIMEQ_CMD_STATS = 0x87,
	TIMEQ_CMD_BATCH = 0x88,
};

/* The clocks of TIMEQ_CONFIGURE. */
enum timeq_clockid {
	TIMEQ_CLOCK_MANUAL = 0,
	TIMEQ_CLOCK_MONOTONIC = 1,
};

/**
 * struct timeq_configure - ioctl(TIMEQ_CONFIGURE)
 * @size:	sizeof(struct timeq_configure)
 * @clock:	%TIMEQ_CLOCK_MANUAL (the caller moves the clock with
 *		TIMEQ_ADVANCE and TIMEQ_DELETE_MIN) or %TIMEQ_CLOCK_MONOTONIC
 *		(CLOCK_MONOTONIC, and the kernel expires elements on time)
 * @granularity: monotonic: nanoseconds per tick, at least 1; manual: 0
 * @start:	manual: the initial clock; monotonic: 0
 * @horizon:	times are accepted up to @horizon ticks past the clock; 1 to
 *		the module parameter max_horizon
 * @max_elements: the element cap of this file, queued plus unread; 0 for
 *		the module parameter default_elements, at most max_elements
 * @__reserved:	must be 0
 *
 * Once per file, before any other command but TIMEQ_STATS.
 */
struct timeq_configure {
	__u32 size;
	__u32 clock;
	__aligned_u64 granularity;
	__aligned_u64 start;
	__aligned_u64 horizon;
	__u32 max_elements;
	__u32 __reserved;
};

#define TIMEQ_CONFIGURE	_IO(TIMEQ_TYPE, TIMEQ_CMD_CONFIGURE)

/**
 * struct timeq_insert - ioctl(TIMEQ_INSERT)
 * @size:	sizeof(struct timeq_insert)
 * @__reserved:	must be 0
 * @time:	the element's time, in ticks
 * @cookie:	any value; returned with the element and its event
 * @handle:	out: the new element's handle
 */
struct timeq_insert {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 time;
	__aligned_u64 cookie;
	__aligned_u64 handle;
};

#define TIMEQ_INSERT	_IO(TIMEQ_TYPE, TIMEQ_CMD_INSERT)

/**
 * struct timeq_delete - ioctl(TIMEQ_DELETE)
 * @size:	sizeof(struct timeq_delete)
 * @__reserved:	must be 0
 * @handle:	a queued element; its handle is stale afterwards
 */
struct timeq_delete {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 handle;
};

#define TIMEQ_DELETE	_IO(TIMEQ_TYPE, TIMEQ_CMD_DELETE)

/**
 * struct timeq_update - ioctl(TIMEQ_UPDATE)
 * @size:	sizeof(struct timeq_update)
 * @__reserved:	must be 0
 * @handle:	a queued element; it keeps its handle and cookie
 * @time:	its new time; it goes behind elements already at @time
 */
struct timeq_update {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 handle;
	__aligned_u64 time;
};

#define TIMEQ_UPDATE	_IO(TIMEQ_TYPE, TIMEQ_CMD_UPDATE)

/**
 * struct timeq_element - ioctl(TIMEQ_MIN) and ioctl(TIMEQ_DELETE_MIN)
 * @size:	sizeof(struct timeq_element)
 * @__reserved:	must be 0
 * @handle:	out: the earliest element (first inserted among equal times)
 * @time:	out: its time
 * @cookie:	out: its cookie
 *
 * TIMEQ_MIN leaves the element queued. TIMEQ_DELETE_MIN (manual clock
 * only) removes it, its handle becoming stale, and moves the clock to its
 * time; no event is made.
 */
struct timeq_element {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 handle;
	__aligned_u64 time;
	__aligned_u64 cookie;
};

#define TIMEQ_MIN		_IO(TIMEQ_TYPE, TIMEQ_CMD_MIN)
#define TIMEQ_DELETE_MIN	_IO(TIMEQ_TYPE, TIMEQ_CMD_DELETE_MIN)

/**
 * struct timeq_advance - ioctl(TIMEQ_ADVANCE)
 * @size:	sizeof(struct timeq_advance)
 * @__reserved:	must be 0
 * @time:	expire every element with a time before @time, in order,
 *		then set the clock to @time (if it is later)
 * @expired:	out: how many elements became events
 *
 * Manual clock only. The events always fit: each element already counts
 * against the cap, and its event takes its place.
 */
struct timeq_advance {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 time;
	__aligned_u64 expired;
};

#define TIMEQ_ADVANCE	_IO(TIMEQ_TYPE, TIMEQ_CMD_ADVANCE)

/**
 * struct timeq_stats - ioctl(TIMEQ_STATS)
 * @size:	sizeof(struct timeq_stats)
 * @clock:	out: the configured &enum timeq_clockid
 * @now:	out: the queue's clock, in ticks
 * @horizon:	out: the configured horizon, or 0 if not configured
 * @queued:	out: elements queued
 * @events:	out: events not yet read
 * @max_elements: out: the cap on @queued + @events
 * @configured:	out: 1 once TIMEQ_CONFIGURE succeeded
 * @inserted:	out: elements inserted since configuration
 * @expired:	out: elements that became events since configuration
 *
 * One snapshot: @queued, @events, @inserted and @expired are read
 * together, so every element alive is counted once, in @queued or in
 * @events. On the monotonic clock @now is the clock as the kernel last
 * moved it, which may lag the current tick.
 */
struct timeq_stats {
	__u32 size;
	__u32 clock;
	__aligned_u64 now;
	__aligned_u64 horizon;
	__aligned_u64 queued;
	__aligned_u64 events;
	__u32 max_elements;
	__u32 configured;
	__aligned_u64 inserted;
	__aligned_u64 expired;
};

#define TIMEQ_STATS	_IO(TIMEQ_TYPE, TIMEQ_CMD_STATS)

/* The operations of a batch. */
enum timeq_op_code {
	TIMEQ_OP_INSERT = 1,
	TIMEQ_OP_DELETE = 2,
	TIMEQ_OP_UPDATE = 3,
};

/**
 * struct timeq_op - one operation of a batch
 * @op:		a &enum timeq_op_code
 * @result:	out: 0, or the negative errno this operation failed with
 * @handle:	delete, update: the element; insert: out, the new handle
 * @time:	insert, update: the time
 * @cookie:	insert: the cookie; otherwise must be 0
 */
struct timeq_op {
	__u32 op;
	__s32 result;
	__aligned_u64 handle;
	__aligned_u64 time;
	__aligned_u64 cookie;
};

/**
 * struct timeq_batch - ioctl(TIMEQ_BATCH)
 * @size:	sizeof(struct timeq_batch)
 * @count:	the number of operations at @ops, at most 4096
 * @ops:	a user pointer to an array of &struct timeq_op
 * @done:	out: how many operations succeeded; they are the first @done.
 *		Operation @done failed, with its @result set, unless @done
 *		is @count; later ones were not tried
 * @__reserved:	must be 0
 *
 * The ioctl itself succeeds when the array could be read and written,
 * whether or not every operation did: see @done.
 */
struct timeq_batch {
	__u32 size;
	__u32 count;
	__aligned_u64 ops;
	__u32 done;
	__u32 __reserved;
};

#define TIMEQ_BATCH	_IO(TIMEQ_TYPE, TIMEQ_CMD_BATCH)

/**
 * struct timeq_event - what read() returns for each expired element
 * @handle:	the element's handle, stale from now on
 * @time:	its time
 * @cookie:	its cookie
 */
struct timeq_event {
	__aligned_u64 handle;
	__aligned_u64 time;
	__aligned_u64 cookie;
};

#endif /* _UAPI_LINUX_TIMEQ_H */
