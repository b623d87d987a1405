// SPDX-License-Identifier: GPL-2.0
/*
 * timeq: /dev/timeq, a timer queue per open file, for userspace.
 *
 * The ABI, and the errno of every failure, is in include/uapi/linux/timeq.h.
 * This file maps it onto the in-kernel API:
 *
 *  - A file (struct timeq_file) owns one queue, made by TIMEQ_CONFIGURE:
 *    timeq_create() for the manual clock, timeq_create_monotonic() for
 *    CLOCK_MONOTONIC. Its elements (struct timeq_elem) are timers, each
 *    with the caller's cookie, allocated from a kmem_cache made with
 *    SLAB_ACCOUNT, so a user's elements are charged to its memory cgroup;
 *    so are the file, the queue's arrays and the handle table.
 *  - A handle is the element's index in the file's xarray (low 32 bits)
 *    and a generation (high 32 bits) drawn from a counter shared by every
 *    file. A handle is refused once its element is gone, and by any other
 *    file: their elements have other generations, until the counter wraps
 *    after 2^32 elements. The kernel pointer is never shown.
 *  - An element that expires becomes an event: the expiry (timeq_advance
 *    under the file's mutex on the manual clock, the module's workqueue on
 *    the monotonic one) moves it to the file's event list and wakes
 *    readers. read() copies events out, then frees their elements. The cap
 *    counts elements queued and events unread, so a slow reader makes
 *    inserts fail with ENOSPC and no event is ever dropped.
 *
 * Locking: @mutex serialises the commands, read() and the element table;
 * @lock guards the event list, which the monotonic expiry appends to
 * without the mutex (the expiry must never wait for a command, which may
 * be waiting for the queue). A monotonic element that expires while a
 * command looks at it is handled by the queue: timeq_timer_delete() and
 * timeq_timer_move() act only on a timer still armed, under its locks.
 *
 * Permissions: the device is 0666. Any local user may open it, as any user
 * may make timerfds: what a file can make the kernel hold is bounded by
 * the element cap and the horizon (module parameters), and all of it is
 * charged to the user's memory cgroup.
 */

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timeq.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/timeq.h>

#include "dev.h"

static unsigned int default_elements = 65536;
module_param(default_elements, uint, 0644);
MODULE_PARM_DESC(default_elements,
		 "Element cap of a /dev/timeq file that asks for none (default 65536)");

static unsigned int max_elements = 1 << 20;
module_param(max_elements, uint, 0644);
MODULE_PARM_DESC(max_elements,
		 "Largest element cap a /dev/timeq file may ask for (default 2^20)");

static unsigned long long max_horizon = 1ULL << 32;
module_param(max_horizon, ullong, 0644);
MODULE_PARM_DESC(max_horizon,
		 "Largest horizon of a /dev/timeq file, in ticks (default 2^32)");

/* Operations one TIMEQ_BATCH may carry. */
#define TQ_BATCH_MAX	4096
/* Events one read() copies at most. */
#define TQ_READ_MAX	16
/* The largest structure a user may say it has. */
#define TQ_SIZE_MAX	4096

/**
 * struct timeq_file - the state of one open /dev/timeq
 * @mutex:	serialises commands, read() and @elems
 * @q:		the queue, or NULL until TIMEQ_CONFIGURE
 * @clock:	the configured &enum timeq_clockid
 * @horizon:	the configured horizon
 * @cap:	the element cap
 * @nelems:	elements queued plus events unread
 * @elems:	every element, by index
 * @inserted:	elements inserted so far
 * @lock:	guards @events, @nevents and @expired
 * @events:	expired elements, oldest first
 * @nevents:	the length of @events
 * @expired:	elements that became events so far
 * @wait:	readers and pollers wait here for an event
 */
struct timeq_file {
	struct mutex		mutex;		/* commands, read(), elems */
	struct timeq		*q;
	u32			clock;
	u64			horizon;
	u32			cap;
	u32			nelems;
	struct xarray		elems;
	u64			inserted;
	spinlock_t		lock;		/* events, nevents, expired */
	struct list_head	events;
	u64			nevents;
	u64			expired;
	wait_queue_head_t	wait;
};

