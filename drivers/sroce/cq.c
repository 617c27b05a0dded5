// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues, one TO_CLIENT ring each (queue.c): a user CQ's is
 * mapped by librxe, a kernel CQ's (created with no udata) is read by
 * sroce_poll_cq().
 *
 * Invariants:
 * - cq->lock serialises the producer side of the ring, cq->notify, the
 *   replacement of the ring by resize and, on a kernel CQ, poll_cq's
 *   consumer side.  It is taken with interrupts saved: CQEs are posted
 *   from softirq and from process context, and kernel ULPs poll and arm
 *   with interrupts off.
 * - A user CQ's slot starts with a 48-byte struct ib_uverbs_wc that librxe
 *   copies out as is; a kernel CQ's holds a struct ib_wc.  A CQE is
 *   written before the producer index that makes it visible
 *   (sroce_queue_push()).
 * - The consumer index is the client's: it is read masked, and only to
 *   tell how many CQEs are still unconsumed.
 * - comp_handler and event_handler are called without cq->lock held.  A
 *   kernel CQ's comp_handler runs with BHs off, so the IRQ_POLL softirq of
 *   an IB_POLL_SOFTIRQ CQ runs as soon as it returns, on this CPU.
 */
#include <linux/spinlock.h>
#include <linux/string.h>
#include <rdma/uverbs_ioctl.h>
#include <kunit/visibility.h>

#include "sroce.h"

/* A user CQE's slot: librxe rejects a ring whose slots are smaller. */
#define SROCE_CQE_SIZE sizeof(struct ib_uverbs_wc)

/* The user's consumer index, masked. */
static u32 cq_consumer(const struct sroce_queue *q)
{
	/* Pairs with librxe's release store: its reads of older CQEs are done. */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

static void *cq_slot(const struct sroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) << q->log2_elem_size);
}

static int cq_check_cqe(struct ib_cq *ibcq, int cqe)
{
	if (cqe < 1 || cqe > to_sdev(ibcq->device)->attr.max_cqe)
		return -EINVAL;
	return 0;
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_ctx *ctx)
{
	struct ib_udata *udata = sroce_create_cq_udata(ctx);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_ucontext *uctx;
	struct rxe_create_cq_resp resp = {};
	u32 num_cqe;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe > INT_MAX || cq_check_cqe(ibcq, attr->cqe))
		return -EINVAL;
	spin_lock_init(&cq->lock);
	cq->notify = 0;
	num_cqe = attr->cqe;
	/* comp_vector is a hint: the CQEs come from the QP tasks' CPUs. */
	if (!udata) {
		cq->is_kernel = true;
		cq->cqe_size = sizeof(struct ib_wc);
		err = sroce_queue_init_kernel(&cq->queue, &num_cqe, cq->cqe_size);
		if (err)
			return err;
		ibcq->cqe = num_cqe;
		return 0;
	}
	if (udata->outlen < sizeof(resp))
		return -EINVAL;

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	cq->cqe_size = SROCE_CQE_SIZE;
	err = sroce_queue_init(&uctx->ibuc, &cq->queue, &num_cqe, SROCE_CQE_SIZE, &resp.mi);
	if (err)
		return err;

	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_cleanup_queue;

	ibcq->cqe = num_cqe;
	return 0;

err_cleanup_queue:
	sroce_queue_cleanup(&cq->queue);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_create_cq);

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	sroce_queue_cleanup(&to_scq(ibcq)->queue);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_destroy_cq);

/*
 * librxe's resize replaces the ring: it unmaps the old one and maps the
 * one described in the response.  The unconsumed CQEs move to the start of
 * the new ring, in order.  A kernel CQ's ring is replaced the same way,
 * under the lock its poll_cq takes.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_ucontext *uctx;
	struct rxe_resize_cq_resp resp = {};
	struct sroce_queue new, old;
	unsigned long flags;
	u32 num_cqe, count, cons, i;
	int err;

	if (!udata != cq->is_kernel)
		return -EINVAL;
	err = cq_check_cqe(ibcq, cqe);
	if (err)
		return err;
	num_cqe = cqe;
	if (cq->is_kernel) {
		err = sroce_queue_init_kernel(&new, &num_cqe, cq->cqe_size);
		if (err)
			return err;
	} else {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
		err = sroce_queue_init(&uctx->ibuc, &new, &num_cqe, SROCE_CQE_SIZE, &resp.mi);
		if (err)
			return err;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_cleanup_new;
	}

	spin_lock_irqsave(&cq->lock, flags);
	cons = cq_consumer(&cq->queue);
	count = (cq->queue.prod - cons) & cq->queue.index_mask;
	if (count > num_cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_cleanup_new;
	}
	for (i = 0; i < count; i++)
		memcpy(cq_slot(&new, i), cq_slot(&cq->queue, cons + i), cq->cqe_size);
	new.prod = count;
	/* The moved CQEs are written before the index that shows them. */
	smp_store_release(&new.buf->producer_index, new.prod);
	old = cq->queue;
	cq->queue = new;
	ibcq->cqe = num_cqe;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_queue_cleanup(&old);
	return 0;

