// SPDX-License-Identifier: GPL-2.0
/*
 * The work queue front end of kernel QPs and SRQs: ib_post_send(),
 * ib_post_recv() and ib_post_srq_recv() turn each work request into a WQE
 * in a kernel ring (queue.c), in the layout librxe writes into a user QP's ring, so
 * the same fetch and validation (wqe.c, resp.c), the same requester,
 * completer and responder serve both kinds of QP.
 *
 * Contexts: a post may come from any context: ib_mad posts with a spinlock
 * held and interrupts off, ULPs from softirq completion callbacks and from
 * blk-mq with preemption off.  So a post takes only qp->sq_lock or
 * qp->rq_lock, with interrupts saved, copies the request (it may live on
 * the caller's stack) and schedules the QP task; it never runs a pass
 * itself.
 *
 * Errors: a request the QP cannot take returns an errno with *bad_wr set
 * to it; the requests before it stay posted.  -EINVAL for a bad shape (an
 * opcode sroce does not carry, too many SGEs, inline data too long, a UD
 * send without an AH) or a QP state that takes no posts, -EMSGSIZE for a
 * UD send longer than the port's MTU, -ENOMEM for a full ring.  Lkeys and
 * lengths are checked when the task fetches the WQE, as for user QPs; a
 * bad one completes with its local error.  A QP in Error takes every post
 * and flushes it (ib_drain_qp() relies on that).
 */
#include <linux/spinlock.h>
#include <linux/string.h>

#include "sroce.h"

/*
 * The IB_WR_* opcodes a kernel QP carries: the uverbs values librxe
 * writes.  A UD QP sends only, but in Error takes any of them, to flush
 * it: ib_drain_sq() posts an RDMA WRITE whatever the QP's type.
 */
static bool sroce_kwr_opcode_ok(const struct sroce_qp *qp, enum ib_wr_opcode op, bool in_error)
{
	if (sroce_qp_is_ud(qp) && !in_error)
		return op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM;
	/* UC: SEND and RDMA WRITE only (no READ or ATOMIC), flushed or not. */
	if (sroce_qp_is_uc(qp) && op != IB_WR_SEND && op != IB_WR_SEND_WITH_IMM &&
	    op != IB_WR_RDMA_WRITE && op != IB_WR_RDMA_WRITE_WITH_IMM)
		return false;
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

static bool sroce_kwr_is_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP || op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Inline data: the SGEs' bytes, copied now from their kernel virtual
 * addresses (virtual DMA) into the WQE; their lkeys are not used.
 */
static int sroce_kwr_inline(struct sroce_qp *qp, const struct ib_send_wr *wr,
			    struct rxe_send_wqe *wqe)
{
	u8 *dst = wqe->dma.inline_data;
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > qp->sq_max_inline - total)
			return -EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)wr->sg_list[i].addr, len);
		total += len;
	}
	wqe->dma.length = total;
	return 0;
}

/* The bytes a send WR carries, summed wide: a u32 sum could wrap. */
static u64 sroce_kwr_length(const struct ib_send_wr *wr)
{
	u64 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len;
}

/* A WR's scatter/gather list into a WQE's, with the total length. */
static void sroce_kwr_sges(struct rxe_dma_info *dma, const struct ib_sge *sg, int num_sge)
{
	int i;

	dma->num_sge = num_sge;
	for (i = 0; i < num_sge; i++) {
		dma->sge[i] = (struct rxe_sge){
			.addr = sg[i].addr,
			.length = sg[i].length,
			.lkey = sg[i].lkey,
		};
		dma->length += sg[i].length;
	}
}

