// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: /dev/timeq, a timer queue per open file, for userspace.
 *
 * The ABI, and the errno of every failure, is in include/uapi/linux/timeq.h.
 * This file maps it onto the in-kernel API:
 *
 *  - A file (struct tq_dev_file) owns one queue, made by TIMEQ_CONFIGURE
 *    through its clock's calls (struct tq_dev_clock, as posix-timers'
 *    k_clock): timeq_create() for the manual clock, a timer base for
 *    CLOCK_MONOTONIC, made by tq_base_create_shared() as its callbacks
 *    expire no base. Its elements (struct tq_dev_element) are timers, each
 *    with the caller's cookie, allocated from a kmem_cache made with
 *    SLAB_ACCOUNT, so a user's elements are charged to its memory cgroup;
 *    so are the file, the queue's arrays and per-CPU counters, and the
 *    handle table. So is the queue's file in debugfs (module/stats.c), made
 *    in the configuring task: its dentry and inode come from the VFS's
 *    caches, which are SLAB_ACCOUNT in every kernel timeq builds for; only
 *    the state debugfs allocates when the file is first opened is charged
 *    to the opener, who may read debugfs (root).
 *  - A handle is the element's index in the file's xarray (low 32 bits)
 *    and a generation (high 32 bits) from the file's own counter, which
 *    starts at a random value. A handle is refused once its element is
 *    gone, until the counter wraps after 2^32 inserts into the file. The
 *    kernel pointer is never shown, and no file learns anything of
 *    another's activity from its handles.
 *  - An element that expires becomes an event: the expiry (TIMEQ_ADVANCE
 *    under the file's mutex on the manual clock; on the monotonic one the
 *    queue's own, on the module's workqueue or in a command that first
 *    expires what is due (tq_dev_time(), TIMEQ_MIN), which take turns)
 *    moves it to the end of the file's event list and wakes readers.
 *    Either way one expiry at a time moves elements, in the queue's
 *    order, so events are read in that order. read() copies events out,
 *    then frees their elements. The cap counts elements queued and
 *    events unread, so a slow reader makes inserts fail with ENOSPC and
 *    no event is ever dropped.
 *
 * A failed command changes nothing (but for the exception the uapi header
 * gives), so a result is delivered before the change it reports is
 * applied. Every command is split in three steps:
 * check and prepare everything that can fail (the element's memory, its
 * handle, the window), write the result to userspace, then apply, which
 * cannot fail. Under the file's mutex nothing else changes a manual queue,
 * so there the check is exact. On the monotonic clock two things move
 * without the mutex, and neither can make the apply step fail:
 *
 *  - The queue's clock only moves forward, so a time that lies in the
 *    window when checked still does when applied (tq_dev_time() first brings
 *    the clock to the current tick, so the window is the current one).
 *  - An element can expire between the check and the apply. A delete or
 *    an update then waits for its callback (timeq_delete_sync()) and takes
 *    its event back (tq_dev_unexpire()): nobody has read it, since read()
 *    needs the mutex, and the command acts as if it came first.
 *
 * TIMEQ_ADVANCE's count and TIMEQ_BATCH's are known only once applied, so
 * they are the ioctl's return value, which cannot fault. A batch writes
 * each operation's result before applying it, and stops at the first
 * entry it cannot read or write.
 *
 * Per-user limits: each configured file is charged to a struct tq_dev_user
 * of the configuring task's effective uid, found in a small hash table,
 * which counts the user's configured files and its elements. The kernel's
 * ucounts (as inotify uses them) cannot be used from a module: their types
 * are a fixed enum and inc_ucount() is not exported. The limits are
 * global per uid, as epoll's max_user_watches is.
 *
 * Locking: @mutex serialises the commands, read() and the element table;
 * @lock guards the event list and the counters the expiry changes, which
 * the monotonic expiry updates without the mutex (the expiry must never
 * wait for the mutex: a command may hold it while it waits for a callback
 * in timeq_delete_sync(), or for its turn to expire in timeq_expire()).
 * timeq_users_lock guards the user table and each user's file count; its
 * element count is atomic. Order: a file's mutex, then timeq_users_lock.
 * A command or read() waits for @mutex killably: its holder copies to and
 * from user memory, whose fault another task may leave unresolved (as
 * userfaultfd can), and a task waiting behind it can still be killed.
 *
 * Permissions: the device is 0666. Any local user may open it, as any user
 * may make timerfds: what a file can make the kernel hold is bounded by
 * the element cap and the horizon, what a user can by the per-user limits
 * (module parameters), and all of it is charged to the user's memory
 * cgroup.
 */

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/timeq.h>

#include "clock.h"
#include "dev.h"
#include "stats.h"

static unsigned int default_elements = 65536;
module_param(default_elements, uint, 0644);
MODULE_PARM_DESC(default_elements,
		 "Element cap of a /dev/timeq file that asks for none (default 65536)");

static unsigned int max_elements = 1 << 20;
module_param(max_elements, uint, 0644);
MODULE_PARM_DESC(max_elements,
		 "Largest element cap a /dev/timeq file may ask for (default 2^20)");

/*
 * An empty configured file pins its queue's arrays, about 56 * sqrt(horizon)
 * bytes: 256 KiB at 2^24 once rounded to pages, 4 MiB at 2^32.
 */
static unsigned long long max_horizon = 1ULL << 24;
module_param(max_horizon, ullong, 0644);
MODULE_PARM_DESC(max_horizon,
		 "Largest horizon of a /dev/timeq file, in ticks (default 2^24)");

static unsigned int max_user_files = 128;
module_param(max_user_files, uint, 0644);
MODULE_PARM_DESC(max_user_files,
		 "Configured /dev/timeq files a user may have (default 128)");

static unsigned int max_user_elements;
module_param(max_user_elements, uint, 0644);
MODULE_PARM_DESC(max_user_elements,
		 "Elements a user may have over all its /dev/timeq files (0 at load: 4% of RAM's worth)");

