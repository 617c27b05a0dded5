// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: every RoCEv2 datagram from the UDP tunnel comes here.  The
 * packet is checked in a fixed order (lengths, BTH, opcode, pad, ICRC,
 * destination QP, its type, state and path), parsed into struct sroce_pkt
 * and queued for the QP's task: requests for the responder, responses
 * for the completer; any failure drops it under a named reason.  An RC
 * opcode reaches only an RC QP and must come on its path; a UD opcode
 * only a UD QP, from anywhere, to an address in the GID table.
 * What each opcode carries comes from the wire layer (wire.h).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_addr.h>

#include <sroce/ib_wire.h>
#include <sroce/psn.h>
#include "sroce.h"
#include "wire.h"
#include "kunit_exports.h"

/* pkey_match() against IB_DEFAULT_PKEY_FULL: any 0x7fff, full or limited. */
#define SROCE_PKEY_BASE_MASK 0x7fff

/* The packet's IP source and destination are the QP's path, reversed. */
static bool sroce_path_match(const struct sroce_av *av, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *ip4h = ip_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV4 &&
		       ip4h->saddr == av->daddr.in4.sin_addr.s_addr &&
		       ip4h->daddr == av->saddr.in4.sin_addr.s_addr;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV6 &&
		       ipv6_addr_equal(&ip6h->saddr, &av->daddr.in6.sin6_addr) &&
		       ipv6_addr_equal(&ip6h->daddr, &av->saddr.in6.sin6_addr);
	}
	return false;
}

/* A datagram's destination address is one of the port's GIDs (as rxe_chk_dgid). */
static bool sroce_dgid_ok(struct sroce_dev *sdev, struct sk_buff *skb)
{
	const struct ib_gid_attr *attr;
	union ib_gid dgid;

	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, (struct in6_addr *)&dgid);
	else if (skb->protocol == htons(ETH_P_IPV6))
		memcpy(&dgid, &ipv6_hdr(skb)->daddr, sizeof(dgid));
	else
		return false;
	attr = rdma_find_gid_by_port(&sdev->ibdev, &dgid, IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/* The opcode's transport (its high three bits) is the QP's. */
static bool sroce_transport_match(const struct sroce_qp *qp, u8 opcode)
{
	u8 transport = opcode >> SROCE_OP_TRANSPORT_SHIFT;

	if (sroce_qp_is_ud(qp))
		return transport == SROCE_OP_TRANSPORT_UD;
	if (sroce_qp_is_uc(qp))
		return transport == SROCE_OP_TRANSPORT_UC;
	return qp->ibqp.qp_type == IB_QPT_RC && transport == SROCE_OP_TRANSPORT_RC;
}

/* Fill skb->cb from the BTH and the extension headers @info names. */
VISIBLE_IF_KUNIT void sroce_parse(struct sk_buff *skb, const struct sroce_opinfo *info,
				  unsigned int pad)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	const u8 *bth = skb->data;
	u32 apsn = get_unaligned_be32(bth + offsetof(struct sroce_bth, apsn));
	const u8 *eth;

	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = bth[offsetof(struct sroce_bth, opcode)];
	pkt->se = !!(bth[offsetof(struct sroce_bth, flags)] & SROCE_BTH_SE);
	pkt->psn = apsn & SROCE_PSN_MASK;
	pkt->ackreq = !!(apsn & SROCE_BTH_ACKREQ);

	if (info->deth) {
		eth = bth + info->deth;
		pkt->deth_qkey = get_unaligned_be32(eth + offsetof(struct sroce_deth, qkey));
		pkt->deth_src_qpn = get_unaligned_be32(eth + offsetof(struct sroce_deth, src_qpn)) &
				    SROCE_BTH_QPN_MASK;
	}
	if (info->reth) {
		eth = bth + info->reth;
		pkt->remote_va = get_unaligned_be64(eth + offsetof(struct sroce_reth, va));
		pkt->remote_rkey = get_unaligned_be32(eth + offsetof(struct sroce_reth, rkey));
		pkt->remote_len = get_unaligned_be32(eth + offsetof(struct sroce_reth, len));
	}
	if (info->atmeth) {
		eth = bth + info->atmeth;
		pkt->atmeth_off = info->atmeth;
		pkt->remote_va = get_unaligned_be64(eth + offsetof(struct sroce_atmeth, va));
		pkt->remote_rkey = get_unaligned_be32(eth + offsetof(struct sroce_atmeth, rkey));
	}
	if (info->immdt) {
		pkt->has_imm = 1;
		pkt->imm_data = get_unaligned((const __be32 *)(bth + info->immdt));
	}
	if (info->ieth) {
		pkt->has_inv = 1;
		pkt->imm_data = get_unaligned((const __be32 *)(bth + info->ieth));
	}

	pkt->payload_off = info->len;
	pkt->payload_len = skb->len - info->len - pad - SROCE_ICRC_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_parse);

