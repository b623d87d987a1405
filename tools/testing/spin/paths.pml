/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module/paths.c, fast.c, handoff.c and clock.c: the slow side's locking
 * and calls, their doors, the hand-off and its drain, the waits of the
 * timer calls, delete_sync/shutdown_sync, the expiry and the arming of the
 * hrtimer of a timer base, and the fast path's three lanes and fast min.
 * Function names are the code's; comments say where the model departs from
 * it.
 *
 * Steps. Each atomic block is one step, in which a process touches only
 * what the locks it holds guard, plus one racy access (a read of a word
 * another process writes without the same lock, an atomic bit operation,
 * an llist operation). What a held lock guards no one else can see or
 * change, so the accesses to it may be moved next to the racy access of
 * the step; that is the usual reduction, and it is why a whole critical
 * section may be one step. Lock acquisitions are steps of their own: a
 * trylock's failure depends on what the others hold at that moment. So
 * is the near lane's tq_try_next_in_calendar(), which takes bucket_lock
 * and drops it before the update writes @min. arm_lock is taken and
 * dropped within a step: what it guards, the hrtimer and @armed, only
 * those steps touch, and each has one racy access at most (the irq_work's
 * read of @min_time). Where the code reads two racy words back to back
 * and acts on both, the model reads them in one step, but for @min and
 * @min_time on the bucket_lock-only paths, which it reads in two steps in
 * either order (the near lane writes both while such a path runs; on a
 * weakly ordered CPU the reader may see either new value alone).
 *
 * Waits. A call that sleeps (tq_wait_request(), tq_clock_wait()) blocks
 * until the condition it waits for is true, as if every change of that
 * condition were followed by the wake-up the code calls.
 *
 * Memory order: sequentially consistent, which is what the barriers the
 * code relies on provide for the accesses they order: test_and_set_bit()
 * (a full barrier) against clear_bit() + smp_mb__after_atomic() orders
 * the drain's clear of PENDING before its read of ->want, and the fast
 * path's write of ->want before its test_and_set_bit(); llist_add() and
 * llist_del_all() are full barriers; everything else is under a lock or
 * is one racy word. BUG_DRAIN_EARLY_READ is the barrier's absence.
 *
 * The callers declare QUEUE_LOCALS, PATH_LOCALS, and FAST_LOCALS or
 * SLOW_LOCALS.
 */

/* Both kinds of process: a time, and tq_far_ok()'s reads and verdict. */
#define PATH_LOCALS	byte tm, m, mt, fok; bit order

/* --- the slow side's locks --- */

/* tq_unlock(), inside a step. */
inline tq_release()
{
	assert(ALL_HELD);
	bl = 0;
	h2l = 0;
	hl = 0;
	budget = 0;
	check_quiet()
}

#ifdef KICK
/*
 * tq_clock_set(), with arm_lock held: the hrtimer for @cst if that is
 * earlier than @armed, cancelled for NOTIME; @csspent: it has fired, or
 * is set for a time that has passed.
 */
inline clock_set(cst, csspent)
{
	if
	:: csspent -> armed = NOTIME
	:: else
	fi;
	if
	:: cst == NOTIME ->
		if
		:: armed != NOTIME -> hrt = NOTIME	/* hrtimer_try_to_cancel() */
		:: else
		fi;
		armed = NOTIME
	:: cst != NOTIME && cst < armed -> armed = cst; hrt = cst	/* hrtimer_start() */
	:: else
	fi
}
#endif

#ifdef CLOCK
/*
 * tq_clock_arm() under every lock: the work if timers are due, and the
 * hrtimer for the minimum. arm_lock is taken and dropped within the step,
 * which is one: nothing else it guards is touched by a process that holds
 * none of the queue's locks but the irq_work, whose step is one as well.
 */
inline clock_arm(caspent)
{
	if
	:: DUE_ANY -> workq = 1
	:: else
	fi;
#ifdef KICK
	if
	:: min == NIL && pend != P_NONE
	:: else -> clock_set(mintime, caspent)
	fi
#endif
}

/* The first timer of the due list: any of the earliest. */
inline due_first(dfres)
{
	q_tmp = NOTIME;
	if
	:: due[0] && ntime[0] < q_tmp -> q_tmp = ntime[0]
	:: else
	fi;
	if
	:: due[1] && ntime[1] < q_tmp -> q_tmp = ntime[1]
	:: else
	fi;
	if
	:: due[2] && ntime[2] < q_tmp -> q_tmp = ntime[2]
	:: else
	fi;
	if
	:: due[0] && ntime[0] == q_tmp -> dfres = 0
	:: due[1] && ntime[1] == q_tmp -> dfres = 1
	:: due[2] && ntime[2] == q_tmp -> dfres = 2
	fi;
	q_tmp = 0
}
#endif

#ifdef CLOCK
/*
 * A timer's expires word (module/fast.c, "Refresh by a store"): opened
 * with the time its node is filed at by every link, closed (its time
 * kept) by whatever takes the node out or moves it where a store cannot
 * see; neither touches HANDED, which whoever takes PENDING for a request
 * sets (EXP_HAND) and the drain clears as it closes (EXP_DRAINED). Only a
 * base's queue has stores.
 */
#define EXP_OPEN(eot)	if \
			:: (eot) < TIMERS -> exps[eot] = ntime[eot]; eopen[eot] = 1 \
			:: else \
			fi
#define EXP_CLOSE(ect)	if \
			:: (ect) < TIMERS -> eopen[ect] = 0 \
			:: else \
			fi
#define EXP_HAND(eht)	ehand[eht] = 1
#define EXP_DRAINED(edt) eopen[edt] = 0; ehand[edt] = 0
#define EXP_UNHAND(eut)	ehand[eut] = 0

/*
 * tq_timer_store() of timer @srt at @srx, for the fast path and for
 * timeq_timer_move(): its reads (PENDING, the expires word, the owner
 * word and @now, back to back) choose to try it, and its
 * compare-and-exchange, a step of its own, lands if the word is still
 * open and unmarked at the time read (@srexp).
 */
#define STORE_READ_OK(srt, srx) \
	(!pending[srt] && eopen[srt] && !ehand[srt] && (srx) >= exps[srt] && \
	 (own[srt] != O_NONE || due[srt]) && (srx) < now + HZ)
#ifndef INLINE_STORE
#define FAST_STORE_READ_OK(srt, srx)	STORE_READ_OK(srt, srx)
#else
/*
 * The fast processes' store is timeq_timer_store() (include/linux/
 * timeq.h), inline in the caller: it reads the word alone, with no test
 * of PENDING or of the owner. A word open and unmarked answers true,
 * with no write, for a time no later than the word's
 * (FAST_STORE_NOWRITE), and for a later one tries the
 * compare-and-exchange; any other word answers false. It keeps to the
 * window here, which the model's queue cannot exceed; the filing of a
 * time beyond it is paths_test_store_beyond's (kunit/paths_test.c).
 */
#ifndef BUG_INLINE_STORE_NO_HANDED
#define FAST_STORE_READ_OK(srt, srx) \
	(eopen[srt] && !ehand[srt] && (srx) < now + HZ)
