/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The properties, as assertions over the state and the ghost state.
 *
 * 1. The queue's shape (check_queue()), whenever no lock is held: every
 *    node in exactly the list its tag names; its time in the window (I1);
 *    its list the one its time and the roles call for (I2, relaxed for
 *    the work pending between steps); with no work pending, I4, I5 and
 *    I6 (the cached minimum is a queued node of the least time).
 *    timeq_fast_min() reads, under head_lock alone, a minimum no later
 *    than any queued node, or none only with the queue empty or work
 *    pending; timeq_first() reads none only with the queue empty.
 *
 * 2. Requests (the ghost masks of state.pml). A request is a call that
 *    asks for a timer's time: a fast update that is not refused, a slow
 *    timer_arm(), timer_move() that is not refused, timer_delete() or
 *    delete_sync()/shutdown_sync(). Request r is older than request s
 *    when r returned before s began, for s handed off; before s entered
 *    its critical section, for s applied in place: the lane's locks for
 *    a fast update (its ghost is taken when its checks pass under them),
 *    the lock hold of all three in which it takes effect for the slow
 *    side (a delete_sync() or shutdown_sync() takes effect in its last
 *    pass, the one that returns). That is linearizability with an
 *    in-place update taking effect under its locks and a hand-off
 *    anywhere within its call; the hand-off then takes effect when the
 *    slow path applies it ("latest wins" merges concurrent hand-offs,
 *    which are older than none of each other). Expiry (delete_min,
 *    del_less_than, the clock's) is no request.
 *
 *    P-a, "not out of order": the slow path never applies a handed-off
 *    request that is older than a request already applied
 *    (drain_point()).
 *    P-b, "not lost": once the other processes are done and the slow path
 *    has drained, the request applied last is older than no request that
 *    took effect (final_check()); and the timer is where that request put
 *    it, or expired. A store (module/fast.c, "Refresh by a store") is a
 *    request applied in place, at its compare-and-exchange; one that
 *    timeq_timer_store() answers true with no write, at its read.
 *
 *    On a base's queue a callback never runs before the time its timer
 *    expires at, the latest a store gave it (callback_point()); nor,
 *    with INLINE_STORE, before the later of the time asked and the
 *    word's time read by a timeq_timer_store() that answered true with
 *    no write (nowrite_point()), until a request takes effect after it.
 *
 *    timeq_timer_move() arms a timer only if it is armed, in the queue or
 *    on the due list, and refuses (but for a shutdown) only one that is
 *    neither (move_point()).
 *
 *    A timer shut down must stay disarmed: tq_link() asserts that no
 *    path arms it, and final_check() that it is in no list.
 *
 * 3. Lifetimes: free_timer() asserts that no list (the due list too), no
 *    hand-off list and no drain refers to the timer and no request is
 *    pending; TOUCH() (every access to a timer by the protocol, a
 *    callback's too) asserts that it is not freed.
 *
 * 4. The hrtimer of a timer base, at quiescence (final_check()): set
 *    iff the queue holds a timer, and no later than the minimum.
 *
 * Waits: spin's own check for invalid end states. Every process ends; one
 * blocked for ever, on a lock or in a sleeping wait whose condition never
 * comes true, is an invalid end state. In the livelock mode (run.sh),
 * a non-progress cycle is a process that can run for ever without the
 * one it waits for ever running again.
 */

/*
 * The queue's invariants, with every lock free. They are computed by one C
 * function (the same expressions in Promela, expanded at every check,
 * would make the verifier's code too large to compile quickly) into
 * queue_shape_ok, which the check asserts: it is 1 in every state stored.
 */
bit queue_shape_ok = 1;

c_code {
/* NODE_OK(): node @n in exactly the list its tag names, I1 and I2. */
static int tq_node_ok(int n)
{
	int o = now.own[n], t = now.ntime[n];

	if (o == O_NONE)
		return now.mem[n] == 0;
	if (now.mem[n] != LBIT(o))
		return 0;
	if (t < now.now || t >= now.now + HZ)
		return 0;
	if (t == now.now) {
		if (o != O_ARR(now.hd) && !(now.pend == P_PULL_HEAD && o == O_CAL))
			return 0;
	} else if (t == now.now + 1) {
		if (o != O_ARR(now.hd2) && o != O_CAL)
			return 0;
	} else if (o != O_CAL && !(o == O_ARR(now.fo) && t == now.fbucket)) {
		return 0;
	}
	/* I6: no node before the minimum */
	return now.pend != P_NONE || (now.min != NIL && now.mintime <= t);
}

static int tq_queue_ok(void)
{
	int n;

	for (n = 0; n < NODES; n++)
		if (!tq_node_ok(n))
			return 0;
	if (now.pend != P_NONE)
		return 1;
	/* I4: an empty head leaves nothing of the next bucket outside head2 */
	if (!now.acnt[now.hd] && now.bcnt[(now.now + 1) & (HZ - 1)])
		return 0;
	/* I5: the focus bucket is not split */
	if (now.acnt[now.fo] && now.bcnt[now.fbucket & (HZ - 1)])
		return 0;
	/* I6: the minimum is a queued node, or the queue is empty */
	if (now.min == NIL)
		return now.mintime == NOTIME && !now.own[0] && !now.own[1] &&
		       !now.own[2];
	return now.own[now.min] != O_NONE && now.mintime == now.ntime[now.min];
}

/* I3: the counts are those of the lists that really hold the nodes. */
static int tq_counts_ok(void)
{
	int a, s, n, c, cal = 0;

	for (a = 0; a < 3; a++) {
		for (c = 0, n = 0; n < NODES; n++)
			c += (now.mem[n] >> (a + 1)) & 1;
		if (c != now.acnt[a])
			return 0;
	}
	for (s = 0; s < HZ; s++) {
		for (c = 0, n = 0; n < NODES; n++)
			c += (now.mem[n] & 1) && (now.ntime[n] & (HZ - 1)) == s;
		if (c != now.bcnt[s])
			return 0;
		cal += c;
	}
	return cal == now.calcnt;
}
}

/*
 * What timeq_fast_min() reads under head_lock alone: a minimum that is a
 * queued node no later than any other (the bucket_lock-only paths never
 * move the minimum nor put a node before it), or none, with the queue
 * empty or work pending.
 */
bit fast_min_ok = 1;

c_code {
static int tq_fast_min_ok(void)
{
	int n;

	if (now.min == NIL)
		return now.pend != P_NONE ||
		       (!now.own[0] && !now.own[1] && !now.own[2]);
	if (now.own[now.min] == O_NONE || now.mintime != now.ntime[now.min])
		return 0;
	for (n = 0; n < NODES; n++)
		if (now.own[n] != O_NONE && now.ntime[n] < now.mintime)
			return 0;
	return 1;
}
}

inline check_queue()
{
	c_code { now.queue_shape_ok = tq_queue_ok(); };
	assert(queue_shape_ok)
}

/* After a release: the shape, if that release left every lock free. */
inline check_quiet()
{
	if
	:: ALL_FREE -> check_queue()
	:: else
	fi
}

/* A request on timer @cct took effect: its callback's ghosts start over. */
#if defined(CLOCK) && defined(INLINE_STORE)
#define CALLBACK_CLEAR(cct)	gone[cct] = 0; asked[cct] = 0
#elif defined(CLOCK)
#define CALLBACK_CLEAR(cct)	gone[cct] = 0
#else
#define CALLBACK_CLEAR(cct)	skip
#endif

#ifdef CLOCK
/*
 * The expiry runs the callback of timer @cpt at @tick (a base's queue):
 * never before the time it expires at, which a store may have moved past
 * the time it is filed at.
 */
inline callback_point(cpt)
{
	assert(cpt >= TIMERS || exps[cpt] <= tick);
#ifdef INLINE_STORE
	assert(cpt >= TIMERS || asked[cpt] <= tick);
#endif
	if
	:: cpt < TIMERS -> gone[cpt] = 1
	:: else
	fi
}
#endif

/*
 * Request @ips on timer @ipt is applied in place, leaving the timer queued
 * or, if @ipv is 0, out of the queue. @ipp: the requests older than it.
 */
inline inplace_point(ipt, ips, ipp, ipv)
{
	superseded[ipt] = superseded[ipt] | ipp;
	effprec[ipt] = effprec[ipt] | ipp;
	lastreq[ipt] = ips;
	lastdel[ipt] = (ipv == 0);
	CALLBACK_CLEAR(ipt)
}

#if defined(CLOCK) && defined(INLINE_STORE)
/*
 * Request @nws on timer @nwt, which timeq_timer_store() answers true with
 * no write, at its read; @nwp: the requests older than it; @nwa: the time
 * its callback must not run before.
 */
inline nowrite_point(nwt, nws, nwp, nwa)
{
	inplace_point(nwt, nws, nwp, 1);
	asked[nwt] = nwa
}
#endif

/*
 * timeq_timer_move() of timer @mpt, once the hand-offs are applied: it
 * arms the timer (@mparm) only if the timer is armed, in the queue or on
 * the due list, and refuses it otherwise, as mod_timer_pending() leaves a
 * timer_list; a shut down timer it refuses either way.
 */
inline move_point(mpt, mparm)
{
#ifdef CLOCK
	assert(shut[mpt] || (mparm == (own[mpt] != O_NONE || due[mpt])))
#else
	assert(shut[mpt] || (mparm == (own[mpt] != O_NONE)))
#endif
}

/*
 * The slow path applies, to timer @t, the hand-off @wid that last wrote
 * the ->want it read, leaving the timer at 1 + time @v.
 */
inline drain_point(dpt, dpw, dpv)
{
	assert(dpw < 4);
	/* P-a: nothing newer was applied before it. */
	assert(!(superseded[dpt] & (1 << dpw)));
	superseded[dpt] = superseded[dpt] | prec[dpw];
	lastreq[dpt] = dpw;
	lastdel[dpt] = 0;
	CALLBACK_CLEAR(dpt)
}

/* The owner frees a timer: nothing may refer to it. */
inline free_timer(ft)
{
	assert(own[ft] == O_NONE && mem[ft] == 0);
	assert(!onll[ft] && !indrain[ft] && !pending[ft]);
#ifdef CLOCK
	assert(!due[ft]);
#endif
	freed[ft] = 1
}

/* Nothing is pending; each live timer is where its last request put it. */
inline final_timer(ftt)
{
	if
	:: freed[ftt]
	:: else ->
		assert(!pending[ftt] && !onll[ftt] && !indrain[ftt]);
		if
		:: shut[ftt] -> assert(own[ftt] == O_NONE)
		:: else ->
			/* P-b: the last applied is older than nothing in effect. */
			assert(!(effprec[ftt] & (1 << lastreq[ftt])));
			assert(!lastdel[ftt] || own[ftt] == O_NONE);
#ifdef CLOCK
			/* ...and armed, or expired since */
			assert(lastdel[ftt] || gone[ftt] || own[ftt] != O_NONE)
#endif
		fi
	fi
}

inline final_check()
{
	assert(ALL_FREE && llen == 0 && pend == P_NONE);
	check_queue();
	c_code { now.queue_shape_ok = tq_counts_ok(); };
	assert(queue_shape_ok);
	final_timer(0);
	final_timer(1);
#ifdef CLOCK
	/* the work has expired what was due, and runs no callback */
	assert(!DUE_ANY && running == NIL);
#endif
#ifdef KICK
	/*
	 * At quiescence the hrtimer is set iff the queue holds a timer, and
	 * no later than the minimum: none fires late.
	 */
	if
	:: min == NIL -> assert(hrt == NOTIME)
	:: else -> assert(hrt != NOTIME && hrt <= mintime)
	fi
#endif
}
