// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: alloc_mw/dealloc_mw, the BIND_MW and LOCAL_INV work
 * requests the requester hands out as local operations, the remote
 * invalidation of a SEND with Invalidate, and remote access through a
 * window's R_Key.  The core (include/sroce/mw_abi.h) decides each; this
 * file looks things up and carries the verdicts out.
 *
 * Keys: a window takes its index from the MRs' key space (sdev->mr_xa),
 * stored as a tagged entry (SROCE_KEY_MW), so one R_Key names either an
 * MR or a window.  What a lookup reads lives in struct sroce_mw_key, which
 * sroce allocates and frees after an RCU grace period (ib_core frees the
 * ib_mw itself at once).  Its fields change under key->lock only.
 *
 * A bound window counts on its MR (mr->num_mw, under sdev->mw_lock),
 * which refuses to be deregistered meanwhile (-EBUSY); a lookup through
 * the window takes an ordinary MR reference for the access.
 *
 * Binds and local invalidations run in the QP task; remote invalidations
 * in the receiving QP's task; dealloc_mw in process context.
 */
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <sroce/mw_abi.h>

#include "sroce.h"
#include "sq.h"

/* The xarray tag of a window's entry in sdev->mr_xa (an MR's is 0). */
#define SROCE_KEY_MW 1

/* The core's SROCE_MWA_* bits are IB_ACCESS_*: KUnit's mw_names_test checks. */
struct sroce_mw_key {
	spinlock_t lock;		/* guards every field below */
	u8 type;			/* 1 or 2 */
	u8 state;			/* enum sroce_mw_state */
	u32 rkey;			/* the window's key now */
	struct ib_pd *pd;
	struct sroce_mr *mr;		/* bound onto (counted in mr->num_mw), or NULL */
	u64 addr;
	u64 length;
	u32 access;			/* SROCE_MWA_* granted */
	u32 qpn;			/* type 2: the QP it is bound to */
	/*
	 * Deallocated: a bind that looked it up just before must not bind it
	 * again (its count on the MR would never be dropped).
	 */
	bool dead;
	struct rcu_head rcu;
};

static struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

/* The window key of the mr_xa entry @entry, or NULL (an MR, or nothing).  Under RCU. */
static struct sroce_mw_key *sroce_mw_key_of(void *entry)
{
	if (!entry || xa_pointer_tag(entry) != SROCE_KEY_MW)
		return NULL;
	return xa_untag_pointer(entry);
}

/* The window @rkey's index names, or NULL.  Under RCU. */
static struct sroce_mw_key *sroce_mw_lookup(struct sroce_dev *sdev, u32 rkey)
{
	return sroce_mw_key_of(xa_load(&sdev->mr_xa, rkey >> 8));
}

/* @mr gains a window, unless it is being deregistered. */
static bool sroce_mr_hold_mw(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	bool ok;

	spin_lock_bh(&sdev->mw_lock);
	ok = !mr->dying;
	if (ok)
		mr->num_mw++;
	spin_unlock_bh(&sdev->mw_lock);
	return ok;
}

static void sroce_mr_drop_mw(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	if (!mr)
		return;
	spin_lock_bh(&sdev->mw_lock);
	mr->num_mw--;
	spin_unlock_bh(&sdev->mw_lock);
}

/*
 * Under key->lock: the window goes free, covering nothing.  Returns the
 * MR it was bound onto, for sroce_mr_drop_mw() once the lock is dropped.
 */
static struct sroce_mr *sroce_mw_unbind(struct sroce_mw_key *key)
{
	struct sroce_mr *mr = key->mr;

