/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The synchronisation primitives of compat.h for the interleaving explorer
 * (tools/testing/explore, which implements the xp_*() calls here).
 *
 * Every thread of a run, and the workqueue's worker, each CPU's irq_work
 * interrupt and the hrtimer interrupt, is a coroutine of one OS thread.
 * Each call below is a scheduling point: the explorer's scheduler may
 * switch to another coroutine just before it takes effect, and nowhere
 * else, so the code between two points runs as one atomic step and a run
 * is exactly reproducible from its seed. Memory is sequentially
 * consistent (the barriers are no-ops); what weak ordering could add is
 * not explored.
 *
 *	points			what happens there
 *	spin_lock() and all	blocks while the lock is held (a lock held by
 *	its variants, mutex	the caller itself is a failure: recursion);
 *	lock, trylock		trylock fails; unlock wakes the waiters
 *	atomic bit operations,	the operation
 *	llist_add/del_all,
 *	atomic_t, the writes of
 *	atomic64_t, irq_work_queue,
 *	queue_work, hrtimer_*
 *	READ_ONCE(), WRITE_ONCE(),  the access, but only when the caller holds
 *	test_bit(), llist_empty(),  fewer than xp_rw_limit spinlocks (default
 *	ktime_get_ns(),		    3: a slow side holding all of a queue's
 *	atomic64_read()		    locks runs its loads and stores as one
 *				    step)
 *	cond_resched(), cpu_relax() a yield; under strict priorities the same
 *				thread goes on, as under SCHED_FIFO
 *	wait_event(), wait_var_event()	blocks until woken with its condition
 *				true; the condition is evaluated after the thread
 *				is on the wait queue, as prepare_to_wait() does,
 *				so only a missing wake-up loses one
 *	wake_up_all(), wake_up_var()	wakes the waiters of that key
 *
 * Also checked at once, as lockdep and the kernel's debug options would:
 * lockdep_assert_held(), unlocking a lock one does not hold, sleeping
 * (mutex, wait, cond_resched(), might_sleep()) with a spinlock held or in
 * softirq or hard interrupt context, and a lock taken both in softirq
 * (or hard interrupt) context and elsewhere with softirqs (interrupts)
 * enabled. A failure ends the run with a message and the step trace.
 *
 * Outside a run (a scenario's setup and its checks at quiescence) the
 * same calls take effect at once, with no scheduling point.
 */
#ifndef TIMEQ_COMPAT_EXPLORE_H
#define TIMEQ_COMPAT_EXPLORE_H

/* What a coroutine stands in for; xp_ctx is the running one's. */
struct xp_ctx {
	int		in_softirq;	/* softirq context, or bottom halves off */
	int		in_hardirq;	/* an irq_work or hrtimer handler */
	int		cpu;		/* which CPU's per-CPU data it uses */
	int		spinlocks;	/* spinlocks it holds */
	int		bh_off;		/* _bh locks it holds */
	int		irq_off;	/* _irqsave/_irq locks it holds */
	int		live;		/* inside a run: points are live */
};

extern struct xp_ctx *xp_ctx;
extern int xp_rw_limit;

/* Scheduling points and their kinds, for the step trace. */
enum xp_op {
	XP_OP_LOCK, XP_OP_TRYLOCK, XP_OP_UNLOCK, XP_OP_BIT, XP_OP_READ,
	XP_OP_WRITE, XP_OP_LLIST, XP_OP_ATOMIC, XP_OP_IRQ_WORK, XP_OP_WORK,
	XP_OP_WAIT, XP_OP_WAKE, XP_OP_HRTIMER, XP_OP_CLOCK, XP_OP_YIELD,
	XP_OP_USER,
};

void xp_point(enum xp_op op, const void *obj, const char *file, int line);
/* A store by compare-and-exchange: where a call's critical section is. */
void xp_note_cs(void);
__printf(3, 4) __noreturn
void xp_fail(const char *file, int line, const char *fmt, ...);

/* A racy access: a point unless the caller holds enough spinlocks. */
static inline void xp_access(enum xp_op op, const volatile void *obj,
			     const char *file, int line)
{
	if (xp_ctx->live && xp_ctx->spinlocks < xp_rw_limit)
		xp_point(op, (const void *)obj, file, line);
}

/* <linux/compiler.h>, <asm/barrier.h>: one coroutine at a time, SC. */
#define READ_ONCE(x) ({							\
	xp_access(XP_OP_READ, &(x), __FILE__, __LINE__);		\
	__atomic_load_n(&(x), __ATOMIC_RELAXED);			\
})
#define WRITE_ONCE(x, v) do {						\
	__typeof__(x) __xp_v = (v);					\
	xp_access(XP_OP_WRITE, &(x), __FILE__, __LINE__);		\
	__atomic_store_n(&(x), __xp_v, __ATOMIC_RELAXED);		\
} while (0)
#define smp_mb()		do { } while (0)
#define smp_rmb()		do { } while (0)
#define smp_wmb()		do { } while (0)
#define smp_mb__before_atomic()	do { } while (0)
#define smp_mb__after_atomic()	do { } while (0)
#define smp_store_release(p, v)	WRITE_ONCE(*(p), v)
#define smp_load_acquire(p)	READ_ONCE(*(p))