#else
/* Planted: the inline store looks at OPEN alone, not at HANDED. */
#define FAST_STORE_READ_OK(srt, srx)	(eopen[srt] && (srx) < now + HZ)
#define FAST_STORE_CAS_OK(srt, srexp)	(eopen[srt] && exps[srt] == (srexp))
#endif
#ifndef BUG_INLINE_STORE_NOWRITE_LATER
#define FAST_STORE_NOWRITE(srt, srx)	((srx) <= exps[srt])
#else
/* Planted: the answer with no write for a later time too: a lost store. */
#define FAST_STORE_NOWRITE(srt, srx)	true
#endif
#endif
#ifndef BUG_STORE_BLIND
#define STORE_CAS_OK(srt, srexp) \
	(eopen[srt] && !ehand[srt] && exps[srt] == (srexp))
#else
/*
 * Planted: the store writes the word it read open (atomic64_set() for the
 * compare-and-exchange), reopening it and clearing HANDED.
 */
#define STORE_CAS_OK(srt, srexp)	true
#endif
#ifndef FAST_STORE_CAS_OK
#define FAST_STORE_CAS_OK(srt, srexp)	STORE_CAS_OK(srt, srexp)
#endif
#else
#define EXP_OPEN(eot)	skip
#define EXP_CLOSE(ect)	skip
#define EXP_HAND(eht)	skip
#define EXP_DRAINED(edt) skip
#define EXP_UNHAND(eut)	skip
#endif

/*
 * tq_arm(), at a time already clamped to the clock; a timer whose
 * callback is due leaves the due list for the queue.
 */
inline tq_arm(amt, amv)
{
	if
	:: own[amt] != O_NONE -> q_update(amt, amv, q_ret)
	:: else ->
#ifdef CLOCK
		due[amt] = 0;
#endif
		q_insert(amt, amv, q_ret)
	fi;
	assert(q_ret == R_APPLIED);
	q_ret = 0;
	EXP_OPEN(amt)
}

/* --- tq_far_ok(), with bucket_lock held, in two steps --- */

/* The stable part, and the first racy read of @min / @min_time. */
inline far_ok_a(fan, fadel)
{
	if
	:: pend != P_NONE -> fok = 0
	:: else ->
#ifndef BUG_FAR_NO_REGION_CHECK
		if
		:: own[fan] != O_NONE && !ISFAR(fan) -> fok = 0
		:: else -> fok = 2
		fi
#else
		/* Planted: the paper's race, the region read but not checked. */
		fok = 2
#endif
	fi;
	if
	:: fok == 2 ->
		if
		:: m = min; order = 0
		:: mt = mintime; order = 1
		fi
	:: else
	fi
}

/* The second racy read, and the verdict in @fok. */
inline far_ok_b(fbn, fbt, fbdel)
{
	if
	:: order == 0 -> mt = mintime
	:: else -> m = min
	fi;
#ifndef BUG_FAR_MOVES_MIN
	if
	:: own[fbn] != O_NONE && m == fbn -> fok = 0
	:: else
	fi;
#else
	/* Planted: the far lane may move the minimum. */
#endif
	if
	:: fok == 0
	:: else ->
		if
		:: fbdel -> fok = (own[fbn] != O_NONE)
		:: else -> fok = (INWIN(fbt) && fbt >= now + 2 && m != NIL &&
				  fbt >= mt)
		fi
	fi;
	m = 0;
	mt = 0;
	order = 0
}

/* --- the slow side: every call, one skeleton --- */

/* The slow processes' calls (op), on timer tt or the plain node, at xv. */
#define OP_WORK		0	/* tq_work(): the work item, draining */
#define OP_ARM		1	/* timeq_timer_arm() */
#define OP_MOVE		2	/* timeq_timer_move(): a store, or as arm */
#define OP_DELETE	3	/* timeq_timer_delete() */
#define OP_DSYNC	4	/* timeq_delete_sync() */
#define OP_SHUTDOWN	5	/* timeq_shutdown_sync() */
#define OP_INSERT	6	/* timeq_insert() of the plain node */
#define OP_UPDATE	7	/* timeq_update() of the plain node */
#define OP_NDELETE	8	/* timeq_delete() of the plain node */
#define OP_DELMIN	9	/* timeq_delete_min() */
#define OP_DLT		10	/* timeq_del_less_than(q, xv, NULL, NULL) */
#define OP_FIRST	11	/* timeq_first(), as TIMEQ_MIN calls it */

/* tq_timer_set(): timeq_timer_arm() and timeq_timer_move() */
#define OP_SETS(o)	((o) == OP_ARM || (o) == OP_MOVE)

/*
 * tq_timer_refuse()'s first check: timeq_timer_move() moves a timer only
 * if it is armed, in the queue or on the due list.
 */
#ifdef BUG_MOVE_NO_REFUSE
/* Planted: the check left out; a move arms whatever it is given. */
#define MOVE_ARMED(mat)	true
#elif !defined(CLOCK)
#define MOVE_ARMED(mat)	(op != OP_MOVE || own[mat] != O_NONE)
#elif !defined(BUG_MOVE_DUE_REFUSED)
#define MOVE_ARMED(mat)	(op != OP_MOVE || own[mat] != O_NONE || due[mat])
#else
/* Planted: a timer whose callback is due is taken as not armed. */
#define MOVE_ARMED(mat)	(op != OP_MOVE || own[mat] != O_NONE)
#endif

/*
 * Where a slow process is (ph). Every step is one atomic block guarded
 * by its phase; a phase that holds every lock runs to the next access
 * another process can see (a lock taken or dropped, the hand-off list,
 * PENDING, ->want) in one step: what the locks guard, no one else sees.
 * Each routine is written once, so the verifier's code stays small.
 */
#define PH_IDLE		0	/* between calls: choose the next */
#define PH_FAR		1	/* the plain node's call: bucket_lock */
#define PH_FAR_A	2	/* tq_far_ok(): the checks, a racy read */
#define PH_FAR_B	3	/* the other racy read, the call or not */
#define PH_LOCK		4	/* tq_lock(): head_lock, head2_lock */
#define PH_LOCK_BL	5	/* bucket_lock, a step of pending work */
#define PH_DRAIN	6	/* tq_drain(): the next timer taken */
#define PH_CLEAR	7	/* BUG_DRAIN_EARLY_READ: PENDING after ->want */
#define PH_APPLY	8	/* tq_apply(): the request in ->want */
#define PH_POST		9	/* the call has returned; the owner frees */
#define PH_WAIT		10	/* asleep: tq_wait_request(), tq_clock_wait() */
#define PH_FAR_C	11	/* BUG_SETTLE_NULL_FIRST: the far read of @min */
#define PH_FIRST	12	/* BUG_MIN_UNLOCKED: timeq_min(), no lock */
#define PH_RETAKE	13	/* tq_apply(): PENDING taken back for a door */
#define PH_ROOM		14	/* tq_clock_make_room(): a batch, or a door */
#define PH_RECLEAR	15	/* tq_apply() again: PENDING cleared */
#define PH_CALLBACK	16	/* the expiry runs a callback, no lock held */
#define PH_END		17	/* the checks are done */
#define PH_FAR_D	18	/* BUG_SETTLE_NULL_FIRST: the far write of @min */
#define PH_STORE_A	19	/* timeq_timer_move()'s tq_timer_store(): reads */
#define PH_STORE_B	20	/* its compare-and-exchange */

/*
 * What a slow process does once no work is pending (ph_fin), after a
 * step of pending work that leaves none; work left means a door: unlock,
 * lock again, and on. A timer call and the work begin and end with
 * handoff.c's tq_timer_begin() and tq_timer_end(): paths.c's
 * tq_slow_begin() and tq_slow_end() and, on a base's queue, the clock's
 * catch-up and re-arming; a node call (never on a base's queue here) with
 * tq_slow_begin() and tq_slow_end() alone.
 */
