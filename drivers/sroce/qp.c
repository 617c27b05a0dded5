// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs, RC, UC, UD and GSI (QP1, ib_mad's UD QP): create, query,
 * destroy, the QPN table and the post_send doorbell; their state and its
 * moves (modify_qp, the engines' errors) are qp_state.c's.  A UD QP has
 * no path: each send names its own (an AH), and a local error on its
 * send queue moves it to SQE rather than Error, so its receive queue
 * carries on (IBA 10.3.1).  A user QP's SQ and RQ rings are librxe's
 * (queue.c); a kernel QP's (created with no udata) are kernel rings that
 * its ib_post_send()/ib_post_recv() fill (kverbs.c).  The responder
 * (resp.c, ud.c) consumes the RQ or SRQ either way.
 *
 * Locking:
 * - sdev->qp_xa maps QPN -> QP.  A QP is stored there only once it is
 *   fully initialised; the receive path looks it up under RCU and takes
 *   a reference (sroce_qp_get()).  Destroy erases the QPN, waits for an
 *   RCU grace period and for the last reference before tearing down,
 *   because the core frees the QP as soon as destroy returns.
 * - qp->state_lock covers qp->state and every attribute modify_qp stores;
 *   readers outside modify_qp take it too.  qp_state.c is the only writer
 *   of qp->state: modify_qp, destroy (sroce_qp_kill()), and
 *   sroce_qp_error() and sroce_qp_enter_sqe() for the engines.
 * - qp->modify_lock serialises modify_qp calls on the QP (uverbs holds
 *   only a shared lock on it), so a transition is checked against the
 *   state it is applied to; the engine hooks run under it, outside the
 *   spinlock.
 * - The engines run in the QP task (task.c).  A transition that resets
 *   them first stores the new state, under state_lock, then stops the
 *   task (sroce_qp_quiesce()): the receive path checks the state and
 *   queues a packet under state_lock, so once the state is stored no
 *   packet is queued any more, and the engine hooks purge what was.
 *   The task is started again once the engines are ready for the new
 *   state (RTR, RTS, SQD, Error).
 */
#include <rdma/uverbs_ioctl.h>

#include <sroce/psn.h>
#include "sroce.h"

/* xa_alloc_cyclic() below never hands out the multicast QPN. */
static_assert(SROCE_MAX_QPN < IB_MULTICAST_QPN);

/* An rxe ring keeps one slot empty: the capacity is the index mask. */
static u32 sroce_ring_capacity(const struct sroce_queue *q)
{
	return q->index_mask;
}

static struct ib_ucontext *sroce_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc)->ibuc;
}

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refs))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->refs))
		complete(&qp->released);
}

static int sroce_qp_check_cap(const struct sroce_dev *sdev, const struct ib_qp_cap *cap,
			      bool has_srq)
{
	u32 max_wr = sdev->attr.max_qp_wr;
	u32 max_recv_sge = min_t(u32, sdev->attr.max_recv_sge, SROCE_MAX_SGE);

	if (cap->max_send_wr > max_wr || cap->max_send_sge > sdev->attr.max_send_sge ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (!has_srq && (cap->max_recv_wr > max_wr || cap->max_recv_sge > max_recv_sge))
		return -EINVAL;
	return 0;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct rxe_create_qp_resp resp = {};
	struct ib_ucontext *uctx = NULL;
	u32 qpn, num, wqe_size;
	int err;

	if ((init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	     init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI) || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* QP1, ib_mad's: a kernel QP of port 1 (rxe_qp_chk_init). */
	if (init->qp_type == IB_QPT_GSI && (udata || init->port_num != 1))
		return -EINVAL;
	if (init->create_flags)
		return -EINVAL;
	if (udata && (udata->inlen || udata->outlen < sizeof(resp)))
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	/* A kernel QP's CQs are kernel CQs, a user QP's are the user's. */
	if (to_scq(init->send_cq)->is_kernel != !udata ||
	    to_scq(init->recv_cq)->is_kernel != !udata)
		return -EINVAL;
	err = sroce_qp_check_cap(sdev, &init->cap, !!init->srq);
	if (err)
		return err;
	/* A kernel QP's SRQ is a kernel SRQ, a user QP's the user's. */
	if (init->srq && to_ssrq(init->srq)->is_kernel != !udata)
		return -EINVAL;
	if (udata)
		uctx = sroce_uctx(udata);
	qp->is_kernel = !udata;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);

	qp->sdev = sdev;
	qp->pd = to_spd(ibqp->pd);
	qp->scq = to_scq(init->send_cq);
	qp->sq_sig_type = init->sq_sig_type;
	qp->rcq = to_scq(init->recv_cq);
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	spin_lock_init(&qp->state_lock);
	mutex_init(&qp->modify_lock);
	sroce_task_init(&qp->task, sroce_qp_pass, qp);
	qp->state = IB_QPS_RESET;
	qp->path_mtu = ib_mtu_enum_to_int(IB_MTU_256);
	qp->max_rd_atomic = 1;
	qp->max_dest_rd_atomic = 1;
	refcount_set(&qp->refs, 1);
	init_completion(&qp->released);

	/*
	 * Reserve the QPN; the QP becomes visible at the end.  The GSI QP is
	 * QP1, one per port: a second one finds QPN 1 taken.
	 */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert(&sdev->qp_xa, qpn, NULL, GFP_KERNEL);
		if (err)
			return err == -EBUSY ? -EINVAL : err;
	} else {
		err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, NULL,
				      XA_LIMIT(SROCE_MIN_QPN, SROCE_MAX_QPN), &sdev->qp_next,
				      GFP_KERNEL);
		if (err < 0)
			return err;
	}
	ibqp->qp_num = qpn;

	wqe_size = max_t(u32, init->cap.max_send_sge * sizeof(struct rxe_sge),
			 init->cap.max_inline_data);
	qp->sq_max_sge = wqe_size / sizeof(struct rxe_sge);
	qp->sq_max_inline = wqe_size;
	num = init->cap.max_send_wr;
	err = sroce_queue_init(uctx, &qp->sq, &num, sizeof(struct rxe_send_wqe) + wqe_size,
			       &resp.sq_mi);
	if (err)
		goto err_erase;
	init->cap.max_send_wr = num;
	init->cap.max_send_sge = qp->sq_max_sge;
	init->cap.max_inline_data = qp->sq_max_inline;

	if (qp->srq) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	} else {
		qp->rq_max_sge = init->cap.max_recv_sge;
		num = init->cap.max_recv_wr;
		err = sroce_queue_init(uctx, &qp->rq, &num, sizeof(struct rxe_recv_wqe) +
				       qp->rq_max_sge * sizeof(struct rxe_sge), &resp.rq_mi);
		if (err)
			goto err_sq;
		init->cap.max_recv_wr = num;
	}

	err = sroce_tx_qp_init(qp);
	if (err)
		goto err_rq;
	sroce_resp_create(qp);
	err = sroce_sqs_create(qp);
	if (err)
		goto err_resp;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_sqs;
	}
	err = xa_err(xa_store(&sdev->qp_xa, qpn, qp, GFP_KERNEL));
	if (err)
		goto err_sqs;
	return 0;

