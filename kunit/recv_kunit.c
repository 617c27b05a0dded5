// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_recv: drivers/sroce/recv.c's sroce_rcv() against a
 * table of frames, each either dropped for one reason or queued for one
 * engine.  For every row the test checks that exactly the counters it
 * names moved, by one (rx_packets, its drop reason, rx_paged for a paged
 * request), that nothing else did, where the frame went (the responder's
 * queue, the completer's, or nowhere), what recv.c parsed into it, and
 * that no QP reference was left behind.
 *
 * The set-up is sroce_rcv() itself on the lightest fake the code allows,
 * not the function below it: the checks to test are sroce_rcv()'s own
 * (lengths, BTH, opcode, pad, ICRC, QP lookup, type, state, path,
 * queueing), so no lower entry point would do.  The device is a zeroed
 * struct sroce_dev with its QP table and multicast list initialised and
 * no ib_core registration: it has no port, so rdma_find_gid_by_port()
 * finds no GID and every unicast UD datagram is dropped as
 * rx_drop_bad_dgid (no UD row can be accepted here).  Two bare QPs are in
 * the table, RC QPN 0x11 and UD QPN 0x12, each with its two packet
 * queues and a task that stays stopped, so a queued frame waits there
 * for the test.  A full queue is made by setting its length to U32_MAX
 * with nothing on it.  Frames are built whole (IP, UDP, the transport
 * headers by sroce_put_headers(), payload, pad, the ICRC of
 * sroce_icrc(), whose own known answers are in sroce_icrc); no row sends
 * anything (NAKs come from the responder stage of the QP task, not from
 * sroce_rcv()), so there is no transmit capture.
 *
 * Reasons that sroce_rcv() never counts have no row: rx_drop_core,
 * bad_qkey, no_wqe, uc_sequence and uc_refused (the QP task's stages,
 * after it), and rx_drop_no_memory (a
 * failed skb_clone() for a multicast member, which needs an allocation
 * failure and an attached group).
 */
#include <kunit/test.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include <sroce/ib_wire.h>
#include "../drivers/sroce/sroce.h"
#include "../drivers/sroce/wire.h"

#define RECV_RC_QPN 0x11
#define RECV_UD_QPN 0x12
#define RECV_NO_QPN 0x99
#define RECV_PSN 0x000100

/* Where a frame must end up. */
enum recv_to {
	RECV_DROPPED,
	RECV_TO_RESP,		/* the responder's queue (resp.rxq) */
	RECV_TO_COMP,		/* the completer's queue (sqs.rxq) */
};

/* What is wrong with a frame, or about its QP. */
#define RECV_BAD_ICRC	0x01	/* one ICRC bit flipped */
#define RECV_FOREIGN	0x02	/* IP source is not the QP's remote */
#define RECV_MCAST_IP	0x04	/* IP destination is a multicast group */
#define RECV_PAGED	0x08	/* payload, pad and ICRC in a page frag */
#define RECV_RESP_FULL	0x10	/* the QP's responder queue is full */
#define RECV_COMP_FULL	0x20	/* the QP's completer queue is full */
#define RECV_V4_PATH	0x40	/* the QP's path is IPv4 whatever the frame */

struct recv_row {
	const char *name;
	u32 qpn;		/* BTH DestQP */
	u8 state;		/* of the QP it names, + 1 (IN()); 0: RTS */
	bool ipv6;
	u8 opcode;
	u16 pkey;		/* 0: 0xffff */
	u8 tver;
	u8 pad;			/* BTH PadCnt */
	u16 paylen;		/* bytes between the headers and the ICRC, pad included */
	u8 trim;		/* bytes cut off the end */
	u8 flags;		/* RECV_* */
	enum recv_to to;
	enum sroce_drop drop;	/* when RECV_DROPPED */
};

#define IN(s) .state = (s) + 1
#define DROP(r) .to = RECV_DROPPED, .drop = SROCE_RX_DROP_##r

static const struct recv_row recv_rows[] = {
	/* Accepted. */
	{ .name = "rc send only to rts, ipv4: to the responder", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .to = RECV_TO_RESP },
	{ .name = "rc send only to rts, ipv6: to the responder", .qpn = RECV_RC_QPN,
	  .ipv6 = true, .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .to = RECV_TO_RESP },
	{ .name = "rc write first to rtr, paged: to the responder, rx_paged", .qpn = RECV_RC_QPN,
	  IN(IB_QPS_RTR), .opcode = SROCE_OP_WRITE_FIRST, .paylen = 256,
	  .flags = RECV_PAGED, .to = RECV_TO_RESP },
	{ .name = "pad count 3, 3 bytes after the headers: to the responder",
	  .qpn = RECV_RC_QPN, .opcode = SROCE_OP_SEND_ONLY, .pad = 3, .paylen = 3,
	  .to = RECV_TO_RESP },
	{ .name = "limited member pkey 0x7fff: to the responder", .qpn = RECV_RC_QPN,
	  .pkey = 0x7fff, .opcode = SROCE_OP_SEND_ONLY, .paylen = 1, .to = RECV_TO_RESP },
	{ .name = "rc acknowledge to rts: to the completer", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_ACKNOWLEDGE, .to = RECV_TO_COMP },
	{ .name = "rc read response to sqd: to the completer", .qpn = RECV_RC_QPN,
	  IN(IB_QPS_SQD), .opcode = SROCE_OP_READ_RESP_ONLY, .paylen = 64,
	  .to = RECV_TO_COMP },
	/* Dropped, one row per reason sroce_rcv() counts. */
	{ .name = "shorter than udp, bth and icrc: too short", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .trim = 1, DROP(TOO_SHORT) },
	{ .name = "shorter than its reth: too short", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_WRITE_ONLY, .trim = 1, DROP(TOO_SHORT) },
	{ .name = "tver 1: bad tver", .qpn = RECV_RC_QPN, .tver = 1,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(BAD_TVER) },
	{ .name = "pkey 0x7ffe: bad pkey", .qpn = RECV_RC_QPN, .pkey = 0x7ffe,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(BAD_PKEY) },
	{ .name = "reserved opcode 0x15: bad opcode", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_RESERVED_15, .paylen = 8, DROP(BAD_OPCODE) },
	{ .name = "pad count 3, 2 bytes after the headers: bad pad", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .pad = 3, .paylen = 2, DROP(BAD_PAD) },
	{ .name = "icrc bit flipped: bad icrc", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .flags = RECV_BAD_ICRC, DROP(BAD_ICRC) },
	{ .name = "icrc bit flipped, paged: bad icrc", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 100, .flags = RECV_BAD_ICRC | RECV_PAGED,
	  DROP(BAD_ICRC) },
	{ .name = "no such qp: no qp", .qpn = RECV_NO_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(NO_QP) },
	{ .name = "uc opcode to an rc qp: qp type", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_UC_SEND_ONLY, .paylen = 8, DROP(QP_TYPE) },
	{ .name = "rc opcode to a ud qp: qp type", .qpn = RECV_UD_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(QP_TYPE) },
	{ .name = "request to an init qp: qp state", .qpn = RECV_RC_QPN, IN(IB_QPS_INIT),
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(QP_STATE) },
	{ .name = "request to an error qp: qp state", .qpn = RECV_RC_QPN, IN(IB_QPS_ERR),
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, DROP(QP_STATE) },
	{ .name = "response to an rtr qp: sq state", .qpn = RECV_RC_QPN, IN(IB_QPS_RTR),
	  .opcode = SROCE_OP_ACKNOWLEDGE, DROP(SQ_STATE) },
	{ .name = "source not the qp's remote: bad addr", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .flags = RECV_FOREIGN, DROP(BAD_ADDR) },
	{ .name = "ipv6 frame on an ipv4 path: bad addr", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .flags = RECV_V4_PATH, .ipv6 = true,
	  DROP(BAD_ADDR) },
	{ .name = "responder queue full: resp busy", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .flags = RECV_RESP_FULL, DROP(RESP_BUSY) },
	{ .name = "completer queue full: comp busy", .qpn = RECV_RC_QPN,
	  .opcode = SROCE_OP_ACKNOWLEDGE, .flags = RECV_COMP_FULL, DROP(COMP_BUSY) },
	{ .name = "ud datagram to an address not in the gid table: bad dgid",
	  .qpn = RECV_UD_QPN, .opcode = SROCE_OP_UD_SEND_ONLY, .paylen = 8, DROP(BAD_DGID) },
	{ .name = "multicast qpn, rc opcode: qp type", .qpn = SROCE_MCAST_QPN,
	  .opcode = SROCE_OP_SEND_ONLY, .paylen = 8, .flags = RECV_MCAST_IP, DROP(QP_TYPE) },
	{ .name = "multicast qpn, unicast ip destination: bad dgid", .qpn = SROCE_MCAST_QPN,
	  .opcode = SROCE_OP_UD_SEND_ONLY, .paylen = 8, DROP(BAD_DGID) },
	{ .name = "multicast qpn, group with no member: no qp", .qpn = SROCE_MCAST_QPN,
	  .opcode = SROCE_OP_UD_SEND_ONLY, .paylen = 8, .flags = RECV_MCAST_IP, DROP(NO_QP) },
	{ .name = "multicast qpn, ipv6 group with no member: no qp", .qpn = SROCE_MCAST_QPN,
	  .ipv6 = true, .opcode = SROCE_OP_UD_SEND_ONLY, .paylen = 8, .flags = RECV_MCAST_IP,
	  DROP(NO_QP) },
};

struct recv_env {
	struct sroce_dev *sdev;
	struct sroce_qp *rc;
	struct sroce_qp *ud;
};

/* The addresses: this host .1, the QP's remote .2, a stranger .3. */
static void recv_addr(bool ipv6, u8 host, struct in6_addr *a6, __be32 *a4)
{
	if (ipv6) {
		*a6 = (struct in6_addr){ .s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = host } };
		return;
	}
	*a4 = htonl(0xc0000200 | host);		/* 192.0.2.host */
}

