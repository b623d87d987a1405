// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace benchmark's output: the machine and compiler, one table of
 * ns/op per workload and jump distribution with timeq's ratio to every
 * structure, bytes per element, the targets (met, or missed by how
 * much), results.csv, and a gnuplot script per workload drawing ns/op
 * against N, one panel per distribution (tools/bench/bench.sh runs them
 * into PNG and SVG).
 *
 * A ratio to a peer is the peer's time over timeq's: how many times faster
 * timeq is. A ratio to the floor or the limit is timeq's time over theirs:
 * what timeq pays above the bound.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "output.h"

static const char *label(int p)
{
	return p == P_FLOOR ? "wheel=floor" : p == P_LIMIT ? "direct=limit" :
	       peers[p]->name;
}

static const char *pow10_name(uint32_t n)
{
	static char buf[8][16];
	static int i;
	char *b = buf[i++ % 8];
	int e = 0;
	uint32_t m = n;

	while (m >= 10 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (m == 1 && e)
		snprintf(b, 16, "10^%d", e);
	else
		snprintf(b, 16, "%u", n);
	return b;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], *v;

	snprintf(buf, len, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		v = strchr(line, ':');
		if (v) {
			snprintf(buf, len, "%s", v + 2);
			buf[strcspn(buf, "\n")] = 0;
		}
		break;
	}
	fclose(f);
}

void print_header(const struct bench_run *run)
{
	struct utsname u;
	char cpu[128];
	int p;

	cpu_model(cpu, sizeof(cpu));
	uname(&u);
	printf("timeq userspace benchmark\n");
	printf("  machine:  %s, %ld cores online, Linux %s\n", cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), u.release);
	printf("  compiler: gcc %s, -O2 -DNDEBUG (module/queue.c and paths.c unchanged, tools/testing/queue/compat, COMPAT_BENCH locks)\n",
	       __VERSION__);
	printf("  peers:   ");
	for (p = 0; p < NPEERS; p++)
		if (peers[p]->version)
			printf(" %s %s", peers[p]->name, peers[p]->version());
	printf(", rbtree from linux-source-6.12\n");
	printf("  method:   each cell's sequence generated once; every structure runs the same\n"
	       "            %llu-operation segments, one warm-up then 5 timed, interleaved; ns/op is the\n"
	       "            median of the 5 and the spread (max - min) / median; every removal is\n"
	       "            checked against a reference, in order\n",
	       (unsigned long long)run->ops);
	printf("  how each structure is driven:\n");
	for (p = 0; p < NPEERS; p++)
		printf("    %-13s %s\n", label(p), peers[p]->how);
	printf("\n");
	fflush(stdout);
}

void print_progress(const struct cell *c, double seconds)
{
	int p;

	fprintf(stderr, "bench: %-7s %-7s N=%-7u", workload_name[c->wl],
		dist_name[c->dist], c->n);
	for (p = 0; p < NPEERS; p++)
		if (c->r[p].ran)
			fprintf(stderr, " %s %.1f", peers[p]->name, c->r[p].med);
	fprintf(stderr, " (%.1f s)\n", seconds);
}

static const struct cell *find(const struct bench_run *run, enum workload wl,
			       enum dist d, uint32_t n)
{
	int i;

	for (i = 0; i < run->ncells; i++)
		if (run->cells[i].wl == wl && run->cells[i].dist == d &&
		    (!n || run->cells[i].n == n))
			return &run->cells[i];
	return NULL;
}

static void print_table(const struct bench_run *run, enum workload wl,
			enum dist d)
{
	const struct cell *c;
	int i, p;

