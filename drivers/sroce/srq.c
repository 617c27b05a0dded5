// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues (IB_SRQT_BASIC): create, modify, query, destroy.
 * librxe posts to a user SRQ's ring without a syscall; a kernel SRQ's
 * (created with no udata) is a kernel ring that ib_post_srq_recv() fills
 * (kverbs.c).  The responder (resp.c) consumes either under srq->lock.
 *
 * Locking: srq->lock covers the consumer side of srq->queue, the ring
 * itself (a resize swaps it), srq->limit and, on a kernel SRQ, the
 * producer side too.  The kernel never trusts the
 * ring header for geometry: max_wr comes from its own index mask.
 *
 * A nonzero srq->limit arms IB_EVENT_SRQ_LIMIT_REACHED: the responder
 * fires it once, when a WQE it takes leaves fewer than limit posted, and
 * disarms it (limit 0), as the IBA specifies for the SRQ limit.
 *
 * modify_srq(IB_SRQ_MAX_WR) reproduces rxe's ABI quirk: the new ring's
 * struct mminfo goes to the user address in struct rxe_modify_srq_cmd,
 * not into a response.
 */
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

/* srq_num only names a basic SRQ to the user; there is no XRC to route by it. */
#define SROCE_SRQ_NUM_MASK 0xffffff
static atomic_t sroce_srq_seq = ATOMIC_INIT(0);

static size_t sroce_srq_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

/* An rxe ring keeps one slot empty: the capacity is the index mask. */
static u32 sroce_srq_capacity(const struct sroce_srq *srq)
{
	return srq->queue.index_mask;
}

static struct ib_ucontext *sroce_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc)->ibuc;
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	u32 max_sge = init->attr.max_sge;
	u32 num = init->attr.max_wr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (!num || num > sdev->attr.max_srq_wr ||
	    max_sge > min_t(u32, sdev->attr.max_srq_sge, SROCE_MAX_SRQ_SGE))
		return -EINVAL;

	srq->pd = to_spd(ibsrq->pd);
	srq->max_sge = max_sge;
	srq->srq_num = atomic_inc_return(&sroce_srq_seq) & SROCE_SRQ_NUM_MASK;
	spin_lock_init(&srq->lock);
	if (!udata) {
		srq->is_kernel = true;
		err = sroce_queue_init_kernel(&srq->queue, &num, sroce_srq_wqe_size(max_sge));
		if (err)
			return err;
		init->attr.max_wr = num;
		return 0;
	}
	err = sroce_queue_init(sroce_uctx(udata), &srq->queue, &num, sroce_srq_wqe_size(max_sge),
			       &resp.mi);
	if (err)
		return err;
	resp.srq_num = srq->srq_num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_queue;
	init->attr.max_wr = num;
	return 0;

err_queue:
	sroce_queue_cleanup(&srq->queue);
	return err;
}

/*
 * Copy the @count unconsumed WQEs of the current ring, in order, to the
 * start of the unpublished ring @nq, and publish them there.
 */
static void sroce_srq_move_wqes(struct sroce_srq *srq, struct sroce_queue *nq, u32 count)
{
	size_t size = sroce_srq_wqe_size(srq->max_sge);
	u32 prod = nq->cons;	/* the new ring is empty: from its consumer */
	const void *wqe;
	u32 n;

	lockdep_assert_held(&srq->lock);
	for (n = 0; n < count; n++) {
		wqe = sroce_queue_head(&srq->queue);
		if (!wqe)
			break;
		memcpy(nq->buf->data + ((size_t)prod << nq->log2_elem_size), wqe, size);
		prod = (prod + 1) & nq->index_mask;
		sroce_queue_pop(&srq->queue);
	}
	/* WQEs before the index: the responder loads it with acquire (queue.c). */
	smp_store_release(&nq->buf->producer_index, prod);
}

static int sroce_srq_resize(struct sroce_srq *srq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(srq->ibsrq.device);
	struct rxe_modify_srq_cmd cmd;
	struct sroce_queue nq = {};
	struct sroce_queue old;
	struct mminfo mi = {};
	u32 num = attr->max_wr;
	unsigned long flags;
	u32 count, limit;
	int err;

	if (!udata != srq->is_kernel || (udata && udata->inlen < sizeof(cmd)))
		return -EINVAL;
	if (!num || num > sdev->attr.max_srq_wr)
		return -EINVAL;
	if (srq->is_kernel) {
		err = sroce_queue_init_kernel(&nq, &num, sroce_srq_wqe_size(srq->max_sge));
		if (err)
			return err;
		goto swap;
	}
	err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
	if (err)
		return err;

	err = sroce_queue_init(sroce_uctx(udata), &nq, &num, sroce_srq_wqe_size(srq->max_sge),
			       &mi);
	if (err)
		return err;
	/* librxe maps the new ring only if this returns 0: a failure below is safe. */
	if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi))) {
		err = -EFAULT;
		goto err_queue;
	}
swap:

	spin_lock_irqsave(&srq->lock, flags);
	limit = (mask & IB_SRQ_LIMIT) ? attr->srq_limit : srq->limit;
	count = sroce_queue_count(&srq->queue);
	if (limit >= num || count > num) {
		spin_unlock_irqrestore(&srq->lock, flags);
		err = -EINVAL;
		goto err_queue;
	}
	sroce_srq_move_wqes(srq, &nq, count);
	old = srq->queue;
	srq->queue = nq;
	srq->limit = limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	/* Existing user mappings keep the old buffer alive until munmap. */
	sroce_queue_cleanup(&old);
	attr->max_wr = num;
	return 0;

err_queue:
	sroce_queue_cleanup(&nq);
	return err;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return sroce_srq_resize(srq, attr, mask, udata);
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		if (attr->srq_limit < sroce_srq_capacity(srq))
			srq->limit = attr->srq_limit;
		else
			err = -EINVAL;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return err;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = sroce_srq_capacity(srq);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	attr->max_sge = srq->max_sge;
	return 0;
}

/* The core refuses while a QP uses the SRQ, and QP destroy waits for the responder. */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	sroce_queue_cleanup(&to_ssrq(ibsrq)->queue);
	return 0;
}

/* An asynchronous SRQ event (IB_EVENT_SRQ_LIMIT_REACHED) for the user. */
void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}