/* Operations one TIMEQ_BATCH may carry. */
#define TQ_BATCH_MAX	4096
/* Events one read() copies at most. */
#define TQ_READ_MAX	16
/* The largest structure, batch entry or event a user may say it has. */
#define TQ_SIZE_MAX	4096

/**
 * struct tq_dev_user - what one user holds through /dev/timeq
 * @node:	in timeq_users, by @uid
 * @uid:	the user
 * @files:	its configured files; it is freed when the last one closes
 * @elements:	its elements, queued or unread, over all those files
 */
struct tq_dev_user {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		files;		/* under timeq_users_lock */
	atomic_long_t		elements;
};

/**
 * struct tq_dev_file - the state of one open /dev/timeq
 * @mutex:	serialises commands, read() and @elems
 * @q:		the queue, or NULL until TIMEQ_CONFIGURE; poll() reads it
 *		without @mutex
 * @base:	the timer base whose queue @q is, on the monotonic clock;
 *		NULL on the manual one
 * @clock:	the configured clock's calls, or NULL until TIMEQ_CONFIGURE
 * @user:	the user charged for the file and its elements, once configured
 * @horizon:	the configured horizon
 * @cap:	the element cap
 * @event_size:	the size of each event read() returns
 * @nelems:	elements queued plus events unread
 * @elems:	every element, by index
 * @gen:	the generation of the last element inserted, or whose insert
 *		was dropped after its handle was made
 * @inserted:	elements inserted so far
 * @lock:	guards @events, @nevents and @expired
 * @events:	expired elements, oldest first
 * @nevents:	the length of @events
 * @expired:	elements that became events so far
 * @wait:	readers and pollers wait here for an event
 */
struct tq_dev_file {
	struct mutex		mutex;		/* commands, read(), elems */
	struct timeq		*q;
	struct timeq_base	*base;
	const struct tq_dev_clock *clock;
	struct tq_dev_user	*user;
	u64			horizon;
	u32			cap;
	u32			event_size;
	u32			nelems;
	struct xarray		elems;
	u32			gen;
	u64			inserted;
	spinlock_t		lock;		/* events, nevents, expired */
	struct list_head	events;
	u64			nevents;
	u64			expired;
	wait_queue_head_t	wait;
};

/**
 * struct tq_dev_element - an element of a /dev/timeq file
 * @timer:	queued in the file's queue while armed
 * @file:	the file
 * @cookie:	the caller's value
 * @index:	its index in @file->elems
 * @gen:	its generation, the high half of its handle
 * @expired:	set, under @file->lock, while it is an event
 * @event:	its place in @file->events while expired
 */
struct tq_dev_element {
	struct timeq_timer	timer;
	struct tq_dev_file	*file;
	u64			cookie;
	u32			index;
	u32			gen;
	bool			expired;
	struct list_head	event;
};

/**
 * struct tq_dev_clock - the calls of a file's clock
 * @id:		its &enum timeq_clockid
 * @create:	make the file's queue for TIMEQ_CONFIGURE's @arg, whose
 *		fields the clock takes have been checked; sets @f->q (and
 *		@f->base) only when it succeeds
 * @destroy:	free them, in release(), when nobody else holds the file
 * @now:	the queue's clock; where the clock runs by itself, the expiry
 *		may move it meanwhile
 * @catch_up:	bring the queue's clock up to date and return it: where the
 *		clock runs by itself, expire what is due, and a *@time
 *		before the clock becomes the clock
 * @arm:	queue an element at a time that tq_dev_time() let through
 * @remove:	take out an element that tq_dev_lookup() found queued; it
 *		is freed next. Where the clock runs by itself, the element
 *		may have expired since: its event is taken back
 * @move:	move such an element to a time that tq_dev_time() let
 *		through, or re-arm it there if it has expired since, its
 *		event taken back
 * @first:	the node of the earliest queued element, or NULL
 * @delete_min:	remove the earliest element and return its node, which
 *		@first returned under the same hold of the mutex (nothing
 *		but the commands moves such a clock); NULL where
 *		TIMEQ_DELETE_MIN is refused (EOPNOTSUPP)
 * @advance:	TIMEQ_ADVANCE: move the clock to @time, expiring every
 *		element before it, and return how many; NULL where it is
 *		refused (EOPNOTSUPP)
 *
 * All but @destroy run under the file's mutex. @arm and @move return 0
 * for every time the commands let through, which the caller asserts.
 */
struct tq_dev_clock {
	u32 id;
	int (*create)(struct tq_dev_file *f, const struct timeq_configure *arg);
	void (*destroy)(struct tq_dev_file *f);
	u64 (*now)(struct tq_dev_file *f);
	u64 (*catch_up)(struct tq_dev_file *f, u64 *time);
	int (*arm)(struct tq_dev_file *f, struct tq_dev_element *elem,
		   u64 time);
	void (*remove)(struct tq_dev_file *f, struct tq_dev_element *elem);
	int (*move)(struct tq_dev_file *f, struct tq_dev_element *elem,
		    u64 time);
	struct timeq_node *(*first)(struct tq_dev_file *f);
	struct timeq_node *(*delete_min)(struct tq_dev_file *f);
	long (*advance)(struct tq_dev_file *f, u64 time);
};

/**
 * struct tq_dev_ioctl_op - a command of the ioctl
 * @size:	the size of its structure as this kernel knows it
 * @min_size:	the size of the structure's first version
 * @ioctl_num:	the command's number, as userspace passes it
 * @configured:	refused with EBADFD until the file is configured
 * @execute:	the command; its structure has been read whole
 */
struct tq_dev_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	bool configured;
	long (*execute)(struct tq_dev_file *f, void *arg, void __user *uarg,
			u32 usize);
};

static struct kmem_cache *tq_dev_element_cache;
static DEFINE_HASHTABLE(timeq_users, 6);
static DEFINE_MUTEX(timeq_users_lock);

