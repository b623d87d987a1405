// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads: each cell's operation sequence, generated once from a
 * seed, and what a correct timer queue removes when it runs it, computed
 * by a reference (an indexed binary heap ordered by time, then insertion,
 * so equal times leave first in, first out). bench.h says what each
 * workload's sequence means.
 *
 * Jump distributions (W1, W2, W4: the distance from the clock to a new
 * time; all in 1 .. 2^20 ticks):
 *
 *	exp	exponential, mean 2^17, cut at 2^20
 *	uniform	uniform on 1 .. 2^20 (mean 2^19)
 *	bimodal	90% uniform on 1 .. 2^11, 10% on 2^19 + 1 .. 2^20: many
 *		short timers and a few long ones (mean about 79600)
 *	const	always 2^19
 *
 * W3 restarts a connection's time-out at T * (1 + z / 10), T = 2^19, with
 * the same four shapes for z in [-1, 1]: exp (-1 plus an exponential of
 * mean 1/2, cut at 1), uniform, bimodal (+-0.8 .. 1) and const (0). Its
 * clock creeps by T / 2N a refresh, so an element is refreshed every N
 * operations on average and expires when it goes 2N without one (about
 * one time-out in seven, e^-2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *const workload_name[NWORKLOADS] = { "hold", "churn", "refresh", "move", "storm" };
const char *const workload_title[NWORKLOADS] = {
	"W1 hold: delete-min, insert at its time + jump",
	"W2 churn: cancel a random timer, start it at now + jump",
	"W3 refresh: move a random timer to now + T(1 +- 10%), clock creeping, expiry",
	"W3 moves: W3's refresh alone, the clock still: move a random timer to T(1 +- 10%)",
	"W4 storm: N timers at one time, expired at once",
};
const char *const dist_name[NDISTS] = { "exp", "uniform", "bimodal", "const" };
const char *const dist_title[NDISTS] = {
	"exponential, mean 2^17",
	"uniform 1..2^20",
	"bimodal 90% 1..2^11, 10% 2^19..2^20",
	"constant 2^19",
};

uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double rng_unit(uint64_t *rng)
{
	return ((rng_next(rng) >> 11) + 1) * 0x1p-53;
}

uint64_t dist_jump(enum dist d, uint64_t *rng)
{
	uint64_t r = rng_next(rng);
	double x;

	switch (d) {
	case D_EXP:
		x = ceil(-log(rng_unit(rng)) * (1 << 17));
		return x > BENCH_JMAX ? BENCH_JMAX : x < 1 ? 1 : (uint64_t)x;
	case D_UNIFORM:
		return 1 + r % BENCH_JMAX;
	case D_BIMODAL:
		if (r % 10)
			return 1 + (r >> 8) % (1 << 11);
		return (1 << 19) + 1 + (r >> 8) % (1 << 19);
	default:
		return 1 << 19;
	}
}

/* W3: z in [-1, 1] for T * (1 + z / 10). */
static double dist_z(enum dist d, uint64_t *rng)
{
	double u = rng_unit(rng), z;

	switch (d) {
	case D_EXP:
		z = -1 - log(u) / 2;
		return z > 1 ? 1 : z;
	case D_UNIFORM:
		return 2 * u - 1;
	case D_BIMODAL:
		z = 0.8 + 0.2 * rng_unit(rng);
		return u < 0.5 ? -z : z;
	default:
		return 0;
	}
}

/* --- the reference: an indexed binary heap on (time, insertion) --- */

struct ref {
	uint32_t	*heap;	/* element numbers */
	uint32_t	*pos;	/* where each element is in @heap, or UINT32_MAX */
	uint64_t	*time;
	uint64_t	*seq;
	uint32_t	size;
	uint64_t	next_seq;
};

static bool ref_less(const struct ref *r, uint32_t a, uint32_t b)
{
	return r->time[a] != r->time[b] ? r->time[a] < r->time[b] :
					  r->seq[a] < r->seq[b];
}

static void ref_place(struct ref *r, uint32_t i, uint32_t e)
{
	r->heap[i] = e;
	r->pos[e] = i;
}

static void ref_up(struct ref *r, uint32_t i)
{
	uint32_t e = r->heap[i];

	while (i && ref_less(r, e, r->heap[(i - 1) / 2])) {
		ref_place(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	ref_place(r, i, e);
}

static void ref_down(struct ref *r, uint32_t i)
{
	uint32_t e = r->heap[i], c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= r->size)
			break;
		if (c + 1 < r->size && ref_less(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!ref_less(r, r->heap[c], e))
			break;
		ref_place(r, i, r->heap[c]);
		i = c;
	}
	ref_place(r, i, e);
}

static int ref_init(struct ref *r, uint32_t n)
{
	memset(r, 0, sizeof(*r));
	r->heap = malloc(n * sizeof(*r->heap));
	r->pos = malloc(n * sizeof(*r->pos));
	r->time = malloc(n * sizeof(*r->time));
	r->seq = malloc(n * sizeof(*r->seq));
	if (!r->heap || !r->pos || !r->time || !r->seq)
		return -1;
	memset(r->pos, 0xff, n * sizeof(*r->pos));
	return 0;
}

static void ref_free(struct ref *r)
{
	free(r->heap);
	free(r->pos);
	free(r->time);
	free(r->seq);
}

static void ref_push(struct ref *r, uint32_t e, uint64_t t)
{
	r->time[e] = t;
	r->seq[e] = r->next_seq++;
	r->heap[r->size] = e;
	ref_up(r, r->size++);
}

static void ref_remove(struct ref *r, uint32_t e)
{
	uint32_t i = r->pos[e], last = r->heap[--r->size];

	r->pos[e] = UINT32_MAX;
	if (i == r->size)
		return;
	ref_place(r, i, last);
	ref_up(r, i);
	ref_down(r, r->pos[last]);
}

static uint32_t ref_pop(struct ref *r)
{
	uint32_t e = r->heap[0];

	ref_remove(r, e);
	return e;
}

/* --- generation --- */

static int seq_alloc(struct seq *s, uint64_t nops, uint64_t nexp, bool fin)
{
	s->nops = nops;
	s->t = malloc(nops * sizeof(*s->t));
	s->id = malloc(nops * sizeof(*s->id));
	s->exp_t = malloc((nexp + 1) * sizeof(*s->exp_t));
	s->exp_id = malloc((nexp + 1) * sizeof(*s->exp_id));
	if (fin) {
		s->fin_t = malloc(s->n * sizeof(*s->fin_t));
		s->fin_id = malloc(s->n * sizeof(*s->fin_id));
	}
	return s->t && s->id && s->exp_t && s->exp_id &&
	       (!fin || (s->fin_t && s->fin_id)) ? 0 : -1;
}

/* The final contents, in order, from the reference. */
static void seq_final(struct seq *s, struct ref *r)
{
	uint32_t i = 0, e;

	while (r->size) {
		e = ref_pop(r);
		s->fin_t[i] = r->time[e];
		s->fin_id[i++] = e;
	}
}

/* W1 generates a few more ops than it needs, to end between two times. */
#define HOLD_SLACK	4096

static int gen_hold(struct seq *s, uint64_t per_seg, uint64_t *rng)
{
	uint64_t k, nops = per_seg * BENCH_SEGS + HOLD_SLACK, t, sum = 0;
	struct ref r;
	uint32_t e, i;

	if (seq_alloc(s, nops, nops, false) || ref_init(&r, s->n))
		return -1;
	/*
	 * Start near the steady state: in the hold model, the distance from
	 * the clock to a queued time has density (1 - F(x)) / mean, that of
	 * a uniform point in a jump drawn in proportion to its length.
	 */
	for (e = 0; e < s->n; e++) {
		do
			t = dist_jump(s->dist, rng);
		while (rng_next(rng) % BENCH_JMAX >= t);
		s->init[e] = 1 + (uint64_t)(rng_unit(rng) * (t - 1));
		ref_push(&r, e, s->init[e]);
	}
	for (k = 0; k < nops; k++) {
		s->t[k] = dist_jump(s->dist, rng);
		sum += s->t[k];
		e = ref_pop(&r);
		t = r.time[e];
		s->exp_t[k] = t;
		s->exp_id[k] = e;
		ref_push(&r, e, t + s->t[k]);
	}
	s->mean = sum / nops;
	/* Cut between two different times, so a loop that fires all that is due
	 * at once never runs into the next segment. */
	s->seg[0] = 0;
	for (i = 1; i <= BENCH_SEGS; i++) {
		k = i * per_seg;
		while (k < nops && s->exp_t[k] == s->exp_t[k - 1])
			k++;
		if (k == nops) {
			ref_free(&r);
			return -1;
		}
		s->seg[i] = k;
	}
	nops = s->nops = s->nexp = s->seg[BENCH_SEGS];
	for (i = 0; i <= BENCH_SEGS; i++)
		s->exp_seg[i] = s->seg[i];
	for (i = 0; i < BENCH_SEGS; i++)
		s->work[i] = s->seg[i + 1] - s->seg[i];
	s->end_clock = s->exp_t[nops - 1];
	ref_free(&r);
	return 0;
}

static int gen_churn(struct seq *s, uint64_t per_seg, uint64_t *rng)
{
	uint64_t k, nops = per_seg * BENCH_SEGS, sum = 0;
	struct ref r;
	uint32_t e, i;

	if (seq_alloc(s, nops, 0, true) || ref_init(&r, s->n))
		return -1;
	for (e = 0; e < s->n; e++) {
		s->init[e] = dist_jump(s->dist, rng);
		ref_push(&r, e, s->init[e]);
	}
	for (k = 0; k < nops; k++) {
		s->id[k] = rng_next(rng) % s->n;
		s->t[k] = dist_jump(s->dist, rng);
		sum += s->t[k];
		ref_remove(&r, s->id[k]);
		ref_push(&r, s->id[k], s->t[k]);
	}
	s->mean = sum / nops;
	for (i = 0; i <= BENCH_SEGS; i++)
		s->seg[i] = i * per_seg;
	for (i = 0; i < BENCH_SEGS; i++)
		s->work[i] = per_seg;
	s->end_clock = 0;
	seq_final(s, &r);
	ref_free(&r);
	return 0;
}

static int gen_refresh(struct seq *s, uint64_t per_seg, uint64_t *rng)
{
	uint64_t k, refreshes = per_seg * BENCH_SEGS, clock = 0, next, t;
	uint64_t nops = 0, cap = 2 * refreshes + 2, nexp = 0, expcap, seg_refresh;
	uint32_t e, i = 1, start;
	struct ref r;

	/* Expirations: about one in seven time-outs; room for many more. */
	expcap = refreshes + 16 * (uint64_t)s->n;
	if (seq_alloc(s, cap, expcap, true) || ref_init(&r, s->n))
		return -1;
	/*
	 * Start near the steady state: each element was last refreshed an
	 * exponential time ago (mean N refreshes, T / 2 ticks); one whose
	 * time-out has passed restarted at some point since.
	 */
	for (e = 0; e < s->n; e++) {
		double at = BENCH_T * (1 + dist_z(s->dist, rng) / 10) +
			    BENCH_T / 2.0 * log(rng_unit(rng));

		s->init[e] = at >= 1 ? (uint64_t)at :
			     1 + rng_next(rng) % (BENCH_T + BENCH_T / 10);
		ref_push(&r, e, s->init[e]);
	}
	s->seg[0] = 0;
	s->exp_seg[0] = 0;
	seg_refresh = 0;
	memset(s->work, 0, sizeof(s->work));
	for (k = 0; k < refreshes; k++) {
		next = (k + 1) * BENCH_T / (2ull * s->n);
		if (next > clock) {
			clock = next;
			s->id[nops] = BENCH_ADVANCE;
			s->t[nops++] = clock;
			start = nexp;
			while (r.size && r.time[r.heap[0]] < clock) {
				if (nexp == expcap)
					return -1;
				e = ref_pop(&r);
				s->exp_t[nexp] = r.time[e];
				s->exp_id[nexp++] = e;
			}
			for (; start < nexp; start++)
				ref_push(&r, s->exp_id[start],
					 w3_restart(s->exp_id[start], clock));
		}
		e = rng_next(rng) % s->n;
		t = clock + BENCH_T + (int64_t)lround(BENCH_T / 10.0 * dist_z(s->dist, rng));
		s->id[nops] = e;
		s->t[nops++] = t;
		ref_remove(&r, e);
		ref_push(&r, e, t);
		if (++seg_refresh == per_seg && i < BENCH_SEGS) {
			s->seg[i] = nops;
			s->exp_seg[i] = nexp;
			i++;
			seg_refresh = 0;
		}
	}
	s->seg[BENCH_SEGS] = nops;
	s->exp_seg[BENCH_SEGS] = nexp;
	s->nops = nops;
	s->nexp = nexp;
	for (i = 0; i < BENCH_SEGS; i++)
		s->work[i] = per_seg + s->exp_seg[i + 1] - s->exp_seg[i];
	s->mean = BENCH_T;
	s->end_clock = clock;
	seq_final(s, &r);
	ref_free(&r);
	return 0;
}

/* W3's moves alone, the clock still: from W3's state, moves only. */
static int gen_move(struct seq *s, uint64_t per_seg, uint64_t *rng)
{
	uint64_t k, nops = per_seg * BENCH_SEGS;
	struct ref r;
	uint32_t e, i;

	if (seq_alloc(s, nops, 0, true) || ref_init(&r, s->n))
		return -1;
	for (e = 0; e < s->n; e++) {
		s->init[e] = 1 + rng_next(rng) % (BENCH_T + BENCH_T / 10);
		ref_push(&r, e, s->init[e]);
	}
	for (k = 0; k < nops; k++) {
		e = rng_next(rng) % s->n;
		s->id[k] = e;
		s->t[k] = BENCH_T + (int64_t)lround(BENCH_T / 10.0 * dist_z(s->dist, rng));
		ref_remove(&r, e);
		ref_push(&r, e, s->t[k]);
	}
	for (i = 0; i <= BENCH_SEGS; i++)
		s->seg[i] = i * per_seg;
	for (i = 0; i < BENCH_SEGS; i++)
		s->work[i] = per_seg;
	s->mean = BENCH_T;
	s->end_clock = 0;
	seq_final(s, &r);
	ref_free(&r);
	return 0;
}

static int gen_storm(struct seq *s, uint64_t per_seg, uint64_t *rng)
{
	uint64_t cycles = per_seg / s->n ? per_seg / s->n : 1, k, x, clock = 0;
	uint64_t nops = cycles * BENCH_SEGS, sum = 0;
	uint32_t e, i;

	if (seq_alloc(s, nops, nops * s->n, false))
		return -1;
	x = 0;
	for (k = 0; k < nops; k++) {
		s->t[k] = clock + dist_jump(s->dist, rng);
		sum += s->t[k] - clock;
		clock = s->t[k] + 1;
		for (e = 0; e < s->n; e++) {
			s->exp_t[x] = s->t[k];
			s->exp_id[x++] = e;
		}
	}
	s->nexp = x;
	s->mean = sum / nops;
	for (i = 0; i <= BENCH_SEGS; i++) {
		s->seg[i] = i * cycles;
		s->exp_seg[i] = i * cycles * s->n;
	}
	for (i = 0; i < BENCH_SEGS; i++)
		s->work[i] = cycles * s->n;
	s->end_clock = clock;
	return 0;
}

int seq_generate(struct seq *s, enum workload wl, enum dist d, uint32_t n,
		 uint64_t ops_per_seg, uint64_t seed)
{
	uint64_t rng = seed * 0x2545f4914f6cdd1dull + wl * 131 + d * 7 + n;
	int ret;

	memset(s, 0, sizeof(*s));
	s->wl = wl;
	s->dist = d;
	s->n = n;
	if (wl != W4_STORM) {
		s->init = malloc(n * sizeof(*s->init));
		if (!s->init)
			return -1;
	}
	switch (wl) {
	case W1_HOLD:
		ret = gen_hold(s, ops_per_seg, &rng);
		break;
	case W2_CHURN:
		ret = gen_churn(s, ops_per_seg, &rng);
		break;
	case W3_REFRESH:
		ret = gen_refresh(s, ops_per_seg, &rng);
		break;
	case W3_MOVE:
		ret = gen_move(s, ops_per_seg, &rng);
		break;
	default:
		ret = gen_storm(s, ops_per_seg, &rng);
		break;
	}
	if (ret)
		seq_free(s);
	return ret;
}

void seq_free(struct seq *s)
{
	free(s->init);
	free(s->t);
	free(s->id);
	free(s->exp_t);
	free(s->exp_id);
	free(s->fin_t);
	free(s->fin_id);
	memset(s, 0, sizeof(*s));
}
