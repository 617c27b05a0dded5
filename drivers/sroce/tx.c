// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit packets: the responses the responder core decides (ACK, NAK,
 * RNR NAK, READ response, ATOMIC ACK) and the requests the requester core
 * decides.  Packets are built as stock rdma_rxe builds them (rxe_net.c):
 * IPv4 or IPv6 + UDP with a zero checksum + BTH and the opcode's extension
 * headers (sroce_put_headers(), wire.c) + payload + pad + ICRC,
 * routed in init_net pinned to the device's netdev and sent through the
 * IP stack, which adds the link-layer header.  Each QP caches its route
 * (struct dst_cache, as tunnels do); modify_qp with a new AV resets it.
 * Runs in the QP task: an RC QP's path and destination QPN come from the
 * QP's view of its attributes (qp->view), copied at the start of the
 * pass; a UD send's from its WQE (a copy of its AH's), routed afresh for
 * each datagram, since each may go elsewhere.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/udp.h>
#include <linux/wait_bit.h>
#include <net/dst_cache.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/sock.h>

#include <sroce/ib_wire.h>
#include <sroce/psn.h>
#include "sroce.h"
#include "wire.h"

/*
 * The route to av->daddr from av->saddr: from @cache, else looked up and
 * put there; with no cache (a UD QP: each datagram's path is its own)
 * looked up each time.  BHs are off: the cache is per CPU.
 */
static struct dst_entry *sroce_route4(struct dst_cache *cache, struct net *net,
				      struct net_device *ndev, const struct sroce_av *av)
{
	struct flowi4 fl4 = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.saddr = av->saddr.in4.sin_addr.s_addr,
		.daddr = av->daddr.in4.sin_addr.s_addr,
	};
	struct rtable *rt;
	__be32 saddr;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &saddr);
		if (rt && saddr == fl4.saddr)
			return &rt->dst;
		if (rt)
			ip_rt_put(rt);
	}
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	if (cache)
		dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
	return &rt->dst;
}

#if IS_ENABLED(CONFIG_IPV6)
static struct dst_entry *sroce_route6(struct dst_cache *cache, struct sock *sk,
				      struct net_device *ndev, const struct sroce_av *av)
{
	struct flowi6 fl6 = {
		.flowi6_oif = ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.saddr = av->saddr.in6.sin6_addr,
		.daddr = av->daddr.in6.sin6_addr,
	};
	struct dst_entry *dst;
	struct in6_addr saddr;

	if (cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst && ipv6_addr_equal(&saddr, &fl6.saddr))
			return dst;
		dst_release(dst);
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(sock_net(sk), sk, &fl6, NULL);
	if (cache && !IS_ERR(dst))
		dst_cache_set_ip6(cache, dst, &fl6.saddr);
	return dst;
}
#else
static struct dst_entry *sroce_route6(struct dst_cache *cache, struct sock *sk,
				      struct net_device *ndev, const struct sroce_av *av)
{
	return ERR_PTR(-EAFNOSUPPORT);
}
#endif

static struct dst_entry *sroce_route(struct sroce_qp *qp, struct sock *sk,
				     struct net_device *ndev, const struct sroce_av *av)
{
	/* An RC QP's one path is cached; a UD QP's datagrams go anywhere. */
	struct dst_cache *cache = sroce_qp_is_ud(qp) ? NULL : &qp->dst_cache;
	struct dst_entry *dst;

	local_bh_disable();
	if (av->network_type == RDMA_NETWORK_IPV6)
		dst = sroce_route6(cache, sk, ndev, av);
	else
		dst = sroce_route4(cache, sock_net(sk), ndev, av);
	local_bh_enable();
	return dst;
}

/*
 * A QP's packets in the IP stack.  Each holds a reference to its QP's
 * flow, not to the QP: a packet the stack keeps (a qdisc in front of a
 * link that sends nothing) must not keep destroy_qp waiting, nor its
 * caller in D state.  Owned here; the QP points to it from create to
 * destroy (qp->tx_flow).
 */
struct sroce_tx_flow {
	spinlock_t lock;		/* guards qp */
	struct sroce_qp *qp;		/* NULL once the QP is being destroyed */
	atomic_t inflight;		/* packets in the stack */
	refcount_t refs;		/* the QP's, and one per packet in the stack */
	bool draining;			/* destroy waits for inflight to reach 0 */
	bool pinned;			/* its packets outlived the QP: a module reference */
};

