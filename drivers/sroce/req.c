// SPDX-License-Identifier: GPL-2.0
/*
 * The requester shim: the QP task's requester stage.  It copies new WQEs
 * out of the SQ ring (wqe.c), asks the requester core for packets and
 * builds and sends each one: headers from the core's descriptor (wire.c),
 * the payload gathered from the WQE's SGEs through the copy cursor, or
 * from its inline bytes.  Every decision (opcodes, PSNs, AckReq, which
 * WQE may go) is the core's; this file only carries them out.
 */
#include <linux/module.h>
#include <linux/skbuff.h>

#include "sroce.h"
#include "sq.h"
#include "wire.h"
#include "trace.h"

static u8 sroce_req_gather(struct sroce_qp *qp, const struct sroce_req_pkt *pkt,
			   struct sk_buff *skb, u8 *payload)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_swqe *sw = sroce_swqe(qp, pkt->wqe);
	int err;

	if (sw->is_inline) {
		memcpy(payload, sw->data + pkt->offset, pkt->length);
		return SROCE_WC_SUCCESS;
	}
	if (!s->gather_valid || s->gather_wqe != pkt->wqe) {
		sroce_cursor_put(&s->gather);
		sroce_cursor_init(&s->gather, qp->sdev, qp->pd, sw->data, sw->num_sge, 0);
		s->gather_wqe = pkt->wqe;
		s->gather_valid = true;
	}
	err = sroce_cursor_copy(&s->gather, pkt->offset, skb, payload - skb->data, pkt->length,
				SROCE_COPY_FROM_MR);
	if (!err)
		return SROCE_WC_SUCCESS;
	return err == -EMSGSIZE ? SROCE_WC_LOC_LEN_ERR : SROCE_WC_LOC_PROT_ERR;
}

/*
 * Build and send the packet @pkt describes.  Returns 0 when it went (or
 * was lost on the way, which the retransmit timer covers), -ENOMEM when it
 * could not be built for now, or a positive local error status.
 */
static int sroce_req_send(struct sroce_qp *qp, const struct sroce_req_pkt *pkt)
{
	const struct sroce_swqe *sw = sroce_swqe(qp, pkt->wqe);
	bool ud = sroce_qp_is_ud(qp);
	struct sroce_hdrs h = {
		.opcode = pkt->opcode,
		.bth_flags = (pkt->flags & SROCE_PF_SOLICITED) ? SROCE_BTH_SE : 0,
		.ackreq = pkt->flags & SROCE_PF_ACKREQ,
		.pad = pkt->pad_count,
		.pkey = SROCE_PKEY_DEFAULT,
		.dest_qpn = ud ? sw->remote_qpn : qp->view.dest_qpn,
		.psn = pkt->psn,
		.qkey = sw->qkey,
		.src_qpn = qp->ibqp.qp_num,
		.va = pkt->va,
		.rkey = pkt->rkey,
		.dma_len = pkt->dma_len,
		.swap_add = pkt->swap_add,
		.compare = pkt->compare,
		.imm = (__force __be32)pkt->imm,
	};
	const struct sroce_av *av = ud ? &sw->av : &qp->view.av;
	struct sroce_tx tx;
	struct sk_buff *skb;
	u8 *payload;
	u8 status;

	skb = sroce_tx_alloc(qp, av, &h, pkt->length, &payload, &tx);
	if (IS_ERR(skb))
		return PTR_ERR(skb) == -ENOMEM ? -ENOMEM : 0;
	if (pkt->length) {
		status = sroce_req_gather(qp, pkt, skb, payload);
		if (status != SROCE_WC_SUCCESS) {
			sroce_tx_abort(skb, &tx);
			return status;
		}
	}
	sroce_count(qp->sdev, SROCE_CNT_SQ_PACKETS);
	if (pkt->flags & SROCE_PF_RETRY)
		sroce_count(qp->sdev, SROCE_CNT_SQ_RETRANSMITS);
	sroce_tx_send(qp, av, skb, &tx);
	return 0;
}

