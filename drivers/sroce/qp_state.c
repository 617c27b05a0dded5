// SPDX-License-Identifier: GPL-2.0
/*
 * The QP's state: its one writer.  modify_qp (every attribute checked and
 * what can fail done before anything is stored, then the engines' hooks
 * with the task stopped), destroy's move to RESET (sroce_qp_kill()), and
 * the moves the engines ask for from the QP task: Error (sroce_qp_error()
 * and its halves) and SQE.  Also the task's pass (sroce_qp_pass()), which
 * copies the state and the attributes into qp->view, the engines' copy,
 * and the QP's asynchronous events.
 *
 * Locking: see qp.c; qp->state and the attributes under state_lock,
 * modify_qp serialised by modify_lock.
 */
#include <linux/slab.h>

#include <sroce/psn.h>
#include "sroce.h"

/*
 * RESET empties a kernel QP's rings: WRs posted and not yet taken are
 * discarded with no completion (IBA 10.3.1: the work queues are emptied).
 * A user QP's rings are librxe's to reset.  The task is stopped.
 */
static void sroce_qp_discard_kernel_rings(struct sroce_qp *qp)
{
	unsigned long flags;

	if (!qp->is_kernel)
		return;
	spin_lock_irqsave(&qp->sq_lock, flags);
	sroce_queue_client_reset(&qp->sq);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (qp->srq)
		return;
	spin_lock_irqsave(&qp->rq_lock, flags);
	sroce_queue_client_reset(&qp->rq);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

/*
 * Stop the QP task and bring the view's attributes up to date: modify_qp
 * and the engine hooks it calls then own what the task owns.
 */
static void sroce_qp_quiesce(struct sroce_qp *qp)
{
	sroce_task_stop(&qp->task);
	sroce_qp_snapshot(qp);
}

/*
 * A pass of the QP's task: the view brought up to date, then the stages in
 * their order (completer, requester, responder); true if one left work.
 */
bool sroce_qp_pass(void *arg)
{
	struct sroce_qp *qp = arg;
	bool more;

	sroce_qp_snapshot(qp);
	more = sroce_comp_run(qp);
	more |= sroce_req_run(qp);
	more |= sroce_resp_run(qp);
	return more;
}

/* Everything modify_qp checks before it changes anything. */
static int sroce_qp_check_attr(const struct sroce_qp *qp, const struct ib_qp_attr *attr,
			       int mask, enum ib_qp_state cur, enum ib_qp_state next,
			       struct sroce_av *av)
{
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	/* Which attributes each transition needs and allows, by QP type. */
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	/* No alternate path: automatic path migration is not supported. */
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PATH_MIG_STATE) && attr->path_mig_state != IB_MIG_MIGRATED)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_MAX_QPN)
		return -EINVAL;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(&attr->ah_attr, av);
	return 0;
}

/* Store the checked attributes. */
static void sroce_qp_store_attr(struct sroce_qp *qp, const struct ib_qp_attr *attr, int mask,
				const struct sroce_av *av)
{
	lockdep_assert_held(&qp->state_lock);

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		qp->av = *av;
		dst_cache_reset(&qp->dst_cache);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = ib_mtu_enum_to_int(attr->path_mtu);
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	/* RoCEv2 source port in 0xC000-0xFFFF, from the flow label or the QPN pair. */
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->av.sport = rdma_get_udp_sport(qp->av.flow_label, qp->ibqp.qp_num,
						  qp->dest_qpn);
}

/*
 * A move the QP task makes itself, to Error (from any live state) or to
 * SQE (from RTS or SQD): qp->state and the view together.  A QP that
 * modify_qp or destroy is already moving to RESET or Error is left to
 * them.  Return: true if the QP moved.
 */
static bool sroce_qp_task_move(struct sroce_qp *qp, enum ib_qp_state to)
{
	enum ib_qp_state cur;
	bool live;

	sroce_task_assert_owned(&qp->task);
	spin_lock_bh(&qp->state_lock);
	cur = qp->state;
	live = to == IB_QPS_SQE ? sroce_state_sends(cur) :
	       cur != IB_QPS_RESET && cur != IB_QPS_ERR;
	if (live) {
		WRITE_ONCE(qp->state, to);
		qp->view.state = to;
	}
	spin_unlock_bh(&qp->state_lock);
	return live;
}

