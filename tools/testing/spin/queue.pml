/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module/queue.c, abstracted: the regions and the work done in steps, not
 * the lists. delta is one tick, so a bucket is one time and a spread array
 * one list; bucket list b is that of bucket b (rel 1 .. M map one to one
 * onto the M lists, so indexing by the bucket number is exact). Counts and
 * bitmaps are derived from the ghost membership bits (state.pml).
 *
 * Every write asserts that its writer holds the lock that guards what it
 * writes (paths.c, "Locks"): a node's list by the lock of the array its
 * tag names, @min and @min_time by head_lock, @now, the roles and @pend
 * by all three. Linking asserts that the node is in no list; unlinking
 * that it is in exactly the list its tag names. These are called inside
 * atomic blocks by a process that holds the locks, so they are one step.
 *
 * Where the code takes "the first node" of a list (FIFO order among equal
 * times), the model takes any node of that list: more behaviours, none
 * fewer. FIFO order itself is queue.c's sequential business, tested by the
 * userspace differential run; it plays no part in the protocol.
 *
 * The callers declare QUEUE_LOCALS.
 */

#define QUEUE_LOCALS	byte q_n, q_far, q_rel, q_moved, q_want, q_tmp, q_ret, \
			q_split

/* Put @n, in no list, in the list of owner word @o. */
inline add_to(an, ao)
{
	assert(mem[an] == 0);		/* no node in two lists */
	assert(OLOCK(ao) == me);		/* the list's lock is held */
	mem[an] = LBIT(ao);
	own[an] = ao;
	if
	:: ao == O_CAL -> BCNT(ntime[an])++; calcnt++
	:: else -> acnt[ao - 2]++
	fi
}

/* tq_link(): the list I2 says, no work pending. Arms nothing shut down. */
inline tq_link(ln)
{
	TOUCH(ln);
	assert(ln >= TIMERS || !shut[ln]);
	if
	:: ntime[ln] == now -> add_to(ln, O_ARR(hd))
	:: ntime[ln] == now + 1 -> add_to(ln, O_ARR(hd2))
	:: ntime[ln] >= now + 2 && ACNT(fo) > 0 && ntime[ln] == fbucket ->
		add_to(ln, O_ARR(fo))
	:: else -> add_to(ln, O_CAL)
	fi
}

/* tq_unlink(): out of the list its tag names; the owner word stays. */
inline tq_unlink(un)
{
	TOUCH(un);
	assert(own[un] != O_NONE);
	assert(mem[un] == LBIT(own[un]));	/* the tag names the node's list */
	assert(OLOCK(own[un]) == me);
	mem[un] = 0;
	if
	:: own[un] == O_CAL -> BCNT(ntime[un])--; calcnt--
	:: else -> acnt[own[un] - 2]--
	fi
}

inline tq_remove(rn)
{
	tq_unlink(rn);
	own[rn] = O_NONE
}

inline tq_set_min(sn)
{
	assert(hl == me);
	min = sn;
	mintime = (sn == NIL -> NOTIME : ntime[sn])
}

/* @pend and the roles change under all three locks. */
inline set_pend(pv)
{
	if
	:: pend != pv -> assert(ALL_HELD); pend = pv
	:: else
	fi
}

inline swap_roles(ra, rb)
{
	assert(ALL_HELD);
	q_tmp = ra;
	ra = rb;
	rb = q_tmp
}

/* Any node of spread array @a, which holds one; "the first" in the code. */
inline first_of(fa, fres)
{
	assert(ACNT(fa) > 0);
	if
	:: INARR(0, fa) -> fres = 0
	:: INARR(1, fa) -> fres = 1
	:: INARR(2, fa) -> fres = 2
	fi
}

/* Any node of bucket list @b, which holds one. */
inline any_in_bucket(bb, bres)
{
	assert(BCNT(bb) > 0);
	if
	:: INCAL(0, bb) -> bres = 0
	:: INCAL(1, bb) -> bres = 1
	:: INCAL(2, bb) -> bres = 2
	fi
}

