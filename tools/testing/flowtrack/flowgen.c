// SPDX-License-Identifier: GPL-2.0
/*
 * flowgen - traffic for timeq_flowtrack.ko, and the checks of its accounting.
 *
 * In a guest (it makes network namespaces and a veth pair; never run it on a
 * machine you care about): it creates a network namespace, a veth pair
 * ftk0 (10.77.0.1, the initial namespace, where the module's hooks are) and
 * ftk1 (10.77.0.2, the new namespace), and there
 *
 *  - a generator, in the new namespace, runs FLOWS UDP flows, each a
 *    connected socket of its own: each starts at a random time in the
 *    first FILL seconds, sends a datagram every INTERVAL ms (+-50%) for a
 *    random ACTIVE seconds, then goes idle; AGAIN percent of them come
 *    back after 3 to 4 time-outs of silence for a shorter second session,
 *    from the same socket, so the same 5-tuple makes a new flow;
 *  - with --spoof N, N more flows, a spoofer's, start first, in the first
 *    second, and fill a table of max_flows=N; each then sends a datagram
 *    every SPOOF_PERIOD of the time-out, so that none ever expires, until
 *    the last of the FLOWS ends; those, the legitimate flows, start
 *    SPOOF_LEAD seconds in, to find the table full;
 *  - with --hold N:S, N more flows, which start in the first second and
 *    send a datagram every SPOOF_PERIOD of the time-out for S seconds
 *    from the start, so that none expires before: they keep the table
 *    populated, at its size, while the others expire;
 *  - an echo server, in the initial namespace, sends every datagram back,
 *    so each flow is refreshed from softirq (the request, PRE_ROUTING) and
 *    from process context (the echo, LOCAL_OUT);
 *  - this process prints the module's counters (debugfs stats) every
 *    second, waits once the traffic ends until every flow has expired and
 *    been freed, prints a summary and checks, as TAP:
 *
 *	every flow created expired exactly once, or is still live
 *		created = expired + live, read twice alike
 *	none early	no callback before its tick; and flows created as
 *			the generator's sessions say: a session whose own
 *			gaps stayed under the time-out (less a quarter, for
 *			delivery) must be one flow, so a flow that expired
 *			in the middle of a session would make one too many.
 *			A flow evicted at the cap is early by design, but
 *			only once idle for half the time-out: each eviction
 *			may make one more flow, at a gap of half the
 *			time-out (less the quarter) or more
 *	drained		live 0, everything expired freed, nothing allocated
 *	in mode gc, none missed: no flow that was idle for the time-out
 *			when a pass of the collector began was left for
 *			the next pass (the module's gc_missed)
 *	no drop at the cap, unless --cap says some are expected; with
 *	--spoof, the full table took the legitimate flows: flows were
 *	evicted, and fewer packets were dropped at the cap (or for want of
 *	memory while the evicted wait to be freed) than the legitimate
 *	flows sent, where with nothing evicted each of theirs and its echo
 *	are both dropped. The spoofer's flows evicted come back and take
 *	places too, and are dropped in turn: the drops are theirs as well
 *
 * The generator measures its own gaps, so a guest that stalls (an emulator
 * on a busy host) only widens what the checks allow, by what it measured:
 * nothing here depends on the speed of the machine. Every wait is bounded.
 *
 * --module PATH loads the module (finit_module) with --params, commas for
 * spaces, before the traffic, and --unload removes it after, with flows
 * still live when --leave is given (the traffic stops, the checks are made
 * on a live table, and the module goes). With --load-error ERRNO (a name,
 * such as EINVAL) the load must fail with that error, which is the one
 * check; there is no traffic.
 *
 * --aid PATH names timeq_flowtrack_aid.ko (kunit/flowtrack_aid.c), which
 * does to netfilter what a program cannot, for two more tests:
 *
 *  --inject N	after the module, the aid runs the PRE_ROUTING hooks on N
 *		packets of N new flows in process context, bottom halves
 *		enabled, as after an NFQUEUE verdict; they count as N more
 *		sessions of one packet. The debug kernel's lockdep judges
 *		the context the fast path was called in.
 *  --load-race	no traffic of the generator: while the aid floods
 *		PRE_ROUTING with packets of new flows, the module's load
 *		fails after its PRE_ROUTING hook went live (the aid has
 *		filled LOCAL_OUT's hooks, so the second registration fails
 *		with E2BIG), until the flood made flows during one of those
 *		loads (timeq's own counters of fast updates move), at most
 *		RACE_LOADS times; then, LOCAL_OUT free, it loads and is
 *		unloaded while the flood goes on. The debug kernel's
 *		detectors judge the teardowns (flows left in a destroyed
 *		cache, leaks, use after free).
 *
 * Exit status: 0 every check held, 1 one failed or a step failed, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STATS		"/sys/kernel/debug/timeq_flowtrack/stats"
#define TIMEQ_STATS	"/sys/kernel/debug/timeq/stats"
#define MODNAME		"timeq_flowtrack"
#define AID		"timeq_flowtrack_aid"
#define PORT		9000
#define ADDR_HOST	"10.77.0.1"
#define ADDR_PEER	"10.77.0.2"
#define NS		1000000000LL
#define MS		1000000LL

static struct {
	int flows, spoof, hold;
	double fill, active_min, active_max, again, hold_s;
	int interval_ms;
	unsigned int seed;
	int drain_s;
	bool leave, cap, quiet;
	const char *module, *params, *aid;
	int load_error, inject;
	bool unload, load_race;
	int measure_from;
	bool result;
} opt = {
	.measure_from = -1,
	.flows = 3000, .fill = 15, .active_min = 8, .active_max = 25,
	.again = 25, .interval_ms = 500, .seed = 1, .drain_s = 60,
};

/* --spoof: the spoofer's period, in time-outs, and the legitimate flows' lead. */
#define SPOOF_PERIOD	0.7
#define SPOOF_LEAD	2.0

/* The generator's flows, legitimate (with those held) and spoofed. */
static int all_flows(void)
{
	return opt.flows + opt.hold + opt.spoof;
}

/* When the legitimate flows start, in seconds from the plan's start. */
static double lead(void)
{
	return opt.spoof ? SPOOF_LEAD : 0;
}