/*
 * The user of @uid with one more configured file: ERR_PTR(-EMFILE) at
 * max_user_files, ERR_PTR(-ENOMEM) if its record cannot be had.
 */
static struct tq_dev_user *tq_dev_user_get(kuid_t uid)
{
	struct tq_dev_user *user;

	mutex_lock(&timeq_users_lock);
	hash_for_each_possible(timeq_users, user, node, __kuid_val(uid))
		if (uid_eq(user->uid, uid))
			goto found;
	user = kzalloc(sizeof(*user), GFP_KERNEL_ACCOUNT);
	if (!user) {
		user = ERR_PTR(-ENOMEM);
		goto out;
	}
	user->uid = uid;
	atomic_long_set(&user->elements, 0);
	hash_add(timeq_users, &user->node, __kuid_val(uid));
found:
	if (user->files >= READ_ONCE(max_user_files)) {
		if (!user->files) {
			hash_del(&user->node);
			kfree(user);
		}
		user = ERR_PTR(-EMFILE);
		goto out;
	}
	user->files++;
out:
	mutex_unlock(&timeq_users_lock);
	return user;
}

static void tq_dev_user_put(struct tq_dev_user *user)
{
	mutex_lock(&timeq_users_lock);
	if (!--user->files) {
		WARN_ON_ONCE(atomic_long_read(&user->elements));
		hash_del(&user->node);
		kfree(user);
	}
	mutex_unlock(&timeq_users_lock);
}

/* Count one more element for @user, unless it is at max_user_elements. */
static bool tq_dev_user_charge(struct tq_dev_user *user)
{
	long n = atomic_long_read(&user->elements);

	do {
		if (n >= READ_ONCE(max_user_elements))
			return false;
	} while (!atomic_long_try_cmpxchg(&user->elements, &n, n + 1));
	return true;
}

static void tq_dev_user_uncharge(struct tq_dev_user *user, long n)
{
	atomic_long_sub(n, &user->elements);
}

static u64 tq_dev_handle(const struct tq_dev_element *elem)
{
	return (u64)elem->gen << 32 | elem->index;
}

/* The queued element @handle names, or NULL. */
static struct tq_dev_element *tq_dev_lookup(struct tq_dev_file *f, u64 handle)
{
	struct tq_dev_element *elem = xa_load(&f->elems, (u32)handle);

	lockdep_assert_held(&f->mutex);
	if (!elem || elem->gen != handle >> 32 || READ_ONCE(elem->expired))
		return NULL;
	return elem;
}

/* Free an element that has left the queue for good. */
static void tq_dev_free(struct tq_dev_file *f, struct tq_dev_element *elem)
{
	xa_erase(&f->elems, elem->index);
	kmem_cache_free(tq_dev_element_cache, elem);
	f->nelems--;
	tq_dev_user_uncharge(f->user, 1);
}

/* An element expired: make it an event. */
static void tq_dev_expired(struct tq_dev_element *elem)
{
	struct tq_dev_file *f = elem->file;

	spin_lock(&f->lock);
	WRITE_ONCE(elem->expired, true);
	list_add_tail(&elem->event, &f->events);
	WRITE_ONCE(f->nevents, f->nevents + 1);
	f->expired++;
	spin_unlock(&f->lock);
	wake_up_interruptible_poll(&f->wait, EPOLLIN | EPOLLRDNORM);
}

/*
 * Take back the event of @elem, which the monotonic expiry made after a
 * command found the element queued; that command wins. Its callback has
 * returned (timeq_delete_sync()), and no read() can have taken the event,
 * as the caller holds the mutex.
 */
static void tq_dev_unexpire(struct tq_dev_file *f, struct tq_dev_element *elem)
{
	lockdep_assert_held(&f->mutex);
	spin_lock(&f->lock);
	if (elem->expired) {
		list_del(&elem->event);
		WRITE_ONCE(f->nevents, f->nevents - 1);
		f->expired--;
		WRITE_ONCE(elem->expired, false);
	}
	spin_unlock(&f->lock);
}

/* The monotonic clock's callback: in the base's work, or in a command. */
static void tq_dev_fire(struct timeq_timer *timer)
{
	tq_dev_expired(container_of(timer, struct tq_dev_element, timer));
}

/*
 * The callback of TIMEQ_ADVANCE's timeq_del_less_than(), under the file's
 * mutex. It runs once per element, with the queue's locks dropped, so a
 * long expiry yields here.
 */
static void tq_dev_expire_fn(struct timeq_node *node, void *arg)
{
	tq_dev_expired(container_of(node, struct tq_dev_element, timer.node));
	cond_resched();
}

/* The manual clock: a queue of nodes, which only the commands change. */
static int tq_dev_manual_create(struct tq_dev_file *f,
				const struct timeq_configure *arg)
{
	struct timeq *q = timeq_create(arg->start, arg->horizon, 0, 0,
				       GFP_KERNEL_ACCOUNT);

	if (IS_ERR(q))
		return PTR_ERR(q);
	WRITE_ONCE(f->q, q);
	return 0;
}

static void tq_dev_manual_destroy(struct tq_dev_file *f)
{
	timeq_destroy(f->q);
}

/* Only the commands move it, under the mutex that the caller holds. */
static u64 tq_dev_manual_now(struct tq_dev_file *f)
{
	return timeq_now(f->q);
}

static u64 tq_dev_manual_catch_up(struct tq_dev_file *f, u64 *time)
{
	return tq_dev_manual_now(f);
}

static int tq_dev_manual_arm(struct tq_dev_file *f, struct tq_dev_element *elem,
			     u64 time)
{
	return timeq_insert(f->q, &elem->timer.node, time);
}

static void tq_dev_manual_remove(struct tq_dev_file *f,
				 struct tq_dev_element *elem)
{
	WARN_ON_ONCE(timeq_delete(f->q, &elem->timer.node));
}

static int tq_dev_manual_move(struct tq_dev_file *f,
			      struct tq_dev_element *elem, u64 time)
{
	return timeq_update(f->q, &elem->timer.node, time);
}

