// SPDX-License-Identifier: GPL-2.0
/*
 * The explorer's scheduler: coroutines on one OS thread, the scheduling
 * points of compat/explore.h, PCT and a uniform random scheduler, and the
 * stand-ins for the workqueue, the irq_work interrupts and the hrtimer
 * interrupt. explore.c's top comment explains the design.
 *
 * A coroutine runs until its next scheduling point, where the scheduler
 * picks the thread to run next among those that can run; switching is
 * swapcontext(). A thread that blocks (a lock held, a wait not woken, an
 * idle daemon with nothing to do) cannot be picked until something makes
 * it able to run, which marks the schedule dirty. Under PCT the thread
 * with the highest priority that can run is picked, so between two
 * dirty events the running thread keeps running without a decision.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <linux/timeq.h>

#include "explore.h"

#if defined(__SANITIZE_ADDRESS__)
#define XP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XP_ASAN 1
#endif
#endif

#ifdef XP_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define XP_STACK	(512 * 1024)
#else
#define XP_STACK	(128 * 1024)
#endif

#define XP_MAX_THREADS	32
#define XP_MAX_DEPTH	16
#define XP_TRACE	BIT(14)		/* steps kept for the failure report */
#define XP_NAMES	512

enum xt_kind { XK_THREAD, XK_WORKER, XK_HRTIMER, XK_IRQ };
enum xt_state { XT_RUNNABLE, XT_BLOCKED, XT_IDLE, XT_DONE };

static const char *const xt_state_name[] = {
	"runnable", "blocked", "idle", "done"
};

struct xp_thread {
	struct xp_ctx	ctx;		/* first: what xp_ctx points to */
	char		name[24];
	int		index;
	enum xt_kind	kind;
	enum xt_state	state;
	const void	*block_on;	/* a lock or wait key, while blocked */
	const void	*wait_key;	/* from prepare to finish of a wait */
	bool		woken;
	long		prio;
	void		(*fn)(void *arg);
	void		*arg;
	ucontext_t	uc;
	char		*stack;
	unsigned long	steps, yields;
	unsigned int	yields_in_row;	/* since another thread last ran */
	unsigned long	first_lock;	/* step of its first lock since a mark */
	const char	*file;		/* its last scheduling point */
	int		line;
};

struct xp_step {
	unsigned long	step;
	const void	*obj;
	const char	*file;
	int		line;
	short		thread;
	short		op;
};

static const char *const xp_op_name[] = {
	[XP_OP_LOCK] = "lock", [XP_OP_TRYLOCK] = "trylock",
	[XP_OP_UNLOCK] = "unlock", [XP_OP_BIT] = "bitop",
	[XP_OP_READ] = "read", [XP_OP_WRITE] = "write",
	[XP_OP_LLIST] = "llist", [XP_OP_ATOMIC] = "atomic",
	[XP_OP_IRQ_WORK] = "irq_work", [XP_OP_WORK] = "work",
	[XP_OP_WAIT] = "wait", [XP_OP_WAKE] = "wake",
	[XP_OP_HRTIMER] = "hrtimer", [XP_OP_CLOCK] = "clock",
	[XP_OP_YIELD] = "yield", [XP_OP_USER] = "step",
};

static struct {
	struct xp_thread	th[XP_MAX_THREADS];
	int			n;
	struct xp_thread	*cur;		/* NULL: the main context */
	ucontext_t		main_uc;
	jmp_buf			main_jmp;	/* failures in the main context */
	const void		*main_stack;
	size_t			main_size;
	struct xp_config	cfg;
	const struct xp_hooks	*hooks;
	unsigned int		phase;		/* quiescences so far */
	int			held;		/* spinlocks held, by anyone */
	bool			in_hook;	/* no point is live */
	unsigned long		quiet_checks;
	uint64_t		rng;
	unsigned long		steps;
	unsigned long		change[XP_MAX_DEPTH];
	unsigned int		nchange, next_change;
	long			low_prio;
	bool			dirty;
	bool			failed;
	enum xp_verdict		verdict;
	char			msg[512];
	uint64_t		fp;
	struct work_struct	*wq_head, *wq_tail;
	struct irq_work		*irq_head[COMPAT_NR_CPUS];
	struct irq_work		*irq_tail[COMPAT_NR_CPUS];
	bool			irqd[COMPAT_NR_CPUS];
	struct hrtimer		*hrtimers, **hrtimers_tail;
	int			next_cpu;
	struct xp_step		trace[XP_TRACE];
	struct {
		const void	*obj;
		size_t		size;
		char		name[20];	/* a copy: it outlives the run */
	} names[XP_NAMES];
	int			nnames;
} xp;

static struct xp_ctx xp_main_ctx;
struct xp_ctx *xp_ctx = &xp_main_ctx;
int xp_rw_limit = 3;
u64 xp_clock_ns;

