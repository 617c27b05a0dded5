// SPDX-License-Identifier: GPL-2.0
/*
 * The rings shared with librxe (struct rxe_queue_buf) and their mmap.
 *
 * Invariants:
 * - The header is user-writable.  The kernel writes log2_elem_size and
 *   index_mask once, at init, and works from its private copies in
 *   struct sroce_queue; every index read from the header is masked.
 * - Indices are stored masked.  One slot always stays empty: the ring is
 *   empty when producer == consumer, full when producer + 1 == consumer.
 * - The side that owns an index fills or drains its slots first and then
 *   publishes the index with smp_store_release(); the peer's index is read
 *   with smp_load_acquire().  FROM_CLIENT rings (SQ, RQ, SRQ): the kernel
 *   owns consumer_index.  TO_CLIENT rings (CQ): it owns producer_index.
 * - A user ring's buffer belongs to its rdma_user_mmap_entry:
 *   sroce_queue_cleanup() only removes the entry, and the buffer is freed
 *   by ops.mmap_free once no mmap() of it is in progress.  A live user
 *   mapping holds its own references to the pages (remap_vmalloc_range()).
 * - A kernel ring (sroce_queue_init_kernel()) has the same header and
 *   slots and no mmap entry; its client is a ULP in the kernel, through
 *   the sroce_queue_client_*() calls, and sroce_queue_cleanup() frees it.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "sroce.h"

/*
 * Bounds on the request: they keep the size computation from overflowing
 * before the real limit, the 32-bit mminfo.size, is checked.
 */
#define SROCE_QUEUE_MAX_SLOTS	BIT(31)
#define SROCE_QUEUE_MAX_ELEM	BIT(31)

static void *queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)index << q->log2_elem_size);
}

/* A ring's shape: slot stride and count, and its bytes with the header. */
struct sroce_queue_geom {
	unsigned long stride;
	u32 num_slots;
	u64 size;
};

/* The ring for @num_elem slots of @elem_size bytes. */
static int sroce_queue_geometry(u32 num_elem, size_t elem_size, struct sroce_queue_geom *g)
{
	if (!num_elem || num_elem >= SROCE_QUEUE_MAX_SLOTS ||
	    !elem_size || elem_size > SROCE_QUEUE_MAX_ELEM)
		return -EINVAL;

	g->stride = roundup_pow_of_two(max_t(size_t, elem_size, cache_line_size()));
	g->num_slots = roundup_pow_of_two(num_elem + 1);
	g->size = sizeof(struct rxe_queue_buf) + ((u64)g->num_slots << ilog2(g->stride));
	if (PAGE_ALIGN(g->size) > U32_MAX)
		return -ENOMEM;
	return 0;
}

static void sroce_queue_setup(struct sroce_queue *q, struct rxe_queue_buf *buf,
			      struct sroce_mmap_entry *mmap, const struct sroce_queue_geom *g)
{
	q->buf = buf;
	q->mmap = mmap;
	q->log2_elem_size = ilog2(g->stride);
	q->index_mask = g->num_slots - 1;
	q->cons = 0;		/* and prod: one index */
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;
}

/**
 * sroce_queue_init() - allocate a ring and make it mmap()able by @uctx
 * @uctx: the user context that will map the ring; NULL for a kernel
 *	consumer's ring (sroce_queue_init_kernel(), @mi untouched)
 * @q: the ring to initialise
 * @num_elem: in: the slots wanted; out: the usable capacity (>= in)
 * @elem_size: bytes each slot must hold
 * @mi: filled with the offset and size librxe passes to mmap()
 *
 * Return: 0, -EINVAL for an impossible geometry, or -ENOMEM.
 */
int sroce_queue_init(struct ib_ucontext *uctx, struct sroce_queue *q, u32 *num_elem,
		     size_t elem_size, struct mminfo *mi)
{
	struct sroce_queue_geom g;
	struct sroce_mmap_entry *e;
	int err;

	if (!uctx)
		return sroce_queue_init_kernel(q, num_elem, elem_size);
	err = sroce_queue_geometry(*num_elem, elem_size, &g);

	if (err)
		return err;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->size = g.size;
	e->buf = vmalloc_user(e->size);
	if (!e->buf) {
		err = -ENOMEM;
		goto err_free_entry;
	}

	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, PAGE_ALIGN(e->size));
	if (err)
		goto err_free_buf;

	sroce_queue_setup(q, e->buf, e, &g);
	mi->offset = rdma_user_mmap_get_offset(&e->rdma);
	mi->size = e->size;
	mi->pad = 0;
	*num_elem = g.num_slots - 1;
	return 0;

err_free_buf:
	vfree(e->buf);
err_free_entry:
	kfree(e);
	return err;
}

/**
 * sroce_queue_init_kernel() - allocate a ring for a kernel consumer
 * @q: the ring to initialise
 * @num_elem: in: the slots wanted; out: the usable capacity (>= in)
 * @elem_size: bytes each slot must hold
 *
 * The same ring as sroce_queue_init()'s, with no mmap entry: the client's
 * side (a ULP's post or poll) uses the sroce_queue_client_*() calls.
 *
 * Return: 0, -EINVAL for an impossible geometry, or -ENOMEM.
 */
int sroce_queue_init_kernel(struct sroce_queue *q, u32 *num_elem, size_t elem_size)
{
	struct sroce_queue_geom g;
	struct rxe_queue_buf *buf;
	int err = sroce_queue_geometry(*num_elem, elem_size, &g);

	if (err)
		return err;
	buf = vzalloc(g.size);
	if (!buf)
		return -ENOMEM;
	sroce_queue_setup(q, buf, NULL, &g);
	*num_elem = g.num_slots - 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_init_kernel);

