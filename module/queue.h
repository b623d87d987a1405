/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of queue.c that its KUnit tests reach: static in a kernel
 * without KUnit, exported to the EXPORTED_FOR_KUNIT_TESTING namespace in
 * one with it (include/kunit/visibility.h).
 */
#ifndef _TIMEQ_QUEUE_H
#define _TIMEQ_QUEUE_H

#include <linux/timeq.h>

/* "No bit found" from timeq_bitmap_next(). */
#define TIMEQ_NONE	ULONG_MAX

#if IS_ENABLED(CONFIG_KUNIT)
size_t timeq_bitmap_words(unsigned long nbits);
unsigned long *timeq_bitmap_init(struct timeq_bitmap *map, unsigned long *mem,
				 unsigned long nbits);
void timeq_bitmap_set(struct timeq_bitmap *map, unsigned long bit);
void timeq_bitmap_clear(struct timeq_bitmap *map, unsigned long bit);
unsigned long timeq_bitmap_next(const struct timeq_bitmap *map,
				unsigned long bit);
#endif

#endif /* _TIMEQ_QUEUE_H */