/* The requester stage of a pass.  Returns true if it left work behind. */
bool sroce_req_run(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_req_pkt pkt;
	struct sroce_sq_ret r;
	bool more = false;
	u8 hints;
	u32 n = 0;

	if (!sroce_state_sends(qp->view.state)) {
		if (sroce_state_flushes_sq(qp->view.state))
			sroce_sq_error_flush(qp);	/* WQEs posted in Error or SQE */
		return false;
	}
	sroce_sq_fetch(qp, SROCE_REQ_FETCH);
	/* A datagram is measured against the port's MTU now, not at RTS's. */
	if (sroce_qp_is_ud(qp))
		sroce_req_set_port_mtu(&s->core,
				       ib_mtu_enum_to_int(READ_ONCE(qp->sdev->active_mtu)));
	for (;;) {
		int err;

		if (n == SROCE_REQ_BUDGET) {
			more = true;
			break;
		}
		/*
		 * Too many packets still in the IP stack: a full qdisc drops the
		 * next one (91 in one ib_send_bw 256 KiB run against stock rxe,
		 * each then left to the retransmit timer).  The last of them to
		 * be freed schedules the task again (tx.c).  The retransmit
		 * timer runs meanwhile (sroce_req_held()): a link that sends
		 * nothing any more ends in RETRY_EXC_ERR, not a silent stall;
		 * with nothing outstanding, no timer could: the core sends on.
		 */
		if (sroce_tx_full(qp)) {
			r = sroce_req_held(&s->core);
			if (r.action != SROCE_SQ_ACCEPT) {
				sroce_count(qp->sdev, SROCE_CNT_SQ_TX_THROTTLED);
				sroce_sq_timer_apply(qp, &r);
				break;
			}
		}
		/*
		 * The budget's last packet asks for an ACK when other QPs' passes
		 * are queued: this QP's next pass comes after all of theirs, and
		 * with -q 4 under TCG that outlasted the ACK timeout while 16
		 * packets waited unrequested.  Alone, the next pass follows at
		 * once and AckReq every 32 packets keeps the ACKs few.
		 */
		hints = 0;
		if (n + 1 == SROCE_REQ_BUDGET && sroce_task_others_queued())
			hints |= SROCE_REQ_HINT_YIELD;
		/*
		 * Slow sending (32 packets outlasted the 67 ms timer on the debug
		 * kernel) asks for an ACK once the timer has aged, if none is due.
		 */
		if (sroce_sq_timer_aged(qp))
			hints |= SROCE_REQ_HINT_TIMER_AGED;
		r = sroce_req_next_hint(&s->core, &pkt, hints);
		if (r.action == SROCE_SQ_LOCAL) {	/* BIND_MW, LOCAL_INV */
			r = sroce_req_local_done(&s->core, sroce_mw_local_op(qp, pkt.wqe));
			sroce_sq_timer_apply(qp, &r);
			n++;
			continue;
		}
		if (r.action != SROCE_SQ_SEND) {
			/* Aged just now: the next call carries the hint, so this ends. */
			if (r.action == SROCE_SQ_BLOCKED && r.reason == SROCE_BLK_HOLD &&
			    sroce_sq_timer_hold(qp))
				continue;
			break;
		}
		trace_sroce_req_packet(qp->ibqp.qp_num, &pkt);
		err = sroce_req_send(qp, &pkt);
		if (err == -ENOMEM) {
			/*
			 * Nothing was sent: the same packet again on the next
			 * pass, under a running timer (a retransmission's would
			 * have armed it).
			 */
			sroce_req_unsend(&s->core);
			r = sroce_req_held(&s->core);
			sroce_sq_timer_apply(qp, &r);
			more = true;
			break;
		}
		if (err > 0) {
			r = sroce_req_wqe_error(&s->core, err);
			sroce_sq_timer_apply(qp, &r);
			break;
		}
		sroce_sq_timer_apply(qp, &r);
		n++;
	}
	sroce_cursor_put(&s->gather);	/* never held across passes */
	s->gather_valid = false;
	sroce_comp_retire(qp);
	if (sroce_queue_peek(&qp->sq, s->fetched) && sroce_sq_room(&s->core))
		more = true;
	WRITE_ONCE(s->quiet, !more && !sroce_sq_outstanding(&s->core));
	return more;
}