/**
 * struct timeq_elem - an element of a /dev/timeq file
 * @timer:	queued in the file's queue while armed
 * @file:	the file
 * @cookie:	the caller's value
 * @index:	its index in @file->elems
 * @gen:	its generation, the high half of its handle
 * @expired:	set, under @file->lock, when it becomes an event
 * @event:	its place in @file->events once expired
 */
struct timeq_elem {
	struct timeq_timer	timer;
	struct timeq_file	*file;
	u64			cookie;
	u32			index;
	u32			gen;
	bool			expired;
	struct list_head	event;
};

static struct kmem_cache *timeq_elem_cache;
static atomic_t timeq_gen = ATOMIC_INIT(0);

static u64 dev_handle(const struct timeq_elem *elem)
{
	return (u64)elem->gen << 32 | elem->index;
}

/* The queued element @handle names, or NULL. */
static struct timeq_elem *dev_lookup(struct timeq_file *f, u64 handle)
{
	struct timeq_elem *elem = xa_load(&f->elems, (u32)handle);

	lockdep_assert_held(&f->mutex);
	if (!elem || elem->gen != handle >> 32 || READ_ONCE(elem->expired))
		return NULL;
	return elem;
}

static void dev_free(struct timeq_file *f, struct timeq_elem *elem)
{
	xa_erase(&f->elems, elem->index);
	kmem_cache_free(timeq_elem_cache, elem);
	f->nelems--;
}

/* An element expired: make it an event. */
static void dev_expired(struct timeq_elem *elem)
{
	struct timeq_file *f = elem->file;

	spin_lock(&f->lock);
	WRITE_ONCE(elem->expired, true);
	list_add_tail(&elem->event, &f->events);
	WRITE_ONCE(f->nevents, f->nevents + 1);
	f->expired++;
	spin_unlock(&f->lock);
	wake_up_interruptible_poll(&f->wait, EPOLLIN | EPOLLRDNORM);
}

/* The monotonic clock's callback, on the module's workqueue. */
static void dev_fire(struct timeq_timer *timer)
{
	dev_expired(container_of(timer, struct timeq_elem, timer));
}

/* TIMEQ_ADVANCE's callback, under the file's mutex. */
static void dev_advance_fn(struct timeq_node *node, void *arg)
{
	dev_expired(container_of(node, struct timeq_elem, timer.node));
}

/*
 * Read a command's structure of @ksize bytes, the first version of which
 * is @minsize bytes, the way include/uapi/linux/timeq.h says: its size
 * first, refused above TQ_SIZE_MAX before anything more is read, as
 * openat2() and clone3() refuse a size above a page.
 */
static int dev_copy_in(void *karg, size_t ksize, size_t minsize,
		       void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize > TQ_SIZE_MAX)
		return -E2BIG;
	if (*usize < minsize)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, *usize);
}

