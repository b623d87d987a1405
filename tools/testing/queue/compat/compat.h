/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel for module/queue.c, paths.c, fast.c, handoff.c
 * and clock.c to build unchanged in userspace, the way
 * tools/testing/radix-tree builds lib/radix-tree.c. Every <linux/...>
 * header they include is a one-line file beside this one that includes it.
 *
 * Allocations go through compat.c, which counts them (a test fails if any
 * is left at the end) and can be told to fail the next one.
 *
 * The synchronisation primitives come in two builds:
 *
 *  - Threads (the default): spinlocks are pthread spinlocks that know their
 *    owner (so lockdep_assert_held() is a real check), mutexes and wait
 *    queues are pthread mutexes and condition variables, and READ_ONCE(),
 *    WRITE_ONCE(), the atomic bit operations and the llist are GCC __atomic
 *    builtins, which ThreadSanitizer understands. A work item, an irq_work
 *    and an hrtimer are flags that the test owning the "workqueue", the
 *    "interrupt" and the "timer hardware" runs: compat_run_work(),
 *    compat_run_irq_work(), compat_hrtimer_run(). ktime_get_ns() reads a
 *    virtual clock the test sets (compat_clock_set()).
 *  - COMPAT_EXPLORE (explore.h, tools/testing/explore): the same calls are
 *    scheduling points of the interleaving explorer, which runs every
 *    thread, the worker, the interrupts and the hrtimer as coroutines of
 *    one OS thread under a seeded scheduler.
 */
#ifndef TIMEQ_COMPAT_H
#define TIMEQ_COMPAT_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int u32;
typedef unsigned int gfp_t;
/* <linux/types.h> as include/uapi/linux/timeq.h uses it */
typedef unsigned long long __u64;
typedef unsigned int __u32;
typedef int __s32;
#define __aligned_u64		__u64 __attribute__((aligned(8)))
#define __aligned(x)		__attribute__((aligned(x)))

#define GFP_KERNEL		0u

#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK_ULL(h, l)	((~0ULL >> (63 - (h))) & (~0ULL << (l)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
/*
 * Only for #if and IS_ENABLED(): the userspace build is a KUnit build whose
 * threads are CPUs, a lock held by one failing another's trylock, 64-bit
 * as the host is; nothing else is on.
 */
#define CONFIG_KUNIT		1
#define CONFIG_SMP		1
#define CONFIG_64BIT		(BITS_PER_LONG == 64)
#define IS_ENABLED(option)	(option)
/* And a build of the KUnit suites: test bases (module/clock.h). */
#define TIMEQ_TEST_BASE		1
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_IMPORT_NS(ns)

