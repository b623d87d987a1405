/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtimeq: /dev/timeq from C, without hand-made ioctl structures.
 */
#ifndef _TIMEQ_TIMEQ_H
#define _TIMEQ_TIMEQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/timeq.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * DOC: libtimeq
 *
 * A small C library over the ioctls of /dev/timeq, whose ABI is
 * include/uapi/linux/timeq.h (and timeq(4)). Each function is one system
 * call (the timeqfd_ops_* builders make none, and timeqfd_ops_submit()
 * then marks the operations it did not apply). It fills the structures,
 * with their sizes, and returns what the kernel answered:
 *
 *  - 0 (or a count, or a file descriptor) on success;
 *  - a negative errno on failure, such as -ERANGE or -ENOENT, as kernel
 *    functions do. The errors and their meanings are the ABI's. errno is
 *    left as the system call set it.
 *
 * Nothing here allocates memory or keeps state between calls: the caller
 * owns every buffer, and two threads may use the library at once, on one
 * file or on several, as the kernel allows.
 *
 * Structures are those of the ABI, and the kernel accepts them from a
 * newer and an older version alike (see "Structures" in the ABI);
 * &struct timeq_stats.filled says how much of the statistics an older
 * kernel filled. The library fills the structures it makes at its own
 * sizes. Those the caller owns (an element, the statistics, the events,
 * the operations of a batch) go at the caller's: each function that takes
 * one is an inline function of this header, compiled into the program,
 * which passes sizeof() of the structure as the program's uapi header
 * declares it to the library's function of the same name with _sized
 * added. So a program built against an older or a newer uapi header than
 * the library's runs with it, and the library never writes past the
 * program's structures. The sized functions refuse a size below the
 * structure's first version (0 among them) with -EINVAL, and one above
 * 4096 bytes with -E2BIG, before they write anything; the kernel judges
 * the rest, except what timeqfd_ops_init_sized() says it refuses. A
 * program that finds the library's functions by name at run time
 * (dlsym(), other languages' bindings) calls the sized ones: the inline
 * ones are not in the library.
 *
 * The functions are named timeqfd_*, for the file descriptor they act on,
 * as timerfd's are; timeq_* names the module's in-kernel API.
 *
 * Link with -ltimeq (pkg-config --libs timeq); include <timeq/timeq.h>.
 */

/**
 * timeqfd_open - open a new queue
 * @flags:	0, or O_NONBLOCK for reads that fail with -EAGAIN rather
 *		than wait; O_RDWR and O_CLOEXEC are always added
 *
 * Each open file is a queue of its own, freed when it is closed with
 * close(). Configure it before anything else.
 *
 * Return: the file descriptor, or a negative errno (that of open(2);
 * -ENOENT if the timeq module is not loaded).
 */
int timeqfd_open(int flags);

/**
 * timeqfd_configure_manual_sized - timeqfd_configure_manual(), events sized
 * @fd:		as for timeqfd_configure_manual()
 * @start:	as for timeqfd_configure_manual()
 * @horizon:	as for timeqfd_configure_manual()
 * @max_elements: as for timeqfd_configure_manual()
 * @event_size:	the size of the events timeqfd_read_sized() will read
 *		(&struct timeq_configure.event_size)
 *
 * Return: as timeqfd_configure_manual().
 */
int timeqfd_configure_manual_sized(int fd, uint64_t start, uint64_t horizon,
				   uint32_t max_elements, size_t event_size);

/**
 * timeqfd_configure_monotonic_sized - timeqfd_configure_monotonic(), events
 *	sized
 * @fd:		as for timeqfd_configure_monotonic()
 * @granularity: as for timeqfd_configure_monotonic()
 * @horizon:	as for timeqfd_configure_monotonic()
 * @max_elements: as for timeqfd_configure_monotonic()
 * @event_size:	as for timeqfd_configure_manual_sized()
 *
 * Return: as timeqfd_configure_manual().
 */
int timeqfd_configure_monotonic_sized(int fd, uint64_t granularity,
				      uint64_t horizon, uint32_t max_elements,
				      size_t event_size);

/**
 * timeqfd_configure_manual - make a queue whose clock the caller moves
 * @fd:		a queue from timeqfd_open(), not yet configured
 * @start:	the clock's first value, in ticks
 * @horizon:	times are accepted from the clock up to @horizon ticks later
 * @max_elements: the cap on queued elements and unread events, or 0 for
 *		the module's default
 *
 * The clock moves with timeqfd_advance() and timeqfd_delete_min(). Events
 * have the size of &struct timeq_event in the caller's uapi header, the
 * size timeqfd_read() reads them at.
 *
 * Return: 0, or a negative errno: -EBUSY if @fd is configured already,
 * -EINVAL for a parameter out of range, -EMFILE at the user's limit of
 * files, -ENOMEM.
 */
static inline int timeqfd_configure_manual(int fd, uint64_t start,
					   uint64_t horizon,
					   uint32_t max_elements)
{
	return timeqfd_configure_manual_sized(fd, start, horizon, max_elements,
					      sizeof(struct timeq_event));
}

/**
 * timeqfd_configure_monotonic - make a queue that the kernel expires
 * @fd:		a queue from timeqfd_open(), not yet configured
 * @granularity: nanoseconds of CLOCK_MONOTONIC per tick
 * @horizon:	times are accepted up to @horizon ticks from now
 * @max_elements: as for timeqfd_configure_manual()
 *
 * A time is in ticks of CLOCK_MONOTONIC: the time in nanoseconds divided
 * by @granularity. Each element becomes an event once its tick has begun,
 * never earlier, for timeqfd_read() to return. Events are sized as for
 * timeqfd_configure_manual().
 *
 * Return: as timeqfd_configure_manual().
 */
static inline int timeqfd_configure_monotonic(int fd, uint64_t granularity,
					      uint64_t horizon,
					      uint32_t max_elements)
{
	return timeqfd_configure_monotonic_sized(fd, granularity, horizon,
						 max_elements,
						 sizeof(struct timeq_event));
}

/**
 * timeqfd_insert - add an element
 * @fd:		a configured queue
 * @time:	its time, in ticks
 * @cookie:	any value, given back with the element and its event
 * @handle:	set to the new element's handle; may be NULL
 *
 * Return: 0, or a negative errno: -ERANGE for a time outside the window,
 * -ENOSPC at the cap, -ENOMEM, -EBADFD if @fd is not configured.
 */
int timeqfd_insert(int fd, uint64_t time, uint64_t cookie, uint64_t *handle);

/**
 * timeqfd_delete - remove an element before it expires
 * @fd:		a configured queue
 * @handle:	the element, as timeqfd_insert() gave it
 *
 * Return: 0, or a negative errno: -ENOENT if @handle names no queued
 * element of @fd (it expired, or was deleted).
 */
int timeqfd_delete(int fd, uint64_t handle);

/**
 * timeqfd_update - move an element to another time
 * @fd:		a configured queue
 * @handle:	the element; it keeps its handle and cookie
 * @time:	its new time
 *
 * Return: 0, or a negative errno: -ENOENT as for timeqfd_delete(), -ERANGE
 * as for timeqfd_insert().
 */
int timeqfd_update(int fd, uint64_t handle, uint64_t time);

/**
 * timeqfd_min_sized - timeqfd_min() into an element of @size bytes
 * @fd:		a configured queue
 * @min:	set to the element
 * @size:	the size of @min
 *
 * Return: as timeqfd_min().
 */
int timeqfd_min_sized(int fd, struct timeq_element *min, size_t size);

/**
 * timeqfd_delete_min_sized - timeqfd_delete_min() into an element of
 *	@size bytes
 * @fd:		a queue with the manual clock
 * @min:	set to the element removed
 * @size:	the size of @min
 *
 * Return: as timeqfd_delete_min().
 */
int timeqfd_delete_min_sized(int fd, struct timeq_element *min, size_t size);

/**
 * timeqfd_min - the earliest element
 * @fd:		a configured queue
 * @min:	set to the element: its handle, time and cookie
 *
 * Return: 0, or a negative errno: -ENODATA if the queue is empty.
 */
static inline int timeqfd_min(int fd, struct timeq_element *min)
{
	return timeqfd_min_sized(fd, min, sizeof(*min));
}

/**
 * timeqfd_delete_min - remove the earliest element, and move the clock to it
 * @fd:		a queue with the manual clock
 * @min:	set to the element removed
 *
 * No event is made of it.
 *
 * Return: 0, or a negative errno: -ENODATA if the queue is empty,
 * -EOPNOTSUPP on the monotonic clock.
 */
static inline int timeqfd_delete_min(int fd, struct timeq_element *min)
{
	return timeqfd_delete_min_sized(fd, min, sizeof(*min));
}

/**
 * timeqfd_advance - move the manual clock, expiring what it passes
 * @fd:		a queue with the manual clock
 * @time:	every element before @time becomes an event, in order of
 *		time; then the clock is @time, if that is later
 *
 * Return: how many elements expired, or a negative errno: -EOPNOTSUPP on
 * the monotonic clock.
 */
long timeqfd_advance(int fd, uint64_t time);

/**
 * timeqfd_stats_sized - timeqfd_stats() into statistics of @size bytes
 * @fd:		a queue, configured or not
 * @stats:	set to them
 * @size:	the size of @stats
 *
 * Return: as timeqfd_stats().
 */
int timeqfd_stats_sized(int fd, struct timeq_stats *stats, size_t size);

/**
 * timeqfd_stats - a queue's figures
 * @fd:		a queue, configured or not
 * @stats:	set to them, with @stats->filled the bytes the kernel wrote
 *
 * Return: 0, or a negative errno.
 */
static inline int timeqfd_stats(int fd, struct timeq_stats *stats)
{
	return timeqfd_stats_sized(fd, stats, sizeof(*stats));
}

/**
 * timeqfd_read_sized - timeqfd_read() of events of @size bytes
 * @fd:		a queue configured with events of @size bytes
 * @events:	where to put them, @size bytes apart
 * @n:		room in @events, in events
 * @size:	the size of each event: the one @fd was configured with, or
 *		the count returned is wrong, which the library cannot tell
 *
 * Return: as timeqfd_read().
 */
ssize_t timeqfd_read_sized(int fd, struct timeq_event *events, size_t n,
			   size_t size);

/**
 * timeqfd_read - take expired elements
 * @fd:		a queue configured by timeqfd_configure_manual() or
 *		timeqfd_configure_monotonic()
 * @events:	where to put them
 * @n:		room in @events, in events; the kernel gives at most 16 a call
 *
 * Waits for an event unless @fd was opened with O_NONBLOCK.
 *
 * Return: how many events were read, at least 1; or a negative errno:
 * -EAGAIN with O_NONBLOCK and none ready, -EINTR if a signal came first.
 */
static inline ssize_t timeqfd_read(int fd, struct timeq_event *events, size_t n)
{
	return timeqfd_read_sized(fd, events, n, sizeof(*events));
}

/**
 * struct timeqfd_ops - a batch of operations being built
 * @ops:	the caller's array of operations
 * @count:	how many are in it
 * @max:	how many it holds
 * @entry_len:	the size of each, and the distance from one to the next:
 *		operation i is element i of @ops where it is the size of
 *		&struct timeq_op, as timeqfd_ops_init() makes it
 *
 * Set by timeqfd_ops_init() or timeqfd_ops_init_sized(); the calls below
 * refuse with -EINVAL a batch whose @entry_len or @max
 * timeqfd_ops_init_sized() would refuse, or whose @count exceeds @max.
 * timeqfd_ops_insert(), timeqfd_ops_delete() and timeqfd_ops_update() add to
 * it, timeqfd_ops_submit() applies it in one call. Then each entry of @ops
 * holds its operation's result (0 or a negative errno) in .result, and an
 * applied insert's new handle in .handle.
 */
struct timeqfd_ops {
	struct timeq_op	*ops;
	uint32_t	count;
	uint32_t	max;
	uint32_t	entry_len;
};

/**
 * timeqfd_ops_init_sized - timeqfd_ops_init() of operations of @size bytes
 * @b:		the batch
 * @ops:	an array of @max operations, @size bytes apart
 * @max:	its length, at most INT_MAX
 * @size:	the size of each; a multiple of 8
 *
 * Return: 0, or a negative errno, leaving @b as it was: -EINVAL for a
 * size not a multiple of 8 or a @max above INT_MAX, and -EINVAL or -E2BIG
 * for a size out of range, as every sized function.
 */
int timeqfd_ops_init_sized(struct timeqfd_ops *b, struct timeq_op *ops,
			   uint32_t max, size_t size);

/**
 * timeqfd_ops_init - start a batch
 * @b:		the batch
 * @ops:	an array of @max operations, the batch's room
 * @max:	its length; the kernel takes at most 4096 a call
 *
 * Return: 0, or -EINVAL for a @max above INT_MAX, leaving @b as it was.
 */
static inline int timeqfd_ops_init(struct timeqfd_ops *b, struct timeq_op *ops,
				   uint32_t max)
{
	return timeqfd_ops_init_sized(b, ops, max, sizeof(*ops));
}

/**
 * timeqfd_ops_insert - add an insert to a batch
 * @b:		the batch
 * @time:	the new element's time
 * @cookie:	its cookie
 *
 * Return: the operation's index i (&struct timeqfd_ops), or -ENOSPC if
 * it is full, -EINVAL for a batch refused (&struct timeqfd_ops).
 */
int timeqfd_ops_insert(struct timeqfd_ops *b, uint64_t time, uint64_t cookie);

/**
 * timeqfd_ops_delete - add a delete to a batch
 * @b:		the batch
 * @handle:	the element
 *
 * Return: as timeqfd_ops_insert().
 */
int timeqfd_ops_delete(struct timeqfd_ops *b, uint64_t handle);

/**
 * timeqfd_ops_update - add an update to a batch
 * @b:		the batch
 * @handle:	the element
 * @time:	its new time
 *
 * Return: as timeqfd_ops_insert().
 */
int timeqfd_ops_update(struct timeqfd_ops *b, uint64_t handle, uint64_t time);

/**
 * timeqfd_ops_submit - apply a batch, in order
 * @fd:		a configured queue
 * @b:		the batch; its operations hold their results afterwards, and
 *		timeqfd_ops_init() empties it for the next batch
 *
 * The kernel applies the operations in order and stops at the first that
 * fails, whose @result says why (-EFAULT if the kernel could not read it
 * or write its result); the ones after it are not applied, and their
 * @result is -ECANCELED. So the operations must stay writable, as the
 * timeqfd_ops_*() calls that add them leave them. On a negative return
 * no result is written.
 *
 * Return: how many operations were applied, the first ones; or a negative
 * errno if the batch itself was refused and none was applied.
 */
int timeqfd_ops_submit(int fd, struct timeqfd_ops *b);

#ifdef __cplusplus
}
#endif

#endif /* _TIMEQ_TIMEQ_H */