static struct timeq_node *tq_dev_manual_first(struct tq_dev_file *f)
{
	return timeq_first(f->q);
}

static struct timeq_node *tq_dev_manual_delete_min(struct tq_dev_file *f)
{
	return timeq_delete_min(f->q);
}

static long tq_dev_manual_advance(struct tq_dev_file *f, u64 time)
{
	/* At most the cap, which is at most INT_MAX: it fits the return. */
	return timeq_del_less_than(f->q, time, tq_dev_expire_fn, f);
}

static const struct tq_dev_clock tq_dev_manual = {
	.id		= TIMEQ_CLOCK_MANUAL,
	.create		= tq_dev_manual_create,
	.destroy	= tq_dev_manual_destroy,
	.now		= tq_dev_manual_now,
	.catch_up	= tq_dev_manual_catch_up,
	.arm		= tq_dev_manual_arm,
	.remove		= tq_dev_manual_remove,
	.move		= tq_dev_manual_move,
	.first		= tq_dev_manual_first,
	.delete_min	= tq_dev_manual_delete_min,
	.advance	= tq_dev_manual_advance,
};

/* CLOCK_MONOTONIC: a timer base, which expires its elements itself. */
static int tq_dev_monotonic_create(struct tq_dev_file *f,
				   const struct timeq_configure *arg)
{
	static struct lock_class_key expiry_key;
	struct timeq_base *base;

	base = tq_base_create_shared(arg->granularity, arg->horizon,
				     GFP_KERNEL_ACCOUNT, &expiry_key);
	if (IS_ERR(base))
		return PTR_ERR(base);
	f->base = base;
	WRITE_ONCE(f->q, tq_base_queue(base));
	return 0;
}

static void tq_dev_monotonic_destroy(struct tq_dev_file *f)
{
	timeq_base_destroy(f->base);
}

static u64 tq_dev_monotonic_now(struct tq_dev_file *f)
{
	return tq_clock_now(f->base);
}

/* Expiring what is due brings the queue's clock to the current tick. */
static u64 tq_dev_monotonic_catch_up(struct tq_dev_file *f, u64 *time)
{
	u64 now;

	timeq_expire(f->base);
	now = tq_clock_now(f->base);
	*time = max(*time, now);
	return now;
}

static int tq_dev_monotonic_arm(struct tq_dev_file *f,
				struct tq_dev_element *elem, u64 time)
{
	return timeq_timer_arm(f->base, &elem->timer, time);
}

static void tq_dev_monotonic_remove(struct tq_dev_file *f,
				    struct tq_dev_element *elem)
{
	/* Expired since tq_dev_lookup(), if not armed: take its event back. */
	if (!timeq_delete_sync(f->base, &elem->timer))
		tq_dev_unexpire(f, elem);
}

static int tq_dev_monotonic_move(struct tq_dev_file *f,
				 struct tq_dev_element *elem, u64 time)
{
	int ret = timeq_timer_move(f->base, &elem->timer, time);

	if (ret == -ENOENT) {
		/* It has expired since tq_dev_lookup(): re-arm it. */
		timeq_delete_sync(f->base, &elem->timer);
		tq_dev_unexpire(f, elem);
		ret = timeq_timer_arm(f->base, &elem->timer, time);
	}
	return ret;
}

/*
 * What is due becomes an event first, as before an insert; a timer that
 * TIMEQ_UPDATE moved later by a store is filed at its time.
 */
static struct timeq_node *tq_dev_monotonic_first(struct tq_dev_file *f)
{
	timeq_expire(f->base);
	return tq_clock_first(f->base);
}

static const struct tq_dev_clock tq_dev_monotonic = {
	.id		= TIMEQ_CLOCK_MONOTONIC,
	.create		= tq_dev_monotonic_create,
	.destroy	= tq_dev_monotonic_destroy,
	.now		= tq_dev_monotonic_now,
	.catch_up	= tq_dev_monotonic_catch_up,
	.arm		= tq_dev_monotonic_arm,
	.remove		= tq_dev_monotonic_remove,
	.move		= tq_dev_monotonic_move,
	.first		= tq_dev_monotonic_first,
};

/*
 * The clock TIMEQ_CONFIGURE's @arg names, as posix-timers' clockid_to_kclock()
 * finds a k_clock: ERR_PTR(-EOPNOTSUPP) for none, ERR_PTR(-EINVAL) if @arg
 * sets a field that clock does not take.
 */