/* How long the plan's sessions last at most, in seconds from its start. */
static double schedule_s(void)
{
	double s = lead() + opt.fill + opt.active_max * 1.5;

	return s > opt.hold_s ? s : opt.hold_s;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "flowgen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	printf("not ok 1 flowgen could not run\n1..1\n");
	exit(1);
}

/* --- the module's counters --- */

#define MAX_STATS	96

struct stats {
	char mode[16];
	int n;
	char name[MAX_STATS][32];
	long long value[MAX_STATS];
};

static bool read_stats_of(const char *path, struct stats *s)
{
	char line[128];
	FILE *f = fopen(path, "re");

	s->n = 0;
	if (!f)
		return false;
	while (s->n < MAX_STATS && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %lld", s->name[s->n], &s->value[s->n]) == 2)
			s->n++;
		else
			sscanf(line, "mode %15s", s->mode);
	}
	fclose(f);
	return s->n > 0;
}

static bool read_stats(struct stats *s)
{
	return read_stats_of(STATS, s);
}

static long long stat(const struct stats *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return s->value[i];
	return -1;
}

/* A counter that the module did not have before some change counts none. */
static long long count(const struct stats *s, const char *name)
{
	long long v = stat(s, name);

	return v > 0 ? v : 0;
}

/* The counters that must agree, read twice alike (the sums are racy). */
static bool read_stable(struct stats *s)
{
	static const char *const keys[] = { "flows_created", "flows_expired",
		"flows_live", "flows_freed", "flows_allocated",
		"refresh_stored" };
	struct stats again;
	unsigned int i, tries;

	for (tries = 0; tries < 50; tries++) {
		if (!read_stats(s) || !read_stats(&again))
			return false;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (stat(s, keys[i]) != stat(&again, keys[i]))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			return true;
		usleep(20000);
	}
	return true;
}

/* The lateness histogram's non-empty buckets, in ns. */
#define MAX_BUCKETS	400

struct buckets {
	int n;
	long long lo[MAX_BUCKETS], hi[MAX_BUCKETS], count[MAX_BUCKETS];
};

static void read_buckets(struct buckets *b)
{
	FILE *f = fopen("/sys/kernel/debug/timeq_flowtrack/lateness_buckets", "re");

	b->n = 0;
	if (!f)
		return;
	while (b->n < MAX_BUCKETS && fscanf(f, "%lld %lld %lld", &b->lo[b->n],
					     &b->hi[b->n], &b->count[b->n]) == 3)
		b->n++;
	fclose(f);
}

/* @end less @start, bucket by bucket (both sorted, @start a subset). */
static void sub_buckets(struct buckets *end, const struct buckets *start)
{
	int i, j = 0;

	for (i = 0; i < end->n; i++) {
		while (j < start->n && start->lo[j] < end->lo[i])
			j++;
		if (j < start->n && start->lo[j] == end->lo[i])
			end->count[i] -= start->count[j];
	}
}

/* The ceiling of the bucket holding the share @pct of the expiries. */
static long long bucket_pct(const struct buckets *b, double pct)
{
	long long total = 0, seen = 0;
	int i;

	for (i = 0; i < b->n; i++)
		total += b->count[i];
	for (i = 0; i < b->n; i++) {
		seen += b->count[i];
		if (total && seen >= pct / 100 * total && b->count[i])
			return b->hi[i];
	}
	return 0;
}

static long long bucket_total(const struct buckets *b)
{
	long long total = 0;
	int i;

	for (i = 0; i < b->n; i++)
		total += b->count[i];
	return total;
}

static double pct(long long part, long long whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_ns(char *buf, size_t len, long long ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lld ns", ns);
	else if (ns < MS)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < NS)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

static void print_header(void)
{
	printf("  time    live  created  expired   packets    stored  late p99  drops\n");
}

static void print_line(const struct stats *s, double t)
{
	long long moved = stat(s, "refresh_stored") + stat(s, "refresh_left");
	char p99[32];

	if (stat(s, "flows_expired") > 0)
		print_ns(p99, sizeof(p99), stat(s, "lateness_p99_ns"));
	else
		snprintf(p99, sizeof(p99), "-");
	printf("%5.0f s %6lld %8lld %8lld %9lld %8.1f%% %9s %6lld\n", t,
	       stat(s, "flows_live"), stat(s, "flows_created"),
	       stat(s, "flows_expired"), stat(s, "packets"),
	       pct(stat(s, "refresh_stored"), moved), p99,
	       stat(s, "drop_cap") + stat(s, "drop_nomem") +
	       stat(s, "drop_insert") + stat(s, "drop_dying") +
	       count(s, "drop_reaping"));
}

/* --- rtnetlink: a veth pair across two namespaces, addresses, up --- */

struct nlreq {
	struct nlmsghdr nh;
	char buf[1024];
};

static struct rtattr *nla_put(struct nlmsghdr *nh, int type, const void *data,
			      int len)
{
	struct rtattr *rta = (void *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void nla_end(struct nlmsghdr *nh, struct rtattr *nest)
{
	nest->rta_len = (char *)nh + nh->nlmsg_len - (char *)nest;
}

static void nl_talk(struct nlmsghdr *nh, const char *what)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char reply[1024];
	struct nlmsgerr *err;
	int fd, n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		die("netlink socket");
	nh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(fd, nh, nh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die("netlink: %s", what);
	n = recv(fd, reply, sizeof(reply), 0);
	if (n < (int)NLMSG_LENGTH(sizeof(*err)))
		die("netlink: %s: no answer", what);
	err = NLMSG_DATA((struct nlmsghdr *)reply);
	if (((struct nlmsghdr *)reply)->nlmsg_type == NLMSG_ERROR && err->error) {
		errno = -err->error;
		die("netlink: %s", what);
	}
	close(fd);
}

/* ftk0 here, its peer ftk1 in the network namespace of process @pid. */
static void make_veth(pid_t pid)
{
	struct nlreq req = { .nh = { .nlmsg_type = RTM_NEWLINK,
		.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL } };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *info, *data, *peer;
	uint32_t ns = pid;

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(ifi));
	memcpy(NLMSG_DATA(&req.nh), &ifi, sizeof(ifi));
	nla_put(&req.nh, IFLA_IFNAME, "ftk0", 5);
	info = nla_put(&req.nh, IFLA_LINKINFO, NULL, 0);
	nla_put(&req.nh, IFLA_INFO_KIND, "veth", 4);
	data = nla_put(&req.nh, IFLA_INFO_DATA, NULL, 0);
	peer = nla_put(&req.nh, VETH_INFO_PEER, &ifi, sizeof(ifi));
	nla_put(&req.nh, IFLA_IFNAME, "ftk1", 5);
	nla_put(&req.nh, IFLA_NET_NS_PID, &ns, sizeof(ns));
	nla_end(&req.nh, peer);
	nla_end(&req.nh, data);
	nla_end(&req.nh, info);
	nl_talk(&req.nh, "create the veth pair ftk0/ftk1 (is veth there?)");
}

/* Give @name the address @addr/24 and bring it up. */
static void set_up(const char *name, const char *addr)
{
	struct nlreq req = { .nh = { .nlmsg_type = RTM_NEWADDR,
		.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL } };
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = 24 };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
		.ifi_flags = IFF_UP, .ifi_change = IFF_UP };
	struct in_addr in;
	int index = if_nametoindex(name);

	if (!index)
		die("no interface %s", name);
	inet_pton(AF_INET, addr, &in);
	ifa.ifa_index = index;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(ifa));
	memcpy(NLMSG_DATA(&req.nh), &ifa, sizeof(ifa));
	nla_put(&req.nh, IFA_LOCAL, &in, sizeof(in));
	nla_put(&req.nh, IFA_ADDRESS, &in, sizeof(in));
	nl_talk(&req.nh, "add an address");

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_NEWLINK;
	ifi.ifi_index = index;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(ifi));
	memcpy(NLMSG_DATA(&req.nh), &ifi, sizeof(ifi));
	nl_talk(&req.nh, "bring a link up");
}

