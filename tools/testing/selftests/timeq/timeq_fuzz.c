// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/timeq ABI fuzzer: seeded, bounded in time.
 *
 *   timeq_fuzz [--seed N] [--seconds S] [--threads T] [--files F]
 *              [--model-share PERCENT] [--ops N] [--far-rounds R]
 *
 * Random commands with random and boundary values (sizes below the first
 * version, at it, larger with a zero or a non-zero tail, above a page;
 * every field at and around its limits; reserved and out fields set),
 * structures placed anywhere: whole in memory, misaligned, across the end
 * of a page into a read-only or an inaccessible one, wholly in such a
 * page, at NULL, at a kernel or non-canonical address; batches whose
 * entries run into such pages; random, stale and foreign handles;
 * unknown command numbers; read() of every length into such buffers;
 * close and reopen.
 *
 *  1. The model phase, one thread, in a child process of its own uid (so
 *     that the per-user limits are its alone): F files, each checked
 *     after every call against a model. A manual-clock file has an exact
 *     one (timeq_model.h), with the order in which module/dev.c checks
 *     what can fail derived from the header, and the bytes each call may
 *     read and write derived from where its structure lies: the return
 *     value, errno, every out field, every event's bytes, poll() and
 *     TIMEQ_STATS must be what the model says. A monotonic-clock file has
 *     a model of what is certain while its clock moves: its live handles,
 *     counts, no event early, and the errno of every argument check. This
 *     phase is deterministic but for the monotonic files, and a failure
 *     prints the call number to rerun it with --ops.
 *  2. The chaos phase: T threads and a reader on shared files, the reader
 *     in epoll_wait(), poll() and read() while the others write; files
 *     closed and reopened under the others' feet: a file is swapped out
 *     of its descriptor with dup2() while calls on it are in flight, so
 *     that its release runs in whichever call drops it last. Every errno
 *     must be one the header documents for that command (and each batch
 *     operation's result one documented for operations), every event and
 *     every TIMEQ_STATS self-consistent; each file, when closed in order,
 *     must hold exactly what its stats say.
 *  3. The far-work phase (the concurrency defects that
 *     tools/testing/explore/README lists): rounds on monotonic files
 *     whose next minimum, once the near elements have expired, is found
 *     by work of many lock holds, with the locks dropped between them: a
 *     far bucket of thousands of elements inserted out of time order,
 *     spread in the queue's focus, and a short unsorted bucket before it
 *     that wants the focus. Two threads race DELETE, UPDATE (far ahead)
 *     and MIN against the expiry of the near elements, each on elements
 *     of its own: MIN never says ENODATA while elements are queued, an
 *     element deleted is never delivered, one moved is still queued at the
 *     end, and every other one is delivered exactly once.
 *
 * It prints the seed first, with the command that reruns it, and at the
 * end the calls made and the errno seen, per command. Without the module
 * it fails at once: /dev/timeq must open.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "timeq_lib.h"
#include "timeq_model.h"
#include "kselftest.h"

/* --- options --- */

static __u64 opt_seed;
static unsigned int opt_seconds = 60;
static unsigned int opt_threads = 4;
static unsigned int opt_files = 6;
static unsigned int opt_model_share = 40;	/* percent of the time */
static unsigned long opt_ops;			/* model phase: stop after */
static unsigned int opt_far_rounds = 4;		/* far-work phase */
static int opt_verbose;				/* print each model call */

/* --- the commands, as this program tells them apart --- */

enum {
	C_CONFIGURE, C_INSERT, C_DELETE, C_UPDATE, C_MIN, C_DELETE_MIN,
	C_ADVANCE, C_STATS, C_BATCH,
	C_UNKNOWN, C_READ, C_POLL, C_REOPEN, C_N
};

static const char *const c_name[C_N] = {
	"CONFIGURE", "INSERT", "DELETE", "UPDATE", "MIN", "DELETE_MIN",
	"ADVANCE", "STATS", "BATCH", "unknown ioctl", "read", "poll",
	"close+open",
};

struct cmdinfo {
	unsigned long	cmd;
	size_t		ksize;		/* what this kernel knows */
	size_t		min;		/* the first version */
	int		gated;		/* EBADFD until configured */
	size_t		out;		/* out fields from here to ksize; 0: none */
};

static const struct cmdinfo cinfo[C_BATCH + 1] = {
	[C_CONFIGURE] = { TIMEQ_CONFIGURE, sizeof(struct timeq_configure),
			  TIMEQ_CONFIGURE_SIZE_VER0, 0, 0 },
	[C_INSERT] = { TIMEQ_INSERT, sizeof(struct timeq_insert),
		       TIMEQ_INSERT_SIZE_VER0, 1,
		       offsetof(struct timeq_insert, handle) },
	[C_DELETE] = { TIMEQ_DELETE, sizeof(struct timeq_delete),
		       TIMEQ_DELETE_SIZE_VER0, 1, 0 },
	[C_UPDATE] = { TIMEQ_UPDATE, sizeof(struct timeq_update),
		       TIMEQ_UPDATE_SIZE_VER0, 1, 0 },
	[C_MIN] = { TIMEQ_MIN, sizeof(struct timeq_element),
		    TIMEQ_ELEMENT_SIZE_VER0, 1,
		    offsetof(struct timeq_element, handle) },
	[C_DELETE_MIN] = { TIMEQ_DELETE_MIN, sizeof(struct timeq_element),
			   TIMEQ_ELEMENT_SIZE_VER0, 1,
			   offsetof(struct timeq_element, handle) },
	[C_ADVANCE] = { TIMEQ_ADVANCE, sizeof(struct timeq_advance),
			TIMEQ_ADVANCE_SIZE_VER0, 1, 0 },
	[C_STATS] = { TIMEQ_STATS, sizeof(struct timeq_stats),
		      TIMEQ_STATS_SIZE_VER0, 0,
		      offsetof(struct timeq_stats, clock) },
	[C_BATCH] = { TIMEQ_BATCH, sizeof(struct timeq_batch),
		      TIMEQ_BATCH_SIZE_VER0, 1, 0 },
};

/* Calls and errno per command, shared with the model phase's child. */
#define ERRNO_MAX	134
struct tallies {
	unsigned long	n[C_N][ERRNO_MAX];	/* [0]: success */
	unsigned long	model_calls;
	unsigned long	chaos_calls;
	unsigned long	events;
	unsigned long	swaps;
	unsigned long	reopens;
	unsigned long	far_calls;
};

static struct tallies *tally;

static void count(int c, int err)
{
	__atomic_add_fetch(&tally->n[c][err > 0 && err < ERRNO_MAX ? err : 0],
			   1, __ATOMIC_RELAXED);
}

/* The module's limits, read once. */
static __u64 p_max_horizon, p_max_elements, p_default_elements,
	     p_max_user_files, p_max_user_elements;

/* --- where a structure lies --- */

/*
 * Three pages: A read-write, B as the call wants it, C inaccessible. A
 * structure lies at an offset in A or B, or at an address that is no
 * memory at all; @readable and @writable are how many of its bytes,
 * from its start, the kernel can read and write.
 */
struct arena {
	char	*base;
};

struct place {
	char	*p;
	size_t	readable;
	size_t	writable;
	int	bprot;		/* B's protection during the call */
	int	user;		/* 1: a user address, 0: not, 2: the last page */
};

static int arena_init(struct arena *a)
{
	a->base = mmap(NULL, 3 * TQ_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		return -1;
	return mprotect(a->base + 2 * TQ_PAGE, TQ_PAGE, PROT_NONE);
}

/*
 * Addresses that are no memory of this process; *@user says whether the
 * VFS's access_ok() takes it for a user address (1), not (0), or only
 * for a length 0 (2): read() fails with EFAULT before the driver runs
 * for one it does not.
 */
static char *bad_address(__u64 r, int *user)
{
	static const unsigned long long bad[] = {
#if __SIZEOF_POINTER__ == 8
		0xffffffff81000000ULL,	/* kernel text */
		0xffff888000000000ULL,	/* the direct map */
		0x8000000000000000ULL,	/* non-canonical */
		0x00007ffffffff000ULL,	/* the top of userspace */
#else
		0xfffff000UL,		/* above a compat task's space */
		0xc0000000UL,
#endif
		1, 4096 - 4,
	};
	uintptr_t p = bad[r % TQ_ARRAY_SIZE(bad)];

#if __SIZEOF_POINTER__ == 8
	*user = p < 0x00007ffffffff000ULL ? 1 :
		p == 0x00007ffffffff000ULL ? 2 : 0;
#else
	*user = 1;	/* below a 64-bit kernel's TASK_SIZE_MAX */
#endif
	return (char *)p;
}

/*
 * Choose where @len bytes go, and make B writable so the caller can write
 * them; place_arm() then gives B its protection.
 */
static void place_choose(struct arena *a, __u64 *rng, size_t len,
			 struct place *pl)
{
	__u64 mode = tq_below(rng, 100), k;
	size_t off;

	mprotect(a->base + TQ_PAGE, TQ_PAGE, PROT_READ | PROT_WRITE);
	memset(a->base, 0, 2 * TQ_PAGE);
	pl->bprot = PROT_READ | PROT_WRITE;
	pl->user = 1;
	if (len > 2 * TQ_PAGE)
		len = 2 * TQ_PAGE;
	/* What does not fit a page goes whole, or across A's end. */
	if (len > TQ_PAGE && mode >= 82)
		mode %= 82;
	if (mode < 62) {
		/* In memory: aligned, or anywhere. */
		off = tq_below(rng, 2 * TQ_PAGE - len + 1);
		if (mode < 50)
			off &= ~7UL;
		pl->p = a->base + off;
		pl->readable = 2 * TQ_PAGE - off;
		pl->writable = pl->readable;
	} else if (mode < 82) {
		/* Across the end of A into B, read-only or inaccessible. */
		k = tq_below(rng, (len < TQ_PAGE ? len : TQ_PAGE) + 1);
		if (tq_below(rng, 2))
			k &= ~3ULL;
		off = TQ_PAGE - k;
		pl->p = a->base + off;
		pl->writable = k;
		if (mode < 72) {
			pl->bprot = PROT_READ;
			pl->readable = 2 * TQ_PAGE - off;
		} else {
			pl->bprot = PROT_NONE;
			pl->readable = k;
		}
	} else if (mode < 88) {
		/* Wholly in B, read-only. */
		off = TQ_PAGE + (tq_below(rng, TQ_PAGE - len + 1) & ~7UL);
		pl->p = a->base + off;
		pl->bprot = PROT_READ;
		pl->readable = 2 * TQ_PAGE - off;
		pl->writable = 0;
	} else if (mode < 92) {
		/* Wholly in C. */
		pl->p = a->base + 2 * TQ_PAGE + (tq_below(rng, 512) & ~7UL);
		pl->readable = 0;
		pl->writable = 0;
	} else if (mode < 95) {
		pl->p = NULL;
		pl->readable = 0;
		pl->writable = 0;
	} else {
		pl->p = bad_address(tq_rand(rng), &pl->user);
		pl->readable = 0;
		pl->writable = 0;
	}
}

/* Copy @len bytes of @src to the place, as far as it is memory of ours. */
static void place_write(struct arena *a, struct place *pl, const void *src,
			size_t len)
{
	char *end = a->base + 2 * TQ_PAGE;

	if (pl->p < a->base || pl->p >= end)
		return;
	if (len > (size_t)(end - pl->p))
		len = end - pl->p;
	memcpy(pl->p, src, len);
}

static void place_arm(struct arena *a, struct place *pl)
{
	mprotect(a->base + TQ_PAGE, TQ_PAGE, pl->bprot);
}

static void place_disarm(struct arena *a)
{
	mprotect(a->base + TQ_PAGE, TQ_PAGE, PROT_READ | PROT_WRITE);
}

/* Read back what lies at the place, where it is memory of ours. */
static void place_read(struct arena *a, struct place *pl, void *dst,
		       size_t len)
{
	char *end = a->base + 2 * TQ_PAGE;

	memset(dst, 0, len);
	if (pl->p < a->base || pl->p >= end)
		return;
	if (len > (size_t)(end - pl->p))
		len = end - pl->p;
	memcpy(dst, pl->p, len);
}

/* --- values --- */

/* A size for a structure: mostly right, else at and around the limits. */
static __u32 pick_size(__u64 *rng, size_t ksize, size_t min)
{
	switch (tq_below(rng, 24)) {
	case 0: return 0;
	case 1: return 4;
	case 2: return min - 8;
	case 3: return min - 1;
	case 4: return ksize + 8;
	case 5: return ksize + 8 * (1 + tq_below(rng, 60));
	case 6: return TQ_PAGE;
	case 7: return TQ_PAGE + 1;
	case 8: return 0xffffffff;
	case 9: return ksize + 1 + tq_below(rng, 64);
	case 10: return 8 * tq_below(rng, 1 + TQ_PAGE / 8);
	default: return ksize;
	}
}

static __u64 pick_u64(__u64 *rng)
{
	static const __u64 edge[] = {
		0, 1, 2, 7, 8, 63, 64, 4095, 4096, 65535, 65536, 1 << 20,
		(1 << 20) + 1, 1 << 24, (1 << 24) + 1, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, 1ULL << 40, (1ULL << 62) + 1,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL - 1, ~0ULL,
	};

	if (tq_below(rng, 3))
		return edge[tq_below(rng, TQ_ARRAY_SIZE(edge))];
	return tq_rand(rng) >> tq_below(rng, 64);
}

/* --- handles seen, any file's, for the foreign and stale ones --- */

#define SEEN	256
static __u64 seen[SEEN];
static unsigned int seen_at;

static void seen_add(__u64 handle)
{
	unsigned int i = __atomic_fetch_add(&seen_at, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&seen[i % SEEN], handle, __ATOMIC_RELAXED);
}

static __u64 seen_any(__u64 *rng)
{
	return __atomic_load_n(&seen[tq_below(rng, SEEN)], __ATOMIC_RELAXED);
}

/* --- the monotonic file's model: what is certain while time moves --- */

struct live {
	__u64	handle;
	__u64	asked;		/* the time last asked for */
	__u64	cookie;
	int	gone;		/* a delete or update found it expired */
};

struct mono {
	__u64		gran;
	__u64		horizon;
	__u32		cap;
	__u32		event_size;
	struct live	*live;
	__u32		nlive;
	__u32		size;
	__u64		inserted;
	__u64		read;		/* events read */
};

static __u64 tick_of(const struct mono *mm)
{
	return tq_mono_ns() / mm->gran;
}

static struct live *mono_find(struct mono *mm, __u64 handle)
{
	__u32 i;

	for (i = 0; i < mm->nlive; i++)
		if (mm->live[i].handle == handle)
			return &mm->live[i];
	return NULL;
}

static void mono_forget(struct mono *mm, struct live *l)
{
	*l = mm->live[--mm->nlive];
}

static int mono_add(struct mono *mm, __u64 handle, __u64 asked, __u64 cookie)
{
	if (mm->nlive == mm->size) {
		__u32 size = mm->size ? 2 * mm->size : 64;
		struct live *l = realloc(mm->live, size * sizeof(*l));

		if (!l)
			return -1;
		mm->live = l;
		mm->size = size;
	}
	mm->live[mm->nlive++] = (struct live){ handle, asked, cookie, 0 };
	return 0;
}

/* --- a file: its descriptor and its model --- */

enum { S_UNCONFIGURED, S_MANUAL, S_MONO };

struct slot {
	int		fd;
	int		kind;
	struct tqm_file	m;		/* manual */
	struct mono	mm;		/* monotonic */
	__u64		stale[16];	/* handles of this file now gone */
	unsigned int	nstale;
	__u32		esize;		/* chaos: the event size configured */
	/* The chaos phase. */
	pthread_rwlock_t lock;
	int		swapped;	/* holds the sink: no accounting */
};

static void slot_stale(struct slot *s, __u64 handle)
{
	s->stale[s->nstale++ % TQ_ARRAY_SIZE(s->stale)] = handle;
}

/* The configured files of the model phase's uid, for EMFILE. */
static int model_files(struct slot *slots, unsigned int n)
{
	unsigned int i;
	int files = 0;

	for (i = 0; i < n; i++)
		files += slots[i].kind != S_UNCONFIGURED;
	return files;
}

static __u64 model_elements(struct slot *slots, unsigned int n)
{
	unsigned int i;
	__u64 e = 0;

	for (i = 0; i < n; i++) {
		if (slots[i].kind == S_MANUAL)
			e += slots[i].m.queued + slots[i].m.events;
		else if (slots[i].kind == S_MONO)
			e += slots[i].mm.nlive;
	}
	return e;
}

/* A handle to aim at in @s: its own, live or stale, or anyone's, or junk. */
static __u64 pick_handle(__u64 *rng, struct slot *s)
{
	__u64 r = tq_below(rng, 100), h;
	__u32 i;

	if (r < 45 && s->kind == S_MANUAL && s->m.queued) {
		for (i = tq_below(rng, s->m.hwm); ; i = (i + 1) % s->m.hwm)
			if (s->m.e[i].state == TQM_QUEUED)
				return s->m.e[i].handle;
	}
	if (r < 45 && s->kind == S_MONO && s->mm.nlive)
		return s->mm.live[tq_below(rng, s->mm.nlive)].handle;
	if (r < 60 && s->nstale)
		return s->stale[tq_below(rng, s->nstale < 16 ? s->nstale : 16)];
	if (r < 75)
		return seen_any(rng);
	h = seen_any(rng);
	switch (r % 6) {
	case 0: return 0;
	case 1: return h ^ 1ULL << 32;		/* another generation */
	case 2: return h + 1;			/* the next index */
	case 3: return (__u32)h;		/* generation 0 */
	case 4: return h | 0xffffffff;
	default: return tq_rand(rng);
	}
}

/* A time for @s: in the window, at its edges, or anywhere. */
static __u64 pick_time(__u64 *rng, struct slot *s)
{
	__u64 now, h;

	if (s->kind == S_MANUAL) {
		now = s->m.now;
		h = s->m.horizon;
	} else if (s->kind == S_MONO) {
		now = tick_of(&s->mm);
		h = s->mm.horizon;
	} else {
		return pick_u64(rng);
	}
	switch (tq_below(rng, 16)) {
	case 0: return now - 1;
	case 1: return now;
	case 2: return now + h - 1;
	case 3: return now + h;
	case 4: return 0;
	case 5: return ~0ULL;
	case 6: return pick_u64(rng);
	case 7: return now + h + tq_below(rng, 100);
	default: return now + tq_below(rng, h > 64 && tq_below(rng, 2) ? 64 : h);
	}
}

/* --- failing loudly --- */

static __u64 call_no;

/* Say what failed, at which call and line; -1, for the caller to return. */
static __printf(2, 3) int bad(int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksft_print_msg("call %lu: line %d: %s\n", (unsigned long)call_no, line,
		       msg);
	return -1;
}

#define BAD(fmt, ...) bad(__LINE__, fmt, ##__VA_ARGS__)

/* @st in a message: what it counts, its capacity, whether configured. */
static const char *stats_str(char *buf, size_t len,
			     const struct timeq_stats *st)
{
	snprintf(buf, len,
		 "queued %llu events %llu inserted %llu expired %llu now %llu cap %u conf %u",
		 (unsigned long long)st->queued,
		 (unsigned long long)st->events,
		 (unsigned long long)st->inserted,
		 (unsigned long long)st->expired,
		 (unsigned long long)st->now, st->max_elements,
		 st->configured);
	return buf;
}

/* An element in a message. */
static const char *elem_str(char *buf, size_t len, __u64 handle, __u64 time,
			    __u64 cookie)
{
	snprintf(buf, len, "%llx at %llu cookie %llx",
		 (unsigned long long)handle, (unsigned long long)time,
		 (unsigned long long)cookie);
	return buf;
}

/* --- what the kernel does with a structure at a place --- */

/*
 * The errno of reading a command's structure of claimed size @usize at
 * @pl, whose bytes are @bytes (as far as they are readable), or 0: as
 * tq_dev_copy_in() and copy_struct_from_user() read it.
 */
static int copy_in_errno(const struct place *pl, const unsigned char *bytes,
			 __u32 usize, size_t ksize, size_t min)
{
	size_t i, end;

	if (pl->readable < 4)
		return EFAULT;
	if (usize > TQ_PAGE)
		return E2BIG;
	if (usize < min)
		return EINVAL;
	if (usize <= ksize)
		return pl->readable >= usize ? 0 : EFAULT;
	end = usize < pl->readable ? usize : pl->readable;
	for (i = ksize; i < end; i++)
		if (bytes[i])
			return E2BIG;
	return pl->readable >= usize ? 0 : EFAULT;
}

/* Whether the out fields of a command from @off can be written. */
static int out_ok(const struct place *pl, size_t off, size_t ksize,
		  __u32 usize)
{
	size_t end = ksize < usize ? ksize : usize;

	return pl->writable >= end || end <= off;
}

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

/* --- the model phase --- */

struct fuzzer {
	__u64		rng;
	struct arena	a;		/* the command's structure */
	struct arena	b;		/* batch entries, read() buffers */
	struct slot	*slots;
	unsigned int	nslots;
	int		model;		/* check against the models */
	unsigned char	buf[TQ_PAGE + 64];
	unsigned char	pre[2 * TQ_PAGE];	/* batch entries, before */
};

/* Check every field of TIMEQ_STATS of @s against its model. */
static int check_stats(struct fuzzer *z, struct slot *s)
{
	struct timeq_stats st = tq_stats(s->fd), want;
	char got[192], model[192];
	__u64 tick;

	if (!st.size)
		return BAD("TIMEQ_STATS failed: %s", strerror(errno));
	if (s->kind == S_MANUAL || s->kind == S_UNCONFIGURED) {
		want = tqm_stats(&s->m);
		if (!tqm_stats_equal(&want, &st))
			return BAD("stats: %s; model %s",
				   stats_str(got, sizeof(got), &st),
				   stats_str(model, sizeof(model), &want));
		return 0;
	}
	tick = tick_of(&s->mm);
	if (st.clock != TIMEQ_CLOCK_MONOTONIC || !st.configured ||
	    st.horizon != s->mm.horizon || st.max_elements != s->mm.cap)
		return BAD("monotonic stats: the configuration changed");
	if (st.queued + st.events != s->mm.nlive)
		return BAD("monotonic stats: %llu queued + %llu events, %u alive",
			   (unsigned long long)st.queued,
			   (unsigned long long)st.events, s->mm.nlive);
	if (st.inserted != s->mm.inserted)
		return BAD("monotonic stats: inserted %llu, model %llu",
			   (unsigned long long)st.inserted,
			   (unsigned long long)s->mm.inserted);
	if (st.expired != s->mm.read + st.events)
		return BAD("monotonic stats: expired %llu, %llu read + %llu unread",
			   (unsigned long long)st.expired,
			   (unsigned long long)s->mm.read,
			   (unsigned long long)st.events);
	if (st.now > tick)
		return BAD("monotonic stats: clock %llu ahead of the tick %llu",
			   (unsigned long long)st.now, (unsigned long long)tick);
	return 0;
}

/* CONFIGURE's arguments, mostly valid. */
static void gen_configure(struct fuzzer *z, struct timeq_configure *c)
{
	__u64 *rng = &z->rng;
	static const __u32 esizes[] = { 0, 32, 40, 48, 64, 4096, 8, 36, 4104,
					 0xffffffff };

	memset(c, 0, sizeof(*c));
	c->clock = tq_below(rng, 2);
	if (!tq_below(rng, 12))
		c->clock = tq_below(rng, 2) ? 2 : tq_rand(rng);
	if (c->clock == TIMEQ_CLOCK_MONOTONIC) {
		static const __u64 g[] = { 1, 1000, 10000, 1000000, 1000000000 };

		c->granularity = g[tq_below(rng, TQ_ARRAY_SIZE(g))];
		c->horizon = 1 + tq_below(rng, 1 << 20);
	} else {
		c->start = tq_below(rng, 4) ? tq_below(rng, 1000) : pick_u64(rng);
		c->horizon = 1 + tq_below(rng, 1 << (1 + tq_below(rng, 20)));
	}
	c->max_elements = tq_below(rng, 3) ? 1 + tq_below(rng, 200) : 0;
	c->event_size = tq_below(rng, 3) ? 0 : esizes[tq_below(rng, 6)];
	switch (tq_below(rng, 14)) {
	case 0:
		c->horizon = pick_u64(rng);
		break;
	case 1:
		c->granularity = pick_u64(rng);
		break;
	case 2:
		c->start = pick_u64(rng) | 1;
		break;
	case 3:
		c->max_elements = pick_u64(rng);
		break;
	case 4:
		c->event_size = esizes[tq_below(rng, TQ_ARRAY_SIZE(esizes))];
		break;
	case 5:
		c->horizon = p_max_horizon + tq_below(rng, 2);
		break;
	case 6:
		c->max_elements = p_max_elements + tq_below(rng, 2);
		break;
	}
}

/*
 * The model's verdict on TIMEQ_CONFIGURE of @c read whole: 0 or errno.
 * In tq_dev_configure()'s order: the event size, the ranges, a second
 * configuration, the clock's own fields (the monotonic clock's span
 * among them), the user's files, and the queue's largest horizon.
 */
static int want_configure(struct fuzzer *z, struct slot *s,
			  const struct timeq_configure *c)
{
	__u64 cap = c->max_elements ? c->max_elements : p_default_elements;
	__u64 esize = c->event_size ? c->event_size : TIMEQ_EVENT_SIZE_VER0;
	__u64 span;

	if (esize > TQ_PAGE)
		return E2BIG;
	if (!c->horizon || c->horizon > p_max_horizon ||
	    cap > p_max_elements || cap > 0x7fffffff ||
	    esize < TIMEQ_EVENT_SIZE_VER0 || esize % 8)
		return EINVAL;
	if (s->kind != S_UNCONFIGURED)
		return EBUSY;
	if (c->clock == TIMEQ_CLOCK_MANUAL && c->granularity)
		return EINVAL;
	if (c->clock == TIMEQ_CLOCK_MONOTONIC &&
	    (c->start || !c->granularity ||
	     __builtin_mul_overflow(c->horizon, c->granularity, &span) ||
	     span > 1ULL << 62))
		return EINVAL;
	if (c->clock > TIMEQ_CLOCK_MONOTONIC)
		return EOPNOTSUPP;
	if ((__u64)model_files(z->slots, z->nslots) >= p_max_user_files)
		return EMFILE;
	if (c->horizon > 1ULL << 40)
		return EINVAL;
	return 0;
}

static void apply_configure(struct slot *s, const struct timeq_configure *c)
{
	__u32 cap = c->max_elements ? c->max_elements : p_default_elements;
	__u32 esize = c->event_size ? c->event_size : TIMEQ_EVENT_SIZE_VER0;

	if (c->clock == TIMEQ_CLOCK_MANUAL) {
		s->kind = S_MANUAL;
		tqm_configure(&s->m, c->start, c->horizon, cap, esize);
		return;
	}
	s->kind = S_MONO;
	s->mm.gran = c->granularity;
	s->mm.horizon = c->horizon;
	s->mm.cap = cap;
	s->mm.event_size = esize;
}

/* Whether an insert at @time would pass in a manual file: 0 or errno. */
static int manual_insert_check(struct fuzzer *z, struct slot *s, __u64 time)
{
	if (!tqm_in_window(&s->m, time))
		return ERANGE;
	if (s->m.queued + s->m.events >= s->m.cap ||
	    model_elements(z->slots, z->nslots) >= p_max_user_elements)
		return ENOSPC;
	return 0;
}

static int manual_update_check(struct slot *s, __u64 handle, __u64 time)
{
	if (!tqm_find(&s->m, handle))
		return ENOENT;
	return tqm_in_window(&s->m, time) ? 0 : ERANGE;
}

/* An insert the kernel did: record it in the model of @s. */
static int did_insert(struct fuzzer *z, struct slot *s, __u64 time,
		      __u64 asked, __u64 cookie, __u64 handle)
{
	struct tqm_elem *x;

	seen_add(handle);
	if (s->kind == S_MONO) {
		if (!handle || mono_find(&s->mm, handle))
			return BAD("monotonic insert: handle %llx not new",
				   (unsigned long long)handle);
		s->mm.inserted++;
		return mono_add(&s->mm, handle, asked, cookie);
	}
	if (tqm_insert(&s->m, time, cookie, &x))
		return BAD("the model refuses an insert the kernel did");
	if (tqm_set_handle(&s->m, x, handle))
		return BAD("insert: handle %llx is 0 or was issued before",
			   (unsigned long long)handle);
	return 0;
}

/*
 * Whether a monotonic insert or update at @time, between ticks @t0 and
 * @t1 read before and after the call, must be refused (1), must pass the
 * window (0), or may go either way (-1): the kernel's clock was some
 * tick in between.
 */
static int mono_window(struct slot *s, __u64 time, __u64 t0, __u64 t1)
{
	if (time >= t1 + s->mm.horizon)
		return 1;
	if (time < t0 + s->mm.horizon)
		return 0;
	return -1;
}

/*
 * The verdict on a monotonic insert: the window first, then the cap, then
 * the copy-out (@out_ok); what the kernel said (@got, 0 or errno) is taken
 * where the clock leaves a choice.
 */
static int mono_insert_want(struct fuzzer *z, struct slot *s, __u64 time,
			    __u64 t0, __u64 t1, int out_ok, int got)
{
	int w = mono_window(s, time, t0, t1), rest;

	if (s->mm.nlive >= s->mm.cap ||
	    model_elements(z->slots, z->nslots) >= p_max_user_elements)
		rest = ENOSPC;
	else
		rest = out_ok ? 0 : EFAULT;
	if (w == 1)
		return ERANGE;
	if (w == 0)
		return rest;
	return got == ERANGE ? ERANGE : rest;
}

/* With --verbose, a call of the model phase: which, and what came of it. */
static __printf(3, 4) void trace(struct fuzzer *z, struct slot *s,
				 const char *fmt, ...)
{
	va_list ap;

	printf("# %lu: slot %d kind %d ", (unsigned long)call_no,
	       (int)(s - z->slots), s->kind);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/*
 * One ioctl of command @c on @s with a generated structure, checked
 * against the model when z->model. The structure @k (ksize bytes) has
 * been generated; this places it, calls, and judges.
 */
static int do_ioctl(struct fuzzer *z, struct slot *s, int c, void *k)
{
	const struct cmdinfo *ci = &cinfo[c];
	struct place pl;
	__u32 usize = pick_size(&z->rng, ci->ksize, ci->min);
	size_t len = usize > TQ_PAGE ? ci->ksize : usize;
	unsigned char *bytes = z->buf, back[TQ_PAGE + 64];
	__u64 t0 = 0, t1, time = 0;
	int ret, err, want = 0, in;

	if (len < ci->ksize)
		len = ci->ksize;
	memset(bytes, 0, len);
	memcpy(bytes, k, ci->ksize);
	memcpy(bytes, &usize, 4);
	/* A larger structure: its tail is zero, or has one byte set. */
	if (usize > ci->ksize && usize <= TQ_PAGE && !tq_below(&z->rng, 3))
		bytes[ci->ksize + tq_below(&z->rng, usize - ci->ksize)] =
			1 + tq_below(&z->rng, 255);
	place_choose(&z->a, &z->rng, len, &pl);
	place_write(&z->a, &pl, bytes, len);
	if (s->kind == S_MONO)
		t0 = tick_of(&s->mm);
	place_arm(&z->a, &pl);
	ret = ioctl(s->fd, ci->cmd, pl.p);
	err = ret < 0 ? errno : 0;
	place_disarm(&z->a);
	t1 = s->kind == S_MONO ? tick_of(&s->mm) : 0;
	count(c, err);
	if (opt_verbose && z->model)
		trace(z, s, "%s size %u (%zu r, %zu w) %llx %llx %llx: %d %s\n",
		      c_name[c], usize, pl.readable, pl.writable,
		      (unsigned long long)((__u64 *)k)[1],
		      (unsigned long long)((__u64 *)k)[2],
		      (unsigned long long)(ci->ksize > 24 ? ((__u64 *)k)[3] : 0),
		      ret, tq_errno_name(err));
	if (ret < 0 && !tq_errno_ok(ci->cmd, err))
		return BAD("%s: errno %s is not documented for it", c_name[c],
			   tq_errno_name(err));
	place_read(&z->a, &pl, back, len);
	if (ret == 0 && c == C_INSERT && out_ok(&pl, ci->out, ci->ksize, usize))
		seen_add(((struct timeq_insert *)back)->handle);
	if (!z->model)
		return 0;

	/* The model's verdict: first the structure, then the file. */
	in = copy_in_errno(&pl, bytes, usize, ci->ksize, ci->min);
	/*
	 * The kernel reads @usize bytes and takes the rest of its structure
	 * as zero: so does the model, whatever lies in memory past them.
	 */
	if (usize < ci->ksize)
		memset((char *)k + usize, 0, ci->ksize - usize);
	if (in) {
		want = in;
	} else if (ci->gated && s->kind == S_UNCONFIGURED) {
		want = EBADFD;
	} else {
		switch (c) {
		case C_CONFIGURE: {
			struct timeq_configure *cf = k;

			want = want_configure(z, s, cf);
			if (!want && !ret) {
				apply_configure(s, cf);
				if (s->kind == S_MONO)
					return check_stats(z, s);
			}
			break;
		}
		case C_INSERT: {
			struct timeq_insert *a = k, *o = (void *)back;

			time = a->time;
			if (a->__reserved || a->handle) {
				want = EINVAL;
				break;
			}
			if (s->kind == S_MONO) {
				/* A time before the tick means the tick. */
				want = mono_insert_want(z, s, time, t0, t1,
							out_ok(&pl, ci->out,
							       ci->ksize, usize),
							ret < 0 ? err : 0);
				if (!want && !ret &&
				    did_insert(z, s, 0, time, a->cookie, o->handle))
					return -1;
				break;
			}
			want = manual_insert_check(z, s, time);
			if (!want && !out_ok(&pl, ci->out, ci->ksize, usize))
				want = EFAULT;
			if (!want && !ret &&
			    did_insert(z, s, time, time, a->cookie, o->handle))
				return -1;
			break;
		}
		case C_DELETE: {
			struct timeq_delete *a = k;
			struct live *l;

			if (a->__reserved) {
				want = EINVAL;
				break;
			}
			if (s->kind == S_MONO) {
				l = mono_find(&s->mm, a->handle);
				want = l && !l->gone ? (ret ? ENOENT : 0) : ENOENT;
				if (l && !ret && !l->gone) {
					mono_forget(&s->mm, l);
					slot_stale(s, a->handle);
				} else if (l && ret) {
					l->gone = 1;	/* it expired */
				}
				break;
			}
			want = tqm_delete(&s->m, a->handle);
			if (!want)
				slot_stale(s, a->handle);
			break;
		}
		case C_UPDATE: {
			struct timeq_update *a = k;
			struct live *l;

			if (a->__reserved) {
				want = EINVAL;
				break;
			}
			if (s->kind == S_MONO) {
				l = mono_find(&s->mm, a->handle);
				if (!l || l->gone) {
					want = ENOENT;
					break;
				}
				/* It may have expired at any moment. */
				if (ret < 0 && err == ENOENT) {
					l->gone = 1;
					want = ENOENT;
					break;
				}
				switch (mono_window(s, a->time, t0, t1)) {
				case 1:
					want = ERANGE;
					break;
				case 0:
					want = 0;
					break;
				default:
					want = ret < 0 && err == ERANGE ? ERANGE : 0;
				}
				if (!ret)
					l->asked = a->time;
				break;
			}
			want = tqm_update(&s->m, a->handle, a->time);
			break;
		}
		case C_MIN:
		case C_DELETE_MIN: {
			struct timeq_element *a = k, *o = (void *)back;
			struct tqm_elem *x, got;
			char eo[80], ex[80];

			if (c == C_DELETE_MIN && s->kind == S_MONO) {
				want = EOPNOTSUPP;
				break;
			}
			if (!all_zero(&a->__reserved, sizeof(*a) - 4)) {
				want = EINVAL;
				break;
			}
			if (s->kind == S_MONO) {
				struct live *l;

				/* Empty, or all expired meanwhile: ENODATA. */
				if (!s->mm.nlive || (ret < 0 && err == ENODATA))
					want = ENODATA;
				else
					want = out_ok(&pl, ci->out, ci->ksize, usize) ?
					       0 : EFAULT;
				if (ret || want)
					break;
				l = mono_find(&s->mm, o->handle);
				if (!l || o->time < l->asked || o->cookie != l->cookie)
					return BAD("monotonic MIN: %llx at %llu is none of ours",
						   (unsigned long long)o->handle,
						   (unsigned long long)o->time);
				break;
			}
			x = tqm_min(&s->m);
			if (!x) {
				want = ENODATA;
				break;
			}
			if (!out_ok(&pl, ci->out, ci->ksize, usize)) {
				want = EFAULT;
				break;
			}
			if (!ret && (o->handle != x->handle ||
				     o->time != x->time ||
				     o->cookie != x->cookie))
				return BAD("%s: %s, the model says %s",
					   c_name[c],
					   elem_str(eo, sizeof(eo), o->handle,
						    o->time, o->cookie),
					   elem_str(ex, sizeof(ex), x->handle,
						    x->time, x->cookie));
			if (c == C_DELETE_MIN && !ret) {
				slot_stale(s, x->handle);
				tqm_delete_min(&s->m, &got);
			}
			want = 0;
			break;
		}
		case C_ADVANCE: {
			struct timeq_advance *a = k;

			if (a->__reserved) {
				want = EINVAL;
				break;
			}
			if (s->kind == S_MONO) {
				want = EOPNOTSUPP;
				break;
			}
			want = tqm_advance(&s->m, a->time);
			if (ret != want)
				return BAD("ADVANCE to %llu returned %d, the model says %d",
					   (unsigned long long)a->time, ret, want);
			return check_stats(z, s);
		}
		case C_STATS: {
			struct timeq_stats *o = (void *)back;

			if (!all_zero((char *)k + 4, ci->ksize - 4)) {
				want = EINVAL;
				break;
			}
			if (!out_ok(&pl, ci->out, ci->ksize, usize)) {
				want = EFAULT;
				break;
			}
			if (!ret && s->kind != S_MONO) {
				struct timeq_stats st = tqm_stats(&s->m);

				st.size = o->size;
				if (!tqm_stats_equal(&st, o))
					return BAD("STATS at a place differs from the model");
			}
			want = 0;
			break;
		}
		}
	}
	if (want != (ret < 0 ? err : 0))
		return BAD("%s (size %u, %zu readable, %zu writable): %s, the model says %s",
			   c_name[c], usize, pl.readable, pl.writable,
			   ret < 0 ? tq_errno_name(err) : "ok", tq_errno_name(want));
	return check_stats(z, s);
}

/* --- BATCH --- */

/* One entry's verdict in a manual file, without applying it: 0 or errno. */
static int op_check(struct fuzzer *z, struct slot *s, const struct timeq_op *op)
{
	if (op->result)
		return EINVAL;
	switch (op->op) {
	case TIMEQ_OP_INSERT:
		if (op->handle)
			return EINVAL;
		return manual_insert_check(z, s, op->time);
	case TIMEQ_OP_DELETE:
		if (op->time || op->cookie)
			return EINVAL;
		return tqm_find(&s->m, op->handle) ? 0 : ENOENT;
	case TIMEQ_OP_UPDATE:
		if (op->cookie)
			return EINVAL;
		return manual_update_check(s, op->handle, op->time);
	default:
		return EOPNOTSUPP;
	}
}

static void gen_op(struct fuzzer *z, struct slot *s, struct timeq_op *op)
{
	__u64 *rng = &z->rng;

	memset(op, 0, sizeof(*op));
	op->op = 1 + tq_below(rng, 3);
	if (!tq_below(rng, 20))
		op->op = tq_below(rng, 2) ? 0 : pick_u64(rng);
	if (op->op == TIMEQ_OP_INSERT) {
		op->time = pick_time(rng, s);
		op->cookie = tq_rand(rng);
	} else {
		op->handle = pick_handle(rng, s);
		if (op->op == TIMEQ_OP_UPDATE)
			op->time = pick_time(rng, s);
	}
	switch (tq_below(rng, 30)) {
	case 0:
		op->result = tq_rand(rng) | 1;
		break;
	case 1:
		op->handle = tq_rand(rng) | 1;
		break;
	case 2:
		op->time = pick_u64(rng);
		break;
	case 3:
		op->cookie = tq_rand(rng) | 1;
		break;
	}
}

/*
 * TIMEQ_BATCH: the batch structure placed as any other, its entries in
 * the second arena, running into its read-only or inaccessible page.
 */
static int do_batch(struct fuzzer *z, struct slot *s)
{
	static const __u32 lens[] = { 32, 32, 32, 40, 48, 64, 4096, 24, 36,
				      0, 4104, 0xffffffff };
	__u64 *rng = &z->rng;
	struct timeq_batch b = { 0 };
	struct timeq_op ops[64], op;
	struct place epl;
	__u32 n = tq_below(rng, 10) ? tq_below(rng, 9) : tq_below(rng, 64);
	__u32 elen = lens[tq_below(rng, 4) ? 0 : tq_below(rng, TQ_ARRAY_SIZE(lens))];
	__u32 i, ebytes;
	unsigned char *ent, *pre;
	int ret, err, want, bad_tail, in, applied, fault;
	const struct cmdinfo *ci = &cinfo[C_BATCH];
	struct place pl;
	__u32 usize = pick_size(rng, ci->ksize, ci->min);
	size_t len = usize > TQ_PAGE || usize < ci->ksize ? ci->ksize : usize;
	unsigned char bytes[TQ_PAGE];
	__u64 cap;

	if (!tq_below(rng, 40))
		n = 4096 + tq_below(rng, 2);
	for (i = 0; i < 64; i++)
		gen_op(z, s, &ops[i]);
	/* The entries: each op, then its tail to @elen, zero or not. */
	ebytes = elen <= TQ_PAGE ? elen : 32;
	cap = 2 * TQ_PAGE;
	place_choose(&z->b, rng, n < 64 ? n * ebytes : cap, &epl);
	ent = (unsigned char *)epl.p;
	bad_tail = elen > 32 && elen <= TQ_PAGE && !tq_below(rng, 4) ?
		   (int)tq_below(rng, n ? n : 1) : -1;
	if (epl.p >= z->b.base && epl.p < z->b.base + 2 * TQ_PAGE) {
		for (i = 0; i < n; i++) {
			size_t at = (size_t)i * ebytes;

			/* An entry shorter than an op is refused unread. */
			if (ebytes < 32 ||
			    at + ebytes > (size_t)((unsigned char *)z->b.base +
						   2 * TQ_PAGE - ent))
				break;
			memset(ent + at, 0, ebytes);
			memcpy(ent + at, &ops[i % 64], 32);
			if ((int)i == bad_tail)
				ent[at + 32 + tq_below(rng, ebytes - 32)] = 1;
		}
	}
	b.size = usize;
	b.count = n;
	b.ops = (uintptr_t)epl.p;
	b.entry_len = elen;
	if (!tq_below(rng, 30))
		b.__reserved = 1;
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, &b, sizeof(b));
	if (usize > ci->ksize && usize <= TQ_PAGE && !tq_below(rng, 3))
		bytes[ci->ksize + tq_below(rng, usize - ci->ksize)] = 1;
	place_choose(&z->a, rng, len, &pl);
	place_write(&z->a, &pl, bytes, len);
	/* The entries as written, for the model: the kernel writes results. */
	memcpy(z->pre, z->b.base, 2 * TQ_PAGE);
	place_arm(&z->a, &pl);
	place_arm(&z->b, &epl);
	ret = ioctl(s->fd, TIMEQ_BATCH, pl.p);
	err = ret < 0 ? errno : 0;
	place_disarm(&z->a);
	place_disarm(&z->b);
	count(C_BATCH, err);
	if (opt_verbose && z->model)
		trace(z, s,
		      "BATCH size %u count %u entry_len %u (%zu r, %zu w; entries %zu r, %zu w): %d %s\n",
		      usize, n, elen, pl.readable, pl.writable, epl.readable,
		      epl.writable, ret, tq_errno_name(err));
	if (ret < 0 && !tq_errno_ok(TIMEQ_BATCH, err))
		return BAD("BATCH: errno %s is not documented for it",
			   tq_errno_name(err));
	if (ret > (int)n)
		return BAD("BATCH of %u applied %d", n, ret);
	/* Each entry the kernel reached: its result is documented. */
	for (i = 0; ret >= 0 && i <= (__u32)ret && i < n && i < 64; i++) {
		size_t at = (size_t)i * ebytes;
		__s32 r, was;

		if (at + 8 > epl.writable)
			break;
		memcpy(&r, ent + at + 4, 4);
		memcpy(&was, z->pre + (ent - (unsigned char *)z->b.base) + at + 4, 4);
		if (i < (__u32)ret && r)
			return BAD("BATCH: applied entry %u has result %d", i, r);
		/* The entry it stopped at is untouched if it could not be read. */
		if (r && r != was && !tq_errno_in(tq_op_errno_documented, -r))
			return BAD("BATCH: entry %u result %d is not documented", i, r);
		if (i < (__u32)ret && ops[i].op == TIMEQ_OP_INSERT &&
		    at + 16 <= epl.writable) {
			__u64 h;

			memcpy(&h, ent + at + 8, 8);
			seen_add(h);
		}
	}
	if (!z->model)
		return 0;

	in = copy_in_errno(&pl, bytes, usize, ci->ksize, ci->min);
	if (in || s->kind == S_UNCONFIGURED) {
		want = in ? in : EBADFD;
		goto verdict;
	}
	if (elen > TQ_PAGE) {
		want = E2BIG;
		goto verdict;
	}
	if (b.__reserved || n > 4096 || elen < 32 || elen % 8) {
		want = EINVAL;
		goto verdict;
	}
	if (s->kind == S_MONO) {
		/* Each entry's result is checked above; count what it did. */
		pre = z->pre + (ent - (unsigned char *)z->b.base);
		for (i = 0; ret > 0 && i < (__u32)ret; i++) {
			struct timeq_op was;
			struct live *l;
			__u64 h;

			memcpy(&was, pre + (size_t)i * ebytes, 32);
			memcpy(&op, ent + (size_t)i * ebytes, 32);
			h = op.handle;
			if (was.op == TIMEQ_OP_INSERT) {
				if (did_insert(z, s, 0, was.time, was.cookie, h))
					return -1;
			} else if (was.op == TIMEQ_OP_DELETE) {
				l = mono_find(&s->mm, h);
				if (!l || l->gone)
					return BAD("monotonic batch deleted %llx, not alive",
						   (unsigned long long)h);
				mono_forget(&s->mm, l);
				slot_stale(s, h);
			} else {
				l = mono_find(&s->mm, h);
				if (!l || l->gone)
					return BAD("monotonic batch moved %llx, not alive",
						   (unsigned long long)h);
				l->asked = was.time;
			}
		}
		if (ret >= 0 && (__u32)ret < n &&
		    (size_t)ret * ebytes + 32 <= epl.writable) {
			struct timeq_op was;
			struct live *l;
			__s32 r;

			memcpy(&was, pre + (size_t)ret * ebytes, 32);
			memcpy(&r, ent + (size_t)ret * ebytes + 4, 4);
			l = mono_find(&s->mm, was.handle);
			if (r == -ENOENT && l && was.op != TIMEQ_OP_INSERT)
				l->gone = 1;
		}
		return check_stats(z, s);
	}
	/* A manual file: entry by entry, as tq_dev_batch() goes. */
	pre = z->pre + (ent - (unsigned char *)z->b.base);
	fault = 0;
	applied = 0;
	for (i = 0; i < n; i++) {
		size_t at = (size_t)i * ebytes;
		struct place e = {
			.readable = epl.readable > at ? epl.readable - at : 0,
			.writable = epl.writable > at ? epl.writable - at : 0,
		};
		int r;

		r = copy_in_errno(&e, pre + at, elen, 32, 4);
		if (r == EFAULT) {
			fault = 1;
			break;
		}
		memcpy(&op, pre + at, 32);
		if (!r)
			r = op_check(z, s, &op);
		/* The result, and a new element's handle, must go out. */
		if (e.writable < 8 ||
		    (!r && op.op == TIMEQ_OP_INSERT && e.writable < 16)) {
			fault = 1;
			break;
		}
		if (r) {
			__s32 got;

			memcpy(&got, ent + at + 4, 4);
			if (got != -r)
				return BAD("BATCH entry %u: result %d, the model says %s",
					   i, got, tq_errno_name(r));
			break;
		}
		switch (op.op) {
		case TIMEQ_OP_INSERT: {
			__u64 h;

			memcpy(&h, ent + at + 8, 8);
			if (did_insert(z, s, op.time, op.time, op.cookie, h))
				return -1;
			break;
		}
		case TIMEQ_OP_DELETE:
			tqm_delete(&s->m, op.handle);
			slot_stale(s, op.handle);
			break;
		default:
			tqm_update(&s->m, op.handle, op.time);
			break;
		}
		applied++;
	}
	if (fault && !applied) {
		want = EFAULT;
		goto verdict;
	}
	if (ret != applied)
		return BAD("BATCH of %u (entry_len %u, entries %zu r, %zu w) applied %d, model %d",
			   n, elen, epl.readable, epl.writable, ret, applied);
	return check_stats(z, s);

verdict:
	if (want != (ret < 0 ? err : 0))
		return BAD("BATCH (size %u, entry_len %u, count %u): %s, the model says %s",
			   usize, elen, n, ret < 0 ? tq_errno_name(err) : "ok",
			   tq_errno_name(want));
	return check_stats(z, s);
}

/* --- read() and poll() --- */

static int do_read(struct fuzzer *z, struct slot *s)
{
	static const size_t lens[] = { 0, 1, 31, 32, 33, 40, 48, 64, 96, 100,
				       512, 4096, 8192, 65536 };
	__u64 *rng = &z->rng;
	size_t len = lens[tq_below(rng, TQ_ARRAY_SIZE(lens))], esize, n, i;
	struct place pl;
	unsigned char *buf;
	ssize_t ret;
	int err, want;

	place_choose(&z->b, rng, len < 2 * TQ_PAGE ? len : 2 * TQ_PAGE, &pl);
	place_arm(&z->b, &pl);
	ret = read(s->fd, pl.p, len);
	err = ret < 0 ? errno : 0;
	place_disarm(&z->b);
	count(C_READ, err);
	if (opt_verbose && z->model)
		ksft_print_msg("%lu: slot %d kind %d read %zu at %p (%zu w): %zd %s\n",
			       (unsigned long)call_no, (int)(s - z->slots), s->kind,
			       len, pl.p, pl.writable, ret, tq_errno_name(err));
	if (ret < 0 && !tq_errno_in(tq_read_errno_documented, err))
		return BAD("read: errno %s is not documented", tq_errno_name(err));
	buf = (unsigned char *)pl.p;
	if (!z->model) {
		if (ret > 0)
			__atomic_add_fetch(&tally->events, 1, __ATOMIC_RELAXED);
		return 0;
	}
	/* The VFS refuses a buffer that is not in userspace, before us. */
	if (!pl.user || (pl.user == 2 && len)) {
		want = EFAULT;
		goto verdict;
	}
	if (pl.user == 2 && ret < 0 && err == EFAULT)
		return check_stats(z, s);
	if (s->kind == S_UNCONFIGURED) {
		want = EBADFD;
		goto verdict;
	}
	esize = s->kind == S_MANUAL ? s->m.event_size : s->mm.event_size;
	if (len < esize) {
		want = EINVAL;
		goto verdict;
	}
	if (s->kind == S_MONO) {
		if (ret < 0) {
			want = err == EAGAIN || (err == EFAULT && s->mm.nlive) ?
			       err : EAGAIN;
			goto verdict;
		}
		n = ret / esize;
		if ((size_t)ret != n * esize || n > 16 || n > pl.writable / esize)
			return BAD("monotonic read returned %zd", ret);
		for (i = 0; i < n; i++) {
			struct timeq_event ev;
			struct live *l;

			memcpy(&ev, buf + i * esize, sizeof(ev));
			l = mono_find(&s->mm, ev.handle);
			if (!l || ev.time < l->asked || ev.cookie != l->cookie ||
			    ev.size != sizeof(ev) || ev.flags ||
			    !all_zero(buf + i * esize + sizeof(ev),
				      esize - sizeof(ev)))
				return BAD("monotonic event %llx at %llu: not as inserted",
					   (unsigned long long)ev.handle,
					   (unsigned long long)ev.time);
			if (ev.time * s->mm.gran > tq_mono_ns())
				return BAD("monotonic event %llx early",
					   (unsigned long long)ev.handle);
			mono_forget(&s->mm, l);
			slot_stale(s, ev.handle);
			s->mm.read++;
			tally->events++;
		}
		return check_stats(z, s);
	}
	want = tqm_read_count(&s->m, len);
	if (want < 0) {
		want = -want;
		goto verdict;
	}
	n = pl.writable / esize < (size_t)want ? pl.writable / esize : want;
	if (!n) {
		want = EFAULT;
		goto verdict;
	}
	if (ret != (ssize_t)(n * esize))
		return BAD("read of %zu (%zu writable): %zd, the model says %zu events of %zu",
			   len, pl.writable, ret, n, esize);
	for (i = 0; i < n; i++) {
		struct tqm_elem *x = tqm_first_event(&s->m);
		struct timeq_event ev;

		memcpy(&ev, buf + i * esize, sizeof(ev));
		if (ev.handle != x->handle || ev.time != x->time ||
		    ev.cookie != x->cookie || ev.size != sizeof(ev) ||
		    ev.flags ||
		    !all_zero(buf + i * esize + sizeof(ev), esize - sizeof(ev)))
			return BAD("event %zu: %llx at %llu, the model says %llx at %llu",
				   i, (unsigned long long)ev.handle,
				   (unsigned long long)ev.time,
				   (unsigned long long)x->handle,
				   (unsigned long long)x->time);
		slot_stale(s, x->handle);
		tqm_consume(&s->m, x);
		tally->events++;
	}
	return check_stats(z, s);

verdict:
	if (ret >= 0 || err != want)
		return BAD("read of %zu (%zu writable): %s, the model says %s", len,
			   pl.writable, ret < 0 ? tq_errno_name(err) : "data",
			   tq_errno_name(want));
	return check_stats(z, s);
}

static int do_poll(struct fuzzer *z, struct slot *s)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN | POLLOUT };
	int unconfigured = s->kind == S_UNCONFIGURED;
	int ret = poll(&pfd, 1, 0);

	count(C_POLL, ret < 0 ? errno : 0);
	if (ret < 0 || (pfd.revents & ~(POLLIN | POLLRDNORM | POLLERR)))
		return BAD("poll: %d, revents %#x", ret, pfd.revents);
	if (z->model && !!(pfd.revents & POLLERR) != unconfigured)
		return BAD("poll: revents %#x on a file %s", pfd.revents,
			   unconfigured ? "not configured" : "configured");
	if (z->model && s->kind != S_MONO &&
	    !!(pfd.revents & POLLIN) != !!s->m.events)
		return BAD("poll: revents %#x with %u events", pfd.revents,
			   s->m.events);
	return 0;
}

