// SPDX-License-Identifier: GPL-2.0
/*
 * The send queue front end: librxe's SQ ring in, shadow WQEs for the
 * requester and completer cores out, and completions back.
 *
 * The SQ ring is user-writable at any time, so each WQE is copied out of
 * its slot exactly once, into the shadow at the same position, and
 * validated there: opcode, flags, num_sge, inline length, message length
 * and every lkey.  A WQE that fails becomes a refused WQE
 * (sroce_req_post_error()): it completes with its local error in order,
 * and nothing else is harmed.  The slot goes back to the user (the ring's
 * consumer index moves) only when the WQE retires, so the ring still
 * bounds the WQEs a QP has outstanding, as librxe expects.
 *
 * Everything here runs in the QP task.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include <sroce/ud_abi.h>
#include "sroce.h"
#include "sq.h"

/* IB_UVERBS_WR_* (the librxe values) to the core's operations, plus one: 0 is refused. */
static const u8 sroce_wr_ops[] = {
	[IB_UVERBS_WR_RDMA_WRITE] = SROCE_WR_WRITE + 1,
	[IB_UVERBS_WR_RDMA_WRITE_WITH_IMM] = SROCE_WR_WRITE_IMM + 1,
	[IB_UVERBS_WR_SEND] = SROCE_WR_SEND + 1,
	[IB_UVERBS_WR_SEND_WITH_IMM] = SROCE_WR_SEND_IMM + 1,
	[IB_UVERBS_WR_RDMA_READ] = SROCE_WR_READ + 1,
	[IB_UVERBS_WR_ATOMIC_CMP_AND_SWP] = SROCE_WR_CMP_SWAP + 1,
	[IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD] = SROCE_WR_FETCH_ADD + 1,
	[IB_UVERBS_WR_LOCAL_INV] = SROCE_WR_LOCAL_INV + 1,
	[IB_UVERBS_WR_BIND_MW] = SROCE_WR_BIND_MW + 1,
	[IB_UVERBS_WR_SEND_WITH_INV] = SROCE_WR_SEND_INV + 1,
};

/* The send completion opcode of each core operation. */
static const u8 sroce_wc_opcodes[SROCE_WR_OP_COUNT] = {
	[SROCE_WR_SEND] = IB_UVERBS_WC_SEND,
	[SROCE_WR_SEND_IMM] = IB_UVERBS_WC_SEND,
	[SROCE_WR_WRITE] = IB_UVERBS_WC_RDMA_WRITE,
	[SROCE_WR_WRITE_IMM] = IB_UVERBS_WC_RDMA_WRITE,
	[SROCE_WR_READ] = IB_UVERBS_WC_RDMA_READ,
	[SROCE_WR_CMP_SWAP] = IB_UVERBS_WC_COMP_SWAP,
	[SROCE_WR_FETCH_ADD] = IB_UVERBS_WC_FETCH_ADD,
	[SROCE_WR_SEND_INV] = IB_UVERBS_WC_SEND,
	[SROCE_WR_LOCAL_INV] = IB_UVERBS_WC_LOCAL_INV,
	[SROCE_WR_BIND_MW] = IB_UVERBS_WC_BIND_MW,
};