#define FIN_START	1	/* tq_timer_begin(): on to the hand-offs */
#define FIN_DRAIN	2	/* the drain goes on */
#define FIN_END		3	/* tq_timer_end(): unlock */
#define FIN_RELOCK	4	/* tq_relock() in the drain: then the drain */
#define FIN_CAUGHT	5	/* tq_timer_begin() caught the clock up */
#define FIN_EXP		6	/* a turn of the expiry: catch up, take */
#define FIN_EXP_CAUGHT	7	/* the clock caught up: take a timer */
#define FIN_TAKEN	8	/* a timer taken: unlock, its callback */
#define FIN_ROOM	9	/* making room goes on */
#define FIN_REFILED	10	/* a timer filed again: unlock, the next turn */

/* What a call sleeps for (s_wait). */
#define W_REQ		1	/* tq_wait_request(): PENDING, or a push */
#define W_RUN		2	/* tq_clock_wait(): the callback of tt */

#ifdef CLOCK
#define WAIT_DONE	((s_wait == W_REQ && (!pending[tt] || llen > 0)) || \
			 (s_wait == W_RUN && running != tt))
#else
#define WAIT_DONE	(!pending[tt] || llen > 0)
#endif

#define SLOW_LOCALS	byte op, tt, xv, sslot, sprec, ph, ph_fin, j, s_wait; \
			byte s_exp, d_n, d_0, d_1, d_i, d_t, d_w, d_wid; \
			byte r_w, r_wid, r_target, e_n; \
			bit s_more, s_fin, r_set

/*
 * tq_apply() closes the timer's expires word and clears HANDED before it
 * clears PENDING, so that a store that finds PENDING clear finds the word
 * closed: both are value-returning atomics, fully ordered, one step here.
 */
#ifndef BUG_STORE_DRAIN_OPEN
#define DRAIN_CLOSE(dct)	EXP_DRAINED(dct)
#else
/* Planted: HANDED, then PENDING, cleared with the word open. */
#define DRAIN_CLOSE(dct)	EXP_UNHAND(dct)
#endif

/*
 * Whoever takes PENDING for a request marks the word HANDED before the
 * request can be applied: tq_apply() taking it back (RETAKE_MARK), and
 * tq_handoff() (HANDOFF_MARK, fast side).
 */
#define RETAKE_MARK(rmt)	EXP_HAND(rmt)
#ifndef BUG_STORE_HANDOFF_OPEN
#define HANDOFF_MARK(hmt)	EXP_HAND(hmt)
#else
/* Planted: a hand-off takes PENDING, the word left unmarked. */
#define HANDOFF_MARK(hmt)	skip
#endif

/*
 * tq_apply(): the request in ->want, that @dawid wrote, read with PENDING
 * clear. On a base's queue a time beyond the window first needs room
 * (PH_RETAKE).
 */
inline drain_apply(dat, daw, dawid)
{
	TOUCH(dat);
	if
	:: shut[dat] -> indrain[dat] = 0
#ifdef CLOCK
	:: !shut[dat] && !INWIN(MAX(daw, now)) ->
#ifndef BUG_DEFERRED_DROPPED
		r_w = daw;
		r_wid = dawid;
		ph = PH_RETAKE
#else
		/* Planted (defect 5): tq_arm()'s -ERANGE ignored, dropped. */
		indrain[dat] = 0
#endif
#endif
	:: else ->
		tm = MAX(daw, now);
		tq_arm(dat, tm);
		drain_point(dat, dawid, tm + 1);
		tm = 0;
		indrain[dat] = 0
	fi
}

/*
 * A timer call found PENDING set once it had drained: a request in flight
 * (set, not yet pushed; pushed since; or held by another caller's drain
 * in a door). tq_timer_end(), then sleep until PENDING is clear or a
 * request is on the list (tq_wait_request()), and the call again.
 */
inline wait_request()
{
#ifndef BUG_WAIT_SPINS
	s_wait = W_REQ
#else
	/* Planted (defect 7): cond_resched() and the call again, a spin. */
	s_more = 1
#endif
}

/* timeq_first(): NULL only for an empty queue (TIMEQ_MIN's ENODATA). */
inline first_ok()
{
	assert(min != NIL || (own[0] == O_NONE && own[1] == O_NONE &&
			      own[2] == O_NONE))
}

/*
 * tq_timer_set() once the hand-offs are applied and no request is in
 * flight, and the window holds the time: the timer is looked at again
 * (tq_timer_refuse()), and armed.
 */
inline timer_set_arm()
{
	if
	:: !shut[tt] ->
		tm = MAX(xv, now);
		tq_arm(tt, tm);
		inplace_point(tt, sslot, sprec, tm + 1);
		tm = 0
	:: else
	fi;
	retd[tt] = retd[tt] | (1 << sslot)
}

#ifdef CLOCK
/*
 * tq_room() for a time beyond the window: tq_clock_make_room() towards
 * @rbt, for tq_timer_set() if @rbset, else for tq_apply(). With a fixed
 * tick only tq_timer_set() can ask beyond the horizon: the fast path
 * lets through only times within it.
 */
inline room_begin(rbt, rbset)
{
	r_set = rbset;
	if
	:: rbt - HZ + 1 <= tick -> r_target = rbt - HZ + 1; ph = PH_ROOM
	:: else ->
		/* -ERANGE, for tq_timer_set(): tq_arm() refuses the time */
		assert(rbset);
		r_set = 0;
#ifndef BUG_SET_ROOM_LATE
		slow_start()
#else
		ph_fin = FIN_END;
		s_fin = 1
#endif
	fi
}

/*
 * Room made: tq_timer_set() drains (see tq_slow_begin_drained()), and
 * tq_apply() clears PENDING and reads ->want again.
 */
inline room_done()
{
	r_target = 0;
	if
#ifndef BUG_SET_ROOM_LATE
	:: r_set -> r_set = 0; slow_start()
#else
	:: r_set -> r_set = 0; timer_set_arm(); ph_fin = FIN_END; s_fin = 1
#endif
	:: else ->
#ifndef BUG_APPLY_NO_RETAKE
		ph = PH_RECLEAR
#else
		/* Planted: the time read before the door is armed. */
		tm = MAX(r_w, now);
		tq_arm(d_t, tm);
		drain_point(d_t, r_wid, tm + 1);
		tm = 0;
		indrain[d_t] = 0;
		d_t = 0;
		r_w = 0;
		r_wid = 0;
		ph_fin = FIN_DRAIN;
		s_fin = 1
#endif
	fi
}

/*
 * tq_clock_claim(): a timer taken for its tick whose expires word says
 * later is filed again there (tq_clock_file()), or at the clock if the
 * clock has passed that time (a timer off the due list).
 */
/* tq_clock_file() opens the word at the time stored; HANDED stays. */
#define CLAIM_OPEN(cot)		eopen[cot] = 1

#ifndef BUG_STORE_EXPIRY_IGNORED
#define CLAIM_REFILE(crn)	((crn) < TIMERS && exps[crn] > ntime[crn])
#else
/* Planted: the callback runs for the time the timer is filed at. */
#define CLAIM_REFILE(crn)	false
#endif

/*
 * tq_clock_take(): the first due timer, else the minimum if it is due,
 * claimed: filed again at the time a store gave it (then the next turn,
 * in a lock hold of its own: the code's goes on in the same hold while it
 * has visits left, which is this with nothing run in between), or its
 * callback; or, with none, the end of the expiry: the hrtimer taken as
 * spent (the work's run), unlock.
 */