/* An ioctl number that is not ours, or ours with a direction or a size. */
static int do_unknown(struct fuzzer *z, struct slot *s)
{
	/* Not 'T', 'f', 'X', 0, 0x15 or 0x94: the VFS answers some of those. */
	static const unsigned int types[] = { TIMEQ_TYPE, TIMEQ_TYPE,
					      TIMEQ_TYPE + 1, 1, 'x', 0xff };
	__u64 *rng = &z->rng;
	unsigned int type = types[tq_below(rng, TQ_ARRAY_SIZE(types))];
	unsigned int nr = tq_below(rng, 2) ? TIMEQ_CMD_CONFIGURE + tq_below(rng, 12) :
					     tq_below(rng, 256);
	unsigned long cmd = _IOC(tq_below(rng, 4), type, nr, tq_below(rng, 64));
	int ret, err;

	/* Ours exactly is known; the generic ones are the VFS's. */
	if (cmd == _IO(TIMEQ_TYPE, nr) &&
	    nr - TIMEQ_CMD_CONFIGURE < TQ_ARRAY_SIZE(cinfo))
		cmd |= _IOC(_IOC_READ, 0, 0, 0);
	ret = ioctl(s->fd, cmd, z->a.base);
	err = ret < 0 ? errno : 0;
	count(C_UNKNOWN, err);
	if (ret != -1 || err != ENOTTY)
		return BAD("ioctl %#lx: %d (%s), not ENOTTY", cmd, ret,
			   tq_errno_name(err));
	return z->model ? check_stats(z, s) : 0;
}

