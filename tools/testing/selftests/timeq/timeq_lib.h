/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the /dev/timeq test programs beside timeq_test.c share: thin
 * wrappers over the ioctls, the errno each command may document
 * (include/uapi/linux/timeq.h), a seeded random generator, the module
 * parameters, fault injection (failslab, fail_page_alloc, fail-nth,
 * make-it-fail), and loading and unloading modules by system call. Header
 * only, every function static: each program takes what it uses.
 *
 * Nothing here sleeps in place of synchronising, and nothing depends on
 * the host's speed.
 */
#ifndef TIMEQ_LIB_H
#define TIMEQ_LIB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/timeq.h>

#define TQ_DEV		"/dev/timeq"
#define TQ_PARAM	"/sys/module/timeq/parameters/"
#define TQ_PAGE		4096
#define TQ_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- the ioctls --- */

static inline int tq_configure_manual(int fd, __u64 start, __u64 horizon,
				      __u32 cap)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MANUAL,
		.start = start, .horizon = horizon, .max_elements = cap,
	};

	return ioctl(fd, TIMEQ_CONFIGURE, &c);
}

static inline int tq_configure_mono(int fd, __u64 granularity, __u64 horizon,
				    __u32 cap)
{
	struct timeq_configure c = {
		.size = sizeof(c), .clock = TIMEQ_CLOCK_MONOTONIC,
		.granularity = granularity, .horizon = horizon,
		.max_elements = cap,
	};

	return ioctl(fd, TIMEQ_CONFIGURE, &c);
}

static inline int tq_insert(int fd, __u64 time, __u64 cookie, __u64 *handle)
{
	struct timeq_insert in = {
		.size = sizeof(in), .time = time, .cookie = cookie,
	};
	int ret = ioctl(fd, TIMEQ_INSERT, &in);

	if (!ret && handle)
		*handle = in.handle;
	return ret;
}

static inline int tq_delete(int fd, __u64 handle)
{
	struct timeq_delete del = { .size = sizeof(del), .handle = handle };

	return ioctl(fd, TIMEQ_DELETE, &del);
}

static inline int tq_update(int fd, __u64 handle, __u64 time)
{
	struct timeq_update up = {
		.size = sizeof(up), .handle = handle, .time = time,
	};

	return ioctl(fd, TIMEQ_UPDATE, &up);
}

/* TIMEQ_MIN or TIMEQ_DELETE_MIN into *@e. */
static inline int tq_element(int fd, unsigned long cmd, struct timeq_element *e)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	return ioctl(fd, cmd, e);
}

/* TIMEQ_ADVANCE: how many expired, or -1. */
static inline int tq_advance(int fd, __u64 time)
{
	struct timeq_advance adv = { .size = sizeof(adv), .time = time };

	return ioctl(fd, TIMEQ_ADVANCE, &adv);
}

/* TIMEQ_BATCH of @count struct timeq_op: how many applied, or -1. */
static inline int tq_batch(int fd, struct timeq_op *ops, __u32 count)
{
	struct timeq_batch b = {
		.size = sizeof(b), .count = count, .ops = (uintptr_t)ops,
		.entry_len = sizeof(*ops),
	};

	return ioctl(fd, TIMEQ_BATCH, &b);
}

/* TIMEQ_STATS; .size is 0 if it failed. */
static inline struct timeq_stats tq_stats(int fd)
{
	struct timeq_stats st = { .size = sizeof(st) };

	if (ioctl(fd, TIMEQ_STATS, &st))
		st.size = 0;
	return st;
}

static inline __u64 tq_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --- the errno table of include/uapi/linux/timeq.h --- */

/*
 * The errno each command may fail with, as the header's "Errors" list
 * documents it: those every command may fail with, ENOTTY (an unknown
 * number), EFAULT, EINVAL and E2BIG (its structure), then each
 * command's own, by command number minus TIMEQ_CMD_CONFIGURE. Each list
 * ends in 0.
 */
static const int tq_errno_any[] = { ENOTTY, EFAULT, EINVAL, E2BIG, 0 };

static const int tq_errno_documented[][8] = {
	/* CONFIGURE */
	{ EBUSY, EMFILE, ENOMEM, EOPNOTSUPP },
	/* INSERT */
	{ EBADFD, ENOMEM, ERANGE, ENOSPC },
	/* DELETE */
	{ EBADFD, ENOENT },
	/* UPDATE */
	{ EBADFD, ENOENT, ERANGE },
	/* MIN */
	{ EBADFD, ENODATA },
	/* DELETE_MIN */
	{ EBADFD, ENODATA, EOPNOTSUPP },
	/* ADVANCE */
	{ EBADFD, EOPNOTSUPP },
	/* STATS */
	{ 0 },
	/* BATCH: the ioctl itself; its operations are below */
	{ EBADFD },
};