/* tq_next_bucket(q, 2): the least rel >= 2 whose bucket list holds nodes. */
inline next_bucket(nres)
{
	if
	:: BCNT(now + 2) > 0 -> nres = 2
	:: else ->
		if
		:: BCNT(now + 3) > 0 -> nres = 3
		:: else -> nres = 0
		fi
	fi
}

/*
 * tq_next_min(): the next minimum into @nres, or NIL with the pending work
 * that finds it recorded.
 */
inline tq_next_min(nres)
{
	if
	:: ACNT(hd) > 0 -> first_of(hd, nres)
	:: else ->
		if
		:: BCNT(now + 1) > 0 -> set_pend(P_PULL_NEXT); nres = NIL
		:: else ->
			if
			:: ACNT(hd2) > 0 -> first_of(hd2, nres)
			:: else ->
				if
				:: CALCNT == 0 && ACNT(fo) == 0 -> nres = NIL
				:: else ->
					next_bucket(q_far);
					if
					:: ACNT(fo) > 0 &&
					   (q_far == 0 || fbucket - now < q_far) ->
						first_of(fo, nres)
					:: else ->
						pbucket = now + q_far;
						nres = NIL;
						if
						/*
						 * bucket_sorted: with delta = 1 every
						 * list is in time order and the code
						 * takes its first node; the model also
						 * lets the bit be clear, so that the
						 * far work below is still explored.
						 */
						:: any_in_bucket(pbucket, nres)
						:: BCNT(pbucket) <= TQ_WALK ->
							set_pend(P_WALK)
						:: BCNT(pbucket) > TQ_WALK ->
							if
							:: ACNT(fo) > 0 -> set_pend(P_EVICT)
							:: else -> set_pend(P_RESOLVE)
							fi
						fi
					fi
				fi
			fi
		fi
	fi
}

/*
 * tq_settle(): the next minimum, or the pending work that finds it,
 * written to @min once. The near lane settles under head_lock and
 * head2_lock only, while a bucket_lock holder may read @min: it must
 * never see a NULL that stands for "not found yet".
 */
inline tq_settle()
{
	set_pend(P_NONE);
#ifndef BUG_SETTLE_NULL_FIRST
	tq_next_min(q_n);
	tq_set_min(q_n);
#else
	/*
	 * Planted (defect 2): NULL published first, then the search; the
	 * near lane (q_split) does the rest in its next step, as another
	 * CPU may see it.
	 */
	if
	:: ACNT(hd) == 0 -> tq_set_min(NIL)
	:: else
	fi;
	if
	:: q_split && ACNT(hd) == 0 -> q_split = 2
	:: else -> tq_next_min(q_n); tq_set_min(q_n)
	fi;
#endif
	q_n = 0;
	q_far = 0
}

/* tq_advance(): the clock to @t, the roles with it. */
inline tq_advance(at)
{
	assert(ALL_HELD);
	q_rel = at - now;
	now = at;
	if
	:: q_rel == 0
	:: else ->
		if
		:: q_rel == 1 -> swap_roles(hd, hd2)
		:: else ->
			if
			:: ACNT(fo) > 0 && fbucket == now -> swap_roles(hd, fo)
			:: else ->
				if
				:: BCNT(now) > 0 -> set_pend(P_PULL_HEAD)
				:: else
				fi
			fi
		fi;
		if
		:: ACNT(fo) > 0 && fbucket == now + 1 -> swap_roles(hd2, fo)
		:: else
		fi
	fi;
	q_rel = 0
}

/* tq_pull(): up to @max nodes of bucket list @b into spread array @a. */
inline tq_pull(pa, pb, pmax)
{
	q_moved = 0;
	do
	:: q_moved < pmax && BCNT(pb) > 0 ->
		any_in_bucket(pb, q_n);
		assert(own[q_n] == O_CAL && mem[q_n] == 1);
		assert(bl == me && ALOCK(pa) == me);
		TOUCH(q_n);
		mem[q_n] = LBIT(O_ARR(pa));
		own[q_n] = O_ARR(pa);
		BCNT(pb)--;
		calcnt--;
		acnt[pa]++;
		q_moved++
	:: else -> break
	od;
	q_n = 0
}

