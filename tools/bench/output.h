/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results of a run (harness.c fills them) and the ways output.c
 * prints them: the tables, timeq's ratios, bytes per element, the targets,
 * a CSV file and gnuplot plots.
 */
#ifndef TIMEQ_BENCH_OUTPUT_H
#define TIMEQ_BENCH_OUTPUT_H

#include "bench.h"

/* The structures, in the order of peers[]; the roles output.c needs. */
enum {
	P_TIMEQ, P_LOCKED, P_STORE, P_LIBUV, P_LIBEVENT, P_LIBEV, P_RBTREE, P_FLOOR,
	P_LIMIT, NPEERS
};
/* The peers proper: what timeq must beat (not its own locked API or its
 * timers on a base, not the floor and the limit, which are bounds). */
#define IS_PEER(p)	((p) >= P_LIBUV && (p) <= P_RBTREE)

extern const struct peer *const peers[NPEERS];

struct result {
	bool	ran;
	double	ns[BENCH_SEGS];		/* per segment; 0 is the warm-up */
	double	med, min, max;		/* over the timed segments */
	size_t	bytes;			/* allocated by create(), all told */
	char	shape[96];
};

struct cell {
	enum workload	wl;
	enum dist	dist;
	uint32_t	n;
	uint64_t	mean;
	struct result	r[NPEERS];
};

struct bench_run {
	uint64_t	ops;
	struct cell	*cells;
	int		ncells;
};

void print_header(const struct bench_run *run);
void print_progress(const struct cell *c, double seconds);
void print_tables(const struct bench_run *run);
void print_memory(const struct bench_run *run);
void print_targets(const struct bench_run *run);
int write_csv(const struct bench_run *run, const char *dir);
int write_plots(const struct bench_run *run, const char *dir);

#endif /* TIMEQ_BENCH_OUTPUT_H */