static const struct tq_dev_clock *
tq_dev_clock_of(const struct timeq_configure *arg)
{
	switch (arg->clock) {
	case TIMEQ_CLOCK_MANUAL:
		return arg->granularity ? ERR_PTR(-EINVAL) : &tq_dev_manual;
	case TIMEQ_CLOCK_MONOTONIC:
		/* Checked before the user's files are counted. */
		if (arg->start ||
		    !tq_base_span_ok(arg->granularity, arg->horizon))
			return ERR_PTR(-EINVAL);
		return &tq_dev_monotonic;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
}

/*
 * Check that an insert or an update to *@time can be applied, and set
 * *@time to the time it will have, once the clock has caught up. The
 * clock never moves back, so what passes here stays in the window until
 * the caller applies it. Return: 0 or -ERANGE.
 */
static int tq_dev_time(struct tq_dev_file *f, u64 *time)
{
	u64 now;

	lockdep_assert_held(&f->mutex);
	now = f->clock->catch_up(f, time);
	if (*time < now || *time - now >= f->horizon)
		return -ERANGE;
	return 0;
}

/*
 * Prepare an insert: everything that can fail, and nothing anyone sees.
 * The element has its handle and its memory, and is charged; it is not
 * queued. tq_dev_insert_apply() queues it, tq_dev_insert_abort() drops it.
 */
static int tq_dev_insert_prepare(struct tq_dev_file *f, u64 *time, u64 cookie,
				 struct tq_dev_element **out)
{
	struct tq_dev_element *elem;
	int ret;

	ret = tq_dev_time(f, time);
	if (ret)
		return ret;
	if (f->nelems >= f->cap || !tq_dev_user_charge(f->user))
		return -ENOSPC;
	elem = kmem_cache_zalloc(tq_dev_element_cache, GFP_KERNEL_ACCOUNT);
	if (!elem) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	timeq_timer_init(&elem->timer, tq_dev_fire);
	elem->file = f;
	elem->cookie = cookie;
	elem->gen = f->gen + 1;
	ret = xa_alloc(&f->elems, &elem->index, elem, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	*out = elem;
	return 0;

err_free:
	kmem_cache_free(tq_dev_element_cache, elem);
err_uncharge:
	tq_dev_user_uncharge(f->user, 1);
	return ret == -EBUSY ? -ENOSPC : ret;
}

/*
 * Drop a prepared insert. Its handle may have reached userspace (a batch
 * writes it before the result): its generation is used up, so that the
 * next insert, which may take the same slot, has another handle.
 */
static void tq_dev_insert_abort(struct tq_dev_file *f,
				struct tq_dev_element *elem)
{
	f->gen = elem->gen;
	xa_erase(&f->elems, elem->index);
	kmem_cache_free(tq_dev_element_cache, elem);
	tq_dev_user_uncharge(f->user, 1);
}

static void tq_dev_insert_apply(struct tq_dev_file *f,
				struct tq_dev_element *elem, u64 time)
{
	/* tq_dev_time() let only a time that stays in the window through. */
	WARN_ON_ONCE(f->clock->arm(f, elem, time));
	f->nelems++;
	f->inserted++;
	f->gen = elem->gen;
}

/* Delete a queued element that tq_dev_lookup() found; it cannot fail. */
static void tq_dev_delete_apply(struct tq_dev_file *f,
				struct tq_dev_element *elem)
{
	f->clock->remove(f, elem);
	tq_dev_free(f, elem);
}

/*
 * Move a queued element that tq_dev_lookup() found to a time tq_dev_time()
 * passed.
 */
static void tq_dev_update_apply(struct tq_dev_file *f,
				struct tq_dev_element *elem, u64 time)
{
	WARN_ON_ONCE(f->clock->move(f, elem, time));
}

/* Check an update of @handle to *@time; on success *@elem is the element. */
static int tq_dev_update_prepare(struct tq_dev_file *f, u64 handle, u64 *time,
				 struct tq_dev_element **elem)
{
	int ret = tq_dev_time(f, time);

	*elem = tq_dev_lookup(f, handle);
	if (!*elem)
		return -ENOENT;
	return ret;
}

/*
 * Read a command's structure: its size first, refused above TQ_SIZE_MAX
 * before anything more is read, then the rest, the way
 * include/uapi/linux/timeq.h says.
 */
static int tq_dev_copy_in(void *karg, const struct tq_dev_ioctl_op *ioc,
			  void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize > TQ_SIZE_MAX)
		return -E2BIG;
	if (*usize < ioc->min_size)
		return -EINVAL;
	return copy_struct_from_user(karg, ioc->size, uarg, *usize);
}

/*
 * Write the out fields of a command, from @offset to the end of what both
 * the kernel and userspace know of the structure.
 */
static int tq_dev_copy_out(void __user *uarg, const void *karg, size_t offset,
			   size_t ksize, u32 usize)
{
	size_t end = min_t(size_t, ksize, usize);

	if (copy_to_user(uarg + offset, karg + offset, end - offset))
		return -EFAULT;
	return 0;
}

/* Whether the @len bytes of @p are zero: out fields must be, on input. */
static bool tq_dev_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long tq_dev_configure(struct tq_dev_file *f, void *karg,
			     void __user *uarg, u32 usize)
{
	struct timeq_configure *arg = karg;
	u32 cap = arg->max_elements ? arg->max_elements : default_elements;
	u32 esize = arg->event_size ? arg->event_size : TIMEQ_EVENT_SIZE_VER0;
	const struct tq_dev_clock *clock;
	struct tq_dev_user *user;
	int ret;

	if (esize > TQ_SIZE_MAX)
		return -E2BIG;
	if (!arg->horizon || arg->horizon > max_horizon || cap > max_elements ||
	    cap > INT_MAX || esize < TIMEQ_EVENT_SIZE_VER0 || esize % 8)
		return -EINVAL;
	if (f->q)
		return -EBUSY;
	clock = tq_dev_clock_of(arg);
	if (IS_ERR(clock))
		return PTR_ERR(clock);
	user = tq_dev_user_get(current_euid());
	if (IS_ERR(user))
		return PTR_ERR(user);
	ret = clock->create(f, arg);
	if (ret)
		goto err_user;
	f->clock = clock;
	f->user = user;
	f->horizon = arg->horizon;
	f->cap = cap;
	f->event_size = esize;
	return 0;

err_user:
	tq_dev_user_put(user);
	return ret;
}

/*
 * One operation, run the same way by its own command and as an entry of
 * TIMEQ_BATCH: tq_dev_op_prepare() checks it and prepares everything that
 * can fail (an insert's handle is then in @op), returning its errno or 0;
 * tq_dev_op_apply() applies a prepared operation and cannot fail;
 * tq_dev_op_abort() drops one instead.
 */
static int tq_dev_op_prepare(struct tq_dev_file *f, struct timeq_op *op,
			     struct tq_dev_element **elem)
{
	int ret;

	if (op->result)
		return -EINVAL;
	switch (op->op) {
	case TIMEQ_OP_INSERT:
		if (op->handle)
			return -EINVAL;
		ret = tq_dev_insert_prepare(f, &op->time, op->cookie, elem);
		if (!ret)
			op->handle = tq_dev_handle(*elem);
		return ret;
	case TIMEQ_OP_DELETE:
		if (op->time || op->cookie)
			return -EINVAL;
		*elem = tq_dev_lookup(f, op->handle);
		return *elem ? 0 : -ENOENT;
	case TIMEQ_OP_UPDATE:
		if (op->cookie)
			return -EINVAL;
		return tq_dev_update_prepare(f, op->handle, &op->time, elem);
	default:
		return -EOPNOTSUPP;
	}
}

static void tq_dev_op_apply(struct tq_dev_file *f, const struct timeq_op *op,
			    struct tq_dev_element *elem)
{
	switch (op->op) {
	case TIMEQ_OP_INSERT:
		tq_dev_insert_apply(f, elem, op->time);
		break;
	case TIMEQ_OP_DELETE:
		tq_dev_delete_apply(f, elem);
		break;
	case TIMEQ_OP_UPDATE:
		tq_dev_update_apply(f, elem, op->time);
		break;
	}
}

static void tq_dev_op_abort(struct tq_dev_file *f, const struct timeq_op *op,
			    struct tq_dev_element *elem)
{
	if (op->op == TIMEQ_OP_INSERT)
		tq_dev_insert_abort(f, elem);
}

static long tq_dev_insert(struct tq_dev_file *f, void *karg, void __user *uarg,
			  u32 usize)
{
	struct timeq_insert *arg = karg;
	struct timeq_op op = {
		.op = TIMEQ_OP_INSERT,
		.handle = arg->handle,
		.time = arg->time,
		.cookie = arg->cookie,
	};
	struct tq_dev_element *elem;
	int ret;

	if (arg->__reserved)
		return -EINVAL;
	ret = tq_dev_op_prepare(f, &op, &elem);
	if (ret)
		return ret;
	arg->handle = op.handle;
	ret = tq_dev_copy_out(uarg, arg, offsetof(struct timeq_insert, handle),
			      sizeof(*arg), usize);
	if (ret) {
		tq_dev_op_abort(f, &op, elem);
		return ret;
	}
	tq_dev_op_apply(f, &op, elem);
	return 0;
}

static long tq_dev_delete(struct tq_dev_file *f, void *karg, void __user *uarg,
			  u32 usize)
{
	struct timeq_delete *arg = karg;
	struct timeq_op op = { .op = TIMEQ_OP_DELETE, .handle = arg->handle };
	struct tq_dev_element *elem;
	int ret;

	if (arg->__reserved)
		return -EINVAL;
	ret = tq_dev_op_prepare(f, &op, &elem);
	if (ret)
		return ret;
	tq_dev_op_apply(f, &op, elem);
	return 0;
}

static long tq_dev_update(struct tq_dev_file *f, void *karg, void __user *uarg,
			  u32 usize)
{
	struct timeq_update *arg = karg;
	struct timeq_op op = {
		.op = TIMEQ_OP_UPDATE,
		.handle = arg->handle,
		.time = arg->time,
	};
	struct tq_dev_element *elem;
	int ret;

	if (arg->__reserved)
		return -EINVAL;
	ret = tq_dev_op_prepare(f, &op, &elem);
	if (ret)
		return ret;
	tq_dev_op_apply(f, &op, elem);
	return 0;
}

/* TIMEQ_MIN and TIMEQ_DELETE_MIN: the earliest element, written out. */
static long tq_dev_min_out(struct tq_dev_file *f, struct timeq_element *arg,
			   void __user *uarg, u32 usize,
			   struct timeq_node **node)
{
	struct tq_dev_element *elem;

	if (arg->__reserved ||
	    !tq_dev_zero(&arg->handle,
			 sizeof(*arg) - offsetof(struct timeq_element, handle)))
		return -EINVAL;
	*node = f->clock->first(f);
	if (!*node)
		return -ENODATA;
	elem = container_of(*node, struct tq_dev_element, timer.node);
	arg->handle = tq_dev_handle(elem);
	arg->time = timeq_node_time(*node);
	arg->cookie = elem->cookie;
	return tq_dev_copy_out(uarg, arg,
			       offsetof(struct timeq_element, handle),
			       sizeof(*arg), usize);
}

static long tq_dev_min(struct tq_dev_file *f, void *karg, void __user *uarg,
		       u32 usize)
{
	struct timeq_node *node;

	return tq_dev_min_out(f, karg, uarg, usize, &node);
}

static long tq_dev_delete_min(struct tq_dev_file *f, void *karg,
			      void __user *uarg, u32 usize)
{
	struct timeq_node *node, *removed;
	long ret;

	if (!f->clock->delete_min)
		return -EOPNOTSUPP;
	/* The minimum stays the minimum: struct tq_dev_clock, @delete_min. */
	ret = tq_dev_min_out(f, karg, uarg, usize, &node);
	if (ret)
		return ret;
	removed = f->clock->delete_min(f);
	WARN_ON_ONCE(removed != node);
	if (removed)
		tq_dev_free(f, container_of(removed, struct tq_dev_element,
					    timer.node));
	return 0;
}

static long tq_dev_advance(struct tq_dev_file *f, void *karg, void __user *uarg,
			   u32 usize)
{
	struct timeq_advance *arg = karg;

	if (arg->__reserved)
		return -EINVAL;
	if (!f->clock->advance)
		return -EOPNOTSUPP;
	return f->clock->advance(f, arg->time);
}

/* The queue's shape and expiries, which debugfs shows too (stats.c). */
static void tq_dev_stats_queue(struct timeq_stats *out, struct timeq *q)
{
	struct tq_snapshot s;

	tq_stats_snapshot(q, &s);
	out->delta = s.delta;
	out->buckets = s.buckets;
	out->expiry_runs = s.counters.expiry_runs;
	BUILD_BUG_ON(sizeof(out->lateness) != sizeof(s.counters.lateness));
	memcpy(out->lateness, s.counters.lateness, sizeof(out->lateness));
}

static long tq_dev_stats(struct tq_dev_file *f, void *karg, void __user *uarg,
			 u32 usize)
{
	struct timeq_stats *arg = karg;

	/* Past @size, @arg is zero: it is the result, written whole. */
	if (!tq_dev_zero(&arg->clock,
			 sizeof(*arg) - offsetof(struct timeq_stats, clock)))
		return -EINVAL;
	arg->filled = min_t(u32, usize, sizeof(*arg));
	if (f->q) {
		arg->clock = f->clock->id;
		arg->now = f->clock->now(f);
		arg->horizon = f->horizon;
		arg->max_elements = f->cap;
		arg->configured = 1;
		arg->inserted = f->inserted;
		/*
		 * @nelems changes only under the mutex, which is held; the
		 * expiry moves an element from queued to events under @lock.
		 */
		spin_lock(&f->lock);
		arg->events = f->nevents;
		arg->queued = f->nelems - f->nevents;
		arg->expired = f->expired;
		spin_unlock(&f->lock);
		tq_dev_stats_queue(arg, f->q);
	}
	return tq_dev_copy_out(uarg, arg, offsetof(struct timeq_stats, clock),
			       sizeof(*arg), usize);
}

/*
 * Write an operation's result, and an insert's handle, into its entry:
 * the out fields only, so that no input is written back.
 */
static int tq_dev_op_out(struct timeq_op __user *uop, const struct timeq_op *op)
{
	if (op->op == TIMEQ_OP_INSERT && !op->result &&
	    put_user(op->handle, &uop->handle))
		return -EFAULT;
	return put_user(op->result, &uop->result);
}

static long tq_dev_batch(struct tq_dev_file *f, void *karg, void __user *uarg,
			 u32 usize)
{
	struct timeq_batch *arg = karg;
	void __user *uops = u64_to_user_ptr(arg->ops);
	struct tq_dev_element *elem = NULL;
	struct timeq_op op;
	u32 i;
	int ret;

	if (arg->entry_len > TQ_SIZE_MAX)
		return -E2BIG;
	if (arg->__reserved || arg->count > TQ_BATCH_MAX ||
	    arg->entry_len < TIMEQ_OP_SIZE_VER0 || arg->entry_len % 8)
		return -EINVAL;
	for (i = 0; i < arg->count; i++) {
		struct timeq_op __user *uop = uops + (size_t)i * arg->entry_len;

		ret = copy_struct_from_user(&op, sizeof(op), uop,
					    arg->entry_len);
		if (ret == -EFAULT)
			goto fault;
		if (ret)
			op.op = 0;	/* -E2BIG: @op was not read */
		else
			ret = tq_dev_op_prepare(f, &op, &elem);
		op.result = ret;
		if (tq_dev_op_out(uop, &op)) {
			if (!ret)
				tq_dev_op_abort(f, &op, elem);
			goto fault;
		}
		if (ret)
			return i;
		tq_dev_op_apply(f, &op, elem);
		cond_resched();
	}
	return i;

fault:
	/* The entry of operation @i could not be read or written. */
	return i ? i : -EFAULT;
}

/* Every command's structure, large enough for the largest. */
union tq_dev_ucmd_buffer {
	struct timeq_configure	configure;
	struct timeq_insert	insert;
	struct timeq_delete	delete;
	struct timeq_update	update;
	struct timeq_element	element;
	struct timeq_advance	advance;
	struct timeq_stats	stats;
	struct timeq_batch	batch;
};

/*
 * An entry of the table: the command TIMEQ_@_name runs @_fn on a @_struct,
 * whose first version ends with @_last; the build fails if the union above
 * cannot hold @_struct.
 */
#define IOCTL_OP(_name, _fn, _struct, _last, _configured)		\
	[TIMEQ_CMD_##_name - TIMEQ_CMD_CONFIGURE] = {			\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union tq_dev_ucmd_buffer) <	\
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = TIMEQ_##_name,				\
		.configured = _configured,				\
		.execute = _fn,						\
	}

static const struct tq_dev_ioctl_op timeq_ioctl_ops[] = {
	IOCTL_OP(CONFIGURE, tq_dev_configure, struct timeq_configure,
		 event_size, false),
	IOCTL_OP(INSERT, tq_dev_insert, struct timeq_insert, handle, true),
	IOCTL_OP(DELETE, tq_dev_delete, struct timeq_delete, handle, true),
	IOCTL_OP(UPDATE, tq_dev_update, struct timeq_update, time, true),
	IOCTL_OP(MIN, tq_dev_min, struct timeq_element, cookie, true),
	IOCTL_OP(DELETE_MIN, tq_dev_delete_min, struct timeq_element, cookie,
		 true),
	IOCTL_OP(ADVANCE, tq_dev_advance, struct timeq_advance, time, true),
	IOCTL_OP(STATS, tq_dev_stats, struct timeq_stats, expired, false),
	IOCTL_OP(BATCH, tq_dev_batch, struct timeq_batch, __reserved, true),
};

/* The first versions the table derives are the sizes the uapi promises. */
static_assert(offsetofend(struct timeq_configure, event_size) ==
	      TIMEQ_CONFIGURE_SIZE_VER0);
static_assert(offsetofend(struct timeq_insert, handle) ==
	      TIMEQ_INSERT_SIZE_VER0);
static_assert(offsetofend(struct timeq_delete, handle) ==
	      TIMEQ_DELETE_SIZE_VER0);
static_assert(offsetofend(struct timeq_update, time) == TIMEQ_UPDATE_SIZE_VER0);
static_assert(offsetofend(struct timeq_element, cookie) ==
	      TIMEQ_ELEMENT_SIZE_VER0);
static_assert(offsetofend(struct timeq_advance, time) ==
	      TIMEQ_ADVANCE_SIZE_VER0);
static_assert(offsetofend(struct timeq_stats, expired) ==
	      TIMEQ_STATS_SIZE_VER0);
static_assert(offsetofend(struct timeq_batch, __reserved) ==
	      TIMEQ_BATCH_SIZE_VER0);

static long tq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tq_dev_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct tq_dev_ioctl_op *ioc;
	union tq_dev_ucmd_buffer buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	long ret;

	if (nr < TIMEQ_CMD_CONFIGURE ||
	    nr - TIMEQ_CMD_CONFIGURE >= ARRAY_SIZE(timeq_ioctl_ops))
		return -ENOTTY;
	ioc = &timeq_ioctl_ops[array_index_nospec(nr - TIMEQ_CMD_CONFIGURE,
						  ARRAY_SIZE(timeq_ioctl_ops))];
	if (ioc->ioctl_num != cmd)
		return -ENOTTY;
	ret = tq_dev_copy_in(&buf, ioc, uarg, &usize);
	if (ret)
		return ret;
	if (mutex_lock_killable(&f->mutex))
		return -EINTR;
	if (ioc->configured && !f->q)
		ret = -EBADFD;
	else
		ret = ioc->execute(f, &buf, uarg, usize);
	mutex_unlock(&f->mutex);
	return ret;
}

