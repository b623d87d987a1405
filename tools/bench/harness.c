// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace benchmark's driver: for each cell (workload, jump
 * distribution, N) it generates the operation sequence once, builds every
 * structure from the same initial state, and runs the same segments on
 * each in turn (a warm-up, then five timed, the structures' order rotated
 * each time), checking after every segment that each removed what the
 * reference removed, in order. A mismatch prints what differed and exits
 * with status 1: a fast wrong benchmark is worthless. Figures are printed
 * (output.c), never judged here.
 *
 *	bench [--ops OPS] [--n N,N,...] [--workloads hold,churn,...]
 *	      [--dists exp,uniform,...] [--peers timeq,libuv,...] [--out DIR]
 *	      [--seed S]
 *
 * OPS is the number of operations in each segment (default 200000).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "output.h"

const struct peer *const peers[NPEERS] = {
	&peer_timeq, &peer_timeq_locked, &peer_timeq_store, &peer_libuv,
	&peer_libevent,
	&peer_libev, &peer_rbtree, &peer_wheel, &peer_direct,
};

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void stats(struct result *r)
{
	double v[BENCH_SEGS - 1];
	int i;

	for (i = 1; i < BENCH_SEGS; i++)
		v[i - 1] = r->ns[i];
	qsort(v, BENCH_SEGS - 1, sizeof(v[0]), cmp_double);
	r->min = v[0];
	r->max = v[BENCH_SEGS - 2];
	r->med = v[(BENCH_SEGS - 1) / 2];
}

static const char *cell_name(const struct seq *s)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "%s/%s N=%u", workload_name[s->wl],
		 dist_name[s->dist], s->n);
	return buf;
}

/* Compare what @p removed, @o[0 .. n), with the reference from @first. */
static void check(const struct peer *p, const struct seq *s, int seg,
		  const struct out *o, const uint64_t *want_t,
		  const uint32_t *want_id, uint64_t n)
{
	uint64_t i;

	if (o->n != n) {
		fprintf(stderr, "bench: FAILED: %s, %s, segment %d: removed %llu, want %llu\n",
			p->name, cell_name(s), seg, (unsigned long long)o->n,
			(unsigned long long)n);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (o->t[i] == want_t[i] && (!p->fifo || o->id[i] == want_id[i]))
			continue;
		fprintf(stderr, "bench: FAILED: %s, %s, segment %d: removal %llu was (time %llu, timer %u), want (%llu, %u)\n",
			p->name, cell_name(s), seg, (unsigned long long)i,
			(unsigned long long)o->t[i], o->id[i],
			(unsigned long long)want_t[i], want_id[i]);
		exit(1);
	}
}

static bool peer_on[NPEERS];

static void run_cell(struct cell *c, uint64_t ops, uint64_t seed)
{
	void *inst[NPEERS] = { NULL };
	uint64_t max_out = 0, i, t0;
	struct out o;
	struct seq s;
	size_t before;
	int p, seg, j;

	if (seq_generate(&s, c->wl, c->dist, c->n, ops, seed)) {
		fprintf(stderr, "bench: out of memory generating %s/%s N=%u\n",
			workload_name[c->wl], dist_name[c->dist], c->n);
		exit(1);
	}
	c->mean = s.mean;
	for (seg = 0; seg < BENCH_SEGS; seg++)
		if (s.exp_seg[seg + 1] - s.exp_seg[seg] > max_out)
			max_out = s.exp_seg[seg + 1] - s.exp_seg[seg];
	if (max_out < s.n)
		max_out = s.n;
	o.t = malloc(max_out * sizeof(*o.t));
	o.id = malloc(max_out * sizeof(*o.id));
	if (!o.t || !o.id)
		exit(1);

	for (p = 0; p < NPEERS; p++) {
		if (!peer_on[p] || !peers[p]->can(c->wl))
			continue;
		before = heap_bytes();
		inst[p] = peers[p]->create(&s);
		c->r[p].bytes = heap_bytes() - before;
		c->r[p].ran = true;
	}
	for (seg = 0; seg < BENCH_SEGS; seg++) {
		for (j = 0; j < NPEERS; j++) {
			p = (j + seg) % NPEERS;
			if (!inst[p])
				continue;
			o.n = 0;
			t0 = real_ns();
			peers[p]->run(inst[p], &s, s.seg[seg], s.seg[seg + 1], &o);
			c->r[p].ns[seg] = (double)(real_ns() - t0) / s.work[seg];
			i = s.exp_seg[seg];
			check(peers[p], &s, seg, &o, s.exp_t + i, s.exp_id + i,
			      s.exp_seg[seg + 1] - i);
		}
	}
	for (p = 0; p < NPEERS; p++) {
		if (!inst[p])
			continue;
		/* After the runs: a shape may tell what they did. */
		if (peers[p]->shape)
			snprintf(c->r[p].shape, sizeof(c->r[p].shape), "%s",
				 peers[p]->shape(inst[p]));
		if (s.fin_t) {
			o.n = 0;
			peers[p]->drain(inst[p], &s, &o);
			check(peers[p], &s, BENCH_SEGS, &o, s.fin_t, s.fin_id, s.n);
		}
		peers[p]->destroy(inst[p]);
		stats(&c->r[p]);
	}
	free(o.t);
	free(o.id);
	seq_free(&s);
}

