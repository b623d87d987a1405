/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/random.h>: numbers from a fixed seed, so that a test that draws
 * them runs the same every time (the kernel's are random).
 */
#ifndef TIMEQ_COMPAT_RANDOM_H
#define TIMEQ_COMPAT_RANDOM_H

#include "../compat.h"

/* splitmix64, one shared state: the tests that draw run in one thread. */
static inline u64 get_random_u64(void)
{
	static u64 state = 1;
	u64 z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u32 get_random_u32(void)
{
	return get_random_u64() >> 32;
}

#endif /* TIMEQ_COMPAT_RANDOM_H */
