// SPDX-License-Identifier: GPL-2.0
/*
 * Counted allocations with injectable failure, per-CPU memory, and, in the
 * threads build, the hrtimer base and the virtual clock of compat.h. The
 * explorer's build (COMPAT_EXPLORE) has its own of the last two.
 */
#include <stdlib.h>
#ifdef COMPAT_EXPLORE
#include <malloc.h>
#endif

#include "compat.h"

long compat_allocations;
long compat_fail_countdown;

/*
 * Zeroed memory, 64-byte aligned: struct timeq's lock regions are
 * ____cacheline_aligned_in_smp, 64 bytes here, beyond the 16 that
 * calloc() promises; the kernel's kmalloc size classes of these structures
 * are multiples of 64. Exactly @size bytes, so that ASan and valgrind
 * still catch a write past the end.
 */
static void *compat_alloc(size_t size)
{
	void *ptr;

	if (compat_fail_countdown > 0 && --compat_fail_countdown == 0)
		return NULL;
	if (posix_memalign(&ptr, 64, size ? size : 1))
		return NULL;
	memset(ptr, 0, size);
	compat_allocations++;
	return ptr;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return compat_alloc(size);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return n && size > (size_t)-1 / n ? NULL : compat_alloc(n * size);
}

void *kvzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return compat_alloc(size);
}

void kfree(const void *ptr)
{
	if (!ptr)
		return;
	compat_allocations--;
#ifdef COMPAT_EXPLORE
	xp_freeing(ptr, malloc_usable_size((void *)ptr));
#endif
	free((void *)ptr);
}

void kvfree(const void *ptr)
{
	kfree(ptr);
}

void *compat_alloc_percpu(size_t size)
{
	if (size > COMPAT_PCPU_UNIT)
		abort();
	return compat_alloc((size_t)COMPAT_NR_CPUS * COMPAT_PCPU_UNIT);
}

void free_percpu(void *ptr)
{
	kfree(ptr);
}

#ifndef COMPAT_EXPLORE
__thread int compat_in_softirq;
u64 compat_clock_ns;
unsigned long compat_bh_locks;
u64 compat_fast_lead_ns;
wait_queue_head_t compat_var_waitqueue = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

__thread int compat_cpu = -1;

/* Number this thread's CPU, at its first count (compat.h). */
int compat_cpu_first(void)
{
	static int next;

	compat_cpu = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	if (compat_cpu >= COMPAT_NR_CPUS)
		abort();
	return compat_cpu;
}

/*
 * The hrtimer base: the armed hrtimers in a list under one lock, which
 * also guards each one's state. A callback runs with the lock dropped,
 * marked running, as the kernel's base marks its running timer.
 */
static pthread_mutex_t compat_hrtimer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hrtimer *compat_hrtimer_armed_list;

static void compat_hrtimer_dequeue(struct hrtimer *timer)
{
	struct hrtimer **link;

	for (link = &compat_hrtimer_armed_list; *link; link = &(*link)->next) {
		if (*link == timer) {
			*link = timer->next;
			break;
		}
	}
	timer->enqueued = 0;
	timer->next = NULL;
}

static void compat_hrtimer_enqueue(struct hrtimer *timer)
{
	timer->next = compat_hrtimer_armed_list;
	compat_hrtimer_armed_list = timer;
	timer->enqueued = 1;
}

void hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*function)(struct hrtimer *),
		   clockid_t clock_id, enum hrtimer_mode mode)
{
	(void)clock_id;
	(void)mode;
	memset(timer, 0, sizeof(*timer));
	timer->function = function;
}

void hrtimer_start(struct hrtimer *timer, ktime_t tim,
		   const enum hrtimer_mode mode)
{
	if (mode & HRTIMER_MODE_REL)
		tim += ktime_get_ns();
	pthread_mutex_lock(&compat_hrtimer_lock);
	if (timer->enqueued)
		compat_hrtimer_dequeue(timer);
	timer->expires = tim;
	compat_hrtimer_enqueue(timer);
	pthread_mutex_unlock(&compat_hrtimer_lock);
}

int hrtimer_try_to_cancel(struct hrtimer *timer)
{
	int ret = 0;

	pthread_mutex_lock(&compat_hrtimer_lock);
	if (timer->running) {
		ret = -1;
	} else if (timer->enqueued) {
		compat_hrtimer_dequeue(timer);
		ret = 1;
	}
	pthread_mutex_unlock(&compat_hrtimer_lock);
	return ret;
}

int hrtimer_cancel(struct hrtimer *timer)
{
	int ret;

	while ((ret = hrtimer_try_to_cancel(timer)) < 0)
		sched_yield();
	return ret;
}

bool hrtimer_active(const struct hrtimer *timer)
{
	bool active;

	pthread_mutex_lock(&compat_hrtimer_lock);
	active = timer->enqueued || timer->running;
	pthread_mutex_unlock(&compat_hrtimer_lock);
	return active;
}

ktime_t compat_hrtimer_armed(struct hrtimer *timer)
{
	ktime_t expires;

	pthread_mutex_lock(&compat_hrtimer_lock);
	expires = timer->enqueued ? timer->expires : -1;
	pthread_mutex_unlock(&compat_hrtimer_lock);
	return expires;
}

ktime_t compat_hrtimer_earliest(void)
{
	struct hrtimer *timer;
	ktime_t earliest = -1;

	pthread_mutex_lock(&compat_hrtimer_lock);
	for (timer = compat_hrtimer_armed_list; timer; timer = timer->next)
		if (earliest < 0 || timer->expires < earliest)
			earliest = timer->expires;
	pthread_mutex_unlock(&compat_hrtimer_lock);
	return earliest;
}

bool compat_hrtimer_next(void)
{
	ktime_t next = compat_hrtimer_earliest();

	if (next < 0)
		return false;
	if ((u64)next > ktime_get_ns())
		compat_clock_set(next);
	compat_hrtimer_run(ktime_get_ns());
	return true;
}

unsigned int compat_hrtimer_run(u64 now_ns)
{
	struct hrtimer *timer, *due;
	enum hrtimer_restart ret;
	unsigned int fired = 0;

	pthread_mutex_lock(&compat_hrtimer_lock);
	for (;;) {
		due = NULL;
		for (timer = compat_hrtimer_armed_list; timer; timer = timer->next)
			if ((u64)timer->expires <= now_ns &&
			    (!due || timer->expires < due->expires))
				due = timer;
		if (!due)
			break;
		compat_hrtimer_dequeue(due);
		due->running = 1;
		pthread_mutex_unlock(&compat_hrtimer_lock);
		ret = due->function(due);
		pthread_mutex_lock(&compat_hrtimer_lock);
		due->running = 0;
		if (ret == HRTIMER_RESTART && !due->enqueued)
			compat_hrtimer_enqueue(due);
		fired++;
	}
	pthread_mutex_unlock(&compat_hrtimer_lock);
	return fired;
}
#endif /* COMPAT_EXPLORE */