/* One send WR into the free slot @wqe, or -EINVAL for a shape the QP refuses. */
static int sroce_kwr_send_wqe(struct sroce_qp *qp, const struct ib_send_wr *wr,
			      struct rxe_send_wqe *wqe, bool in_error)
{
	bool ud = sroce_qp_is_ud(qp) && !in_error;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct ib_sge) != sizeof(struct rxe_sge));
	BUILD_BUG_ON((int)IB_WR_ATOMIC_FETCH_AND_ADD != (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD);

	if (!sroce_kwr_opcode_ok(qp, wr->opcode, in_error) || wr->num_sge < 0)
		return -EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;	/* the wr_cqe pointer of ib_alloc_cq() users */
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_IMM || wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->wr.ex.imm_data = wr->ex.imm_data;
	if (sroce_kwr_is_atomic(wr->opcode)) {
		const struct ib_atomic_wr *a = atomic_wr(wr);

		wqe->wr.wr.atomic.remote_addr = a->remote_addr;
		wqe->wr.wr.atomic.compare_add = a->compare_add;
		wqe->wr.wr.atomic.swap = a->swap;
		wqe->wr.wr.atomic.rkey = a->rkey;
	} else if (ud) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		if (!ud->ah)
			return -EINVAL;
		/* The AH by number, as librxe names it: its path is copied when sent. */
		wqe->wr.wr.ud.ah_num = to_sah(ud->ah)->ah_num;
		wqe->wr.wr.ud.remote_qpn = ud->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud->pkey_index;
	} else if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM) {
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
	}

	if (wr->send_flags & IB_SEND_INLINE)
		err = sroce_kwr_inline(qp, wr, wqe);
	else if (wr->num_sge > qp->sq_max_sge)
		err = -EINVAL;
	else
		sroce_kwr_sges(&wqe->dma, wr->sg_list, wr->num_sge);
	if (err)
		return err;
	/*
	 * A datagram is one packet: a longer one is refused now, where the
	 * caller sees it (a user QP's completes LOC_LEN_ERR, as the requester
	 * finds it).
	 */
	if (ud && sroce_kwr_length(wr) > ib_mtu_enum_to_int(READ_ONCE(qp->sdev->active_mtu)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Receive WRs from *@wr on into the kernel ring @q, whose client lock the
 * caller holds; on error *@wr is the first one not posted.
 */
static int sroce_kwr_recvs(struct sroce_queue *q, u32 max_sge, const struct ib_recv_wr **wr)
{
	for (; *wr; *wr = (*wr)->next) {
		struct rxe_recv_wqe *slot = sroce_queue_client_tail(q);

		if (!slot)
			return -ENOMEM;
		if ((*wr)->num_sge < 0 || (u32)(*wr)->num_sge > max_sge)
			return -EINVAL;
		memset(slot, 0, sizeof(*slot));
		slot->wr_id = (*wr)->wr_id;
		sroce_kwr_sges(&slot->dma, (*wr)->sg_list, (*wr)->num_sge);
		sroce_queue_client_push(q);
	}
	return 0;
}

/*
 * A snapshot of the state: every writer holds state_lock, which is a BH
 * lock, so a post (possibly with interrupts off) only reads it.  Posts
 * read it under their ring's lock: the move to RESET writes the state
 * before it discards the rings under those locks, so a post either lands
 * before the discard or sees RESET.
 */
static enum ib_qp_state sroce_kqp_state(struct sroce_qp *qp)
{
	return READ_ONCE(qp->state);
}

/**
 * sroce_post_send_kernel() - ops.post_send for a kernel QP
 * @qp: the QP
 * @wr: the chain of work requests
 * @bad_wr: set to the first request not posted, on error
 *
 * Before RTS (RESET, INIT, RTR) nothing is posted: -EINVAL, as rxe.
 * Context: any; does not sleep.
 */
int sroce_post_send_kernel(struct sroce_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	enum ib_qp_state state;
	unsigned long flags;
	bool posted = false;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	state = sroce_kqp_state(qp);
	if (!sroce_state_takes_posts(state))
		err = -EINVAL;
	for (; wr && !err; wr = wr->next) {
		struct rxe_send_wqe *slot = sroce_queue_client_tail(&qp->sq);

		if (!slot) {
			err = -ENOMEM;
			break;
		}
		err = sroce_kwr_send_wqe(qp, wr, slot, state == IB_QPS_ERR);
		if (err)
			break;
		sroce_queue_client_push(&qp->sq);
		posted = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	if (posted)
		sroce_task_schedule(&qp->task);
	return err;
}

/**
 * sroce_post_recv() - ops.post_recv: receive WRs onto a kernel QP's RQ
 * @ibqp: the QP
 * @wr: the chain of work requests
 * @bad_wr: set to the first request not posted, on error
 *
 * Receives may be posted from INIT on; in RESET, and on a QP with an SRQ,
 * -EINVAL.  In Error the task flushes them (resp.c).
 * Context: any; does not sleep.
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int err = 0;

	if (!qp->is_kernel || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	state = sroce_kqp_state(qp);
	if (state == IB_QPS_RESET)
		err = -EINVAL;
	else
		err = sroce_kwr_recvs(&qp->rq, qp->rq_max_sge, &wr);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (err)
		*bad_wr = wr;
	/* The state may have moved to Error meanwhile: a pass looks again. */
	if (sroce_kqp_state(qp) == IB_QPS_ERR)
		sroce_task_schedule(&qp->task);
	return err;
}

/**
 * sroce_post_srq_recv() - ops.post_srq_recv: receive WRs onto a kernel SRQ
 * @ibsrq: the SRQ
 * @wr: the chain of work requests
 * @bad_wr: set to the first request not posted, on error
 *
 * Under srq->lock, which the responders taking from the SRQ hold too.  No
 * task is scheduled: a QP short of a receive answered RNR, and its peer
 * retries.
 * Context: any; does not sleep.
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err;

	if (!srq->is_kernel) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_kwr_recvs(&srq->queue, srq->max_sge, &wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