/**
 * sroce_qp_enter_error() - the first half of sroce_qp_error(): the state
 * @qp: the QP
 *
 * For an error completion: the QP is in Error before the completion is
 * posted, so a consumer that sees it and queries the QP finds Error (as
 * sroce_qp_enter_sqe() does for SQE); sroce_qp_error_flush() follows it.
 * A QP that modify_qp or destroy is already moving to RESET or ERR is left
 * to them: they stop the task and flush.
 * Context: the QP task.
 * Return: true if the QP was live and is now in Error.
 */
bool sroce_qp_enter_error(struct sroce_qp *qp)
{
	return sroce_qp_task_move(qp, IB_QPS_ERR);
}

/*
 * The second half: raises @event (SROCE_EVENT_NONE for an error
 * completion, which reports itself), then flushes the RQ and the SQ.
 */
void sroce_qp_error_flush(struct sroce_qp *qp, enum ib_event_type event)
{
	enum ib_qp_state now;

	/*
	 * modify_qp or destroy may have moved the QP on meanwhile (ERR ->
	 * RESET): that move flushes or discards, and the rest of this pass
	 * acts on its state, not on Error.
	 */
	spin_lock_bh(&qp->state_lock);
	now = qp->state;
	spin_unlock_bh(&qp->state_lock);
	if (now != IB_QPS_ERR) {
		qp->view.state = now;
		return;
	}
	/* The cause first: Last WQE Reached (an SRQ's QP) comes with the flush. */
	if (event != SROCE_EVENT_NONE)
		sroce_qp_event(qp, event);
	sroce_rq_flush(qp);
	sroce_sq_error_flush(qp);
}

/**
 * sroce_qp_error() - move the QP to Error for an engine that hit a fatal error
 * @qp: the QP
 * @event: the asynchronous event to raise
 *
 * Both halves at once: sroce_qp_enter_error(), then sroce_qp_error_flush().
 * Context: the QP task.
 */
void sroce_qp_error(struct sroce_qp *qp, enum ib_event_type event)
{
	if (sroce_qp_enter_error(qp))
		sroce_qp_error_flush(qp, event);
}

/**
 * sroce_qp_enter_sqe() - a UD or UC QP's send queue hit a local error: SQE
 * @qp: the QP
 *
 * Called before the failed WQE's error completion is posted, so that a
 * consumer that sees it and moves the QP from SQE back to RTS at once
 * (ib_mad does, with IB_QP_CUR_STATE) finds the QP in SQE.  Every later
 * WQE then completes flushed (sroce_sq_error_flush(), once the completion
 * is posted), now and when posted, until that move; the receive queue
 * carries on (IBA 10.3.1).  An RC QP goes to Error instead
 * (sroce_qp_error()).
 * Context: the QP task.
 * Return: true if the QP was in RTS or SQD and is now in SQE.
 */
bool sroce_qp_enter_sqe(struct sroce_qp *qp)
{
	return sroce_qp_task_move(qp, IB_QPS_SQE);
}