static ssize_t tq_dev_read(struct file *file, char __user *buf, size_t len,
			   loff_t *pos)
{
	struct timeq_event ev[TQ_READ_MAX];
	struct tq_dev_file *f = file->private_data;
	struct tq_dev_element *elem, *next;
	size_t esize, n, i = 0, done, fill;
	LIST_HEAD(taken);
	ssize_t ret;

	for (;;) {
		if (mutex_lock_killable(&f->mutex))
			return -EINTR;
		if (!f->q) {
			ret = -EBADFD;
			goto out;
		}
		esize = f->event_size;
		if (len < esize) {
			ret = -EINVAL;
			goto out;
		}
		if (READ_ONCE(f->nevents))
			break;
		mutex_unlock(&f->mutex);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(f->wait, READ_ONCE(f->nevents));
		if (ret)
			return ret;
	}
	n = min_t(size_t, len / esize, TQ_READ_MAX);
	fill = min_t(size_t, esize, sizeof(ev[0]));
	/* Only read() removes events, under the mutex: the head is stable. */
	spin_lock(&f->lock);
	list_for_each_entry(elem, &f->events, event) {
		if (i == n)
			break;
		ev[i].size = fill;
		ev[i].flags = 0;
		ev[i].handle = tq_dev_handle(elem);
		ev[i].time = timeq_node_time(&elem->timer.node);
		ev[i].cookie = elem->cookie;
		i++;
	}
	spin_unlock(&f->lock);
	for (done = 0; done < i; done++) {
		char __user *to = buf + done * esize;

		if (copy_to_user(to, &ev[done], fill) ||
		    clear_user(to + fill, esize - fill))
			break;
	}
	if (!done) {
		ret = -EFAULT;
		goto out;
	}
	spin_lock(&f->lock);
	for (i = 0; i < done; i++)
		list_move_tail(f->events.next, &taken);
	WRITE_ONCE(f->nevents, f->nevents - done);
	spin_unlock(&f->lock);
	list_for_each_entry_safe(elem, next, &taken, event)
		tq_dev_free(f, elem);
	ret = done * esize;
out:
	mutex_unlock(&f->mutex);
	return ret;
}

