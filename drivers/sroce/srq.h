/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srq.c: shared receive queues.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include "queue.h"

struct sroce_pd;

struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_pd *pd;
	/*
	 * lock guards queue (its consumer index, and the ring itself, which
	 * resize replaces) and limit.  Taken with interrupts saved, by the
	 * responder stages of every QP using the SRQ and by modify/query_srq.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u32 limit;
	u32 max_sge;			/* fixed at create, as srq_num */
	u32 srq_num;
	/*
	 * Fixed at create: a kernel SRQ's ring is a kernel ring that
	 * post_srq_recv fills under lock (kverbs.c).
	 */
	bool is_kernel;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type);

#endif /* SROCE_SRQ_H */