/* --- one call, either phase --- */

static int do_reopen(struct fuzzer *z, struct slot *s)
{
	__u64 *rng = &z->rng;
	int fd;

	fd = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	count(C_REOPEN, fd < 0 ? errno : 0);
	if (fd < 0)
		return BAD("open: %s", strerror(errno));
	if (z->model) {
		close(s->fd);
		s->fd = fd;
		s->kind = S_UNCONFIGURED;
		tqm_reset(&s->m);
		s->mm.nlive = 0;
		s->mm.inserted = 0;
		s->mm.read = 0;
		s->nstale = 0;
		return check_stats(z, s);
	}
	/* Chaos: the caller holds the slot's write lock. */
	if (dup2(fd, s->fd) < 0)
		return BAD("dup2: %s", strerror(errno));
	close(fd);
	(void)rng;
	return 0;
}

static int one_call(struct fuzzer *z, struct slot *s)
{
	__u64 *rng = &z->rng, r = tq_below(rng, 1000);
	union {
		struct timeq_configure	configure;
		struct timeq_insert	insert;
		struct timeq_delete	delete;
		struct timeq_update	update;
		struct timeq_element	element;
		struct timeq_advance	advance;
		struct timeq_stats	stats;
	} k;
	int c;

	memset(&k, 0, sizeof(k));
	if (s->kind == S_UNCONFIGURED && r < 500)
		r = 0;
	if (r < 40) {
		c = C_CONFIGURE;
		gen_configure(z, &k.configure);
	} else if (r < 300) {
		c = C_INSERT;
		k.insert.time = pick_time(rng, s);
		k.insert.cookie = tq_rand(rng);
	} else if (r < 400) {
		c = C_DELETE;
		k.delete.handle = pick_handle(rng, s);
	} else if (r < 490) {
		c = C_UPDATE;
		k.update.handle = pick_handle(rng, s);
		k.update.time = pick_time(rng, s);
	} else if (r < 530) {
		c = C_MIN;
	} else if (r < 570) {
		c = C_DELETE_MIN;
	} else if (r < 640) {
		c = C_ADVANCE;
		k.advance.time = pick_time(rng, s);
	} else if (r < 670) {
		c = C_STATS;
	} else if (r < 780) {
		return do_batch(z, s);
	} else if (r < 890) {
		return do_read(z, s);
	} else if (r < 920) {
		return do_poll(z, s);
	} else if (r < 945) {
		return do_unknown(z, s);
	} else {
		return -2;	/* close and reopen: the caller's */
	}
	/* Reserved and out fields set, now and then. */
	if (!tq_below(rng, 25)) {
		unsigned char *b = (unsigned char *)&k;

		b[4 + tq_below(rng, cinfo[c].ksize - 4)] |= 1 << tq_below(rng, 8);
	}
	return do_ioctl(z, s, c, &k);
}

