/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of the userspace benchmark share: the generated
 * operation sequences (workloads.c), the interface every timer structure
 * implements (one peer_*.c file each), the results (harness.c) and their
 * printing (output.c).
 *
 * One cell of the benchmark is a workload at one N with one jump
 * distribution. Its sequence is generated once; every structure runs the
 * same sequence, cut into segments: segment 0 warms up, segments 1 .. 5
 * are timed, each structure in turn, interleaved, so that a busy moment
 * of the machine falls on every structure alike. What a structure
 * removes is recorded and compared with the reference after each
 * segment, outside the timing; a mismatch ends the run with an error.
 */
#ifndef TIMEQ_BENCH_H
#define TIMEQ_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest jump: times lie in [now, now + BENCH_JMAX]. */
#define BENCH_JMAX	(1u << 20)
#define BENCH_HORIZON	(BENCH_JMAX + 1ull)
/* W3: connections time out T * (1 +- 10%) after their last packet. */
#define BENCH_T		(1u << 19)
/* Segment 0 warms up; the rest are timed. */
#define BENCH_SEGS	6
/* W3's sequence: an entry that moves the clock rather than an element. */
#define BENCH_ADVANCE	UINT32_MAX

enum workload { W1_HOLD, W2_CHURN, W3_REFRESH, W3_MOVE, W4_STORM, NWORKLOADS };
enum dist { D_EXP, D_UNIFORM, D_BIMODAL, D_CONST, NDISTS };

extern const char *const workload_name[NWORKLOADS];
extern const char *const workload_title[NWORKLOADS];
extern const char *const dist_name[NDISTS];
extern const char *const dist_title[NDISTS];

/*
 * A generated cell. Times are ticks; the clock starts at 0. Elements are
 * numbered 0 .. n - 1; a structure keeps them in an array, so an
 * element's number is its index there.
 *
 *   W1 hold	op k: remove the minimum (time t, element e), insert e at
 *		t + jump[k]. exp_t/exp_id: the k-th removal.
 *   W2 churn	op k: cancel element id[k], start it at t[k] (the clock
 *		stays at 0). Checked by a final drain.
 *   W3 refresh	op k: if id[k] is BENCH_ADVANCE, move the clock to t[k]:
 *		expire every element before t[k], then restart each one at
 *		w3_restart(e, t[k]); otherwise move element id[k] to t[k].
 *		exp_t/exp_id: the expirations in order; a final drain.
 *   W3 moves	W3's moves alone, the clock still at 0: op k moves element
 *		id[k] to t[k]. The refresh itself, against the floor's
 *		unlink and link. Checked by a final drain.
 *   W4 storm	op k: insert every element, in order, at t[k], then move
 *		the clock to t[k] + 1, which expires them all, in order.
 *
 * seg[i] .. seg[i + 1] are the ops of segment i; exp_seg[i] the index of
 * its first expected removal. work[i] counts the operations of segment i
 * for ns/op: W1, W2 ops; W3 ops plus expirations; W4 elements.
 */
struct seq {
	enum workload	wl;
	enum dist	dist;
	uint32_t	n;
	uint64_t	mean;		/* mean jump, for the tuning rule */
	uint64_t	*init;		/* initial times; W4 has none */
	uint64_t	nops;
	uint64_t	*t;
	uint32_t	*id;
	uint64_t	seg[BENCH_SEGS + 1];
	uint64_t	work[BENCH_SEGS];
	uint64_t	nexp;
	uint64_t	*exp_t;
	uint32_t	*exp_id;
	uint64_t	exp_seg[BENCH_SEGS + 1];
	/* the final contents in order, for W2 and W3 (a drain) */
	uint64_t	*fin_t;
	uint32_t	*fin_id;
	uint64_t	end_clock;	/* the clock after the last op */
};

/* What a structure removed, in order: W1, W3, W4, and the final drain. */
struct out {
	uint64_t	n;
	uint64_t	*t;
	uint32_t	*id;
};

static inline void out_add(struct out *o, uint64_t t, uint32_t id)
{
	o->t[o->n] = t;
	o->id[o->n] = id;
	o->n++;
}

/* W3: the time an expired element restarts at, the same for every peer. */
static inline uint64_t w3_restart(uint32_t id, uint64_t clock)
{
	uint64_t h = (id + 1) * 0x9e3779b97f4a7c15ull ^ clock * 0xbf58476d1ce4e5b9ull;

	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	/* T * (1 +- 10%), uniform */
	return clock + BENCH_T - BENCH_T / 10 + h % (BENCH_T / 5 + 1);
}

/*
 * A timer structure under test. Each writes its own loop for each workload,
 * calling its operations directly, so that no indirect call per operation
 * enters the timing (the floor takes under 2 ns an operation). create()
 * builds it with s->init
 * inserted in element order (W4: empty); run() does ops [from, to) of s
 * and appends what it removes to @o; drain() removes everything, in
 * order, into @o. Its memory: @elem_bytes per element in the caller's
 * array; alloc() tells what the structure allocated itself.
 */
struct peer {
	const char	*name;
	const char	*how;		/* how the bench drives it */
	bool		fifo;		/* equal times leave in insertion order */
	bool		(*can)(enum workload wl);
	void		*(*create)(const struct seq *s);
	void		(*destroy)(void *p);
	void		(*run)(void *p, const struct seq *s, uint64_t from,
			       uint64_t to, struct out *o);
	void		(*drain)(void *p, const struct seq *s, struct out *o);
	size_t		(*elem_bytes)(void);
	const char	*(*shape)(void *p);	/* or NULL */
	const char	*(*version)(void);	/* or NULL */
};

extern const struct peer peer_timeq, peer_timeq_locked, peer_timeq_store,
	peer_libuv, peer_libevent, peer_libev, peer_rbtree, peer_wheel,
	peer_direct;

/* workloads.c */
int seq_generate(struct seq *s, enum workload wl, enum dist d, uint32_t n,
		 uint64_t ops_per_seg, uint64_t seed);
void seq_free(struct seq *s);
uint64_t dist_jump(enum dist d, uint64_t *rng);
uint64_t rng_next(uint64_t *state);

/* peer_timeq.c: a timeq of a given shape (calibrate.c), the tuning rule */
void *timeq_bench_create(const struct seq *s, unsigned int delta_shift,
			 unsigned int buckets_shift, bool locked);
void timeq_bench_shape(uint64_t horizon, uint64_t count, uint64_t mean,
		       unsigned int *delta_shift, unsigned int *buckets_shift,
		       double *predicted_ns);

/* mock_clock.c: the clock the event loops read, and their empty poll */
void mock_clock_set_ns(uint64_t ns);
void mock_clock_on(bool on);
uint64_t real_ns(void);		/* this thread's CPU time, for timing */

#endif /* TIMEQ_BENCH_H */