#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __noreturn		__attribute__((noreturn))
#define ____cacheline_aligned_in_smp	__attribute__((aligned(64)))
#define EXPORT_SYMBOL_NS_GPL(sym, ns)

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define swap(a, b) \
	do { __typeof__(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static inline int ilog2(unsigned long long n)
{
	return 63 - __builtin_clzll(n);
}

static inline int order_base_2(unsigned long long n)
{
	return n > 1 ? ilog2(n - 1) + 1 : 0;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return 1UL << order_base_2(n);
}

/* <linux/overflow.h>, without the overflow check */
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof((p)->member[0]) * (n))

/* <linux/hash.h> */
#define GOLDEN_RATIO_64	0x61C8864680B583EBULL
static inline unsigned int hash_64(unsigned long long val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

static inline unsigned int hash_ptr(const void *ptr, unsigned int bits)
{
	return hash_64((unsigned long)ptr, bits);
}

/*
 * <linux/atomic.h>'s try_cmpxchg(), for the table of insertion numbers of
 * TIMEQ_DEBUG_FIFO builds (module/queue.c) alone: under the explorer it is
 * not a scheduling point, since that table is the tests' witness, not
 * code under test, and must not change the schedules they explore.
 */
#define try_cmpxchg(ptr, oldp, new)					\
	__atomic_compare_exchange_n(ptr, oldp, new, false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

/* <linux/err.h> */
#define MAX_ERRNO	4095
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}

/* <linux/slab.h>, through compat.c */
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void *kvzalloc(size_t size, gfp_t gfp);
void kfree(const void *ptr);
void kvfree(const void *ptr);
extern long compat_allocations;		/* live allocations */
extern long compat_fail_countdown;	/* fail the allocation that takes it to 0 */

/* <linux/list.h>: a circular doubly linked list with a sentinel */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void __list_link(struct list_head *entry, struct list_head *prev,
			       struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

static inline void list_add(struct list_head *entry, struct list_head *head)
{
	__list_link(entry, head, head->next);
}

static inline void list_add_tail(struct list_head *entry, struct list_head *head)
{
	__list_link(entry, head->prev, head);
}

static inline void __list_unlink(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
}

static inline void list_del_init(struct list_head *entry)
{
	__list_unlink(entry);
	INIT_LIST_HEAD(entry);
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	__list_unlink(entry);
	list_add(entry, head);
}

static inline void list_move_tail(struct list_head *entry,
				  struct list_head *head)
{
	__list_unlink(entry);
	list_add_tail(entry, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void list_del(struct list_head *entry)
{
	__list_unlink(entry);
	entry->next = NULL;
	entry->prev = NULL;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

static inline void __list_splice(struct list_head *list,
				 struct list_head *prev, struct list_head *next)
{
	list->next->prev = prev;
	prev->next = list->next;
	list->prev->next = next;
	next->prev = list->prev;
}

/* Move @list's entries to the front (or back) of @head; @list is emptied. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/*
 * <linux/percpu.h>: a thread is a CPU, with its own copy of each per-CPU
 * object, COMPAT_PCPU_UNIT bytes after the previous CPU's, so that a
 * thread counts on a line no other thread writes, as a CPU does.
 */
#define COMPAT_NR_CPUS		32
#define COMPAT_PCPU_UNIT	1024
#define __percpu
void *compat_alloc_percpu(size_t size);
void free_percpu(void *ptr);
#ifdef COMPAT_EXPLORE
int compat_this_cpu(void);	/* the explorer's scheduler names the CPU */
#else
/*
 * This thread's CPU: the threads are numbered as they first count. Inline,
 * one read of a thread-local once numbered, so that counting costs about
 * what the kernel's this_cpu_inc(), one instruction, does.
 */
extern __thread int compat_cpu;
int compat_cpu_first(void);
static inline int compat_this_cpu(void)
{
	return compat_cpu >= 0 ? compat_cpu : compat_cpu_first();
}
#endif
#define alloc_percpu_gfp(type, gfp) \
	((type *)compat_alloc_percpu(((void)(gfp), sizeof(type))))
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + (cpu) * COMPAT_PCPU_UNIT))
#define this_cpu_add(pcp, n)	(*per_cpu_ptr(&(pcp), compat_this_cpu()) += (n))
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)

/* <linux/compiler.h>, <linux/minmax.h> */
/* Each argument evaluated once, as the kernel's: min(clock(), x) reads once. */
#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		     __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b);	\
		     __a > __b ? __a : __b; })
#define min3(a, b, c)		min(min(a, b), c)
#define min_t(type, a, b)	min((type)(a), (type)(b))
#define U64_MAX			(~0ULL)
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)

/* <linux/atomic.h>: the counters of TIMEQ_DEBUG_FIFO builds and others */
typedef struct {
	s64		counter;
} atomic64_t;

typedef struct {
	int		counter;
} atomic_t;

/* <asm/bitops.h>, <linux/bitmap.h>: where a bit lives */
#define COMPAT_WORD(nr, addr)	((addr) + (nr) / BITS_PER_LONG)
#define COMPAT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)

/* The non-atomic bit operations of one owner. */
static inline void __set_bit(long nr, unsigned long *addr)
{
	*COMPAT_WORD(nr, addr) |= COMPAT_MASK(nr);
}

static inline void __clear_bit(long nr, unsigned long *addr)
{
	*COMPAT_WORD(nr, addr) &= ~COMPAT_MASK(nr);
}