/* --- phase 1: the models --- */

/* Elements a manual file's model holds at most; then the file is reopened. */
#define MODEL_SLOTS	8192

static int model_phase(__u64 seed, __u64 deadline)
{
	struct fuzzer z = { .rng = seed, .model = 1 };
	struct slot *s;
	unsigned int i;
	int ret;

	z.nslots = opt_files;
	z.slots = calloc(z.nslots, sizeof(*z.slots));
	if (!z.slots || arena_init(&z.a) || arena_init(&z.b))
		return -1;
	for (i = 0; i < z.nslots; i++) {
		s = &z.slots[i];
		s->fd = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (s->fd < 0 || tqm_init(&s->m, MODEL_SLOTS, 1 << 16)) {
			ksft_print_msg("open %s: %s\n", TQ_DEV, strerror(errno));
			return -1;
		}
	}
	for (call_no = 1; ; call_no++) {
		if (opt_ops ? call_no > opt_ops :
			      (call_no % 64 == 0 && tq_mono_ns() > deadline))
			break;
		s = &z.slots[tq_below(&z.rng, z.nslots)];
		ret = one_call(&z, s);
		/* Close and reopen, asked for or when the model is full. */
		if (ret == -2 || (!ret && s->m.hwm >= MODEL_SLOTS - 512))
			ret = do_reopen(&z, s);
		tally->model_calls++;
		if (ret)
			return -1;
	}
	return 0;
}

