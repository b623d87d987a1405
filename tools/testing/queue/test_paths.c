// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace tests of module/paths.c, fast.c, handoff.c, life.c, clock.c and
 * base.c, built against compat/: the KUnit suite of kunit/paths_test.c
 * through the <kunit/test.h> stand-in (the cases a kernel is not needed
 * for), and the white-box suite of paths_white.c, which includes paths.c,
 * fast.c and handoff.c themselves to reach their decisions one at a time.
 * Nothing runs but the test: the kick, the work and the hrtimer run when a
 * case runs them, on a virtual clock, so every case runs the same every
 * time. Output is TAP.
 *
 *	test_paths
 */
#include <signal.h>
#include <unistd.h>

#include <kunit/test.h>

/* A case that waits for what nothing will do hangs: fail instead. */
#define TEST_PATHS_ALARM	300	/* seconds; the run takes well under one */

static unsigned int tap_count, tap_failed;

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - a case hung: something waits that nothing will wake\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(1);
}

static void tap_report(bool ok, const char *name)
{
	printf("%sok %u - %s\n", ok ? "" : "not ", ++tap_count, name);
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: test_paths\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm(TEST_PATHS_ALARM);
	printf("TAP version 13\n");
	compat_kunit_run_all(tap_report);
	if (compat_allocations) {
		printf("not ok %u - %ld allocations left\n", ++tap_count,
		       compat_allocations);
		tap_failed++;
	}
	printf("1..%u\n", tap_count);
	printf("# %u passed, %u failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