/* <linux/preempt.h>, <linux/sched.h>, <linux/lockdep.h> */
#define compat_in_softirq	(xp_ctx->in_softirq)
int compat_this_cpu(void);
void xp_might_sleep(const char *file, int line);
void xp_yield(const char *file, int line);
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)
#define local_irq_save(flags)	do { (flags) = 0; } while (0)
#define local_irq_restore(flags) do { (void)(flags); } while (0)
#define might_sleep()		xp_might_sleep(__FILE__, __LINE__)
#define cond_resched()		do {					\
	xp_might_sleep(__FILE__, __LINE__);				\
	xp_yield(__FILE__, __LINE__);					\
} while (0)
#define cpu_relax()		xp_yield(__FILE__, __LINE__)
#define lockdep_assert_in_softirq() do {				\
	if (!xp_ctx->in_softirq || xp_ctx->in_hardirq)			\
		xp_fail(__FILE__, __LINE__,				\
			"lockdep_assert_in_softirq() outside softirq");	\
} while (0)

/* <linux/atomic.h> */
#define COMPAT_ATOMIC(v, expr) ({					\
	xp_access(XP_OP_ATOMIC, v, __FILE__, __LINE__);			\
	expr;								\
})
#define atomic64_inc_return(v)	COMPAT_ATOMIC(v, ++(v)->counter)
#define atomic64_read(v)	COMPAT_ATOMIC(v, (v)->counter)
#define atomic64_dec(v)		COMPAT_ATOMIC(v, (void)--(v)->counter)
/* <linux/bug.h>: a warning fails the schedule that met it. */
#define WARN_ON_ONCE(cond) ({						\
	bool __warn = !!(cond);						\
	if (__warn)							\
		xp_fail(__FILE__, __LINE__, "%s",		\
			"WARN_ON_ONCE(" #cond ")");				\
	__warn;								\
})
#define ATOMIC_INIT(i)		{ (i) }
#define COMPAT_ATOMIC_RMW(v, expr) ({					\
	if (xp_ctx->live)						\
		xp_point(XP_OP_ATOMIC, v, __FILE__, __LINE__);		\
	expr;								\
})
#define atomic64_set(v, i)	COMPAT_ATOMIC_RMW(v, (void)((v)->counter = (i)))
#define atomic64_fetch_andnot(i, v) COMPAT_ATOMIC_RMW(v, ({		\
	s64 __xp_o = (v)->counter;				\
	(v)->counter = __xp_o & ~(s64)(i);			\
	__xp_o;								\
}))
#define atomic64_or(i, v)	COMPAT_ATOMIC_RMW(v, (void)((v)->counter |= (s64)(i)))
#define atomic64_try_cmpxchg(v, old, new) COMPAT_ATOMIC_RMW(v, ({		\
	s64 *__xp_p = (old);					\
	bool __xp_ok = (v)->counter == *__xp_p;				\
	if (__xp_ok) {							\
		(v)->counter = (new);					\
		xp_note_cs();						\
	} else								\
		*__xp_p = (v)->counter;					\
	__xp_ok;							\
}))