/* What the result of one operation of a batch may be, negated. */
static const int tq_op_errno_documented[] = {
	EINVAL, E2BIG, EOPNOTSUPP, ENOMEM, ERANGE, ENOSPC, ENOENT, 0
};

/* read(): the errors of its paragraph, and EBADFD. */
static const int tq_read_errno_documented[] = {
	EFAULT, EINVAL, EBADFD, EAGAIN, EINTR, 0
};

static inline int tq_errno_in(const int *list, int err)
{
	for (; *list; list++)
		if (*list == err)
			return 1;
	return 0;
}

/* Whether @err may come from ioctl(@cmd); ENOTTY alone for an unknown one. */
static inline int tq_errno_ok(unsigned long cmd, int err)
{
	unsigned int nr = _IOC_NR(cmd) - TIMEQ_CMD_CONFIGURE;

	if (err <= 0)
		return 0;
	if (cmd != _IO(TIMEQ_TYPE, _IOC_NR(cmd)) ||
	    _IOC_NR(cmd) < TIMEQ_CMD_CONFIGURE ||
	    nr >= TQ_ARRAY_SIZE(tq_errno_documented))
		return err == ENOTTY;
	return tq_errno_in(tq_errno_any, err) ||
	       tq_errno_in(tq_errno_documented[nr], err);
}

/* The name of a command, for messages. */
static inline const char *tq_cmd_name(unsigned long cmd)
{
	static const char *const names[] = {
		"CONFIGURE", "INSERT", "DELETE", "UPDATE", "MIN",
		"DELETE_MIN", "ADVANCE", "STATS", "BATCH",
	};
	unsigned int nr = _IOC_NR(cmd) - TIMEQ_CMD_CONFIGURE;

	if (cmd != _IO(TIMEQ_TYPE, _IOC_NR(cmd)) ||
	    _IOC_NR(cmd) < TIMEQ_CMD_CONFIGURE || nr >= TQ_ARRAY_SIZE(names))
		return "unknown";
	return names[nr];
}

/* A short name of an errno, for the tallies the programs print. */
static inline const char *tq_errno_name(int err)
{
	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENODATA: return "ENODATA";
	case E2BIG: return "E2BIG";
	case EBADFD: return "EBADFD";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ESHUTDOWN: return "ESHUTDOWN";
	default: return strerror(err);
	}
}

/* --- a seeded generator: splitmix64, the same on 32- and 64-bit --- */

static inline __u64 tq_rand(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n), @n > 0. */
static inline __u64 tq_below(__u64 *state, __u64 n)
{
	return tq_rand(state) % n;
}

/* --- files and module parameters --- */

static inline int tq_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

