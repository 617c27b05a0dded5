/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copy cursor (dma.c): one walker over a WQE's SGE list, in either
 * direction, for every data path: receive placement and READ response
 * scatter (into the SGEs' MRs), request gather (out of them).
 */
#ifndef SROCE_DMA_H
#define SROCE_DMA_H

#include <linux/types.h>
#include <rdma/rdma_user_rxe.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pd;
struct sroce_mr;

/*
 * A position in a message laid over an SGE list.  The MR of the SGE under
 * the cursor stays referenced, so the packets of one message look it up
 * once; sroce_cursor_put() drops it, at the latest when the QP task's
 * pass ends, so that dereg_mr never waits on a WQE that waits on the
 * network.  Owned by the QP task, like the WQE it walks.
 */
struct sroce_cursor {
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	const struct rxe_sge *sge;	/* kernel copy of the list */
	u32 num_sge;
	int access;			/* IB_ACCESS_* each MR must grant */
	u32 idx;			/* SGE under the cursor */
	u32 off;			/* offset in it */
	u32 pos;			/* offset in the message */
	struct sroce_mr *mr;		/* MR of sge[idx], or NULL */
};

void sroce_cursor_init(struct sroce_cursor *c, struct sroce_dev *sdev, struct sroce_pd *pd,
		       const struct rxe_sge *sge, u32 num_sge, int access);
int sroce_cursor_copy(struct sroce_cursor *c, u32 pos, struct sk_buff *skb,
		      unsigned int skb_off, u32 len, int dir);
int sroce_cursor_write(struct sroce_cursor *c, u32 pos, const void *buf, u32 len);
void sroce_cursor_put(struct sroce_cursor *c);

/* mr.c: the page walk of sroce_cursor_write(). */
int sroce_mr_store(struct sroce_mr *mr, u64 iova, const void *buf, u32 len);

#endif /* SROCE_DMA_H */