static uint64_t xp_rand(void)
{
	uint64_t z = (xp.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* --- names for the trace --- */

void xp_name(const void *obj, size_t size, const char *name)
{
	if (xp.nnames < XP_NAMES) {
		xp.names[xp.nnames].obj = obj;
		xp.names[xp.nnames].size = size ? size : 1;
		snprintf(xp.names[xp.nnames].name,
			 sizeof(xp.names[xp.nnames].name), "%s", name);
		xp.nnames++;
	}
}

static const char *xp_obj_name(const void *obj, char *buf, size_t len)
{
	const char *p = obj;
	int i;

	if (!obj)
		return "";
	/* The last registered range that holds it: the narrowest, usually. */
	for (i = xp.nnames - 1; i >= 0; i--) {
		const char *start = xp.names[i].obj;

		if (p >= start && p < start + xp.names[i].size) {
			if (p == start)
				return xp.names[i].name;
			snprintf(buf, len, "%s+%td", xp.names[i].name, p - start);
			return buf;
		}
	}
	snprintf(buf, len, "%p", obj);
	return buf;
}

static const char *xp_base(const char *file)
{
	const char *slash = strrchr(file, '/');

	return slash ? slash + 1 : file;
}

static void xp_print_step(FILE *f, const struct xp_step *s)
{
	char buf[64];

	fprintf(f, "#   %6lu %-10s %-8s %-22s %s:%d\n", s->step,
		xp.th[s->thread].name, xp_op_name[s->op],
		xp_obj_name(s->obj, buf, sizeof(buf)), xp_base(s->file),
		s->line);
}

void xp_print_trace(FILE *f, unsigned int n)
{
	unsigned long first = xp.steps > n ? xp.steps - n : 0, i;

	if (xp.steps - first > XP_TRACE)
		first = xp.steps - XP_TRACE;
	for (i = first; i < xp.steps; i++)
		xp_print_step(f, &xp.trace[i % XP_TRACE]);
}

/* --- switching --- */

static void xp_switch(struct xp_thread *from, struct xp_thread *to,
		      bool dying)
{
	ucontext_t *from_uc = from ? &from->uc : &xp.main_uc;
	ucontext_t *to_uc = to ? &to->uc : &xp.main_uc;
#ifdef XP_ASAN
	void *fake = NULL;
#endif

	if (from)
		from->yields_in_row = 0;
	xp.cur = to;
	xp_ctx = to ? &to->ctx : &xp_main_ctx;
#ifdef XP_ASAN
	__sanitizer_start_switch_fiber(dying ? NULL : &fake,
				       to ? to->stack : xp.main_stack,
				       to ? XP_STACK : xp.main_size);
#else
	(void)dying;
#endif
	swapcontext(from_uc, to_uc);
#ifdef XP_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

static bool xp_has_work(const struct xp_thread *t)
{
	struct hrtimer *timer;

	switch (t->kind) {
	case XK_WORKER:
		return xp.wq_head;
	case XK_IRQ:
		return xp.irq_head[t->ctx.cpu];
	case XK_HRTIMER:
		for (timer = xp.hrtimers; timer; timer = timer->next)
			if (timer->enqueued && (u64)timer->expires <= xp_clock_ns)
				return true;
		return false;
	default:
		return false;
	}
}

static bool xp_enabled(const struct xp_thread *t)
{
	return t->state == XT_RUNNABLE ||
	       (t->state == XT_IDLE && xp_has_work(t));
}

/* The thread to run next, or NULL if none can run. */
static struct xp_thread *xp_pick(void)
{
	struct xp_thread *best = NULL, *t;
	unsigned int n = 0, i;

	xp.dirty = false;
	if (xp.cfg.sched == XP_SCHED_PCT) {
		for (i = 0; i < (unsigned int)xp.n; i++) {
			t = &xp.th[i];
			if (xp_enabled(t) && (!best || t->prio > best->prio))
				best = t;
		}
		return best;
	}
	for (i = 0; i < (unsigned int)xp.n; i++)
		n += xp_enabled(&xp.th[i]);
	if (!n)
		return NULL;
	n = xp_rand() % n;
	for (i = 0; ; i++)
		if (xp_enabled(&xp.th[i]) && !n--)
			return &xp.th[i];
}

static void xp_reschedule(void)
{
	struct xp_thread *me = xp.cur, *next = xp_pick();

	if (next != me)
		xp_switch(me, next, false);
}

/* --- failures --- */

static __noreturn void xp_end(enum xp_verdict verdict)
{
	xp.failed = true;
	xp.verdict = verdict;
	if (!xp.cur)
		longjmp(xp.main_jmp, 1);
	xp_switch(xp.cur, NULL, false);
	abort();	/* an ended run is never resumed */
}

void xp_fail(const char *file, int line, const char *fmt, ...)
{
	char buf[400];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	snprintf(xp.msg, sizeof(xp.msg), "%s (%s, %s:%d)", buf,
		 xp.cur ? xp.cur->name : "checks", xp_base(file), line);
	xp_end(XP_FAIL);
}

static __noreturn void xp_livelock(void)
{
	unsigned long counts[XP_MAX_THREADS] = { 0 }, window, i;
	const struct xp_step *s;
	int busiest = 0, t;

	window = min(xp.steps, 4096UL);
	for (i = xp.steps - window; i < xp.steps; i++)
		counts[xp.trace[i % XP_TRACE].thread]++;
	for (t = 1; t < xp.n; t++)
		if (counts[t] > counts[busiest])
			busiest = t;
	s = &xp.trace[(xp.steps - 1) % XP_TRACE];
	snprintf(xp.msg, sizeof(xp.msg),
		 "livelock: %lu steps and no end; %s took %lu of the last %lu steps and yielded %lu times in all, last at %s:%d",
		 xp.steps, xp.th[busiest].name, counts[busiest], window,
		 xp.th[busiest].yields, xp_base(xp.th[busiest].file),
		 xp.th[busiest].line);
	(void)s;
	xp_end(XP_LIVELOCK);
}

/* --- scheduling points --- */

void xp_point(enum xp_op op, const void *obj, const char *file, int line)
{
	struct xp_thread *me = xp.cur;
	struct xp_step *s;

	if (!xp_ctx->live || !me || xp.in_hook)
		return;
	s = &xp.trace[xp.steps % XP_TRACE];
	s->step = xp.steps;
	s->thread = me->index;
	s->op = op;
	s->obj = obj;
	s->file = file;
	s->line = line;
	if (xp.cfg.trace)
		xp_print_step(stdout, s);
	xp.steps++;
	me->steps++;
	me->file = file;
	me->line = line;
	xp.fp = (xp.fp ^ (uint64_t)(me->index + 1)) * 0x100000001b3ULL;
	if (xp.steps > xp.cfg.max_steps)
		xp_livelock();
	if (xp.cfg.sched == XP_SCHED_PCT) {
		/* A change point: the running thread drops below all. */
		if (xp.next_change < xp.nchange &&
		    xp.steps == xp.change[xp.next_change]) {
			/* A lazy irq_work's thread stays below all. */
			if (me->prio != LONG_MIN)
				me->prio = xp.low_prio--;
			xp.next_change++;
			xp.dirty = true;
		}
		if (!xp.dirty)
			return;
	}
	xp_reschedule();
}

unsigned long xp_steps(void)
{
	return xp.steps;
}

void xp_mark(void)
{
	if (xp.cur)
		xp.cur->first_lock = 0;
}

unsigned long xp_first_lock(void)
{
	return xp.cur ? xp.cur->first_lock : 0;
}

void xp_note_cs(void)
{
	if (xp.cur && !xp.cur->first_lock)
		xp.cur->first_lock = xp.steps;
}

/* Block the running thread on @key until something makes it runnable. */
static void xp_block(const void *key)
{
	struct xp_thread *me = xp.cur;

	me->state = XT_BLOCKED;
	me->block_on = key;
	xp_reschedule();
	me->block_on = NULL;
}

/* Make the threads blocked on @key runnable. */
static void xp_unblock(const void *key)
{
	int i;

	for (i = 0; i < xp.n; i++) {
		if (xp.th[i].wait_key == key)
			xp.th[i].woken = true;
		if (xp.th[i].state == XT_BLOCKED && xp.th[i].block_on == key) {
			xp.th[i].state = XT_RUNNABLE;
			xp.dirty = true;
		}
	}
}

void xp_might_sleep(const char *file, int line)
{
	struct xp_ctx *c = xp_ctx;

	if (c->in_softirq || c->in_hardirq || c->spinlocks)
		xp_fail(file, line,
			"sleeping function called from invalid context (softirq %d, hardirq %d, %d spinlocks held)",
			c->in_softirq, c->in_hardirq, c->spinlocks);
}

void xp_yield(const char *file, int line)
{
	if (!xp_ctx->live || !xp.cur)
		return;
	xp.cur->yields++;
	if (xp.cfg.yield_demotes &&
	    ++xp.cur->yields_in_row >= xp.cfg.yield_demotes) {
		xp.cur->yields_in_row = 0;
		if (xp.cur->prio != LONG_MIN)
			xp.cur->prio = xp.low_prio--;
		xp.dirty = true;
	}
	xp_point(XP_OP_YIELD, NULL, file, line);
}

int compat_this_cpu(void)
{
	return xp_ctx->cpu;
}

/* --- locks --- */

enum {
	XP_USED_IN_SOFTIRQ	= 1,
	XP_ENABLED_SOFTIRQ	= 2,
	XP_USED_IN_HARDIRQ	= 4,
	XP_ENABLED_HARDIRQ	= 8,
};

void xp_lock_init(struct xp_lock *l, int sleeping)
{
	l->owner = NULL;
	l->usage = 0;
	l->sleeping = sleeping;
}

/* What lockdep would learn of taking @l now, and what it would say. */
static void xp_lock_usage(struct xp_lock *l, int how, const char *file,
			  int line)
{
	struct xp_ctx *c = xp_ctx;
	bool irqs_on = !c->in_hardirq && !c->irq_off && !(how & XP_LOCK_IRQ);
	bool bh_on = irqs_on && !c->in_softirq && !c->bh_off &&
		     !(how & XP_LOCK_BH);
	char buf[64];

	if (c->in_hardirq)
		l->usage |= XP_USED_IN_HARDIRQ;
	else if (c->in_softirq)
		l->usage |= XP_USED_IN_SOFTIRQ;
	if (irqs_on)
		l->usage |= XP_ENABLED_HARDIRQ;
	if (bh_on)
		l->usage |= XP_ENABLED_SOFTIRQ;
	if ((l->usage & XP_USED_IN_HARDIRQ) && (l->usage & XP_ENABLED_HARDIRQ))
		xp_fail(file, line,
			"lock %s taken in hard interrupt context and elsewhere with interrupts enabled",
			xp_obj_name(l, buf, sizeof(buf)));
	if ((l->usage & XP_USED_IN_SOFTIRQ) && (l->usage & XP_ENABLED_SOFTIRQ))
		xp_fail(file, line,
			"lock %s taken in softirq context and elsewhere with softirqs enabled",
			xp_obj_name(l, buf, sizeof(buf)));
}

static void xp_take(struct xp_lock *l, int how, const char *file, int line)
{
	struct xp_ctx *c = xp_ctx;

	if (!l->sleeping)
		xp_lock_usage(l, how, file, line);
	l->owner = c;
	if (xp.cur && !xp.cur->first_lock)
		xp.cur->first_lock = xp.steps;
	if (!l->sleeping) {
		c->spinlocks++;
		xp.held++;
	}
	if (how & XP_LOCK_BH)
		c->bh_off++;
	if (how & XP_LOCK_IRQ)
		c->irq_off++;
}

void xp_lock(struct xp_lock *l, int how, const char *file, int line)
{
	char buf[64];

	if (l->sleeping)
		xp_might_sleep(file, line);
	if (xp_ctx->live)
		xp_point(XP_OP_LOCK, l, file, line);
	while (l->owner) {
		if (l->owner == xp_ctx)
			xp_fail(file, line, "recursive locking of %s",
				xp_obj_name(l, buf, sizeof(buf)));
		if (!xp_ctx->live)
			xp_fail(file, line, "%s is held outside a run",
				xp_obj_name(l, buf, sizeof(buf)));
		xp_block(l);
	}
	xp_take(l, how, file, line);
}

bool xp_trylock(struct xp_lock *l, int how, const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_TRYLOCK, l, file, line);
	if (l->owner)
		return false;
	xp_take(l, how, file, line);
	return true;
}

void xp_unlock(struct xp_lock *l, int how, const char *file, int line)
{
	struct xp_ctx *c = xp_ctx;
	char buf[64];

	if (c->live)
		xp_point(XP_OP_UNLOCK, l, file, line);
	if (l->owner != c)
		xp_fail(file, line, "unlock of %s, which the caller does not hold",
			xp_obj_name(l, buf, sizeof(buf)));
	if (((how & XP_LOCK_BH) && !c->bh_off) ||
	    ((how & XP_LOCK_IRQ) && !c->irq_off))
		xp_fail(file, line, "unlock of %s with the wrong variant",
			xp_obj_name(l, buf, sizeof(buf)));
	l->owner = NULL;
	if (!l->sleeping) {
		c->spinlocks--;
		xp.held--;
	}
	if (how & XP_LOCK_BH)
		c->bh_off--;
	if (how & XP_LOCK_IRQ)
		c->irq_off--;
	xp_unblock(l);
	if (!xp.held && c->live && xp.cfg.quiet_checks && xp.hooks->quiet &&
	    !xp.in_hook) {
		xp.in_hook = true;
		xp.quiet_checks++;
		xp.hooks->quiet(xp.hooks->ctx);
		xp.in_hook = false;
	}
}

void xp_assert_held(const struct xp_lock *l, const char *file, int line)
{
	char buf[64];

	if (l->owner != xp_ctx)
		xp_fail(file, line, "lockdep_assert_held(%s) failed",
			xp_obj_name(l, buf, sizeof(buf)));
}

/* --- waits --- */

void xp_prepare_wait(const void *key, const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_WAIT, key, file, line);
	if (xp.cur) {
		xp.cur->wait_key = key;
		xp.cur->woken = false;
	}
}

void xp_wait_commit(const char *file, int line)
{
	struct xp_thread *me = xp.cur;

	if (!xp_ctx->live || !me)
		xp_fail(file, line, "a wait outside a run would never end");
	if (!me->woken)
		xp_block(me->wait_key);
}

void xp_finish_wait(void)
{
	if (xp.cur)
		xp.cur->wait_key = NULL;
}

void xp_wake(const void *key, const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_WAKE, key, file, line);
	xp_unblock(key);
}

