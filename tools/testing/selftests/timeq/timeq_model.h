/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of one /dev/timeq file on the manual clock, as
 * include/uapi/linux/timeq.h describes it: its window, its cap, FIFO
 * order among equal times (an update counts as a new insertion), events
 * in the order they expired, the counters of TIMEQ_STATS, and the order
 * in which a command checks what can fail. Each tqm_*() says what the
 * command must do, and applies it to the model when it succeeds; the
 * caller compares with what the kernel did. Handles are the kernel's to
 * choose: the model records the one the kernel returned (tqm_set_handle())
 * and checks that no handle is issued twice by one file.
 *
 * Header only, no allocation after tqm_init(), so it can be used while
 * the calling thread's allocations are made to fail. Not thread-safe: one
 * model per thread.
 */
#ifndef TIMEQ_MODEL_H
#define TIMEQ_MODEL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/timeq.h>

/* Where an element of the model is. */
enum { TQM_FREE, TQM_QUEUED, TQM_EVENT };

struct tqm_elem {
	__u64	handle;
	__u64	time;
	__u64	cookie;
	__u64	seq;		/* insertion order, for FIFO among equals */
	__u64	expired_seq;	/* expiry order, for events */
	int	state;
};

struct tqm_file {
	int		configured;
	__u64		now;
	__u64		horizon;
	__u32		cap;
	__u32		event_size;
	struct tqm_elem	*e;	/* cap slots */
	__u32		hwm;	/* slots from hwm on are free */
	__u32		queued;
	__u32		events;
	__u64		seq;
	__u64		expired_seq;
	__u64		inserted;
	__u64		expired;
	/* Every handle the file issued, to check that none comes twice. */
	__u64		*issued;
	__u64		nissued;
	__u64		issued_size;	/* a power of two, or 0: no check */
};

/*
 * A model of an unconfigured file that can hold @cap elements once
 * configured, remembering up to @issued handles (0: no uniqueness check).
 * 0, or -1 if the memory could not be had.
 */
static inline int tqm_init(struct tqm_file *m, __u32 cap, __u64 issued)
{
	__u64 size = 1;

	memset(m, 0, sizeof(*m));
	m->e = calloc(cap ? cap : 1, sizeof(*m->e));
	if (!m->e)
		return -1;
	if (issued) {
		while (size < 2 * issued)
			size <<= 1;
		m->issued = calloc(size, sizeof(*m->issued));
		if (!m->issued)
			return -1;
		m->issued_size = size;
	}
	return 0;
}

/* Forget everything, as a new unconfigured file, keeping the memory. */
static inline void tqm_reset(struct tqm_file *m)
{
	struct tqm_elem *e = m->e;
	__u64 *issued = m->issued, size = m->issued_size;

	memset(e, 0, (m->hwm ? m->hwm : 1) * sizeof(*e));
	if (issued)
		memset(issued, 0, size * sizeof(*issued));
	memset(m, 0, sizeof(*m));
	m->e = e;
	m->issued = issued;
	m->issued_size = size;
}

static inline void tqm_free(struct tqm_file *m)
{
	free(m->e);
	free(m->issued);
	memset(m, 0, sizeof(*m));
}

/*
 * TIMEQ_CONFIGURE of the manual clock, with values the caller has
 * already checked; @cap must not exceed the one given to tqm_init().
 */
static inline void tqm_configure(struct tqm_file *m, __u64 start,
				 __u64 horizon, __u32 cap, __u32 event_size)
{
	m->configured = 1;
	m->now = start;
	m->horizon = horizon;
	m->cap = cap;
	m->event_size = event_size ? event_size : TIMEQ_EVENT_SIZE_VER0;
}

static inline int tqm_in_window(const struct tqm_file *m, __u64 time)
{
	return time >= m->now && time - m->now < m->horizon;
}

/* The queued element @handle names, or NULL. */
static inline struct tqm_elem *tqm_find(struct tqm_file *m, __u64 handle)
{
	__u32 i;

	for (i = 0; i < m->hwm; i++)
		if (m->e[i].state == TQM_QUEUED && m->e[i].handle == handle)
			return &m->e[i];
	return NULL;
}

/* Any element, queued or an event, that @handle names, or NULL. */
static inline struct tqm_elem *tqm_find_any(struct tqm_file *m, __u64 handle)
{
	__u32 i;

	for (i = 0; i < m->hwm; i++)
		if (m->e[i].state != TQM_FREE && m->e[i].handle == handle)
			return &m->e[i];
	return NULL;
}

/* The earliest queued element, first inserted among equal times. */
static inline struct tqm_elem *tqm_min(struct tqm_file *m)
{
	struct tqm_elem *best = NULL;
	__u32 i;

	for (i = 0; i < m->hwm; i++) {
		struct tqm_elem *x = &m->e[i];

		if (x->state != TQM_QUEUED)
			continue;
		if (!best || x->time < best->time ||
		    (x->time == best->time && x->seq < best->seq))
			best = x;
	}
	return best;
}

/* The oldest event, or NULL. */
static inline struct tqm_elem *tqm_first_event(struct tqm_file *m)
{
	struct tqm_elem *best = NULL;
	__u32 i;

	for (i = 0; i < m->hwm; i++) {
		struct tqm_elem *x = &m->e[i];

		if (x->state == TQM_EVENT &&
		    (!best || x->expired_seq < best->expired_seq))
			best = x;
	}
	return best;
}

/*
 * Whether the file has issued @handle before; records it if not. 1 if
 * it had (a handle that names a new element would then be a stale one
 * coming back), 0 if not, and 0 without a table.
 */
