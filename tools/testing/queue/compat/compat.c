// SPDX-License-Identifier: GPL-2.0
/* Counted allocations with injectable failure, for compat.h. */
#include <stdlib.h>

#include "compat.h"

long compat_allocations;
long compat_fail_countdown;
__thread int compat_in_softirq;
struct workqueue_struct *timeq_wq;

static void *compat_alloc(size_t size)
{
	void *ptr;

	if (compat_fail_countdown > 0 && --compat_fail_countdown == 0)
		return NULL;
	ptr = calloc(1, size);
	if (ptr)
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
	if (ptr)
		compat_allocations--;
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

/* This thread's CPU: the threads are numbered as they first count. */
int compat_this_cpu(void)
{
	static int next;
	static __thread int cpu = -1;

	if (cpu < 0) {
		cpu = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
		if (cpu >= COMPAT_NR_CPUS)
			abort();
	}
	return cpu;
}