/* --- the workqueue, the irq_works, the hrtimers --- */

bool xp_queue_work(struct work_struct *work, const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_WORK, work, file, line);
	if (work->pending)
		return false;
	work->pending = 1;
	work->next = NULL;
	if (xp.wq_tail)
		xp.wq_tail->next = work;
	else
		xp.wq_head = work;
	xp.wq_tail = work;
	xp.dirty = true;
	return true;
}

bool xp_cancel_work_sync(struct work_struct *work, const char *file, int line)
{
	struct work_struct **link;
	bool ret = false;

	xp_might_sleep(file, line);
	if (xp_ctx->live)
		xp_point(XP_OP_WORK, work, file, line);
	if (work->pending) {
		for (link = &xp.wq_head; *link; link = &(*link)->next) {
			if (*link == work) {
				*link = work->next;
				break;
			}
		}
		xp.wq_tail = NULL;
		for (link = &xp.wq_head; *link; link = &(*link)->next)
			xp.wq_tail = *link;
		ret = true;
	}
	/*
	 * As in the kernel (6.1 holds the work's pending bit, 6.12 disables
	 * the work), a queue_work() during the cancel queues nothing: the
	 * cancel holds the pending mark until it returns.
	 */
	work->pending = 1;
	while (work->running)
		xp_block(work);
	work->pending = 0;
	return ret;
}