static const u8 sroce_wc_status_ib[SROCE_WC_STATUS_COUNT] = {
	[SROCE_WC_SUCCESS] = IB_WC_SUCCESS,
	[SROCE_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SROCE_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SROCE_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SROCE_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SROCE_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SROCE_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SROCE_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SROCE_WC_REM_OP_ERR] = IB_WC_REM_OP_ERR,
	[SROCE_WC_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
	[SROCE_WC_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
	[SROCE_WC_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
};

/* A core completion status (enum sroce_wc_status) as ib_core's. */
u8 sroce_wc_status_to_ib(u8 status)
{
	return status < SROCE_WC_STATUS_COUNT ? sroce_wc_status_ib[status] : IB_WC_GENERAL_ERR;
}

#define SROCE_MAX_MSG 0x80000000u	/* 2^31 bytes (IBA 9.4.3) */

int sroce_sqs_create(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	size_t arena;

	s->nslots = sroce_queue_slots(&qp->sq);
	s->slot_bytes = max_t(u32, qp->sq_max_sge * sizeof(struct rxe_sge), qp->sq_max_inline);
	if (check_mul_overflow((size_t)s->nslots, (size_t)s->slot_bytes, &arena))
		return -EINVAL;
	s->ring = kvcalloc(s->nslots, sizeof(*s->ring), GFP_KERNEL);
	s->swqe = kvcalloc(s->nslots, sizeof(*s->swqe), GFP_KERNEL);
	s->arena = kvzalloc(arena, GFP_KERNEL);
	if (!s->ring || !s->swqe || !s->arena)
		goto err_free;
	skb_queue_head_init(&s->rxq);
	s->quiet = true;
	sroce_sq_timers_init(qp);
	/* A valid core from the start: an Error before RTS still flushes. */
	sroce_sq_init(&s->core, &(struct sroce_sq_params){ .pmtu = 256, .window = 1 },
		      s->ring, s->nslots);
	return 0;

err_free:
	kvfree(s->arena);
	kvfree(s->swqe);
	kvfree(s->ring);
	return -ENOMEM;
}

/* The task is stopped and the timers are gone. */
void sroce_sqs_destroy(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;

	sroce_cursor_put(&s->gather);
	sroce_cursor_put(&s->scatter);
	kvfree(s->arena);
	kvfree(s->swqe);
	kvfree(s->ring);
}

struct sroce_swqe *sroce_swqe(struct sroce_qp *qp, u32 pos)
{
	return &qp->sqs.swqe[pos & (qp->sqs.nslots - 1)];
}

/* The local error a WQE earns, or SROCE_WC_SUCCESS if it may go. */
static u8 sroce_sq_check(struct sroce_qp *qp, const struct rxe_send_wqe *hdr,
			 const struct sroce_swqe *sw, u8 op)
{
	bool rd_atomic = op == SROCE_WR_READ || op == SROCE_WR_CMP_SWAP || op == SROCE_WR_FETCH_ADD;
	int access = rd_atomic ? IB_ACCESS_LOCAL_WRITE : 0;
	const struct rxe_sge *sge = sw->data;
	u32 i;

	if (sw->is_inline)
		return 0;
	for (i = 0; i < sw->num_sge; i++) {
		struct sroce_mr *mr;

		if (!sge[i].length)
			continue;
		mr = sroce_mr_get(qp->sdev, qp->pd, sge[i].lkey, access, sge[i].addr,
				  sge[i].length);
		if (!mr)
			return SROCE_WC_LOC_PROT_ERR;
		sroce_mr_put(mr);
	}
	if ((op == SROCE_WR_CMP_SWAP || op == SROCE_WR_FETCH_ADD) && sw->length < sizeof(u64))
		return SROCE_WC_LOC_LEN_ERR;
	return SROCE_WC_SUCCESS;
}

/*
 * Copy the user's slot @slot into the shadow at core position @pos and
 * validate it.  Returns the local error, or SROCE_WC_SUCCESS.
 */
static u8 sroce_sq_shadow(struct sroce_qp *qp, const void *slot, u32 pos)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_sq_wqe *w = &s->ring[pos & (s->nslots - 1)];
	struct sroce_swqe *sw = sroce_swqe(qp, pos);
	struct rxe_send_wqe hdr;
	u64 length = 0;
	u32 flags, i;
	u8 op;

	memcpy(&hdr, slot, sizeof(hdr));	/* once: the slot may change under us */
	*sw = (struct sroce_swqe){
		.wr_id = hdr.wr.wr_id,
		.opcode = hdr.wr.opcode,
		.data = s->arena + (size_t)(pos & (s->nslots - 1)) * s->slot_bytes,
	};
	*w = (struct sroce_sq_wqe){ 0 };
	if (hdr.wr.opcode >= ARRAY_SIZE(sroce_wr_ops) || !sroce_wr_ops[hdr.wr.opcode])
		return SROCE_WC_LOC_QP_OP_ERR;
	op = sroce_wr_ops[hdr.wr.opcode] - 1;
	w->op = op;
	flags = hdr.wr.send_flags;
	if ((flags & IB_SEND_SIGNALED) || qp->sq_sig_type == IB_SIGNAL_ALL_WR)
		w->flags |= SROCE_WF_SIGNALED;
	if (flags & IB_SEND_FENCE)
		w->flags |= SROCE_WF_FENCE;
	if (flags & IB_SEND_SOLICITED)
		w->flags |= SROCE_WF_SOLICITED;

	/* Local operations (mw.c): no data, no lkey; checked when carried out. */
	if (op == SROCE_WR_BIND_MW) {
		sw->mw.addr = hdr.wr.wr.mw.addr;
		sw->mw.length = hdr.wr.wr.mw.length;
		sw->mw.mr_lkey = hdr.wr.wr.mw.mr_lkey;
		sw->mw.mw_rkey = hdr.wr.wr.mw.mw_rkey;
		sw->mw.rkey = hdr.wr.wr.mw.rkey;
		sw->mw.access = hdr.wr.wr.mw.access;
		return SROCE_WC_SUCCESS;
	}
	if (op == SROCE_WR_LOCAL_INV) {
		sw->inv_rkey = hdr.wr.ex.invalidate_rkey;
		return SROCE_WC_SUCCESS;
	}

	if (flags & IB_SEND_INLINE) {
		if (op != SROCE_WR_SEND && op != SROCE_WR_SEND_IMM && op != SROCE_WR_WRITE &&
		    op != SROCE_WR_WRITE_IMM)
			return SROCE_WC_LOC_QP_OP_ERR;
		if (hdr.dma.length > qp->sq_max_inline)
			return SROCE_WC_LOC_QP_OP_ERR;
		sw->is_inline = true;
		length = hdr.dma.length;
		memcpy(sw->data, slot + offsetof(struct rxe_send_wqe, dma.inline_data), length);
	} else {
		const struct rxe_sge *sge = sw->data;

		if (hdr.dma.num_sge > qp->sq_max_sge)
			return SROCE_WC_LOC_QP_OP_ERR;
		sw->num_sge = hdr.dma.num_sge;
		memcpy(sw->data, slot + offsetof(struct rxe_send_wqe, dma.sge),
		       sw->num_sge * sizeof(struct rxe_sge));
		/* The length is the SGEs' sum, whatever dma.length says. */
		for (i = 0; i < sw->num_sge; i++)
			length += sge[i].length;
	}
	if (length >= SROCE_MAX_MSG)
		return SROCE_WC_LOC_LEN_ERR;
	sw->length = length;
	w->length = length;
	if (op == SROCE_WR_CMP_SWAP || op == SROCE_WR_FETCH_ADD) {
		w->length = sizeof(u64);
		w->remote_va = hdr.wr.wr.atomic.remote_addr;
		w->rkey = hdr.wr.wr.atomic.rkey;
		w->swap_add = op == SROCE_WR_CMP_SWAP ? hdr.wr.wr.atomic.swap :
			      hdr.wr.wr.atomic.compare_add;
		w->compare = hdr.wr.wr.atomic.compare_add;
	} else {
		w->remote_va = hdr.wr.wr.rdma.remote_addr;
		w->rkey = hdr.wr.wr.rdma.rkey;
	}
	w->imm = (__force u32)hdr.wr.ex.imm_data;	/* wire order, kept as is */
	if (op == SROCE_WR_SEND_INV)	/* the IETH: the key, in wire order */
		w->imm = (__force u32)cpu_to_be32(hdr.wr.ex.invalidate_rkey);
	if (sroce_qp_is_ud(qp)) {
		/* The AH's path, copied now: a WQE never holds the AH itself. */
		if (sroce_ah_lookup(qp->sdev, hdr.wr.wr.ud.ah_num, qp->pd, &sw->av))
			return SROCE_WC_LOC_QP_OP_ERR;
		sw->remote_qpn = hdr.wr.wr.ud.remote_qpn & SROCE_BTH_QPN_MASK;
		sw->qkey = sroce_ud_deth_qkey(hdr.wr.wr.ud.remote_qkey, qp->view.qkey);
		sw->av.sport = rdma_get_udp_sport(sw->av.flow_label, qp->ibqp.qp_num,
						  sw->remote_qpn);
	}
	return sroce_sq_check(qp, &hdr, sw, op);
}

/*
 * Copy up to @budget new WQEs from the SQ ring into shadows and post them
 * to the requester.  Returns how many.
 */
u32 sroce_sq_fetch(struct sroce_qp *qp, u32 budget)
{
	struct sroce_sqs *s = &qp->sqs;
	u32 n = 0;

	while (n < budget && sroce_sq_room(&s->core)) {
		void *slot = sroce_queue_peek(&qp->sq, s->fetched);
		u32 pos = sroce_sq_producer(&s->core);
		u8 status;

		if (!slot)
			break;
		status = sroce_sq_shadow(qp, slot, pos);
		if (status == SROCE_WC_SUCCESS)
			sroce_req_post(&s->core, 1);
		else
			sroce_req_post_error(&s->core, status);
		s->fetched++;
		n++;
	}
	return n;
}

/*
 * A WQE retired: its slot back to the client, then its CQE if it is owed
 * one.  The slot goes first, as a consumer may post its next WR from the
 * completion handler (an IB_POLL_SOFTIRQ CQ's runs inside sroce_cq_post())
 * and must find the room the completed WR leaves.
 */
void sroce_sq_retire(struct sroce_qp *qp, const struct sroce_sq_cqe *c)
{
	struct ib_uverbs_wc wc = {
		.wr_id = sroce_swqe(qp, c->wqe)->wr_id,
		.status = sroce_wc_status_to_ib(c->status),
		.opcode = c->op < SROCE_WR_OP_COUNT ? sroce_wc_opcodes[c->op] : 0,
		.byte_len = c->byte_len,
		.qp_num = qp->ibqp.qp_num,
	};

	if (!WARN_ON_ONCE(!qp->sqs.fetched)) {
		qp->sqs.fetched--;
		sroce_queue_pop(&qp->sq);
	}
	if (c->signaled)
		sroce_cq_post(qp->scq, qp, &wc, false);
}