/* An asynchronous event of @qp, for its owner.  Context: any. */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* SQD: the send queue drained (IBA 10.3.1 ... the SQ Drained event). */
void sroce_qp_sq_drained(struct sroce_qp *qp)
{
	sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/**
 * sroce_qp_snapshot() - copy the attributes a pass works with into qp->view
 * @qp: the QP
 *
 * Context: the QP task at the start of a pass, or qp.c with it stopped.
 */
void sroce_qp_snapshot(struct sroce_qp *qp)
{
	sroce_task_assert_owned(&qp->task);
	spin_lock_bh(&qp->state_lock);
	qp->view.av = qp->av;
	qp->view.dest_qpn = qp->dest_qpn;
	qp->view.access_flags = qp->access_flags;
	qp->view.qkey = qp->qkey;
	spin_unlock_bh(&qp->state_lock);
}

/*
 * The state becomes RTR only once the responder is ready and the task
 * started, so that a failure leaves the QP in INIT; RESET and ERR are
 * stored before the task is stopped, so that the receive path stops
 * feeding it.
 */
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_resp_res res = {};
	enum ib_qp_state cur, next;
	struct sroce_av av;
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/*
	 * From a pass of this QP's own task (an event handler calling back):
	 * the move would stop the task it runs in.
	 */
	if (READ_ONCE(qp->task.runner) == current)
		return -EBUSY;
	if (udata && (udata->inlen || udata->outlen))
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	cur = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = sroce_qp_check_attr(qp, attr, mask, cur, next, &av);
	if (err)
		goto out;
	/* What can fail is done before anything is stored: all or nothing. */
	if (next == IB_QPS_RTR && cur != IB_QPS_RTR) {
		err = sroce_resp_alloc(&res, (mask & IB_QP_MAX_DEST_RD_ATOMIC) ?
				       attr->max_dest_rd_atomic : qp->max_dest_rd_atomic);
		if (err)
			goto out;
	}

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != cur) {
		/* The responder moved the QP to ERR meanwhile. */
		spin_unlock_irqrestore(&qp->state_lock, flags);
		err = -EINVAL;
		goto out;
	}
	sroce_qp_store_attr(qp, attr, mask, &av);
	if (next != IB_QPS_RTR)
		WRITE_ONCE(qp->state, next);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (next == cur)
		goto out;
	switch (next) {
	case IB_QPS_RTR:
		/* Stopped since RESET already; from now on it is certain. */
		sroce_qp_quiesce(qp);
		sroce_resp_ready(qp, &res);
		qp->view.state = next;
		sroce_task_start(&qp->task);
		spin_lock_irqsave(&qp->state_lock, flags);
		WRITE_ONCE(qp->state, IB_QPS_RTR);
		spin_unlock_irqrestore(&qp->state_lock, flags);
		break;
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		sroce_qp_quiesce(qp);
		/* SQE -> RTS: a UD or UC QP's send queue starts again, empty. */
		if (cur == IB_QPS_RTR || cur == IB_QPS_SQE)
			sroce_sq_ready(qp);
		sroce_sq_set_draining(qp, next == IB_QPS_SQD);
		qp->view.state = next;	/* the cores are ready: the engines may act */
		sroce_task_start(&qp->task);
		/*
		 * A response or a timer expiry that came while the task was
		 * stopped queued its work or set its event, but its schedule
		 * found the task stopped: one pass picks them up.
		 */
		sroce_task_schedule(&qp->task);
		break;
	case IB_QPS_RESET:
	case IB_QPS_ERR:
		sroce_qp_quiesce(qp);
		qp->view.state = next;
		sroce_resp_stop(qp, next == IB_QPS_ERR);
		sroce_sq_stop(qp);
		if (next == IB_QPS_ERR) {
			/* Flush now, and the WQEs posted later on their doorbell. */
			sroce_sq_error_flush(qp);
			sroce_task_start(&qp->task);
			/*
			 * A kernel post that saw ERR before the start found
			 * the task stopped: this pass flushes what it posted.
			 */
			sroce_task_schedule(&qp->task);
		} else {
			sroce_sq_reset(qp);
			sroce_qp_discard_kernel_rings(qp);
		}
		break;
	default:
		break;
	}
out:
	mutex_unlock(&qp->modify_lock);
	kfree(res.res);		/* not taken: the call failed */
	return err;
}

/*
 * destroy: from now on the receive path drops the QP's packets (RESET is
 * stored first), then the task and the engines stop.
 */
void sroce_qp_kill(struct sroce_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	qp->state = IB_QPS_RESET;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	sroce_qp_quiesce(qp);
	qp->view.state = IB_QPS_RESET;
	sroce_resp_stop(qp, false);
	sroce_sq_stop(qp);
}