	printf("  jumps %s; ns/op, median of 5 +- spread\n", dist_title[d]);
	printf("  %8s", "N");
	for (p = 0; p < NPEERS; p++)
		printf(" %14s", label(p));
	printf("\n");
	for (i = 0; i < run->ncells; i++) {
		c = &run->cells[i];
		if (c->wl != wl || c->dist != d)
			continue;
		printf("  %8s", pow10_name(c->n));
		for (p = 0; p < NPEERS; p++) {
			if (!c->r[p].ran)
				printf(" %14s", "-");
			else
				printf(" %9.1f +%2.0f%%", c->r[p].med,
				       100 * (c->r[p].max - c->r[p].min) / c->r[p].med);
		}
		printf("\n");
	}
	printf("  timeq's ratios: peer / timeq (x faster); timeq / floor and / limit\n");
	for (i = 0; i < run->ncells; i++) {
		c = &run->cells[i];
		if (c->wl != wl || c->dist != d)
			continue;
		printf("  %8s", pow10_name(c->n));
		for (p = 0; p < NPEERS; p++) {
			if (p == P_TIMEQ || !c->r[p].ran)
				continue;
			if (p == P_FLOOR || p == P_LIMIT)
				printf(" %s %.2f", p == P_FLOOR ? "| floor" : "limit",
				       c->r[P_TIMEQ].med / c->r[p].med);
			else
				printf(" %s %.2fx", peers[p]->name,
				       c->r[p].med / c->r[P_TIMEQ].med);
		}
		printf("   (%s, mean jump %llu)\n", c->r[P_TIMEQ].shape,
		       (unsigned long long)c->mean);
		if (c->r[P_STORE].ran)
			printf("  %8s %s: %s\n", "", peers[P_STORE]->name,
			       c->r[P_STORE].shape);
	}
}

void print_tables(const struct bench_run *run)
{
	int w, d;

	for (w = 0; w < NWORKLOADS; w++) {
		if (!find(run, w, D_EXP, 0) && !find(run, w, D_UNIFORM, 0) &&
		    !find(run, w, D_BIMODAL, 0) && !find(run, w, D_CONST, 0))
			continue;
		printf("== %s\n", workload_title[w]);
		for (d = 0; d < NDISTS; d++)
			if (find(run, w, d, 0))
				print_table(run, w, d);
		printf("\n");
	}
}

/* Bytes, from the cells of one workload that start full (W2, else W1). */
void print_memory(const struct bench_run *run)
{
	enum workload wl = find(run, W2_CHURN, D_UNIFORM, 0) ? W2_CHURN : W1_HOLD;
	const struct cell *c;
	int i, p;

	if (!find(run, wl, D_UNIFORM, 0))
		return;
	printf("== Memory (%s, uniform jumps): the element each timer embeds, then all the\n"
	       "   structure allocated holding N timers, per timer, and what is left beside N\n"
	       "   elements (the fixed part, plus any per-element array of its own)\n",
	       workload_name[wl]);
	printf("  %-13s %7s", "structure", "element");
	for (i = 0; i < run->ncells; i++)
		if (run->cells[i].wl == wl && run->cells[i].dist == D_UNIFORM)
			printf("  %13s", pow10_name(run->cells[i].n));
	printf("\n");
	for (p = 0; p < NPEERS; p++) {
		size_t elem = peers[p]->elem_bytes();

		printf("  %-13s %7zu", label(p), elem);
		for (i = 0; i < run->ncells; i++) {
			c = &run->cells[i];
			if (c->wl != wl || c->dist != D_UNIFORM)
				continue;
			printf("  %5.1f %7zu", (double)c->r[p].bytes / c->n,
			       c->r[p].bytes > elem * c->n ?
			       c->r[p].bytes - elem * c->n : 0);
		}
		printf("\n");
	}
	printf("  (each N: bytes per timer, all told; fixed bytes)\n\n");
}

static double fastest_peer(const struct cell *c, int *which)
{
	double best = INFINITY;
	int p;

	for (p = 0; p < NPEERS; p++) {
		if (!IS_PEER(p) || !c->r[p].ran || c->r[p].med >= best)
			continue;
		best = c->r[p].med;
		*which = p;
	}
	return best;
}

/*
 * One target over every (distribution, N) point of a workload: timeq over
 * the floor, the fastest peer over timeq, or timeq at 10^6 over timeq at
 * 10^3, against @goal (met when at most @goal, or for T_PEER at least).
 */
struct target {
	const char	*text;
	enum workload	wl;
	uint32_t	only_n;		/* 0: every N */
	int		kind;
	double		goal;
	int		who;		/* P_TIMEQ, or P_STORE */
};