static int dev_copy_out(void __user *uarg, const void *karg, size_t ksize,
			u32 usize)
{
	return copy_to_user(uarg, karg, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

static int dev_configure(struct timeq_file *f, struct timeq_configure *arg)
{
	u32 cap = arg->max_elements ? arg->max_elements : default_elements;
	struct timeq *q;

	if (arg->__reserved || !arg->horizon || arg->horizon > max_horizon ||
	    cap > max_elements)
		return -EINVAL;
	if (f->q)
		return -EBUSY;
	switch (arg->clock) {
	case TIMEQ_CLOCK_MANUAL:
		if (arg->granularity)
			return -EINVAL;
		q = timeq_create(arg->start, arg->horizon, 0, 0,
				 GFP_KERNEL_ACCOUNT);
		break;
	case TIMEQ_CLOCK_MONOTONIC:
		if (arg->start)
			return -EINVAL;
		q = timeq_create_monotonic(arg->granularity, arg->horizon, 0,
					   0, GFP_KERNEL_ACCOUNT);
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (IS_ERR(q))
		return PTR_ERR(q);
	f->clock = arg->clock;
	f->horizon = arg->horizon;
	f->cap = cap;
	f->q = q;
	return 0;
}

static int dev_insert(struct timeq_file *f, u64 time, u64 cookie, u64 *handle)
{
	struct timeq_elem *elem;
	u32 index;
	int ret;

	if (f->nelems >= f->cap)
		return -ENOSPC;
	elem = kmem_cache_zalloc(timeq_elem_cache, GFP_KERNEL_ACCOUNT);
	if (!elem)
		return -ENOMEM;
	timeq_timer_init(&elem->timer, dev_fire);
	elem->file = f;
	elem->cookie = cookie;
	ret = xa_alloc(&f->elems, &index, elem, xa_limit_32b, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free;
	elem->index = index;
	do {
		elem->gen = atomic_inc_return(&timeq_gen);
	} while (!elem->gen);
	if (f->clock == TIMEQ_CLOCK_MANUAL)
		ret = timeq_insert(f->q, &elem->timer.node, time);
	else
		ret = timeq_timer_arm(f->q, &elem->timer, time);
	if (ret)
		goto err_erase;
	f->nelems++;
	f->inserted++;
	*handle = dev_handle(elem);
	return 0;

err_erase:
	xa_erase(&f->elems, index);
err_free:
	kmem_cache_free(timeq_elem_cache, elem);
	return ret == -EBUSY ? -ENOSPC : ret;
}

static int dev_delete(struct timeq_file *f, u64 handle)
{
	struct timeq_elem *elem = dev_lookup(f, handle);

	if (!elem)
		return -ENOENT;
	if (f->clock == TIMEQ_CLOCK_MANUAL) {
		if (timeq_delete(f->q, &elem->timer.node))
			return -ENOENT;
	} else if (!timeq_timer_delete(f->q, &elem->timer)) {
		return -ENOENT;		/* it has just expired */
	}
	dev_free(f, elem);
	return 0;
}

static int dev_update(struct timeq_file *f, u64 handle, u64 time)
{
	struct timeq_elem *elem = dev_lookup(f, handle);

	if (!elem)
		return -ENOENT;
	if (f->clock == TIMEQ_CLOCK_MANUAL)
		return timeq_update(f->q, &elem->timer.node, time);
	return timeq_timer_move(f->q, &elem->timer, time);
}

static int dev_batch(struct timeq_file *f, struct timeq_batch *arg)
{
	struct timeq_op __user *uops = u64_to_user_ptr(arg->ops);
	struct timeq_op *ops;
	size_t size;
	int ret = 0;
	u32 i;

	if (arg->__reserved || arg->count > TQ_BATCH_MAX)
		return -EINVAL;
	size = array_size(arg->count, sizeof(*ops));
	ops = kvmalloc(size ? size : 1, GFP_KERNEL_ACCOUNT);
	if (!ops)
		return -ENOMEM;
	/* Read it, and prove it writable, before anything is applied. */
	if (copy_from_user(ops, uops, size) || copy_to_user(uops, ops, size)) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < arg->count; i++) {
		struct timeq_op *op = &ops[i];

		switch (op->op) {
		case TIMEQ_OP_INSERT:
			op->result = dev_insert(f, op->time, op->cookie,
						&op->handle);
			break;
		case TIMEQ_OP_DELETE:
			op->result = op->cookie || op->time ? -EINVAL :
				     dev_delete(f, op->handle);
			break;
		case TIMEQ_OP_UPDATE:
			op->result = op->cookie ? -EINVAL :
				     dev_update(f, op->handle, op->time);
			break;
		default:
			op->result = -EOPNOTSUPP;
			break;
		}
		if (op->result)
			break;
	}
	arg->done = i;
	if (copy_to_user(uops, ops, size))
		ret = -EFAULT;
out:
	kvfree(ops);
	return ret;
}

static int dev_stats(struct timeq_file *f, struct timeq_stats *arg)
{
	struct timeq_stats out = { .size = arg->size };

	if (f->q) {
		out.clock = f->clock;
		out.now = timeq_now(f->q);
		out.horizon = f->horizon;
		out.max_elements = f->cap;
		out.configured = 1;
		out.inserted = f->inserted;
		/*
		 * @nelems changes only under the mutex, which is held; the
		 * expiry moves an element from queued to events under @lock.
		 */
		spin_lock(&f->lock);
		out.events = f->nevents;
		out.queued = f->nelems - f->nevents;
		out.expired = f->expired;
		spin_unlock(&f->lock);
	}
	*arg = out;
	return 0;
}

/* The element TIMEQ_MIN or TIMEQ_DELETE_MIN reports. */
static void dev_element(struct timeq_element *arg, struct timeq_node *node)
{
	struct timeq_elem *elem = container_of(node, struct timeq_elem,
					       timer.node);

	arg->handle = dev_handle(elem);
	arg->time = timeq_node_time(node);
	arg->cookie = elem->cookie;
}

static long dev_command(struct timeq_file *f, unsigned int cmd,
			void __user *uarg)
{
	union {
		struct timeq_configure	configure;
		struct timeq_insert	insert;
		struct timeq_delete	delete;
		struct timeq_update	update;
		struct timeq_element	element;
		struct timeq_advance	advance;
		struct timeq_stats	stats;
		struct timeq_batch	batch;
	} arg;
	struct timeq_node *node;
	size_t size;
	u32 usize;
	int ret;

	switch (cmd) {
	case TIMEQ_CONFIGURE:
		size = sizeof(arg.configure);
		break;
	case TIMEQ_INSERT:
		size = sizeof(arg.insert);
		break;
	case TIMEQ_DELETE:
		size = sizeof(arg.delete);
		break;
	case TIMEQ_UPDATE:
		size = sizeof(arg.update);
		break;
	case TIMEQ_MIN:
	case TIMEQ_DELETE_MIN:
		size = sizeof(arg.element);
		break;
	case TIMEQ_ADVANCE:
		size = sizeof(arg.advance);
		break;
	case TIMEQ_STATS:
		size = sizeof(arg.stats);
		break;
	case TIMEQ_BATCH:
		size = sizeof(arg.batch);
		break;
	default:
		return -ENOTTY;
	}
	ret = dev_copy_in(&arg, size, size, uarg, &usize);
	if (ret)
		return ret;
	/* Prove the structure writable before anything is applied. */
	ret = dev_copy_out(uarg, &arg, size, usize);
	if (ret)
		return ret;
	if (cmd == TIMEQ_CONFIGURE)
		return dev_configure(f, &arg.configure);
	if (cmd == TIMEQ_STATS) {
		ret = dev_stats(f, &arg.stats);
		goto out;
	}
	if (!f->q)
		return -EBADFD;

	switch (cmd) {
	case TIMEQ_INSERT:
		if (arg.insert.__reserved)
			return -EINVAL;
		ret = dev_insert(f, arg.insert.time, arg.insert.cookie,
				 &arg.insert.handle);
		break;
	case TIMEQ_DELETE:
		if (arg.delete.__reserved)
			return -EINVAL;
		return dev_delete(f, arg.delete.handle);
	case TIMEQ_UPDATE:
		if (arg.update.__reserved)
			return -EINVAL;
		return dev_update(f, arg.update.handle, arg.update.time);
	case TIMEQ_MIN:
		if (arg.element.__reserved)
			return -EINVAL;
		node = timeq_min(f->q);
		if (!node)
			return -ENODATA;
		dev_element(&arg.element, node);
		break;
	case TIMEQ_DELETE_MIN:
		if (arg.element.__reserved)
			return -EINVAL;
		if (f->clock != TIMEQ_CLOCK_MANUAL)
			return -EOPNOTSUPP;
		node = timeq_delete_min(f->q);
		if (!node)
			return -ENODATA;
		dev_element(&arg.element, node);
		dev_free(f, container_of(node, struct timeq_elem, timer.node));
		break;
	case TIMEQ_ADVANCE:
		if (arg.advance.__reserved)
			return -EINVAL;
		if (f->clock != TIMEQ_CLOCK_MANUAL)
			return -EOPNOTSUPP;
		arg.advance.expired = timeq_del_less_than(f->q, arg.advance.time,
							  dev_advance_fn, f);
		break;
	case TIMEQ_BATCH:
		ret = dev_batch(f, &arg.batch);
		break;
	}
out:
	if (!ret)
		ret = dev_copy_out(uarg, &arg, size, usize);
	return ret;
}

static long dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct timeq_file *f = file->private_data;
	long ret;

	mutex_lock(&f->mutex);
	ret = dev_command(f, cmd, (void __user *)arg);
	mutex_unlock(&f->mutex);
	return ret;
}

static ssize_t dev_read(struct file *file, char __user *buf, size_t len,
			loff_t *pos)
{
	struct timeq_event ev[TQ_READ_MAX];
	struct timeq_file *f = file->private_data;
	struct timeq_elem *elem, *next;
	size_t n = min_t(size_t, len / sizeof(ev[0]), TQ_READ_MAX), i = 0;
	LIST_HEAD(taken);
	int ret;

	if (!n)
		return -EINVAL;
	for (;;) {
		mutex_lock(&f->mutex);
		if (!f->q) {
			mutex_unlock(&f->mutex);
			return -EBADFD;
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
	/* Only read() removes events, under the mutex: the head is stable. */
	spin_lock(&f->lock);
	list_for_each_entry(elem, &f->events, event) {
		if (i == n)
			break;
		ev[i].handle = dev_handle(elem);
		ev[i].time = timeq_node_time(&elem->timer.node);
		ev[i].cookie = elem->cookie;
		i++;
	}
	spin_unlock(&f->lock);
	if (copy_to_user(buf, ev, i * sizeof(ev[0]))) {
		mutex_unlock(&f->mutex);
		return -EFAULT;
	}
	spin_lock(&f->lock);
	for (n = 0; n < i; n++)
		list_move_tail(f->events.next, &taken);
	WRITE_ONCE(f->nevents, f->nevents - i);
	spin_unlock(&f->lock);
	list_for_each_entry_safe(elem, next, &taken, event)
		dev_free(f, elem);
	mutex_unlock(&f->mutex);
	return i * sizeof(ev[0]);
}

static __poll_t dev_poll(struct file *file, poll_table *wait)
{
	struct timeq_file *f = file->private_data;

	poll_wait(file, &f->wait, wait);
	return READ_ONCE(f->nevents) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int dev_open(struct inode *inode, struct file *file)
{
	struct timeq_file *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->mutex);
	xa_init_flags(&f->elems, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->events);
	init_waitqueue_head(&f->wait);
	file->private_data = f;
	return stream_open(inode, file);
}

static int dev_release(struct inode *inode, struct file *file)
{
	struct timeq_file *f = file->private_data;
	struct timeq_elem *elem;
	unsigned long index;

	/* No callback runs after this; queued elements are released. */
	timeq_destroy(f->q);
	xa_for_each(&f->elems, index, elem)
		kmem_cache_free(timeq_elem_cache, elem);
	xa_destroy(&f->elems);
	mutex_destroy(&f->mutex);
	kfree(f);
	return 0;
}

static const struct file_operations timeq_fops = {
	.owner		= THIS_MODULE,
	.open		= dev_open,
	.release	= dev_release,
	.read		= dev_read,
	.poll		= dev_poll,
	.unlocked_ioctl	= dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice timeq_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "timeq",
	.fops	= &timeq_fops,
	.mode	= 0666,
};

int timeq_dev_init(void)
{
	int ret;

	timeq_elem_cache = KMEM_CACHE(timeq_elem, SLAB_ACCOUNT);
	if (!timeq_elem_cache)
		return -ENOMEM;
	ret = misc_register(&timeq_misc);
	if (ret)
		goto err_cache;
	return 0;

err_cache:
	kmem_cache_destroy(timeq_elem_cache);
	return ret;
}

void timeq_dev_exit(void)
{
	misc_deregister(&timeq_misc);
	kmem_cache_destroy(timeq_elem_cache);
}