/* --- the generator, in its own network namespace --- */

struct flow {
	int fd;
	int sessions;		/* 1 or 2 */
	int session;		/* the one under way */
	bool first;		/* the next send is the first of a session */
	int64_t start[2], end[2];
	int64_t next;		/* the next send, or INT64_MAX when done */
	int64_t before, after;	/* around the latest send */
	int64_t period;		/* between sends, or 0 for INTERVAL +-50% */
	bool spoof;		/* one of the spoofer's */
};

/* What the generator tells the parent when it is done. */
struct result {
	long long flows, sessions, packets, errors;
	long long legit_packets; /* of those, of the legitimate flows */
	long long split_risk;	/* gaps in a session near the time-out */
	long long evict_risk;	/* others near half of it: evictable */
	long long merge_risk;	/* gaps between sessions not well over it */
	long long max_gap_ns;	/* the longest gap in a session */
	long long overrun;	/* the schedule ran past its bound */
};

static uint64_t rng_state;

static double rnd(void)		/* xorshift64*, in [0, 1) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) / (1ULL << 53);
}

static int64_t secs(double s)
{
	return (int64_t)(s * NS);
}

/* A binary heap of flows by their next send. */
static struct flow **heap;
static int heap_n;

static void heap_down(int i)
{
	struct flow *f;
	int c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= heap_n)
			return;
		if (c + 1 < heap_n && heap[c + 1]->next < heap[c]->next)
			c++;
		if (heap[i]->next <= heap[c]->next)
			return;
		f = heap[i];
		heap[i] = heap[c];
		heap[c] = f;
		i = c;
	}
}

/* A connected UDP socket for every flow. */
static struct flow *open_flows(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
		.sin_port = htons(PORT) };
	struct flow *fl = calloc(all_flows(), sizeof(*fl));
	int i, rcvbuf = 1;

	heap = calloc(all_flows(), sizeof(*heap));
	if (!fl || !heap)
		die("calloc");
	inet_pton(AF_INET, ADDR_HOST, &dst.sin_addr);
	for (i = 0; i < all_flows(); i++) {
		fl[i].fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fl[i].fd < 0)
			die("socket %d", i);
		/* The echoes are not read: keep few of them queued. */
		setsockopt(fl[i].fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
		if (connect(fl[i].fd, (struct sockaddr *)&dst, sizeof(dst)))
			die("connect");
	}
	return fl;
}

/* Plan every flow's sessions, from a moment from now. */
static void plan(struct flow *fl, int64_t timeout, struct result *r)
{
	double span = opt.active_max - opt.active_min;
	int64_t t0 = now_ns() + 200 * MS, last_end = t0;
	int i;

	rng_state = 0x9e3779b97f4a7c15ULL ^ opt.seed;
	for (i = 0; i < opt.flows; i++) {
		struct flow *f = &fl[i];

		f->start[0] = t0 + secs(lead() + rnd() * opt.fill);
		f->end[0] = f->start[0] + secs(opt.active_min + rnd() * span);
		f->sessions = 1;
		if (rnd() * 100 < opt.again) {
			f->sessions = 2;
			f->start[1] = f->end[0] + (int64_t)((3 + rnd()) * timeout);
			f->end[1] = f->start[1] +
				    secs((opt.active_min + rnd() * span) / 2);
		}
		f->first = true;
		f->next = f->start[0];
		r->sessions += f->sessions;
		heap[i] = f;
		if (f->end[f->sessions - 1] > last_end)
			last_end = f->end[f->sessions - 1];
	}
	/* Those held: one session each, of --hold's seconds. */
	for (; i < opt.flows + opt.hold; i++) {
		struct flow *f = &fl[i];

		f->period = (int64_t)(SPOOF_PERIOD * timeout);
		f->start[0] = t0 + secs(rnd());
		f->end[0] = t0 + secs(opt.hold_s);
		f->sessions = 1;
		f->first = true;
		f->next = f->start[0];
		r->sessions++;
		heap[i] = f;
		if (f->end[0] > last_end)
			last_end = f->end[0];
	}
	/* The spoofer's: one session each, as long as the others last. */
	for (; i < all_flows(); i++) {
		struct flow *f = &fl[i];

		f->spoof = true;
		f->period = (int64_t)(SPOOF_PERIOD * timeout);
		f->start[0] = t0 + secs(rnd());
		f->end[0] = last_end;
		f->sessions = 1;
		f->first = true;
		f->next = f->start[0];
		r->sessions++;
		heap[i] = f;
	}
	r->flows = all_flows();
	heap_n = all_flows();
	for (i = heap_n / 2; i >= 0; i--)
		heap_down(i);
}