inline expire_take()
{
	if
	:: DUE_ANY ->
		due_first(e_n);
		assert(ntime[e_n] <= tick);
		due[e_n] = 0;
		EXP_CLOSE(e_n);
		if
		:: CLAIM_REFILE(e_n) ->
			/* tq_clock_claim(): inserted at the time stored */
			exps[e_n] = MAX(exps[e_n], now);
			q_insert(e_n, exps[e_n], q_ret);
			assert(q_ret == R_APPLIED);
			q_ret = 0;
			CLAIM_OPEN(e_n);
			e_n = 0;
			ph_fin = FIN_REFILED
		:: else
		fi
	:: !DUE_ANY && min != NIL && mintime <= tick ->
		e_n = min;
		EXP_CLOSE(e_n);
		if
		:: CLAIM_REFILE(e_n) ->
			/* tq_clock_claim(): moved to the time stored */
			q_update(e_n, exps[e_n], q_ret);
			assert(q_ret == R_APPLIED);
			q_ret = 0;
			CLAIM_OPEN(e_n);
			e_n = 0;
			ph_fin = FIN_REFILED
		:: else -> q_delete_min(e_n)
		fi
	:: else -> e_n = NIL
	fi;
	if
	:: ph_fin == FIN_REFILED
	:: ph_fin != FIN_REFILED && e_n != NIL ->
		callback_point(e_n);
#ifndef BUG_RUNNING_LATE
		/* published in the lock hold of the removal */
		running = e_n;
#endif
		ph_fin = FIN_TAKEN
	:: else ->
		e_n = 0;
		clock_arm(1);
		tq_release();
		ph = PH_POST;
		ph_fin = 0;
		break
	fi
}
#endif

/*
 * What each call does under every lock, once the pending work is done and
 * (for a timer call) the hand-offs are applied; then tq_timer_end() (a
 * node call's tq_slow_end()), but for making room. The plain node's
 * insert and update are tq_arm() (it is in no queue, or in this one);
 * delete_min is del_less_than(min + 1) with a batch of one, which is
 * __timeq_delete_min() once.
 */
inline slow_body()
{
	ph_fin = FIN_END;
	s_fin = 1;
	if
	:: op == OP_WORK
	:: op >= OP_ARM && op <= OP_SHUTDOWN ->
		TOUCH(tt);
		if
#ifndef BUG_SET_NO_WAIT
		/*
		 * tq_slow_begin_drained(), for tq_timer_set() and
		 * timeq_timer_delete(): a request in flight.
		 */
		:: (OP_SETS(op) || op == OP_DELETE) && pending[tt] ->
			wait_request()
#endif
		:: else ->
			if
			:: OP_SETS(op) && !shut[tt] && MOVE_ARMED(tt) ->
				if
				:: op == OP_MOVE -> move_point(tt, 1)
				:: else
				fi;
#if !defined(CLOCK)
				timer_set_arm()
#elif !defined(BUG_SET_ROOM_LATE)
				/* the room was made before the drain; or -ERANGE */
				if
				:: !INWIN(MAX(xv, now)) ->
					retd[tt] = retd[tt] | (1 << sslot)
				:: else -> timer_set_arm()
				fi
#else
				/*
				 * Planted: room made after the drain and the check
				 * of PENDING, as at 4de2718; a fast update in its
				 * door lands after the call.
				 */
				if
				:: !INWIN(MAX(xv, now)) ->
					s_fin = 0;
					room_begin(xv, 1)
				:: else -> timer_set_arm()
				fi
#endif
			:: OP_SETS(op) && (shut[tt] || !MOVE_ARMED(tt)) ->
				/* tq_timer_refuse(): -ESHUTDOWN, or -ENOENT */
				if
				:: op == OP_MOVE -> move_point(tt, 0)
				:: else
				fi;
				retd[tt] = retd[tt] | (1 << sslot)
			:: op >= OP_DELETE ->
				/* tq_disarm(): off the due list, or the queue */
#ifdef CLOCK
#ifndef BUG_STORE_DELETE_OPEN
				EXP_CLOSE(tt);
#endif
				if
				:: due[tt] -> due[tt] = 0
				:: else -> q_delete(tt, q_ret); q_ret = 0
				fi;
#else
				q_delete(tt, q_ret);
				q_ret = 0;
#endif
				if
#ifdef CLOCK
				/* tq_sync(): its callback, else PENDING */
				:: op >= OP_DSYNC && running == tt ->
					s_wait = W_RUN
#ifndef BUG_SYNC_NO_WAIT
				:: op >= OP_DSYNC && running != tt && pending[tt] ->
					wait_request()
#endif
#elif !defined(BUG_SYNC_NO_WAIT)
				:: op >= OP_DSYNC && pending[tt] -> wait_request()
#endif
				:: else
				fi;
				/*
				 * It takes effect in the pass that returns: a
				 * request held elsewhere may land between two.
				 */
				if
				:: s_wait == 0 && !s_more ->
					inplace_point(tt, sslot, sprec, 0);
					retd[tt] = retd[tt] | (1 << sslot)
				:: else
				fi
			fi
		fi
	:: op == OP_INSERT || op == OP_UPDATE -> tq_arm(PLAIN, xv)
	:: op == OP_NDELETE ->
		q_delete(PLAIN, q_ret);
		assert(q_ret == R_APPLIED);
		q_ret = 0
	:: op == OP_DELMIN || op == OP_DLT ->
		/* an expiry, if it takes a timer: no request */
		if
		:: op == OP_DELMIN && min == NIL
		:: op == OP_DELMIN && min != NIL ->
			q_del_less_than(mintime + 1, 1, tm, 0);
			tm = 0
		:: op == OP_DLT ->
			q_del_less_than(xv, TQ_HOLD, tm, 0);
			s_more = (tm > 0 || now < xv);
			tm = 0
		fi
	:: op == OP_FIRST -> first_ok()
	fi
}

/*
 * tq_timer_begin()'s end: shutdown_sync() marks the timer, and a timer
 * call takes the hand-off list (llist_del_all(), llist_reverse_order():
 * oldest first). A timer call is ordered against the hand-offs here:
 * those that returned before it are older (sprec).
 */
inline slow_start()
{
	if
	:: op == OP_SHUTDOWN -> TOUCH(tt); shut[tt] = 1
	:: else
	fi;
	/* smp_mb__after_atomic(); */
	if
	:: op <= OP_SHUTDOWN ->
		sprec = (op == OP_WORK -> 0 : retd[tt] | INITBIT);
		d_n = llen;
		d_0 = ll[0];
		d_1 = ll[1];
		if
		:: d_n > 0 -> TOUCH(d_0); onll[d_0] = 0; indrain[d_0] = 1
		:: else
		fi;
		if
		:: d_n > 1 -> TOUCH(d_1); onll[d_1] = 0; indrain[d_1] = 1
		:: else
		fi;
		llen = 0;
		ll[0] = 0;
		ll[1] = 0
	:: else
	fi;
	ph = PH_DRAIN
}

/* The call has returned. */
inline slow_done()
{
	ph = PH_POST;
	ph_fin = 0;
	sprec = 0;
	if
	:: op == OP_SHUTDOWN -> retired[tt] = 1
	:: else
	fi
}

