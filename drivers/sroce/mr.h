/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr.c: protection domains and memory regions (user and DMA), their
 * lookup by key, copies and atomics.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include "compat.h"

struct sk_buff;
struct sroce_dev;

struct sroce_pd {
	struct ib_pd ibpd;
};

/*
 * USER: pinned user pages.  DMA (get_dma_mr): the kernel's own memory,
 * addressed by the kernel virtual addresses that virtual DMA hands out
 * (ib_dma_map_*()); every address is checked against the direct map.
 */
enum sroce_mr_kind {
	SROCE_MR_USER,
	SROCE_MR_DMA,
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_dev *sdev;
	enum sroce_mr_kind kind;
	struct ib_umem *umem;
	struct page **pages;		/* the umem's pages, in order */
	unsigned long npages;
	unsigned int first_offset;	/* iova's offset in pages[0] */
	u64 iova;
	u64 length;
	int access;			/* IB_ACCESS_* */
	refcount_t refs;		/* lookups from the QP tasks */
	u32 num_mw;			/* windows bound onto it (sdev->mw_lock) */
	bool dying;			/* being deregistered: no window binds (mw_lock) */
	struct completion released;	/* refs reached zero */
	struct rcu_head rcu;
};

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				int access, SROCE_REG_MR_DMAH_PARAM struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len);
struct sroce_mr *sroce_mr_ref(struct sroce_mr *mr, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len);
void sroce_mr_put(struct sroce_mr *mr);
enum sroce_copy_dir {
	SROCE_COPY_TO_MR,	/* skb -> MR */
	SROCE_COPY_FROM_MR,	/* MR -> skb */
};

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, struct sk_buff *skb, unsigned int skb_off,
		  u32 len, enum sroce_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, u8 opcode, u64 compare_add, u64 swap,
		    u64 *orig);

#endif /* SROCE_MR_H */
