// SPDX-License-Identifier: GPL-2.0
/*
 * The responder shim: feeds each RC request to the response-generation
 * core (drivers/sroce/core/) and carries out its decisions.
 *
 * Request packets queued by recv.c are drained by the responder stage of
 * the QP task (sroce_resp_run()); each run of it is one RX batch, so ACKs
 * the core holds for coalescing go out at its end (C9-116).  For each
 * packet: the core decides (sroce_resp_rx), the shim executes what it is
 * told to (placing SEND/WRITE data, checking READ access, performing
 * ATOMICs) and reports the outcome (sroce_resp_executed); then every
 * response descriptor the core hands out is built and sent, READ data
 * read from memory per packet.  The shim never chooses a PSN, MSN, syndrome or ACK timing.
 *
 * Locking: everything here but resp->rxq is owned by the QP task and
 * takes no lock: sroce_resp_run() is a stage of its passes, and qp.c
 * calls sroce_resp_ready()/sroce_resp_stop() with the task stopped.
 * Copies into MRs, transmit, CQ posts and the user's callbacks run with
 * no QP lock held.  Receive WQEs are copied out of the user-writable ring
 * and validated before use; a WQE slot is released only once its message
 * completed.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "sroce.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

static void sroce_resp_purge(struct sroce_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&qp->resp.rxq))) {
		sroce_qp_put(sroce_pkt(skb)->qp);
		kfree_skb(skb);
	}
}

/* The receive WQE a SEND or WRITE with immediate consumes; RNR if none (C9-113). */
static int sroce_take_wqe(struct sroce_qp *qp)
{
	int err = sroce_rq_fetch(qp, &qp->resp.wqe);

	if (err == -EAGAIN)
		return SROCE_EXEC_RNR;
	if (err) {
		/* A WQE corrupted in the ring: it completes in error, consumed. */
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, IB_WC_LOC_QP_OP_ERR, IB_WC_RECV, 0, NULL);
		return SROCE_EXEC_REM_OP;
	}
	qp->resp.have_wqe = true;
	sroce_cursor_init(&qp->resp.place, qp->sdev, qp->pd, qp->resp.wqe.sge,
			  qp->resp.wqe.num_sge, IB_ACCESS_LOCAL_WRITE);
	return SROCE_EXEC_OK;
}

/*
 * Copy @len bytes of @skb from @data_off into the receive WQE at the
 * current offset, through the WQE's copy cursor: an SGE's MR is looked
 * up once per pass, not per packet.
 */
static int sroce_place_recv(struct sroce_qp *qp, struct sk_buff *skb,
			    unsigned int data_off, u32 len)
{
	struct sroce_resp *resp = &qp->resp;
	int err;

	if (len > resp->wqe.length - resp->msg_len)
		return SROCE_EXEC_INVALID;	/* receive buffer too small */
	err = sroce_cursor_copy(&resp->place, resp->msg_len, skb, data_off, len,
				SROCE_COPY_TO_MR);
	if (err == -EMSGSIZE)
		return SROCE_EXEC_INVALID;
	if (err)
		return SROCE_EXEC_REM_OP;	/* the local WQE is bad */
	resp->msg_len += len;
	return SROCE_EXEC_OK;
}

/**
 * sroce_resp_send_data() - a SEND packet's payload into its receive WQE
 * @qp: the QP
 * @skb: the packet
 * @xf: the core's enum sroce_exec_flags for it
 *
 * The first packet takes the WQE (a corrupted one completes in error at
 * once), the last completes it.  On a failure to place, the WQE stays in
 * hand (resp->have_wqe): its caller, RC's or UC's, decides its fate.
 * Return: an enum sroce_exec_status.
 */
int sroce_resp_send_data(struct sroce_qp *qp, struct sk_buff *skb, u8 xf)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_resp *resp = &qp->resp;
	int err;

	if (xf & SROCE_XF_WQE) {
		err = sroce_take_wqe(qp);
		if (err != SROCE_EXEC_OK)
			return err;
		resp->msg_len = 0;
	} else if (!resp->have_wqe) {
		return SROCE_EXEC_INVALID;
	}
	err = sroce_place_recv(qp, skb, pkt->payload_off, pkt->payload_len);
	if (err != SROCE_EXEC_OK)
		return err;
	if (xf & SROCE_XF_LAST) {
		enum ib_wc_status status = IB_WC_SUCCESS;

		/*
		 * SEND with Invalidate: its key (a window bound to this QP) is
		 * invalidated before the completion.  A key that cannot be
		 * completes the receive REM_INV_REQ_ERR (as stock rxe does), and
		 * the request is an invalid one: the core NAKs it (counted in
		 * nak_invalid_req) and the QP goes to Error.
		 */
		if (pkt->has_inv &&
		    sroce_mw_invalidate_rkey(qp, be32_to_cpu(pkt->imm_data)) != SROCE_WC_SUCCESS)
			status = IB_WC_REM_INV_REQ_ERR;
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, status, IB_WC_RECV, resp->msg_len, pkt);
		if (status != IB_WC_SUCCESS)
			return SROCE_EXEC_INVALID;
	}
	return SROCE_EXEC_OK;
}

