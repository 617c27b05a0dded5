/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mw.c: memory windows (type 1 and 2B), and the rkey lookup that finds
 * an MR or a window.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <rdma/ib_verbs.h>

struct sroce_qp;
struct sroce_mr;

/* mw.c: an ib_mw; what lookups read is in its key, freed after RCU. */
struct sroce_mw_key;
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_mw_key *key;
};

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
u8 sroce_mw_local_op(struct sroce_qp *qp, u32 pos);
u8 sroce_mw_invalidate_rkey(struct sroce_qp *qp, u32 rkey);
void sroce_mw_qp_gone(struct sroce_qp *qp);
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, int access, u64 iova, u64 len,
				u64 *mr_va);

#endif /* SROCE_MW_H */
