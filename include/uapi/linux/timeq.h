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
 * Structures. Every command takes a pointer to its structure, whose first
 * __u32 is the size userspace knows. The kernel accepts a smaller size
 * down to the first version of the structure. It accepts a larger one, up
 * to 4096 bytes, if the bytes it does not know are zero, so the ABI can
 * grow; a size above 4096 is refused before anything past the size is
 * read. A structure grows only at its end, and each version has its size
 * in a TIMEQ_*_SIZE_VER<n> constant, which also marks where its fields
 * begin. Only __u32 and __aligned_u64 fields are used, with explicit
 * padding, so 32-bit and 64-bit userspace share one layout. Reserved
 * fields must be zero, and so must fields marked "out", which the kernel
 * writes: a later version may give them a meaning on input. A command
 * without out fields only reads its structure, which may be read-only.
 * The operations of a batch and the events of read() grow the same way,
 * each with a size the caller chooses (&struct timeq_batch.entry_len,
 * &struct timeq_configure.event_size).
 *
 * Handles. A handle names one element of one file. It is refused once the
 * element is gone, and it tells nothing about other files: each file
 * numbers its elements with a generation counter of its own, started at a
 * random value, so a handle of another file is refused too unless it
 * happens to equal one of this file's. A handle is never 0.
 *
 * Results. A command that fails changes nothing, but for TIMEQ_MIN
 * below. A command whose result goes to userspace writes it before it
 * applies the change, so a result that cannot be written (EFAULT) leaves
 * the queue as it was.
 * TIMEQ_ADVANCE and TIMEQ_BATCH return a count as the ioctl's return
 * value instead, which cannot fault. On the monotonic clock the kernel
 * expires due elements at any moment, a failed command included: that is
 * the clock moving, not the command. A TIMEQ_MIN there that fails to
 * write its result (EFAULT) may still have filed elements that
 * TIMEQ_UPDATE moved later at their new times (&struct timeq_element):
 * their places among elements of equal time (&struct timeq_update) are
 * all it changes.
 *
 * Limits. Besides the cap of each file, a user (the effective uid of the
 * task that configures a file, for the life of that file) may have at
 * most max_user_files configured files and max_user_elements elements
 * (queued and unread) over all of them. These and max_horizon,
 * max_elements and default_elements are parameters of the timeq module,
 * in /sys/module/timeq/parameters/.
 *
 * Errors:
 *
 *  - ENOTTY: the command number is unknown.
 *  - EFAULT: the structure cannot be read, or its out fields cannot be
 *    written; a batch's first operation cannot be read or its result
 *    written; read()'s buffer cannot be written.
 *  - EINVAL: the size is below the first version, a reserved or out field
 *    is not zero, or a field has a value out of its documented range;
 *    a read() buffer smaller than one event.
 *  - E2BIG: the size is above 4096, or larger than the kernel knows with
 *    the excess bytes not all zero; the same for
 *    &struct timeq_configure.event_size and &struct timeq_batch.entry_len
 *    (above 4096), and for each operation of a batch.
 *  - EBADFD: the file is not configured yet: every command but
 *    TIMEQ_CONFIGURE and TIMEQ_STATS, and read().
 *  - EBUSY: TIMEQ_CONFIGURE on a file that is already configured.
 *  - EMFILE: TIMEQ_CONFIGURE when the user already has max_user_files
 *    configured files.
 *  - ENOMEM: TIMEQ_CONFIGURE, TIMEQ_INSERT or a batch insert could not
 *    have the memory it needs.
 *  - ENOENT: TIMEQ_DELETE, TIMEQ_UPDATE and their batch operations: the
 *    handle is not that of a queued element of this file: never issued by
 *    it, or stale (deleted, expired or read).
 *  - ERANGE: TIMEQ_INSERT, TIMEQ_UPDATE and their batch operations: the
 *    time lies outside the window [clock, clock + horizon). On the manual
 *    clock, that is a time before the clock or at or beyond the clock plus
 *    the horizon. On the monotonic clock, the command first expires what
 *    is due, which brings the clock to the current tick
 *    (CLOCK_MONOTONIC / granularity); a time before the clock then means
 *    the clock, and only a time at or beyond the clock plus the horizon
 *    is refused.
 *  - ENOSPC: TIMEQ_INSERT and batch inserts: the file holds as many
 *    elements as its cap allows, or the user as many as
 *    max_user_elements allows. Unread events count, so a reader that
 *    falls behind makes inserts fail, and events are never dropped.
 *  - ENODATA: TIMEQ_MIN or TIMEQ_DELETE_MIN on an empty queue.
 *  - EOPNOTSUPP: a clock or a batch operation the kernel does not know;
 *    TIMEQ_ADVANCE or TIMEQ_DELETE_MIN on a monotonic clock, whose time
 *    only the kernel moves.
 *  - EAGAIN: read() with O_NONBLOCK and no event ready.
 *  - EINTR: a read() that waits is interrupted by a signal (or restarted,
 *    as the signal's SA_RESTART says).
 *
 * read() returns whole events of the configured event size, as many as
 * fit and are ready, up to 16 per call, in the order their elements
 * expired: by time, and among equal times in the order they were
 * inserted or last updated, but for a move later on the monotonic clock
 * (&struct timeq_update). With O_NONBLOCK and none ready, it fails
 * with EAGAIN; otherwise it waits. If the buffer faults after
 * some events were written, read() returns those, and only they are
 * consumed. poll() and epoll report EPOLLIN while an event is ready; an
 * event can be ready when poll() looks and be gone when read() does,
 * if TIMEQ_DELETE or TIMEQ_UPDATE took its element back in between
 * (see &struct timeq_delete). On a file not configured yet, where read()
 * fails at once, they report EPOLLERR (and select() the file ready).
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

/* The buckets of &struct timeq_stats.lateness, by powers of two. */
#define TIMEQ_LATENESS_BUCKETS		20

/*
 * The size of the first version of each structure, the least accepted,
 * and of each later version.
 */
#define TIMEQ_CONFIGURE_SIZE_VER0	40	/* struct timeq_configure */
#define TIMEQ_INSERT_SIZE_VER0		32	/* struct timeq_insert */
#define TIMEQ_DELETE_SIZE_VER0		16	/* struct timeq_delete */
#define TIMEQ_UPDATE_SIZE_VER0		24	/* struct timeq_update */
#define TIMEQ_ELEMENT_SIZE_VER0		32	/* struct timeq_element */
#define TIMEQ_ADVANCE_SIZE_VER0		16	/* struct timeq_advance */
#define TIMEQ_STATS_SIZE_VER0		64	/* struct timeq_stats */
#define TIMEQ_STATS_SIZE_VER1		360	/* ... with the queue's figures */
#define TIMEQ_BATCH_SIZE_VER0		24	/* struct timeq_batch */
#define TIMEQ_OP_SIZE_VER0		32	/* struct timeq_op */
#define TIMEQ_EVENT_SIZE_VER0		32	/* struct timeq_event */

/**
 * struct timeq_configure - ioctl(TIMEQ_CONFIGURE)
 * @size:	sizeof(struct timeq_configure)
 * @clock:	%TIMEQ_CLOCK_MANUAL (the caller moves the clock with
 *		TIMEQ_ADVANCE and TIMEQ_DELETE_MIN) or %TIMEQ_CLOCK_MONOTONIC
 *		(CLOCK_MONOTONIC, and the kernel expires elements on time)
 * @granularity: monotonic: nanoseconds per tick, at least 1; manual: 0
 * @start:	manual: the initial clock; monotonic: 0
 * @horizon:	times are accepted up to @horizon ticks past the clock; 1 to
 *		the module parameter max_horizon (on the monotonic clock,
 *		@horizon * @granularity at most 2^62 too)
 * @max_elements: the element cap of this file, queued plus unread; 0 for
 *		the module parameter default_elements, at most max_elements
 *		and 2^31 - 1
 * @event_size:	the size of each event read() returns: 0 for
 *		%TIMEQ_EVENT_SIZE_VER0, else a multiple of 8 from
 *		%TIMEQ_EVENT_SIZE_VER0 to 4096 (E2BIG above); normally
 *		sizeof(struct timeq_event). The kernel fills what it knows
 *		of each event and zeroes the rest (see &struct timeq_event)
 *
 * Once per file, before any other command but TIMEQ_STATS. It charges
 * the file to the calling task's effective uid until the file is closed.
 */
struct timeq_configure {
	__u32 size;
	__u32 clock;
	__aligned_u64 granularity;
	__aligned_u64 start;
	__aligned_u64 horizon;
	__u32 max_elements;
	__u32 event_size;
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
 *
 * On the monotonic clock, an element that the kernel expires while this
 * command runs, after the command found it queued, is deleted all the
 * same: its event is taken back unread.
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
 *
 * On the monotonic clock, an element that the kernel expires while this
 * command runs, after the command found it queued, is moved all the
 * same: its event is taken back unread. There, on a 64-bit kernel, a move
 * to a later time records @time and leaves the element where it is until
 * its older time comes, or until TIMEQ_MIN finds it ahead of the earliest
 * element; it then goes behind the elements at @time by then. A move to
 * the time the element already has leaves it where it is. Either way it
 * expires at @time, and TIMEQ_MIN reports that time.
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
 * TIMEQ_MIN leaves the element queued; on the monotonic clock it first
 * makes the elements that are due into events, as TIMEQ_INSERT does, and
 * files at their new times the elements that TIMEQ_UPDATE moved later
 * and that lie ahead of the earliest (&struct timeq_update).
 * TIMEQ_DELETE_MIN (manual clock only) removes it, its handle becoming
 * stale, and moves the clock to its time; no event is made.
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
 *
 * Manual clock only. The ioctl returns how many elements became events.
 * The events always fit: each element already counts against the caps,
 * and its event takes its place.
 */
struct timeq_advance {
	__u32 size;
	__u32 __reserved;
	__aligned_u64 time;
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
 * @filled:	out: how many bytes of this structure the kernel wrote:
 *		the smaller of @size and the kernel's sizeof(struct
 *		timeq_stats). A kernel that knows only the first version
 *		leaves it 0, and the fields below it too
 * @delta:	out: the queue's bucket width, in ticks
 * @buckets:	out: the queue's number of buckets M
 * @__reserved:	must be 0
 * @__retired:	out: 0. The queue's internals (where its elements lie,
 *		the slow side's visits, the fast path's counts) are in
 *		debugfs, for root (Documentation/debugging.rst); a program
 *		built against a header that named them here reads 0 there
 * @expiry_runs: out: expiries that removed elements: TIMEQ_ADVANCE on the
 *		manual clock, the kernel's own passes on the monotonic one
 * @lateness:	out: on the monotonic clock, how late each expired element
 *		was expired, in microseconds after its time: element 0
 *		counts those under 1 us, element i those from 2^(i-1) to
 *		under 2^i us, and the last one those from 2^(i-1) us on
 *
 * One snapshot: @queued, @events, @inserted and @expired are read
 * together, so every element alive is counted once, in @queued or in
 * @events. On the monotonic clock @now is the clock as the kernel last
 * moved it, which may lag the current tick. The figures describe this
 * file's queue only.
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
	/* TIMEQ_STATS_SIZE_VER1 */
	__u32 filled;
	__u32 delta;
	__u32 buckets;
	__u32 __reserved;
	__aligned_u64 __retired[14];
	__aligned_u64 expiry_runs;
	__aligned_u64 lateness[TIMEQ_LATENESS_BUCKETS];
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
 * @time:	insert, update: the time; delete: must be 0
 * @cookie:	insert: the cookie; otherwise must be 0
 *
 * As a command, it fails with EINVAL for a field out of range, a
 * reserved or out field not zero; with E2BIG for a larger entry whose
 * excess is not zero; with EOPNOTSUPP for an unknown @op; and with the
 * errors of TIMEQ_INSERT, TIMEQ_DELETE or TIMEQ_UPDATE.
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
 * @ops:	a user pointer to @count entries of @entry_len bytes, each a
 *		&struct timeq_op
 * @entry_len:	the size of each entry: normally sizeof(struct timeq_op);
 *		a multiple of 8 from %TIMEQ_OP_SIZE_VER0 to 4096 (E2BIG
 *		above), the bytes past what the kernel knows zero
 * @__reserved:	must be 0
 *
 * Applies the operations in order, each as its own command would: it
 * reads the entry, writes its @result (and an insert's @handle), and only
 * then applies it. It stops at the first operation that fails or whose
 * entry cannot be read or written, which is not applied.
 *
 * The ioctl returns how many operations were applied: they are the first
 * ones. If that is less than @count, the next one was not applied: its
 * @result says why, unless the entry could not be written. It fails, with
 * nothing applied, if the batch itself is malformed or the first entry
 * cannot be read or written (EFAULT); an operation that fails is not a
 * failure of the ioctl.
 */
struct timeq_batch {
	__u32 size;
	__u32 count;
	__aligned_u64 ops;
	__u32 entry_len;
	__u32 __reserved;
};

#define TIMEQ_BATCH	_IO(TIMEQ_TYPE, TIMEQ_CMD_BATCH)

/**
 * struct timeq_event - what read() returns for each expired element
 * @size:	how many bytes of this event the kernel filled: the smaller
 *		of the configured event size and the kernel's
 *		sizeof(struct timeq_event). The rest, up to the event size,
 *		is zero
 * @flags:	0; no flag is defined yet
 * @handle:	the element's handle, stale from now on
 * @time:	its time: the time it was queued at, which on the monotonic
 *		clock is at or after the time asked for (see ERANGE)
 * @cookie:	its cookie
 *
 * read() returns events of the size set by
 * &struct timeq_configure.event_size, %TIMEQ_EVENT_SIZE_VER0 by default.
 */
struct timeq_event {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 time;
	__aligned_u64 cookie;
};

#endif /* _UAPI_LINUX_TIMEQ_H */
