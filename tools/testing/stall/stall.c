// SPDX-License-Identifier: GPL-2.0
/*
 * stall: what a user can make /dev/timeq do to the rest of the machine.
 * A benchmark, run in a qemu guest (make bench-stall); it prints figures
 * and asserts nothing about time.
 *
 * A SCHED_FIFO thread and the workload share CPU 0. The FIFO thread sleeps
 * 1 ms at a time and notes how late it wakes: the kernel can only run it
 * late while CPU 0 holds a spinlock, has bottom halves off, or runs a
 * syscall with no reschedule point, so its worst lateness during a
 * workload is the longest stall that workload caused. The workloads are
 * the ones the hardening of /dev/timeq found to walk a whole bucket in
 * one lock hold, each with @nodes elements:
 *
 *	far	every element at one far time; then insert an element at the
 *		clock and delete it, again and again
 *	advance	every element at one time; one ADVANCE expires them all
 *	close	close() of a file holding every element
 *	refresh	a CLOCK_MONOTONIC file, 1 ms ticks, 65,536 time-outs at now
 *		+ 300 s; then inserts at now + 300 s, one a millisecond, so
 *		that the tick has moved before each: the cost of an insert
 *		beside refreshed time-outs
 *
 * Only commands whose layout every version of the ABI shares are used, so
 * the same binary measures an older timeq.ko too: TIMEQ_ADVANCE goes with
 * the 24 bytes its first version had, the last 8 of them zero.
 *
 *	stall [--nodes N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/timeq.h>

#define HORIZON		(1ULL << 24)
#define REFRESH_TIMERS	65536
#define REFRESH_TICK	1000000ULL	/* ns */
#define REFRESH_AHEAD	300000ULL	/* ticks: 300 s */

static unsigned long nodes = 1UL << 18;
static volatile int running = 1;
static volatile int64_t worst_ns;	/* the FIFO thread's, since reset */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *fifo_thread(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ts;
	int64_t want, late;

	(void)arg;
	pin0();
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("stall: SCHED_FIFO");
	while (running) {
		want = now_ns() + 1000000;
		ts.tv_sec = want / 1000000000;
		ts.tv_nsec = want % 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		late = now_ns() - want;
		if (late > worst_ns)
			worst_ns = late;
	}
	return NULL;
}

static int open_file(__u32 clock, __u64 gran, __u64 start, __u32 cap)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = clock, .granularity = gran,
		.start = start, .horizon = clock ? REFRESH_AHEAD * 4 : HORIZON,
		.max_elements = cap,
	};
	int fd = open("/dev/timeq", O_RDWR);

	if (fd < 0 || ioctl(fd, TIMEQ_CONFIGURE, &c)) {
		perror("stall: /dev/timeq");
		exit(1);
	}
	return fd;
}

static __u64 insert(int fd, __u64 time)
{
	struct timeq_insert in = { .size = sizeof(in), .time = time };

	if (ioctl(fd, TIMEQ_INSERT, &in)) {
		fprintf(stderr, "stall: insert at %llu: %s\n",
			(unsigned long long)time, strerror(errno));
		exit(1);
	}
	return in.handle;
}

static void delete(int fd, __u64 handle)
{
	struct timeq_delete d = { .size = sizeof(d), .handle = handle };

	if (ioctl(fd, TIMEQ_DELETE, &d)) {
		perror("stall: delete");
		exit(1);
	}
}

/* The first version of struct timeq_advance: 24 bytes, the tail zero. */
struct advance_v0 {
	struct timeq_advance	a;
	__u64			tail;
};

static void report(const char *name, unsigned long ops, int64_t ns, int64_t max)
{
	printf("  %-8s %8lu ops, %9.1f us per op (max %8.1f), FIFO thread late by at most %8.1f us\n",
	       name, ops, ops ? ns / 1e3 / ops : 0.0, max / 1e3, worst_ns / 1e3);
}

static void far(void)
{
	int fd = open_file(TIMEQ_CLOCK_MANUAL, 0, 0, nodes + 1);
	int64_t t0, t, max = 0, total = 0;
	unsigned long i;
	__u64 h;

	for (i = 0; i < nodes; i++)
		insert(fd, HORIZON / 2);
	worst_ns = 0;
	for (i = 0; i < 2000; i++) {
		t0 = now_ns();
		h = insert(fd, 0);
		delete(fd, h);
		t = now_ns() - t0;
		total += t;
		max = t > max ? t : max;
	}
	report("far", 2000, total, max);
	close(fd);
}

static void advance(void)
{
	int fd = open_file(TIMEQ_CLOCK_MANUAL, 0, 0, nodes);
	struct advance_v0 adv = { .a = { .size = sizeof(adv), .time = 101 } };
	unsigned long i;
	int64_t t0, t;

	for (i = 0; i < nodes; i++)
		insert(fd, 100);
	worst_ns = 0;
	t0 = now_ns();
	if (ioctl(fd, TIMEQ_ADVANCE, &adv) < 0)
		perror("stall: advance");
	t = now_ns() - t0;
	report("advance", 1, t, t);
	close(fd);
}

static void close_full(void)
{
	int fd = open_file(TIMEQ_CLOCK_MANUAL, 0, 0, nodes);
	unsigned long i;
	int64_t t0, t;

	for (i = 0; i < nodes; i++)
		insert(fd, i % HORIZON);
	worst_ns = 0;
	t0 = now_ns();
	close(fd);
	t = now_ns() - t0;
	report("close", 1, t, t);
}

static void refresh(void)
{
	int fd = open_file(TIMEQ_CLOCK_MONOTONIC, REFRESH_TICK, 0,
			   REFRESH_TIMERS + 2048);
	int64_t t0, t, max = 0, total = 0;
	struct timespec ms = { 0, 1000000 };
	unsigned long i;
	__u64 tick;

	tick = now_ns() / REFRESH_TICK;
	for (i = 0; i < REFRESH_TIMERS; i++)
		insert(fd, tick + REFRESH_AHEAD + i % 1000);
	worst_ns = 0;
	for (i = 0; i < 1024; i++) {
		nanosleep(&ms, NULL);
		tick = now_ns() / REFRESH_TICK;
		t0 = now_ns();
		insert(fd, tick + REFRESH_AHEAD);
		t = now_ns() - t0;
		total += t;
		max = t > max ? t : max;
	}
	report("refresh", 1024, total, max);
	close(fd);
}

int main(int argc, char **argv)
{
	pthread_t fifo;

	if (argc == 3 && !strcmp(argv[1], "--nodes"))
		nodes = strtoul(argv[2], NULL, 0);
	else if (argc != 1)
		return 2;
	pin0();
	pthread_create(&fifo, NULL, fifo_thread, NULL);
	printf("stall: %lu elements a workload; the workload and a SCHED_FIFO thread on CPU 0\n",
	       nodes);
	far();
	advance();
	close_full();
	refresh();
	running = 0;
	pthread_join(fifo, NULL);
	return 0;
}