/* One send of @f, and what its gap from the one before allows. */
static void send_one(struct flow *f, int64_t timeout, struct result *r)
{
	int64_t margin = timeout / 4, before = now_ns(), after, gap;
	static const char payload[64] = "flowgen";
	bool sent = false;
	int tries;

	for (tries = 0; tries < 3 && !sent; tries++) {
		sent = send(f->fd, payload, sizeof(payload), 0) >= 0;
		/* A refusal reported late, or a full queue: try again. */
		if (!sent && errno != ENOBUFS && errno != ECONNREFUSED)
			break;
	}
	after = now_ns();
	if (sent)
		r->packets++;
	else
		r->errors++;
	if (sent && !f->spoof)
		r->legit_packets++;
	if (f->after) {
		if (f->first) {
			/* The module must see a whole time-out of silence. */
			if (before - f->after < timeout + margin)
				r->merge_risk++;
		} else {
			/* The module sees at most this gap, if delivery lags less than the margin. */
			gap = after - f->before;
			if (gap > r->max_gap_ns)
				r->max_gap_ns = gap;
			if (gap >= timeout - margin)
				r->split_risk++;
			else if (gap >= timeout / 2 - margin)
				r->evict_risk++;
		}
	}
	f->before = before;
	f->after = after;
	f->first = false;
	f->next = before + (f->period ?: (int64_t)(opt.interval_ms * MS *
						   (0.5 + rnd())));
	if (f->next < f->end[f->session])
		return;
	if (f->session + 1 < f->sessions) {
		f->session++;
		f->first = true;
		f->next = f->start[f->session];
	} else {
		f->next = INT64_MAX;
	}
}

/*
 * The generator's side of the start: its addresses and sockets, then the
 * parent's word to go, with the time-out (it loads the module meanwhile).
 */
static void generate(int to_parent, int from_parent)
{
	struct result r = { 0 };
	int64_t deadline, t, timeout;
	struct timespec ts;
	struct rlimit rl;
	struct flow *fl;
	char c;

	if (read(from_parent, &c, 1) != 1)
		die("the parent went away");
	set_up("lo", "127.0.0.1");
	set_up("ftk1", ADDR_PEER);
	rl.rlim_cur = rl.rlim_max = all_flows() + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(%d files)", all_flows() + 64);
	fl = open_flows();
	if (write(to_parent, "s", 1) != 1 ||
	    read(from_parent, &timeout, sizeof(timeout)) != sizeof(timeout))
		die("the parent went away");
	plan(fl, timeout, &r);
	/* Bounded: the schedule's length, and as long again if the guest is slow. */
	deadline = now_ns() + 2 * (secs(schedule_s()) + 5 * timeout);
	while (heap[0]->next != INT64_MAX) {
		t = now_ns();
		if (t > deadline) {
			r.overrun = 1;
			break;
		}
		if (heap[0]->next > t) {
			ts.tv_sec = heap[0]->next / NS;
			ts.tv_nsec = heap[0]->next % NS;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			continue;
		}
		send_one(heap[0], timeout, &r);
		heap_down(0);
	}
	if (write(to_parent, &r, sizeof(r)) != sizeof(r))
		die("write to the parent");
	/* The sockets stay open until the echo server has stopped. */
	if (read(from_parent, &c, 1) < 0)
		die("read from the parent");
	exit(0);
}

/* --- the echo server, in the initial namespace --- */

static int echo_fd = -1;
static long long echoed;

static void echo_open(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int size = 1 << 20;

	inet_pton(AF_INET, ADDR_HOST, &a.sin_addr);
	echo_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (echo_fd < 0)
		die("socket");
	setsockopt(echo_fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(echo_fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind %s:%d", ADDR_HOST, PORT);
}

/* Send back what is queued, at most a batch. */
static void echo_some(void)
{
	struct sockaddr_in from;
	socklen_t len;
	char buf[256];
	ssize_t n;
	int i;

	for (i = 0; i < 256; i++) {
		len = sizeof(from);
		n = recvfrom(echo_fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &len);
		if (n < 0)
			return;
		if (sendto(echo_fd, buf, n, 0, (struct sockaddr *)&from, len) == n)
			echoed++;
	}
}

/* --- the module, when this program loads it --- */

/* The errno names --load-error takes. */
static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EINVAL", EINVAL }, { "ERANGE", ERANGE }, { "E2BIG", E2BIG },
	{ "ENOMEM", ENOMEM }, { "EBUSY", EBUSY },
};

static int errno_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].err;
	return 0;
}

/* finit_module() of @path with @params, commas for spaces: 0 or an errno. */
static int finit(const char *path, const char *params)
{
	char buf[256];
	int fd, err = 0;

	snprintf(buf, sizeof(buf), "%s", params ? params : "");
	for (char *p = buf; *p; p++)
		if (*p == ',')
			*p = ' ';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s", path);
	if (syscall(SYS_finit_module, fd, buf, 0))
		err = errno;
	close(fd);
	return err;
}

static void load_module(void)
{
	int err = finit(opt.module, opt.params);

	if (err) {
		errno = err;
		die("load %s %s", opt.module, opt.params ? opt.params : "");
	}
	printf("flowgen: loaded %s %s\n", opt.module,
	       opt.params ? opt.params : "");
}

static int unload(const char *name)
{
	int tries;

	/* Bounded: the reaper may still hold a reference for a moment. */
	for (tries = 0; tries < 100; tries++) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(100000);
	}
	fprintf(stderr, "flowgen: unloading %s: %s\n", name, strerror(errno));
	return -1;
}

static int unload_module(void)
{
	return unload(MODNAME);
}

/* Whether module @name is loaded (its sysfs directory is there). */
static bool loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !access(path, F_OK);
}

