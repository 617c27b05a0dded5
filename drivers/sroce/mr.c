// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains and memory regions: user MRs and the DMA MR of
 * kernel PDs, registration, key lookup for the engines, and the copies
 * and atomics they perform on MR memory.
 *
 * Keys: an MR's lkey and rkey are equal, (index << 8) | a random low byte,
 * where index (1..0xffffff) is its slot in sdev->mr_xa.  The slot is
 * reserved empty, then published with the MR fully initialised, so an RCU
 * lookup never sees a half-built MR.
 *
 * Lifetime: the registration holds the first reference in mr->refs;
 * sroce_mr_get() takes another under RCU (refcount_inc_not_zero) and
 * sroce_mr_put() drops it.  sroce_dereg_mr() erases the slot, drops the
 * registration's reference and waits for mr->released before unpinning
 * the pages; struct sroce_mr itself is freed after an RCU grace period,
 * because a lookup may still be reading it while its count is zero.
 *
 * The device uses virtual DMA, so the pinned pages are kernel-addressable
 * and mapped with kmap_local_page().  A DMA MR (get_dma_mr: a kernel PD's
 * local_dma_lkey, and its unsafe global rkey) spans the whole address
 * space: its iova is 0 and its addresses are the kernel virtual addresses
 * ib_dma_map_*() returns under virtual DMA.  Each page is looked up from
 * its address, and an address outside the direct map (a bad SGE, or a
 * peer's guess through the global rkey) fails the copy instead of being
 * dereferenced.  Atomics are serialised device-wide by sdev->atomic_lock.
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "dma.h"
#include "kunit_exports.h"

/* The access bits an MR keeps; IB_ACCESS_HUGETLB is only a hint. */
#define SROCE_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND)
#define SROCE_MR_ACCESS_ACCEPTED (SROCE_MR_ACCESS | IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

/* [iova, iova + len) lies inside the MR; len 0 may sit at its end. */
VISIBLE_IF_KUNIT bool sroce_mr_covers(const struct sroce_mr *mr, u64 iova, u64 len)
{
	return iova >= mr->iova && len <= mr->length &&
	       iova - mr->iova <= mr->length - len;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_covers);

/* Byte offset of @iova from the start of pages[0]. */
static u64 sroce_mr_offset(const struct sroce_mr *mr, u64 iova)
{
	return iova - mr->iova + mr->first_offset;
}

/*
 * The page holding MR byte @off (from the start of pages[0]; for a DMA MR
 * the kernel virtual address itself), or NULL if there is none.
 */
static struct page *sroce_mr_page(const struct sroce_mr *mr, u64 off)
{
	const void *va;

	if (mr->kind == SROCE_MR_USER)
		return mr->pages[off >> PAGE_SHIFT];
	va = (const void *)(uintptr_t)(off & PAGE_MASK);
	return virt_addr_valid(va) ? virt_to_page(va) : NULL;
}

/* Record the umem's pages, in order, in mr->pages. */
static int sroce_mr_fill_pages(struct sroce_mr *mr)
{
	struct sg_page_iter iter;
	unsigned long n = 0;

	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (n < mr->npages)
			mr->pages[n] = sg_page_iter_page(&iter);
		n++;
	}
	if (WARN_ON_ONCE(n != mr->npages)) {
		kvfree(mr->pages);
		return -EFAULT;
	}
	return 0;
}

/*
 * Give @mr its keys and make it visible to lookups: the slot is reserved
 * empty, so lookups find nothing until the MR is whole.
 */
static int sroce_mr_publish(struct sroce_dev *sdev, struct ib_pd *ibpd, struct sroce_mr *mr)
{
	u32 index, key;
	int err;

	refcount_set(&mr->refs, 1);
	init_completion(&mr->released);
	err = xa_alloc_cyclic(&sdev->mr_xa, &index, NULL,
			      XA_LIMIT(1, SROCE_KEY_INDEX_MAX), &sdev->mr_next, GFP_KERNEL);
	if (err < 0)
		return err;

	key = index << 8 | get_random_u8();
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;

	err = xa_err(xa_store(&sdev->mr_xa, index, mr, GFP_KERNEL));
	if (err) {
		xa_erase(&sdev->mr_xa, index);
		return err;
	}
	return 0;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				int access, SROCE_REG_MR_DMAH_PARAM struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (access & ~SROCE_MR_ACCESS_ACCEPTED)
		return ERR_PTR(-EOPNOTSUPP);
	if (sroce_reg_mr_dmah())
		return ERR_PTR(-EOPNOTSUPP);
	/* The copy and atomic paths rely on iova and start sharing a page offset. */
	if ((start ^ iova) & ~PAGE_MASK)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free_mr;
	}

	err = sroce_mr_fill_pages(mr);
	if (err)
		goto err_release_umem;

	mr->sdev = sdev;
	mr->kind = SROCE_MR_USER;
	mr->first_offset = ib_umem_offset(mr->umem);
	mr->iova = iova;
	mr->length = length;
	mr->access = access & SROCE_MR_ACCESS;

	err = sroce_mr_publish(sdev, ibpd, mr);
	if (err)
		goto err_free_pages;
	return &mr->ibmr;

err_free_pages:
	kvfree(mr->pages);
