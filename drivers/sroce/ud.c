// SPDX-License-Identifier: GPL-2.0
/*
 * The UD responder stage: datagrams queued by recv.c, each taken through
 * the UD receive core (include/sroce/ud_abi.h) and carried out here: the
 * receive WQE, the GRH in its first 40 bytes, the payload after it, and
 * the completion with the sender's QPN.  No response goes back: a
 * datagram that cannot be delivered is dropped and counted.
 *
 * The GRH is the datagram's network header, as ib_core reads it back
 * (ib_get_rdma_header_version(), ib_init_ah_attr_from_wc()): the IPv6
 * header, or 20 zero bytes and the IPv4 header, whose checksum says it is
 * one.
 *
 * Context: the QP task, like the RC responder it stands in for.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include <sroce/ud_abi.h>
#include "sroce.h"

static const u8 sroce_ud_drop_reasons[SROCE_UDROP_REASON_COUNT] = {
	[SROCE_UDROP_OPCODE] = SROCE_RX_DROP_BAD_OPCODE,
	[SROCE_UDROP_QKEY] = SROCE_RX_DROP_BAD_QKEY,
	[SROCE_UDROP_NO_WQE] = SROCE_RX_DROP_NO_WQE,
};

/* The 40-byte GRH of @skb's datagram; returns its RDMA_NETWORK_* type. */
static u8 sroce_ud_grh(const struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, SROCE_UD_GRH_LEN);
	if (skb->protocol == htons(ETH_P_IP)) {
		/* union rdma_network_hdr: 20 reserved bytes, then the IPv4 header. */
		memcpy(grh + SROCE_UD_GRH_LEN - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
		return RDMA_NETWORK_IPV4;
	}
	memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	return RDMA_NETWORK_IPV6;
}

/* The receive completion of the WQE in qp->resp.wqe, released already. */
static void sroce_ud_cqe(struct sroce_qp *qp, const struct sroce_pkt *pkt, u8 status,
			 u32 byte_len, u8 nht)
{
	struct ib_uverbs_wc wc = {
		.wr_id = qp->resp.wqe.wr_id,
		.status = sroce_wc_status_to_ib(status),
		.opcode = IB_WC_RECV,
		.byte_len = byte_len,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = pkt->deth_src_qpn,
		.port_num = 1,
	};

	if (status == SROCE_WC_SUCCESS) {
		wc.wc_flags = IB_WC_GRH;
		if (pkt->has_imm) {
			wc.ex.imm_data = pkt->imm_data;
			wc.wc_flags |= IB_WC_WITH_IMM;
		}
	}
	sroce_cq_post_hdr(qp->rcq, qp, &wc, pkt->se, status == SROCE_WC_SUCCESS ? nht : 0);
}

/* GRH and payload into the WQE; a local error status if they cannot go. */
static u8 sroce_ud_deliver(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_ud_ret *r, u8 *nht)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u8 grh[SROCE_UD_GRH_LEN];
	int err;

	*nht = sroce_ud_grh(skb, grh);
	sroce_cursor_init(&resp->place, qp->sdev, qp->pd, resp->wqe.sge, resp->wqe.num_sge,
			  IB_ACCESS_LOCAL_WRITE);
	err = sroce_cursor_write(&resp->place, 0, grh, sizeof(grh));
	if (!err && pkt->payload_len)
		err = sroce_cursor_copy(&resp->place, r->data_off, skb, pkt->payload_off,
					pkt->payload_len, SROCE_COPY_TO_MR);
	if (!err)
		return SROCE_WC_SUCCESS;
	return err == -EMSGSIZE ? SROCE_WC_LOC_LEN_ERR : SROCE_WC_LOC_PROT_ERR;
}

static void sroce_ud_one(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_resp *resp = &qp->resp;
	struct sroce_ud_req req = {
		.deth_qkey = pkt->deth_qkey,
		.payload_len = pkt->payload_len,
		.opcode = pkt->opcode,
	};
	struct sroce_ud_ret r = sroce_ud_admit(qp->view.qkey, &req);
	u8 status, nht = 0;
	int err;

	if (r.action == SROCE_UD_TAKE_WQE) {
		err = sroce_rq_fetch(qp, &resp->wqe);
		r = sroce_ud_place(&req, err == -EAGAIN ? SROCE_UD_WQE_NONE :
				   err ? SROCE_UD_WQE_BAD : SROCE_UD_WQE_OK, resp->wqe.length);
	}
	switch (r.action) {
	case SROCE_UD_DELIVER:
		status = sroce_ud_deliver(qp, skb, &r, &nht);
		break;
	case SROCE_UD_COMPLETE_ERROR:
		status = r.status;
		break;
	default:
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_FIRST + sroce_ud_drop_reasons[r.reason]);
		return;
	}
	if (status != SROCE_WC_SUCCESS)
		sroce_count(qp->sdev, SROCE_CNT_UD_RX_ERRORS);
	/* The slot goes back first: a consumer may repost from its handler. */
	sroce_rq_release(qp);
	sroce_ud_cqe(qp, pkt, status, r.byte_len, nht);
}

const struct sroce_resp_ops sroce_ud_resp_ops = {
	.one = sroce_ud_one,
};