/* tq_pull_share(): the deamortisation, ceil(B' / share) into head2. */
inline tq_pull_share(share)
{
	if
	:: BCNT(now + 1) == 0 || (share) == 0
	:: else ->
		q_want = MIN((BCNT(now + 1) + (share) - 1) / (share), TQ_STEP);
		q_want = MIN(q_want, budget);
		tq_pull(hd2, now + 1, q_want);
		budget = budget - q_moved;
		q_want = 0;
		q_moved = 0
	fi
}

/* tq_step_walk(): the earliest node of a short far list is the minimum. */
inline tq_step_walk()
{
	any_in_bucket(pbucket, q_ret);
	budget = budget - BCNT(pbucket);
	set_pend(P_NONE);
	if
	:: ACNT(hd) > 0 || ACNT(hd2) > 0 -> tq_settle()
	:: else -> tq_set_min(q_ret)
	fi;
	q_ret = 0
}

/* tq_step_evict(): focus nodes back to their bucket list, a step. */
inline tq_step_evict()
{
	q_moved = 0;
	do
	:: ACNT(fo) > 0 && q_moved < TQ_STEP && q_moved < budget ->
		first_of(fo, q_n);
		assert(ntime[q_n] == fbucket);
		assert(own[q_n] == O_ARR(fo) && bl == me);
		TOUCH(q_n);
		mem[q_n] = 1;
		own[q_n] = O_CAL;
		acnt[fo]--;
		BCNT(fbucket)++;
		calcnt++;
		q_moved++
	:: else -> break
	od;
	budget = budget - q_moved;
	q_moved = 0;
	q_n = 0
}

/*
 * __timeq_step(), to the end of the budget; the caller tests @pend. The
 * three pulls share one expansion (so does the model's code size).
 */
inline tq_step()
{
	assert(ALL_HELD);
	do
	:: pend != P_NONE && budget > 0 ->
		if
		:: pend == P_WALK ->
			if
			:: budget < BCNT(pbucket) -> break
			:: else -> tq_step_walk()
			fi
		:: pend == P_EVICT ->
			tq_step_evict();
			if
			:: ACNT(fo) == 0 -> set_pend(P_RESOLVE)
			:: else -> break
			fi
		:: else ->
			/* PULL_NEXT, PULL_HEAD, RESOLVE: tq_step_pull() */
			if
			:: pend == P_PULL_NEXT -> q_far = hd2; q_rel = now + 1
			:: pend == P_PULL_HEAD -> q_far = hd; q_rel = now
			:: pend == P_RESOLVE -> q_far = fo; q_rel = pbucket;
				fbucket = pbucket
			fi;
			q_want = MIN(budget, TQ_STEP);
			tq_pull(q_far, q_rel, q_want);
			budget = budget - q_moved;
			q_tmp = BCNT(q_rel);
			q_far = 0;
			q_rel = 0;
			if
			:: q_tmp == 0 -> tq_settle()
			:: else -> q_tmp = 0; break
			fi
		fi
	:: else -> break
	od;
	q_moved = 0;
	q_want = 0;
	q_tmp = 0
}

/* __timeq_insert() */
inline q_insert(in_n, in_t, in_r)
{
	TOUCH(in_n);
	if
	:: own[in_n] != O_NONE -> in_r = R_EBUSY
	:: else ->
		if
		:: !INWIN(in_t) -> in_r = R_ERANGE
		:: else ->
			ntime[in_n] = in_t;
			tq_link(in_n);
			if
			:: min == NIL || in_t < mintime -> tq_set_min(in_n)
			:: else
			fi;
			in_r = R_APPLIED
		fi
	fi
}