/**
 * sroce_queue_cleanup() - give up the kernel's use of a ring
 * @q: the ring; its buffer must not be touched afterwards
 *
 * A user ring: no new mmap() of it can start, and its buffer is freed
 * through sroce_mmap_free() when the last reference to its entry goes.  A
 * kernel ring (sroce_queue_init_kernel()) is freed here.  A zeroed (never
 * initialised) or already cleaned-up @q is left alone.
 */
void sroce_queue_cleanup(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_cleanup);

/* FROM_CLIENT: the number of slots the user has produced and we have not popped. */
u32 sroce_queue_count(const struct sroce_queue *q)
{
	/* Pairs with the user's release of producer_index: its slots are written. */
	u32 prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;

	return (prod - q->cons) & q->index_mask;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_count);

/*
 * FROM_CLIENT: the oldest unconsumed slot, or NULL if there is none.  The
 * slot stays user-writable: callers copy it out before validating it.
 */
void *sroce_queue_head(struct sroce_queue *q)
{
	return sroce_queue_count(q) ? queue_slot(q, q->cons) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_head);

/*
 * FROM_CLIENT: the unconsumed slot @n places after the head, or NULL if
 * the user has not produced it.  Like the head, it stays user-writable.
 */
void *sroce_queue_peek(struct sroce_queue *q, u32 n)
{
	return n < sroce_queue_count(q) ? queue_slot(q, (q->cons + n) & q->index_mask) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_peek);

/* FROM_CLIENT: the ring's slot count (a power of two; one stays empty). */
u32 sroce_queue_slots(const struct sroce_queue *q)
{
	return q->index_mask + 1;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_slots);

/* FROM_CLIENT: release the head slot to the user. */
void sroce_queue_pop(struct sroce_queue *q)
{
	q->cons = (q->cons + 1) & q->index_mask;
	/* Our reads of the slot are done before the user may reuse it. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_pop);

/* TO_CLIENT: the next free slot, or NULL if the ring is full. */
void *sroce_queue_tail(struct sroce_queue *q)
{
	/* Pairs with the user's release of consumer_index: its reads are done. */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->index_mask;

	if (((q->prod + 1) & q->index_mask) == cons)
		return NULL;
	return queue_slot(q, q->prod);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_tail);

/* TO_CLIENT: publish the slot returned by sroce_queue_tail(). */
void sroce_queue_push(struct sroce_queue *q)
{
	q->prod = (q->prod + 1) & q->index_mask;
	/* The slot is written before the user can see it. */
	smp_store_release(&q->buf->producer_index, q->prod);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_push);

/*
 * The client's side of a kernel ring (sroce_queue_init_kernel()): a ULP's
 * post_send and post_recv produce into FROM_CLIENT rings, its poll_cq
 * consumes from a TO_CLIENT ring, under the ULP-facing lock of that ring.
 * The client's index lives in the header, where a user's would; only the
 * client writes it, and it is masked anyway.
 */

/* FROM_CLIENT: the next free slot for the client to fill, or NULL if full. */
void *sroce_queue_client_tail(struct sroce_queue *q)
{
	u32 prod = READ_ONCE(q->buf->producer_index) & q->index_mask;
	/* Pairs with sroce_queue_pop(): the kernel's reads of the slot are done. */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->index_mask;

	if (((prod + 1) & q->index_mask) == cons)
		return NULL;
	return queue_slot(q, prod);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_client_tail);

/* FROM_CLIENT: publish the slot sroce_queue_client_tail() returned. */
void sroce_queue_client_push(struct sroce_queue *q)
{
	u32 prod = (READ_ONCE(q->buf->producer_index) + 1) & q->index_mask;

	/* The slot is written before the kernel can see it. */
	smp_store_release(&q->buf->producer_index, prod);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_client_push);

/* TO_CLIENT: the oldest slot produced and not consumed, or NULL if none. */
void *sroce_queue_client_head(struct sroce_queue *q)
{
	u32 cons = READ_ONCE(q->buf->consumer_index) & q->index_mask;
	/* Pairs with sroce_queue_push(): the slot is written. */
	u32 prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;

	return prod == cons ? NULL : queue_slot(q, cons);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_client_head);

/* TO_CLIENT: release the slot sroce_queue_client_head() returned. */
void sroce_queue_client_pop(struct sroce_queue *q)
{
	u32 cons = (READ_ONCE(q->buf->consumer_index) + 1) & q->index_mask;

	/* The client's reads of the slot are done before the kernel reuses it. */
	smp_store_release(&q->buf->consumer_index, cons);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_client_pop);

/*
 * A kernel ring emptied, for a QP's move to RESET: what the client posted
 * and the kernel did not take is discarded.  The caller holds the client's
 * lock and owns the kernel's side (the QP task is stopped).
 */
void sroce_queue_client_reset(struct sroce_queue *q)
{
	q->cons = 0;
	WRITE_ONCE(q->buf->producer_index, 0);
	WRITE_ONCE(q->buf->consumer_index, 0);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_client_reset);

/* ops.mmap: map a ring at the offset sroce_queue_init() returned. */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct sroce_mmap_entry *e;
	int err;

	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;
	e = container_of(rdma, struct sroce_mmap_entry, rdma);

	if (vma->vm_end - vma->vm_start > PAGE_ALIGN(e->size))
		err = -EINVAL;
	else
		err = remap_vmalloc_range(vma, e->buf, 0);

	rdma_user_mmap_entry_put(rdma);
	return err;
}

/* ops.mmap_free: the entry's last reference is gone. */
void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap_entry *e = container_of(entry, struct sroce_mmap_entry, rdma);

	vfree(e->buf);
	kfree(e);
}
