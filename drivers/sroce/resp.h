/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resp.c: the responder shim around the responder core; ud.c and uc.c:
 * the UD and UC responder stages.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <sroce/core_abi.h>
#include <sroce/uc_abi.h>
#include "dma.h"
#include "params.h"

struct sroce_qp;
struct sroce_pkt;

/* A receive WQE copied out of the RQ/SRQ ring and validated. */
struct sroce_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;			/* sum of the SGE lengths */
	struct rxe_sge sge[SROCE_MAX_SGE];
};

/*
 * The responder.  rxq is the only part that other contexts touch; the
 * rest is owned by the QP task.
 */
struct sroce_resp {
	const struct sroce_resp_ops *ops;	/* fixed at create */
	/*
	 * Request packets waiting for the QP task, each holding a QP
	 * reference.  rxq.lock guards the list: recv.c appends under
	 * qp->state_lock in softirq; the task's responder stage takes a batch
	 * off with BHs off; qp.c purges it with the task stopped.
	 */
	struct sk_buff_head rxq;
	/* Owned by the QP task from here on. */
	struct sroce_resp_qp core;	/* the C++ core's state */
	struct sroce_rd_res *res;	/* max_dest_rd_atomic entries */
	u32 nres;
	struct sroce_resp_stats seen;	/* core counters already added to the device */
	/* The message being received (multi-packet SEND or WRITE). */
	bool have_wqe;
	struct sroce_recv_wqe wqe;
	struct sroce_cursor place;	/* over wqe.sge, while have_wqe */
	/*
	 * The message's length so far: a SEND's bytes placed (where the next
	 * packet's go), a WRITE_IMM's DMA length; the receive CQE's byte_len.
	 */
	u32 msg_len;
	u64 write_va;			/* next WRITE address */
	u32 write_rkey;
	u32 write_resid;
	struct sroce_uc_state uc;	/* a UC QP's receive state (uc.c) */
};

/*
 * resp.c: the responder shim.  sroce_resp_run() is the QP task's
 * responder stage; qp_state.c calls ready and stop with the task stopped,
 * and rq.c's sroce_rq_flush() either so or from the task
 * (sroce_qp_error()).
 */
void sroce_resp_create(struct sroce_qp *qp);
/* Responder resources, allocated before the QP enters RTR. */
struct sroce_resp_res {
	struct sroce_rd_res *res;
	u32 n;
};

int sroce_resp_alloc(struct sroce_resp_res *r, u32 depth);
/* The QP enters RTR: (re)initialise the core, taking @r's resources. */
void sroce_resp_ready(struct sroce_qp *qp, struct sroce_resp_res *r);
void sroce_resp_stop(struct sroce_qp *qp, bool flush);	/* RESET/ERR/destroy: purge [, flush] */
void sroce_resp_destroy(struct sroce_qp *qp);
int sroce_resp_enqueue(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_resp_run(struct sroce_qp *qp);

/* The RC responder's placement, which UD (SEND data) and UC use too. */
int sroce_resp_send_data(struct sroce_qp *qp, struct sk_buff *skb, u8 xf);
int sroce_resp_exec_write(struct sroce_qp *qp, struct sk_buff *skb, u8 xf);

/*
 * A transport's part of the one responder loop (sroce_resp_run()), chosen
 * by the QP type at create: @begin and @end around a batch (optional),
 * @one per request packet of it.
 */
struct sroce_resp_ops {
	void (*begin)(struct sroce_qp *qp, struct sk_buff_head *batch);
	void (*one)(struct sroce_qp *qp, struct sk_buff *skb);
	void (*end)(struct sroce_qp *qp);
};

extern const struct sroce_resp_ops sroce_ud_resp_ops;	/* ud.c */
extern const struct sroce_resp_ops sroce_uc_resp_ops;	/* uc.c */

/* rq.c: the receive queue layer (RQ or SRQ) of every transport's responder */
int sroce_rq_fetch(struct sroce_qp *qp, struct sroce_recv_wqe *w);
void sroce_rq_release(struct sroce_qp *qp);
void sroce_rq_cqe(struct sroce_qp *qp, enum ib_wc_status status, u32 opcode, u32 byte_len,
		  const struct sroce_pkt *pkt);
void sroce_rq_flush(struct sroce_qp *qp);

#endif /* SROCE_RESP_H */