#define atomic_read(v)		COMPAT_ATOMIC(v, (v)->counter)
#define atomic_set(v, i)	COMPAT_ATOMIC_RMW(v, (void)((v)->counter = (i)))
#define atomic_add_return(i, v)	COMPAT_ATOMIC_RMW(v, (v)->counter += (i))
#define atomic_sub_return(i, v)	COMPAT_ATOMIC_RMW(v, (v)->counter -= (i))
#define atomic_inc_return(v)	atomic_add_return(1, v)
#define atomic_dec_return(v)	atomic_sub_return(1, v)
#define atomic_inc(v)		((void)atomic_inc_return(v))
#define atomic_dec(v)		((void)atomic_dec_return(v))
#define atomic_add(i, v)	((void)atomic_add_return(i, v))
#define atomic_sub(i, v)	((void)atomic_sub_return(i, v))
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)
#define atomic_dec_if_positive(v) COMPAT_ATOMIC_RMW(v,			\
	(v)->counter > 0 ? --(v)->counter : (v)->counter - 1)

/* <asm/bitops.h>: the atomic bit operations */
#define COMPAT_BIT_RMW(nr, addr, expr) ({				\
	unsigned long *__w = COMPAT_WORD(nr, addr);			\
	unsigned long __m = COMPAT_MASK(nr), __old;			\
	if (xp_ctx->live)						\
		xp_point(XP_OP_BIT, __w, __FILE__, __LINE__);		\
	__old = *__w;							\
	*__w = (expr);							\
	(bool)(__old & __m);						\
})
#define set_bit(nr, addr)	((void)COMPAT_BIT_RMW(nr, addr, __old | __m))
#define clear_bit(nr, addr)	((void)COMPAT_BIT_RMW(nr, addr, __old & ~__m))
#define clear_bit_unlock(nr, addr) clear_bit(nr, addr)
#define test_and_set_bit(nr, addr) COMPAT_BIT_RMW(nr, addr, __old | __m)
#define test_and_clear_bit(nr, addr) COMPAT_BIT_RMW(nr, addr, __old & ~__m)
#define test_bit(nr, addr) ({						\
	const unsigned long *__w = COMPAT_WORD(nr, addr);		\
	xp_access(XP_OP_READ, __w, __FILE__, __LINE__);			\
	(bool)(*__w & COMPAT_MASK(nr));					\
})
#define test_bit_acquire(nr, addr)	test_bit(nr, addr)

/*
 * <linux/spinlock.h>, <linux/mutex.h>: one lock type behind both, which
 * knows its holder and how it has been taken (for the irq-safety check).
 */
struct xp_lock {
	struct xp_ctx	*owner;
	unsigned int	usage;		/* XP_USED_* bits */
	int		sleeping;	/* a mutex */
};

enum {
	XP_LOCK_BH	= 1,		/* spin_lock_bh() */
	XP_LOCK_IRQ	= 2,		/* spin_lock_irqsave(), _irq() */
};

void xp_lock_init(struct xp_lock *l, int sleeping);
void xp_lock(struct xp_lock *l, int how, const char *file, int line);
bool xp_trylock(struct xp_lock *l, int how, const char *file, int line);
void xp_unlock(struct xp_lock *l, int how, const char *file, int line);
void xp_assert_held(const struct xp_lock *l, const char *file, int line);

typedef struct {
	struct xp_lock	l;
} spinlock_t;

typedef struct {
	struct xp_lock	l;
} raw_spinlock_t;

struct mutex {
	struct xp_lock	l;
};