/*
 * Not configured, read() fails at once: EPOLLERR, as tun before
 * TUNSETIFF. The wait is registered first all the same, for an epoll that
 * added the file before TIMEQ_CONFIGURE to see its events.
 */
static __poll_t tq_dev_poll(struct file *file, poll_table *wait)
{
	struct tq_dev_file *f = file->private_data;

	poll_wait(file, &f->wait, wait);
	if (!READ_ONCE(f->q))
		return EPOLLERR;
	return READ_ONCE(f->nevents) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int tq_dev_open(struct inode *inode, struct file *file)
{
	struct tq_dev_file *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->mutex);
	xa_init_flags(&f->elems, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	f->gen = get_random_u32();
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->events);
	init_waitqueue_head(&f->wait);
	file->private_data = f;
	return stream_open(inode, file);
}

static int tq_dev_release(struct inode *inode, struct file *file)
{
	struct tq_dev_file *f = file->private_data;
	struct tq_dev_element *elem;
	unsigned long index;

	/* No callback runs after this; queued elements are released. */
	if (f->clock)
		f->clock->destroy(f);
	xa_for_each(&f->elems, index, elem) {
		kmem_cache_free(tq_dev_element_cache, elem);
		cond_resched();
	}
	xa_destroy(&f->elems);
	if (f->user) {
		tq_dev_user_uncharge(f->user, f->nelems);
		tq_dev_user_put(f->user);
	}
	mutex_destroy(&f->mutex);
	kfree(f);
	return 0;
}