/* Load the aid with @params, or die. */
static void load_aid(const char *params)
{
	int err = finit(opt.aid, params);

	if (err) {
		errno = err;
		die("load %s %s", opt.aid, params);
	}
}

/* timeq's fast updates so far, of every queue it has had. */
static long long timeq_fast_updates(void)
{
	struct stats t;

	if (!read_stats_of(TIMEQ_STATS, &t))
		die("reading %s", TIMEQ_STATS);
	return stat(&t, "fast_applied") + stat(&t, "fast_deferred") +
	       stat(&t, "fast_refused");
}

/* --- the summary and the checks --- */

static int tap_n, tap_failed;

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_failed |= !ok;
}

static void print_lateness(void)
{
	char line[160];
	FILE *f = fopen("/sys/kernel/debug/timeq_flowtrack/lateness", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("            %s", line);
	fclose(f);
}

/*
 * Why timeq handed the queue's updates off, refreshes and new flows
 * together, as the module reads timeq's counts: its queue_deferred_<why>
 * lines, whatever the reasons are.
 */
static void print_reasons(const struct stats *s)
{
	static const char prefix[] = "queue_deferred_";
	int i, n = 0;

	printf("  hand-offs  %lld, by timeq's reasons:", stat(s, "queue_deferred"));
	for (i = 0; i < s->n; i++) {
		if (strncmp(s->name[i], prefix, sizeof(prefix) - 1))
			continue;
		printf("%s%s %lld", n++ % 4 ? ", " : "\n             ",
		       s->name[i] + sizeof(prefix) - 1, s->value[i]);
	}
	printf("\n");
}

/* The hand-offs by reason, added up. */
static long long sum_reasons(const struct stats *s)
{
	static const char prefix[] = "queue_deferred_";
	long long sum = 0;
	int i;

	for (i = 0; i < s->n; i++)
		if (!strncmp(s->name[i], prefix, sizeof(prefix) - 1))
			sum += s->value[i];
	return sum;
}

/* The table at its fullest, as seen once a second. */
static long long peak_live, peak_table;

static void summary(const struct stats *s, const struct result *r)
{
	long long moved = stat(s, "refresh_stored") + stat(s, "refresh_left");
	long long pkts = stat(s, "packets"), refr = stat(s, "refreshes");
	long long clock = stat(s, "clock_ns");
	bool timed = !strcmp(s->mode, "timeq");
	char p50[32], p99[32], max[32];

	print_ns(p50, sizeof(p50), stat(s, "lateness_p50_ns"));
	print_ns(p99, sizeof(p99), stat(s, "lateness_p99_ns"));
	print_ns(max, sizeof(max), stat(s, "lateness_max_ns"));
	printf("\nflowtrack: mode %s, time-out %lld ms, ticks of %lld us, at most %lld flows\n",
	       s->mode, stat(s, "timeout_ms"), stat(s, "granularity_us"),
	       stat(s, "max_flows"));
	printf("  flows      %lld created, for the generator's %lld sessions on %lld 5-tuples;\n",
	       stat(s, "flows_created"), r->sessions, r->flows);
	if (opt.inject)
		printf("             (%d of each injected by the aid in process context)\n",
		       opt.inject);
	if (opt.spoof)
		printf("             (%d of each the spoofer's: %lld packets, %lld the others')\n",
		       opt.spoof, r->packets - r->legit_packets, r->legit_packets);
	printf("             %lld expired (%lld of them found idle by a packet), %lld live, %lld freed\n",
	       stat(s, "flows_expired"), stat(s, "flows_expired_by_packet"),
	       stat(s, "flows_live"), stat(s, "flows_freed"));
	printf("  packets    %lld through the hooks: %lld sent by the generator, %lld echoed\n",
	       pkts, r->packets, echoed);
	if (timed) {
		printf("  refreshes  %lld of a live flow: %lld by the timer's word alone (%.1f%%), %lld left to the callback\n",
		       refr, stat(s, "refresh_stored"),
		       pct(stat(s, "refresh_stored"), moved),
		       stat(s, "refresh_left"));
		printf("             timeq filed %lld timers again at their older time (%.2f a flow expired)\n",
		       count(s, "queue_refiled"),
		       stat(s, "flows_expired") > 0 ?
			       (double)count(s, "queue_refiled") /
				       stat(s, "flows_expired") :
			       0);
		printf("  new flows  %lld timers armed in place, %lld handed off; %lld timer calls failed\n",
		       stat(s, "insert_applied"), stat(s, "insert_deferred"),
		       stat(s, "refresh_failed"));
		print_reasons(s);
		printf("  callbacks  %lld: %lld re-armed a refreshed flow, %lld found it expired, %lld early\n",
		       stat(s, "callbacks"), stat(s, "callbacks_rearmed"),
		       stat(s, "callbacks_stale"), stat(s, "callbacks_early"));
	} else {
		printf("  refreshes  %lld of a live flow, each a compare-and-exchange\n", refr);
		printf("  collector  %lld passes, %lld flows looked at, %.1f ms in all; %lld missed by a pass\n",
		       stat(s, "gc_passes"), stat(s, "gc_scanned"),
		       stat(s, "gc_ns") / 1e6, stat(s, "gc_missed"));
	}
	printf("  lateness   p50 %s, p99 %s, max %s\n", p50, p99, max);
	print_lateness();
	printf("  drops      %lld at the cap (%lld flows evicted there), %lld waiting to be freed,\n",
	       stat(s, "drop_cap"), count(s, "flows_evicted"),
	       count(s, "drop_reaping"));
	printf("             %lld no memory, %lld refused by the table, %lld expiring\n",
	       stat(s, "drop_nomem"), stat(s, "drop_insert"), stat(s, "drop_dying"));
	printf("  cpu        in the hooks, a packet: median %lld ns, mean %.0f ns\n",
	       stat(s, "hook_p50_ns") - clock,
	       pkts > 0 ? (double)stat(s, "hook_ns") / pkts - clock : 0);
	printf("             a refresh: median %lld ns, mean %.0f ns (a clock read, %lld ns, taken off)\n",
	       stat(s, "refresh_p50_ns") - clock,
	       refr > 0 ? (double)stat(s, "refresh_ns") / refr - clock : 0, clock);
	printf("  memory     %lld bytes a flow, and %.1f of hash table a flow at the peak of %lld flows;\n",
	       stat(s, "flow_bytes"),
	       peak_live ? (double)peak_table / peak_live : 0, peak_live);
	printf("             the queue %lld bytes\n", stat(s, "queue_bytes"));
}

/* The window from --measure-from on. */
static struct stats win_stats;
static struct buckets win_buckets;
static bool win_taken;

static void note_peak(const struct stats *s)
{
	if (stat(s, "flows_live") > peak_live) {
		peak_live = stat(s, "flows_live");
		peak_table = stat(s, "table_bytes");
	}
}

static long long delta(const struct stats *end, const char *name)
{
	return stat(end, name) - (win_taken ? stat(&win_stats, name) : 0);
}

/* What a comparison of the two modes needs, over the window. */
static void window(const struct stats *s)
{
	long long pkts = delta(s, "packets"), refr = delta(s, "refreshes");
	long long moved = delta(s, "refresh_stored") + delta(s, "refresh_left");
	long long clock = stat(s, "clock_ns"), p50, p99, max;
	double hook = pkts > 0 ? (double)delta(s, "hook_ns") / pkts - clock : 0;
	double refresh = refr > 0 ? (double)delta(s, "refresh_ns") / refr - clock : 0;
	char a[32], b[32], c[32];
	struct buckets end;

	read_buckets(&end);
	if (win_taken)
		sub_buckets(&end, &win_buckets);
	p50 = bucket_pct(&end, 50);
	p99 = bucket_pct(&end, 99);
	max = bucket_pct(&end, 100);
	print_ns(a, sizeof(a), p50);
	print_ns(b, sizeof(b), p99);
	print_ns(c, sizeof(c), max);
	if (win_taken)
		printf("  from %d s  %lld expiries late by p50 %s, p99 %s, max %s (bucket ceilings); %.0f ns per packet, %.0f ns per refresh\n",
		       opt.measure_from, bucket_total(&end), a, b, c, hook, refresh);
	if (!opt.result)
		return;
	printf("flowgen-result mode=%s packets=%lld refreshes=%lld moved=%lld stored_pct=%.1f refiled_per_expiry=%.2f hook_ns=%.0f refresh_ns=%.0f hook_p50_ns=%lld refresh_p50_ns=%lld expiries=%lld late_p50_ns=%lld late_p99_ns=%lld late_max_ns=%lld flow_bytes=%lld peak_live=%lld peak_table_bytes=%lld queue_bytes=%lld\n",
	       s->mode, pkts, refr, moved,
	       pct(delta(s, "refresh_stored"), moved),
	       bucket_total(&end) > 0 ?
		       (double)(count(s, "queue_refiled") -
				(win_taken ? count(&win_stats, "queue_refiled") :
					     0)) /
			       bucket_total(&end) :
		       0,
	       hook, refresh,
	       stat(s, "hook_p50_ns") - clock, stat(s, "refresh_p50_ns") - clock,
	       bucket_total(&end), p50, p99, max, stat(s, "flow_bytes"),
	       peak_live, peak_table, stat(s, "queue_bytes"));
}

static void checks(const struct stats *s, const struct result *r)
{
	long long created = stat(s, "flows_created"), expired = stat(s, "flows_expired");
	long long live = stat(s, "flows_live"), lo, hi, split;
	long long evicted = count(s, "flows_evicted");
	long long at_cap = stat(s, "drop_cap") + count(s, "drop_reaping");

	check(r->errors == 0 && !r->overrun,
	      "traffic: %lld packets on %lld sessions, %lld send errors%s",
	      r->packets, r->sessions, r->errors,
	      r->overrun ? ", and the schedule ran past its bound" : "");
	check(created == expired + live,
	      "every flow created expired exactly once or is live: %lld created = %lld expired + %lld live",
	      created, expired, live);
	check(stat(s, "callbacks_early") == 0,
	      "no timer callback before its tick: %lld early",
	      stat(s, "callbacks_early"));
	if (!strcmp(s->mode, "timeq")) {
		check(stat(s, "queue_deferred") >= 0 &&
		      sum_reasons(s) == stat(s, "queue_deferred") &&
		      stat(s, "queue_deferred") == stat(s, "insert_deferred"),
		      "timeq gave a reason for each of its %lld hand-offs (%lld), which are the module's %lld of new flows",
		      stat(s, "queue_deferred"), sum_reasons(s),
		      stat(s, "insert_deferred"));
	}
	/* On a 64-bit kernel, where stores are made. */
	if (!strcmp(s->mode, "timeq") && stat(s, "store") == 1 &&
	    stat(s, "refreshes") > 0)
		check(stat(s, "refresh_stored") > 0,
		      "store=1: %lld refreshes stored, %lld left to the callback",
		      stat(s, "refresh_stored"), stat(s, "refresh_left"));
	if (!strcmp(s->mode, "timeq") && stat(s, "store") == 0)
		check(stat(s, "refresh_stored") == 0 &&
		      stat(s, "refresh_left") > 0 &&
		      stat(s, "callbacks_rearmed") > 0,
		      "store=0: %lld refreshes stored, %lld left to the callback, %lld callbacks armed the timer again",
		      stat(s, "refresh_stored"), stat(s, "refresh_left"),
		      stat(s, "callbacks_rearmed"));
	lo = r->sessions - r->merge_risk;
	/* Each eviction may split a session, at a gap of half the time-out. */
	split = r->split_risk + (evicted < r->evict_risk ? evicted : r->evict_risk);
	hi = r->sessions + split;
	if (opt.cap || opt.leave || opt.spoof)
		lo = 0;
	check(created >= lo && created <= hi,
	      "none early: %lld flows created for %lld sessions (%lld gaps near the time-out, and of %lld near half of it as many as the %lld evictions, allow up to %lld; %lld short silences down to %lld)",
	      created, r->sessions, r->split_risk, r->evict_risk, evicted, hi,
	      r->merge_risk, lo);
	if (!opt.leave)
		check(live == 0 && stat(s, "flows_allocated") == 0 &&
		      stat(s, "flows_freed") == expired,
		      "drained: %lld live, %lld allocated, %lld of %lld expired freed",
		      live, stat(s, "flows_allocated"), stat(s, "flows_freed"),
		      expired);
	if (!strcmp(s->mode, "gc"))
		check(stat(s, "gc_missed") == 0,
		      "gc: no flow idle when a pass began was left for the next pass: %lld",
		      stat(s, "gc_missed"));
	if (opt.cap)
		check(stat(s, "drop_cap") > 0 &&
		      stat(s, "flows_created") > stat(s, "max_flows"),
		      "the cap of %lld flows held them back: %lld packets let through untracked",
		      stat(s, "max_flows"), stat(s, "drop_cap"));
	else if (opt.spoof)
		check(evicted > 0 && at_cap < r->legit_packets,
		      "the spoofer's full table took new flows: %lld evicted; %lld packets of new flows dropped at the cap, fewer than the %lld the legitimate flows sent",
		      evicted, at_cap, r->legit_packets);
	else
		check(stat(s, "drop_cap") == 0, "no drop at the cap: %lld",
		      stat(s, "drop_cap"));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: flowgen [--flows N] [--fill S] [--active MIN:MAX] [--again PCT]\n"
		"               [--interval MS] [--seed N] [--drain S] [--leave] [--cap]\n"
		"               [--spoof N] [--hold N:S]\n"
		"               [--module PATH [--params A=B,C=D]] [--unload]\n"
		"               [--load-error ERRNO] [--aid PATH [--inject N | --load-race]]\n"
		"               [--measure-from S] [--result] [--quiet]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "flows", 1, NULL, 'n' }, { "fill", 1, NULL, 'f' },
		{ "active", 1, NULL, 'a' }, { "again", 1, NULL, 'g' },
		{ "interval", 1, NULL, 'i' }, { "seed", 1, NULL, 's' },
		{ "drain", 1, NULL, 'd' }, { "leave", 0, NULL, 'l' },
		{ "cap", 0, NULL, 'c' }, { "module", 1, NULL, 'm' },
		{ "params", 1, NULL, 'p' }, { "unload", 0, NULL, 'u' },
		{ "measure-from", 1, NULL, 'w' }, { "quiet", 0, NULL, 'q' },
		{ "result", 0, NULL, 'r' }, { "load-error", 1, NULL, 'e' },
		{ "aid", 1, NULL, 'A' }, { "inject", 1, NULL, 'I' },
		{ "load-race", 0, NULL, 'L' }, { "spoof", 1, NULL, 'S' },
		{ "hold", 1, NULL, 'H' }, { NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'n': opt.flows = atoi(optarg); break;
		case 'f': opt.fill = atof(optarg); break;
		case 'a':
			if (sscanf(optarg, "%lf:%lf", &opt.active_min,
				   &opt.active_max) != 2)
				usage();
			break;
		case 'g': opt.again = atof(optarg); break;
		case 'i': opt.interval_ms = atoi(optarg); break;
		case 's': opt.seed = strtoul(optarg, NULL, 0); break;
		case 'd': opt.drain_s = atoi(optarg); break;
		case 'l': opt.leave = true; break;
		case 'c': opt.cap = true; break;
		case 'm': opt.module = optarg; break;
		case 'p': opt.params = optarg; break;
		case 'u': opt.unload = true; break;
		case 'w': opt.measure_from = atoi(optarg); break;
		case 'q': opt.quiet = true; break;
		case 'r': opt.result = true; break;
		case 'e':
			opt.load_error = errno_of(optarg);
			if (!opt.load_error)
				usage();
			break;
		case 'A': opt.aid = optarg; break;
		case 'I': opt.inject = atoi(optarg); break;
		case 'L': opt.load_race = true; break;
		case 'S': opt.spoof = atoi(optarg); break;
		case 'H': {
			int end = 0;

			if (sscanf(optarg, "%d:%lf%n", &opt.hold, &opt.hold_s, &end) != 2 ||
			    optarg[end])
				usage();
			break;
		}
		default: usage();
		}
	}
	if (optind != argc || opt.flows < 1 || opt.spoof < 0 || opt.hold < 0 ||
	    !(opt.hold_s >= 0 && opt.hold_s <= 3600) || opt.flows > 60000 ||
	    opt.spoof > 60000 - opt.flows - opt.hold ||
	    opt.hold > 60000 - opt.flows ||
	    !(opt.fill >= 0 && opt.fill <= 3600) || !(opt.active_min > 0) ||
	    !(opt.active_max >= opt.active_min && opt.active_max <= 3600) ||
	    opt.interval_ms < 1 || opt.drain_s < 0 || !(opt.again >= 0 && opt.again <= 100) ||
	    (opt.load_error && !opt.module) || opt.inject < 0 ||
	    ((opt.inject || opt.load_race) && (!opt.aid || !opt.module)))
		usage();
}