/*
 * tq_timer_end(): on a base's queue tq_clock_changed(), then unlock; then
 * a wait and the call again, the call again (s_more), the work's expiry,
 * or the return.
 */
inline slow_end()
{
#ifdef CLOCK
	clock_arm(0);
#endif
	tq_release();
	if
	:: s_wait != 0 -> ph = PH_WAIT
	:: s_wait == 0 && s_more -> s_more = 0; ph = PH_LOCK; ph_fin = FIN_START
#ifdef CLOCK
	/* tq_clock_expire(): the turns of tq_clock_run(), each from tq_lock() */
	:: s_wait == 0 && !s_more && op == OP_WORK -> ph = PH_LOCK; ph_fin = FIN_EXP
#endif
	:: else -> slow_done()
	fi
}

/*
 * tq_finish() and what follows it, in the same step: steps of pending
 * work, each hold with its budget; work left means a door (unlock, and
 * lock again). With none left, on to ph_fin.
 */
inline slow_finish()
{
	do
	:: tq_step();
	   if
	   :: pend != P_NONE -> tq_release(); ph = PH_LOCK; break
	   :: else
	   fi;
	   if
#ifdef CLOCK
	   :: ph_fin == FIN_START || ph_fin == FIN_EXP ->
		/* tq_clock_catch_up(), then tq_finish() */
		r_target = MIN(tick, mintime);
		q_del_less_than(r_target, 0, tm, 0);
		r_target = 0;
		tm = 0;
		ph_fin = (ph_fin == FIN_START -> FIN_CAUGHT : FIN_EXP_CAUGHT)
#ifndef BUG_SET_ROOM_LATE
	   /* tq_slow_begin_drained(): room for the time, then the drain */
	   :: ph_fin == FIN_CAUGHT && OP_SETS(op) && !INWIN(MAX(xv, now)) ->
		room_begin(xv, 1);
		break
	   :: ph_fin == FIN_CAUGHT && !(OP_SETS(op) && !INWIN(MAX(xv, now))) ->
		slow_start();
		break
#else
	   :: ph_fin == FIN_CAUGHT -> slow_start(); break
#endif
	   :: ph_fin == FIN_EXP_CAUGHT -> expire_take()
	   :: ph_fin == FIN_TAKEN ->
#ifdef BUG_RUNNING_LATE
		/* Planted (defect 1): published after tq_finish()'s doors. */
		running = e_n;
#endif
		tq_release();
		ph = PH_CALLBACK;
		break
	   :: ph_fin == FIN_ROOM -> ph = PH_ROOM; break
	   :: ph_fin == FIN_REFILED ->
		tq_release();
		ph = PH_LOCK;
		ph_fin = FIN_EXP;
		break
#else
	   :: ph_fin == FIN_START -> slow_start(); break
#endif
	   :: ph_fin == FIN_DRAIN || ph_fin == FIN_RELOCK -> ph = PH_DRAIN; break
	   :: ph_fin == FIN_END -> slow_end(); break
	   fi
	od
}

/* The slow process's steps; its loop runs one per iteration. */
inline slow_step()
{
	if
	:: ph == PH_FAR ->
		/* spin_lock_bh(&bucket_lock) */
		bl = me;
		ph = PH_FAR_A
	:: ph == PH_FAR_A ->
		far_ok_a(PLAIN, op == OP_NDELETE);
		ph = PH_FAR_B
	:: ph == PH_FAR_B ->
		if
		:: fok == 2 -> far_ok_b(PLAIN, xv, op == OP_NDELETE)
		:: else
		fi;
		if
		:: fok -> q_far_op(PLAIN, xv, op == OP_NDELETE); ph = PH_POST
		:: else -> ph = PH_LOCK; ph_fin = FIN_START
		fi;
		fok = 0;
#ifdef BUG_SETTLE_NULL_FIRST
		if
		:: ph == PH_POST -> ph = PH_FAR_C
		:: else -> bl = 0; check_quiet()
		fi
	:: ph == PH_FAR_C -> q_far_old_read(PLAIN, op == OP_NDELETE); ph = PH_FAR_D
	:: ph == PH_FAR_D ->
		q_far_old_min(PLAIN);
		bl = 0;
		check_quiet();
		ph = PH_POST
#else
		bl = 0;
		check_quiet()
#endif
	:: ph == PH_LOCK ->
		assert(h2l == 0);
		hl = me;
		h2l = me;
		ph = PH_LOCK_BL
	:: ph == PH_LOCK_BL ->
		bl = me;
		budget = TQ_HOLD;
#ifdef CLOCK
		/* tq_clock_run(): WRITE_ONCE(base->running, NULL) */
		if
		:: ph_fin == FIN_EXP -> running = NIL
		:: else
		fi;
		/*
		 * The arm of BUG_SET_ROOM_LATE takes effect in the hold after
		 * this door: the requests that returned before it are older.
		 */
		if
		:: ph_fin == FIN_ROOM && r_set -> sprec = retd[tt] | INITBIT
		:: else
		fi;
#endif
#ifndef BUG_RELOCK_NO_FINISH
		s_fin = 1
#else
		/* Planted (defect 3): relocked, the drain applies at once. */
		if
		:: ph_fin == FIN_RELOCK -> ph = PH_DRAIN
		:: else -> s_fin = 1
		fi
#endif
	:: ph == PH_DRAIN && d_i < d_n && budget == 0 ->
		/* tq_relock(): a door; the requests not applied keep PENDING */
		tq_release();
		ph = PH_LOCK;
		ph_fin = FIN_RELOCK
	:: ph == PH_DRAIN && d_i < d_n && budget > 0 ->
		d_t = (d_i == 0 -> d_0 : d_1);
		d_i++;
		TOUCH(d_t);
		budget--;
#ifndef BUG_DRAIN_EARLY_READ
		/* the expires word closed; clear_bit(PENDING); smp_mb(); */
		DRAIN_CLOSE(d_t);
		pending[d_t] = 0;
		ph = PH_APPLY
#else
		/* Planted: ->want read first, as a CPU may without the barrier. */
		d_w = want[d_t];
		d_wid = want_id[d_t];
		ph = PH_CLEAR
	:: ph == PH_CLEAR ->
		TOUCH(d_t);
		DRAIN_CLOSE(d_t);
		pending[d_t] = 0;
		ph = PH_APPLY
#endif
	:: ph == PH_APPLY ->
		/* atomic64_read(&timer->want), SHUTDOWN; tq_arm(); tq_finish() */
#ifndef BUG_DRAIN_EARLY_READ
		drain_apply(d_t, want[d_t], want_id[d_t]);
#else
		drain_apply(d_t, d_w, d_wid);
		d_w = 0;
		d_wid = 0;
#endif
		if
		:: ph == PH_APPLY -> d_t = 0; ph_fin = FIN_DRAIN; s_fin = 1
		:: else
		fi
	:: ph == PH_DRAIN && d_i >= d_n ->
		d_n = 0;
		d_0 = 0;
		d_1 = 0;
		d_i = 0;
		slow_body()
	:: ph == PH_WAIT ->
		/* woken, the condition true: the call again */
		s_wait = 0;
		ph = PH_LOCK;
		ph_fin = FIN_START
#ifdef CLOCK
	:: ph == PH_RETAKE ->
		TOUCH(d_t);
#ifndef BUG_APPLY_NO_RETAKE
		/*
		 * test_and_set_bit(PENDING): a fast update in the door joins
		 * this request. Taken already: a new request carries the
		 * latest time, and this one is done.
		 */
		if
		:: pending[d_t] ->
			indrain[d_t] = 0;
			d_t = 0;
			r_w = 0;
			r_wid = 0;
			ph_fin = FIN_DRAIN;
			s_fin = 1
		:: else ->
			pending[d_t] = 1;
			RETAKE_MARK(d_t);
			room_begin(r_w, 0)
		fi
#else
		/* Planted: PENDING left clear across the door. */
		room_begin(r_w, 0)
#endif
	:: ph == PH_ROOM && now >= r_target -> room_done()
	:: ph == PH_ROOM && now < r_target && budget == 0 ->
		/* tq_relock(): a door */
		tq_release();
		ph = PH_LOCK;
		ph_fin = FIN_ROOM
	:: ph == PH_ROOM && now < r_target && budget > 0 ->
		/* a batch of due timers onto the due list, then tq_finish() */
		q_del_less_than(r_target, NODES, tm, 1);
		tm = 0;
		ph_fin = FIN_ROOM;
		s_fin = 1
	:: ph == PH_RECLEAR ->
		/* clear_bit(PENDING), and ->want read again */
		TOUCH(d_t);
		DRAIN_CLOSE(d_t);
		pending[d_t] = 0;
		r_w = 0;
		r_wid = 0;
		ph = PH_APPLY
	:: ph == PH_CALLBACK ->
		/* tq_clock_late() and the callback read the timer */
		TOUCH(e_n);
		e_n = 0;
		ph = PH_LOCK;
		ph_fin = FIN_EXP
#endif
#ifdef CLOCK
	:: ph == PH_STORE_A ->
		/* timeq_timer_move(): the store first, as F_STORE_A */
		TOUCH(tt);
		if
		:: STORE_READ_OK(tt, xv) -> s_exp = exps[tt]; ph = PH_STORE_B
		:: else -> ph = PH_LOCK
		fi
	:: ph == PH_STORE_B ->
		TOUCH(tt);
		if
		:: STORE_CAS_OK(tt, s_exp) ->
			/* returns 0: in effect at the compare-and-exchange */
			exps[tt] = xv;
			eopen[tt] = 1;
			ehand[tt] = 0;
			sprec = retd[tt] | INITBIT;
			inplace_point(tt, sslot, sprec, 1);
			retd[tt] = retd[tt] | (1 << sslot);
			s_exp = 0;
			slow_done()
		:: else -> s_exp = 0; ph = PH_LOCK
		fi
#endif
#ifdef BUG_MIN_UNLOCKED
	:: ph == PH_FIRST ->
		/* Planted (defect 6): timeq_min(), under no lock. */
		first_ok();
		ph = PH_POST
#endif
	fi;
	/* then tq_finish(), in the same step */
	if
	:: s_fin -> s_fin = 0; slow_finish()
	:: else
	fi
}