static void xp_irqd(int cpu);

bool xp_irq_work_queue(struct irq_work *work, const char *file, int line)
{
	int cpu = xp_ctx->cpu;

	if (xp_ctx->live)
		xp_point(XP_OP_IRQ_WORK, work, file, line);
	if (work->pending)
		return false;
	xp_irqd(cpu);
	work->pending = 1;
	work->busy = 1;
	work->next = NULL;
	if (xp.irq_tail[cpu])
		xp.irq_tail[cpu]->next = work;
	else
		xp.irq_head[cpu] = work;
	xp.irq_tail[cpu] = work;
	xp.dirty = true;
	return true;
}

void xp_irq_work_sync(struct irq_work *work, const char *file, int line)
{
	xp_might_sleep(file, line);
	if (xp_ctx->live)
		xp_point(XP_OP_IRQ_WORK, work, file, line);
	while (work->pending || work->busy) {
		if (!xp_ctx->live)
			xp_fail(file, line, "irq_work_sync() outside a run would never end");
		xp_block(work);
	}
}

void xp_hrtimer_setup(struct hrtimer *timer,
		      enum hrtimer_restart (*function)(struct hrtimer *))
{
	memset(timer, 0, sizeof(*timer));
	timer->function = function;
	*xp.hrtimers_tail = timer;
	xp.hrtimers_tail = &timer->next;
}

