/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.c: the rings a QP, CQ or SRQ shares with librxe (struct
 * rxe_queue_buf), and kernel rings of the same layout.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct vm_area_struct;

/* A ring buffer's mmap entry; the buffer is freed when both the object
 * and every user mapping are gone (ops.mmap_free).
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;			/* vmalloc_user() */
	size_t size;
};

/*
 * One ring.  The header in buf is user-writable: the kernel keeps its own
 * copies of the geometry and of its own index, and masks every index it
 * reads from the header.  FROM_CLIENT rings (SQ, RQ, SRQ): the kernel is
 * the consumer; TO_CLIENT rings (CQ): the kernel is the producer.
 */
struct sroce_queue {
	struct rxe_queue_buf *buf;
	struct sroce_mmap_entry *mmap;
	u32 log2_elem_size;
	u32 index_mask;
	union {				/* the kernel's own index, by its role: */
		u32 cons;		/* FROM_CLIENT: the consumer index */
		u32 prod;		/* TO_CLIENT: the producer index */
	};
};

int sroce_queue_init(struct ib_ucontext *uctx, struct sroce_queue *q, u32 *num_elem,
		     size_t elem_size, struct mminfo *mi);
void sroce_queue_cleanup(struct sroce_queue *q);
u32 sroce_queue_count(const struct sroce_queue *q);	/* FROM_CLIENT: slots ready */
void *sroce_queue_head(struct sroce_queue *q);		/* FROM_CLIENT: next slot or NULL */
void sroce_queue_pop(struct sroce_queue *q);		/* FROM_CLIENT: release head */
void *sroce_queue_peek(struct sroce_queue *q, u32 n);	/* FROM_CLIENT: n after head, or NULL */
u32 sroce_queue_slots(const struct sroce_queue *q);
void *sroce_queue_tail(struct sroce_queue *q);		/* TO_CLIENT: free slot or NULL */
void sroce_queue_push(struct sroce_queue *q);		/* TO_CLIENT: publish tail */
int sroce_queue_init_kernel(struct sroce_queue *q, u32 *num_elem, size_t elem_size);
void *sroce_queue_client_tail(struct sroce_queue *q);	/* kernel FROM_CLIENT: free slot */
void sroce_queue_client_push(struct sroce_queue *q);	/* kernel FROM_CLIENT: publish it */
void *sroce_queue_client_head(struct sroce_queue *q);	/* kernel TO_CLIENT: next slot */
void sroce_queue_client_pop(struct sroce_queue *q);	/* kernel TO_CLIENT: release it */
void sroce_queue_client_reset(struct sroce_queue *q);	/* kernel: empty the ring */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SROCE_QUEUE_H */