enum { T_FLOOR, T_PEER, T_GROWTH };

static void print_target(const struct bench_run *run, const struct target *t)
{
	int i, points = 0, met = 0, which = 0;
	const struct cell *c, *small;
	char missed[2048] = "";
	double v;
	size_t len = 0;

	for (i = 0; i < run->ncells; i++) {
		c = &run->cells[i];
		if (c->wl != t->wl || (t->only_n && c->n != t->only_n))
			continue;
		switch (t->kind) {
		case T_FLOOR:
			if (!c->r[P_FLOOR].ran)
				continue;
			if (!c->r[t->who].ran)
				continue;
			v = c->r[t->who].med / c->r[P_FLOOR].med;
			break;
		case T_PEER:
			v = fastest_peer(c, &which) / c->r[P_TIMEQ].med;
			break;
		default:
			if (c->n != 1000000)
				continue;
			small = find(run, c->wl, c->dist, 1000);
			if (!small)
				continue;
			v = c->r[P_TIMEQ].med / small->r[P_TIMEQ].med;
			break;
		}
		points++;
		if (t->kind == T_PEER ? v >= t->goal : v <= t->goal) {
			met++;
			continue;
		}
		if (len < sizeof(missed) - 128) {
			if (t->kind == T_PEER)
				len += snprintf(missed + len, sizeof(missed) - len,
						"\n      %s N=%s: %.2fx faster than %s, short by %.2fx",
						dist_name[c->dist], pow10_name(c->n), v,
						peers[which]->name, t->goal / v);
			else
				len += snprintf(missed + len, sizeof(missed) - len,
						"\n      %s N=%s: %.2fx, over by %.2fx",
						dist_name[c->dist], pow10_name(c->n), v,
						v / t->goal);
		}
	}
	if (!points)
		return;
	printf("  %-58s %s (%d of %d points)%s\n", t->text,
	       met == points ? "MET" : "MISSED", met, points, missed);
}

void print_targets(const struct bench_run *run)
{
	static const struct target targets[] = {
		{ "W2 churn: timeq within 1.5x the floor at every N", W2_CHURN, 0, T_FLOOR, 1.5, P_TIMEQ },
		{ "W2 churn: at least 2x faster than the fastest peer", W2_CHURN, 0, T_PEER, 2, P_TIMEQ },
		{ "W1 hold: at least 2x faster than the fastest peer", W1_HOLD, 0, T_PEER, 2, P_TIMEQ },
		{ "W1 hold: at least 8x faster at N = 10^6", W1_HOLD, 1000000, T_PEER, 8, P_TIMEQ },
		{ "W3 refresh moves: at or below the floor's cost", W3_MOVE, 0, T_FLOOR, 1, P_TIMEQ },
		{ "W3 refresh moves, timeq-store: at or below the floor's", W3_MOVE, 0, T_FLOOR, 1, P_STORE },
		{ "W1 hold growth: ns/op at 10^6 at most 3x that at 10^3", W1_HOLD, 0, T_GROWTH, 3, P_TIMEQ },
	};
	unsigned int i;

	printf("== Targets (figures, printed, never asserted); peers are\n"
	       "   libuv, libevent, libev and rbtree; a point is a (distribution, N); the\n"
	       "   floor runs where it is one (churn, and W3's refresh moves)\n");
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		print_target(run, &targets[i]);
	printf("\n");
}