/*
 * compat's kfree() of @size bytes at @ptr: as the kernel's debugobjects
 * would, fail if an hrtimer in them is armed or running, or a work item or
 * an irq_work in them is queued (one running is not looked for), for it
 * would run on freed memory; and forget the hrtimers in them, which the
 * run would otherwise look at again.
 */
void xp_freeing(const void *ptr, size_t size)
{
	const char *lo = ptr, *hi = lo + size;
	struct work_struct *work;
	struct hrtimer **link;
	struct irq_work *iw;
	int cpu;

#define XP_IN(p)	((const char *)(p) >= lo && (const char *)(p) < hi)
	for (link = &xp.hrtimers; *link;) {
		struct hrtimer *timer = *link;

		if (!XP_IN(timer)) {
			link = &timer->next;
			continue;
		}
		if (timer->enqueued || timer->running)
			xp_fail(__FILE__, __LINE__,
				"an hrtimer is freed while it is %s",
				timer->running ? "running" : "armed");
		*link = timer->next;
		if (xp.hrtimers_tail == &timer->next)
			xp.hrtimers_tail = link;
	}
	for (work = xp.wq_head; work; work = work->next)
		if (XP_IN(work))
			xp_fail(__FILE__, __LINE__,
				"a work item is freed while it is queued");
	for (cpu = 0; cpu < COMPAT_NR_CPUS; cpu++)
		for (iw = xp.irq_head[cpu]; iw; iw = iw->next)
			if (XP_IN(iw))
				xp_fail(__FILE__, __LINE__,
					"an irq_work is freed while it is queued");
#undef XP_IN
}

struct hrtimer *xp_hrtimer_first(void)
{
	return xp.hrtimers;
}

void xp_hrtimer_start(struct hrtimer *timer, ktime_t tim, int mode,
		      const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_HRTIMER, timer, file, line);
	if (mode & HRTIMER_MODE_REL)
		tim += xp_clock_ns;
	timer->expires = tim;
	timer->enqueued = 1;
	xp.dirty = true;
}

int xp_hrtimer_try_to_cancel(struct hrtimer *timer, const char *file, int line)
{
	if (xp_ctx->live)
		xp_point(XP_OP_HRTIMER, timer, file, line);
	if (timer->running)
		return -1;
	if (!timer->enqueued)
		return 0;
	timer->enqueued = 0;
	return 1;
}