err_sqs:
	sroce_sqs_destroy(qp);
err_resp:
	sroce_resp_destroy(qp);
	sroce_tx_qp_cleanup(qp);
err_rq:
	if (!qp->srq)
		sroce_queue_cleanup(&qp->rq);
err_sq:
	sroce_queue_cleanup(&qp->sq);
err_erase:
	xa_erase(&sdev->qp_xa, qpn);
	return err;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	sroce_mcast_qp_gone(qp);
	xa_erase(&qp->sdev->qp_xa, ibqp->qp_num);
	/* A lookup that found the QP has now taken its reference or failed. */
	synchronize_rcu();
	sroce_qp_kill(qp);
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
	sroce_mw_qp_gone(qp);
	sroce_sqs_destroy(qp);
	sroce_resp_destroy(qp);
	sroce_tx_qp_cleanup(qp);
	if (!qp->srq)
		sroce_queue_cleanup(&qp->rq);
	sroce_queue_cleanup(&qp->sq);
	mutex_destroy(&qp->modify_lock);
	return 0;
}

static void sroce_qp_get_cap(const struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = sroce_ring_capacity(&qp->sq);
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;
	if (!qp->srq) {
		cap->max_recv_wr = sroce_ring_capacity(&qp->rq);
		cap->max_recv_sge = qp->rq_max_sge;
	}
}

/* Every attribute is returned, whatever @mask asks for (as rxe). */
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_av av;
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	spin_lock_irqsave(&qp->state_lock, flags);
	attr->qp_state = qp->state;
	attr->path_mtu = ib_mtu_int_to_enum(qp->path_mtu);
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access_flags;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->qkey = qp->qkey;
	av = qp->av;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->cur_qp_state = attr->qp_state;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->port_num = 1;
	sroce_qp_get_cap(qp, &attr->cap);
	sroce_av_to_attr(qp->sdev, &av, &attr->ah_attr);

	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = 1;
	return 0;
}

/*
 * The doorbell: librxe writes WQEs into the SQ ring and calls post_send
 * with no WR.  A pass of the QP task copies them out and sends (req.c); in
 * Error it flushes them.  When nothing was outstanding (a latency test's
 * next message) the pass runs here, in the poster's thread
 * (sroce_task_run()), which saves a worker wakeup per message; with
 * messages in flight it goes to the worker, which then finds several new
 * WQEs at once and sets AckReq on the last of them only.  Before RTS,
 * EINVAL, as stock rxe (the WQEs stay in the ring).  A kernel QP's WRs go
 * to kverbs.c, which only schedules the task.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;

	if (qp->is_kernel)
		return sroce_post_send_kernel(qp, wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!sroce_state_takes_posts(state))
		return -EINVAL;
	if (READ_ONCE(qp->sqs.quiet))
		sroce_task_run(&qp->task);
	else
		sroce_task_schedule(&qp->task);
	return 0;
}
