/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Promela model of timeq's concurrency protocol (module/paths.c, fast.c,
 * handoff.c and clock.c over module/queue.c), for spin.
 * tools/testing/spin/run.sh checks it; see "Running" below.
 *
 * What it covers
 * --------------
 *
 * The code as fixed for the concurrency defects ("defect N" below) that
 * tools/testing/explore/README numbers, at the level of its locks, flags
 * and doors, with one difference of order. On a base's queue, the code's
 * tq_apply() makes room for the ->want it read while it still holds
 * PENDING, then clears PENDING, reads ->want again, and takes PENDING back
 * (making room again, a budget unit each time) only if a join moved
 * ->want beyond the window meanwhile. The model clears PENDING first, and
 * for a time beyond the window takes it back, makes room and clears it
 * again (PH_RETAKE, PH_ROOM, PH_RECLEAR), a point with PENDING clear
 * before the first room that the code does not have. The explorer's
 * d5-deferred-beyond-lag runs the code's order.
 * What else the model leaves out, and what checks it instead, is under
 * "Limits" below.
 *
 * tq_timer_set() makes room in the window before its drain; the order it
 * had in the first fix, drain first, is a defect this model finds
 * (BUG_SET_ROOM_LATE).
 *
 * One queue with its three spinlocks (head_lock, head2_lock, bucket_lock),
 * two timers and a third node, and these processes, each a CPU:
 *
 *  - one or two fast processes: timeq_fast_update() through its near, far
 *    and cross lanes and the hand-off, and timeq_fast_min();
 *  - one or two slow processes: tq_work() (the drain, and on a base's
 *    queue the expiry), timeq_timer_arm(), timeq_timer_move() (on a
 *    base's queue: its store first, then the locks), timeq_timer_delete(),
 *    timeq_delete_sync(), timeq_shutdown_sync(), timeq_insert()/update()/
 *    delete() of the third node with tq_far_ok()'s bucket_lock-only path,
 *    timeq_delete_min(), timeq_del_less_than(), timeq_first(); then, once
 *    every other process is done, the first runs the work the kicks (or
 *    the hrtimer) queued, and the final checks;
 *  - on a base's queue (module/clock.c), where the third node is a timer
 *    whose owner never calls: the irq_work's handler, tq_kick(), and the
 *    hrtimer's firing, as a process of their own. Modelled there: the due
 *    list, tq_clock_catch_up(), tq_clock_make_room(), tq_apply() taking
 *    PENDING back to make room, the expiry (tq_clock_run() publishing
 *    @running before tq_finish(), each callback reading its timer with no
 *    lock held), delete_sync()'s wait for @running, the arming of the
 *    hrtimer by the slow side and by the irq_work, both under arm_lock,
 *    and refresh by a store (module/fast.c): the store to a timer's
 *    expires word, tried by the fast path before the lanes and by
 *    timeq_timer_move() before the locks, its compare-and-exchange a step
 *    of its own after the reads that chose it; the word closed by
 *    the drain before it clears PENDING, by tq_disarm() and by the
 *    expiry's claim, which files a timer stored later again
 *    (tq_clock_claim()), and opened by every link.
 *
 * Every door of module/paths.c ("Doors": a lock dropped inside an
 * operation) is a point where the other processes run: tq_finish()
 * between two steps of pending work; tq_relock() in the drain and in
 * tq_clock_make_room(), which finishes others' pending work; and the
 * passes of a call that waits or loops. Whatever is published there is
 * seen by the other lock holders: @pend set with @min NULL, a near-lane
 * insert made during far work, requests detached from the hand-off list
 * that keep PENDING (a timer call on one sleeps until PENDING is clear or
 * a request is on the list), a timer on the due list, @running. tq_settle()
 * writes @min once, while the far paths may read it; the far paths' own
 * operations neither read nor write it.
 *
 * paths.pml models paths.c, fast.c, handoff.c and clock.c step by step
 * under the code's own function names; queue.pml abstracts queue.c
 * (regions, roles, counts and the pending work done in budgeted steps, not
 * the lists); state.pml is the state; spec.pml the properties: the queue's
 * shape whenever every lock is free, the minimum that timeq_fast_min() and
 * timeq_first() read, P-a "no hand-off applied out of order", P-b "no
 * request lost", a timer shut down stays disarmed, no timer freed while
 * anything refers to it or touched after it is freed, every write under
 * the lock that guards it, the hrtimer at quiescence set iff the queue
 * holds a timer and no later than the minimum, and no process waiting for
 * ever, blocked (an invalid end state) or, in the livelock mode, running
 * (a non-progress cycle).
 *
 * Bounds: delta = 1 tick and M = horizon = 4, so a bucket is one time;
 * TIMEQ_STEP = TIMEQ_WALK = 1 and TIMEQ_HOLD = 2 (1 where a scope says
 * so, so that every removal and every request ends a lock hold), so that
 * pending work (PULL_NEXT, PULL_HEAD, WALK, EVICT, RESOLVE) can span more
 * than one lock hold with three nodes. The fast processes make
 * FAST0_CALLS and FAST1_CALLS calls, the first slow process SLOW_OPS
 * calls and the second one. A base's CLOCK_MONOTONIC (@tick) is
 * fixed for a scope.
 *
 * Scopes (run.sh; each searched exhaustively, with -DCOLLAPSE)
 * ------
 *
 *   handoff	-DSCOPE_HANDOFF -DSLOW_OPS=1: timer 0 only, in no queue,
 *		near or far at the start; fast process 0 makes two updates,
 *		process 1 one; the slow process makes one timer call (the
 *		work, arm, delete, delete_sync, shutdown_sync) or a
 *		delete_min, then the final work. The hand-off, its drain,
 *		the timer calls and their waits, the lifetimes.
 *   regions	-DSLOW_OPS=1 -DFAST0_CALLS=1: every start of the three
 *		nodes (in no queue, in the head, the next bucket, a far
 *		bucket or the focus), one fast update or fast min per fast
 *		process, one slow call (the work, an insert, update or
 *		delete of the plain node, a delete_min, a del_less_than),
 *		then the final work. The lanes against the slow side's
 *		pending work and its bucket_lock-only path.
 *   pull	-DINIT_FIXED, timers in no queue and the plain node alone in
 *		bucket 3 (its minimum found by a WALK), -DSLOW_OPS=1: as
 *		regions, but fast process 0 makes two calls, so both timers
 *		can be inserted into that bucket before a delete_min whose
 *		pull of the head then takes two lock holds, against
 *		timeq_fast_min().
 *   doors	-DSCOPE_DOORS, TIMEQ_HOLD = 1: the plain node the minimum,
 *		timer 1 alone in a far bucket (found by a WALK), and hand-offs
 *		of timer 1 there and of timer 0 before it on the list at the
 *		start; one fast update of either timer; slow process 0 runs
 *		the work, a delete_min or a del_less_than, slow process 1 a
 *		timer call on either timer, a delete_min or timeq_first().
 *		Two slow callers in each other's doors.
 *   expiry	-DSCOPE_EXPIRY, a base's queue, TIMEQ_HOLD = 1, the tick one
 *		ahead of the queue's clock: timer 0 due, the third node alone
 *		in a far bucket (found by a WALK once timer 0 has gone); one
 *		fast update of timer 0; slow process 0 runs the work, slow
 *		process 1 is timer 0's owner: delete_sync, shutdown_sync,
 *		timer_delete, timer_arm beyond the window, or timer_move
 *		to a later time in the window or beyond it (a store is
 *		tried for either: the clock may have moved on). The expiry
 *		against delete_sync, making room against the expiry, a
 *		move's store against the expiry's claim and a hand-off, its
 *		fallback against the due list and a running callback.
 *   room	-DSCOPE_ROOM, a base's queue, TIMEQ_HOLD = 1, the tick one
 *		ahead: timer 0 due, holding the queue's clock back; two fast
 *		updates of timer 1, near or beyond the lagging window; slow
 *		process 0 runs the work, slow process 1 is timer 1's owner:
 *		timer_arm near or beyond the window, timer_delete or
 *		shutdown_sync. Making room, for the drain and for the owner,
 *		with fast updates in its doors.
 *   stores	-DSCOPE_STORES, a base's queue, TIMEQ_HOLD = 1, the tick one
 *		ahead: timer 0 due, holding the queue's clock back, timer 1
 *		armed at it; one fast update of timer 1 by each fast
 *		process, later (a store) or beyond the lagging window (a
 *		hand-off); slow process 0 runs the work, whose expiry may
 *		file timer 1 again. A store against a hand-off of its timer
 *		from another CPU, and against the drain and the expiry.
 *   expiry-inline, stores-inline
 *		the expiry and stores scopes with -DINLINE_STORE: a fast
 *		process calls timeq_timer_store() first, which reads the
 *		word alone (no PENDING, no owner), whatever PENDING is;
 *		when it answers false, timeq_fast_update(): its test of
 *		PENDING (a hand-off, joining a request) and its guess of
 *		the lane, a step after the store's (module/fast.c guesses
 *		the lane after its own store; the lanes check the guess
 *		under their locks), then its own store (tq_timer_store(),
 *		which reads PENDING and the owner too), then the lanes. Its
 *		test of a timer of another base is not modelled: there is
 *		one base. A time no later than the word's, which
 *		timeq_timer_store() answers true with no write, is asked
 *		once another caller has moved the timer later: the owner
 *		(expiry), the other fast process (stores); and in
 *		stores-inline at once, timer 1's own time being a third
 *		choice there. So in stores-inline the store is tried while
 *		the other process's hand-off holds PENDING, before and after
 *		that marks the word.
 *   arming	-DSCOPE_ARMING, a base's queue, the tick the queue's clock
 *		(nothing falls due): the third node far; two fast updates of
 *		timer 1, which may move the minimum earlier and kick; one slow
 *		call: timer_arm of timer 0 or timer 1, timer_delete or
 *		delete_sync of timer 1, or the work. The irq_work against the
 *		slow side.
 *   livelock	the doors scope, built with -DNP and searched for
 *		non-progress cycles (pan -l), with no fairness: a spinning
 *		wait may starve what it waits for, as SCHED_FIFO on one CPU
 *		does. (This search does not look for invalid end states.)
 *
 * Without flags the model is a larger regions scope (two fast calls by
 * process 0, two slow calls), which does not finish in minutes.
 * -DSLOW_ONLY=OP_ARM (an OP_* name) restricts the slow process to one
 * kind of call, for reproductions.
 *
 * Planted bugs (each must make its scope fail; run.sh checks that)
 * ------------
 *
 *   BUG_DRAIN_EARLY_READ	tq_drain() reads ->want before it clears
 *				PENDING (the clear_bit() and
 *				smp_mb__after_atomic() ordering lost).
 *				handoff.
 *   BUG_HANDOFF_STALE_WANT	tq_handoff() pushes without writing ->want
 *				again after winning test_and_set_bit().
 *				handoff.
 *   BUG_SET_NO_WAIT		tq_slow_begin_drained() does not wait for a
 *				hand-off in flight (tq_timer_set(),
 *				timeq_timer_delete()). handoff.
 *   BUG_SYNC_NO_WAIT		tq_sync() returns while PENDING is
 *				set. handoff.
 *   BUG_NO_PENDING_RECHECK	tq_fast_check() does not test PENDING under
 *				the lane's locks. handoff.
 *   BUG_NEAR_NO_REGION_CHECK	tq_fast_near() does not re-check that the
 *				node is near (tq_is_far()) under its locks.
 *				regions.
 *   BUG_FAR_NO_REGION_CHECK	tq_far_ok() does not check that the node is
 *				far: the paper's race. regions.
 *   BUG_FAR_MOVES_MIN		tq_far_ok() lets the minimum move under
 *				bucket_lock alone. regions.
 *   BUG_STALE_MIN		__timeq_delete_min() leaves @min naming the
 *				removed node while PULL_HEAD is pending.
 *				pull.
 *   BUG_RUNNING_LATE		defect 1: tq_clock_run() publishes
 *				@running after tq_finish(), whose door lets
 *				delete_sync() return while the expiry holds
 *				the timer, whose callback then reads it
 *				freed. expiry.
 *   BUG_SETTLE_NULL_FIRST	defect 2: tq_settle() publishes NULL, then
 *				(the near lane's next step) finds head2's
 *				first; the far operations read @min again and
 *				take their node for the minimum on NULL. A
 *				far node becomes the minimum. regions.
 *   BUG_RELOCK_NO_FINISH	defect 3: the drain's relock applies the
 *				next request without finishing the pending
 *				work another caller left; its WALK then
 *				takes the walked bucket's node over an
 *				earlier one the drain inserted. doors.
 *   BUG_ARM_UNLOCKED		defect 4: tq_clock_kick() without arm_lock,
 *				reading @min_time and @armed and writing
 *				@armed, then starting the hrtimer in a step
 *				of its own: the hrtimer is left later than
 *				the minimum. arming.
 *   BUG_DEFERRED_DROPPED	defect 5: tq_apply() drops a request beyond
 *				the lagging clock's window (tq_arm()'s
 *				-ERANGE ignored): P-b. room.
 *   BUG_MIN_UNLOCKED		defect 6: TIMEQ_MIN's timeq_first() is
 *				timeq_min() again, read with no lock: NULL
 *				for a queue with work pending. doors.
 *   BUG_WAIT_SPINS		defect 7: the waits for a request in
 *				flight spin (cond_resched() and the call
 *				again) rather than sleep. livelock.
 *   BUG_APPLY_NO_RETAKE	tq_apply() makes room with PENDING clear and
 *				arms the time it read before the door: an
 *				update applied in the door (a timer_arm(), a
 *				fast update in place) is undone by the older
 *				request (P-a). room.
 *   BUG_SET_ROOM_LATE		tq_timer_set() makes room after its drain
 *				and its check of PENDING, as at 4de2718: a
 *				fast update that returns in that door lands
 *				after the call (P-a). expiry.
 *   BUG_STORE_DRAIN_OPEN	tq_apply() clears HANDED, then PENDING,
 *				without closing the timer's expires word
 *				first: a store then lands before the older
 *				request, which undoes it (P-a). room.
 *   BUG_STORE_DELETE_OPEN	tq_disarm() leaves the word open: a store
 *				that read the timer as armed lands after the
 *				delete, and the timer is left unarmed by a
 *				request that armed it (P-b). expiry.
 *   BUG_STORE_EXPIRY_IGNORED	tq_clock_claim() runs the callback without
 *				filing again a timer a store moved later:
 *				it fires before the time stored. expiry.
 *   BUG_STORE_HANDOFF_OPEN	tq_handoff() takes PENDING without marking
 *				the word HANDED: a store on another CPU
 *				that read PENDING clear before lands after
 *				the hand-off returned, and the drain undoes
 *				it (P-a). stores.
 *   BUG_STORE_BLIND		tq_timer_store() writes the word it read
 *				open (atomic64_set()) instead of exchanging
 *				it: a store lands after the expiry's claim,
 *				and the timer is left unarmed by a request
 *				that armed it (P-b); or after a hand-off
 *				marked the word, and the drain undoes it
 *				(P-a). expiry (by the fast path's store and
 *				timeq_timer_move()'s).
 *   BUG_INLINE_STORE_NO_HANDED	timeq_timer_store() looks at OPEN
 *				alone: it lands while a request handed off
 *				waits, and the drain undoes it (P-a).
 *				stores-inline.
 *   BUG_INLINE_STORE_NOWRITE_LATER
 *				timeq_timer_store() answers true with no
 *				write for a time later than the word's too:
 *				the store is lost, and the callback runs
 *				before the time asked (callback_point()).
 *				expiry-inline.
 *   BUG_MOVE_NO_REFUSE		tq_timer_refuse() leaves out its check of
 *				an armed timer: timeq_timer_move() arms a
 *				timer whose callback runs (move_point()).
 *				expiry.
 *   BUG_MOVE_DUE_REFUSED	tq_timer_refuse() takes a timer on the due
 *				list as not armed: timeq_timer_move()
 *				returns -ENOENT for a timer whose callback
 *				has not begun (move_point()). expiry.
 *
 * Three of the first nine were real: BUG_STALE_MIN, and the two hand-off
 * races behind BUG_HANDOFF_STALE_WANT and BUG_SET_NO_WAIT, which this
 * model found in the code. Defects 1 to 7 were real at a28c087, where
 * the model could not see them; BUG_SET_ROOM_LATE is real at 4de2718,
 * where it does. Defect 8 (data races by the kernel's definition) is
 * KCSAN's (below).
 *
 * Limits
 * ------
 *
 * The model is a hand-written abstraction: that the C code does what it
 * says is for tools/testing/explore, which runs module/queue.c, paths.c,
 * fast.c, handoff.c, clock.c and base.c themselves under a PCT scheduler
 * with every lock, atomic bit operation, llist operation, wait and wake-up
 * a scheduling point. Left to it:
 *
 *  - the wake-ups (paths.pml, "Waits"): one the code forgets is not seen;
 *  - sizes: buckets, lock holds and steps of real length (TIMEQ_HOLD 64),
 *    delta > 1 (bucket lists out of time order, FIFO among equal times),
 *    the bitmaps, more than two timers, more than two callers of a kind;
 *  - the clock moving (so tq_clock_make_room() never finds a time beyond
 *    the horizon here, and tq_apply() never pushes a request back), the
 *    fast path's own clock running ahead of the slow side's (the
 *    userspace white-box case white_test_room_waits_for_clock has it),
 *    expire_budget and the expiry queueing itself again, and
 *    timeq_expire() taking turns with the work under the @expiry mutex;
 *  - a timer filed again by the expiry in the door of a drain that took
 *    PENDING back (so no planted bug here removes that drain's HANDED
 *    mark: the scopes would not catch it; tools/testing/queue's
 *    white_test_store_retake does);
 *  - timeq_timer_move() but in the expiry scope, on the one timer there,
 *    and its store to a timer on the due list (never tried there);
 *  - callbacks that arm or delete timers, tq_clock_first() filing what
 *    stores left behind, two irq_work handlers at once on two CPUs (one
 *    runs here at a time, each serialised by arm_lock anyway), a failed
 *    hrtimer_try_to_cancel(), timeq_base_destroy() and @stopping, the
 *    device (module/dev.c) (the explorer's store-vs-first has
 *    tq_clock_first());
 *  - more than one queue: a timer taken from one queue's due list by
 *    another (the code's owner word tags a due timer TQ_TAG_OUT; the
 *    model's due[] flag is read in the same steps);
 *  - the priorities themselves: the livelock mode shows that a spinning
 *    wait can run for ever while what it waits for never runs, which
 *    SCHED_FIFO or PREEMPT_RT make happen; whether a scheduler does is
 *    the explorer's PCT.
 *
 * Left to KCSAN (a debug kernel) and ThreadSanitizer (the userspace
 * build): memory order. The model is sequentially consistent, which the
 * barriers the code relies on give the accesses they order (paths.pml,
 * "Memory order"); it checks neither that those barriers are there, bar
 * the one BUG_DRAIN_EARLY_READ removes, nor that they suffice, nor any
 * plain access racing another (defect 8): the drain's read of a timer's
 * llist link before it clears PENDING, for one, is ordered here by
 * assumption (40e1b32 found it unordered with TSan).
 *
 * Not modelled either: a fast path interrupting the slow side on the same
 * CPU, which spin_lock_bh() excludes in the code (so a fast path that
 * blocked on a lock, rather than trying it, would deadlock only there,
 * and the model cannot see it); the lock-free retries of llist_add() and
 * irq_work_queue(). Steps are atomic as paths.pml's "Steps" says. The
 * properties hold for these bounds only.
 *
 * Running
 * -------
 *
 *   tools/testing/spin/run.sh [NAME...]	every scope and planted bug,
 *					in build/spin/, as TAP, two
 *					at a time (JOBS)
 *
 * or by hand, in a scratch directory:
 *
 *   spin -a -DSCOPE_DOORS path/to/timeq.pml
 *   cc -O0 -DCOLLAPSE -o pan pan.c && ./pan -m200000 -w24
 *					(-DSAFETY for the safety scopes;
 *					-DNP and ./pan -l for livelock)
 *   ./pan -r				replays a trail, c_code and all
 */

/* The scopes' configurations (run.sh; "Scopes" above). */
#ifdef SCOPE_DOORS
#define NFAST		1
#define FAST0_CALLS	1
#define NSLOW		2
#define TQ_HOLD		1
#endif
#ifdef SCOPE_EXPIRY
#define CLOCK
#define KICK
#define NFAST		1
#define FAST0_CALLS	1
#define NSLOW		2
#define TQ_HOLD		1
#endif
#ifdef SCOPE_ROOM
#define CLOCK
#define KICK
#define NFAST		1
#define FAST0_CALLS	2
#define NSLOW		2
#define TQ_HOLD		1
#endif
#ifdef SCOPE_STORES
#define CLOCK
#define KICK
#define NFAST		2
#define FAST0_CALLS	1
#define FAST1_CALLS	1
#define NSLOW		1
#define SLOW_OPS	1
#define TQ_HOLD		1
#endif
#ifdef SCOPE_ARMING
#define CLOCK
#define KICK
#define NFAST		1
#define FAST0_CALLS	2
#define NSLOW		1
#endif
#if defined(SCOPE_DOORS) || defined(SCOPE_EXPIRY) || defined(SCOPE_ROOM) || \
    defined(SCOPE_ARMING) || defined(SCOPE_STORES)
#define SCOPE_FIXED
#ifndef SLOW_OPS
#define SLOW_OPS	1
#endif
#endif

#include "state.pml"
#include "queue.pml"
#include "spec.pml"
#include "paths.pml"

#ifndef FAST0_CALLS
#define FAST0_CALLS	2
#endif
#ifndef FAST1_CALLS
#define FAST1_CALLS	1
#endif
#ifndef SLOW_OPS
#define SLOW_OPS	2
#endif
/* The second slow process makes one call (its ghost slot is 6). */
#define SLOW2_OPS	1

proctype fast(byte me; byte p)
{
	QUEUE_LOCALS;
	PATH_LOCALS;
	FAST_LOCALS;

	do
	:: atomic {
		fph == F_IDLE && k < (p == 0 -> FAST0_CALLS : FAST1_CALLS) ->
		slot = 2 * p + k;
		k++;
		if
#if defined(SCOPE_ROOM) || defined(SCOPE_ARMING) || defined(SCOPE_STORES)
		/* timer 1; the slow side has timer 0 (and timer 1, room) */
		:: !retired[1] -> fast_begin(1); fph = FIRST_PHASE
		:: retired[1] -> slot = 0
#else
		:: !retired[0] -> fast_begin(0); fph = FIRST_PHASE
#ifndef SCOPE_HANDOFF
		/* fast process 1: timer 0, or the minimum */
		:: p == 0 && !retired[1] -> fast_begin(1); fph = FIRST_PHASE
		:: p == 1 -> slot = 0; fph = F_MIN
#endif
		/* the owner retired every timer: nothing to update */
		:: retired[0] && retired[1] -> slot = 0
#endif
		fi
	   }
	:: atomic { fph != F_IDLE -> fast_step() }
	:: atomic {
		fph == F_IDLE && k == (p == 0 -> FAST0_CALLS : FAST1_CALLS) ->
		fast_done++;
		k = 0
	   };
	   break
	od
}

/* Timer @ct's delete_sync(): no fast update may run or start from now. */
#define DSYNC_OK(ct)	(!retired[ct] && busy[ct] == 0)

/* A slow process's next call: op, on timer tt or at time xv. */
inline slow_choose()
{
#ifdef SLOW_ONLY
	/* for measuring and for reproductions: one kind of call only */
	op = SLOW_ONLY;
	PICK_FAST_X(xv);
	if
	:: op == OP_NDELETE || op == OP_UPDATE -> own[PLAIN] != O_NONE
	:: op == OP_INSERT -> own[PLAIN] == O_NONE
	:: else
	fi
#elif defined(SCOPE_DOORS)
	/*
	 * The work, or a delete_min that leaves far work across a door;
	 * against a timer call on a timer whose request the work holds in a
	 * door, a delete_min, or timeq_first().
	 */
	if
	:: me == ME_SLOW -> op = OP_WORK
	:: me == ME_SLOW -> op = OP_DELMIN
	:: me == ME_SLOW -> op = OP_DLT; xv = now + 2
	:: me == ME_SLOW2 -> op = OP_DELMIN
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 0; xv = now + 1
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 0; xv = now + 3
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 1; xv = now + 2
	:: me == ME_SLOW2 -> op = OP_DELETE; tt = 0
	:: me == ME_SLOW2 && DSYNC_OK(0) -> op = OP_DSYNC; tt = 0; retired[0] = 1
	:: me == ME_SLOW2 && DSYNC_OK(1) -> op = OP_DSYNC; tt = 1; retired[1] = 1
	:: me == ME_SLOW2 -> op = OP_SHUTDOWN; tt = 0
	:: me == ME_SLOW2 -> op = OP_FIRST
	fi
#elif defined(SCOPE_EXPIRY)
	/*
	 * the work expires timer 0, whose owner deletes, re-arms or moves it:
	 * later in the window, or beyond it (a store is tried for either)
	 */
	if
	:: me == ME_SLOW -> op = OP_WORK
	:: me == ME_SLOW2 && DSYNC_OK(0) -> op = OP_DSYNC; tt = 0; retired[0] = 1
	:: me == ME_SLOW2 -> op = OP_SHUTDOWN; tt = 0
	:: me == ME_SLOW2 -> op = OP_DELETE; tt = 0
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 0; xv = now + HZ
	:: me == ME_SLOW2 -> op = OP_MOVE; tt = 0; xv = now + 2
	:: me == ME_SLOW2 -> op = OP_MOVE; tt = 0; xv = now + HZ
	fi
#elif defined(SCOPE_ROOM)
	/* the work makes room for timer 1's request; its owner re-arms it */
	if
	:: me == ME_SLOW -> op = OP_WORK
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 1; xv = now + 1
	:: me == ME_SLOW2 -> op = OP_ARM; tt = 1; xv = now + HZ
	:: me == ME_SLOW2 -> op = OP_DELETE; tt = 1
	:: me == ME_SLOW2 -> op = OP_SHUTDOWN; tt = 1
	fi
#elif defined(SCOPE_STORES)
	/* the work: the drain, and the expiry */
	op = OP_WORK
#elif defined(SCOPE_ARMING)
	/* timer 0 armed earlier than the fast path's timer 1, or deleted */
	if
	:: op = OP_ARM; tt = 0; xv = now + 1
	:: op = OP_ARM; tt = 0; xv = now + 2
	:: op = OP_ARM; tt = 1; xv = now + 1
	:: op = OP_DELETE; tt = 1
	:: DSYNC_OK(1) -> op = OP_DSYNC; tt = 1; retired[1] = 1
	:: op = OP_WORK
	fi
#else
	if
	:: op = OP_WORK
#ifdef SCOPE_HANDOFF
	:: atomic { !retired[0] -> op = OP_ARM; tt = 0; PICK_FAST_X(xv) }
	:: atomic { !retired[0] -> op = OP_DELETE; tt = 0 }
	/* the rules: no fast update runs or starts once it is called */
	:: atomic { DSYNC_OK(0) -> op = OP_DSYNC; tt = 0; retired[0] = 1 }
	/* fast updates may race it; then none may reach the timer */
	:: atomic { !retired[0] -> op = OP_SHUTDOWN; tt = 0 }
	:: op = OP_DELMIN
#else
	:: atomic { own[PLAIN] == O_NONE -> op = OP_INSERT; xv = now + 3 }
	:: atomic { own[PLAIN] != O_NONE -> op = OP_UPDATE; PICK_FAST_X(xv) }
	:: own[PLAIN] != O_NONE -> op = OP_NDELETE
	:: op = OP_DELMIN
	:: atomic { op = OP_DLT; xv = now + 1 }
	:: atomic { op = OP_DLT; xv = now + 2 }
#endif
	fi
#endif
}

/* The slow process's calls, and its ghost slots. */
#define NOPS		(me == ME_SLOW -> SLOW_OPS : SLOW2_OPS)
#define SLOT0		(me == ME_SLOW -> 4 : 6)

/* A slow process may take a step: it is in a call, and not blocked. */
#define SLOW_CAN_STEP \
	(ph != PH_IDLE && ph != PH_POST && ph != PH_END && \
	 (ph != PH_FAR || bl == 0) && (ph != PH_LOCK || hl == 0) && \
	 (ph != PH_LOCK_BL || bl == 0) && (ph != PH_WAIT || WAIT_DONE))

#ifdef KICK
/* The irq_work has nothing to do, and the hrtimer will not fire. */
#define KICK_IDLE	(!kickq && kph == 0 && hrt > tick)
/* The final work runs if queued: by a push's kick, or the hrtimer. */
#define FINAL_WORK	workq
#else
#define KICK_IDLE	true
/* The work runs once at the end, for the kicks of the pushes. */
#define FINAL_WORK	(j == NOPS)
#endif

/* No other process can take a step. */
#define ALONE	(fast_done == NFAST && slow_busy == (j > NOPS -> 0 : 1) && \
		 KICK_IDLE)

/*
 * A slow process: its calls, chosen by slow_choose(); then, for the
 * first, once every other process is done, the work their kicks queued,
 * and the checks.
 */
proctype slow(byte me)
{
	QUEUE_LOCALS;
	PATH_LOCALS;
	SLOW_LOCALS;

	do
	:: atomic {
		ph == PH_IDLE && j < NOPS ->
		sslot = SLOT0 + j;
		j++;
		slow_choose();
		ph = (op >= OP_INSERT && op <= OP_NDELETE -> PH_FAR : PH_LOCK);
#ifdef CLOCK
		if
		:: op == OP_MOVE -> ph = PH_STORE_A
		:: else
		fi;
#endif
#ifdef BUG_MIN_UNLOCKED
		if
		:: op == OP_FIRST -> ph = PH_FIRST
		:: else
		fi;
#endif
		ph_fin = FIN_START
	   }
	:: atomic {
		me == ME_SLOW && ph == PH_IDLE && j >= NOPS && slow_busy == 0 &&
		fast_done == NFAST && KICK_IDLE ->
		if
		:: FINAL_WORK ->
#ifdef KICK
			workq = 0;
#endif
			sslot = 0;
			j = NOPS + 1;
			op = OP_WORK;
			ph = PH_LOCK;
			ph_fin = FIN_START
		:: else ->
			final_check();
#ifdef KICK
			the_end = 1;
#endif
			ph = PH_END
		fi
	   }
	/*
	 * A step; taking a lock blocks until it is free. Once every other
	 * process is done no one else can see this one's steps, so it takes
	 * them all in one (the final work, mostly).
	 */
	:: atomic {
		SLOW_CAN_STEP ->
		do
		:: slow_step();
		   if
		   :: ALONE && SLOW_CAN_STEP
		   :: else -> break
		   fi
		od
	   }
	/* the call has returned: the owner frees a timer it retired */
	:: atomic {
		ph == PH_POST && (op != OP_SHUTDOWN || busy[tt] == 0) ->
		if
		:: op == OP_DSYNC || op == OP_SHUTDOWN -> free_timer(tt)
		:: else
		fi;
		op = 0;
		tt = 0;
		xv = 0;
		sslot = 0;
		ph = PH_IDLE;
		if
		:: j == NOPS -> slow_busy--
		:: else
		fi
	   }
	:: ph == PH_END || (me != ME_SLOW && ph == PH_IDLE && j == NOPS) ->
		break
	od
}

#ifdef KICK
/*
 * The irq_work's handler, tq_kick(), in hard interrupt context on the CPU
 * that queued it; and the hrtimer's, tq_clock_fire().
 */
proctype kick()
{
	byte kt;

	do
	:: atomic {
		kickq && kph == 0 ->
		kickq = 0;
#ifndef BUG_ARM_UNLOCKED
		/* tq_clock_kick(): @min_time read inside arm_lock */
		if
		:: mintime != NOTIME -> clock_set(mintime, 0)
		:: else
		fi;
		kph = 2
#else
		/*
		 * Planted (defect 4): no arm_lock; @min_time and @armed
		 * read, @armed written, and hrtimer_start() after.
		 */
		kt = mintime;
		if
		:: kt < armed -> armed = kt; kph = 1
		:: else -> kt = 0; kph = 2
		fi
#endif
	   }
#ifdef BUG_ARM_UNLOCKED
	:: atomic { kph == 1 -> hrt = kt; kt = 0; kph = 2 }
#endif
	:: atomic {
		/* the work for the hand-offs; the waiters woken */
		kph == 2 ->
		if
		:: llen > 0 -> workq = 1
		:: else
		fi;
		kph = 0
	   }
	/* the hrtimer fires: queue_work() */
	:: atomic { hrt <= tick -> hrt = NOTIME; workq = 1 }
	:: atomic { kph == 0 && !kickq && the_end } -> break
	od
}
#endif

/* Place node @n at time @c (4: in no queue); @h: the head holds a node. */
inline place(pn, pc, phd)
{
	if
	:: pc == 4
	:: pc == 0 -> ntime[pn] = 0; add_to(pn, O_ARR(hd))
	:: pc == 1 ->
		ntime[pn] = 1;
		if
		:: add_to(pn, O_ARR(hd2))
		:: phd -> add_to(pn, O_CAL)	/* not yet pulled (I4) */
		fi
	:: pc >= 2 && pc < 4 && pc == fbucket -> ntime[pn] = pc; add_to(pn, O_ARR(fo))
	:: pc >= 2 && pc < 4 && pc != fbucket -> ntime[pn] = pc; add_to(pn, O_CAL)
	fi
}

inline init_ghost(gt)
{
	lastreq[gt] = SLOT_INIT;
#ifdef CLOCK
	/* a timer not armed at the start is as if deleted; one armed, open */
	lastdel[gt] = (own[gt] == O_NONE);
	exps[gt] = ntime[gt];
	eopen[gt] = (own[gt] != O_NONE)
#endif
}

/*
 * A request on timer @it for time @iw, handed off before the processes
 * start, by a fast slot @is that no process uses.
 */
inline init_request(it, iw, is)
{
	want[it] = iw;
	want_id[it] = is;
	prec[is] = INITBIT;
	pending[it] = 1;
	ll[llen] = it;
	llen++;
	onll[it] = 1;
	retd[it] = retd[it] | (1 << is);
	effprec[it] = effprec[it] | INITBIT
}

init
{
	byte me = ME_INIT;
	QUEUE_LOCALS;
	byte c0, c1, c2;
	bit h;

	atomic {
		hl = me;
		h2l = me;
		bl = me;
		hd = 0;
		hd2 = 1;
		fo = 2;
		fbucket = 0;
		/* The timers are alike: timer 0 is no later than timer 1. */
#ifdef INIT_FIXED
		c0 = INIT_C0; c1 = INIT_C1; c2 = INIT_C2;
#elif defined(SCOPE_HANDOFF)
		/* timer 0 in no queue, near, or far */
		if :: c0 = 1 :: c0 = 2 :: c0 = 4 fi;
		c1 = 4;
		c2 = 4;
		retired[1] = 1;		/* timer 1 is not used */
#elif defined(SCOPE_DOORS)
		/*
		 * The plain node the minimum, timer 1 alone in a far bucket
		 * (its minimum found by a WALK), and requests for timer 1
		 * there and timer 0 before it, oldest first.
		 */
		c0 = 4; c1 = 3; c2 = 0;
#elif defined(SCOPE_EXPIRY)
		/*
		 * Timer 0 due, and a timer whose owner never calls alone in a
		 * far bucket, found by a WALK once timer 0 has gone.
		 */
		c0 = 0; c1 = 4; c2 = 3;
		retired[1] = 1;
		tick = 1;
#elif defined(SCOPE_ROOM)
		/* Timer 0 overdue: it holds the clock back a tick. */
		c0 = 0; c1 = 4; c2 = 4;
		retired[0] = 1;
		tick = 1;
#elif defined(SCOPE_STORES)
		/* Timer 0 overdue, holding the clock back; timer 1 due too. */
		c0 = 0; c1 = 1; c2 = 4;
		retired[0] = 1;
		tick = 1;
#elif defined(SCOPE_ARMING)
		/* A far timer whose owner never calls; the clock is current. */
		c0 = 4; c1 = 4; c2 = 3;
#else
		if :: c0 = 0 :: c0 = 1 :: c0 = 2 :: c0 = 3 :: c0 = 4 fi;
		c1 = c0;
		do
		:: c1 < 4 -> c1++
		:: break
		od;
		if :: c2 = 1 :: c2 = 2 :: c2 = 3 :: c2 = 4 fi;
		/* A far bucket spread in the focus, or none. */
		if :: fbucket = 0 :: fbucket = 2 :: fbucket = 3 fi;
#endif
		h = (c0 == 0 || c1 == 0 || c2 == 0);
		place(0, c0, h);
		place(1, c1, h);
		place(2, c2, h);
		if
		:: ACNT(fo) == 0 -> fbucket = 0
		:: else
		fi;
		tq_settle();
		do
		:: pend != P_NONE -> budget = TQ_HOLD; tq_step()
		:: else -> break
		od;
		budget = 0;
		hl = 0;
		h2l = 0;
		bl = 0;
		check_queue();
		init_ghost(0);
		init_ghost(1);
#ifdef SCOPE_DOORS
		init_request(1, 3, 2);
		init_request(0, 2, 3);
#endif
#ifdef KICK
		/* the hrtimer set for the minimum */
		armed = mintime;
		hrt = mintime;
#endif
		c0 = 0;
		c1 = 0;
		c2 = 0;
		h = 0;
		slow_busy = NSLOW;
#if NFAST > 0
		run fast(ME_F0, 0);
#endif
#if NFAST > 1
		run fast(ME_F1, 1);
#endif
		run slow(ME_SLOW);
#if NSLOW > 1
		run slow(ME_SLOW2);
#endif
#ifdef KICK
		run kick()
#endif
	}
}
