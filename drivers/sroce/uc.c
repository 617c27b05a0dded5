// SPDX-License-Identifier: GPL-2.0
/*
 * The UC responder stage: packets queued by recv.c for a UC QP, each
 * taken through the UC receive core (include/sroce/uc_abi.h) and carried
 * out here with the RC responder's placement: SEND data into the receive
 * WQE, WRITE data at the RETH address.  Nothing is ever answered.  A
 * packet that does not fit the message in progress means one was lost:
 * the core says so, and the message is dropped to its end, counted.
 *
 * The receive WQE of a SEND dropped part-way (uc-abort): an RQ's was
 * only read, never popped, so it is left at the head and the next SEND
 * takes it from its start; an SRQ's is this QP's already and completes
 * in error.  A WQE that cannot be written at all (a bad lkey) completes
 * LOC_PROT_ERR, as on RC, so it is not retried by every later message.
 *
 * Context: the QP task, like the RC responder it stands in for.
 */
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include <sroce/uc_abi.h>
#include "sroce.h"

static const u8 sroce_uc_drop_reasons[SROCE_UCDROP_REASON_COUNT] = {
	[SROCE_UCDROP_OPCODE] = SROCE_RX_DROP_BAD_OPCODE,
	[SROCE_UCDROP_PSN] = SROCE_RX_DROP_UC_SEQUENCE,
	[SROCE_UCDROP_SEQUENCE] = SROCE_RX_DROP_UC_SEQUENCE,
	[SROCE_UCDROP_REST] = SROCE_RX_DROP_UC_SEQUENCE,
	[SROCE_UCDROP_LENGTH] = SROCE_RX_DROP_UC_REFUSED,
	[SROCE_UCDROP_NO_WQE] = SROCE_RX_DROP_NO_WQE,
	[SROCE_UCDROP_EXEC] = SROCE_RX_DROP_UC_REFUSED,
};

/* What becomes of the WQE in hand when its message is dropped (r->abort). */
static void sroce_uc_abort(struct sroce_qp *qp, const struct sroce_uc_ret *r)
{
	struct sroce_resp *resp = &qp->resp;

	if (!resp->have_wqe || r->abort == SROCE_UC_ABORT_NONE)
		return;
	if (r->abort == SROCE_UC_ABORT_REWIND && !qp->srq) {
		sroce_cursor_put(&resp->place);
		resp->have_wqe = false;
		return;
	}
	sroce_rq_release(qp);
	sroce_rq_cqe(qp, sroce_wc_status_to_ib(r->status), IB_WC_RECV, resp->msg_len,
			    NULL);
}

/*
 * A SEND packet into the receive WQE.  A WQE that cannot be written (its
 * lkey is bad) completes LOC_PROT_ERR; on any other failure it stays in
 * hand for the core's abort.
 */
static int sroce_uc_exec_send(struct sroce_qp *qp, struct sk_buff *skb, u8 xf)
{
	int err = sroce_resp_send_data(qp, skb, xf);

	if (err == SROCE_EXEC_REM_OP && qp->resp.have_wqe) {
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, qp->resp.msg_len,
				    NULL);
	}
	return err;
}

static void sroce_uc_one(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_uc_req req = {
		.psn = pkt->psn,
		.payload_len = pkt->payload_len,
		.dma_len = pkt->remote_len,
		.opcode = pkt->opcode,
	};
	struct sroce_uc_ret r = sroce_uc_rx(&qp->resp.uc, &req);
	int status;

	sroce_uc_abort(qp, &r);		/* a message cut short by this packet */
	if (r.action == SROCE_UC_EXECUTE) {
		if (r.exec & SROCE_XF_SEND)
			status = sroce_uc_exec_send(qp, skb, r.exec);
		else
			status = sroce_resp_exec_write(qp, skb, r.exec);
		r = sroce_uc_executed(&qp->resp.uc, status);
		sroce_uc_abort(qp, &r);
	}
	if (r.action == SROCE_UC_DROP && r.reason != SROCE_UCDROP_NONE)
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_FIRST + sroce_uc_drop_reasons[r.reason]);
}

static void sroce_uc_end(struct sroce_qp *qp)
{
	sroce_cursor_put(&qp->resp.place);	/* never held across passes */
}

const struct sroce_resp_ops sroce_uc_resp_ops = {
	.one = sroce_uc_one,
	.end = sroce_uc_end,
};