static struct sroce_qp *recv_qp(struct kunit *test, struct sroce_dev *sdev, u32 qpn,
				enum ib_qp_type type)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->sdev = sdev;
	qp->ibqp.qp_num = qpn;
	qp->ibqp.qp_type = type;
	spin_lock_init(&qp->state_lock);
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);
	sroce_task_init(&qp->task, NULL, NULL);	/* stopped: a queued frame stays queued */
	skb_queue_head_init(&qp->resp.rxq);
	skb_queue_head_init(&qp->sqs.rxq);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&sdev->qp_xa, qpn, qp, GFP_KERNEL)), 0);
	return qp;
}

static int recv_init(struct kunit *test)
{
	struct recv_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);

	test->priv = NULL;	/* the struct kunit of the last row may hold it */
	KUNIT_ASSERT_NOT_NULL(test, env);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	xa_init(&sdev->qp_xa);
	sroce_mcast_init(sdev);
	env->sdev = sdev;
	test->priv = env;
	env->rc = recv_qp(test, env->sdev, RECV_RC_QPN, IB_QPT_RC);
	env->ud = recv_qp(test, env->sdev, RECV_UD_QPN, IB_QPT_UD);
	return 0;
}

/*
 * Drop a QP reference a queued frame holds: the fake QP's count, by hand
 * (sroce_qp_put() is not exported; its count never reaches zero here).
 */