/* --- phase 2: chaos --- */

struct chaos {
	struct slot	*slots;
	unsigned int	nslots;
	int		sink;		/* a configured file swapped in */
	int		ep;
	int		stop;
	int		failed;
	__u64		deadline;
};

/*
 * How many events @n bytes from read() hold, whatever the event size the
 * file was given (any thread may have configured it): each starts with
 * its size, 32, and is zero past it, so the second starts at the first
 * non-zero word after the first's 32 bytes.
 */
static size_t count_events(const unsigned char *buf, size_t n)
{
	size_t esize;
	__u32 w;

	for (esize = 32; esize < n; esize += 8) {
		memcpy(&w, buf + esize, 4);
		if (w)
			break;
	}
	return n / esize;
}

/*
 * A slot, with nobody else in it: drain it and check that it held what
 * its stats said, every handle once.
 */
static int chaos_check(struct fuzzer *z, struct slot *s)
{
	static __thread unsigned char buf[16 * TQ_PAGE];
	struct timeq_stats st = tq_stats(s->fd), now;
	struct timeq_element e;
	__u64 got = 0, rounds = 0;
	ssize_t n;

	if (!st.size)
		return BAD("chaos: STATS failed: %s", strerror(errno));
	if (!st.configured)
		return 0;
	if (st.queued + st.events > st.max_elements || st.events > st.expired)
		return BAD("chaos: bad stats: %llu queued, %llu events, cap %u, expired %llu",
			   (unsigned long long)st.queued,
			   (unsigned long long)st.events, st.max_elements,
			   (unsigned long long)st.expired);
	for (;;) {
		while ((n = read(s->fd, buf, sizeof(buf))) > 0)
			got += count_events(buf, n);
		if (n < 0 && errno != EAGAIN)
			return BAD("chaos drain: read: %s", strerror(errno));
		if (tq_element(s->fd, TIMEQ_MIN, &e)) {
			if (errno != ENODATA)
				return BAD("chaos drain: MIN: %s", strerror(errno));
			now = tq_stats(s->fd);
			if (!now.queued && !now.events)
				break;
			continue;
		}
		if (!tq_delete(s->fd, e.handle))
			got++;
		else if (errno != ENOENT)
			return BAD("chaos drain: DELETE: %s", strerror(errno));
		if (++rounds > 10 * (st.queued + st.events) + 1000)
			return BAD("chaos drain: does not end");
	}
	if (got != st.queued + st.events)
		return BAD("chaos: the file held %llu elements, its stats said %llu + %llu",
			   (unsigned long long)got, (unsigned long long)st.queued,
			   (unsigned long long)st.events);
	return 0;
}

