// SPDX-License-Identifier: GPL-2.0
/*
 * timeq_flowbench: the packet path of the flowtrack sample
 * (samples/flowtrack), timed where the kernel's code runs natively. Built
 * into a User-Mode Linux kernel with timeq and timeq_flowtrack, whose
 * mode= the kernel's command line sets (tools/testing/kunit/uml.sh
 * --flowbench, part of make bench-flowtrack), it runs after their init,
 * in process context, bottom halves disabled around each packet as on
 * reception:
 *
 *  - one packet of each of @flows UDP flows, from 10.80.0.0/16 to
 *    10.77.0.1:9000, which the sample creates;
 *  - then @rounds rounds of one packet of every flow, in an order
 *    shuffled anew each round (the same in both modes for one @seed),
 *    after a sleep of @gap_ms, a jiffy at least: longer than the
 *    sample's tick, so each packet's deadline lies in a later tick than
 *    the last one's of its flow, and every refresh moves the timer's
 *    word (mode timeq) or the flow's last time (mode gc), as in the
 *    traffic of make bench-flowtrack, where a flow's packets come 250 to
 *    750 ms apart.
 *
 * The packets of a round are made first; then the round is timed whole
 * with ktime_get_ns(), from the first packet's nf_hook() to the last
 * one's, and divided by @flows: under ARCH=um the clock moves in steps of
 * 256 ns, longer than a packet takes, and local_clock() counts jiffies,
 * so that the sample's own figures of time mean nothing there. It
 * prints, as "timeq_flowbench: " lines,
 *
 *	hooks FLOWS ROUNDS MEDIAN MEAN MS
 *		nanoseconds a packet of the rounds spends in the hooks
 *		(netfilter's and the sample's, with the disabling and
 *		enabling of bottom halves), in tenths: the median over the
 *		rounds of a round's mean, and the mean over all of them;
 *		and the milliseconds from the first packet to the end of the
 *		rounds, their sleeps and the making of their packets included
 *	done
 *
 * It cannot read the sample's counters (debugfs files give the kernel no
 * read_iter). So the caller gives the sample a cap above @flows and a
 * time-out longer than MS, and checks the sample's line of its
 * parameters: then a packet finds no other path than a flow's creation
 * or its refresh, and no flow expires meanwhile. It fails with -ENODEV
 * if no hook is registered at PRE_ROUTING (the sample refused its
 * parameters).
 * A benchmark: it prints figures and judges nothing.
 */
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/net_namespace.h>

#include "../../../kunit/flowtrack_packet.h"

static unsigned int flows = 3000;
module_param(flows, uint, 0444);
MODULE_PARM_DESC(flows, "flows, created by a packet each, then refreshed once a round (1 to 2^20)");

static unsigned int rounds = 100;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds of a packet of every flow (1 to 1000)");

static unsigned int gap_ms = 2;
module_param(gap_ms, uint, 0444);
MODULE_PARM_DESC(gap_ms, "the sleep before each round, in ms (1 to 1000)");

static unsigned int seed = 7;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "the seed of the rounds' orders");

#define FB_FLOWS_MAX	BIT(20)
#define FB_ROUNDS_MAX	1000U
#define FB_GAP_MAX	1000U

/* What nf_hook() calls for a packet a queue's verdict lets through: none here. */
static int fb_okfn(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	consume_skb(skb);
	return 0;
}

/*
 * Run the PRE_ROUTING hooks on @skbs[0 .. @n - 1], bottom halves disabled
 * around each as on reception, then free them: the nanoseconds the hooks
 * took, all of them.
 */
static u64 fb_round(struct sk_buff **skbs, u32 n)
{
	u64 t0, t;
	u32 i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		local_bh_disable();
		/* The sample accepts every packet: 1, and @skbs[i] is ours. */
		if (nf_hook(NFPROTO_IPV4, NF_INET_PRE_ROUTING, &init_net, NULL,
			    skbs[i], NULL, NULL, fb_okfn) != 1)
			skbs[i] = NULL;
		local_bh_enable();
	}
	t = ktime_get_ns() - t0;
	/* Let through, not dropped: consumed. */
	for (i = 0; i < n; i++)
		consume_skb(skbs[i]);
	return t;
}

/* Make a packet of each flow of @order[0 .. @n - 1], in @skbs. */
static int fb_packets(struct sk_buff **skbs, const u32 *order, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		skbs[i] = flowtrack_packet(80, order[i]);
		if (!skbs[i]) {
			while (i--)
				kfree_skb(skbs[i]);
			return -ENOMEM;
		}
	}
	return 0;
}

/* xorshift32: the rounds' orders, the same for one seed in both modes. */
static u32 fb_random(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static void fb_shuffle(u32 *order, u32 n, u32 *state)
{
	u32 i, j;

	for (i = n - 1; i > 0; i--) {
		j = fb_random(state) % (i + 1);
		swap(order[i], order[j]);
	}
}

static int fb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int __init fb_init(void)
{
	u32 *order, state = seed ?: 1, r, i;
	struct sk_buff **skbs;
	u64 *ns, sum = 0, start;
	int ret;

	if (!flows || flows > FB_FLOWS_MAX || !rounds ||
	    rounds > FB_ROUNDS_MAX || !gap_ms || gap_ms > FB_GAP_MAX) {
		pr_err("flows 1 to 2^20, rounds 1 to 1000, gap_ms 1 to 1000\n");
		return -EINVAL;
	}
	if (!rcu_access_pointer(init_net.nf.hooks_ipv4[NF_INET_PRE_ROUTING])) {
		pr_err("no hook at PRE_ROUTING: is timeq_flowtrack there?\n");
		return -ENODEV;
	}
	order = kvmalloc_array(flows, sizeof(*order), GFP_KERNEL);
	skbs = kvmalloc_array(flows, sizeof(*skbs), GFP_KERNEL);
	ns = kvmalloc_array(rounds, sizeof(*ns), GFP_KERNEL);
	if (!order || !skbs || !ns) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < flows; i++)
		order[i] = i;
	/* The flows, a packet each. */
	ret = fb_packets(skbs, order, flows);
	if (ret)
		goto out;
	start = ktime_get_ns();
	fb_round(skbs, flows);
	for (r = 0; r < rounds; r++) {
		msleep(gap_ms);
		fb_shuffle(order, flows, &state);
		ret = fb_packets(skbs, order, flows);
		if (ret)
			goto out;
		ns[r] = fb_round(skbs, flows);
		sum += ns[r];
		cond_resched();
	}
	sort(ns, rounds, sizeof(*ns), fb_cmp, NULL);
	/* The median: with an even count, the mean of the middle two. */
	pr_info("hooks %u %u %llu %llu %llu\n", flows, rounds,
		div64_u64((ns[(rounds - 1) / 2] + ns[rounds / 2]) * 5, flows),
		div64_u64(sum * 10, (u64)flows * rounds),
		div64_u64(ktime_get_ns() - start, NSEC_PER_MSEC));
out:
	kvfree(ns);
	kvfree(skbs);
	kvfree(order);
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("done\n");
	return ret;
}
late_initcall(fb_init);

static void __exit fb_exit(void)
{
}
module_exit(fb_exit);

MODULE_DESCRIPTION("timeq_flowtrack's packet path, timed");
MODULE_LICENSE("GPL");