static int parse_list(const char *arg, const char *const *names, int count,
		      bool *on)
{
	char *copy = strdup(arg), *tok, *save;
	int i;

	memset(on, 0, count * sizeof(*on));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < count && strcmp(tok, names[i]); i++)
			;
		if (i == count) {
			fprintf(stderr, "bench: unknown name %s\n", tok);
			return -1;
		}
		on[i] = true;
	}
	free(copy);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench [--ops OPS] [--n N,...] [--workloads hold,churn,refresh,move,storm]\n"
			"             [--dists exp,uniform,bimodal,const] [--peers NAME,...] [--out DIR]\n"
			"             [--seed S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool wl_on[NWORKLOADS], d_on[NDISTS];
	uint32_t ns[8] = { 1000, 10000, 100000, 1000000 };
	uint64_t ops = 200000, seed = 1;
	const char *dir = "build/bench";
	struct bench_run run = { 0 };
	const char *names[NPEERS];
	int i, w, d, k, nn = 4;
	char *tok, *save;

	for (i = 0; i < NPEERS; i++) {
		names[i] = peers[i]->name;
		peer_on[i] = true;
	}
	for (i = 0; i < NWORKLOADS; i++)
		wl_on[i] = true;
	for (i = 0; i < NDISTS; i++)
		d_on[i] = true;

	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--ops")) {
			ops = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--n")) {
			nn = 0;
			for (tok = strtok_r(argv[++i], ",", &save); tok && nn < 8;
			     tok = strtok_r(NULL, ",", &save))
				ns[nn++] = strtoul(tok, NULL, 0);
		} else if (!strcmp(argv[i], "--workloads")) {
			if (parse_list(argv[++i], workload_name, NWORKLOADS, wl_on))
				usage();
		} else if (!strcmp(argv[i], "--dists")) {
			if (parse_list(argv[++i], dist_name, NDISTS, d_on))
				usage();
		} else if (!strcmp(argv[i], "--peers")) {
			if (parse_list(argv[++i], names, NPEERS, peer_on))
				usage();
		} else if (!strcmp(argv[i], "--out")) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--seed")) {
			seed = strtoull(argv[++i], NULL, 0);
		} else {
			usage();
		}
	}
	if (!ops || !nn)
		usage();

	run.ops = ops;
	run.cells = calloc(NWORKLOADS * NDISTS * nn, sizeof(*run.cells));
	if (!run.cells)
		return 1;
	print_header(&run);
	for (w = 0; w < NWORKLOADS; w++) {
		for (d = 0; d < NDISTS; d++) {
			if (!wl_on[w] || !d_on[d])
				continue;
			for (k = 0; k < nn; k++) {
				struct cell *c = &run.cells[run.ncells++];
				uint64_t t0 = real_ns();

				c->wl = w;
				c->dist = d;
				c->n = ns[k];
				run_cell(c, ops, seed);
				print_progress(c, (real_ns() - t0) / 1e9);
			}
		}
	}
	print_tables(&run);
	print_memory(&run);
	print_targets(&run);
	if (write_csv(&run, dir) || write_plots(&run, dir))
		return 1;
	printf("every removal of every structure matched the reference: ok\n");
	return 0;
}
