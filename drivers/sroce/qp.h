/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qp.c: queue pairs: create, query, destroy, the doorbell; qp_state.c:
 * their state, modify_qp and events; kverbs.c: the work queue front end
 * of kernel QPs.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include "av.h"
#include "queue.h"
#include "resp.h"
#include "sq.h"
#include "task.h"

struct sroce_dev;
struct sroce_pd;
struct sroce_cq;
struct sroce_srq;

/*
 * The attributes a pass of the QP task works with, copied from the QP's
 * under state_lock when the pass starts (sroce_qp_snapshot()), so that
 * transmit and access checks take no lock per packet.
 */
struct sroce_qp_view {
	/*
	 * The state as the engines act on it: set with qp->state by the
	 * task's own moves (sroce_qp_enter_error(), sroce_qp_enter_sqe()),
	 * and by modify_qp and destroy once they have stopped the task and
	 * readied the engines for the new state (a pass before that acts on
	 * the old one, as the engines are not ready).  Owned by the task.
	 */
	enum ib_qp_state state;
	struct sroce_av av;
	u32 dest_qpn;
	int access_flags;
	u32 qkey;
};

struct sroce_qp {
	struct ib_qp ibqp;
	/* Fixed from create to destroy. */
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_srq *srq;
	struct sroce_queue sq;
	u32 sq_max_sge;
	u32 sq_max_inline;
	u32 rq_max_sge;
	enum ib_sig_type sq_sig_type;
	/*
	 * A kernel QP (created with no udata): its rings are kernel rings
	 * (queue.c) that post_send and post_recv fill under sq_lock and
	 * rq_lock, taken with interrupts saved, from any context.  A post only
	 * queues and schedules the task (kverbs.c).
	 */
	bool is_kernel;
	spinlock_t sq_lock;		/* a kernel SQ's client (producer) side */
	spinlock_t rq_lock;		/* a kernel RQ's client (producer) side */
	/* Owned by the QP task: the RQ's consumer index (unused with an SRQ). */
	struct sroce_queue rq;
	/*
	 * Serialises modify_qp calls (process context), so a transition is
	 * checked against the state it is applied to.  Held across the task
	 * stop and start and the engine hooks between them.
	 */
	struct mutex modify_lock;
	/*
	 * state_lock guards state and every attribute from state to
	 * max_dest_rd_atomic.  Writers (qp_state.c only): modify_qp and
	 * destroy, in process context with interrupts saved, and the task's
	 * moves to Error and SQE with BHs off.  Readers: recv.c in softirq (state and av,
	 * held across queueing the packet), query_qp, sroce_qp_snapshot() at
	 * the start of a pass.  Under modify_lock, modify_qp and the engine
	 * hooks it calls may read the attributes without state_lock: only
	 * modify_qp writes them.
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct sroce_av av;
	u32 dest_qpn;
	u32 path_mtu;			/* bytes */
	u32 rq_psn;
	u32 sq_psn;
	int access_flags;		/* IB_ACCESS_REMOTE_* */
	u32 qkey;			/* UD: IB_QP_QKEY */
	u8 min_rnr_timer;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	/*
	 * The initiator and responder depths exactly as modify_qp set them,
	 * as query_qp reports them.  The requester keeps to max_rd_atomic
	 * (IBA 9.7.6.1, SROCE_SQR_ORD; stock rxe rounds it up to a power of
	 * two: set to 3, it has 4 READs on the wire); the responder's
	 * resources are rounded up (resp.c).
	 * 0 acts as 1, as in rxe (sroce_rd_atomic_use()).
	 */
	u32 max_rd_atomic;
	u32 max_dest_rd_atomic;
	/* Owned by the QP task, refreshed at the start of each pass. */
	struct sroce_qp_view view;
	/*
	 * The route of view.av.  Per CPU: used by the QP task with BHs off
	 * (tx.c); modify_qp invalidates it with dst_cache_reset(), which is
	 * safe against a concurrent user.
	 */
	struct dst_cache dst_cache;
	struct sroce_task task;		/* its lock: see task.h */
	struct sroce_resp resp;
	struct sroce_sqs sqs;		/* requester and completer; rxq and timers see sq.h */
	refcount_t refs;		/* lookups from the receive path (atomic) */
	struct completion released;
	/*
	 * Its packets in the IP stack (tx.c's, which each of them holds
	 * instead of the QP): the requester stops at SROCE_TX_INFLIGHT_HIGH
	 * rather than overrun the qdisc (sroce_tx_full()), and is scheduled
	 * again at ..._LOW.
	 */
	struct sroce_tx_flow *tx_flow;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/* A UD QP (GSI is one too): datagrams, no connection. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline bool sroce_qp_is_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

/*
 * UD and UC: nothing is acknowledged, and a local send error moves the
 * QP to SQE, not Error (IBA 10.3.1).
 */
static inline bool sroce_qp_unreliable(const struct sroce_qp *qp)
{
	return sroce_qp_is_ud(qp) || sroce_qp_is_uc(qp);
}

/*
 * What each QP state allows (IBA 10.3.1), the one list of them.  Send
 * posts: from RTS on (in SQE and Error they complete flushed).
 */
static inline bool sroce_state_takes_posts(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD || state == IB_QPS_SQE ||
	       state == IB_QPS_ERR;
}

/* The requester sends, so the QP takes responses: RTS and SQD. */
static inline bool sroce_state_sends(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD;
}

/* Every send WQE completes flushed: Error, and SQE (a UD or UC QP). */
static inline bool sroce_state_flushes_sq(enum ib_qp_state state)
{
	return state == IB_QPS_ERR || state == IB_QPS_SQE;
}

/* The responder takes requests: RTR and after, but Error. */
static inline bool sroce_state_takes_requests(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE;
}

/* An initiator or responder depth as the engines use it: 0 acts as 1. */
static inline u32 sroce_rd_atomic_use(u32 depth)
{
	return max_t(u32, depth, 1);
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
/* sroce_qp_error() without an affiliated event: an error completion says it. */
#define SROCE_EVENT_NONE ((enum ib_event_type)-1)
void sroce_qp_error(struct sroce_qp *qp, enum ib_event_type event);
bool sroce_qp_enter_error(struct sroce_qp *qp);
void sroce_qp_error_flush(struct sroce_qp *qp, enum ib_event_type event);
void sroce_qp_snapshot(struct sroce_qp *qp);
/* qp_state.c: the task's pass, and destroy's stop */
bool sroce_qp_pass(void *arg);
void sroce_qp_kill(struct sroce_qp *qp);
void sroce_qp_put(struct sroce_qp *qp);
void sroce_qp_sq_drained(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
bool sroce_qp_enter_sqe(struct sroce_qp *qp);

/* kverbs.c: the work queue front end of kernel QPs */
int sroce_post_send_kernel(struct sroce_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#endif /* SROCE_QP_H */