/*
 * Flows not yet freed.  Their packets' destructor is this module's: a flow
 * whose packets outlive its QP holds a module reference (rmmod is refused
 * while the stack keeps them), and the unload waits for the rest (QPs
 * destroyed by the unload itself, sroce_tx_exit()).
 */
static atomic_t sroce_tx_flows = ATOMIC_INIT(0);

static void sroce_tx_flow_put(struct sroce_tx_flow *f)
{
	bool pinned;

	if (!refcount_dec_and_test(&f->refs))
		return;
	pinned = f->pinned;	/* written before the detaching put: ordered by it */
	kfree(f);
	if (atomic_dec_and_test(&sroce_tx_flows))
		wake_up_var(&sroce_tx_flows);
	if (pinned)
		module_put(THIS_MODULE);
}

int sroce_tx_qp_init(struct sroce_qp *qp)
{
	struct sroce_tx_flow *f;
	int err;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = dst_cache_init(&qp->dst_cache, GFP_KERNEL);
	if (err) {
		kfree(f);
		return err;
	}
	spin_lock_init(&f->lock);
	f->qp = qp;
	refcount_set(&f->refs, 1);
	atomic_inc(&sroce_tx_flows);
	qp->tx_flow = f;
	return 0;
}

/*
 * The QP is going: its packets still in the stack no longer schedule it.
 * After this no destructor reaches the QP (one that is scheduling it
 * holds f->lock, and the task is stopped: a stopped task ignores it).
 */
void sroce_tx_qp_cleanup(struct sroce_qp *qp)
{
	struct sroce_tx_flow *f = qp->tx_flow;
	unsigned long flags;

	/*
	 * The stack normally frees them at once (a TX completion): a short,
	 * bounded wait, so that an unload right after finds nothing pinned.
	 */
	WRITE_ONCE(f->draining, true);
	smp_mb();	/* against sroce_tx_skb_done(): its dec, then draining */
	wait_var_event_timeout(&f->inflight, !atomic_read(&f->inflight),
			       msecs_to_jiffies(SROCE_TX_DRAIN_MS));
	spin_lock_irqsave(&f->lock, flags);
	f->qp = NULL;
	spin_unlock_irqrestore(&f->lock, flags);
	qp->tx_flow = NULL;
	/* Packets still in the stack: the module stays until they are freed. */
	if (refcount_read(&f->refs) > 1) {
		__module_get(THIS_MODULE);
		f->pinned = true;
	}
	sroce_tx_flow_put(f);
	dst_cache_destroy(&qp->dst_cache);
}

/* The requester holds back: the stack has not freed enough of its packets. */
bool sroce_tx_full(const struct sroce_qp *qp)
{
	return atomic_read(&qp->tx_flow->inflight) >= SROCE_TX_INFLIGHT_HIGH;
}

/*
 * Module unload, after every device (so every QP) is gone: wait for the
 * stack to free the packets of the QPs the unload destroyed (a kernel
 * user's; those of QPs destroyed before hold a module reference).  A qdisc
 * that never lets them go (a link that sends nothing) holds the unload
 * until the link goes down or the qdisc is replaced: said every 10 s.
 */
void sroce_tx_exit(void)
{
	while (!wait_var_event_timeout(&sroce_tx_flows, !atomic_read(&sroce_tx_flows), 10 * HZ))
		pr_warn("sroce: unload waits for the IP stack to free the packets of %d QPs\n",
			atomic_read(&sroce_tx_flows));
	/* The last destructor may still be returning from sroce_tx_flow_put(). */
	synchronize_rcu();
}