/* The first line of @path, without its newline. */
static inline int tq_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static inline long long tq_read_ll(const char *path)
{
	char buf[64];

	if (tq_read_file(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

static inline unsigned long long tq_param(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), TQ_PARAM "%s", name);
	if (tq_read_file(path, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

/* --- fault injection --- */

/*
 * Run @fn(@arg) with the @nth fault-injection point of this thread
 * failing: its return value, errno in *@err, and in *@injected whether
 * the call got as far as the nth point. -2 if fail-nth could not be set
 * (then *@err and *@injected are 0).
 */
static inline int tq_with_nth(int (*fn)(void *), void *arg, int nth,
			      int *injected, int *err)
{
	int fail = open("/proc/thread-self/fail-nth", O_RDWR), ret;
	char buf[16];

	*injected = 0;
	*err = 0;
	if (fail < 0)
		return -2;
	snprintf(buf, sizeof(buf), "%d", nth);
	if (write(fail, buf, strlen(buf)) != (ssize_t)strlen(buf)) {
		close(fail);
		return -2;
	}
	ret = fn(arg);
	*err = errno;
	memset(buf, 0, sizeof(buf));
	if (pread(fail, buf, sizeof(buf) - 1, 0) <= 0)
		ret = -2;
	*injected = atoi(buf) == 0;
	if (pwrite(fail, "0", 1, 0) != 1)
		ret = -2;
	close(fail);
	return ret;
}

struct tq_ioctl_call {
	int		fd;
	unsigned long	cmd;
	void		*arg;
};

static inline int tq_ioctl_call(void *arg)
{
	struct tq_ioctl_call *c = arg;

	return ioctl(c->fd, c->cmd, c->arg);
}

/* ioctl(@fd, @cmd, @arg) under tq_with_nth(). */
static inline int tq_ioctl_nth(int fd, unsigned long cmd, void *arg, int nth,
			       int *injected, int *err)
{
	struct tq_ioctl_call c = { .fd = fd, .cmd = cmd, .arg = arg };

	return tq_with_nth(tq_ioctl_call, &c, nth, injected, err);
}

#define TQ_FAILSLAB	"/sys/kernel/debug/failslab/"
#define TQ_FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"

/* The settings of one fault attribute that the programs change. */
static const char *const tq_fault_knobs[] = {
	"probability", "interval", "times", "space", "verbose",
	"task-filter", "ignore-gfp-wait", "ignore-gfp-highmem", "min-order",
	"cache-filter",
};

struct tq_fault_saved {
	char	value[TQ_ARRAY_SIZE(tq_fault_knobs)][32];
	int	have[TQ_ARRAY_SIZE(tq_fault_knobs)];
	int	saved;
};

static inline void tq_fault_save(const char *dir, struct tq_fault_saved *s)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < TQ_ARRAY_SIZE(tq_fault_knobs); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, tq_fault_knobs[i]);
		s->have[i] = !tq_read_file(path, s->value[i],
					   sizeof(s->value[i]));
	}
	s->saved = 1;
}

static inline void tq_fault_restore(const char *dir,
				    const struct tq_fault_saved *s)
{
	char path[128];
	unsigned int i;

	if (!s->saved)
		return;
	for (i = 0; i < TQ_ARRAY_SIZE(tq_fault_knobs); i++) {
		if (!s->have[i])
			continue;
		snprintf(path, sizeof(path), "%s%s", dir, tq_fault_knobs[i]);
		tq_write_file(path, s->value[i]);
	}
}

static inline int tq_fault_set(const char *dir, const char *knob,
			       const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", dir, knob);
	return tq_write_file(path, value);
}

/* Whether this kernel has the fault attribute @dir (debugfs mounted). */
static inline int tq_fault_present(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%sprobability", dir);
	return !access(path, W_OK);
}

/*
 * Arm @dir to fail @percent of the allocations of tasks that have
 * make-it-fail set, sleeping ones (GFP_KERNEL) included, of any order
 * (fail_page_alloc skips order 0 by default), quietly, for ever (times
 * counts down from @times: the difference is how many were failed). 0
 * disarms it, but leaves fail-nth working.
 */
static inline int tq_fault_arm(const char *dir, int percent, long times)
{
	char buf[32];

	if (!strcmp(dir, TQ_FAILPAGE) && tq_fault_set(dir, "min-order", "0"))
		return -1;
	if (tq_fault_set(dir, "task-filter", "Y") ||
	    tq_fault_set(dir, "verbose", "0") ||
	    tq_fault_set(dir, "ignore-gfp-wait", "N") ||
	    tq_fault_set(dir, "interval", "1") ||
	    tq_fault_set(dir, "space", "0"))
		return -1;
	snprintf(buf, sizeof(buf), "%ld", times);
	if (tq_fault_set(dir, "times", buf))
		return -1;
	snprintf(buf, sizeof(buf), "%d", percent);
	return tq_fault_set(dir, "probability", buf);
}

/* How many failures @dir has left to inject (see tq_fault_arm()). */
static inline long tq_fault_left(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%stimes", dir);
	return tq_read_ll(path);
}

/*
 * An open /proc/thread-self/make-it-fail of the calling thread, to turn
 * it on and off with tq_make_it_fail() without allocating anything in
 * between (opening a file does).
 */
static inline int tq_make_it_fail_open(void)
{
	return open("/proc/thread-self/make-it-fail", O_RDWR | O_CLOEXEC);
}

static inline int tq_make_it_fail(int fd, int on)
{
	return pwrite(fd, on ? "1" : "0", 1, 0) == 1 ? 0 : -1;
}

/* --- modules, by system call (busybox's insmod would do the same) --- */

static inline int tq_load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, err;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static inline int tq_unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

/* Whether module @name is in /proc/modules. */
static inline int tq_module_loaded(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	FILE *f = fopen("/proc/modules", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, len) && line[len] == ' ';
	fclose(f);
	return found;
}

#endif /* TIMEQ_LIB_H */