/* Run on CPU 0, so that the aid's flood on CPU 1 runs beside the loads. */
static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * --load-race: see the top of the file. The hook is live for some
 * microseconds of each load; in the emulated debug kernel, where a load
 * takes half a second, the flood caught one load in 15 to 25. At one in
 * twenty, RACE_LOADS loads all miss with a chance of 2 in 10^7.
 */
#define RACE_LOADS	300

static int load_race(void)
{
	long long before, moved = 0, t;
	int tries, err = 0, made = -1;

	pin_cpu0();
	load_aid("fill=1 flood=1");
	for (tries = 0; tries < RACE_LOADS && made < 0; tries++) {
		before = timeq_fast_updates();
		err = finit(opt.module, opt.params);
		if (err != E2BIG)
			break;
		moved = timeq_fast_updates() - before;
		if (moved > 0)
			made = tries + 1;
	}
	check(err == E2BIG, "each load failed with E2BIG after PRE_ROUTING went live: %d loads, the last %s",
	      tries, err ? strerror(err) : "loaded");
	if (!err)
		unload_module();
	check(made > 0, "the flood made flows during a failing load: load %d, %lld fast updates",
	      made, moved);
	check(!loaded(MODNAME), "no %s left loaded", MODNAME);
	check(unload(AID) == 0, "unloaded %s", AID);
	/* LOCAL_OUT free: a load, and an unload while the flood goes on. */
	load_aid("flood=1");
	before = timeq_fast_updates();
	err = finit(opt.module, opt.params);
	check(!err, "loaded %s beside the flood: %s", MODNAME,
	      err ? strerror(err) : "ok");
	for (t = now_ns() + 30 * NS; !err && now_ns() < t;) {
		if (timeq_fast_updates() > before)
			break;
		usleep(10000);
	}
	moved = timeq_fast_updates() - before;
	if (!err)
		check(unload_module() == 0 && moved > 0,
		      "unloaded %s while the flood ran through its hook: %lld fast updates before",
		      MODNAME, moved);
	check(unload(AID) == 0, "unloaded %s", AID);
	printf("1..%d\n", tap_n);
	return tap_failed;
}

