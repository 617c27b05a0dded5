/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cq.c: completion queues, user (a librxe ring) and kernel.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "compat.h"
#include "queue.h"

struct sroce_qp;

struct sroce_cq {
	struct ib_cq ibcq;
	/*
	 * lock guards queue (its producer index, and the ring itself, which
	 * resize replaces) and notify.  Taken with interrupts saved: CQEs are
	 * posted by QP tasks and by modify_qp's flush, resize_cq and
	 * req_notify_cq take it in process context.  Never held across
	 * comp_handler or event_handler.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u8 notify;			/* 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED */
	/*
	 * Fixed at create: a kernel CQ's slots hold a struct ib_wc, which
	 * poll_cq copies out under lock; a user CQ's a struct ib_uverbs_wc.
	 */
	bool is_kernel;
	u32 cqe_size;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_ctx *ctx);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
u8 sroce_cq_arm(u8 notify, enum ib_cq_notify_flags flags);
bool sroce_cq_fires(u8 *notify, bool solicited, bool error);
int sroce_cq_post_hdr(struct sroce_cq *cq, struct sroce_qp *qp, const struct ib_uverbs_wc *wc,
		      bool solicited, u8 network_hdr_type);
/* A CQE with no network header type (all but UD receives). */
static inline int sroce_cq_post(struct sroce_cq *cq, struct sroce_qp *qp,
				const struct ib_uverbs_wc *wc, bool solicited)
{
	return sroce_cq_post_hdr(cq, qp, wc, solicited, 0);
}

int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);

#endif /* SROCE_CQ_H */
