// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_flowtrack_aid.ko: what the flowtrack tests (tools/testing/flowtrack)
 * need of netfilter that a program cannot do, in the initial network
 * namespace of a test guest. Built by the Kbuild with TIMEQ_CLIENT=y, for
 * kernels with IPv4 and netfilter. Its parameters choose, at load:
 *
 *  fill	register do-nothing hooks at IPv4 LOCAL_OUT up to netfilter's
 *		limit of hooks at one place, so that the next registration
 *		there fails with E2BIG. timeq_flowtrack.ko registers
 *		PRE_ROUTING first: its load then fails after that hook went
 *		live.
 *  flood	a kernel thread, on CPU @cpu if it is online, runs the IPv4
 *		PRE_ROUTING hooks on packets of ever new UDP flows from
 *		10.79.0.0/16, with bottom halves off as on reception, as
 *		fast as it can while there are hooks, until the module is
 *		unloaded: a packet for every moment a hook is live.
 *  inject	at load, the PRE_ROUTING hooks run on @inject packets of as
 *		many new UDP flows from 10.78.0.0/16, in this process
 *		context, bottom halves enabled, under rcu_read_lock() only:
 *		what nf_reinject() does with a packet that NFQUEUE gave to
 *		userspace at an earlier hook, when the verdict comes back.
 *
 * Every packet goes from port 1024 + a number to 10.77.0.1:9000 and is
 * freed after the hooks; none is received.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "flowtrack_packet.h"

static bool fill;
module_param(fill, bool, 0444);
MODULE_PARM_DESC(fill, "fill IPv4 LOCAL_OUT's hooks, so that the next registration there fails");

static bool flood;
module_param(flood, bool, 0444);
MODULE_PARM_DESC(flood, "run PRE_ROUTING on new flows from a kernel thread, bottom halves off");

static unsigned int cpu = 1;
module_param(cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU of the flood, if online (default 1)");

static unsigned int inject;
module_param(inject, uint, 0444);
MODULE_PARM_DESC(inject, "packets of new flows to run PRE_ROUTING on at load, in process context");

/* netfilter's MAX_HOOK_COUNT (net/netfilter/core.c), and one over. */
#define AID_MAX_HOOKS	1025

static struct nf_hook_ops *aid_fill_ops;
static unsigned int aid_filled;
static struct task_struct *aid_flood_task;

static unsigned int aid_accept(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

/* Register hooks at LOCAL_OUT until netfilter refuses one with E2BIG. */
static int aid_fill(void)
{
	unsigned int i;
	int err;

	aid_fill_ops =
		kcalloc(AID_MAX_HOOKS, sizeof(*aid_fill_ops), GFP_KERNEL);
	if (!aid_fill_ops)
		return -ENOMEM;
	for (i = 0; i < AID_MAX_HOOKS; i++) {
		aid_fill_ops[i].hook = aid_accept;
		aid_fill_ops[i].pf = NFPROTO_IPV4;
		aid_fill_ops[i].hooknum = NF_INET_LOCAL_OUT;
		aid_fill_ops[i].priority = NF_IP_PRI_LAST;
		err = nf_register_net_hook(&init_net, &aid_fill_ops[i]);
		if (err == -E2BIG)
			break;
		if (err)
			goto err_unregister;
		aid_filled++;
	}
	if (i == AID_MAX_HOOKS) {
		err = -ENOSPC;
		goto err_unregister;
	}
	return 0;

err_unregister:
	nf_unregister_net_hooks(&init_net, aid_fill_ops, aid_filled);
	aid_filled = 0;
	kfree(aid_fill_ops);
	return err;
}

static void aid_unfill(void)
{
	nf_unregister_net_hooks(&init_net, aid_fill_ops, aid_filled);
	kfree(aid_fill_ops);
}

static int aid_okfn(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	consume_skb(skb);
	return 0;
}

/* Run the PRE_ROUTING hooks on @skb, as the context the caller is in. */
static void aid_pre_routing(struct sk_buff *skb)
{
	if (nf_hook(NFPROTO_IPV4, NF_INET_PRE_ROUTING, &init_net, NULL, skb,
		    NULL, NULL, aid_okfn) == 1)
		aid_okfn(&init_net, NULL, skb);
}

/*
 * The next packet is made before it is needed, so that a hook that goes
 * live sees one within a few instructions of the shortcut's read.
 */
static int aid_flood_fn(void *unused)
{
	struct sk_buff *skb = NULL;
	u32 n = 0;

	while (!kthread_should_stop()) {
		if (!skb)
			skb = flowtrack_packet(79, n++);
		/* Racy, and only a shortcut: nf_hook() reads it again. */
		if (!skb ||
		    !rcu_access_pointer(init_net.nf.hooks_ipv4[NF_INET_PRE_ROUTING])) {
			cond_resched();
			continue;
		}
		local_bh_disable();
		aid_pre_routing(skb);
		local_bh_enable();
		skb = NULL;
	}
	kfree_skb(skb);
	return 0;
}

static int aid_start_flood(void)
{
	aid_flood_task = kthread_create(aid_flood_fn, NULL, "timeq_aid_flood");
	if (IS_ERR(aid_flood_task))
		return PTR_ERR(aid_flood_task);
	if (cpu < nr_cpu_ids && cpu_online(cpu))
		kthread_bind(aid_flood_task, cpu);
	wake_up_process(aid_flood_task);
	return 0;
}

/* @inject packets through PRE_ROUTING, here: process context. */
static int aid_inject(void)
{
	struct sk_buff *skb;
	unsigned int i;

	for (i = 0; i < inject; i++) {
		skb = flowtrack_packet(78, i);
		if (!skb)
			return -ENOMEM;
		aid_pre_routing(skb);
	}
	if (inject)
		pr_info("%u packets through PRE_ROUTING in process context\n",
			inject);
	return 0;
}

static int __init aid_init(void)
{
	int err;

	if (fill) {
		err = aid_fill();
		if (err)
			return err;
		pr_info("%u hooks fill IPv4 LOCAL_OUT\n", aid_filled);
	}
	if (flood) {
		err = aid_start_flood();
		if (err)
			goto err_unfill;
	}
	err = aid_inject();
	if (err)
		goto err_stop;
	return 0;

err_stop:
	if (flood)
		kthread_stop(aid_flood_task);
err_unfill:
	if (fill)
		aid_unfill();
	return err;
}

static void __exit aid_exit(void)
{
	if (flood)
		kthread_stop(aid_flood_task);
	if (fill)
		aid_unfill();
}

module_init(aid_init);
module_exit(aid_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("timeq test aid: netfilter hooks full, PRE_ROUTING flooded or run in process context");
