// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles, for UD sends.  Each AH gets a number (1..SROCE_MAX_AH)
 * that names it in a UD WQE: librxe reads it from create_ah's response
 * (struct rxe_create_ah_resp) and writes it into wr.ud.ah_num; a kernel
 * WR's AH is turned into its number when it is posted (kverbs.c).  The
 * requester looks the number up when it fetches the WQE (wqe.c) and
 * copies the path, so a WQE never holds the AH: one destroyed while WQEs
 * naming it are queued makes them fail LOC_QP_OP_ERR, and nothing reads
 * freed memory.
 *
 * Context: ib_cm creates and destroys AHs with a spinlock held, so unless
 * RDMA_CREATE_AH_SLEEPABLE is set nothing here sleeps (GFP_ATOMIC, and
 * kfree_rcu() rather than a grace period waited for).
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata)
{
	gfp_t gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL : GFP_ATOMIC;
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct rxe_create_ah_resp resp = {};
	struct sroce_ah_av *e;
	u32 num;
	int err;

	/*
	 * A librxe too old to read an AH number (outlen 0) would put the path
	 * in each WQE instead; sroce takes paths from AHs only.
	 */
	if (udata && (udata->inlen || udata->outlen < sizeof(resp)))
		return -EOPNOTSUPP;
	e = kzalloc(sizeof(*e), gfp);
	if (!e)
		return -ENOMEM;
	err = sroce_av_from_attr(init->ah_attr, &e->av);
	if (err)
		goto err_free;
	e->pd = to_spd(ibah->pd);
	err = xa_alloc_cyclic(&sdev->ah_xa, &num, e, XA_LIMIT(1, SROCE_MAX_AH), &sdev->ah_next,
			      gfp);
	if (err < 0)
		goto err_free;
	ah->av = e;
	ah->ah_num = num;
	if (udata) {
		resp.ah_num = num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_erase(&sdev->ah_xa, num);
	kfree_rcu(e, rcu);
	return err;
err_free:
	kfree(e);
	return err;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_ah *ah = to_sah(ibah);

	xa_erase(&to_sdev(ibah->device)->ah_xa, ah->ah_num);
	/* A requester may be copying the path now: it goes after a grace period. */
	kfree_rcu(ah->av, rcu);
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	sroce_av_to_attr(to_sdev(ibah->device), &to_sah(ibah)->av->av, attr);
	return 0;
}

/**
 * sroce_ah_lookup() - the path of AH @ah_num, for a UD WQE of a QP on @pd
 * @sdev: the device
 * @ah_num: from the WQE
 * @pd: the QP's PD; an AH of another PD is refused
 * @av: the path, copied
 *
 * Return: 0, or -EINVAL if there is no such AH on @pd.
 * Context: any.
 */
int sroce_ah_lookup(struct sroce_dev *sdev, u32 ah_num, const struct sroce_pd *pd,
		    struct sroce_av *av)
{
	const struct sroce_ah_av *e;
	int err = -EINVAL;

	rcu_read_lock();
	e = xa_load(&sdev->ah_xa, ah_num);
	if (e && e->pd == pd) {
		*av = e->av;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}