static inline void bitmap_fill(unsigned long *map, unsigned long nbits)
{
	memset(map, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

/* <linux/llist.h>: a lock-free singly linked stack */
struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	struct llist_node *first;
};

static inline void init_llist_head(struct llist_head *list)
{
	list->first = NULL;
}

static inline struct llist_node *llist_reverse_order(struct llist_node *node)
{
	struct llist_node *reversed = NULL, *next;

	while (node) {
		next = node->next;
		node->next = reversed;
		reversed = node;
		node = next;
	}
	return reversed;
}

#define llist_entry(ptr, type, member)	container_of(ptr, type, member)
#define compat_llist_entry(node, type, member) ({			\
	struct llist_node *__node = (node);				\
	__node ? llist_entry(__node, type, member) : NULL;		\
})
#define llist_for_each_entry_safe(pos, n, node, member)			\
	for (pos = compat_llist_entry(node, __typeof__(*pos), member);	\
	     pos && (n = compat_llist_entry(pos->member.next,		\
					    __typeof__(*pos), member), 1); \
	     pos = n)

/*
 * <linux/workqueue.h>: the module's workqueue is a name only; the tests
 * run a base's work item themselves.
 */
struct workqueue_struct;
#define WQ_UNBOUND	0
static inline struct workqueue_struct *alloc_workqueue(const char *name,
							unsigned int flags,
							int max_active)
{
	(void)flags;
	(void)max_active;
	return (struct workqueue_struct *)name;	/* never dereferenced */
}

static inline void destroy_workqueue(struct workqueue_struct *wq)
{
	(void)wq;
}

/*
 * <linux/ktime.h>, <linux/timekeeping.h>, <linux/hrtimer.h>: time is a
 * virtual clock in nanoseconds that the test moves (compat_clock_set() or
 * the explorer's clock steps); CLOCK_MONOTONIC comes from <time.h>.
 */
typedef long long ktime_t;

#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_MSEC		1000000ULL

static inline ktime_t ns_to_ktime(u64 ns)
{
	return (ktime_t)ns;
}

enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

enum hrtimer_mode {
	HRTIMER_MODE_ABS	= 0x00,
	HRTIMER_MODE_REL	= 0x01,
	HRTIMER_MODE_PINNED	= 0x02,
	HRTIMER_MODE_SOFT	= 0x04,
	HRTIMER_MODE_HARD	= 0x08,
};

/* <linux/math64.h>, <linux/overflow.h> */
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

/* <linux/moduleparam.h>: a parameter is its variable, nothing more. */
#define module_param(name, type, perm) \
	extern int compat_module_param_##name
#define MODULE_PARM_DESC(name, desc) \
	extern int compat_module_parm_desc_##name

#ifdef COMPAT_EXPLORE
#include "explore.h"
#else
/*
 * <linux/compiler.h>, <asm/barrier.h>: relaxed atomics, which
 * ThreadSanitizer sees as atomic, and fences.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb__after_atomic()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)

/*
 * <linux/preempt.h>, <linux/kernel.h>, <linux/sched.h>: a thread is never
 * preempted here. A thread that stands in for softirq context sets
 * compat_in_softirq, so lockdep_assert_in_softirq() is a real check, and
 * might_sleep() checks the opposite.
 */
extern __thread int compat_in_softirq;
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define local_irq_save(flags)	do { (flags) = 0; } while (0)
#define local_irq_restore(flags) do { (void)(flags); } while (0)
#define might_sleep()		assert(!compat_in_softirq)
/* <linux/bottom_half.h>: bottom halves off is softirq context, as in_softirq(). */
#define local_bh_disable()	((void)compat_in_softirq++)
#define local_bh_enable()	((void)compat_in_softirq--)
#define local_irq_disable()	do { } while (0)
#define local_irq_enable()	do { } while (0)
#define cond_resched()		sched_yield()
#define cpu_relax()		compat_cpu_relax()
#define lockdep_assert_in_softirq()	assert(compat_in_softirq)

static inline long long atomic64_inc_return(atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline void atomic64_dec(atomic64_t *v)
{
	__atomic_sub_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline long long atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, long long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

/* The value-returning and conditional ones are fully ordered. */
static inline bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline long long atomic64_fetch_andnot(long long i, atomic64_t *v)
{
	return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST);
}

static inline void atomic64_or(long long i, atomic64_t *v)
{
	__atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED);
}

