// SPDX-License-Identifier: GPL-2.0
/*
 * The send queue's lifecycle, as qp_state.c moves the QP: the requester
 * and completer cores set up at RTS, stopped at RESET, Error or destroy,
 * the WQEs taken discarded at RESET or flushed in Error, SQD's draining,
 * and the cores' counters folded into the device's.  The per-packet
 * stages are req.c and comp.c, the WQEs are wqe.c's, the timers are in
 * timers.c.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "sq.h"

/*
 * The QP enters RTS: the requester and completer start from the QP's
 * attributes.  Context: qp.c, the task stopped.
 */
void sroce_sq_ready(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	bool ud = sroce_qp_is_ud(qp);
	struct sroce_sq_params p = {
		.psn = qp->sq_psn,
		/* A datagram is one packet: at most the port's MTU. */
		.pmtu = ud ? ib_mtu_enum_to_int(READ_ONCE(qp->sdev->active_mtu)) : qp->path_mtu,
		.transport = ud ? SROCE_TRANSPORT_UD :
			     sroce_qp_is_uc(qp) ? SROCE_TRANSPORT_UC : SROCE_TRANSPORT_RC,
		.window = sroce_params.req_window.val,
		.ackreq_every = sroce_params.ackreq_every.val,
		.max_rd_atomic = sroce_rd_atomic_use(qp->max_rd_atomic),
		.timeout = qp->timeout,
		.retry_cnt = qp->retry_cnt,
		.rnr_retry = qp->rnr_retry,
		.hold_tail = sroce_params.ackreq_hold,
	};

	sroce_task_assert_owned(&qp->task);
	sroce_sq_init(&s->core, &p, s->ring, s->nslots);
	memset(&s->seen, 0, sizeof(s->seen));
	s->fetched = 0;
	s->draining = false;
}

/* RESET, ERR or destroy: no response or timer reaches the cores any more. */
void sroce_sq_stop(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sk_buff *skb;

	sroce_task_assert_owned(&qp->task);
	sroce_sq_timers_stop(qp);
	while ((skb = skb_dequeue(&s->rxq))) {
		sroce_qp_put(sroce_pkt(skb)->qp);
		kfree_skb(skb);
	}
	sroce_cursor_put(&s->gather);
	sroce_cursor_put(&s->scatter);
	s->gather_valid = false;
	s->scatter_valid = false;
}

/* RESET discards the WQEs the QP took, without completions (IBA 10.3.1). */
void sroce_sq_reset(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;

	sroce_task_assert_owned(&qp->task);
	while (s->fetched) {
		s->fetched--;
		sroce_queue_pop(&qp->sq);
	}
	sroce_sq_ready(qp);
}

void sroce_sq_set_draining(struct sroce_qp *qp, bool on)
{
	sroce_task_assert_owned(&qp->task);
	sroce_req_set_draining(&qp->sqs.core, on);
	qp->sqs.draining = on;
}

/*
 * The QP is in Error: every WQE posted, in flight or still in the SQ
 * ring, completes with WR_FLUSH_ERR (IBA 10.10.2), and so does every WQE
 * posted later (the doorbell brings them here).
 * Context: the QP task, or qp.c with it stopped.
 */
void sroce_sq_error_flush(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;

	sroce_task_assert_owned(&qp->task);
	sroce_sq_flush(&s->core);
	while (sroce_sq_fetch(qp, U32_MAX))
		;
	sroce_comp_retire(qp);
}

#define SQ_CORE_CNT(field) (SROCE_CNT_SQ_CORE_FIRST + \
			offsetof(struct sroce_sq_stats, field) / sizeof(u64))

/* Add what the cores counted since the last fold to the device counters. */
void sroce_sq_fold_stats(struct sroce_qp *qp)
{
	const u64 *now = (const u64 *)sroce_sq_get_stats(&qp->sqs.core);
	u64 *seen = (u64 *)&qp->sqs.seen;
	unsigned int i;

	for (i = 0; i < sizeof(qp->sqs.seen) / sizeof(u64); i++) {
		if (now[i] != seen[i]) {
			atomic64_add(now[i] - seen[i],
				     &qp->sdev->counters[SQ_CORE_CNT(packets) + i]);
			seen[i] = now[i];
		}
	}
}
