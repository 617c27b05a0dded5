// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit one response packet (ACK, NAK, RNR NAK, READ response, ATOMIC
 * ACK) from a descriptor the responder core handed out.  The packet is
 * built as stock rdma_rxe builds it (rxe_net.c): IPv4 or IPv6 + UDP with
 * a zero checksum + BTH [+ AETH] [+ AtomicAckETH] (sroce_put_headers(),
 * wire.c, from the opcode's headers) + payload + pad + ICRC,
 * routed in init_net pinned to the device's netdev and sent through the
 * IP stack, which adds the link-layer header.  Each QP caches its route
 * (struct dst_cache, as tunnels do); modify_qp with a new AV resets it.
 * Runs in the QP task: the path and destination QPN come from the QP's
 * view of its attributes (qp->view), copied at the start of the pass.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
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
 * The QP's route to av->daddr from av->saddr: from its cache, else looked
 * up and cached.  BHs are off: the cache is per CPU.
 */
static struct dst_entry *sroce_route4(struct sroce_qp *qp, struct net *net,
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

	rt = dst_cache_get_ip4(&qp->dst_cache, &saddr);
	if (rt && saddr == fl4.saddr)
		return &rt->dst;
	if (rt)
		ip_rt_put(rt);
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	dst_cache_set_ip4(&qp->dst_cache, &rt->dst, fl4.saddr);
	return &rt->dst;
}

#if IS_ENABLED(CONFIG_IPV6)
static struct dst_entry *sroce_route6(struct sroce_qp *qp, struct sock *sk,
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

	dst = dst_cache_get_ip6(&qp->dst_cache, &saddr);
	if (dst && ipv6_addr_equal(&saddr, &fl6.saddr))
		return dst;
	dst_release(dst);
	dst = ipv6_stub->ipv6_dst_lookup_flow(sock_net(sk), sk, &fl6, NULL);
	if (!IS_ERR(dst))
		dst_cache_set_ip6(&qp->dst_cache, dst, &fl6.saddr);
	return dst;
}
#else
static struct dst_entry *sroce_route6(struct sroce_qp *qp, struct sock *sk,
				      struct net_device *ndev, const struct sroce_av *av)
{
	return ERR_PTR(-EAFNOSUPPORT);
}
#endif

static struct dst_entry *sroce_route(struct sroce_qp *qp, struct sock *sk,
				     struct net_device *ndev, const struct sroce_av *av)
{
	struct dst_entry *dst;

	local_bh_disable();
	if (av->network_type == RDMA_NETWORK_IPV6)
		dst = sroce_route6(qp, sk, ndev, av);
	else
		dst = sroce_route4(qp, sock_net(sk), ndev, av);
	local_bh_enable();
	return dst;
}

int sroce_tx_qp_init(struct sroce_qp *qp)
{
	return dst_cache_init(&qp->dst_cache, GFP_KERNEL);
}

void sroce_tx_qp_cleanup(struct sroce_qp *qp)
{
	dst_cache_destroy(&qp->dst_cache);
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
 * sroce_tx_response() - build and send one response packet.
 * @qp: the responding QP
 * @d: what to send; a READ response carries d->length bytes from d->va
 * @mr: for a READ response with data, the MR holding them (referenced and
 *	checked by the caller), copied straight into the packet; else NULL
 *
 * Return: 0 when the IP stack took the packet, else -errno.
 */
int sroce_tx_response(struct sroce_qp *qp, const struct sroce_resp_desc *d,
		      struct sroce_mr *mr)
{
	struct net_device *ndev = qp->sdev->ndev;
	u32 len = mr ? d->length : 0;
	unsigned int pad = -len & 3;
	unsigned int ip_len;
	unsigned int tlen;
	struct dst_entry *dst;
	struct sk_buff *skb;
	struct socket *sock;
	const struct sroce_av *av = &qp->view.av;
	struct sroce_hdrs hdrs;
	u8 *payload;
	struct net *net;
	bool ipv6;
	int err;

	ipv6 = av->network_type == RDMA_NETWORK_IPV6;
	sock = sroce_net_sock(ipv6);
	if (!sock) {
		err = -EAFNOSUPPORT;
		goto err_count;
	}
	net = sock_net(sock->sk);

	dst = sroce_route(qp, sock->sk, ndev, av);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		goto err_count;
	}

	ip_len = ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	tlen = sroce_opinfo(d->opcode)->len + len + pad + SROCE_ICRC_SIZE;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + ip_len + sizeof(struct udphdr) + tlen,
			GFP_ATOMIC);
	if (!skb) {
		err = -ENOMEM;
		goto err_dst;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev) + ip_len + sizeof(struct udphdr));
	/* SE, MigReq, AckReq and TVer are 0 in a response. */
	hdrs = (struct sroce_hdrs){
		.opcode = d->opcode,
		.pad = pad,
		.pkey = SROCE_PKEY_DEFAULT,
		.dest_qpn = qp->view.dest_qpn,
		.psn = d->psn,
		.syndrome = d->syndrome,
		.msn = d->msn,
		.atomic_orig = d->atomic_orig,
	};
	payload = sroce_put_headers(skb_put(skb, tlen), &hdrs);
	memset(payload + len, 0, pad);
	if (len) {
		err = sroce_mr_copy(mr, d->va, skb, payload - skb->data, len,
				    SROCE_COPY_FROM_MR);
		if (err)
			goto err_skb;
	}

	sroce_push_udp(skb, av);
	if (ipv6) {
		sroce_push_ip6(skb, av);
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		sroce_push_ip4(net, skb, av);
		skb->protocol = htons(ETH_P_IP);
	}
	skb->dev = ndev;
	skb_dst_set(skb, dst);

	put_unaligned_le32(sroce_icrc(skb, ip_len + sizeof(struct udphdr),
				      tlen - SROCE_ICRC_SIZE),
			   skb_tail_pointer(skb) - SROCE_ICRC_SIZE);

	if (ipv6)
		err = ip6_local_out(net, sock->sk, skb);
	else
		err = ip_local_out(net, sock->sk, skb);
	err = net_xmit_eval(err);
	if (err) {
		if (err > 0)
			err = -ENOBUFS;
		goto err_count;
	}

	sroce_count(qp->sdev, SROCE_CNT_TX_PACKETS);
	return 0;

err_skb:
	kfree_skb(skb);
err_dst:
	dst_release(dst);
err_count:
	sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
	return err;
}