#define ATOMIC_INIT(i)		{ (i) }
#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_add_return(i, v)	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_sub_return(i, v)	__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v)	atomic_add_return(1, v)
#define atomic_dec_return(v)	atomic_sub_return(1, v)
#define atomic_inc(v)		((void)atomic_inc_return(v))
#define atomic_dec(v)		((void)atomic_dec_return(v))
#define atomic_add(i, v)	((void)atomic_add_return(i, v))
#define atomic_sub(i, v)	((void)atomic_sub_return(i, v))
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)

/* Decrement unless that takes it below zero; the old value minus one. */
static inline int atomic_dec_if_positive(atomic_t *v)
{
	int old = __atomic_load_n(&v->counter, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return old - 1;
	} while (!__atomic_compare_exchange_n(&v->counter, &old, old - 1, true,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return old - 1;
}

/*
 * <asm/bitops.h>: atomic bit operations. As the kernel's: set_bit() and
 * clear_bit() are unordered (smp_mb__after_atomic() orders them),
 * clear_bit_unlock() releases, and those that return a value are fully
 * ordered.
 */
static inline void set_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_or(COMPAT_WORD(nr, addr), COMPAT_MASK(nr),
			  __ATOMIC_RELAXED);
}

static inline void clear_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_and(COMPAT_WORD(nr, addr), ~COMPAT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline void clear_bit_unlock(long nr, unsigned long *addr)
{
	__atomic_fetch_and(COMPAT_WORD(nr, addr), ~COMPAT_MASK(nr),
			   __ATOMIC_RELEASE);
}

static inline bool test_and_set_bit(long nr, unsigned long *addr)
{
	return __atomic_fetch_or(COMPAT_WORD(nr, addr), COMPAT_MASK(nr),
				 __ATOMIC_SEQ_CST) & COMPAT_MASK(nr);
}

static inline bool test_and_clear_bit(long nr, unsigned long *addr)
{
	return __atomic_fetch_and(COMPAT_WORD(nr, addr), ~COMPAT_MASK(nr),
				  __ATOMIC_SEQ_CST) & COMPAT_MASK(nr);
}

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return __atomic_load_n(COMPAT_WORD(nr, addr), __ATOMIC_RELAXED) &
	       COMPAT_MASK(nr);
}

/* <linux/bug.h>: a warning fails the test that met it. */
#define WARN_ON_ONCE(cond) ({						\
	bool __warn = !!(cond);						\
	if (__warn) {							\
		fprintf(stderr, "WARNING at %s:%d: %s\n", __FILE__,	\
			__LINE__, #cond);				\
		abort();						\
	}								\
	__warn;								\
})

static inline bool test_bit_acquire(long nr, const unsigned long *addr)
{
	return __atomic_load_n(COMPAT_WORD(nr, addr), __ATOMIC_ACQUIRE) &
	       COMPAT_MASK(nr);
}

/* <linux/spinlock.h>, <linux/lockdep.h> */
typedef struct {
	pthread_spinlock_t	lock;
	unsigned long		owner;	/* pthread_self() of the holder, or 0 */
} spinlock_t;

/* A raw spinlock is a spinlock of its own type, as in the kernel. */
typedef struct {
	spinlock_t		rlock;
} raw_spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
	l->owner = 0;
}

/*
 * COMPAT_BENCH builds (the benchmark, with NDEBUG) keep no owner, so a
 * lock costs what the kernel's does: one atomic to take, one to release.
 */
static inline void compat_spin_owned(spinlock_t *l)
{
#ifndef COMPAT_BENCH
	__atomic_store_n(&l->owner, (unsigned long)pthread_self(),
			 __ATOMIC_RELAXED);
#else
	(void)l;
#endif
}

static inline void spin_lock(spinlock_t *l)
{
	pthread_spin_lock(&l->lock);
	compat_spin_owned(l);
}

static inline bool spin_trylock(spinlock_t *l)
{
	if (pthread_spin_trylock(&l->lock))
		return false;
	compat_spin_owned(l);
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
#ifndef COMPAT_BENCH
	__atomic_store_n(&l->owner, 0UL, __ATOMIC_RELAXED);
#endif
	pthread_spin_unlock(&l->lock);
}