static void sroce_push_udp(struct sk_buff *skb, const struct sroce_av *av)
{
	struct udphdr *udph = skb_push(skb, sizeof(*udph));

	skb_reset_transport_header(skb);
	udph->source = htons(av->sport);
	udph->dest = htons(SROCE_ROCE_V2_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;	/* as stock, for IPv4 and IPv6 alike */
}

static void sroce_push_ip4(struct net *net, struct sk_buff *skb, const struct sroce_av *av)
{
	struct iphdr *iph = skb_push(skb, sizeof(*iph));

	skb_reset_network_header(skb);
	iph->version = IPVERSION;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;		/* ip_local_out() computes it */
	iph->saddr = av->saddr.in4.sin_addr.s_addr;
	iph->daddr = av->daddr.in4.sin_addr.s_addr;
	/* The ID is covered by the ICRC: choose it now. */
	__ip_select_ident(net, iph, 1);
}

static void sroce_push_ip6(struct sk_buff *skb, const struct sroce_av *av)
{
	struct ipv6hdr *ip6h = skb_push(skb, sizeof(*ip6h));

	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, htonl(av->flow_label) & IPV6_FLOWLABEL_MASK);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = av->saddr.in6.sin6_addr;
	ip6h->daddr = av->daddr.in6.sin6_addr;
}

/**
 * sroce_tx_alloc() - an skb with the transport headers of @h and room for
 * @len payload bytes, routed on @av.
 * @qp: the sending QP
 * @av: the path: &qp->view.av, or a UD WQE's
 * @h: the headers; h->pad is set here from @len
 * @len: payload bytes
 * @payload: set to where they go (the pad after them is zeroed)
 * @tx: state for sroce_tx_send() / sroce_tx_abort()
 *
 * Return: the skb, or ERR_PTR(-ENOMEM) (try again later) or another
 * -errno (no socket or route: the packet is lost, and counted).
 */
struct sk_buff *sroce_tx_alloc(struct sroce_qp *qp, const struct sroce_av *av,
			       const struct sroce_hdrs *h, u32 len, u8 **payload,
			       struct sroce_tx *tx)
{
	struct net_device *ndev = qp->sdev->ndev;
	struct sroce_hdrs hdrs = *h;
	unsigned int pad = -len & 3;
	struct sk_buff *skb;
	int err;

	tx->ipv6 = av->network_type == RDMA_NETWORK_IPV6;
	tx->sock = sroce_net_sock(tx->ipv6);
	if (!tx->sock) {
		err = -EAFNOSUPPORT;
		goto err_count;
	}
	tx->dst = sroce_route(qp, tx->sock->sk, ndev, av);
	if (IS_ERR(tx->dst)) {
		err = PTR_ERR(tx->dst);
		goto err_count;
	}
	tx->ip_len = tx->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	tx->tlen = sroce_opinfo(h->opcode)->len + len + pad + SROCE_ICRC_SIZE;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + tx->ip_len + sizeof(struct udphdr) + tx->tlen,
			GFP_ATOMIC);
	if (!skb) {
		dst_release(tx->dst);
		sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
		return ERR_PTR(-ENOMEM);
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev) + tx->ip_len + sizeof(struct udphdr));
	hdrs.pad = pad;
	*payload = sroce_put_headers(skb_put(skb, tx->tlen), &hdrs);
	memset(*payload + len, 0, pad);
	return skb;

err_count:
	sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
	return ERR_PTR(err);
}

void sroce_tx_abort(struct sk_buff *skb, struct sroce_tx *tx)
{
	kfree_skb(skb);
	dst_release(tx->dst);
}

/* Source and destination are the same address: a QP of this host (as rxe). */
static bool sroce_av_loopback(const struct sroce_av *av)
{
	if (av->network_type == RDMA_NETWORK_IPV6)
		return ipv6_addr_equal(&av->saddr.in6.sin6_addr, &av->daddr.in6.sin6_addr);
	return av->saddr.in4.sin_addr.s_addr == av->daddr.in4.sin_addr.s_addr;
}

/*
 * The IP stack freed a packet of the QP (transmitted, or dropped): wake the
 * requester once enough have gone, if its QP is still there.  Any context;
 * inside an RCU read section for sroce_tx_exit().
 */
static void sroce_tx_skb_done(struct sk_buff *skb)
{
	struct sroce_tx_flow *f = skb_shinfo(skb)->destructor_arg;
	unsigned long flags;
	int left;

	rcu_read_lock();
	left = atomic_dec_return(&f->inflight);
	if (left == SROCE_TX_INFLIGHT_LOW) {
		spin_lock_irqsave(&f->lock, flags);
		if (f->qp)
			sroce_task_schedule(&f->qp->task);
		spin_unlock_irqrestore(&f->lock, flags);
	}
	if (!left && READ_ONCE(f->draining))
		wake_up_var(&f->inflight);
	sroce_tx_flow_put(f);
	rcu_read_unlock();
}