static inline int tqm_issued_before(struct tqm_file *m, __u64 handle)
{
	__u64 mask = m->issued_size - 1, i;

	if (!m->issued_size || m->nissued * 2 >= m->issued_size)
		return 0;
	for (i = (handle * 0x9e3779b97f4a7c15ULL) >> 7 & mask; m->issued[i];
	     i = (i + 1) & mask)
		if (m->issued[i] == handle)
			return 1;
	m->issued[i] = handle;
	m->nissued++;
	return 0;
}

/*
 * TIMEQ_INSERT at @time: 0 and a new queued element in *@out (whose
 * handle the caller sets), or the errno the command must fail with: the
 * window first, then the cap. ENOMEM is the kernel's alone to decide;
 * the caller allows it and then checks that nothing changed.
 */
static inline int tqm_insert(struct tqm_file *m, __u64 time, __u64 cookie,
			     struct tqm_elem **out)
{
	__u32 i;

	if (!m->configured)
		return EBADFD;
	if (!tqm_in_window(m, time))
		return ERANGE;
	if (m->queued + m->events >= m->cap)
		return ENOSPC;
	for (i = 0; m->e[i].state != TQM_FREE; i++)
		;
	if (i >= m->hwm)
		m->hwm = i + 1;
	m->e[i] = (struct tqm_elem){
		.time = time, .cookie = cookie, .seq = ++m->seq,
		.state = TQM_QUEUED,
	};
	m->queued++;
	m->inserted++;
	*out = &m->e[i];
	return 0;
}

/* Take back an insert the kernel refused for memory. */
static inline void tqm_insert_undo(struct tqm_file *m, struct tqm_elem *x)
{
	x->state = TQM_FREE;
	m->queued--;
	m->inserted--;
	m->seq--;
}

/* Record the handle the kernel gave a new element; 1 if it was reused. */
static inline int tqm_set_handle(struct tqm_file *m, struct tqm_elem *x,
				 __u64 handle)
{
	x->handle = handle;
	return !handle || tqm_issued_before(m, handle);
}

static inline int tqm_delete(struct tqm_file *m, __u64 handle)
{
	struct tqm_elem *x;

	if (!m->configured)
		return EBADFD;
	x = tqm_find(m, handle);
	if (!x)
		return ENOENT;
	x->state = TQM_FREE;
	m->queued--;
	return 0;
}

/* TIMEQ_UPDATE: the handle first, then the window. */
static inline int tqm_update(struct tqm_file *m, __u64 handle, __u64 time)
{
	struct tqm_elem *x;

	if (!m->configured)
		return EBADFD;
	x = tqm_find(m, handle);
	if (!x)
		return ENOENT;
	if (!tqm_in_window(m, time))
		return ERANGE;
	x->time = time;
	x->seq = ++m->seq;
	return 0;
}

/* TIMEQ_DELETE_MIN: the minimum leaves, and the clock moves to its time. */
static inline int tqm_delete_min(struct tqm_file *m, struct tqm_elem *out)
{
	struct tqm_elem *x;

	if (!m->configured)
		return EBADFD;
	x = tqm_min(m);
	if (!x)
		return ENODATA;
	*out = *x;
	m->now = x->time;
	x->state = TQM_FREE;
	m->queued--;
	return 0;
}

/* TIMEQ_ADVANCE to @time: how many became events. */
static inline int tqm_advance(struct tqm_file *m, __u64 time)
{
	struct tqm_elem *x;
	int n = 0;

	while ((x = tqm_min(m)) && x->time < time) {
		x->state = TQM_EVENT;
		x->expired_seq = ++m->expired_seq;
		m->queued--;
		m->events++;
		m->expired++;
		n++;
	}
	if (time > m->now)
		m->now = time;
	return n;
}

/*
 * read() of @len bytes: how many events it must return (at most 16, as
 * many whole ones as fit), or -errno; the caller checks each against
 * tqm_first_event() and consumes it with tqm_consume().
 */
static inline int tqm_read_count(const struct tqm_file *m, size_t len)
{
	size_t n;

	if (!m->configured)
		return -EBADFD;
	if (len < m->event_size)
		return -EINVAL;
	if (!m->events)
		return -EAGAIN;
	n = len / m->event_size;
	if (n > 16)
		n = 16;
	return n < m->events ? (int)n : (int)m->events;
}

static inline void tqm_consume(struct tqm_file *m, struct tqm_elem *x)
{
	x->state = TQM_FREE;
	m->events--;
}

/* What TIMEQ_STATS must say. */
static inline struct timeq_stats tqm_stats(const struct tqm_file *m)
{
	struct timeq_stats st = { .size = sizeof(st) };

	if (!m->configured)
		return st;
	st.clock = TIMEQ_CLOCK_MANUAL;
	st.now = m->now;
	st.horizon = m->horizon;
	st.queued = m->queued;
	st.events = m->events;
	st.max_elements = m->cap;
	st.configured = 1;
	st.inserted = m->inserted;
	st.expired = m->expired;
	return st;
}

/* Whether two stats agree in every field. */
static inline int tqm_stats_equal(const struct timeq_stats *a,
				  const struct timeq_stats *b)
{
	return a->clock == b->clock && a->now == b->now &&
	       a->horizon == b->horizon && a->queued == b->queued &&
	       a->events == b->events && a->max_elements == b->max_elements &&
	       a->configured == b->configured && a->inserted == b->inserted &&
	       a->expired == b->expired;
}

#endif /* TIMEQ_MODEL_H */
