// SPDX-License-Identifier: GPL-2.0
/*
 * The completer shim: the QP task's completer stage.  Response packets
 * queued by the receive path go to the completer core one by one; where
 * it says READ response data or an ATOMIC result goes, the copy cursor
 * puts it; the WQEs it retires become send completions (wqe.c).  Timer
 * expiries reach the core here too (timers.c).
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "sq.h"
#include "wire.h"
#include "trace.h"

/* Put a READ response's data or an ATOMIC's original value in place. */
static u8 sroce_comp_place(struct sroce_qp *qp, const struct sroce_comp_place *pl,
			   struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_swqe *sw = sroce_swqe(qp, pl->wqe);
	int err;

	if (!s->scatter_valid || s->scatter_wqe != pl->wqe) {
		sroce_cursor_put(&s->scatter);
		sroce_cursor_init(&s->scatter, qp->sdev, qp->pd, sw->data, sw->num_sge,
				  IB_ACCESS_LOCAL_WRITE);
		s->scatter_wqe = pl->wqe;
		s->scatter_valid = true;
	}
	if (pl->atomic) {
		u64 orig = pl->atomic_orig;

		err = sroce_cursor_write(&s->scatter, 0, &orig, sizeof(orig));
	} else {
		err = sroce_cursor_copy(&s->scatter, pl->offset, skb, pkt->payload_off, pl->length,
					SROCE_COPY_TO_MR);
	}
	if (!err)
		return SROCE_WC_SUCCESS;
	return err == -EMSGSIZE ? SROCE_WC_LOC_LEN_ERR : SROCE_WC_LOC_PROT_ERR;
}

static void sroce_comp_one(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	const struct sroce_opinfo *info = sroce_opinfo(pkt->opcode);
	struct sroce_comp_pkt cp = {
		.opcode = pkt->opcode,
		.psn = pkt->psn,
		.payload_len = pkt->payload_len,
	};
	struct sroce_comp_place pl;
	struct sroce_sq_ret r;

	if (info->aeth) {
		u32 aeth = get_unaligned_be32(skb->data + info->aeth);

		cp.syndrome = aeth >> SROCE_AETH_SYNDROME_SHIFT;
		cp.msn = aeth & SROCE_AETH_MSN_MASK;
	}
	if (info->atmack)
		cp.atomic_orig = get_unaligned_be64(skb->data + info->atmack);
	r = sroce_comp_rx(&qp->sqs.core, &cp, &pl);
	if (r.action == SROCE_SQ_PLACE)
		r = sroce_comp_placed(&qp->sqs.core, sroce_comp_place(qp, &pl, skb, pkt));
	trace_sroce_comp_decision(qp->ibqp.qp_num, &cp, &r);
	sroce_sq_timer_apply(qp, &r);
}

/* Every WQE the cores retired: its completion, and Error if it failed. */
void sroce_comp_retire(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_sq_cqe c;

	while (sroce_comp_pull(&s->core, &c)) {
		/*
		 * A UD or UC QP's send queue alone goes to SQE, an RC QP to
		 * Error, before the error completion says so; what else is
		 * queued completes flushed after it.
		 */
		bool sqe = c.qp_error && sroce_qp_unreliable(qp) && sroce_qp_enter_sqe(qp);
		bool err = c.qp_error && !sroce_qp_unreliable(qp) && sroce_qp_enter_error(qp);

		sroce_sq_retire(qp, &c);
		if (sqe)
			sroce_sq_error_flush(qp);
		else if (err)
			sroce_qp_error_flush(qp, SROCE_EVENT_NONE);
	}
	if (s->draining && sroce_sq_drained(&s->core)) {
		s->draining = false;
		sroce_qp_sq_drained(qp);
	}
	sroce_sq_fold_stats(qp);	/* what the cores counted reaches rdma statistic */
}

/* The completer stage of a pass.  Returns true if it left work behind. */
bool sroce_comp_run(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sk_buff_head batch;
	struct sk_buff *skb;
	bool more;
	u32 n = 0;

	__skb_queue_head_init(&batch);
	spin_lock_bh(&s->rxq.lock);
	while (n < SROCE_COMP_BUDGET && (skb = __skb_dequeue(&s->rxq))) {
		__skb_queue_tail(&batch, skb);
		n++;
	}
	more = !skb_queue_empty(&s->rxq);
	spin_unlock_bh(&s->rxq.lock);

	while ((skb = __skb_dequeue(&batch))) {
		if (sroce_state_sends(qp->view.state))
			sroce_comp_one(qp, skb);
		sroce_qp_put(sroce_pkt(skb)->qp);
		consume_skb(skb);
	}
	/*
	 * IBA 9.7.6.1: the timer restarts on progress, so the timers come
	 * after the responses that arrived before this pass: an ACK queued
	 * behind an expiry restarts the timer (the expiry is then
	 * stale and ignored) instead of losing the race to a retransmission
	 * of what it acknowledges.
	 */
	if (sroce_state_sends(qp->view.state))
		sroce_sq_timer_events(qp);
	sroce_cursor_put(&s->scatter);	/* never held across passes */
	s->scatter_valid = false;
	sroce_comp_retire(qp);
	return more;
}

/*
 * A response packet for the completer, from the receive path (under
 * qp->state_lock, as sroce_resp_enqueue()).  -ENOBUFS if the queue is full.
 */
int sroce_comp_enqueue(struct sroce_qp *qp, struct sk_buff *skb)
{
	lockdep_assert_held(&qp->state_lock);
	return sroce_task_queue_skb(&qp->task, &qp->sqs.rxq, SROCE_COMP_QUEUE_MAX, skb);
}