int xp_hrtimer_cancel(struct hrtimer *timer, const char *file, int line)
{
	int ret;

	while ((ret = xp_hrtimer_try_to_cancel(timer, file, line)) < 0)
		xp_block(timer);
	return ret;
}

void xp_clock_set(u64 ns)
{
	if (xp_ctx->live)
		xp_point(XP_OP_CLOCK, &xp_clock_ns, __FILE__, __LINE__);
	if (ns > xp_clock_ns) {
		xp_clock_ns = ns;
		xp.dirty = true;
	}
}

/* An idle daemon waits here until it has something to do. */
static void xp_idle(void)
{
	struct xp_thread *me = xp.cur;

	me->state = XT_IDLE;
	xp_reschedule();
	me->state = XT_RUNNABLE;
}

static void xp_worker(void *arg)
{
	struct work_struct *work;

	(void)arg;
	for (;;) {
		while (!xp.wq_head)
			xp_idle();
		work = xp.wq_head;
		xp.wq_head = work->next;
		if (!xp.wq_head)
			xp.wq_tail = NULL;
		work->pending = 0;
		work->running = 1;
		work->func(work);
		work->running = 0;
		xp_unblock(work);
	}
}

static void xp_irq(void *arg)
{
	int cpu = xp_ctx->cpu;
	struct irq_work *work;

	(void)arg;
	for (;;) {
		while (!xp.irq_head[cpu])
			xp_idle();
		work = xp.irq_head[cpu];
		xp.irq_head[cpu] = work->next;
		if (!work->next)
			xp.irq_tail[cpu] = NULL;
		work->pending = 0;
		work->func(work);
		if (!work->pending)
			work->busy = 0;
		xp_unblock(work);
	}
}

static void xp_hrtimer_irq(void *arg)
{
	struct hrtimer *timer, *due;
	enum hrtimer_restart ret;

	(void)arg;
	for (;;) {
		due = NULL;
		for (timer = xp.hrtimers; timer; timer = timer->next)
			if (timer->enqueued && (u64)timer->expires <= xp_clock_ns &&
			    (!due || timer->expires < due->expires))
				due = timer;
		if (!due) {
			xp_idle();
			continue;
		}
		due->enqueued = 0;
		due->running = 1;
		ret = due->function(due);
		due->running = 0;
		if (ret == HRTIMER_RESTART)
			due->enqueued = 1;
		xp_unblock(due);
	}
}

/*
 * At quiescence, outside the run: fire what is due, run the irq_works and
 * the work items, in the main context with no point, until none has
 * anything to do. For a scenario's last phase (everything expires), whose
 * interleavings are not the point, and which would otherwise make PCT's k
 * many times the steps of the scenario itself.
 */
void xp_settle(void)
{
	unsigned long rounds = 0;
	struct hrtimer *timer, *due;
	struct work_struct *work;
	struct irq_work *iw;
	int cpu;

	for (;;) {
		if (++rounds > xp.cfg.max_steps)
			xp_fail(__FILE__, __LINE__,
				"settling: the work, irq_works and hrtimers never went idle");
		due = NULL;
		for (timer = xp.hrtimers; timer; timer = timer->next)
			if (timer->enqueued && (u64)timer->expires <= xp_clock_ns &&
			    (!due || timer->expires < due->expires))
				due = timer;
		if (due) {
			due->enqueued = 0;
			due->running = 1;
			xp_main_ctx.in_hardirq = 1;
			if (due->function(due) == HRTIMER_RESTART)
				due->enqueued = 1;
			xp_main_ctx.in_hardirq = 0;
			due->running = 0;
			continue;
		}
		for (cpu = 0; cpu < COMPAT_NR_CPUS; cpu++)
			if (xp.irq_head[cpu])
				break;
		if (cpu < COMPAT_NR_CPUS) {
			iw = xp.irq_head[cpu];
			xp.irq_head[cpu] = iw->next;
			if (!iw->next)
				xp.irq_tail[cpu] = NULL;
			iw->pending = 0;
			xp_main_ctx.in_hardirq = 1;
			iw->func(iw);
			xp_main_ctx.in_hardirq = 0;
			if (!iw->pending)
				iw->busy = 0;
			continue;
		}
		work = xp.wq_head;
		if (!work)
			return;
		xp.wq_head = work->next;
		if (!xp.wq_head)
			xp.wq_tail = NULL;
		work->pending = 0;
		work->running = 1;
		work->func(work);
		work->running = 0;
	}
}

/* --- threads --- */

static void xp_entry(void)
{
	struct xp_thread *me = xp.cur;

#ifdef XP_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	me->fn(me->arg);
	if (me->ctx.spinlocks || me->ctx.bh_off || me->ctx.irq_off)
		xp_fail(__FILE__, __LINE__, "%s ended holding a lock", me->name);
	me->state = XT_DONE;
	xp_switch(me, xp_pick(), true);
	abort();
}

