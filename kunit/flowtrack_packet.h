/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet for the flowtrack sample's hooks, made by the modules that
 * drive them without a network: the tests' aid (kunit/flowtrack_aid.c)
 * and the benchmark (tools/bench/kernel/flowbench.c).
 */
#ifndef _TIMEQ_FLOWTRACK_PACKET_H
#define _TIMEQ_FLOWTRACK_PACKET_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

/*
 * An IPv4 UDP packet of flow @n of @net16: from 10.@net16.0.0 + @n % 2^16,
 * port 1024 + @n / 2^16, to 10.77.0.1:9000; or NULL.
 */
static inline struct sk_buff *flowtrack_packet(u8 net16, u32 n)
{
	struct sk_buff *skb = alloc_skb(sizeof(struct iphdr) +
					sizeof(struct udphdr), GFP_KERNEL);
	struct udphdr *uh;
	struct iphdr *iph;

	if (!skb)
		return NULL;
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(sizeof(*iph) + sizeof(*uh));
	iph->saddr = htonl(10 << 24 | net16 << 16 | (n & 0xffff));
	iph->daddr = htonl(10 << 24 | 77 << 16 | 1);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(1024 + (n >> 16));
	uh->dest = htons(9000);
	uh->len = htons(sizeof(*uh));
	skb->protocol = htons(ETH_P_IP);
	return skb;
}

#endif /* _TIMEQ_FLOWTRACK_PACKET_H */