err_cleanup_new:
	sroce_queue_cleanup(&new);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_resize_cq);

/**
 * sroce_cq_arm() - the arm a notification request leaves (IBA 11.4.2.2)
 * @notify: the CQ's arm: 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED
 * @flags: the request (ib_req_notify_cq())
 *
 * An armed NEXT_COMP already covers a SOLICITED request; otherwise the
 * request replaces the arm.
 */
u8 sroce_cq_arm(u8 notify, enum ib_cq_notify_flags flags)
{
	if (notify == IB_CQ_NEXT_COMP)
		return notify;
	return flags & IB_CQ_SOLICITED_MASK;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_arm);

/**
 * sroce_cq_fires() - whether a new CQE signals the CQ (IBA 11.4.2.2)
 * @notify: the CQ's arm, cleared when it fires
 * @solicited: a receive completion of a message with the Solicited Event bit
 * @error: an unsuccessful completion, of either work queue (flushes too)
 *
 * NEXT_COMP fires on any CQE; SOLICITED on a solicited receive or on an
 * unsuccessful completion.  An arm fires once.
 */
bool sroce_cq_fires(u8 *notify, bool solicited, bool error)
{
	if (*notify == IB_CQ_NEXT_COMP || (*notify == IB_CQ_SOLICITED && (solicited || error))) {
		*notify = 0;
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_fires);

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	cq->notify = sroce_cq_arm(cq->notify, flags);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->queue.prod != cq_consumer(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);

	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_req_notify_cq);

/*
 * A CQE for a kernel consumer: @wc's fields, and the QP and wr_cqe as
 * pointers; a UD receive also says which header its GRH is (@nht).
 */
static void cq_kernel_wc(struct ib_wc *k, struct sroce_qp *qp, const struct ib_uverbs_wc *wc,
			 u8 nht)
{
	/*
	 * The opcode, status and flag values are ib_core's own in both
	 * layouts: uverbs copies an ib_wc's into an ib_uverbs_wc as they are.
	 */
	*k = (struct ib_wc){
		.wr_id = wc->wr_id,	/* wr_cqe, for ib_alloc_cq() users */
		.status = wc->status,
		.opcode = wc->opcode,
		.vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len,
		.qp = &qp->ibqp,
		.src_qp = wc->src_qp,
		.wc_flags = wc->wc_flags,
		.pkey_index = wc->pkey_index,
		.slid = wc->slid,
		.sl = wc->sl,
		.dlid_path_bits = wc->dlid_path_bits,
		.port_num = wc->port_num,
	};
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		k->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		k->ex.imm_data = wc->ex.imm_data;
	if (nht) {
		k->network_hdr_type = nht;
		k->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/**
 * sroce_cq_post_hdr() - post one CQE and signal an armed CQ
 * @cq: the completion queue
 * @qp: the QP the completion is of
 * @wc: the CQE, in the layout librxe polls (a kernel CQ gets it as ib_wc)
 * @solicited: the completion is solicited (a receive with the BTH SE bit);
 *	an unsuccessful one signals a SOLICITED arm too (sroce_cq_fires())
 * @network_hdr_type: a UD receive's RDMA_NETWORK_IPV4/_IPV6, for a kernel
 *	CQ (ib_init_ah_attr_from_wc() reads the GRH by it); else 0
 *
 * Context: any; takes cq->lock with interrupts saved.
 * Return: 0, or -ENOSPC if the CQ overflowed (IB_EVENT_CQ_ERR is raised).
 */
int sroce_cq_post_hdr(struct sroce_cq *cq, struct sroce_qp *qp, const struct ib_uverbs_wc *wc,
		      bool solicited, u8 network_hdr_type)
{
	struct ib_cq *ibcq = &cq->ibcq;
	unsigned long flags;
	bool signal;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	slot = sroce_queue_tail(&cq->queue);
	if (!slot) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (ibcq->event_handler) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -ENOSPC;
	}
	if (cq->is_kernel)
		cq_kernel_wc(slot, qp, wc, network_hdr_type);
	else
		memcpy(slot, wc, SROCE_CQE_SIZE);
	sroce_queue_push(&cq->queue);

	signal = sroce_cq_fires(&cq->notify, solicited, wc->status != IB_WC_SUCCESS);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (!signal)
		return 0;
	if (cq->is_kernel) {
		local_bh_disable();
		ibcq->comp_handler(ibcq, ibcq->cq_context);
		local_bh_enable();
	} else {
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_post_hdr);

/**
 * sroce_poll_cq() - ops.poll_cq: take up to @num_entries CQEs of a kernel CQ
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: filled in order, oldest first
 *
 * Context: any (ULPs poll from softirq and with interrupts off).
 * Return: the number of CQEs taken, or -EINVAL for a user CQ.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	const void *slot;
	int n = 0;

	if (!cq->is_kernel)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && (slot = sroce_queue_client_head(&cq->queue))) {
		memcpy(&wc[n++], slot, sizeof(*wc));
		sroce_queue_client_pop(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_poll_cq);