/* RC: a receive WQE that could not take its SEND completes in error. */
static int sroce_exec_send(struct sroce_qp *qp, struct sk_buff *skb, u8 xf)
{
	int err = sroce_resp_send_data(qp, skb, xf);

	if (err != SROCE_EXEC_OK && qp->resp.have_wqe) {
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, err == SROCE_EXEC_INVALID ? IB_WC_LOC_LEN_ERR :
				    IB_WC_LOC_PROT_ERR, IB_WC_RECV, qp->resp.msg_len, NULL);
	}
	return err;
}

/* @xf as for sroce_exec_send(); a WRITE that takes a WQE carries an immediate. */
int sroce_resp_exec_write(struct sroce_qp *qp, struct sk_buff *skb, u8 xf)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_resp *resp = &qp->resp;
	bool imm = xf & SROCE_XF_WQE;
	struct sroce_mr *mr;
	u64 mr_va;
	int err;

	if (xf & SROCE_XF_FIRST) {
		if (!(qp->view.access_flags & IB_ACCESS_REMOTE_WRITE))
			return SROCE_EXEC_REM_ACCESS;
		/* The whole RETH range, before any byte is placed (C9-124). */
		if (pkt->remote_len) {
			mr = sroce_rkey_get(qp, pkt->remote_rkey, IB_ACCESS_REMOTE_WRITE,
					    pkt->remote_va, pkt->remote_len, &mr_va);
			if (!mr)
				return SROCE_EXEC_REM_ACCESS;
			sroce_mr_put(mr);
		}
		resp->write_va = pkt->remote_va;
		resp->write_rkey = pkt->remote_rkey;
		resp->write_resid = pkt->remote_len;
		resp->msg_len = pkt->remote_len;
	}
	if (pkt->payload_len > resp->write_resid)
		return SROCE_EXEC_INVALID;
	/* The last packet brings exactly what the RETH length left. */
	if ((xf & SROCE_XF_LAST) && pkt->payload_len != resp->write_resid)
		return SROCE_EXEC_INVALID;
	if (imm) {
		/* WRITE with immediate consumes a receive WQE too. */
		err = sroce_take_wqe(qp);
		if (err != SROCE_EXEC_OK)
			return err;
	}
	if (pkt->payload_len) {
		mr = sroce_rkey_get(qp, resp->write_rkey, IB_ACCESS_REMOTE_WRITE,
				    resp->write_va, pkt->payload_len, &mr_va);
		if (!mr)
			return SROCE_EXEC_REM_ACCESS;		/* C9-124 */
		err = sroce_mr_copy(mr, mr_va, skb, pkt->payload_off,
				    pkt->payload_len, SROCE_COPY_TO_MR);
		sroce_mr_put(mr);
		if (err)
			return SROCE_EXEC_REM_ACCESS;
		resp->write_va += pkt->payload_len;
		resp->write_resid -= pkt->payload_len;
	}
	if (imm) {
		sroce_rq_release(qp);
		sroce_rq_cqe(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM, resp->msg_len,
				    pkt);
	}
	return SROCE_EXEC_OK;
}

/* READ: access is checked now; the data is read per response packet. */
static int sroce_exec_read(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_mr *mr;
	u64 mr_va;

	if (!(qp->view.access_flags & IB_ACCESS_REMOTE_READ))
		return SROCE_EXEC_REM_ACCESS;
	if (!pkt->remote_len)
		return SROCE_EXEC_OK;
	mr = sroce_rkey_get(qp, pkt->remote_rkey, IB_ACCESS_REMOTE_READ,
			    pkt->remote_va, pkt->remote_len, &mr_va);
	if (!mr)
		return SROCE_EXEC_REM_ACCESS;
	sroce_mr_put(mr);
	return SROCE_EXEC_OK;
}