/*
 * The last checks, the QP's state and path, and the hand-over to the
 * responder, all under qp->state_lock: once modify_qp or destroy has
 * stored a state that takes no requests, nothing more is queued, and
 * they purge what was.  Return: true if the responder took @skb and the
 * QP reference in it; else *@why says why not.
 */
static bool sroce_deliver(struct sroce_qp *qp, struct sk_buff *skb, enum sroce_drop *why)
{
	bool queued = false;

	bool response = sroce_opinfo(sroce_pkt(skb)->opcode)->response;

	spin_lock_bh(&qp->state_lock);
	if (response && !sroce_state_sends(qp->state)) {
		*why = SROCE_RX_DROP_SQ_STATE;
	} else if (!response && !sroce_state_takes_requests(qp->state)) {
		*why = SROCE_RX_DROP_QP_STATE;
	} else if (!sroce_qp_is_ud(qp) && !sroce_path_match(&qp->av, skb)) {
		*why = SROCE_RX_DROP_BAD_ADDR;
	} else {
		if (skb_is_nonlinear(skb))
			sroce_count(qp->sdev, SROCE_CNT_RX_PAGED);
		if (response) {
			queued = !sroce_comp_enqueue(qp, skb);
			if (!queued)
				*why = SROCE_RX_DROP_COMP_BUSY;
		} else {
			queued = !sroce_resp_enqueue(qp, skb);
			if (!queued)
				*why = SROCE_RX_DROP_RESP_BUSY;
		}
	}
	spin_unlock_bh(&qp->state_lock);
	return queued;
}

/* The group a datagram goes to: its IP destination, if multicast, as an MGID. */
static bool sroce_mgid_of(struct sk_buff *skb, union ib_gid *mgid)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		__be32 daddr = ip_hdr(skb)->daddr;

		if (!ipv4_is_multicast(daddr))
			return false;
		ipv6_addr_set_v4mapped(daddr, (struct in6_addr *)mgid);
		return true;
	}
	if (skb->protocol == htons(ETH_P_IPV6) && ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr)) {
		memcpy(mgid, &ipv6_hdr(skb)->daddr, sizeof(*mgid));
		return true;
	}
	return false;
}

/*
 * DestQP 0xFFFFFF: a UD datagram to the multicast group of its IP
 * destination, for every QP attached to the group: a clone to each but
 * the last, each then checked and queued as a datagram to that QP.
 * Consumes @skb.
 */
static void sroce_rcv_mcast(struct sroce_dev *sdev, struct sk_buff *skb,
			    const struct sroce_opinfo *info, unsigned int pad)
{
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	u8 opcode = skb->data[offsetof(struct sroce_bth, opcode)];
	enum sroce_drop why;
	union ib_gid mgid;
	u32 n, i;

	if (opcode >> SROCE_OP_TRANSPORT_SHIFT != SROCE_OP_TRANSPORT_UD) {
		why = SROCE_RX_DROP_QP_TYPE;
		goto drop;
	}
	if (!sroce_mgid_of(skb, &mgid)) {
		why = SROCE_RX_DROP_BAD_DGID;
		goto drop;
	}
	n = sroce_mcast_members(sdev, &mgid, qps);
	if (!n) {
		why = SROCE_RX_DROP_NO_QP;	/* no QP attached to the group */
		goto drop;
	}
	for (i = 0; i < n; i++) {
		struct sk_buff *one = i + 1 < n ? skb_clone(skb, GFP_ATOMIC) : skb;

		if (!one) {
			why = SROCE_RX_DROP_NO_MEMORY;
		} else if (!sroce_transport_match(qps[i], opcode)) {
			why = SROCE_RX_DROP_QP_TYPE;
		} else {
			sroce_parse(one, info, pad);
			sroce_pkt(one)->qp = qps[i];
			if (sroce_deliver(qps[i], one, &why))
				continue;
		}
		sroce_qp_put(qps[i]);
		sroce_count(sdev, SROCE_CNT_RX_DROP_FIRST + why);
		kfree_skb(one);
	}
	return;
drop:
	sroce_count(sdev, SROCE_CNT_RX_DROP_FIRST + why);
	kfree_skb(skb);
}

