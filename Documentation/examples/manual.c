// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/timeq with the structures of <linux/timeq.h> filled by hand: a
 * manual clock, three elements, an advance that expires two, and the two
 * events read() returns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/timeq.h>

int main(void)
{
	struct timeq_configure c = { .size = sizeof(c) };
	struct timeq_advance adv = { .size = sizeof(adv) };
	struct timeq_event ev[4];
	ssize_t n, i;
	int fd, k;

	fd = open("/dev/timeq", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/timeq");
		return 1;
	}
	c.clock = TIMEQ_CLOCK_MANUAL;
	c.horizon = 1000;
	if (ioctl(fd, TIMEQ_CONFIGURE, &c)) {
		perror("TIMEQ_CONFIGURE");
		return 1;
	}
	for (k = 0; k < 3; k++) {
		struct timeq_insert in = {
			.size = sizeof(in), .time = 100 * (k + 1), .cookie = k,
		};

		if (ioctl(fd, TIMEQ_INSERT, &in)) {
			perror("TIMEQ_INSERT");
			return 1;
		}
		printf("element %d at %llu: handle %llx\n", k,
		       (unsigned long long)in.time,
		       (unsigned long long)in.handle);
	}
	adv.time = 250;
	printf("advance to 250: %d expired\n", ioctl(fd, TIMEQ_ADVANCE, &adv));
	n = read(fd, ev, sizeof(ev));
	for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
		printf("event: cookie %llu, time %llu\n",
		       (unsigned long long)ev[i].cookie,
		       (unsigned long long)ev[i].time);
	close(fd);
	return n == 2 * sizeof(ev[0]) ? 0 : 1;
}