static struct xp_thread *xp_new(const char *name, enum xt_kind kind,
				void (*fn)(void *), void *arg, int cpu)
{
	struct xp_thread *t;

	if (xp.n == XP_MAX_THREADS) {
		fprintf(stderr, "explore: more than %d threads\n", XP_MAX_THREADS);
		abort();
	}
	t = &xp.th[xp.n];
	if (!t->stack) {
		t->stack = malloc(XP_STACK);
		if (!t->stack)
			abort();
	}
#ifdef XP_ASAN
	/* An abandoned run leaves its frames' redzones poisoned. */
	ASAN_UNPOISON_MEMORY_REGION(t->stack, XP_STACK);
#endif
	memset(&t->ctx, 0, sizeof(t->ctx));
	t->ctx.cpu = cpu;
	t->ctx.live = 1;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->index = xp.n;
	t->kind = kind;
	t->state = XT_RUNNABLE;
	t->block_on = NULL;
	t->wait_key = NULL;
	t->woken = false;
	t->fn = fn;
	t->arg = arg;
	t->steps = 0;
	t->yields = 0;
	t->yields_in_row = 0;
	t->file = "";
	t->line = 0;
	/* PCT: a fresh thread takes a random place among the others. */
	t->prio = xp.cfg.depth + (long)(xp_rand() % 1000000);
	getcontext(&t->uc);
	t->uc.uc_stack.ss_sp = t->stack;
	t->uc.uc_stack.ss_size = XP_STACK;
	t->uc.uc_link = NULL;
	makecontext(&t->uc, xp_entry, 0);
	xp.n++;
	xp.dirty = true;
	return t;
}

/*
 * Each CPU that queues an irq_work gets an interrupt coroutine, at its
 * first irq_work_queue(), which runs them in the order queued.
 */
static void xp_irqd(int cpu)
{
	struct xp_thread *t;
	char name[24];

	if (xp.irqd[cpu])
		return;
	xp.irqd[cpu] = true;
	snprintf(name, sizeof(name), "irq/%d", cpu);
	t = xp_new(name, XK_IRQ, xp_irq, NULL, cpu);
	t->ctx.in_hardirq = 1;
	/* Below any thread a change point or its yields drop. */
	if (xp.cfg.lazy_irq_work)
		t->prio = LONG_MIN;
}

void xp_spawn(const char *name, void (*fn)(void *arg), void *arg,
	      unsigned int flags)
{
	struct xp_thread *t;
	int cpu = xp.next_cpu++;

	if (cpu >= COMPAT_NR_CPUS)
		abort();
	t = xp_new(name, XK_THREAD, fn, arg, cpu);
	t->ctx.in_softirq = !!(flags & XP_SOFTIRQ);
}

/* --- a run --- */

static int xp_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* PCT: distinct random priorities from d up, and d - 1 change points. */
static void xp_pct_init(void)
{
	long prios[XP_MAX_THREADS];
	unsigned int i, j;
	long swap;

	for (i = 0; i < (unsigned int)xp.n; i++)
		prios[i] = xp.cfg.depth + i;
	for (i = xp.n - 1; i > 0; i--) {
		j = xp_rand() % (i + 1);
		swap = prios[i];
		prios[i] = prios[j];
		prios[j] = swap;
	}
	for (i = 0; i < (unsigned int)xp.n; i++)
		xp.th[i].prio = prios[i];
	xp.nchange = xp.cfg.depth > 1 ? xp.cfg.depth - 1 : 0;
	if (xp.nchange > XP_MAX_DEPTH)
		xp.nchange = XP_MAX_DEPTH;
	for (i = 0; i < xp.nchange; i++)
		xp.change[i] = 1 + xp_rand() % (xp.cfg.k ? xp.cfg.k : 1);
	if (xp.cfg.nchanges) {
		xp.nchange = min(xp.cfg.nchanges, XP_MAX_DEPTH);
		for (i = 0; i < xp.nchange; i++)
			xp.change[i] = xp.cfg.changes[i];
	}
	qsort(xp.change, xp.nchange, sizeof(xp.change[0]), xp_cmp_ulong);
	xp.next_change = 0;
	xp.low_prio = xp.cfg.depth - 1;
}

/* Run until no thread can run, or the run fails. */
static void xp_loop(void)
{
	struct xp_thread *next;

	while (!xp.failed && (next = xp_pick()))
		xp_switch(NULL, next, false);
}

/* Nothing can run: either all is done and idle, or it is a deadlock. */
static void xp_judge_stop(void)
{
	char *p = xp.msg, *end = xp.msg + sizeof(xp.msg), buf[64];
	bool dead = false;
	int i;

	for (i = 0; i < xp.n; i++) {
		struct xp_thread *t = &xp.th[i];

		if (t->state == XT_DONE || t->state == XT_IDLE)
			continue;
		if (!dead)
			p += snprintf(p, end - p, "deadlock: nothing can run;");
		dead = true;
		if (p < end)
			p += snprintf(p, end - p, " %s %s on %s at %s:%d;",
				      t->name, xt_state_name[t->state],
				      xp_obj_name(t->block_on, buf, sizeof(buf)),
				      xp_base(t->file), t->line);
	}
	if (dead)
		xp_end(XP_DEADLOCK);
}

