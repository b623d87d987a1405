/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeq: the kernel API as the newest kernel has it, for the older ones
 * timeq builds against. Kbuild puts this file before every source file
 * (-include), as WireGuard's compat layer does, so the code is written for
 * the newest API and nothing else tests a kernel version.
 *
 *	since	the newer API			before it
 *	6.13	hrtimer_setup()			hrtimer_init(), then ->function
 *	6.13	"TIMEQ", a string, names	TIMEQ, an identifier
 *		the symbol namespace
 *	6.16	timer_container_of()		from_timer()
 *
 * The symbol namespaces are named through TIMEQ_NS and TIMEQ_KUNIT_NS,
 * which expand to the form the kernel wants.
 */
#ifndef _TIMEQ_COMPAT_H
#define _TIMEQ_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

#define TIMEQ_NS		TIMEQ
#define TIMEQ_KUNIT_NS		EXPORTED_FOR_KUNIT_TESTING
#else
#define TIMEQ_NS		"TIMEQ"
#define TIMEQ_KUNIT_NS		"EXPORTED_FOR_KUNIT_TESTING"
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

#endif /* _TIMEQ_COMPAT_H */
