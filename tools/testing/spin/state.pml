/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of the model: one queue (module/queue.c's struct timeq, less
 * what the protocol never looks at), its three locks, two timers and a
 * third node, the hand-off list, a timer base's clock state, and the
 * ghost state the properties need. timeq.pml says what the model covers,
 * its bounds and its limits.
 */

/* --- bounds: see "Bounds" in timeq.pml --- */

#define NODES		3	/* nodes 0 and 1 are timers, node 2 is plain
				 * (on a base's queue, a timer whose owner
				 * never calls) */
#define TIMERS		2
#define PLAIN		2
#define NIL		3	/* "no node": q->min == NULL */
#define HZ		4	/* the horizon, and M: buckets of delta = 1 tick */
#define NOTIME		63	/* q->min_time without a minimum: U64_MAX */

#define TQ_STEP		1	/* TIMEQ_STEP: nodes per step of pending work */
#define TQ_WALK		1	/* TIMEQ_WALK: far lists walked, not spread */
#ifndef TQ_HOLD
#define TQ_HOLD		2	/* TIMEQ_HOLD: node visits per lock hold */
#endif

/* Processes: fast ones, slow ones (0 is the work, 1 another caller). */
#ifndef NFAST
#define NFAST		2
#endif
#ifndef NSLOW
#define NSLOW		1
#endif

/* Process numbers, as lock holders: 0 means free. */
#define ME_F0		1
#define ME_F1		2
#define ME_SLOW		3
#define ME_INIT		4
#define ME_SLOW2	5

/* q->pend (module/queue.h) */
#define P_NONE		0
#define P_PULL_NEXT	1
#define P_PULL_HEAD	2
#define P_WALK		3
#define P_EVICT		4
#define P_RESOLVE	5

/*
 * The owner word of a node: 0 in no queue, else the tag + 1: O_CAL for
 * the calendar (TQ_TAG_CALENDAR), O_ARR(a) for spread array a (tag a + 1).
 */
#define O_NONE		0
#define O_CAL		1
#define O_ARR(a)	(2 + (a))

/* Return values of the fast path and the helpers. */
#define R_APPLIED	0	/* TIMEQ_APPLIED, or 0 */
#define R_DEFERRED	1	/* TIMEQ_DEFERRED */
#define R_EAGAIN	2
#define R_ESHUTDOWN	3
#define R_ENOENT	4
#define R_ERANGE	5
#define R_EBUSY		6
#define R_DONE		7	/* the fast update has returned */

/* tq_fast_lane(); L_NONE: no fast update under way */
#define L_NONE		0
#define L_NEAR		1
#define L_FAR		2
#define L_CROSS		3

/* tq_fast_length() */
#define F_SHORT		0
#define F_LONG		1
#define F_CHECK_NEXT	2

/* --- the locks: who holds each --- */

byte hl, h2l, bl;	/* head_lock, head2_lock, bucket_lock */

#define ALL_HELD	(hl == me && h2l == me && bl == me)
#define ALL_FREE	(hl == 0 && h2l == 0 && bl == 0)

/* --- the queue --- */

byte now;
byte hd, hd2, fo;	/* which spread array plays head, head2, focus */
byte fbucket;		/* focus_bucket */
byte pend, pbucket;	/* pend, pend_bucket */
byte min = NIL;
byte mintime = NOTIME;
byte budget;		/* the slow side's budget for this lock hold */

byte own[NODES];	/* owner word */
byte ntime[NODES];	/* node->time */

/*
 * Counts, kept by the tag as the code keeps them: head->count of each
 * spread array, bucket_count[] by slot (bucket b & (M - 1)), and
 * calendar_count. The bitmaps say no more than the counts here.
 */
byte acnt[3];
byte bcnt[HZ];
byte calcnt;

#define ACNT(a)		acnt[a]
#define BCNT(b)		bcnt[(b) & (HZ - 1)]
#define CALCNT		calcnt

/*
 * Ghost: the lists that really hold each node, bit 0 the calendar, bit
 * 1 + a spread array a. Every link and unlink asserts that they agree with
 * the tag, so the first disagreement is an error.
 */
byte mem[NODES];
#define LBIT(o)		(1 << ((o) - 1))
#define INARR(n, a)	((mem[n] >> ((a) + 1)) & 1)
#define INCAL(n, b)	((mem[n] & 1) && ntime[n] == (b))

/* The lock that guards spread array a (by its role), and owner word o. */
#define ALOCK(a)	((a) == hd -> hl : ((a) == hd2 -> h2l : bl))
#define OLOCK(o)	((o) == O_CAL -> bl : ALOCK((o) - 2))

/* tq_is_far(), tq_is_head(), tq_in_window() */
#define ISFAR(n)	(own[n] == O_CAL || own[n] == O_ARR(fo))
#define ISHEAD(n)	(own[n] == O_ARR(hd))
#define INWIN(t)	((t) >= now && (t) < now + HZ)

