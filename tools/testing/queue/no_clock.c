// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace build has no CLOCK_MONOTONIC facility (module/clock.c needs
 * hrtimers): it creates plain queues only, whose q->clock is NULL, so
 * module/paths.c never calls these.
 */
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"

#include "compat.h"
#include "../../../module/paths.h"

static void no_clock(void)
{
	fprintf(stderr, "module/clock.c called in a userspace build\n");
	abort();
}

void tq_clock_changed(struct timeq *q)
{
	no_clock();
}

void tq_clock_catch_up(struct timeq *q)
{
	no_clock();
}

void tq_clock_expire(struct timeq *q)
{
	no_clock();
}

void tq_clock_kick(struct timeq *q)
{
	no_clock();
}

u64 tq_clock_fast_tick(const struct timeq *q)
{
	no_clock();
	return 0;
}

u64 tq_clock_late(struct timeq *q, const struct timeq_node *node)
{
	no_clock();
	return 0;
}

bool tq_clock_running(struct timeq *q, struct timeq_timer *timer)
{
	no_clock();
	return false;
}

void tq_clock_wait(struct timeq *q, struct timeq_timer *timer)
{
	no_clock();
}

void tq_clock_stop(struct timeq *q)
{
	no_clock();
}

void tq_clock_free(struct timeq *q)
{
	no_clock();
}

/* A plain queue's timers are never due: nothing to cancel. */
bool tq_clock_cancel_due(struct timeq *q, struct timeq_timer *timer)
{
	return false;
}

bool tq_clock_release_step(struct timeq *q)
{
	no_clock();
	return false;
}

int tq_clock_make_room(struct timeq *q, u64 time)
{
	no_clock();
	return 0;
}

int tq_clock_check(struct timeq *q, char *buf, size_t len)
{
	no_clock();
	return 0;
}
