/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel for module/queue.c to build unchanged in
 * userspace, the way tools/testing/radix-tree builds lib/radix-tree.c.
 * Every <linux/...> header the queue includes is a one-line file beside
 * this one that includes it.
 *
 * Allocations go through compat.c, which counts them (a test fails if any
 * is left at the end) and can be told to fail the next one.
 *
 * For module/paths.c, the concurrency layer: spinlocks are pthread
 * spinlocks that know their owner (so lockdep_assert_held() is a real
 * check), and READ_ONCE(), WRITE_ONCE(), the atomic bit operations and the
 * llist are GCC __atomic builtins, which ThreadSanitizer understands. A
 * work item is a flag; the test that owns the "workqueue" runs it with
 * compat_run_work().
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
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
/* Only for #if: the userspace build is a KUnit build, nothing else is on. */
#define CONFIG_KUNIT		1
#define IS_ENABLED(option)	(option)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_IMPORT_NS(ns)

#define __printf(a, b)		__attribute__((format(printf, a, b)))
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

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)
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
int compat_this_cpu(void);
#define alloc_percpu_gfp(type, gfp) \
	((type *)compat_alloc_percpu(((void)(gfp), sizeof(type))))
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + (cpu) * COMPAT_PCPU_UNIT))
#define this_cpu_add(pcp, n)	(*per_cpu_ptr(&(pcp), compat_this_cpu()) += (n))
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)

/* <linux/compiler.h>, <linux/minmax.h> */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
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

/*
 * <linux/preempt.h>, <linux/kernel.h>, <linux/sched.h>: a thread is never
 * preempted here. A thread that stands in for softirq context sets
 * compat_in_softirq, so lockdep_assert_in_softirq() is a real check, and
 * might_sleep() checks the opposite.
 */
extern __thread int compat_in_softirq;
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define might_sleep()		assert(!compat_in_softirq)
#define cond_resched()		sched_yield()
#define cpu_relax()		sched_yield()
#define lockdep_assert_in_softirq()	assert(compat_in_softirq)

/* <linux/atomic.h>: the 64-bit counters of TIMEQ_DEBUG_FIFO builds */
typedef struct {
	long long	counter;
} atomic64_t;

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

/*
 * <asm/bitops.h>: atomic bit operations. As the kernel's: set_bit() and
 * clear_bit() are unordered (smp_mb__after_atomic() orders them), and
 * test_and_set_bit(), which returns a value, is fully ordered.
 */
#define COMPAT_WORD(nr, addr)	((addr) + (nr) / BITS_PER_LONG)
#define COMPAT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))

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

/* <linux/bitmap.h>: the non-atomic bit operations of one owner */
#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)

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

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return __atomic_load_n(COMPAT_WORD(nr, addr), __ATOMIC_RELAXED) &
	       COMPAT_MASK(nr);
}

#define smp_mb__after_atomic()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

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

/*
 * <linux/wait_bit.h>: the threads run at once, so a waiter polls its
 * condition, yielding, and a wake-up has nothing to do.
 */
#define wait_var_event(var, cond)					\
	do {								\
		(void)(var);						\
		while (!(cond))						\
			sched_yield();					\
	} while (0)
#define wake_up_var(var)	((void)(var))

/* <linux/spinlock.h>, <linux/lockdep.h> */
typedef struct {
	pthread_spinlock_t	lock;
	unsigned long		owner;	/* pthread_self() of the holder, or 0 */
} spinlock_t;

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

#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)
#ifdef COMPAT_BENCH
#define lockdep_assert_held(l)	((void)(l))
#else
#define lockdep_assert_held(l) \
	assert(__atomic_load_n(&(l)->owner, __ATOMIC_RELAXED) == \
	       (unsigned long)pthread_self())
#endif

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

/* <linux/workqueue.h>: a work item is a flag its owner polls */
struct workqueue_struct;
extern struct workqueue_struct *timeq_wq;

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

static inline bool llist_empty(const struct llist_head *head)
{
	return !__atomic_load_n(&head->first, __ATOMIC_RELAXED);
}

/* Run @work if it is queued, as a worker would; true if it ran. */
static inline bool compat_run_work(struct work_struct *work)
{
	if (!__atomic_exchange_n(&work->pending, 0, __ATOMIC_SEQ_CST))
		return false;
	work->func(work);
	return true;
}

#endif /* TIMEQ_COMPAT_H */
