/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module/paths.c: the slow side's locking and calls, the hand-off and its
 * drain, delete_sync/shutdown_sync, and the fast path's three lanes and
 * fast min. Function names are the code's; comments say where the model
 * departs from it.
 *
 * Steps. Each atomic block is one step, in which a process touches only
 * what the locks it holds guard, plus one racy access (a read of a word
 * another process writes without the same lock, an atomic bit operation,
 * an llist operation). What a held lock guards no one else can see or
 * change, so the accesses to it may be moved next to the racy access of
 * the step; that is the usual reduction, and it is why a whole critical
 * section may be one step. Lock acquisitions are steps of their own: a
 * trylock's failure depends on what the others hold at that moment.
 * Where the code reads two racy words back to back and acts on both, the
 * model reads them in one step, but for @min and @min_time on the
 * bucket_lock-only paths, which it reads in two steps in either order (the
 * near lane writes both while such a path runs; on a weakly ordered CPU
 * the reader may see either new value alone).
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

/*
 * tq_lock(): blocking, in the order head_lock, head2_lock, bucket_lock;
 * the first two as one step (see tq_try_locked()).
 */
inline tq_lock()
{
	atomic { hl == 0 -> assert(h2l == 0); hl = me; h2l = me };
	atomic { bl == 0 -> bl = me; budget = TQ_HOLD }
}

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

/* tq_arm(), at a time already clamped to the clock. */
inline tq_arm(amt, amv)
{
	if
	:: own[amt] != O_NONE -> q_update(amt, amv, q_ret)
	:: else -> q_insert(amt, amv, q_ret)
	fi;
	assert(q_ret == R_APPLIED);
	q_ret = 0
}

