// SPDX-License-Identifier: GPL-2.0
/*
 * libtimeq: three time-outs on CLOCK_MONOTONIC, in ticks of 1 ms, armed in
 * one batch; one is moved earlier and one, far off, cancelled; the two
 * events are read as they come. Every function returns a negative errno
 * on failure.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <timeq/timeq.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

int main(void)
{
	struct timeq_event ev[4];
	struct timeq_op array[3];
	struct timeqfd_ops ops;
	int fd, ret, got = 0;
	ssize_t n, i;

	fd = timeqfd_open(0);
	if (fd < 0) {
		fprintf(stderr, "timeqfd_open: %s\n", strerror(-fd));
		return 1;
	}
	ret = timeqfd_configure_monotonic(fd, 1000000, 60000, 0);
	if (ret) {
		fprintf(stderr, "configure: %s\n", strerror(-ret));
		return 1;
	}
	timeqfd_ops_init(&ops, array, 3);
	timeqfd_ops_insert(&ops, now_ms() + 300, 1);
	timeqfd_ops_insert(&ops, now_ms() + 200, 2);
	timeqfd_ops_insert(&ops, now_ms() + 50000, 3);
	ret = timeqfd_ops_submit(fd, &ops);
	if (ret != 3) {
		fprintf(stderr, "batch: %d applied, %s\n", ret,
			strerror(ret < 0 ? -ret : -array[ret].result));
		return 1;
	}
	/* Time-out 1 comes first now; time-out 3 is cancelled. */
	ret = timeqfd_update(fd, array[0].handle, now_ms() + 100);
	if (!ret)
		ret = timeqfd_delete(fd, array[2].handle);
	if (ret) {
		fprintf(stderr, "update, delete: %s\n", strerror(-ret));
		return 1;
	}
	while (got < 2) {
		n = timeqfd_read(fd, ev, 4);
		if (n < 0) {
			fprintf(stderr, "read: %s\n", strerror(-n));
			return 1;
		}
		for (i = 0; i < n; i++, got++)
			printf("time-out %llu at %llu ms\n",
			       (unsigned long long)ev[i].cookie,
			       (unsigned long long)ev[i].time);
	}
	close(fd);
	return 0;
}