#define spin_lock_init(s)	xp_lock_init(&(s)->l, 0)
#define raw_spin_lock_init(s)	xp_lock_init(&(s)->l, 0)
#define spin_lock(s)		xp_lock(&(s)->l, 0, __FILE__, __LINE__)
#define spin_lock_bh(s)		xp_lock(&(s)->l, XP_LOCK_BH, __FILE__, __LINE__)
#define spin_lock_irq(s)	xp_lock(&(s)->l, XP_LOCK_IRQ, __FILE__, __LINE__)
#define spin_trylock(s)		xp_trylock(&(s)->l, 0, __FILE__, __LINE__)
#define spin_unlock(s)		xp_unlock(&(s)->l, 0, __FILE__, __LINE__)
#define spin_unlock_bh(s)	xp_unlock(&(s)->l, XP_LOCK_BH, __FILE__, __LINE__)
#define spin_unlock_irq(s)	xp_unlock(&(s)->l, XP_LOCK_IRQ, __FILE__, __LINE__)
#define spin_lock_irqsave(s, flags) do {				\
	(flags) = 0;							\
	xp_lock(&(s)->l, XP_LOCK_IRQ, __FILE__, __LINE__);		\
} while (0)
#define spin_unlock_irqrestore(s, flags) do {				\
	(void)(flags);							\
	xp_unlock(&(s)->l, XP_LOCK_IRQ, __FILE__, __LINE__);		\
} while (0)
#define raw_spin_lock(s)		spin_lock(s)
#define raw_spin_trylock(s)		spin_trylock(s)
#define raw_spin_unlock(s)		spin_unlock(s)
#define raw_spin_lock_irqsave(s, f)	spin_lock_irqsave(s, f)
#define raw_spin_unlock_irqrestore(s, f) spin_unlock_irqrestore(s, f)
#define lockdep_assert_held(s)	xp_assert_held(&(s)->l, __FILE__, __LINE__)

#define mutex_init(m)		xp_lock_init(&(m)->l, 1)
#define mutex_destroy(m)	((void)(m))
#define mutex_lock(m)		xp_lock(&(m)->l, 0, __FILE__, __LINE__)
#define mutex_trylock(m)	xp_trylock(&(m)->l, 0, __FILE__, __LINE__)
#define mutex_unlock(m)		xp_unlock(&(m)->l, 0, __FILE__, __LINE__)

/* <linux/llist.h>: the lock-free operations */
static inline bool xp_llist_add(struct llist_node *node, struct llist_head *head,
				const char *file, int line)
{
	struct llist_node *first;

	if (xp_ctx->live)
		xp_point(XP_OP_LLIST, head, file, line);
	first = head->first;
	node->next = first;
	head->first = node;
	return !first;
}

static inline struct llist_node *xp_llist_del_all(struct llist_head *head,
						  const char *file, int line)
{
	struct llist_node *first;

	if (xp_ctx->live)
		xp_point(XP_OP_LLIST, head, file, line);
	first = head->first;
	head->first = NULL;
	return first;
}

#define llist_add(n, h)		xp_llist_add(n, h, __FILE__, __LINE__)
#define llist_del_all(h)	xp_llist_del_all(h, __FILE__, __LINE__)
#define llist_empty(h) ({						\
	xp_access(XP_OP_READ, &(h)->first, __FILE__, __LINE__);		\
	!(h)->first;							\
})

/*
 * <linux/workqueue.h>: the module's workqueue is one worker coroutine,
 * which runs queued work items one at a time in the order queued (the
 * kernel never runs one work item twice at once).
 */
struct work_struct {
	void			(*func)(struct work_struct *work);
	int			pending;
	int			running;
	struct work_struct	*next;		/* in the worker's queue */
};

#define INIT_WORK(w, f) do {						\
	(w)->func = (f);						\
	(w)->pending = 0;						\
	(w)->running = 0;						\
	(w)->next = NULL;						\
} while (0)

bool xp_queue_work(struct work_struct *work, const char *file, int line);
bool xp_cancel_work_sync(struct work_struct *work, const char *file, int line);
#define queue_work(wq, w)	((void)(wq), xp_queue_work(w, __FILE__, __LINE__))
#define cancel_work_sync(w)	xp_cancel_work_sync(w, __FILE__, __LINE__)

/*
 * <linux/irq_work.h>: each CPU's self-interrupt is a coroutine that runs
 * the irq_works queued on that CPU. Queueing claims the item while it is
 * pending; the handler clears that before it runs, so a second CPU may
 * queue and run it meanwhile, as in the kernel.
 */