/*
 * The slow side takes its first lock with spin_lock_bh(), once a lock
 * hold: bounded.c counts the holds so (not in COMPAT_BENCH builds).
 */
extern unsigned long compat_bh_locks;

static inline void spin_lock_bh(spinlock_t *l)
{
#ifndef COMPAT_BENCH
	__atomic_fetch_add(&compat_bh_locks, 1, __ATOMIC_RELAXED);
#endif
	spin_lock(l);
}

#define spin_unlock_bh(l)	spin_unlock(l)
#define spin_lock_irq(l)	spin_lock(l)
#define spin_unlock_irq(l)	spin_unlock(l)
#define spin_lock_irqsave(l, flags) \
	do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
	do { (void)(flags); spin_unlock(l); } while (0)

#define raw_spin_lock_init(l)	spin_lock_init(&(l)->rlock)
#define raw_spin_lock(l)	spin_lock(&(l)->rlock)
#define raw_spin_trylock(l)	spin_trylock(&(l)->rlock)
#define raw_spin_unlock(l)	spin_unlock(&(l)->rlock)
#define raw_spin_lock_irqsave(l, flags) \
	spin_lock_irqsave(&(l)->rlock, flags)
#define raw_spin_unlock_irqrestore(l, flags) \
	spin_unlock_irqrestore(&(l)->rlock, flags)

/* The spinlock_t inside a spinlock_t or a raw_spinlock_t. */
#define compat_spinlock_of(l) \
	_Generic((l), raw_spinlock_t *: &((raw_spinlock_t *)(void *)(l))->rlock, \
		 const raw_spinlock_t *: &((raw_spinlock_t *)(void *)(l))->rlock, \
		 default: (l))

#ifdef COMPAT_BENCH
#define lockdep_assert_held(l)	((void)(l))
#else
#define lockdep_assert_held(l) \
	assert(__atomic_load_n(&compat_spinlock_of(l)->owner, \
			       __ATOMIC_RELAXED) == (unsigned long)pthread_self())
#endif

/* <linux/mutex.h>: a pthread mutex that knows its owner */
struct mutex {
	pthread_mutex_t		lock;
	unsigned long		owner;
};

static inline void mutex_init(struct mutex *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->owner = 0;
}

static inline void mutex_destroy(struct mutex *m)
{
	pthread_mutex_destroy(&m->lock);
}

static inline void mutex_lock(struct mutex *m)
{
	might_sleep();
	pthread_mutex_lock(&m->lock);
	__atomic_store_n(&m->owner, (unsigned long)pthread_self(),
			 __ATOMIC_RELAXED);
}

static inline bool mutex_trylock(struct mutex *m)
{
	if (pthread_mutex_trylock(&m->lock))
		return false;
	__atomic_store_n(&m->owner, (unsigned long)pthread_self(),
			 __ATOMIC_RELAXED);
	return true;
}

static inline void mutex_unlock(struct mutex *m)
{
	__atomic_store_n(&m->owner, 0UL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->lock);
}

/* <linux/llist.h>: the lock-free operations */
static inline bool llist_add(struct llist_node *node, struct llist_head *head)
{
	struct llist_node *first = __atomic_load_n(&head->first,
						   __ATOMIC_RELAXED);

	do {
		node->next = first;
	} while (!__atomic_compare_exchange_n(&head->first, &first, node, true,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return !first;
}

static inline struct llist_node *llist_del_all(struct llist_head *head)
{
	return __atomic_exchange_n(&head->first, NULL, __ATOMIC_SEQ_CST);
}

static inline bool llist_empty(const struct llist_head *head)
{
	return !__atomic_load_n(&head->first, __ATOMIC_RELAXED);
}

/* <linux/workqueue.h>: a work item is a flag its owner polls */
struct work_struct {
	void	(*func)(struct work_struct *work);
	int	pending;
};

#define INIT_WORK(w, f)	do { (w)->func = (f); (w)->pending = 0; } while (0)

static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *work)
{
	(void)wq;
	return !__atomic_exchange_n(&work->pending, 1, __ATOMIC_SEQ_CST);
}

static inline bool cancel_work_sync(struct work_struct *work)
{
	return __atomic_exchange_n(&work->pending, 0, __ATOMIC_SEQ_CST);
}

static inline bool work_pending(const struct work_struct *work)
{
	return __atomic_load_n(&work->pending, __ATOMIC_RELAXED);
}

/* Run @work if it is queued, as a worker would; true if it ran. */
static inline bool compat_run_work(struct work_struct *work)
{
	if (!__atomic_exchange_n(&work->pending, 0, __ATOMIC_SEQ_CST))
		return false;
	work->func(work);
	return true;
}

/*
 * flush_work(): the worker is whoever runs it, so a queued work runs here,
 * in the caller, once.
 */
static inline bool flush_work(struct work_struct *work)
{
	return compat_run_work(work);
}

/*
 * <linux/irq_work.h>: an irq_work is a flag too; its owner runs it with
 * compat_run_irq_work(), as the self-interrupt would.
 */
struct irq_work {
	void	(*func)(struct irq_work *work);
	int	pending;
};

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	work->func = func;
	work->pending = 0;
}