	key->mr = NULL;
	key->state = SROCE_MW_FREE;
	key->addr = 0;
	key->length = 0;
	key->access = 0;
	key->qpn = 0;
	return mr;
}

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	struct sroce_mw_key *key;
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	key = kzalloc(sizeof(*key), GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	spin_lock_init(&key->lock);
	key->type = ibmw->type == IB_MW_TYPE_1 ? 1 : 2;
	/* Type 1 starts valid and covering nothing; type 2 starts free. */
	key->state = key->type == 1 ? SROCE_MW_VALID : SROCE_MW_FREE;
	key->pd = ibmw->pd;
	err = xa_alloc_cyclic(&sdev->mr_xa, &index, NULL, XA_LIMIT(1, SROCE_KEY_INDEX_MAX),
			      &sdev->mr_next, GFP_KERNEL);
	if (err < 0)
		goto err_free;
	key->rkey = index << 8 | get_random_u8();
	err = xa_err(xa_store(&sdev->mr_xa, index, xa_tag_pointer(key, SROCE_KEY_MW), GFP_KERNEL));
	if (err)
		goto err_erase;
	ibmw->rkey = key->rkey;
	mw->key = key;
	return 0;

err_erase:
	xa_erase(&sdev->mr_xa, index);
err_free:
	kfree(key);
	return err;
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw_key *key = to_smw(ibmw)->key;
	struct sroce_mr *mr;

	xa_erase(&sdev->mr_xa, key->rkey >> 8);
	spin_lock_bh(&key->lock);
	mr = sroce_mw_unbind(key);
	key->dead = true;
	spin_unlock_bh(&key->lock);
	sroce_mr_drop_mw(sdev, mr);
	kfree_rcu(key, rcu);
	return 0;
}

/* BIND_MW: the window named by the WQE onto the MR it names (a local operation). */
static u8 sroce_mw_bind_wqe(struct sroce_qp *qp, const struct sroce_swqe *sw)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mw_bind_in in = {
		.addr = sw->mw.addr, .length = sw->mw.length, .wr_mw_rkey = sw->mw.mw_rkey,
		.wr_rkey = sw->mw.rkey, .access = sw->mw.access,
	};
	struct sroce_mr *mr = NULL, *old = NULL;
	struct sroce_mw_key *key;
	struct sroce_mw_verdict v;
	bool bound;

	rcu_read_lock();
	key = sroce_mw_lookup(sdev, sw->mw.mw_rkey);
	if (!key) {
		rcu_read_unlock();
		return SROCE_WC_MW_BIND_ERR;
	}
	if (sw->mw.length)
		mr = sroce_mr_get(sdev, to_spd(key->pd), sw->mw.mr_lkey, 0, sw->mw.addr, 0);
	if (mr) {
		in.mr_found = 1;
		in.mr_pd_match = 1;	/* looked up in the window's PD */
		in.mr_iova = mr->iova;
		in.mr_length = mr->length;
		in.mr_access = mr->access;
	}
	spin_lock_bh(&key->lock);
	in.cur_rkey = key->rkey;
	in.type = key->type;
	in.state = key->state;
	in.qp_pd_match = key->pd == qp->ibqp.pd;
	if (key->dead)
		in.wr_mw_rkey = ~in.cur_rkey;	/* gone: as a key it no longer has */
	v = sroce_mw_bind(&in);
	/*
	 * Only a bind the core grants counts on the MR (key->lock, then the
	 * leaf mw_lock), so a dereg racing a refused bind never sees EBUSY.
	 * An MR being deregistered meanwhile is one the bind did not find.
	 */
	if (v.status == SROCE_WC_SUCCESS && mr && !sroce_mr_hold_mw(sdev, mr)) {
		in.mr_found = 0;
		v = sroce_mw_bind(&in);
	}
	bound = v.status == SROCE_WC_SUCCESS && mr && in.mr_found;
	if (v.status == SROCE_WC_SUCCESS) {
		old = key->mr;
		key->mr = bound ? mr : NULL;
		key->state = v.state;
		key->rkey = v.rkey;
		key->addr = bound ? sw->mw.addr : 0;
		key->length = bound ? sw->mw.length : 0;
		key->access = bound ? sw->mw.access : 0;
		key->qpn = key->type == 2 ? qp->ibqp.qp_num : 0;
	}
	spin_unlock_bh(&key->lock);
	rcu_read_unlock();
	sroce_mr_drop_mw(sdev, old);
	if (mr)
		sroce_mr_put(mr);	/* the lookup's: a bound window counts in num_mw */
	return v.status;
}

/*
 * Invalidate the window @rkey names, from @qp: LOCAL_INV (a local
 * operation) or a SEND with Invalidate received.  An MR's key cannot be
 * invalidated (sroce has no fast-registration MRs).  Returns the status.
 */
