/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel for module/queue.c to build unchanged in
 * userspace, the way tools/testing/radix-tree builds lib/radix-tree.c.
 * Every <linux/...> header the queue includes is a one-line file beside
 * this one that includes it.
 *
 * Allocations go through compat.c, which counts them (a test fails if any
 * is left at the end) and can be told to fail the next one.
 */
#ifndef TIMEQ_COMPAT_H
#define TIMEQ_COMPAT_H

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned int gfp_t;

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

#endif /* TIMEQ_COMPAT_H */