/**
 * sroce_rcv() - receive one RoCEv2 datagram.
 * @sdev: the device of the receiving netdev; the caller holds a reference
 * @skb: the datagram, skb->data at its UDP header; consumed
 *
 * A valid request is queued for the responder, which runs in the QP's
 * task, with a QP reference in sroce_pkt(skb)->qp and skb->data at the
 * BTH, its headers in the linear area and its payload wherever the NIC
 * put it (the responder copies it out with skb_copy_bits(), never
 * linearizing); anything else is dropped and counted under its reason.
 */
void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	const struct sroce_opinfo *info;
	enum sroce_drop why;
	struct sroce_qp *qp;
	unsigned int hdr_len;
	unsigned int paylen;
	unsigned int pad;
	__le32 icrc_buf;
	u32 qpn;
	const __le32 *icrcp;
	const u8 *bth;
	u16 pkey;

	sroce_count(sdev, SROCE_CNT_RX_PACKETS);

	/* pskb_may_pull() also fails without memory: the headers cannot be read. */
	if (skb->len < sizeof(struct udphdr) + SROCE_BTH_LEN + SROCE_ICRC_SIZE ||
	    !pskb_may_pull(skb, sizeof(struct udphdr) + SROCE_BTH_LEN)) {
		why = SROCE_RX_DROP_TOO_SHORT;
		goto drop;
	}
	__skb_pull(skb, sizeof(struct udphdr));

	/* Unknown opcodes have no entry: check their length as BTH-only. */
	info = sroce_opinfo(skb->data[offsetof(struct sroce_bth, opcode)]);
	hdr_len = info->len ?: SROCE_BTH_LEN;
	if (skb->len < hdr_len + SROCE_ICRC_SIZE || !pskb_may_pull(skb, hdr_len)) {
		why = SROCE_RX_DROP_TOO_SHORT;
		goto drop;
	}
	bth = skb->data;

	if (bth[offsetof(struct sroce_bth, flags)] & SROCE_BTH_TVER_MASK) {
		why = SROCE_RX_DROP_BAD_TVER;
		goto drop;
	}

	pkey = get_unaligned_be16(bth + offsetof(struct sroce_bth, pkey));
	if ((pkey & SROCE_PKEY_BASE_MASK) != SROCE_PKEY_BASE_MASK) {
		why = SROCE_RX_DROP_BAD_PKEY;
		goto drop;
	}

	if (!info->len) {
		why = SROCE_RX_DROP_BAD_OPCODE;
		goto drop;
	}
	pad = (bth[offsetof(struct sroce_bth, flags)] >> SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK;
	paylen = skb->len - hdr_len - SROCE_ICRC_SIZE;
	if (pad > paylen) {
		why = SROCE_RX_DROP_BAD_PAD;
		goto drop;
	}

	icrcp = skb_header_pointer(skb, skb->len - SROCE_ICRC_SIZE, SROCE_ICRC_SIZE, &icrc_buf);
	if (!icrcp ||
	    get_unaligned_le32(icrcp) != sroce_icrc(skb, 0, skb->len - SROCE_ICRC_SIZE)) {
		why = SROCE_RX_DROP_BAD_ICRC;
		goto drop;
	}

	qpn = get_unaligned_be32(bth + offsetof(struct sroce_bth, qpn)) & SROCE_BTH_QPN_MASK;
	if (qpn == SROCE_MCAST_QPN) {
		sroce_rcv_mcast(sdev, skb, info, pad);
		return;
	}
	qp = sroce_qp_get(sdev, qpn);
	if (!qp) {
		why = SROCE_RX_DROP_NO_QP;
		goto drop;
	}

	if (!sroce_transport_match(qp, bth[offsetof(struct sroce_bth, opcode)])) {
		why = SROCE_RX_DROP_QP_TYPE;
		goto drop_qp;
	}
	if (sroce_qp_is_ud(qp) && !sroce_dgid_ok(sdev, skb)) {
		why = SROCE_RX_DROP_BAD_DGID;
		goto drop_qp;
	}

	sroce_parse(skb, info, pad);
	sroce_pkt(skb)->qp = qp;
	if (sroce_deliver(qp, skb, &why))
		return;

drop_qp:
	sroce_qp_put(qp);
drop:
	sroce_count(sdev, SROCE_CNT_RX_DROP_FIRST + why);
	kfree_skb(skb);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rcv);