u8 sroce_mw_invalidate_rkey(struct sroce_qp *qp, u32 rkey)
{
	struct sroce_mw_inv_in in = { .rkey = rkey };
	struct sroce_mr *old = NULL;
	struct sroce_mw_key *key;
	struct sroce_mw_verdict v;

	rcu_read_lock();
	key = sroce_mw_lookup(qp->sdev, rkey);
	if (!key) {
		rcu_read_unlock();
		return SROCE_WC_LOC_QP_OP_ERR;
	}
	spin_lock_bh(&key->lock);
	in.cur_rkey = key->rkey;
	in.type = key->type;
	in.state = key->state;
	in.qp_match = key->pd == qp->ibqp.pd && key->qpn == qp->ibqp.qp_num;
	v = sroce_mw_invalidate(&in);
	if (v.status == SROCE_WC_SUCCESS)
		old = sroce_mw_unbind(key);
	spin_unlock_bh(&key->lock);
	rcu_read_unlock();
	sroce_mr_drop_mw(qp->sdev, old);
	return v.status;
}

/**
 * sroce_mw_qp_gone() - the type 2 windows bound to @qp go free
 * @qp: a QP being destroyed, its task stopped
 *
 * A window keeps the number of its QP only: without this, a later QP of
 * the same PD given the same number would find the window bound to it.
 * Walks every key of the device (at most max_mr + max_mw).
 */
void sroce_mw_qp_gone(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	unsigned long index;
	void *entry;

	rcu_read_lock();	/* the keys are freed after a grace period */
	xa_for_each(&sdev->mr_xa, index, entry) {
		struct sroce_mw_key *key = sroce_mw_key_of(entry);
		struct sroce_mr *mr = NULL;

		if (!key)
			continue;
		spin_lock_bh(&key->lock);
		if (key->type == 2 && key->state == SROCE_MW_VALID && key->pd == qp->ibqp.pd &&
		    key->qpn == qp->ibqp.qp_num)
			mr = sroce_mw_unbind(key);
		spin_unlock_bh(&key->lock);
		sroce_mr_drop_mw(sdev, mr);
	}
	rcu_read_unlock();
}

/* SROCE_SQ_LOCAL: carry out the local operation of the WQE at @pos. */
u8 sroce_mw_local_op(struct sroce_qp *qp, u32 pos)
{
	const struct sroce_swqe *sw = sroce_swqe(qp, pos);

	if (sw->opcode == IB_UVERBS_WR_BIND_MW)
		return sroce_mw_bind_wqe(qp, sw);
	if (sw->opcode == IB_UVERBS_WR_LOCAL_INV)
		return sroce_mw_invalidate_rkey(qp, sw->inv_rkey);
	return SROCE_WC_LOC_QP_OP_ERR;
}

/**
 * sroce_rkey_get() - the MR a remote access through @rkey reaches
 * @qp: the responder's QP
 * @rkey: an MR's key or a window's
 * @access: the IB_ACCESS_REMOTE_* right the access needs
 * @iova: start of the access, as the requester addressed it
 * @len: its length
 * @mr_va: where the access starts in the MR: @iova, or for a zero-based
 *	window, its place in the MR plus @iova
 *
 * Return: the MR, referenced (sroce_mr_put() when done), or NULL when
 * the key, its PD, its window (state, QP, rights, range) or its MR refuse.
 */
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, int access, u64 iova, u64 len,
				u64 *mr_va)
{
	struct sroce_mw_access_in in = {
		.va = iova, .len = len, .rkey = rkey, .want = access,
	};
	struct sroce_mr *mr = NULL;
	struct sroce_mw_key *key;
	struct sroce_mw_verdict v;
	void *entry;

	rcu_read_lock();
	/* One load per packet: the entry is a window's or an MR's. */
	entry = xa_load(&qp->sdev->mr_xa, rkey >> 8);
	key = sroce_mw_key_of(entry);
	if (!key) {
		*mr_va = iova;
		mr = sroce_mr_ref(entry, qp->pd, rkey, access, iova, len);
		rcu_read_unlock();
		return mr;
	}
	spin_lock_bh(&key->lock);
	in.cur_rkey = key->rkey;
	in.type = key->type;
	in.state = key->state;
	in.addr = key->addr;
	in.length = key->length;
	in.access = key->access;
	in.pd_match = key->pd == qp->ibqp.pd;
	in.qp_match = key->qpn == qp->ibqp.qp_num;
	v = sroce_mw_access(&in);
	/* A bound window keeps its MR from being deregistered. */
	if (v.status == SROCE_WC_SUCCESS && key->mr && refcount_inc_not_zero(&key->mr->refs)) {
		mr = key->mr;
		*mr_va = v.va;
	}
	spin_unlock_bh(&key->lock);
	rcu_read_unlock();
	return mr;
}