/* --load-error: the load must fail with that error, and leave nothing. */
static int refused_load(void)
{
	int err = finit(opt.module, opt.params);

	check(err == opt.load_error, "the load with %s was refused: %s (want %s)",
	      opt.params ? opt.params : "no parameters",
	      err ? strerror(err) : "it loaded", strerror(opt.load_error));
	if (!err)
		unload_module();
	printf("1..%d\n", tap_n);
	return tap_failed;
}

int main(int argc, char **argv)
{
	int c2p[2], p2c[2], status;
	int64_t t0, timeout, next, bound;
	struct result r = { 0 };
	char aid_params[32];
	struct stats s;
	bool done = false;
	pid_t child;
	char c;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.load_error)
		return refused_load();
	if (opt.load_race)
		return load_race();
	if (pipe2(c2p, O_CLOEXEC) || pipe2(p2c, O_CLOEXEC))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		if (unshare(CLONE_NEWNET))
			die("unshare(CLONE_NEWNET)");
		if (write(c2p[1], "r", 1) != 1)
			die("the parent went away");
		generate(c2p[1], p2c[0]);
	}
	/* The network, then the module, then the traffic at once. */
	if (read(c2p[0], &c, 1) != 1)
		die("the generator went away");
	make_veth(child);
	set_up("ftk0", ADDR_HOST);
	echo_open();
	if (write(p2c[1], "v", 1) != 1 || read(c2p[0], &c, 1) != 1)
		die("the generator went away");
	if (opt.module)
		load_module();
	if (!read_stats(&s) || stat(&s, "timeout_ms") <= 0)
		die("reading %s: is timeq_flowtrack loaded, and debugfs mounted?", STATS);
	if (opt.inject) {
		snprintf(aid_params, sizeof(aid_params), "inject=%d", opt.inject);
		load_aid(aid_params);
		if (unload(AID))
			die("unload %s", AID);
		printf("flowgen: %d packets of new flows through PRE_ROUTING in process context\n",
		       opt.inject);
	}
	timeout = stat(&s, "timeout_ms") * MS;
	if (write(p2c[1], &timeout, sizeof(timeout)) != sizeof(timeout))
		die("write to the generator");
	printf("flowgen: %d UDP flows from %s (a network namespace of their own) to an echo\n",
	       all_flows(), ADDR_PEER);
	printf("server on %s:%d over a veth pair, a packet every %d ms (+-50%%) while a flow\n",
	       ADDR_HOST, PORT, opt.interval_ms);
	printf("is active; flows idle for the time-out (%lld ms) expire\n",
	       timeout / MS);
	if (!opt.quiet)
		print_header();
	t0 = now_ns();
	next = t0 + NS;
	bound = t0 + 2 * (secs(schedule_s()) +
			  5 * timeout) + 30 * NS;
	/* The traffic: echo, and print the counters every second. */
	while (!done) {
		struct pollfd pfd[2] = { { .fd = echo_fd, .events = POLLIN },
					 { .fd = c2p[0], .events = POLLIN } };
		int64_t t = now_ns();

		if (t >= next) {
			if (read_stats(&s)) {
				note_peak(&s);
				if (!opt.quiet)
					print_line(&s, (double)(t - t0) / NS);
			}
			if (opt.measure_from >= 0 && !win_taken &&
			    t - t0 >= opt.measure_from * NS) {
				win_taken = read_stats(&win_stats);
				read_buckets(&win_buckets);
			}
			next += NS;
			continue;
		}
		if (t > bound) {
			fprintf(stderr, "flowgen: the generator never finished\n");
			kill(child, SIGKILL);
			r.overrun = 1;
			break;
		}
		if (poll(pfd, 2, (next - t) / MS + 1) < 0 && errno != EINTR)
			die("poll");
		if (pfd[0].revents & POLLIN)
			echo_some();
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			if (read(c2p[0], &r, sizeof(r)) != sizeof(r))
				die("the generator failed");
			done = true;
		}
	}
	echo_some();
	close(echo_fd);
	if (write(p2c[1], "q", 1) != 1 && done)
		die("write to the generator");
	waitpid(child, &status, 0);
	/* The injected packets: a session, and a flow, each. */
	r.sessions += opt.inject;
	r.flows += opt.inject;
	/* The drain: until nothing is live or left to free, bounded. */
	bound = now_ns() + (int64_t)opt.drain_s * NS;
	while (!opt.leave) {
		int64_t t = now_ns();

		if (!read_stable(&s))
			die("reading %s", STATS);
		if ((stat(&s, "flows_live") == 0 && stat(&s, "flows_allocated") == 0) ||
		    t > bound)
			break;
		if (t >= next) {
			if (!opt.quiet)
				print_line(&s, (double)(t - t0) / NS);
			next += NS;
		}
		usleep(100000);
	}
	if (!read_stable(&s))
		die("reading %s", STATS);
	if (!opt.quiet)
		print_line(&s, (double)(now_ns() - t0) / NS);
	summary(&s, &r);
	window(&s);
	checks(&s, &r);
	if (opt.unload)
		check(unload_module() == 0, "unloaded %s with %lld flows live",
		      MODNAME, stat(&s, "flows_live"));
	printf("1..%d\n", tap_n);
	return tap_failed;
}