struct irq_work {
	void			(*func)(struct irq_work *work);
	int			pending;
	int			busy;
	struct irq_work		*next;		/* in a CPU's queue */
};

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	work->func = func;
	work->pending = 0;
	work->busy = 0;
	work->next = NULL;
}

bool xp_irq_work_queue(struct irq_work *work, const char *file, int line);
void xp_irq_work_sync(struct irq_work *work, const char *file, int line);
#define irq_work_queue(w)	xp_irq_work_queue(w, __FILE__, __LINE__)
#define irq_work_sync(w)	xp_irq_work_sync(w, __FILE__, __LINE__)

/* <linux/wait.h>, <linux/wait_bit.h>: a wait queue is a key. */
typedef struct {
	int		unused;
} wait_queue_head_t;

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	wq->unused = 0;
}

void xp_prepare_wait(const void *key, const char *file, int line);
void xp_wait_commit(const char *file, int line);
void xp_finish_wait(void);
void xp_wake(const void *key, const char *file, int line);

#define xp_wait_event(key, condition) do {				\
	xp_might_sleep(__FILE__, __LINE__);				\
	for (;;) {							\
		xp_prepare_wait(key, __FILE__, __LINE__);		\
		if (condition)						\
			break;						\
		xp_wait_commit(__FILE__, __LINE__);			\
	}								\
	xp_finish_wait();						\
} while (0)
#define wait_event(wq, condition)	xp_wait_event(&(wq), condition)
#define wait_var_event(var, condition)	xp_wait_event(var, condition)
#define wake_up_all(wq)			xp_wake(wq, __FILE__, __LINE__)
#define wake_up(wq)			xp_wake(wq, __FILE__, __LINE__)
#define wake_up_var(var)		xp_wake(var, __FILE__, __LINE__)

/*
 * <linux/hrtimer.h>, <linux/timekeeping.h>: the clock is virtual, moved
 * by a scenario's steps (xp_clock_set()); an armed hrtimer fires, in the
 * hrtimer interrupt's coroutine, once the clock reaches its expiry.
 */
struct hrtimer {
	enum hrtimer_restart	(*function)(struct hrtimer *timer);
	ktime_t			expires;
	int			enqueued;
	int			running;
	struct hrtimer		*next;		/* in the run's hrtimers */
};

/* compat's kfree(): nothing active may be freed (sched.c). */
void xp_freeing(const void *ptr, size_t size);
void xp_hrtimer_setup(struct hrtimer *timer,
		      enum hrtimer_restart (*function)(struct hrtimer *));
void xp_hrtimer_start(struct hrtimer *timer, ktime_t tim, int mode,
		      const char *file, int line);
int xp_hrtimer_try_to_cancel(struct hrtimer *timer, const char *file,
			     int line);
int xp_hrtimer_cancel(struct hrtimer *timer, const char *file, int line);
#define hrtimer_setup(t, fn, clock, mode) \
	((void)(clock), (void)(mode), xp_hrtimer_setup(t, fn))
#define hrtimer_start(t, tim, mode) \
	xp_hrtimer_start(t, tim, mode, __FILE__, __LINE__)
#define hrtimer_try_to_cancel(t) \
	xp_hrtimer_try_to_cancel(t, __FILE__, __LINE__)
#define hrtimer_cancel(t)	xp_hrtimer_cancel(t, __FILE__, __LINE__)
#define hrtimer_active(t) ({						\
	const struct hrtimer *__t = (t);				\
	xp_access(XP_OP_READ, __t, __FILE__, __LINE__);			\
	__t->enqueued || __t->running;					\
})

extern u64 xp_clock_ns;
#define ktime_get_ns() ({						\
	xp_access(XP_OP_CLOCK, &xp_clock_ns, __FILE__, __LINE__);	\
	xp_clock_ns;							\
})
#define ktime_get_mono_fast_ns()	ktime_get_ns()

#endif /* TIMEQ_COMPAT_EXPLORE_H */
