// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of timeq's costs in the calendar-queue model of Erickson,
 * Ladner and LaMarca ("Optimizing static calendar queues", 2000, section
 * 6). Their expected time per event of a calendar queue with N elements,
 * mean jump mu and bucket width delta, with M large enough, is
 *
 *	K(delta) = b * mu / (N * delta) + c * (1 + N * delta / (2 * mu)) + d
 *
 * b the cost of each bucket the clock passes, c of each element in the
 * current bucket, d of each event. K is linear in b, c and d: time W1
 * (hold: delete-min, insert at its time + jump) over a sweep of delta at
 * fixed N, mu and M, and fit them by least squares. Then check the fit on
 * points it did not see: the other deltas at the same N, and the whole
 * sweep at N / 10 and N * 10, predicted from the same b, c, d.
 *
 * The fit takes the points with lambda = N delta / mu (elements per
 * bucket) of at least 1/2, the region the paper fits in (its example
 * starts at delta = mu / 2N). Below it timeq leaves the model: where the
 * paper's queue visits every empty bucket, timeq's bitmaps skip them in
 * O(1), so its cost stops growing as delta shrinks (b * mu / N delta
 * would grow without bound). Those points are shown, not fitted.
 *
 * The rule of module/tune.h (__timeq_tune()) follows from the fit:
 * the best delta makes lambda = sqrt(2b / c). Over powers of two it takes
 * the least delta with lambda >= sqrt(b / c), where doubling stops paying.
 * For each N the program compares the rule's delta with the best it
 * measured.
 *
 * Each point runs module/queue.c's bare calls (peer_timeq.c) on one
 * generated sequence, a warm-up then five timed runs of OPS operations,
 * the median kept. It prints the table, b, c, d, the residuals, the best
 * delta and the constants for module/tune.h, and writes calibrate.csv
 * and calibrate.gp (predicted against measured, one curve per N).
 *
 *	calibrate [--n N] [--ops OPS] [--out DIR]
 *	calibrate --point N:SHIFT [--ops OPS]	one point, for perf
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

#define MAX_SHIFT	14		/* delta from 2^0 to 2^14 */
#define CAL_M_SHIFT	20		/* M = 2^20: delta * M covers 2^20 */
#define NPTS		(MAX_SHIFT + 1)

/* The fit's domain: at least half an element per bucket. */
#define MIN_LAMBDA	0.5