struct chaos_thread {
	struct chaos	*ch;
	struct fuzzer	z;
	int		id;
	unsigned long	calls;
};

static void chaos_configure(struct fuzzer *z, struct slot *s)
{
	struct timeq_configure c = { .size = sizeof(c) };

	s->kind = S_UNCONFIGURED;
	s->esize = TIMEQ_EVENT_SIZE_VER0;
	if (tq_below(&z->rng, 5) == 0)
		return;			/* left unconfigured */
	c.clock = tq_below(&z->rng, 2);
	if (c.clock == TIMEQ_CLOCK_MONOTONIC) {
		c.granularity = tq_below(&z->rng, 2) ? 1000 : 100000;
		c.horizon = 1 << 20;
	} else {
		c.start = tq_below(&z->rng, 1000);
		c.horizon = 1 + tq_below(&z->rng, 1 << 12);
	}
	c.max_elements = 1 + tq_below(&z->rng, 512);
	c.event_size = tq_below(&z->rng, 4) ? 0 : 64;
	if (ioctl(s->fd, TIMEQ_CONFIGURE, &c))
		return;
	s->esize = c.event_size ? c.event_size : TIMEQ_EVENT_SIZE_VER0;
	s->kind = c.clock == TIMEQ_CLOCK_MONOTONIC ? S_MONO : S_MANUAL;
	s->mm.gran = c.granularity;
	s->mm.horizon = c.horizon;
	s->m.now = c.start;
	s->m.horizon = c.horizon;
}