/* A time a caller may ask for: from the clock up to the horizon. */
#define PICK_X(v)	if :: v = now :: v = now + 1 :: v = now + 2 :: v = now + 3 fi
#if defined(SCOPE_HANDOFF) || defined(SCOPE_ARMING)
/* the hand-off scope: a near time and a far one */
#define PICK_FAST_X(v)	if :: v = now + 1 :: v = now + 2 fi
#elif defined(SCOPE_ROOM)
/* the next bucket, and a time beyond the lagging clock's window */
#define PICK_FAST_X(v)	if :: v = now + 1 :: v = now + HZ fi
#elif defined(SCOPE_STORES) && defined(INLINE_STORE)
/*
 * as below, and timer 1's own time, which timeq_timer_store() answers
 * true with no write, so that it does so with another's hand-off under way
 */
#define PICK_FAST_X(v)	if :: v = now + 1 :: v = now + 2 :: v = now + HZ fi
#elif defined(SCOPE_STORES)
/* later than timer 1's time (a store), and beyond the lagging window */
#define PICK_FAST_X(v)	if :: v = now + 2 :: v = now + HZ fi
#else
/* the regions scope: the next bucket, and the last far one */
#define PICK_FAST_X(v)	if :: v = now + 1 :: v = now + 3 fi
#endif

#define MAX(a, b)	((a) > (b) -> (a) : (b))
#define MIN(a, b)	((a) < (b) -> (a) : (b))

/* --- the timers --- */

bit pending[TIMERS];	/* TQ_TIMER_PENDING */
bit shut[TIMERS];	/* TQ_TIMER_SHUTDOWN */
byte want[TIMERS];	/* timer->want */

/* base->handoffs, oldest first, and what refers to each timer from it. */
byte ll[TIMERS];
byte llen;
bit onll[TIMERS];	/* on base->handoffs */
bit indrain[TIMERS];	/* in the list a drain took, not yet done with */

/* --- the owner of each timer: the synchronization rules --- */

byte busy[TIMERS];	/* fast updates of the timer running now */
bit retired[TIMERS];	/* the owner lets no fast update start any more */
bit freed[TIMERS];	/* the owner freed it */
byte fast_done;		/* fast processes that have finished */
byte slow_busy;		/* slow processes that have calls left to make */

#ifdef CLOCK
/*
 * --- a timer base (module/clock.c) ---
 *
 * @tick is CLOCK_MONOTONIC in ticks, fixed for a scope: time does not
 * pass, but the queue's clock may lag it. A node on the due list (@due)
 * is in no list of the queue (owner word 0) and has TIMEQ_TIMER_DUE set;
 * the list is in the order of time, and the model takes any of its
 * earliest nodes as "the first". @running is base->running, NIL for
 * none. @workq: the work item is queued.
 */
byte tick;
bit due[NODES];
/*
 * Each timer's expires word (module/fast.c, "Refresh by a store"): the
 * time it expires at, TIMEQ_EXPIRES_OPEN and TIMEQ_EXPIRES_HANDED (a
 * request handed off waits: no store lands). @gone (ghost): the expiry
 * ran the timer's callback since its last request took effect.
 */
byte exps[TIMERS];
bit eopen[TIMERS];
bit ehand[TIMERS];
bit gone[TIMERS];
#ifdef INLINE_STORE
/* @asked (ghost): what spec.pml's nowrite_point() holds the callback to. */
byte asked[TIMERS];
#endif
byte running = NIL;
bit workq;

#define DUE_ANY		(due[0] || due[1] || due[2])

#ifdef KICK
/*
 * The hrtimer and the irq_work. @armed is base->armed and @hrt the time
 * the hrtimer is really set for, NOTIME for TQ_UNARMED and for not set;
 * @kickq: the irq_work is queued (IRQ_WORK_PENDING), and cleared when
 * its handler starts, as irq_work_run_list() does.
 */
byte armed = NOTIME;
byte hrt = NOTIME;
bit kickq;
byte kph;		/* where the irq_work's handler is (timeq.pml) */
bit the_end;		/* the checks are done: the irq_work process ends */
#endif
#endif

/* Every access to a timer's fields by the protocol. */
#define TOUCH(t)	assert((t) >= TIMERS || !freed[t])

/*
 * --- ghost: requests, for "no update lost or applied out of order" ---
 *
 * Each request on a timer has a slot: fast process p's call k is slot
 * 2p + k, the slow process's op j is slot 4 + j, and slot 7 stands for
 * the timer's initial state. spec.pml says what the masks mean.
 */
#define SLOT_INIT	7
#define INITBIT		128

byte retd[TIMERS];	/* requests on the timer that have returned */
byte superseded[TIMERS];	/* older than some request already applied */
byte effprec[TIMERS];	/* older than some request that took effect */
byte lastreq[TIMERS];	/* the request applied last */
bit lastdel[TIMERS];	/* it was a delete */
byte want_id[TIMERS];	/* the request that last wrote ->want */
byte prec[4];		/* for each fast slot: requests older than it */