static const struct file_operations timeq_fops = {
	.owner		= THIS_MODULE,
	.open		= tq_dev_open,
	.release	= tq_dev_release,
	.read		= tq_dev_read,
	.poll		= tq_dev_poll,
	.unlocked_ioctl	= tq_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice timeq_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "timeq",
	.fops	= &timeq_fops,
	.mode	= 0666,
};

int tq_dev_init(void)
{
	unsigned long cost;
	int ret;

	tq_dev_element_cache = KMEM_CACHE(tq_dev_element, SLAB_ACCOUNT);
	if (!tq_dev_element_cache)
		return -ENOMEM;
	/*
	 * As epoll sizes max_user_watches: 4% of RAM, over what an element
	 * takes (its object and its share of an xarray node).
	 */
	if (!max_user_elements) {
		cost = kmem_cache_size(tq_dev_element_cache) +
		       DIV_ROUND_UP(sizeof(struct xa_node), XA_CHUNK_SIZE);
		max_user_elements =
			min((totalram_pages() / 25 << PAGE_SHIFT) / cost,
			    (unsigned long)INT_MAX);
	}
	ret = misc_register(&timeq_misc);
	if (ret)
		goto err_cache;
	return 0;

err_cache:
	kmem_cache_destroy(tq_dev_element_cache);
	return ret;
}

void tq_dev_exit(void)
{
	misc_deregister(&timeq_misc);
	kmem_cache_destroy(tq_dev_element_cache);
}