err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sroce_get_dma_mr() - ops.get_dma_mr: the DMA MR of a kernel PD
 * @ibpd: the PD
 * @access: IB_ACCESS_*; remote rights only for IB_PD_UNSAFE_GLOBAL_RKEY
 *
 * ib_core takes pd->local_dma_lkey (and the unsafe global rkey) from it,
 * since sroce has no device-wide local DMA lkey.
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int err;

	if (access & ~SROCE_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->sdev = to_sdev(ibpd->device);
	mr->kind = SROCE_MR_DMA;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->access = access;
	err = sroce_mr_publish(mr->sdev, ibpd, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_dev *sdev = mr->sdev;
	bool busy;

	/* A window bound onto it keeps it (IBA 10.6.7.2): unbind first. */
	spin_lock_bh(&sdev->mw_lock);
	busy = mr->num_mw;
	if (!busy)
		mr->dying = true;	/* no window binds onto it from now on */
	spin_unlock_bh(&sdev->mw_lock);
	if (busy)
		return -EBUSY;
	xa_erase(&mr->sdev->mr_xa, ibmr->lkey >> 8);
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);

	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
	return 0;
}

/*
 * Under RCU: @mr (an untagged entry of sdev->mr_xa, or NULL), referenced,
 * if it is the MR @key names, belongs to @pd, grants every bit of @access
 * and covers [iova, iova + len); otherwise NULL.  For a caller that has
 * loaded the entry already (sroce_rkey_get() of a window-or-MR key).
 */
struct sroce_mr *sroce_mr_ref(struct sroce_mr *mr, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len)
{
	if (!mr || mr->ibmr.rkey != key || mr->ibmr.pd != &pd->ibpd ||
	    (mr->access & access) != access || !sroce_mr_covers(mr, iova, len) ||
	    !refcount_inc_not_zero(&mr->refs))
		return NULL;
	return mr;
}

/* The MR named by @key, referenced, as sroce_mr_ref() checks it; or NULL. */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (xa_pointer_tag(mr))		/* a memory window's key (mw.c) */
		mr = NULL;
	mr = sroce_mr_ref(mr, pd, key, access, iova, len);
	rcu_read_unlock();
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->released);
}

/*
 * The one page walker: @len bytes of the MR at @iova, a page's piece at a
 * time, mapped.  With @buf, the bytes of @buf are stored into the MR;
 * without, they go between the MR and @skb at @skb_off, as @dir says.
 * Inlined into its two callers, so that the packet paths test no @buf.
 */
static __always_inline int sroce_mr_walk(struct sroce_mr *mr, u64 iova, u32 len,
					 struct sk_buff *skb, unsigned int skb_off,
					 const void *buf, enum sroce_copy_dir dir)
{
	u32 done = 0;
	u64 off;
	int err = 0;

	if (!sroce_mr_covers(mr, iova, len))
		return -EFAULT;

	off = sroce_mr_offset(mr, iova);
	while (len && !err) {
		unsigned int pgoff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - pgoff);
		struct page *page = sroce_mr_page(mr, off);
		void *va;

		if (!page)
			return -EFAULT;
		va = kmap_local_page(page);
		if (buf)
			memcpy(va + pgoff, (const u8 *)buf + done, n);
		else if (dir == SROCE_COPY_TO_MR)
			err = skb_copy_bits(skb, skb_off + done, va + pgoff, n);
		else
			err = skb_store_bits(skb, skb_off + done, va + pgoff, n);
		kunmap_local(va);
		done += n;
		off += n;
		len -= n;
	}
	return err;
}

/*
 * Copy @len bytes between the MR at @iova and @skb at @skb_off (relative
 * to skb->data; the bytes may be in its frags): into the MR for receive
 * placement (SROCE_COPY_TO_MR), out of it for READ response data
 * (SROCE_COPY_FROM_MR, into room the skb already has).
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, struct sk_buff *skb, unsigned int skb_off,
		  u32 len, enum sroce_copy_dir dir)
{
	return sroce_mr_walk(mr, iova, len, skb, skb_off, NULL, dir);
}

/* Store @len bytes of @buf at @iova (an ATOMIC's original value, locally). */
int sroce_mr_store(struct sroce_mr *mr, u64 iova, const void *buf, u32 len)
{
	return sroce_mr_walk(mr, iova, len, NULL, 0, buf, SROCE_COPY_TO_MR);
}

/*
 * Execute a responder atomic on the host-endian u64 at @iova; *@orig gets
 * the value found there.  An 8-byte aligned iova keeps the operand within
 * one page, since iova and the user address share their page offset.
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, u8 opcode, u64 compare_add, u64 swap,
		    u64 *orig)
{
	struct page *page;
	u64 off, value;
	void *va;
	u64 *p;

	if (opcode != SROCE_OP_CMP_SWAP && opcode != SROCE_OP_FETCH_ADD)
		return -EINVAL;
	if (iova & (sizeof(u64) - 1))
		return -EINVAL;
	if (!sroce_mr_covers(mr, iova, sizeof(u64)))
		return -EFAULT;

	off = sroce_mr_offset(mr, iova);
	page = sroce_mr_page(mr, off);
	if (!page)
		return -EFAULT;
	va = kmap_local_page(page);
	p = va + (off & ~PAGE_MASK);

	spin_lock_bh(&mr->sdev->atomic_lock);
	value = READ_ONCE(*p);
	if (opcode == SROCE_OP_FETCH_ADD)
		WRITE_ONCE(*p, value + compare_add);
	else if (value == compare_add)
		WRITE_ONCE(*p, swap);
	spin_unlock_bh(&mr->sdev->atomic_lock);

	kunmap_local(va);
	*orig = value;
	return 0;
}