static inline bool irq_work_queue(struct irq_work *work)
{
	return !__atomic_exchange_n(&work->pending, 1, __ATOMIC_SEQ_CST);
}

static inline bool compat_run_irq_work(struct irq_work *work)
{
	if (!__atomic_exchange_n(&work->pending, 0, __ATOMIC_SEQ_CST))
		return false;
	work->func(work);
	return true;
}

static inline void irq_work_sync(struct irq_work *work)
{
	compat_run_irq_work(work);
}

/*
 * <linux/wait.h>, <linux/wait_bit.h>: a wait queue is a condition
 * variable. The condition is tested under its mutex, and the waker takes
 * that mutex after it changed what the condition reads, so no wakeup is
 * lost. wait_var_event() keys every variable to one queue.
 */
typedef struct {
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
} wait_queue_head_t;

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

static inline void wake_up_all(wait_queue_head_t *wq)
{
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

#define wake_up(wq)	wake_up_all(wq)

#define wait_event(wq, condition) do {					\
	might_sleep();							\
	if (condition)							\
		break;							\
	pthread_mutex_lock(&(wq).lock);					\
	while (!(condition))						\
		pthread_cond_wait(&(wq).cond, &(wq).lock);		\
	pthread_mutex_unlock(&(wq).lock);				\
} while (0)

extern wait_queue_head_t compat_var_waitqueue;
#define wait_var_event(var, condition) \
	wait_event(compat_var_waitqueue, condition)
#define wake_up_var(var) \
	((void)(var), wake_up_all(&compat_var_waitqueue))

/*
 * <linux/hrtimer.h>: the timer hardware is the test, which calls
 * compat_hrtimer_run() with the virtual clock. One lock, the base's,
 * guards every hrtimer's state, as a CPU's hrtimer base lock does.
 */
struct hrtimer {
	enum hrtimer_restart	(*function)(struct hrtimer *timer);
	ktime_t			expires;
	int			enqueued;
	int			running;
	struct hrtimer		*next;		/* in the base's list */
};

void hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*function)(struct hrtimer *),
		   clockid_t clock_id, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *timer, ktime_t tim,
		   const enum hrtimer_mode mode);
int hrtimer_try_to_cancel(struct hrtimer *timer);
int hrtimer_cancel(struct hrtimer *timer);
bool hrtimer_active(const struct hrtimer *timer);
/* Fire every hrtimer due at @now_ns, earliest first; the number fired. */
unsigned int compat_hrtimer_run(u64 now_ns);
/* The expiry @timer is armed for, or -1 if it is not armed. */
ktime_t compat_hrtimer_armed(struct hrtimer *timer);
/* The earliest expiry of any armed hrtimer, or -1 if none is armed. */
ktime_t compat_hrtimer_earliest(void);
/*
 * The next event of the timer hardware: move the virtual clock to the
 * earliest armed hrtimer, if it is later, and fire what is due then.
 * False if no hrtimer is armed.
 */
bool compat_hrtimer_next(void);

/* The virtual clock. */
extern u64 compat_clock_ns;
/*
 * How far ktime_get_mono_fast_ns() runs ahead of ktime_get_ns(), as it may
 * by what a timekeeping update changes: 0 but when a test sets it.
 */