static struct {
	uint64_t	seed;
	void		(*note)(FILE *f, uint64_t seed);
} xp_crash_info;

static void xp_crash(int sig)
{
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "# CRASH: signal %d at step %lu in %s (seed %llu); the last steps:\n",
		     sig, xp.steps, xp.cur ? xp.cur->name : "checks",
		     (unsigned long long)xp_crash_info.seed);
	if (write(2, buf, n) < 0)
		_exit(3);
	xp_print_trace(stderr, 40);
	if (xp_crash_info.note)
		xp_crash_info.note(stderr, xp_crash_info.seed);
	fflush(stderr);
	_exit(3);
}

#ifdef XP_ASAN
static void xp_asan_death(void)
{
	fprintf(stderr, "# ASan report at step %lu in %s (seed %llu); the last steps:\n",
		xp.steps, xp.cur ? xp.cur->name : "checks",
		(unsigned long long)xp_crash_info.seed);
	xp_print_trace(stderr, 40);
	if (xp_crash_info.note)
		xp_crash_info.note(stderr, xp_crash_info.seed);
	fflush(stderr);
}
#endif

void xp_init(void (*note)(FILE *f, uint64_t seed))
{
	static char altstack[1 << 16];
	struct sigaction sa = { .sa_handler = xp_crash, .sa_flags = SA_ONSTACK };
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
#ifdef XP_ASAN
	pthread_attr_t attr;
	void *addr;
	size_t size;

	/* Where the main context's stack is, for ASan's fiber switches. */
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		pthread_attr_getstack(&attr, &addr, &size);
		xp.main_stack = addr;
		xp.main_size = size;
		pthread_attr_destroy(&attr);
	}
#endif

	xp_crash_info.note = note;
	sigaltstack(&ss, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
#ifdef XP_ASAN
	__sanitizer_set_death_callback(xp_asan_death);
#endif
}

void xp_run(const struct xp_config *cfg, uint64_t seed,
	    const struct xp_hooks *hooks, struct xp_result *res)
{
	bool more;

	xp.cfg = *cfg;
	xp.phase = 0;
	xp.hooks = hooks;
	xp.held = 0;
	xp.in_hook = false;
	xp.rng = seed;
	xp.n = 0;
	xp.cur = NULL;
	xp.steps = 0;
	xp.dirty = false;
	xp.failed = false;
	xp.verdict = XP_OK;
	xp.msg[0] = 0;
	xp.fp = 0xcbf29ce484222325ULL;
	xp.wq_head = NULL;
	xp.wq_tail = NULL;
	memset(xp.irq_head, 0, sizeof(xp.irq_head));
	memset(xp.irq_tail, 0, sizeof(xp.irq_tail));
	memset(xp.irqd, 0, sizeof(xp.irqd));
	xp.hrtimers = NULL;
	xp.hrtimers_tail = &xp.hrtimers;
	xp.nnames = 0;
	xp.next_cpu = 1;	/* CPU 0 is the main context's */
	xp_clock_ns = 0;
	xp_rw_limit = cfg->rw_limit;
	memset(&xp_main_ctx, 0, sizeof(xp_main_ctx));
	xp_ctx = &xp_main_ctx;
	xp_crash_info.seed = seed;
	xp_name(&xp_clock_ns, sizeof(xp_clock_ns), "monotonic");

	if (setjmp(xp.main_jmp))
		goto out;
	hooks->setup(hooks->ctx);
	xp_new("worker", XK_WORKER, xp_worker, NULL, xp.next_cpu++);
	xp_new("hrtimer", XK_HRTIMER, xp_hrtimer_irq, NULL,
	       xp.next_cpu++)->ctx.in_hardirq = 1;
	if (xp.cfg.sched == XP_SCHED_PCT)
		xp_pct_init();
	do {
		xp_loop();
		if (xp.failed)
			break;
		xp_judge_stop();
		more = hooks->quiescent(hooks->ctx, ++xp.phase);
	} while (more && !xp.failed);
out:
	xp.cur = NULL;
	xp_ctx = &xp_main_ctx;
	res->verdict = xp.verdict;
	snprintf(res->message, sizeof(res->message), "%s", xp.msg);
	res->steps = xp.steps;
	res->fingerprint = xp.fp;
	if (setjmp(xp.main_jmp) == 0) {
		hooks->teardown(hooks->ctx, xp.failed);
	} else if (res->verdict == XP_OK) {
		res->verdict = xp.verdict;
		snprintf(res->message, sizeof(res->message), "%s", xp.msg);
	}
}