static int mkdirs(const char *dir)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s", dir);
	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int write_csv(const struct bench_run *run, const char *dir)
{
	char path[600];
	const struct cell *c;
	FILE *f;
	int i, p, s;

	if (mkdirs(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "workload,dist,n,mean_jump,structure,median_ns,min_ns,max_ns,spread_pct,seg1_ns,seg2_ns,seg3_ns,seg4_ns,seg5_ns,ops_per_seg,elem_bytes,bytes_total,shape\n");
	for (i = 0; i < run->ncells; i++) {
		c = &run->cells[i];
		for (p = 0; p < NPEERS; p++) {
			if (!c->r[p].ran)
				continue;
			fprintf(f, "%s,%s,%u,%llu,%s,%.2f,%.2f,%.2f,%.1f",
				workload_name[c->wl], dist_name[c->dist], c->n,
				(unsigned long long)c->mean, peers[p]->name,
				c->r[p].med, c->r[p].min, c->r[p].max,
				100 * (c->r[p].max - c->r[p].min) / c->r[p].med);
			for (s = 1; s < BENCH_SEGS; s++)
				fprintf(f, ",%.2f", c->r[p].ns[s]);
			fprintf(f, ",%llu,%zu,%zu,%s\n", (unsigned long long)run->ops,
				peers[p]->elem_bytes(), c->r[p].bytes, c->r[p].shape);
		}
	}
	fclose(f);
	printf("wrote %s\n", path);
	return 0;
}

/* One data file per workload and distribution: N, then each structure's
 * median, min and max (NaN where it did not run). */
static int write_data(const struct bench_run *run, const char *dir,
		      enum workload wl, enum dist d)
{
	char path[600];
	const struct cell *c;
	FILE *f;
	int i, p;

	snprintf(path, sizeof(path), "%s/%s-%s.dat", dir, workload_name[wl],
		 dist_name[d]);
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (i = 0; i < run->ncells; i++) {
		c = &run->cells[i];
		if (c->wl != wl || c->dist != d)
			continue;
		fprintf(f, "%u", c->n);
		for (p = 0; p < NPEERS; p++) {
			if (c->r[p].ran)
				fprintf(f, " %.3f %.3f %.3f", c->r[p].med,
					c->r[p].min, c->r[p].max);
			else
				fprintf(f, " NaN NaN NaN");
		}
		fprintf(f, "\n");
	}
	fclose(f);
	return 0;
}

int write_plots(const struct bench_run *run, const char *dir)
{
	static const char *const term[2][2] = {
		{ "pngcairo noenhanced size 1400,1000 font ',10'", "png" },
		{ "svg noenhanced size 1400,1000 dynamic font ',10'", "svg" },
	};
	char path[600];
	int w, d, p, t;
	FILE *f;

	for (w = 0; w < NWORKLOADS; w++) {
		if (!find(run, w, D_EXP, 0) && !find(run, w, D_UNIFORM, 0) &&
		    !find(run, w, D_BIMODAL, 0) && !find(run, w, D_CONST, 0))
			continue;
		for (d = 0; d < NDISTS; d++)
			if (find(run, w, d, 0) && write_data(run, dir, w, d))
				return -1;
		snprintf(path, sizeof(path), "%s/%s.gp", dir, workload_name[w]);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fprintf(f, "# gnuplot %s.gp: ns/op against N, one panel per jump distribution\n",
			workload_name[w]);
		for (t = 0; t < 2; t++) {
			fprintf(f, "set terminal %s\nset output '%s.%s'\n", term[t][0],
				workload_name[w], term[t][1]);
			fprintf(f, "set multiplot layout 2,2 title \"%s (ns/op, median of 5, bars: min to max)\"\n",
				workload_title[w]);
			fprintf(f, "set logscale xy\nset xlabel 'N (timers)'\nset ylabel 'ns per operation'\n"
				   "set key top left font ',8'\nset grid\nset xrange [500:2000000]\n");
			for (d = 0; d < NDISTS; d++) {
				const struct cell *c = find(run, w, d, 0);
				const char *sep = "plot";

				if (!c)
					continue;
				fprintf(f, "set title '%s'\n", dist_title[d]);
				/* Those that ran, each a line of its own colour. */
				for (p = 0; p < NPEERS; p++) {
					if (!c->r[p].ran)
						continue;
					fprintf(f, "%s '%s-%s.dat' using 1:%d:%d:%d with yerrorlines lc %d pt %d title '%s'",
						sep, workload_name[w], dist_name[d],
						2 + 3 * p, 3 + 3 * p, 4 + 3 * p, p + 1,
						p + 1, label(p));
					sep = ",";
				}
				fprintf(f, "\n");
			}
			fprintf(f, "unset multiplot\n");
		}
		fclose(f);
	}
	printf("wrote %s/{hold,churn,refresh,move,storm}.gp and their data\n", dir);
	return 0;
}