static void recv_put(struct sroce_qp *qp)
{
	refcount_dec(&qp->refs);
}

/* The frames on @q, counted on the list (a queue made full lies in its qlen). */
static u32 recv_queued(struct sk_buff_head *q)
{
	struct sk_buff *skb;
	u32 n = 0;

	skb_queue_walk(q, skb)
		n++;
	return n;
}

/* Empty a queue, putting the QP reference each frame holds. */
static void recv_purge(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	q->qlen = recv_queued(q);
	while ((skb = skb_dequeue(q))) {
		recv_put(sroce_pkt(skb)->qp);
		kfree_skb(skb);
	}
}

static void recv_exit(struct kunit *test)
{
	struct recv_env *env = test->priv;
	struct sroce_qp *qps[2];
	unsigned int i;

	if (!env)
		return;
	qps[0] = env->rc;
	qps[1] = env->ud;
	for (i = 0; i < ARRAY_SIZE(qps); i++) {
		if (!qps[i])
			continue;
		recv_purge(&qps[i]->resp.rxq);
		recv_purge(&qps[i]->sqs.rxq);
	}
	xa_destroy(&env->sdev->qp_xa);
}

/* The IP and UDP headers of @r, for @tlen bytes from the BTH on. */
static unsigned int recv_put_ip(struct sk_buff *skb, const struct recv_row *r, unsigned int tlen)
{
	u8 src = r->flags & RECV_FOREIGN ? 3 : 2;
	unsigned int ip_len;
	struct udphdr *uh;

	skb_reset_network_header(skb);
	if (r->ipv6) {
		struct ipv6hdr *ip6h = skb_put_zero(skb, sizeof(*ip6h));

		ip_len = sizeof(*ip6h);
		ip6h->version = 6;
		ip6h->payload_len = htons(sizeof(*uh) + tlen);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = 64;
		recv_addr(true, src, &ip6h->saddr, NULL);
		recv_addr(true, 1, &ip6h->daddr, NULL);
		if (r->flags & RECV_MCAST_IP)
			ip6h->daddr = (struct in6_addr){ .s6_addr = { 0xff, 0x0e, [15] = 0x34 } };
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		struct iphdr *iph = skb_put_zero(skb, sizeof(*iph));

		ip_len = sizeof(*iph);
		iph->version = 4;
		iph->ihl = 5;
		iph->tot_len = htons(ip_len + sizeof(*uh) + tlen);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		recv_addr(false, src, NULL, &iph->saddr);
		recv_addr(false, 1, NULL, &iph->daddr);
		if (r->flags & RECV_MCAST_IP)
			iph->daddr = htonl(0xef010203);		/* 239.1.2.3 */
		skb->protocol = htons(ETH_P_IP);
	}
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(0xc000);
	uh->dest = htons(SROCE_ROCE_V2_PORT);
	uh->len = htons(sizeof(*uh) + tlen);
	return ip_len;
}