/*
 * The reader's epoll watches @s's file; edge-triggered if it is not
 * configured, so that its EPOLLERR, always there, wakes the reader once;
 * once another thread configures it, each new event wakes the reader.
 */
static void chaos_watch(struct chaos *ch, struct slot *s)
{
	struct epoll_event eev = { .events = EPOLLIN };

	if (s->kind == S_UNCONFIGURED)
		eev.events |= EPOLLET;
	eev.data.u32 = s - ch->slots;
	epoll_ctl(ch->ep, EPOLL_CTL_ADD, s->fd, &eev);
}

static void *chaos_run(void *arg)
{
	struct chaos_thread *t = arg;
	struct chaos *ch = t->ch;
	struct fuzzer *z = &t->z;
	struct slot *s;
	int ret, r;

	while (!__atomic_load_n(&ch->stop, __ATOMIC_RELAXED) && !ch->failed) {
		if (tq_mono_ns() > ch->deadline)
			break;
		s = &ch->slots[tq_below(&z->rng, ch->nslots)];
		r = tq_below(&z->rng, 1000);
		if (r < 8) {
			/* Close in order: check it, then a new file. */
			pthread_rwlock_wrlock(&s->lock);
			ret = s->swapped ? 0 : chaos_check(z, s);
			if (!ret)
				ret = do_reopen(z, s);
			if (!ret) {
				s->swapped = 0;
				chaos_configure(z, s);
				chaos_watch(ch, s);
				__atomic_add_fetch(&tally->reopens, 1,
						   __ATOMIC_RELAXED);
			}
			pthread_rwlock_unlock(&s->lock);
		} else if (r < 14) {
			/* Swap the file out under the others' feet. */
			pthread_rwlock_rdlock(&s->lock);
			__atomic_store_n(&s->swapped, 1, __ATOMIC_RELAXED);
			ret = dup2(ch->sink, s->fd) < 0 ? -1 : 0;
			__atomic_add_fetch(&tally->swaps, 1, __ATOMIC_RELAXED);
			pthread_rwlock_unlock(&s->lock);
		} else {
			pthread_rwlock_rdlock(&s->lock);
			ret = one_call(z, s);
			if (ret == -2)
				ret = 0;
			pthread_rwlock_unlock(&s->lock);
		}
		t->calls++;
		__atomic_add_fetch(&tally->chaos_calls, 1, __ATOMIC_RELAXED);
		if (ret) {
			ch->failed = 1;
			ksft_print_msg("chaos thread %d failed\n", t->id);
		}
	}
	return NULL;
}

/* The reader: epoll_wait(), poll() and read() while the others write. */
static void *chaos_read(void *arg)
{
	static __thread unsigned char buf[16 * TQ_PAGE];
	struct chaos_thread *t = arg;
	struct chaos *ch = t->ch;
	struct epoll_event eev[8];
	int n, i, err;

	while (!__atomic_load_n(&ch->stop, __ATOMIC_RELAXED) && !ch->failed) {
		n = epoll_wait(ch->ep, eev, 8, 5);
		if (n < 0 && errno != EINTR) {
			ksft_print_msg("epoll_wait: %s\n", strerror(errno));
			ch->failed = 1;
		}
		for (i = 0; i < n; i++) {
			struct slot *s = &ch->slots[eev[i].data.u32 % ch->nslots];
			struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
			ssize_t got, j, esize;

			pthread_rwlock_rdlock(&s->lock);
			if (poll(&pfd, 1, 0) < 0 ||
			    (pfd.revents & ~(POLLIN | POLLRDNORM | POLLERR))) {
				ksft_print_msg("poll: revents %#x\n", pfd.revents);
				ch->failed = 1;
			}
			got = read(s->fd, buf, tq_below(&t->z.rng, 2) ? 32 * 16 :
								  sizeof(buf));
			err = got < 0 ? errno : 0;
			pthread_rwlock_unlock(&s->lock);
			count(C_READ, err);
			/* A file is never unconfigured again once configured. */
			if (err == EBADFD && !(pfd.revents & POLLERR)) {
				ksft_print_msg("read: EBADFD after poll's revents %#x\n",
					       pfd.revents);
				ch->failed = 1;
			}
			if (got < 0 && !tq_errno_in(tq_read_errno_documented, err)) {
				ksft_print_msg("read: errno %s is not documented\n",
					       tq_errno_name(err));
				ch->failed = 1;
			}
			esize = got > 0 ? got / count_events(buf, got) : 0;
			for (j = 0; got > 0 && j + esize <= got; j += esize) {
				struct timeq_event ev;

				memcpy(&ev, buf + j, sizeof(ev));
				if (ev.size != sizeof(ev) || ev.flags || !ev.handle ||
				    !all_zero(buf + j + sizeof(ev), esize - sizeof(ev))) {
					ksft_print_msg("event: size %u flags %u handle %llx\n",
						       ev.size, ev.flags,
						       (unsigned long long)ev.handle);
					ch->failed = 1;
				}
				seen_add(ev.handle);
				__atomic_add_fetch(&tally->events, 1,
						   __ATOMIC_RELAXED);
			}
		}
	}
	return NULL;
}

static int chaos_phase(__u64 seed, __u64 deadline)
{
	struct chaos ch = { .deadline = deadline };
	struct chaos_thread *t;
	pthread_t *th;
	unsigned int i, nt = opt_threads + 1;
	struct fuzzer z = { .rng = seed ^ 0xc4a05 };
	struct slot sink = { .esize = TIMEQ_EVENT_SIZE_VER0 };
	int failed = 0;

	ch.nslots = opt_files;
	ch.slots = calloc(ch.nslots, sizeof(*ch.slots));
	t = calloc(nt, sizeof(*t));
	th = calloc(nt, sizeof(*th));
	ch.ep = epoll_create1(EPOLL_CLOEXEC);
	ch.sink = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (!ch.slots || !t || !th || ch.ep < 0 || ch.sink < 0 ||
	    tq_configure_manual(ch.sink, 0, 1 << 16, 256))
		return -1;
	for (i = 0; i < ch.nslots; i++) {
		struct slot *s = &ch.slots[i];

		pthread_rwlock_init(&s->lock, NULL);
		s->fd = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (s->fd < 0)
			return -1;
		chaos_configure(&z, s);
		chaos_watch(&ch, s);
	}
	for (i = 0; i < nt; i++) {
		t[i].ch = &ch;
		t[i].id = i;
		t[i].z.rng = seed + 0x1000 * (i + 1);
		t[i].z.slots = ch.slots;
		t[i].z.nslots = ch.nslots;
		if (arena_init(&t[i].z.a) || arena_init(&t[i].z.b))
			return -1;
		if (pthread_create(&th[i], NULL, i ? chaos_run : chaos_read,
				   &t[i]))
			return -1;
	}
	for (i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th[0], NULL);
	failed = ch.failed;
	/* Every file, closed in order, held what its stats said. */
	for (i = 0; i < ch.nslots && !failed; i++) {
		if (!ch.slots[i].swapped && chaos_check(&z, &ch.slots[i]))
			failed = 1;
		close(ch.slots[i].fd);
	}
	sink.fd = ch.sink;
	if (!failed && chaos_check(&z, &sink))
		failed = 1;
	close(ch.sink);
	close(ch.ep);
	return failed ? -1 : 0;
}

/* --- phase 3: expiry against work of many lock holds --- */

#define FAR_LONG	4096	/* the long far bucket */
#define FAR_SHORT	17	/* the short one: more than the queue walks */
#define FAR_NEAR	64	/* elements due during the round */
#define FAR_GRAN	1000000	/* 1 ms ticks; buckets of 1024 ticks */

struct far_round {
	int		fd;
	int		stop;
	int		failed;
	__u64		far;			/* the long bucket's first tick */
	__u64		handle[FAR_NEAR];
	char		state[FAR_NEAR];	/* 'q'ueued, 'm'oved, 'd'eleted */
	unsigned long	calls;
};

struct far_racer {
	struct far_round	*r;
	unsigned int		id;	/* owns the elements i % 2 == id */
	__u64			rng;
};