/**
 * sroce_tx_send() - add UDP, IP and the ICRC to a packet and send it
 * @qp: the sending QP
 * @av: the path it was allocated for
 * @skb: from sroce_tx_alloc(), filled; consumed
 * @tx: its transmit state
 *
 * Traffic to the QP's own address goes straight to the receive path, as
 * if it had come back from the netdev: the same checks, no round trip.
 *
 * Return: 0 when the IP stack (or the receive path) took the packet,
 * else -errno (counted).
 */
int sroce_tx_send(struct sroce_qp *qp, const struct sroce_av *av, struct sk_buff *skb,
		  struct sroce_tx *tx)
{
	struct net *net = sock_net(tx->sock->sk);
	struct sroce_tx_flow *f = qp->tx_flow;
	int err;

	sroce_push_udp(skb, av);
	if (tx->ipv6) {
		sroce_push_ip6(skb, av);
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		sroce_push_ip4(net, skb, av);
		skb->protocol = htons(ETH_P_IP);
	}
	skb->dev = qp->sdev->ndev;
	skb_dst_set(skb, tx->dst);

	put_unaligned_le32(sroce_icrc(skb, tx->ip_len + sizeof(struct udphdr),
				      tx->tlen - SROCE_ICRC_SIZE),
			   skb_tail_pointer(skb) - SROCE_ICRC_SIZE);

	if (sroce_av_loopback(av)) {
		/*
		 * ip_local_out() would fill in the IPv4 checksum: a UD receive
		 * hands this header to its consumer as the GRH, and ib_core
		 * reads it as IPv4 only if the checksum holds.
		 */
		if (!tx->ipv6)
			ip_send_check(ip_hdr(skb));
		skb_dst_drop(skb);
		__skb_pull(skb, tx->ip_len);
		sroce_count(qp->sdev, SROCE_CNT_TX_PACKETS);
		sroce_rcv(qp->sdev, skb);
		return 0;
	}
	/* Counted in flight until the stack frees it (sroce_tx_skb_done()). */
	refcount_inc(&f->refs);
	atomic_inc(&f->inflight);
	skb_shinfo(skb)->destructor_arg = f;
	skb->destructor = sroce_tx_skb_done;
	if (tx->ipv6)
		err = ip6_local_out(net, tx->sock->sk, skb);
	else
		err = ip_local_out(net, tx->sock->sk, skb);
	err = net_xmit_eval(err);
	if (err) {
		sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
		return err > 0 ? -ENOBUFS : err;
	}
	sroce_count(qp->sdev, SROCE_CNT_TX_PACKETS);
	return 0;
}

/**
 * sroce_tx_response() - build and send one response packet.
 * @qp: the responding QP
 * @d: what to send; a READ response carries d->length bytes
 * @mr: for a READ response with data, the MR holding them (referenced and
 *	checked by the caller), copied straight into the packet; else NULL
 * @mr_va: where in @mr they start (d->va, unless the R_Key named a
 *	zero-based window: sroce_rkey_get())
 *
 * Return: 0 when the IP stack took the packet, else -errno.
 */
int sroce_tx_response(struct sroce_qp *qp, const struct sroce_resp_desc *d,
		      struct sroce_mr *mr, u64 mr_va)
{
	u32 len = mr ? d->length : 0;
	/* SE, MigReq, AckReq and TVer are 0 in a response. */
	struct sroce_hdrs hdrs = {
		.opcode = d->opcode,
		.pkey = SROCE_PKEY_DEFAULT,
		.dest_qpn = qp->view.dest_qpn,
		.psn = d->psn,
		.syndrome = d->syndrome,
		.msn = d->msn,
		.atomic_orig = d->atomic_orig,
	};
	struct sroce_tx tx;
	struct sk_buff *skb;
	u8 *payload;

	skb = sroce_tx_alloc(qp, &qp->view.av, &hdrs, len, &payload, &tx);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	if (len && sroce_mr_copy(mr, mr_va, skb, payload - skb->data, len,
				 SROCE_COPY_FROM_MR)) {
		sroce_tx_abort(skb, &tx);
		sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
		return -EFAULT;
	}
	return sroce_tx_send(qp, &qp->view.av, skb, &tx);
}
