// SPDX-License-Identifier: GPL-2.0
/*
 * vmcheck - throwaway module that proves the timeq qemu test bench.
 *
 * Not part of timeq.  tools/testing/vm/selftest.sh builds it out of tree,
 * loads it in the debug guest once clean (must PASS) and once per planted
 * failure (must FAIL, caught by the right check of run.sh).  Every plant is
 * a module parameter, off by default:
 *
 *   warn=1       WARN_ON(1)                               -> "WARNING:"
 *   lockdep=1    two spinlocks taken in both orders       -> lockdep report
 *   kasan=1      read one byte past a kmalloc() buffer    -> KASAN report
 *   leak=1       kmalloc() and drop the pointer           -> kmemleak report
 *   race=1       two threads store to and load from one
 *                plain variable at once, unmarked and
 *                unlocked: a data race                  -> KCSAN report
 *                (in a kernel with KCSAN; elsewhere the
 *                threads race unseen, and the run passes)
 *   kunit_fail=1 make the KUnit case vmcheck_planted fail -> "not ok"
 *   hang=1       module init never returns, so insmod and
 *                the guest's init never finish            -> timeout
 *
 * With KUnit in the kernel (the debug kernel) it carries a KUnit suite
 * "vmcheck" of two cases; without it (stock Debian kernels) it is a plain
 * module, so the same source smoke-tests the stock-kernel path.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/delay.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/test.h>
#endif

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "plant a WARN_ON");
static bool lockdep;
module_param(lockdep, bool, 0444);
MODULE_PARM_DESC(lockdep, "plant an AB-BA lock order inversion");
static bool kasan;
module_param(kasan, bool, 0444);
MODULE_PARM_DESC(kasan, "plant a slab out-of-bounds read");
static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "plant a memory leak");
static bool race;
module_param(race, bool, 0444);
MODULE_PARM_DESC(race, "plant a data race between two threads");
static bool kunit_fail;
module_param(kunit_fail, bool, 0444);
MODULE_PARM_DESC(kunit_fail, "make the KUnit case vmcheck_planted fail");
static bool hang;
module_param(hang, bool, 0444);
MODULE_PARM_DESC(hang, "never return from module init");

static DEFINE_SPINLOCK(vmcheck_lock_a);
static DEFINE_SPINLOCK(vmcheck_lock_b);

static noinline void vmcheck_a_then_b(void)
{
	spin_lock(&vmcheck_lock_a);
	spin_lock(&vmcheck_lock_b);
	spin_unlock(&vmcheck_lock_b);
	spin_unlock(&vmcheck_lock_a);
}

static noinline void vmcheck_b_then_a(void)
{
	spin_lock(&vmcheck_lock_b);
	spin_lock(&vmcheck_lock_a);
	spin_unlock(&vmcheck_lock_a);
	spin_unlock(&vmcheck_lock_b);
}

static noinline void vmcheck_oob(void)
{
	size_t size = 13;
	char *p = kmalloc(size, GFP_KERNEL);
	size_t i = size;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(i);
	/* one byte past the end of a 13-byte object */
	pr_info("vmcheck: planted out-of-bounds read: %d\n", READ_ONCE(p[i]));
	kfree(p);
}

static noinline void vmcheck_leak(void)
{
	void *p = kmalloc(1234, GFP_KERNEL);

	if (p)
		memset(p, 0x5a, 1234);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("vmcheck: planted a leak of 1234 bytes\n");
	/* p goes out of scope, never freed */
}

/*
 * The planted data race: one thread stores a counter to vmcheck_racy while
 * another loads it, both with plain accesses and no lock. KCSAN samples:
 * it watches one access in a few thousand (kcsan.skip_watch) for a few
 * tens of microseconds, so each thread makes enough accesses for many
 * watchpoints to land on vmcheck_racy while the other thread runs. Both
 * say they started before either is let go, so that they overlap (and so
 * that kthread_stop() finds them in their loops, not before them, where
 * it would stop them unrun); barrier() makes each iteration access
 * memory, which the compiler could otherwise fold.
 */
#define VMCHECK_RACE_LOOPS	1000000
static unsigned long vmcheck_racy;
static DECLARE_COMPLETION(vmcheck_race_started);
static DECLARE_COMPLETION(vmcheck_race_go);

static noinline int vmcheck_race_writer(void *arg)
{
	unsigned long i;

	complete(&vmcheck_race_started);
	wait_for_completion(&vmcheck_race_go);
	for (i = 0; i < VMCHECK_RACE_LOOPS; i++) {
		vmcheck_racy = i;	/* plain store: the planted race */
		barrier();
	}
	return 0;
}

static noinline int vmcheck_race_reader(void *arg)
{
	unsigned long i, sum = 0;

	complete(&vmcheck_race_started);
	wait_for_completion(&vmcheck_race_go);
	for (i = 0; i < VMCHECK_RACE_LOOPS; i++) {
		sum += vmcheck_racy;	/* plain load: the planted race */
		barrier();
	}
	return sum & 1;
}

/* Both threads run to the end before this returns (kthread_stop waits). */
static noinline void vmcheck_race(void)
{
	struct task_struct *t[2];
	int i, n = 0;

	t[0] = kthread_create(vmcheck_race_writer, NULL, "vmcheck_writer");
	t[1] = kthread_create(vmcheck_race_reader, NULL, "vmcheck_reader");
	for (i = 0; i < 2; i++) {
		if (IS_ERR(t[i])) {
			pr_err("vmcheck: kthread_create: %ld\n", PTR_ERR(t[i]));
			t[i] = NULL;
			continue;
		}
		get_task_struct(t[i]);
		wake_up_process(t[i]);
		n++;
	}
	while (n--)
		wait_for_completion(&vmcheck_race_started);
	complete_all(&vmcheck_race_go);
	for (i = 0; i < 2; i++) {
		if (!t[i])
			continue;
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	pr_info("vmcheck: planted data race done\n");
}

#if IS_ENABLED(CONFIG_KUNIT)
static void vmcheck_pass(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void vmcheck_planted(struct kunit *test)
{
	KUNIT_EXPECT_FALSE_MSG(test, kunit_fail, "planted failure (kunit_fail=1)");
}

static struct kunit_case vmcheck_cases[] = {
	KUNIT_CASE(vmcheck_pass),
	KUNIT_CASE(vmcheck_planted),
	{}
};

static struct kunit_suite vmcheck_suite = {
	.name = "vmcheck",
	.test_cases = vmcheck_cases,
};
kunit_test_suite(vmcheck_suite);
#endif

static int __init vmcheck_init(void)
{
	pr_info("vmcheck: loaded (warn=%d lockdep=%d kasan=%d leak=%d race=%d kunit_fail=%d hang=%d)\n",
		warn, lockdep, kasan, leak, race, kunit_fail, hang);
	WARN_ON(warn);
	if (lockdep) {
		vmcheck_a_then_b();
		vmcheck_b_then_a();
	}
	if (kasan)
		vmcheck_oob();
	if (leak)
		vmcheck_leak();
	if (race)
		vmcheck_race();
	while (hang)
		msleep_interruptible(1000);
	return 0;
}

static void __exit vmcheck_exit(void)
{
	pr_info("vmcheck: unloaded\n");
}

module_init(vmcheck_init);
module_exit(vmcheck_exit);
MODULE_DESCRIPTION("throwaway module proving the timeq qemu test bench");
MODULE_LICENSE("GPL");