/* __timeq_delete() */
inline q_delete(dn, dr)
{
	TOUCH(dn);
	if
	:: own[dn] == O_NONE -> dr = R_ENOENT
	:: else ->
		tq_remove(dn);
		if
		:: min == dn -> tq_settle()
		:: else
		fi;
		dr = R_APPLIED
	fi
}

/* __timeq_update() */
inline q_update(upn, upt, upr)
{
	TOUCH(upn);
	if
	:: own[upn] == O_NONE -> upr = R_ENOENT
	:: else ->
		if
		:: !INWIN(upt) -> upr = R_ERANGE
		:: else ->
			tq_unlink(upn);
			ntime[upn] = upt;
			tq_link(upn);
			if
			:: min == upn -> tq_settle()
			:: else ->
				if
				:: min == NIL || upt < mintime -> tq_set_min(upn)
				:: else
				fi
			fi;
			upr = R_APPLIED
		fi
	fi
}

/*
 * __timeq_far_insert(), __timeq_far_update(), __timeq_far_delete(): for
 * a bucket_lock holder that tq_far_ok() let through, so far to far and
 * no earlier than the minimum; they neither read nor write @min.
 */
inline q_far_op(fon, fot, fodel)
{
	TOUCH(fon);
	if
	:: fodel -> tq_remove(fon)
	:: else ->
		if
		:: own[fon] != O_NONE -> tq_unlink(fon)
		:: else
		fi;
		assert(INWIN(fot));
		ntime[fon] = fot;
		tq_link(fon)
	fi
}

/*
 * BUG_SETTLE_NULL_FIRST's far operations, as the code was: they read
 * @min and @min_time again, without head_lock, and took the node for the
 * minimum if it was NULL or later (two steps: the read, then the write).
 */
inline q_far_old_read(frn, frdel)
{
	q_split = (!frdel && (min == NIL || ntime[frn] < mintime))
}

inline q_far_old_min(fmn)
{
	if
	:: q_split -> min = fmn; mintime = ntime[fmn]
	:: else
	fi;
	q_split = 0
}

/* __timeq_delete_min(): @res is the node removed, or NIL. */
inline q_delete_min(dmres)
{
	dmres = min;
	if
	:: dmres == NIL
	:: else ->
		tq_remove(dmres);
		if
		:: budget > 0 -> budget--
		:: else
		fi;
		tq_advance(ntime[dmres]);
		if
		:: pend == P_NONE -> tq_pull_share(ACNT(hd))
		:: else
		fi;
		if
		:: pend == P_NONE -> tq_settle()
#ifndef BUG_STALE_MIN
		/* PULL_HEAD: no minimum until the pull settles one */
		:: else -> tq_set_min(NIL)
#else
		/* Planted: @min left naming the node just removed. */
		:: else
#endif
		fi
	fi
}

/*
 * __timeq_del_less_than(t, max, fn, arg): @res nodes removed; @lt_due:
 * fn is tq_clock_due(), which puts each on the due list. delta is one
 * tick, so the share pulled after the clock moves is ceil(B' / 1).
 */
inline q_del_less_than(lt_t, lt_max, lt_res, lt_due)
{
	lt_res = 0;
	do
	:: pend == P_NONE && budget > 0 && lt_res < lt_max && min != NIL &&
	   mintime < lt_t ->
		q_delete_min(q_ret);
#ifdef CLOCK
		if
		:: lt_due -> assert(ntime[q_ret] <= tick); due[q_ret] = 1
		:: else
		fi;
#endif
		lt_res++
	:: else -> break
	od;
	q_ret = 0;
	if
	:: lt_res > 0 || pend != P_NONE || lt_t <= now || (min != NIL && mintime < lt_t)
	:: else ->
		tq_advance(lt_t);
		if
		:: pend == P_NONE -> tq_pull_share(1)
		:: else
		fi;
		if
		:: pend == P_NONE && ACNT(hd) == 0 -> tq_settle()
		:: else
		fi
	fi
}
