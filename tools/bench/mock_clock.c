// SPDX-License-Identifier: GPL-2.0
/*
 * The clock and the poll that libuv, libevent and libev see. None of them
 * can remove the earliest timer, or expire what is due at a given time,
 * except by running its event loop, which reads the time from the system
 * and sleeps in epoll_wait(). This file defines clock_gettime(),
 * gettimeofday() and epoll_wait() in the executable, where the libraries'
 * calls resolve first (symbol interposition): while the mock is on, the
 * monotonic, real-time and boot clocks read the bench's time, and epoll_wait()
 * returns at once with no event, as the kernel would when the loop has no
 * file descriptor ready and the timeout has passed. So a loop iteration
 * runs the library's own timer code on the bench's clock, with no system
 * call. The bench times itself with its thread's CPU time, never mocked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <time.h>

#include "bench.h"

static bool mocking;
static uint64_t mock_ns;

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);

static void *real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn) {
		fprintf(stderr, "bench: no %s in the C library\n", name);
		exit(1);
	}
	return fn;
}

void mock_clock_set_ns(uint64_t ns)
{
	mock_ns = ns;
}

void mock_clock_on(bool on)
{
	mocking = on;
}

/* The clocks an event loop reads the time from; CPU-time clocks are not. */
static bool mocked(clockid_t id)
{
	return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_COARSE ||
	       id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE ||
	       id == CLOCK_BOOTTIME;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (mocking && mocked(id)) {
		ts->tv_sec = mock_ns / 1000000000;
		ts->tv_nsec = mock_ns % 1000000000;
		return 0;
	}
	if (!real_clock_gettime)
		real_clock_gettime = real("clock_gettime");
	return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
	if (mocking)
		return 0;
	if (!real_epoll_wait)
		real_epoll_wait = real("epoll_wait");
	return real_epoll_wait(epfd, events, max, timeout);
}

/*
 * The bench's own clock: this thread's CPU time, so that a segment during
 * which another process had the CPU is not charged for the wait.
 */
uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