/* tq_drain(), for one timer: the request in ->want, that @dawid wrote. */
inline drain_apply(dat, daw, dawid)
{
	TOUCH(dat);
	if
	:: !shut[dat] ->
		tm = MAX(daw, now);
		tq_arm(dat, tm);
		drain_point(dat, dawid, tm + 1);
		tm = 0
	:: else
	fi;
	indrain[dat] = 0
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

/* The slow process's calls (op), on timer tt or the plain node, at xv. */
#define OP_WORK		0	/* tq_work(): the work item, draining */
#define OP_ARM		1	/* timeq_timer_arm() */
#define OP_DELETE	2	/* timeq_timer_delete() */
#define OP_DSYNC	3	/* timeq_delete_sync() */
#define OP_SHUTDOWN	4	/* timeq_shutdown_sync() */
#define OP_INSERT	5	/* timeq_insert() of the plain node */
#define OP_UPDATE	6	/* timeq_update() of the plain node */
#define OP_NDELETE	7	/* timeq_delete() of the plain node */
#define OP_DELMIN	8	/* timeq_delete_min() */
#define OP_DLT		9	/* timeq_del_less_than(q, xv, NULL, NULL) */

/*
 * Where the slow process is (ph). Every step is one atomic block guarded
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
#define PH_APPLY	8	/* the request in ->want */
#define PH_POST		9	/* the call has returned; the owner frees */

/* After a step of pending work with nothing left (ph_fin): */
#define FIN_START	1	/* tq_slow_begin() is done: take the hand-offs */
#define FIN_DRAIN	2	/* the drain goes on */
#define FIN_END		3	/* tq_slow_end(): unlock */

#define SLOW_LOCALS	byte op, tt, xv, sslot, sprec, ph, ph_fin, j; \
			byte d_n, d_0, d_1, d_i, d_t, d_w, d_wid; \
			bit s_more, s_fin

/*
 * What each call does under every lock, once the pending work is done and
 * (for a timer call) the hand-offs are applied; s_more: all of it again.
 * The plain node's insert and update are tq_arm() (it is in no queue, or
 * in this one); delete_min is del_less_than(min + 1) with a batch of one,
 * which is __timeq_delete_min() once.
 */
inline slow_body()
{
	if
	:: op == OP_WORK
	:: op >= OP_ARM && op <= OP_SHUTDOWN ->
		TOUCH(tt);
		if
#ifndef BUG_SET_NO_WAIT
		/*
		 * tq_timer_set(), timeq_timer_delete(): PENDING after the
		 * drain is a hand-off in flight between test_and_set_bit() and
		 * llist_add() (or one pushed since): cond_resched(), and the
		 * whole call again.
		 */
		:: (op == OP_ARM || op == OP_DELETE) && pending[tt] ->
			s_more = 1
#endif
		:: else ->
			if
			:: op == OP_ARM && !shut[tt] ->
				/* tq_timer_set() */
				tm = MAX(xv, now);
				tq_arm(tt, tm);
				inplace_point(tt, sslot, sprec, tm + 1);
				tm = 0
			:: op == OP_ARM && shut[tt]
			:: op != OP_ARM ->
				/* timeq_timer_delete(), tq_delete_sync() */
				q_delete(tt, q_ret);
				q_ret = 0;
				inplace_point(tt, sslot, sprec, 0);
#ifndef BUG_SYNC_NO_WAIT
				/* PENDING: a hand-off in flight; cond_resched(), again */
				s_more = (op >= OP_DSYNC && pending[tt])
#else
				/* Planted: a hand-off in flight is not waited for. */
				skip
#endif
			fi;
			retd[tt] = retd[tt] | (1 << sslot)
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
			q_del_less_than(mintime + 1, 1, tm);
			tm = 0
		:: op == OP_DLT ->
			q_del_less_than(xv, TQ_HOLD, tm);
			s_more = (tm > 0 || now < xv);
			tm = 0
		fi
	fi
}

/*
 * tq_slow_begin()'s end: shutdown_sync() marks the timer, and a timer
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

/*
 * A step of pending work (tq_finish()), then on to ph_fin: each hold has
 * its budget; work left means unlock and lock again.
 */
inline slow_finish()
{
	tq_step();
	if
	:: pend != P_NONE -> tq_release(); ph = PH_LOCK
	:: pend == P_NONE && ph_fin == FIN_START -> slow_start()
	:: pend == P_NONE && ph_fin == FIN_DRAIN -> ph = PH_DRAIN
	:: pend == P_NONE && ph_fin == FIN_END ->
		/* tq_slow_end(): unlock; s_more: the call starts again */
		tq_release();
		if
		:: s_more -> s_more = 0; ph = PH_LOCK; ph_fin = FIN_START
		:: else ->
			ph = PH_POST;
			ph_fin = 0;
			sprec = 0;
			if
			:: op == OP_SHUTDOWN -> retired[tt] = 1
			:: else
			fi
		fi
	fi
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
		:: fok && op == OP_NDELETE -> q_delete(PLAIN, q_ret); q_ret = 0;
			ph = PH_POST
		:: fok && op != OP_NDELETE -> tq_arm(PLAIN, xv); ph = PH_POST
		:: else -> ph = PH_LOCK; ph_fin = FIN_START
		fi;
		fok = 0;
		bl = 0;
		check_quiet()
	:: ph == PH_LOCK ->
		assert(h2l == 0);
		hl = me;
		h2l = me;
		ph = PH_LOCK_BL
	:: ph == PH_LOCK_BL ->
		bl = me;
		budget = TQ_HOLD;
		s_fin = 1
	:: ph == PH_DRAIN && d_i < d_n && budget == 0 ->
		tq_release();
		ph = PH_LOCK;
		ph_fin = FIN_DRAIN
	:: ph == PH_DRAIN && d_i < d_n && budget > 0 ->
		d_t = (d_i == 0 -> d_0 : d_1);
		d_i++;
		TOUCH(d_t);
		budget--;
#ifndef BUG_DRAIN_EARLY_READ
		/* clear_bit(PENDING); smp_mb__after_atomic(); */
		pending[d_t] = 0;
		ph = PH_APPLY
#else
		/* Planted: ->want read first, as a CPU may without the barrier. */
		d_w = want[d_t];
		d_wid = want_id[d_t];
		ph = PH_CLEAR
	:: ph == PH_CLEAR ->
		TOUCH(d_t);
		pending[d_t] = 0;
		ph = PH_APPLY
#endif
	:: ph == PH_APPLY ->
		/* READ_ONCE(timer->want); tq_arm(); tq_finish() */
#ifndef BUG_DRAIN_EARLY_READ
		drain_apply(d_t, want[d_t], want_id[d_t]);
#else
		drain_apply(d_t, d_w, d_wid);
		d_w = 0;
		d_wid = 0;
#endif
		d_t = 0;
		ph_fin = FIN_DRAIN;
		s_fin = 1
	:: ph == PH_DRAIN && d_i >= d_n ->
		d_n = 0;
		d_0 = 0;
		d_1 = 0;
		d_i = 0;
		slow_body();
		ph_fin = FIN_END;
		s_fin = 1
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

#define FAST_LOCALS	byte fph, k, t, x, ret, slot, mprec, lane, f_len; \
			bit f_pend, old


/*
 * The first step of a fast update of timer @bt: the caller reads the
 * clock and picks a time up to the horizon; timeq_fast_update() reads
 * PENDING and guesses its lane (tq_fast_lane()) from racy reads of the
 * owner word, @now and the focus, taken together. No lane trusts its
 * guess: each checks it under its locks.
 */
inline fast_begin(bt)
{
	t = bt;
	TOUCH(t);
	busy[t]++;
	PICK_FAST_X(x);
	mprec = retd[t] | INITBIT;
	f_pend = pending[t];
	if
	:: own[t] != O_NONE && ISFAR(t) ->
		lane = (x >= now + 2 -> L_FAR : L_CROSS)
	:: else ->
		lane = (x >= now + 2 -> L_CROSS : L_NEAR)
	fi
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
	fi
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
	tq_fast_check();
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
		/* the near lane tries bucket_lock: tq_try_next_in_calendar() */
		:: f_len == F_CHECK_NEXT &&
		   (BCNT(now + 1) > 0 || (lane == L_NEAR && bl != 0)) ->
			ret = R_EAGAIN
		:: else ->
			if
			:: own[t] != O_NONE -> q_update(t, tm, q_ret)
			:: else -> q_insert(t, tm, q_ret)
			fi;
			assert(q_ret == R_APPLIED);
			q_ret = 0;
			inplace_point(t, slot, retd[t] | INITBIT, tm + 1);
			retd[t] = retd[t] | (1 << slot)
		fi
	:: else
	fi
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
	:: ret == R_ESHUTDOWN -> retd[t] = retd[t] | (1 << slot)
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

/* The first lock step of the lane fast_begin() chose, or the hand-off. */
#define FIRST_PHASE	(f_pend -> F_HAND : (lane == L_FAR -> F_FAR : F_LOCK))

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
	:: fph == F_FAR ->
		if
		:: bl == 0 -> bl = me; fph = F_FAR_A
		:: else -> fph = F_HAND
		fi
	:: fph == F_FAR_A ->
		tq_fast_check();
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
			q_update(t, tm, q_ret);
			assert(q_ret == R_APPLIED);
			q_ret = 0;
			inplace_point(t, slot, mprec, tm + 1);
			retd[t] = retd[t] | (1 << slot)
		:: ret == R_APPLIED && !fok -> ret = R_EAGAIN
		:: else
		fi;
		fok = 0;
		bl = 0;
		check_quiet();
		if
		:: ret == R_EAGAIN -> fph = F_HAND
		:: else -> fast_ret()
		fi
	:: fph == F_HAND ->
		/* tq_handoff(); mprec is that of the call's first step */
		TOUCH(t);
		if
		:: shut[t] -> ret = R_ESHUTDOWN; fast_ret()
		:: else ->
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
		:: shut[t] -> pending[t] = 0; ret = R_ESHUTDOWN; fast_ret()
#ifndef BUG_HANDOFF_STALE_WANT
		:: else -> fph = F_REWRITE
#else
		/* Planted: the request pushed with ->want as it is now. */
		:: else -> fph = F_PUSH
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
		fast_ret()
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