/* --- the fast path --- */

/*
 * Where a fast update is (fph): every step is one atomic block, guarded
 * by its phase, so the process's local bookkeeping is no interleaving
 * point of its own.
 */
#define F_IDLE		0	/* between calls */
#define F_LOCK		1	/* tq_try_near(), tq_try_cross(): head locks */
#define F_LOCK_BL	2	/* tq_try_cross(): bucket_lock */
#define F_BODY		3	/* tq_fast_near(), tq_fast_cross() */
#define F_FAR		4	/* tq_try_far(): bucket_lock */
#define F_FAR_A		5	/* tq_fast_far(): the checks, a racy read */
#define F_FAR_B		6	/* the other racy read, the update */
#define F_HAND		7	/* tq_handoff(): SHUTDOWN, ->want */
#define F_TAS		8	/* test_and_set_bit(PENDING) */
#define F_RECHECK	9	/* SHUTDOWN again */
#define F_REWRITE	10	/* ->want again, PENDING being ours */
#define F_PUSH		11	/* llist_add() */
#define F_MIN		12	/* timeq_fast_min(): head_lock */
#define F_MIN_READ	13	/* its read */
#define F_UPDATE	14	/* tq_fast_near(): the update, after the trylock */
#define F_SETTLE	15	/* BUG_SETTLE_NULL_FIRST: the rest of tq_settle() */
#define F_FAR_C		16	/* BUG_SETTLE_NULL_FIRST: the far read of @min */
#define F_FAR_D		17	/* BUG_SETTLE_NULL_FIRST: the far write of @min */
#define F_STORE_A	18	/* tq_timer_store(): PENDING, the word, the owner;
				 * INLINE_STORE: timeq_timer_store(), the word */
#define F_STORE_B	19	/* its compare-and-exchange */
#define F_BEGIN		20	/* INLINE_STORE: timeq_fast_update(), the store false */
#define F_STORE_C	21	/* INLINE_STORE: its own tq_timer_store(), as F_STORE_A */
#define F_STORE_D	22	/* its compare-and-exchange, as F_STORE_B */

#define FAST_LOCALS	byte fph, k, t, x, ret, slot, mprec, lane, f_len, f_mt, \
			f_exp; \
			bit f_pend, old

#ifdef CLOCK
/*
 * tq_window() in a lane, after tq_fast_check(): a time beyond the window
 * of the queue's clock is judged by CLOCK_MONOTONIC, and only the slow
 * side can make room for it.
 */
#define FAST_WINDOW	if \
			:: ret == R_APPLIED && x >= now + HZ -> \
				ret = (x < tick + HZ -> R_EAGAIN : R_ERANGE) \
			:: else \
			fi
#else
#define FAST_WINDOW	skip
#endif

#ifdef KICK
/* irq_work_queue(&base->kick) */
#define KICK_QUEUE	kickq = 1
/* tq_fast_changed(): the minimum moved earlier than @f_mt */
#define FAST_CHANGED	if \
			:: mintime < f_mt -> kickq = 1 \
			:: else \
			fi
#else
#define KICK_QUEUE	skip
#define FAST_CHANGED	skip
#endif


/*
 * The first step of a fast update of timer @bt: the caller reads the
 * clock and picks a time up to the horizon; timeq_fast_update() reads
 * PENDING and guesses its lane (tq_fast_lane()) from racy reads of the
 * owner word, @now and the focus, taken together. No lane trusts its
 * guess: each checks it under its locks. With INLINE_STORE the caller
 * calls timeq_timer_store() first (F_STORE_A), and timeq_fast_update()
 * only if that answers false: its reads are then a step of their own
 * (F_BEGIN).
 */
inline fast_begin(bt)
{
	t = bt;
	TOUCH(t);
	busy[t]++;
#ifndef INLINE_STORE
	PICK_FAST_X(x);
	mprec = retd[t] | INITBIT;
	f_pend = pending[t];
	if
	:: own[t] != O_NONE && ISFAR(t) ->
		lane = (x >= now + 2 -> L_FAR : L_CROSS)
	:: else ->
		lane = (x >= now + 2 -> L_CROSS : L_NEAR)
	fi
#else
	PICK_FAST_X(x)
#endif
}

/* tq_fast_check(), under the lane's locks; R_APPLIED means go on. */
inline tq_fast_check()
{
	TOUCH(t);
	if
	:: shut[t] -> ret = R_ESHUTDOWN
	:: else ->
#ifndef BUG_NO_PENDING_RECHECK
		ret = (pending[t] -> R_EAGAIN : R_APPLIED)
#else
		/* Planted: PENDING is only tested before the locks. */
		ret = R_APPLIED
#endif
	fi;
#ifdef CLOCK
	/* on the due list: its link is in use, the slow side re-arms it */
	if
	:: ret == R_APPLIED && due[t] -> ret = R_EAGAIN
	:: else
	fi
#endif
}