extern u64 compat_fast_lead_ns;

static inline u64 ktime_get_ns(void)
{
	return __atomic_load_n(&compat_clock_ns, __ATOMIC_RELAXED);
}

static inline u64 ktime_get_mono_fast_ns(void)
{
	return ktime_get_ns() +
	       __atomic_load_n(&compat_fast_lead_ns, __ATOMIC_RELAXED);
}

/*
 * cpu_relax(): a spin takes time, so each one moves the virtual clock on
 * by a nanosecond (and yields); a loop that waits for the clock ends.
 */
static inline void compat_cpu_relax(void)
{
	__atomic_add_fetch(&compat_clock_ns, 1, __ATOMIC_RELAXED);
	sched_yield();
}

static inline void compat_clock_set(u64 ns)
{
	__atomic_store_n(&compat_clock_ns, ns, __ATOMIC_RELAXED);
}

/* <linux/delay.h>: sleeping is the virtual clock moving on. */
static inline void msleep(unsigned int ms)
{
	compat_clock_set(ktime_get_ns() + ms * NSEC_PER_MSEC);
}
#endif /* COMPAT_EXPLORE */

/*
 * <linux/seqlock.h>: a sequence count, odd while its writer, who holds a
 * lock, writes; a reader that finds it odd or changed knows its read may
 * be torn.
 */
typedef struct {
	unsigned int		sequence;
} seqcount_t;

static inline void seqcount_init(seqcount_t *s)
{
	s->sequence = 0;
}

static inline void raw_write_seqcount_begin(seqcount_t *s)
{
	WRITE_ONCE(s->sequence, s->sequence + 1);
	smp_wmb();
}

static inline void raw_write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	WRITE_ONCE(s->sequence, s->sequence + 1);
}

/* Without waiting: an odd count comes back even, so the retry fails. */
static inline unsigned int raw_seqcount_begin(seqcount_t *s)
{
	unsigned int seq = READ_ONCE(s->sequence);

	smp_rmb();
	return seq & ~1u;
}

static inline bool read_seqcount_retry(seqcount_t *s, unsigned int start)
{
	smp_rmb();
	return READ_ONCE(s->sequence) != start;
}

/* <linux/lockdep.h>: no lock classes here, so a key is nothing. */
struct lock_class_key {
	char			unused;
};

/* As the kernel's without lockdep, they drop @map unread: it is absent. */
#define lock_map_acquire(map)		do { } while (0)
#define lock_map_acquire_try(map)	do { } while (0)
#define lock_map_release(map)		do { } while (0)
#define lockdep_register_key(key)	((void)(key))
#define lockdep_unregister_key(key)	((void)(key))
#define __mutex_init(m, name, key)	((void)(name), (void)(key), mutex_init(m))

/* <linux/completion.h>, on the wait queue of either build */
struct completion {
	atomic_t		done;
	wait_queue_head_t	wait;
};

static inline void init_completion(struct completion *x)
{
	atomic_set(&x->done, 0);
	init_waitqueue_head(&x->wait);
}

static inline void reinit_completion(struct completion *x)
{
	atomic_set(&x->done, 0);
}

static inline void complete(struct completion *x)
{
	atomic_inc(&x->done);
	wake_up_all(&x->wait);
}

static inline void complete_all(struct completion *x)
{
	atomic_set(&x->done, INT_MAX / 2);
	wake_up_all(&x->wait);
}

static inline bool compat_completion_take(struct completion *x)
{
	return atomic_dec_if_positive(&x->done) >= 0;
}

static inline bool try_wait_for_completion(struct completion *x)
{
	return compat_completion_take(x);
}

static inline bool completion_done(struct completion *x)
{
	return atomic_read(&x->done) > 0;
}

#define wait_for_completion(x) \
	wait_event((x)->wait, compat_completion_take(x))

#ifndef COMPAT_EXPLORE
#define COMPAT_COMPLETION_INIT {					\
	.done = ATOMIC_INIT(0),						\
	.wait = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER },	\
}

#define DECLARE_COMPLETION_ONSTACK(x)	struct completion x = COMPAT_COMPLETION_INIT
#endif

#endif /* TIMEQ_COMPAT_H */