static void *far_race(void *arg)
{
	struct far_racer *fr = arg;
	struct far_round *r = fr->r;
	struct timeq_element e;
	unsigned int i;
	int ret;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		i = tq_below(&fr->rng, FAR_NEAR / 2) * 2 + fr->id;
		__atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
		switch (tq_below(&fr->rng, 3)) {
		case 0:
			if (r->state[i] == 'd')
				break;
			ret = tq_delete(r->fd, r->handle[i]);
			count(C_DELETE, ret ? errno : 0);
			if (!ret)
				r->state[i] = 'd';
			else if (errno != ENOENT)
				r->failed = bad(__LINE__, "DELETE: %s", strerror(errno));
			break;
		case 1:
			if (r->state[i] != 'q')
				break;
			ret = tq_update(r->fd, r->handle[i], r->far + i);
			count(C_UPDATE, ret ? errno : 0);
			if (!ret)
				r->state[i] = 'm';
			else if (errno != ENOENT)
				r->failed = bad(__LINE__, "UPDATE: %s", strerror(errno));
			break;
		default:
			memset(&e, 0, sizeof(e));
			e.size = sizeof(e);
			ret = tq_element(r->fd, TIMEQ_MIN, &e);
			count(C_MIN, ret ? errno : 0);
			if (ret)
				r->failed = bad(__LINE__, "MIN with %d far elements queued: %s",
						FAR_LONG + FAR_SHORT,
						strerror(errno));
			break;
		}
	}
	return NULL;
}

/* Insert @n elements at @time(i), cookies from @cookie; 0 or -1. */
static int far_fill(int fd, unsigned int n, __u64 cookie, __u64 base,
		    __u64 stride, __u64 mod)
{
	static struct timeq_op ops[1024];
	unsigned int i, j, k;

	for (j = 0; j < n; j += k) {
		k = n - j < 1024 ? n - j : 1024;
		memset(ops, 0, sizeof(*ops) * k);
		for (i = 0; i < k; i++) {
			ops[i].op = TIMEQ_OP_INSERT;
			ops[i].time = base + (__u64)(j + i) * stride % mod;
			ops[i].cookie = cookie + j + i;
		}
		if (tq_batch(fd, ops, k) != (int)k)
			return bad(__LINE__, "batch insert: %s", strerror(errno));
	}
	return 0;
}

/* One round on a new file; 0, or -1 with the reason printed. */
static int far_round(__u64 *rng)
{
	struct far_racer fr[2];
	struct far_round r = { };
	unsigned int i, seen[FAR_NEAR] = { };
	struct timeq_event ev;
	__u64 now, mid, spare;
	pthread_t th[2];
	int ret = 0;

	r.fd = open(TQ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (r.fd < 0 || tq_configure_mono(r.fd, FAR_GRAN, 1 << 20, 0))
		return bad(__LINE__, "monotonic file: %s", strerror(errno));
	/*
	 * The long bucket 13 minutes ahead, out of order, spread by a
	 * delete, and the short one at half that: neither comes due during
	 * the round, however slow the host.
	 */
	now = tq_mono_ns() / FAR_GRAN;
	r.far = ((now >> 10) + 768) << 10;
	mid = ((now >> 10) + 384) << 10;
	if (far_fill(r.fd, FAR_LONG, 1000, r.far, 617, 1024) ||
	    tq_insert(r.fd, mid - 1024, 999, &spare) || tq_delete(r.fd, spare))
		goto out;
	/* The short bucket before it, backwards. */
	for (i = 0; i < FAR_SHORT; i++)
		if (tq_insert(r.fd, mid + FAR_SHORT - i, 900 + i, &spare))
			goto out;
	/* The near elements, due over the next 100 ms. */
	now = tq_mono_ns() / FAR_GRAN;
	for (i = 0; i < FAR_NEAR; i++) {
		if (tq_insert(r.fd, now + 20 + tq_below(rng, 100), i,
			      &r.handle[i]))
			goto out;
		r.state[i] = 'q';
	}
	for (i = 0; i < 2; i++) {
		fr[i] = (struct far_racer){ .r = &r, .id = i, .rng = tq_rand(rng) };
		if (pthread_create(&th[i], NULL, far_race, &fr[i]))
			goto out;
	}
	while (tq_mono_ns() / FAR_GRAN < now + 200 && !r.failed)
		usleep(1000);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (r.failed)
		goto out;
	/* An insert runs what is due first: every near element is now out. */
	if (tq_insert(r.fd, r.far, 998, &spare))
		goto out;
	while (read(r.fd, &ev, sizeof(ev)) == sizeof(ev)) {
		__atomic_add_fetch(&tally->events, 1, __ATOMIC_RELAXED);
		if (ev.cookie >= FAR_NEAR || r.handle[ev.cookie] != ev.handle) {
			ret = bad(__LINE__, "event for cookie %llu, handle %#llx",
				  (unsigned long long)ev.cookie,
				  (unsigned long long)ev.handle);
			goto out;
		}
		if (r.state[ev.cookie] != 'q' || seen[ev.cookie]++) {
			ret = bad(__LINE__, "element %llu (%c) delivered%s",
				  (unsigned long long)ev.cookie,
				  r.state[ev.cookie],
				  seen[ev.cookie] > 1 ? " twice" : "");
			goto out;
		}
	}
	for (i = 0; i < FAR_NEAR; i++) {
		if (r.state[i] == 'q' && !seen[i]) {
			ret = bad(__LINE__, "element %u due, never delivered", i);
			goto out;
		}
		if (r.state[i] == 'm' && tq_delete(r.fd, r.handle[i])) {
			ret = bad(__LINE__, "element %u moved, not queued: %s", i,
				  strerror(errno));
			goto out;
		}
	}
	__atomic_add_fetch(&tally->far_calls, r.calls, __ATOMIC_RELAXED);
	close(r.fd);
	return 0;
out:
	if (!ret && !r.failed)
		bad(__LINE__, "far-work round: %s", strerror(errno));
	close(r.fd);
	return -1;
}

static int far_phase(__u64 seed, unsigned int rounds)
{
	__u64 rng = seed ^ 0xfa4;
	unsigned int i;

	for (i = 0; i < rounds; i++)
		if (far_round(&rng))
			return -1;
	return 0;
}

/* --- main --- */

/* A crash of the fuzzer itself: where, for addr2line, and which call. */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *trace[32];
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "# fuzzer crashed: signal %d at %p, call %lu\n",
			 sig, si->si_addr, (unsigned long)call_no);

	if (write(2, msg, n) < 0)
		_exit(128 + sig);
	backtrace_symbols_fd(trace, backtrace(trace, 32), 2);
	_exit(128 + sig);
}

static void print_tallies(void)
{
	char line[1024];
	int c, e, at;

	for (c = 0; c < C_N; c++) {
		unsigned long total = 0;

		for (e = 0; e < ERRNO_MAX; e++)
			total += tally->n[c][e];
		if (!total)
			continue;
		at = snprintf(line, sizeof(line), "%-13s %8lu:", c_name[c], total);
		for (e = 0; e < ERRNO_MAX && at < (int)sizeof(line) - 32; e++)
			if (tally->n[c][e])
				at += snprintf(line + at, sizeof(line) - at,
					       " %s %lu", tq_errno_name(e),
					       tally->n[c][e]);
		ksft_print_msg("%s\n", line);
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'j' },
		{ "files", required_argument, NULL, 'f' },
		{ "model-share", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'o' },
		{ "far-rounds", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ }
	};
	__u64 start, model_end, end;
	int opt, fd, status;
	char msg[512];
	pid_t pid;

	struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	opt_seed = tq_mono_ns() ^ (__u64)getpid() << 32;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			opt_seconds = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			opt_threads = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			opt_files = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			opt_model_share = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt_ops = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt_far_rounds = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			opt_verbose = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [--seed N] [--seconds S] [--threads T] [--files F] [--model-share P] [--ops N] [--far-rounds R]\n",
				argv[0]);
			return 2;
		}
	}
	if (!opt_files || opt_files > 64 || !opt_threads || opt_threads > 64 ||
	    opt_model_share > 100) {
		fprintf(stderr, "%s: files and threads 1 to 64, model share 0 to 100\n",
			argv[0]);
		return 2;
	}
	ksft_print_header();
	ksft_set_plan(3);
	snprintf(msg, sizeof(msg),
		 "%s --seed %#llx --seconds %u --threads %u --files %u --model-share %u",
		 argv[0], (unsigned long long)opt_seed, opt_seconds,
		 opt_threads, opt_files, opt_model_share);
	ksft_print_msg("seed %#llx: rerun with %s\n",
		       (unsigned long long)opt_seed, msg);
	fd = open(TQ_DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", TQ_DEV, strerror(errno));
	close(fd);
	p_max_horizon = tq_param("max_horizon");
	p_max_elements = tq_param("max_elements");
	p_default_elements = tq_param("default_elements");
	p_max_user_files = tq_param("max_user_files");
	p_max_user_elements = tq_param("max_user_elements");
	if (!p_max_horizon || !p_max_elements || !p_default_elements)
		ksft_exit_fail_msg("cannot read the module's parameters\n");
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	start = tq_mono_ns();
	model_end = start + (__u64)opt_seconds * 1000000000 * opt_model_share / 100;
	end = start + (__u64)opt_seconds * 1000000000;

	/* The model phase, in a child of its own uid when root. */
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		if (!geteuid()) {
			uid_t uid = 40000 + getpid() % 20000;

			if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
				_exit(3);
		}
		_exit(model_phase(opt_seed, model_end) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		snprintf(msg, sizeof(msg),
			 "model phase: %lu calls on %u files, each as its model said",
			 tally->model_calls, opt_files);
		ksft_test_result_pass("%s\n", msg);
	} else {
		snprintf(msg, sizeof(msg),
			 "model phase: failed at call %lu (status %#x): rerun with --seed %#llx --ops %lu",
			 tally->model_calls, status,
			 (unsigned long long)opt_seed, tally->model_calls);
		ksft_test_result_fail("%s\n", msg);
	}

	if (!chaos_phase(opt_seed, end)) {
		snprintf(msg, sizeof(msg),
			 "chaos phase: %lu calls by %u threads and a reader on %u files, every errno documented",
			 tally->chaos_calls, opt_threads, opt_files);
		ksft_test_result_pass("%s\n", msg);
	} else {
		ksft_test_result_fail("chaos phase: failed after %lu calls (seed %#llx)\n",
				      tally->chaos_calls,
				      (unsigned long long)opt_seed);
	}
	if (!far_phase(opt_seed, opt_far_rounds))
		ksft_test_result_pass("far-work phase: %u rounds, %lu calls racing the expiry\n",
				      opt_far_rounds, tally->far_calls);
	else
		ksft_test_result_fail("far-work phase: failed (seed %#llx)\n",
				      (unsigned long long)opt_seed);
	snprintf(msg, sizeof(msg),
		 "%lu calls in %.1f s, %lu events read, %lu files swapped out under use, %lu closed in order and reopened",
		 tally->model_calls + tally->chaos_calls,
		 (tq_mono_ns() - start) / 1e9, tally->events, tally->swaps,
		 tally->reopens);
	ksft_print_msg("%s\n", msg);
	print_tallies();
	ksft_finished();
}