/* tq_fast_length() for the move of timer t to tm */
inline tq_fast_length()
{
	if
	:: own[t] == O_NONE -> f_len = F_SHORT
	:: else ->
		if
		:: min == t && tm >= now + 2 -> f_len = F_LONG
		:: else ->
			if
			:: ISHEAD(t) && ACNT(hd) == 1 && tm >= now + 1 ->
				f_len = F_CHECK_NEXT
			:: else -> f_len = F_SHORT
			fi
		fi
	fi
}

#ifndef BUG_NEAR_NO_REGION_CHECK
#define NEAR_IS_FAR	ISFAR(t)
#else
/* Planted: the paper's race, the region not re-checked under the locks. */
#define NEAR_IS_FAR	false
#endif

/*
 * tq_fast_near() with head_lock and head2_lock held, or tq_fast_cross()
 * with all three: the request's critical section, where it takes effect.
 */
inline tq_fast_locked()
{
	f_mt = mintime;
	tq_fast_check();
	FAST_WINDOW;
	if
	:: ret == R_APPLIED ->
		tm = MAX(x, now);
		if
		:: lane == L_NEAR ->
			if
			:: pend == P_PULL_NEXT || pend == P_PULL_HEAD ||
			   tm > now + 1 -> ret = R_EAGAIN
			:: else ->
				if
				:: own[t] != O_NONE && (NEAR_IS_FAR || pend != P_NONE) ->
					ret = R_EAGAIN
				:: else
				fi
			fi
		:: else ->
			if
			:: pend != P_NONE -> ret = R_EAGAIN
			:: else
			fi
		fi
	:: else
	fi;
	if
	:: ret == R_APPLIED ->
		tq_fast_length();
		if
		:: f_len == F_LONG -> ret = R_EAGAIN
		/*
		 * The near lane tries bucket_lock: tq_try_next_in_calendar()
		 * takes it, reads, and drops it before the update, which is
		 * its next step (F_UPDATE).
		 */
		:: f_len == F_CHECK_NEXT &&
		   (BCNT(now + 1) > 0 || (lane == L_NEAR && bl != 0)) ->
			ret = R_EAGAIN
		:: else
		fi
	:: else
	fi
}

/*
 * The update or insert in place, where the request takes effect; mprec,
 * the requests older than it, was read when its checks passed under the
 * lane's locks.
 */
inline tq_fast_apply()
{
#ifdef BUG_SETTLE_NULL_FIRST
	q_split = (lane == L_NEAR);
#endif
	if
	:: own[t] != O_NONE -> q_update(t, tm, q_ret)
	:: else -> q_insert(t, tm, q_ret)
	fi;
	assert(q_ret == R_APPLIED);
	q_ret = 0;
	EXP_OPEN(t);
	inplace_point(t, slot, mprec, tm + 1);
	retd[t] = retd[t] | (1 << slot);
	FAST_CHANGED;
	f_mt = 0
}

/*
 * The call returns: the owner's count of running fast updates, and the
 * request's ghost; the locals are cleared. Part of the call's last step.
 */
inline fast_ret()
{
	busy[t]--;
	if
	:: ret == R_DEFERRED ->
		retd[t] = retd[t] | (1 << slot);
		effprec[t] = effprec[t] | prec[slot]
	:: ret == R_ESHUTDOWN || ret == R_ERANGE ->
		retd[t] = retd[t] | (1 << slot)
	:: else
	fi;
	t = 0;
	x = 0;
	tm = 0;
	mprec = 0;
	lane = 0;
	f_len = 0;
	old = 0;
	f_pend = 0;
	ret = 0;
	slot = 0;
	fph = F_IDLE
}

/* The far lane's lock dropped: the call returns, or hands it off. */
inline fast_far_end()
{
	if
	:: ret == R_EAGAIN -> fph = F_HAND
	:: else -> fast_ret()
	fi
}

/* After the update: BUG_SETTLE_NULL_FIRST's settle may have a step left. */
inline fast_applied()
{
#ifdef BUG_SETTLE_NULL_FIRST
	if
	:: q_split == 2 -> fph = F_SETTLE
	:: else -> fast_body_end()
	fi;
	q_split = 0
#else
	fast_body_end()
#endif
}

/* A lane's locks dropped: the call returns, or hands the update off. */
inline fast_body_end()
{
	if
	:: lane == L_CROSS -> bl = 0
	:: else
	fi;
	h2l = 0;
	hl = 0;
	check_quiet();
	if
	:: ret == R_EAGAIN -> fph = F_HAND
	:: else -> fast_ret()
	fi
}

/* The first lock step of the lane guessed (fast_begin(), F_BEGIN). */
#define LANE_PHASE	(lane == L_FAR -> F_FAR : F_LOCK)
#if defined(INLINE_STORE) && !defined(CLOCK)
#error "INLINE_STORE is a store on a base's queue: it needs CLOCK"
#elif defined(CLOCK) && defined(INLINE_STORE)
/*
 * The caller's timeq_timer_store() is tried first, whatever PENDING is;
 * when it answers false, timeq_fast_update() begins (F_BEGIN).
 */
#define FIRST_PHASE	F_STORE_A
#define STORE_FALSE	F_BEGIN
#elif defined(CLOCK)
/*
 * On a base's queue a store (tq_timer_store()) is tried once PENDING is
 * found clear, and the lane when it does not land.
 */
#define FIRST_PHASE	(f_pend -> F_HAND : F_STORE_A)
#define STORE_FALSE	LANE_PHASE
#else
#define FIRST_PHASE	(f_pend -> F_HAND : LANE_PHASE)
#endif

#ifdef CLOCK
/*
 * A store's compare-and-exchange landed (F_STORE_B, F_STORE_D): timer @t
 * expires at @x, its word open and unmarked, and the request took effect
 * in place.
 */
inline store_landed()
{
	exps[t] = x;
	eopen[t] = 1;
	ehand[t] = 0;
	/* the critical section: the request is newer than these */
	mprec = retd[t] | INITBIT;
	inplace_point(t, slot, mprec, 1);
	retd[t] = retd[t] | (1 << slot);
	ret = R_APPLIED;
	f_exp = 0;
	fast_ret()
}
#endif