struct point {
	uint32_t	n;
	unsigned int	shift;
	double		x1, x2;		/* mu / (N delta), 1 + N delta / (2 mu) */
	double		ns;		/* measured, per event */
	double		pred;
	bool		fit;
	bool		in_model;	/* lambda >= MIN_LAMBDA */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per W1 event of a timeq of width 2^@shift on @s. */
static double measure(const struct seq *s, unsigned int shift)
{
	double v[BENCH_SEGS - 1];
	struct out o;
	void *q;
	uint64_t t0;
	int seg;

	o.t = malloc(s->nexp * sizeof(*o.t));
	o.id = malloc(s->nexp * sizeof(*o.id));
	q = timeq_bench_create(s, shift, CAL_M_SHIFT, false);
	if (!o.t || !o.id || !q)
		exit(1);
	for (seg = 0; seg < BENCH_SEGS; seg++) {
		o.n = 0;
		t0 = real_ns();
		peer_timeq.run(q, s, s->seg[seg], s->seg[seg + 1], &o);
		if (seg)
			v[seg - 1] = (double)(real_ns() - t0) / s->work[seg];
		if (o.n != s->work[seg] ||
		    memcmp(o.t, s->exp_t + s->seg[seg], o.n * sizeof(*o.t)) ||
		    memcmp(o.id, s->exp_id + s->seg[seg], o.n * sizeof(*o.id))) {
			fprintf(stderr, "calibrate: FAILED: delta 2^%u removed the wrong timers\n",
				shift);
			exit(1);
		}
	}
	peer_timeq.destroy(q);
	free(o.t);
	free(o.id);
	qsort(v, BENCH_SEGS - 1, sizeof(v[0]), cmp_double);
	return v[(BENCH_SEGS - 1) / 2];
}

/* Least squares for y = b x1 + c x2 + d over the points marked fit. */
static int fit(const struct point *p, int n, double *b, double *c, double *d)
{
	double a[3][4] = { { 0 } }, f, row[3];
	int i, j, k;

	for (i = 0; i < n; i++) {
		if (!p[i].fit)
			continue;
		row[0] = p[i].x1;
		row[1] = p[i].x2;
		row[2] = 1;
		for (j = 0; j < 3; j++) {
			for (k = 0; k < 3; k++)
				a[j][k] += row[j] * row[k];
			a[j][3] += row[j] * p[i].ns;
		}
	}
	/* Gaussian elimination with partial pivoting. */
	for (i = 0; i < 3; i++) {
		for (k = i, j = i + 1; j < 3; j++)
			if (fabs(a[j][i]) > fabs(a[k][i]))
				k = j;
		for (j = 0; j < 4; j++) {
			f = a[i][j];
			a[i][j] = a[k][j];
			a[k][j] = f;
		}
		if (fabs(a[i][i]) < 1e-12)
			return -1;
		for (k = 0; k < 3; k++) {
			if (k == i)
				continue;
			f = a[k][i] / a[i][i];
			for (j = i; j < 4; j++)
				a[k][j] -= f * a[i][j];
		}
	}
	*b = a[0][3] / a[0][0];
	*c = a[1][3] / a[1][1];
	*d = a[2][3] / a[2][2];
	return 0;
}

static void sweep(struct point *pts, int *np, uint32_t n, uint64_t ops,
		  bool fit_even, double *mean)
{
	unsigned int k;
	struct seq s;

	if (seq_generate(&s, W1_HOLD, D_EXP, n, ops, 7)) {
		fprintf(stderr, "calibrate: out of memory\n");
		exit(1);
	}
	*mean = s.mean;
	for (k = 0; k <= MAX_SHIFT; k++) {
		struct point *p = &pts[(*np)++];
		double delta = (double)(1u << k);

		p->n = n;
		p->shift = k;
		p->x1 = s.mean / (n * delta);
		p->x2 = 1 + n * delta / (2.0 * s.mean);
		p->ns = measure(&s, k);
		p->in_model = 1 / p->x1 >= MIN_LAMBDA;
		p->fit = fit_even && !(k % 2) && p->in_model;
		fprintf(stderr, "calibrate: N=%u delta=2^%u %.1f ns\n", n, k, p->ns);
	}
	seq_free(&s);
}

/* For each N: the delta module/queue.c's rule picks against the best. */
static void rule_vs_best(const struct point *pts, int np, const uint32_t *sizes,
			 const double *mean)
{
	unsigned int ds, bs;
	int i, k, best;
	double pred;

	printf("  module/queue.c's rule (compiled-in constants, horizon 2^20 + 1) against the\n"
	       "  best measured delta:\n");
	for (k = 0; k < 3; k++) {
		const struct point *rule = NULL;

		timeq_bench_shape(BENCH_HORIZON, sizes[k], mean[k], &ds, &bs, &pred);
		best = -1;
		for (i = 0; i < np; i++) {
			if (pts[i].n != sizes[k])
				continue;
			if (best < 0 || pts[i].ns < pts[best].ns)
				best = i;
			if (pts[i].shift == ds)
				rule = &pts[i];
		}
		if (!rule || best < 0)
			continue;
		printf("    N = %6u: rule delta 2^%u, M 2^%u: %.1f ns (predicted %.1f); best delta 2^%u: %.1f ns (rule +%.0f%%)\n",
		       sizes[k], ds, bs, rule->ns, pred, pts[best].shift, pts[best].ns,
		       100 * (rule->ns - pts[best].ns) / pts[best].ns);
	}
}

static int one_point(const char *arg, uint64_t ops)
{
	unsigned int shift;
	struct seq s;
	uint32_t n;

	if (sscanf(arg, "%u:%u", &n, &shift) != 2 || shift > MAX_SHIFT)
		return 2;
	if (seq_generate(&s, W1_HOLD, D_EXP, n, ops, 7))
		return 1;
	printf("N=%u delta=2^%u: %.1f ns per event\n", n, shift, measure(&s, shift));
	seq_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	double b, c, d, mean[3], r, ss[3] = { 0 }, dopt;
	const char *dir = "build/bench", *point = NULL;
	struct point pts[3 * NPTS];
	uint32_t n = 10000, sizes[3];
	int np = 0, cnt[3] = { 0 }, i;
	uint64_t ops = 100000;
	char path[600];
	FILE *f;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--point")) {
			point = argv[i + 1];
		} else if (!strcmp(argv[i], "--n"))
			n = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--ops"))
			ops = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--out"))
			dir = argv[i + 1];
		else
			break;
	}
	if (i != argc || n < 10) {
		fprintf(stderr, "usage: calibrate [--n N] [--ops OPS] [--out DIR]\n"
				"       calibrate --point N:SHIFT [--ops OPS]\n");
		return 2;
	}
	if (point)
		return one_point(point, ops);
	sizes[0] = n;
	sizes[1] = n / 10;
	sizes[2] = n * 10;
	for (i = 0; i < 3; i++)
		sweep(pts, &np, sizes[i], ops, i == 0, &mean[i]);
	if (fit(pts, np, &b, &c, &d)) {
		fprintf(stderr, "calibrate: the fit is singular\n");
		return 1;
	}
	/* Residuals: fitted, predicted in the model's domain, below it. */
	for (i = 0; i < np; i++) {
		int kind = pts[i].fit ? 0 : pts[i].in_model ? 1 : 2;

		pts[i].pred = b * pts[i].x1 + c * pts[i].x2 + d;
		r = (pts[i].ns - pts[i].pred) / pts[i].ns;
		ss[kind] += r * r;
		cnt[kind]++;
	}

	printf("== Calibration (W1 hold, exponential jumps, M = 2^%d; paper section 6)\n",
	       CAL_M_SHIFT);
	printf("  K(delta) = b mu/(N delta) + c (1 + N delta/(2 mu)) + d, fitted on N = %u,\n"
	       "  even log2(delta), lambda = N delta / mu >= %.1f; the rest predicted from the\n"
	       "  same b, c, d (ns per event, the median of 5 runs of %llu events)\n",
	       n, MIN_LAMBDA, (unsigned long long)ops);
	printf("  %8s %8s %6s %9s %10s %10s %9s  %s\n", "N", "mu", "delta", "lambda",
	       "measured", "predicted", "residual", "");
	for (i = 0; i < np; i++)
		printf("  %8u %8.0f %6u %9.2f %10.1f %10.1f %+8.1f%%  %s\n", pts[i].n,
		       mean[i / NPTS], 1u << pts[i].shift, 1 / pts[i].x1, pts[i].ns,
		       pts[i].pred, 100 * (pts[i].ns - pts[i].pred) / pts[i].ns,
		       pts[i].fit ? "fit" : pts[i].in_model ? "predicted" :
		       "predicted, below the model's domain");
	printf("  b = %.3f ns (per bucket passed), c = %.4f ns (per element in the bucket),\n"
	       "  d = %.3f ns (per event)\n", b, c, d);
	printf("  rms relative residual: %.1f%% over the %d fitted points, %.1f%% over %d predicted\n"
	       "  points with lambda >= %.1f, %.1f%% over %d predicted points below\n",
	       100 * sqrt(ss[0] / cnt[0]), cnt[0], 100 * sqrt(ss[1] / cnt[1]), cnt[1],
	       MIN_LAMBDA, 100 * sqrt(ss[2] / (cnt[2] ? cnt[2] : 1)), cnt[2]);
	if (b > 0 && c > 0) {
		dopt = sqrt(2 * b / c) * mean[0] / n;
		printf("  the paper's best: lambda = sqrt(2b/c) = %.1f elements per bucket; at N = %u,\n"
		       "  mu = %.0f that is delta = %.0f, K = %.1f ns predicted\n",
		       sqrt(2 * b / c), n, mean[0], dopt, d + c + sqrt(2 * b * c));
		printf("  for module/tune.h: TIMEQ_TUNE_B_PS %.0f, TIMEQ_TUNE_C_PS %.0f,\n"
		       "  TIMEQ_TUNE_D_PS %.0f, TIMEQ_TUNE_RHO %.0f (sqrt(b/c) * TIMEQ_TUNE_ONE)\n",
		       b * 1000, c * 1000, d * 1000, sqrt(b / c) * 256);
	} else {
		printf("  b or c is not positive: the model does not fit this implementation\n");
	}
	rule_vs_best(pts, np, sizes, mean);

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/calibrate.csv", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "n,mean_jump,delta,measured_ns,predicted_ns,fit\n");
	for (i = 0; i < np; i++)
		fprintf(f, "%u,%.0f,%u,%.2f,%.2f,%d\n", pts[i].n, mean[i / NPTS],
			1u << pts[i].shift, pts[i].ns, pts[i].pred, pts[i].fit);
	fclose(f);

	snprintf(path, sizeof(path), "%s/calibrate.gp", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "# gnuplot calibrate.gp: measured against predicted time per event\n");
	fprintf(f, "b = %g; c = %g; d = %g\n", b, c, d);
	fprintf(f, "K(x, n, mu) = b * mu / (n * x) + c * (1 + n * x / (2 * mu)) + d\n");
	for (i = 0; i < 2; i++) {
		int k;

		fprintf(f, "set terminal %s\nset output 'calibrate.%s'\n",
			i ? "svg noenhanced size 1300,700 dynamic" :
			    "pngcairo noenhanced size 1300,700",
			i ? "svg" : "png");
		fprintf(f, "set title 'timeq W1 hold: measured (points) and predicted (lines), fit on N = %u even log2(delta) (filled)'\n",
			n);
		fprintf(f, "set logscale xy 2\nset xrange [1:%u]\nset yrange [10:2000]\n"
			   "set xlabel 'bucket width delta'\nset ylabel 'ns per event'\n"
			   "set grid\nset key outside right font ',9'\nset datafile separator ','\n",
			1u << MAX_SHIFT);
		fprintf(f, "plot 'calibrate.csv' using ($1 == %u && $6 > 0 ? $3 : 1/0):4 title 'fitted, N = %u' pt 7 ps 1.5 lc 1",
			sizes[0], sizes[0]);
		for (k = 0; k < 3; k++)
			fprintf(f, ", K(x, %u, %.0f) title 'predicted, N = %u' lw 2 lc %d, "
				"'calibrate.csv' using ($1 == %u && $6 == 0 ? $3 : 1/0):4 title 'measured, not in the fit, N = %u' pt 6 ps 1.5 lc %d",
				sizes[k], mean[k], sizes[k], k + 1, sizes[k], sizes[k],
				k + 1);
		fprintf(f, "\n");
	}
	fclose(f);
	printf("wrote %s/calibrate.csv and calibrate.gp\n", dir);
	return 0;
}
