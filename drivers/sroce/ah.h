/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ah.c: address handles, looked up by number under RCU.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include "av.h"
#include "params.h"

struct sroce_pd;
struct sroce_dev;

/*
 * What a UD send takes from an address handle: its path, copied into
 * each WQE when the requester fetches it (wqe.c), looked up by number
 * under RCU.  Separate from the struct ib_ah, which ib_core frees as soon
 * as destroy_ah returns, so a lookup racing the destroy reads memory that
 * an RCU grace period keeps.
 */
struct sroce_ah_av {
	struct sroce_av av;
	const struct sroce_pd *pd;	/* compared only: a WQE's AH must be its QP's PD's */
	struct rcu_head rcu;
};

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_ah_av *av;
	u32 ah_num;			/* 1..SROCE_MAX_AH: librxe's WQEs name the AH by it */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_ah_lookup(struct sroce_dev *sdev, u32 ah_num, const struct sroce_pd *pd,
		    struct sroce_av *av);

#endif /* SROCE_AH_H */