/* A fast update's steps; the process's loop runs one per iteration. */
inline fast_step()
{
	if
	:: fph == F_LOCK ->
		if
		:: hl == 0 ->
			assert(h2l == 0);
			hl = me;
			h2l = me;
			fph = (lane == L_CROSS -> F_LOCK_BL : F_BODY)
		:: else -> fph = F_HAND
		fi
	:: fph == F_LOCK_BL ->
		if
		:: bl == 0 -> bl = me; fph = F_BODY
		:: else -> h2l = 0; hl = 0; check_quiet(); fph = F_HAND
		fi
	:: fph == F_BODY ->
		tq_fast_locked();
		if
		:: ret == R_APPLIED -> mprec = retd[t] | INITBIT
		:: else
		fi;
		if
		:: ret == R_APPLIED && lane == L_NEAR && f_len == F_CHECK_NEXT ->
			fph = F_UPDATE
		:: ret == R_APPLIED && (lane != L_NEAR || f_len != F_CHECK_NEXT) ->
			tq_fast_apply();
			fast_applied()
		:: ret != R_APPLIED -> f_mt = 0; fast_body_end()
		fi
	:: fph == F_UPDATE ->
		tq_fast_apply();
		fast_applied()
#ifdef BUG_SETTLE_NULL_FIRST
	:: fph == F_SETTLE ->
		/* the rest of the planted tq_settle(): head2's first */
		tq_next_min(q_n);
		tq_set_min(q_n);
		q_n = 0;
		q_far = 0;
		fast_body_end()
#endif
	:: fph == F_FAR ->
		if
		:: bl == 0 -> bl = me; fph = F_FAR_A
		:: else -> fph = F_HAND
		fi
	:: fph == F_FAR_A ->
		tq_fast_check();
		FAST_WINDOW;
		if
		:: ret == R_APPLIED ->
			tm = MAX(x, now);
			/* the critical section: the request is newer than these */
			mprec = retd[t] | INITBIT;
			if
			:: own[t] == O_NONE -> fok = 0
			:: else -> far_ok_a(t, 0)
			fi
		:: else -> fok = 0
		fi;
		fph = F_FAR_B
	:: fph == F_FAR_B ->
		if
		:: fok == 2 -> far_ok_b(t, tm, 0)
		:: else
		fi;
		if
		:: ret == R_APPLIED && fok ->
			/* __timeq_far_update() */
			q_far_op(t, tm, 0);
			EXP_OPEN(t);
			inplace_point(t, slot, mprec, tm + 1);
			retd[t] = retd[t] | (1 << slot)
		:: ret == R_APPLIED && !fok -> ret = R_EAGAIN
		:: else
		fi;
		fok = 0;
#ifdef BUG_SETTLE_NULL_FIRST
		if
		:: ret == R_APPLIED -> fph = F_FAR_C
		:: else -> bl = 0; check_quiet(); fast_far_end()
		fi
	:: fph == F_FAR_C -> q_far_old_read(t, 0); fph = F_FAR_D
	:: fph == F_FAR_D ->
		q_far_old_min(t);
		bl = 0;
		check_quiet();
		fast_far_end()
#else
		bl = 0;
		check_quiet();
		fast_far_end()
#endif
	:: fph == F_HAND ->
		/*
		 * tq_handoff(); mprec is that of timeq_fast_update()'s first
		 * step (fast_begin(), or F_BEGIN), or of the far lane's checks
		 * (F_FAR_A) if tq_far_ok() then refused
		 */
		TOUCH(t);
		if
#ifdef CLOCK
		/* tq_window() from READ_ONCE(q->now), then the clock */
		:: x >= now + HZ && x >= tick + HZ -> ret = R_ERANGE; fast_ret()
		:: (x < now + HZ || x < tick + HZ) && shut[t] ->
			ret = R_ESHUTDOWN; fast_ret()
		:: (x < now + HZ || x < tick + HZ) && !shut[t] ->
#else
		:: shut[t] -> ret = R_ESHUTDOWN; fast_ret()
		:: else ->
#endif
			ret = R_DEFERRED;
			want[t] = x;
			want_id[t] = slot;
			prec[slot] = mprec;
			fph = F_TAS
		fi
	:: fph == F_TAS ->
		TOUCH(t);
		old = pending[t];
		pending[t] = 1;
		if
		:: old -> fast_ret()
		:: else -> fph = F_RECHECK
		fi
	:: fph == F_RECHECK ->
		TOUCH(t);
		if
		:: shut[t] ->
			pending[t] = 0;
			KICK_QUEUE;
			ret = R_ESHUTDOWN;
			fast_ret()
#ifndef BUG_HANDOFF_STALE_WANT
		:: else -> HANDOFF_MARK(t); fph = F_REWRITE
#else
		/* Planted: the request pushed with ->want as it is now. */
		:: else -> HANDOFF_MARK(t); fph = F_PUSH
#endif
		fi
	:: fph == F_REWRITE ->
		/* Ours: ->want again, which a drained request may have left. */
		TOUCH(t);
		want[t] = x;
		want_id[t] = slot;
		fph = F_PUSH
	:: fph == F_PUSH ->
		TOUCH(t);
		assert(!onll[t] && llen < TIMERS);
		ll[llen] = t;
		llen++;
		onll[t] = 1;
		KICK_QUEUE;
		fast_ret()
#ifdef CLOCK
	:: fph == F_STORE_A ->
		/*
		 * Refresh by a store (module/fast.c): PENDING, the expires word,
		 * the owner word and @now, read back to back; with INLINE_STORE,
		 * the word alone (FAST_STORE_READ_OK).
		 */
		TOUCH(t);
		if
#ifndef INLINE_STORE
		:: FAST_STORE_READ_OK(t, x) ->
#else
		:: FAST_STORE_READ_OK(t, x) && FAST_STORE_NOWRITE(t, x) ->
			/* true, and no write: the request is newer than these */
			mprec = retd[t] | INITBIT;
			tm = MAX(x, exps[t]);
			nowrite_point(t, slot, mprec, tm);
			retd[t] = retd[t] | (1 << slot);
			ret = R_APPLIED;
			fast_ret()
		:: FAST_STORE_READ_OK(t, x) && !FAST_STORE_NOWRITE(t, x) ->
#endif
			f_exp = exps[t];
			fph = F_STORE_B
		:: else -> fph = STORE_FALSE
		fi
	:: fph == F_STORE_B ->
		/* atomic64_try_cmpxchg(): the word as read, and still open */
		TOUCH(t);
		if
		:: FAST_STORE_CAS_OK(t, f_exp) -> store_landed()
		:: else -> f_exp = 0; fph = STORE_FALSE
		fi
#endif
#if defined(CLOCK) && defined(INLINE_STORE)
	:: fph == F_BEGIN ->
		/*
		 * timeq_fast_update(), called once timeq_timer_store() answered
		 * false: PENDING, and the lane's guess, as fast_begin() reads
		 * them without INLINE_STORE. The store that answered false
		 * changed nothing, so the request is this call's, and the
		 * requests older than it are those returned before it began:
		 * mprec is read here, not at the store's read.
		 */
		TOUCH(t);
		mprec = retd[t] | INITBIT;
		if
		:: own[t] != O_NONE && ISFAR(t) ->
			lane = (x >= now + 2 -> L_FAR : L_CROSS)
		:: else ->
			lane = (x >= now + 2 -> L_CROSS : L_NEAR)
		fi;
		fph = (pending[t] -> F_HAND : F_STORE_C)
	:: fph == F_STORE_C ->
		/*
		 * Its own store (tq_fast_store()): tq_timer_store()'s reads, as
		 * F_STORE_A's without INLINE_STORE; the lane if it does not land.
		 */
		TOUCH(t);
		if
		:: STORE_READ_OK(t, x) -> f_exp = exps[t]; fph = F_STORE_D
		:: else -> fph = LANE_PHASE
		fi
	:: fph == F_STORE_D ->
		/* its compare-and-exchange, as F_STORE_B's */
		TOUCH(t);
		if
		:: STORE_CAS_OK(t, f_exp) -> store_landed()
		:: else -> f_exp = 0; fph = LANE_PHASE
		fi
#endif
	:: fph == F_MIN ->
		if
		:: hl == 0 -> assert(h2l == 0); hl = me; fph = F_MIN_READ
		:: else -> fph = F_IDLE
		fi
	:: fph == F_MIN_READ ->
		c_code { now.fast_min_ok = tq_fast_min_ok(); };
		assert(fast_min_ok);
		hl = 0;
		check_quiet();
		fph = F_IDLE
	fi
}