static int sroce_exec_atomic(struct sroce_qp *qp, struct sk_buff *skb, u64 *orig)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	const struct sroce_atmeth *eth = (const void *)(skb->data + pkt->atmeth_off);
	u64 swap_add, compare, mr_va;
	struct sroce_mr *mr;
	int err;

	if (!(qp->view.access_flags & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_EXEC_REM_ACCESS;
	if (pkt->remote_va & 7)
		return SROCE_EXEC_INVALID;		/* misaligned atomic */
	mr = sroce_rkey_get(qp, pkt->remote_rkey, IB_ACCESS_REMOTE_ATOMIC,
			    pkt->remote_va, 8, &mr_va);
	if (!mr)
		return SROCE_EXEC_REM_ACCESS;
	/* Where it lands, too: a zero-based window may start unaligned. */
	if (mr_va & 7) {
		sroce_mr_put(mr);
		return SROCE_EXEC_INVALID;
	}
	swap_add = be64_to_cpu((__force __be64)get_unaligned(&eth->swap_add));
	compare = be64_to_cpu((__force __be64)get_unaligned(&eth->compare));
	/* AtomicETH: FETCH_ADD's addend is in Swap/Add Data (IBA 9.3.3). */
	if (pkt->opcode == SROCE_OP_FETCH_ADD)
		compare = swap_add;
	err = sroce_mr_atomic(mr, mr_va, pkt->opcode, compare, swap_add, orig);
	sroce_mr_put(mr);
	return err ? SROCE_EXEC_REM_ACCESS : SROCE_EXEC_OK;
}

/* Carry out what the core asked for in @xf (enum sroce_exec_flags). */
static int sroce_execute(struct sroce_qp *qp, struct sk_buff *skb, u8 xf, u64 *orig)
{
	if (xf & SROCE_XF_SEND)
		return sroce_exec_send(qp, skb, xf);
	if (xf & SROCE_XF_WRITE)
		return sroce_resp_exec_write(qp, skb, xf);
	if (xf & SROCE_XF_READ)
		return sroce_exec_read(qp, skb);
	if (xf & SROCE_XF_ATOMIC)
		return sroce_exec_atomic(qp, skb, orig);
	return SROCE_EXEC_INVALID;	/* the core never asks for anything else */
}

/* The core moved the QP to Error under @rule: an access error or a fatal one. */
static void sroce_resp_qp_error(struct sroce_qp *qp, u8 qp_event)
{
	sroce_qp_error(qp, qp_event == SROCE_QP_EVENT_ACCESS ?
		       IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_FATAL);
}

/*
 * One READ response packet, its data read from memory now, straight into
 * the packet.  C9-100: data that can no longer be read makes it a NAK.
 */
static void sroce_send_read_response(struct sroce_qp *qp, const struct sroce_resp_desc *d)
{
	struct sroce_mr *mr = NULL;
	u64 mr_va = 0;

	if (d->length) {
		mr = sroce_rkey_get(qp, d->rkey, IB_ACCESS_REMOTE_READ, d->va,
				    d->length, &mr_va);
		if (!mr) {
			sroce_resp_read_failed(&qp->resp.core, SROCE_EXEC_REM_ACCESS);
			return;
		}
	}
	sroce_tx_response(qp, d, mr, mr_va);
	if (mr)
		sroce_mr_put(mr);
}

/* Send every response the core has queued, in its order. */
static void sroce_resp_drain(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_desc d;

	while (sroce_resp_pull(&resp->core, &d)) {
		trace_sroce_response(qp->ibqp.qp_num, &d);
		switch (d.kind) {
		case SROCE_RESP_READ_FIRST:
		case SROCE_RESP_READ_MIDDLE:
		case SROCE_RESP_READ_LAST:
		case SROCE_RESP_READ_ONLY:
			sroce_send_read_response(qp, &d);
			break;
		case SROCE_RESP_QP_ERROR:
			sroce_resp_qp_error(qp, d.qp_event);
			break;
		default:
			sroce_tx_response(qp, &d, NULL, 0);
			break;
		}
	}
}

static void sroce_resp_one(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_req req = {
		.va = pkt->remote_va,
		.psn = pkt->psn,
		.payload_len = pkt->payload_len,
		.dma_len = pkt->remote_len,
		.rkey = pkt->remote_rkey,
		.opcode = pkt->opcode,
		.ackreq = pkt->ackreq,
	};
	struct sroce_exec ex = {};
	struct sroce_resp_ret ret;

	req.verdict = sroce_resp_classify(&resp->core, req.psn);
	ret = sroce_resp_rx(&resp->core, &req);
	if (ret.action == SROCE_ACT_EXECUTE) {
		ex.status = sroce_execute(qp, skb, ret.exec, &ex.atomic_orig);
		ret = sroce_resp_executed(&resp->core, &ex);
	}
	if (ret.action == SROCE_ACT_DROP)
		sroce_count(qp->sdev, SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_CORE);
	sroce_resp_drain(qp);
}

/* Fold the core's per-QP counters into the device's. */
static void sroce_resp_account(struct sroce_qp *qp)
{
	const struct sroce_resp_stats *now = sroce_resp_get_stats(&qp->resp.core);
	const u64 *n = (const u64 *)now;
	u64 *seen = (u64 *)&qp->resp.seen;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*now) % sizeof(u64));
	for (i = 0; i < sizeof(*now) / sizeof(u64); i++) {
		if (n[i] != seen[i])
			atomic64_add(n[i] - seen[i], &qp->sdev->counters[SROCE_CNT_CORE_FIRST + i]);
		seen[i] = n[i];
	}
}