/* The frame of @r, skb->data at its UDP header, as the tunnel hands it over. */
static struct sk_buff *recv_frame(struct kunit *test, const struct recv_row *r)
{
	struct sroce_hdrs h = {
		.opcode = r->opcode, .bth_flags = SROCE_BTH_SE, .ackreq = true, .pad = r->pad,
		.pkey = r->pkey ?: 0xffff, .dest_qpn = r->qpn, .psn = RECV_PSN, .va = 0x10000,
		.rkey = 0x1234, .dma_len = r->paylen, .msn = 1, .qkey = 0x11111111,
		.src_qpn = 0x33,
	};
	unsigned int hlen = sroce_opinfo(r->opcode)->len ?: SROCE_BTH_LEN;
	unsigned int tail = r->paylen + SROCE_ICRC_SIZE;
	unsigned int ip_len, i;
	struct sk_buff *skb;
	struct page *page = NULL;
	u8 *bth, *data;
	u32 icrc;

	skb = alloc_skb(LL_MAX_HEADER + 128 + hlen + tail, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, LL_MAX_HEADER);
	ip_len = recv_put_ip(skb, r, hlen + tail);
	bth = skb_put(skb, hlen);
	sroce_put_headers(bth, &h);
	bth[offsetof(struct sroce_bth, flags)] |= r->tver;

	if (r->flags & RECV_PAGED) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			kfree_skb(skb);
		KUNIT_ASSERT_NOT_NULL(test, page);
		data = page_address(page);
		skb_add_rx_frag(skb, 0, page, 0, tail, PAGE_SIZE);
	} else {
		data = skb_put(skb, tail);
	}
	for (i = 0; i < r->paylen; i++)
		data[i] = 0x40 + i;
	icrc = sroce_icrc(skb, ip_len + sizeof(struct udphdr), hlen + r->paylen);
	if (r->flags & RECV_BAD_ICRC)
		icrc ^= 0x00100000;
	put_unaligned_le32(icrc, data + r->paylen);

	if (r->trim)
		skb_trim(skb, skb->len - r->trim);
	__skb_pull(skb, ip_len);
	return skb;
}

/* The state of the QP @r names, its path from this host to .2, a queue full. */
static void recv_set_qp(struct recv_env *env, const struct recv_row *r)
{
	bool ipv6 = r->ipv6 && !(r->flags & RECV_V4_PATH);
	struct sroce_qp *qp = r->qpn == RECV_RC_QPN ? env->rc : r->qpn == RECV_UD_QPN ?
			      env->ud : NULL;
	struct sroce_av *av;

	env->rc->state = IB_QPS_RTS;
	env->ud->state = IB_QPS_RTS;
	if (!qp)
		return;
	qp->state = r->state ? r->state - 1 : IB_QPS_RTS;
	av = &qp->av;
	av->network_type = ipv6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
	recv_addr(ipv6, 1, &av->saddr.in6.sin6_addr, &av->saddr.in4.sin_addr.s_addr);
	recv_addr(ipv6, 2, &av->daddr.in6.sin6_addr, &av->daddr.in4.sin_addr.s_addr);
	if (r->flags & RECV_RESP_FULL)
		qp->resp.rxq.qlen = U32_MAX;
	if (r->flags & RECV_COMP_FULL)
		qp->sqs.rxq.qlen = U32_MAX;
}

