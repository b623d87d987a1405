/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What module/ sees of a timer base (module/clock.c) beyond its calls in
 * include/linux/timeq.h: the queue it composes, for dev.c's readers and
 * for tests.
 */
#ifndef _TIMEQ_CLOCK_H
#define _TIMEQ_CLOCK_H

#include <linux/timeq.h>

struct timeq *tq_base_queue(struct timeq_base *base);

#endif /* _TIMEQ_CLOCK_H */