/*
 * Moved to Error since the batch was queued: by the completer
 * (sroce_qp_error()), or by modify_qp, whose stop of the task waits for
 * this pass: the live state, not the engines' copy.
 */
static bool sroce_resp_in_error(struct sroce_qp *qp)
{
	bool err;

	spin_lock_bh(&qp->state_lock);
	err = qp->state == IB_QPS_ERR;
	spin_unlock_bh(&qp->state_lock);
	return err;
}

/*
 * Free a batch's packets and their QP references, last: destroy waits for
 * them.  @dropped: they were not handled, and count as QP-state drops.
 */
static void sroce_resp_put_batch(struct sk_buff_head *batch, bool dropped)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(batch))) {
		struct sroce_qp *qp = sroce_pkt(skb)->qp;

		if (dropped) {
			sroce_count(qp->sdev, SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_QP_STATE);
			kfree_skb(skb);
		} else {
			consume_skb(skb);
		}
		sroce_qp_put(qp);
	}
}

/**
 * sroce_resp_take_batch() - the requests queued so far, up to a batch
 * @qp: the QP
 * @batch: an empty list, filled
 *
 * A QP the requester or completer moved to Error (sroce_qp_error()) takes
 * no more requests: those queued before go, counted, as the receive path
 * drops later ones, and no receive WQE is taken after the flush; @batch
 * is then empty.
 * Context: the QP task.  Return: true if requests are left for another pass.
 */
static bool sroce_resp_take_batch(struct sroce_qp *qp, struct sk_buff_head *batch)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb;
	bool more;

	__skb_queue_head_init(batch);
	spin_lock_bh(&resp->rxq.lock);
	while (skb_queue_len(batch) < SROCE_RESP_BATCH_MAX && (skb = __skb_dequeue(&resp->rxq)))
		__skb_queue_tail(batch, skb);
	more = !skb_queue_empty(&resp->rxq);
	spin_unlock_bh(&resp->rxq.lock);
	if (!skb_queue_empty(batch) && sroce_resp_in_error(qp))
		sroce_resp_put_batch(batch, true);
	return more;
}

/* RC: one RX batch through the core; its coalesced ACK goes out at the end. */
static void sroce_rc_begin(struct sroce_qp *qp, struct sk_buff_head *batch)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_count(qp->sdev, SROCE_CNT_RX_BATCHES);
	atomic64_add(skb_queue_len(batch), &qp->sdev->counters[SROCE_CNT_RX_BATCH_PACKETS]);
	if (!qp->srq)
		sroce_resp_set_credits(&resp->core, sroce_queue_count(&qp->rq));
	sroce_resp_batch_begin(&resp->core);
}

static void sroce_rc_end(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_resp_batch_end(&resp->core);
	sroce_resp_drain(qp);
	sroce_resp_account(qp);
	sroce_cursor_put(&resp->place);	/* never held across passes */
}

static const struct sroce_resp_ops sroce_rc_resp_ops = {
	.begin = sroce_rc_begin,
	.one = sroce_resp_one,
	.end = sroce_rc_end,
};

/**
 * sroce_resp_run() - the responder stage of the QP task: one RX batch
 * @qp: the QP
 *
 * The requests queued so far, up to SROCE_RESP_BATCH_MAX, through the
 * QP's transport's handlers (resp->ops: RC's core, whose coalesced ACK
 * goes out at the end of the batch; UC's and UD's receive cores).
 * Return: true if requests are left for another pass.
 */