static void recv_desc(const struct recv_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(recv, recv_rows, recv_desc);

/* The frame queued for @to on @qp: what recv.c parsed into it. */
static void recv_check_queued(struct kunit *test, const struct recv_row *r, struct sroce_qp *qp,
			      struct sk_buff_head *q)
{
	struct sk_buff *skb = skb_dequeue(q);
	const struct sroce_pkt *pkt;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	pkt = sroce_pkt(skb);
	KUNIT_EXPECT_PTR_EQ(test, pkt->qp, qp);
	KUNIT_EXPECT_EQ(test, refcount_read(&qp->refs), 2);
	KUNIT_EXPECT_EQ(test, pkt->opcode, r->opcode);
	KUNIT_EXPECT_EQ(test, pkt->psn, RECV_PSN);
	KUNIT_EXPECT_EQ(test, pkt->ackreq, 1);
	KUNIT_EXPECT_EQ(test, pkt->se, 1);
	KUNIT_EXPECT_EQ(test, pkt->payload_len, r->paylen - r->pad);
	/* skb->data at the BTH, the payload where payload_off says. */
	KUNIT_EXPECT_EQ(test, skb->data[0], r->opcode);
	if (r->paylen > r->pad) {
		u8 first = 0;

		KUNIT_EXPECT_EQ(test, skb_copy_bits(skb, pkt->payload_off, &first, 1), 0);
		KUNIT_EXPECT_EQ(test, first, 0x40);
	}
	recv_put(qp);
	kfree_skb(skb);
}

static void recv_test(struct kunit *test)
{
	const struct recv_row *r = test->param_value;
	struct recv_env *env = test->priv;
	struct sroce_dev *sdev = env->sdev;
	s64 *before = kunit_kcalloc(test, SROCE_CNT_COUNT, sizeof(*before), GFP_KERNEL);
	struct sroce_qp *qps[] = { env->rc, env->ud };
	struct sroce_qp *target = NULL;
	struct sk_buff *skb;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, before);
	recv_set_qp(env, r);
	skb = recv_frame(test, r);
	for (i = 0; i < SROCE_CNT_COUNT; i++)
		before[i] = atomic64_read(&sdev->counters[i]);

	sroce_rcv(sdev, skb);
	/* A queue made full gets its true length back. */
	env->rc->resp.rxq.qlen = recv_queued(&env->rc->resp.rxq);
	env->rc->sqs.rxq.qlen = recv_queued(&env->rc->sqs.rxq);

	for (i = 0; i < SROCE_CNT_COUNT; i++) {
		s64 want = i == SROCE_CNT_RX_PACKETS;

		if (r->to == RECV_DROPPED && i == SROCE_CNT_RX_DROP_FIRST + r->drop)
			want++;
		if (r->to == RECV_TO_RESP && r->flags & RECV_PAGED && i == SROCE_CNT_RX_PAGED)
			want++;
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&sdev->counters[i]) - before[i], want,
				    "counter %u", i);
	}

	if (r->to != RECV_DROPPED)
		target = r->qpn == RECV_RC_QPN ? env->rc : env->ud;
	for (i = 0; i < ARRAY_SIZE(qps); i++) {
		struct sroce_qp *qp = qps[i];
		u32 resp = recv_queued(&qp->resp.rxq), comp = recv_queued(&qp->sqs.rxq);

		KUNIT_EXPECT_EQ_MSG(test, resp, qp == target && r->to == RECV_TO_RESP, "qp %u",
				    qp->ibqp.qp_num);
		KUNIT_EXPECT_EQ_MSG(test, comp, qp == target && r->to == RECV_TO_COMP, "qp %u",
				    qp->ibqp.qp_num);
		if (qp == target)
			recv_check_queued(test, r, qp, r->to == RECV_TO_RESP ? &qp->resp.rxq :
					  &qp->sqs.rxq);
		/* A dropped frame put the reference it took. */
		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&qp->refs), 1, "qp %u", qp->ibqp.qp_num);
	}
}

static struct kunit_case recv_cases[] = {
	KUNIT_CASE_PARAM(recv_test, recv_gen_params),
	{}
};

static struct kunit_suite sroce_recv_suite = {
	.name = "sroce_recv",
	.init = recv_init,
	.exit = recv_exit,
	.test_cases = recv_cases,
};

kunit_test_suite(sroce_recv_suite);
