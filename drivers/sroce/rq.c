// SPDX-License-Identifier: GPL-2.0
/*
 * The receive queue layer, for every transport's responder: a receive WQE
 * fetched from the QP's RQ or its SRQ (copied out of the user-writable
 * ring and validated before use), released once its message completed,
 * its receive CQE, and the flush of the receives still posted when the
 * QP moves to Error.
 *
 * Context: the QP task (its responder stages, sroce_qp_error()), or qp.c
 * with the task stopped.  An SRQ's ring is shared with the other QPs
 * using it and with post_srq_recv: srq->lock.
 */
#include "sroce.h"

/*
 * A receive WQE, copied out of its ring and validated: 0, -EAGAIN if none is
 * posted, -EINVAL if the user wrote a bad one (its wr_id is still read).
 */
int sroce_rq_fetch(struct sroce_qp *qp, struct sroce_recv_wqe *w)
{
	struct sroce_queue *q = qp->srq ? &qp->srq->queue : &qp->rq;
	u32 max_sge = qp->srq ? qp->srq->max_sge : qp->rq_max_sge;
	const struct rxe_recv_wqe *slot;
	bool limit_reached = false;
	unsigned long flags = 0;
	u64 total = 0;
	u32 i;
	int err = 0;

	if (qp->srq)
		spin_lock_irqsave(&qp->srq->lock, flags);
	slot = sroce_queue_head(q);
	if (!slot) {
		err = -EAGAIN;
		goto out;
	}
	w->wr_id = READ_ONCE(slot->wr_id);
	w->num_sge = READ_ONCE(slot->dma.num_sge);
	if (w->num_sge > max_sge) {
		err = -EINVAL;
		goto take;
	}
	memcpy(w->sge, slot->dma.sge, w->num_sge * sizeof(w->sge[0]));
	for (i = 0; i < w->num_sge; i++)
		total += w->sge[i].length;
	if (total > U32_MAX) {
		err = -EINVAL;
		goto take;
	}
	w->length = total;
take:
	if (err) {
		w->num_sge = 0;		/* of a bad WQE only the wr_id is used */
		w->length = 0;
	}
	/* An SRQ WQE, even a bad one, belongs to this QP from now on (as rxe). */
	if (qp->srq) {
		sroce_queue_pop(q);
		/* Armed limit: fire once when fewer WQEs remain, then disarm. */
		if (qp->srq->limit && sroce_queue_count(q) < qp->srq->limit) {
			qp->srq->limit = 0;
			limit_reached = true;
		}
	}
out:
	if (qp->srq)
		spin_unlock_irqrestore(&qp->srq->lock, flags);
	if (limit_reached)
		sroce_srq_event(qp->srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

/*
 * The receive WQE's slot goes back before its CQE is posted
 * (sroce_rq_cqe() reads only the shadow): a consumer reposting from its
 * completion handler must find the room.
 */
void sroce_rq_release(struct sroce_qp *qp)
{
	sroce_cursor_put(&qp->resp.place);
	if (!qp->srq)
		sroce_queue_pop(&qp->rq);
	qp->resp.have_wqe = false;
}

void sroce_rq_cqe(struct sroce_qp *qp, enum ib_wc_status status, u32 opcode,
			 u32 byte_len, const struct sroce_pkt *pkt)
{
	struct ib_uverbs_wc wc = {
		.wr_id = qp->resp.wqe.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->view.dest_qpn,
		.wc_flags = IB_WC_GRH,
		.port_num = 1,
	};

	if (pkt && pkt->has_imm) {
		wc.ex.imm_data = pkt->imm_data;
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (pkt && pkt->has_inv) {
		wc.ex.invalidate_rkey = be32_to_cpu(pkt->imm_data);
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	sroce_cq_post(qp->rcq, qp, &wc, pkt && pkt->se);
}

/* Up to @n receives posted on the QP's own RQ complete with IB_WC_WR_FLUSH_ERR. */
static void sroce_rq_flush_posted(struct sroce_qp *qp, u32 n)
{
	while (n-- && sroce_queue_head(&qp->rq)) {
		/* The wr_id is read even from a bad WQE. */
		sroce_rq_fetch(qp, &qp->resp.wqe);
		sroce_queue_pop(&qp->rq);
		sroce_rq_cqe(qp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, NULL);
	}
}

/*
 * Error state: the receive in progress completes with IB_WC_WR_FLUSH_ERR
 * (an SRQ's too: it was this QP's), then every receive still posted on the
 * QP's own RQ.  At most one ring's worth: the user can keep producing while
 * this runs.  An SRQ keeps its other WQEs for the other QPs, and this QP
 * raises the Last WQE Reached event (IBA 11.6.3.1); the kernel's
 * ib_drain_qp() waits for it on an SRQ's QP from about 6.11.
 * Context: the QP task (sroce_qp_error()), or qp.c with it stopped; once
 * per move to Error.
 */
void sroce_rq_flush(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 n = qp->rq.index_mask;

	sroce_task_assert_owned(&qp->task);
	if (resp->have_wqe) {
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, NULL);
	}
	if (qp->srq) {
		/* IBA 11.6.3.1: this QP will take no more of the SRQ's WQEs. */
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		return;
	}
	sroce_rq_flush_posted(qp, n);
}