bool sroce_resp_run(struct sroce_qp *qp)
{
	const struct sroce_resp_ops *ops = qp->resp.ops;
	struct sk_buff_head batch;
	struct sk_buff *skb;
	bool more;

	/*
	 * A kernel QP's receives posted in Error are flushed here, behind
	 * those the move to Error flushed (ib_drain_rq() waits for its own).
	 * A pass can see Error before the modify stops the task: the receive
	 * in progress, still at the ring's head, goes first and only once
	 * (sroce_rq_flush() releases it), so the modify's own flush
	 * finds nothing left to complete twice.
	 */
	if (qp->is_kernel && !qp->srq && sroce_resp_in_error(qp))
		sroce_rq_flush(qp);

	more = sroce_resp_take_batch(qp, &batch);
	if (skb_queue_empty(&batch))
		return more;
	if (ops->begin)
		ops->begin(qp, &batch);
	skb_queue_walk(&batch, skb)
		ops->one(qp, skb);
	if (ops->end)
		ops->end(qp);
	sroce_resp_put_batch(&batch, false);
	return more;
}

/**
 * sroce_resp_enqueue() - queue a request for the responder, schedule the task
 * @qp: its QP, in a state that takes requests
 * @skb: the request, with a QP reference in sroce_pkt(skb)->qp
 *
 * Context: the receive path, with qp->state_lock held: modify_qp and
 * destroy store a state that takes no requests under it before they
 * purge the queue.
 * Return: 0 when @skb and its reference are the responder's, -ENOBUFS
 * when the queue is full (the caller still owns both).
 */
int sroce_resp_enqueue(struct sroce_qp *qp, struct sk_buff *skb)
{
	lockdep_assert_held(&qp->state_lock);
	return sroce_task_queue_skb(&qp->task, &qp->resp.rxq, SROCE_RESP_QUEUE_MAX, skb);
}

/* At create: the responder's queue, and its transport's handlers. */
void sroce_resp_create(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	/* The transport's handlers for the one responder loop (sroce_resp_run()). */
	resp->ops = sroce_qp_is_ud(qp) ? &sroce_ud_resp_ops :
		    sroce_qp_is_uc(qp) ? &sroce_uc_resp_ops : &sroce_rc_resp_ops;
	skb_queue_head_init(&resp->rxq);
	resp->res = NULL;
	resp->nres = 0;
}

/*
 * The responder resources of a QP about to enter RTR with responder depth
 * @depth, allocated before modify_qp stores anything (its only failure),
 * then handed to sroce_resp_ready().  Exact on what we send, tolerant of
 * what we receive: the requester keeps to its depth as set, but a stock
 * rxe requester set to 3 sends 4 (it rounds up to a power of two), so the
 * resources are rounded up the same way rather than NAK a fourth READ as
 * Invalid Request.
 */
int sroce_resp_alloc(struct sroce_resp_res *r, u32 depth)
{
	r->n = roundup_pow_of_two(sroce_rd_atomic_use(depth));
	r->res = kcalloc(r->n, sizeof(*r->res), GFP_KERNEL);
	return r->res ? 0 : -ENOMEM;
}

void sroce_resp_ready(struct sroce_qp *qp, struct sroce_resp_res *r)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_params p = {
		.epsn = qp->rq_psn,
		.pmtu = qp->path_mtu,
		.ack_coalesce_max = sroce_params.ack_coalesce_max.val,
		.ack_span_max = sroce_params.ack_span_max.val,
		.srq = !!qp->srq,
		.min_rnr_timer = qp->min_rnr_timer,
	};

	sroce_task_assert_owned(&qp->task);
	kfree(resp->res);
	resp->res = r->res;
	resp->nres = r->n;
	r->res = NULL;
	sroce_resp_init(&resp->core, &p, resp->res, resp->nres);
	sroce_uc_init(&resp->uc, qp->rq_psn, qp->path_mtu, !!qp->srq);
	memset(&resp->seen, 0, sizeof(resp->seen));
	sroce_cursor_put(&resp->place);
	resp->have_wqe = false;
}

/* RESET, ERR or destroy: drop the queued requests; in ERR (@flush) flush the receives. */
void sroce_resp_stop(struct sroce_qp *qp, bool flush)
{
	sroce_task_assert_owned(&qp->task);
	sroce_resp_purge(qp);
	if (flush) {
		sroce_rq_flush(qp);
		return;
	}
	/*
	 * RESET or destroy: the receive in progress is dropped, not completed
	 * (an RQ's stays posted), so that a later move to Error does not
	 * flush it.
	 */
	sroce_cursor_put(&qp->resp.place);
	qp->resp.have_wqe = false;
}

/* Every QP reference is gone and the task stopped. */
void sroce_resp_destroy(struct sroce_qp *qp)
{
	kfree(qp->resp.res);
	qp->resp.res = NULL;
}
