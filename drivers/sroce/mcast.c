// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups of UD QPs: attach_mcast/detach_mcast, and the members
 * a datagram sent to a group reaches (recv.c fans it out).
 *
 * A group is its MGID, an IPv6 or IPv4-mapped multicast address, and up
 * to SROCE_MAX_MCAST_QP_ATTACH QPs.  Its first attach joins the address
 * on the netdev (ip_mc_inc_group() or ipv6_dev_mc_inc(), which also set
 * the NIC's MAC filter): without the join the IP layer drops the group's
 * datagrams before UDP sees them.  Both joins are counted, so they stand
 * beside rdma_cm's own IPv4 join of the same address.  The last detach
 * leaves.
 *
 * Locking: sdev->mcg_lock (a mutex: the joins sleep) serialises attach,
 * detach and a QP's destroy; receive walks the groups and their members
 * under RCU and takes a reference on each QP it delivers to.  A QP's
 * destroy takes it out of every group before its synchronize_rcu(), so
 * no receive can find it afterwards.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "sroce.h"

struct sroce_mcg {
	struct list_head node;		/* sdev->mcg_list: RCU readers, mcg_lock writers */
	union ib_gid mgid;
	u32 nqp;
	struct sroce_qp __rcu *qp[SROCE_MAX_MCAST_QP_ATTACH];
	/*
	 * Attaches of each QP: ib_core counts every successful attach on the
	 * QP (qp->usecnt) and every successful detach off it, so a QP
	 * attached twice stays until it is detached twice.
	 */
	u32 attached[SROCE_MAX_MCAST_QP_ATTACH];
	struct rcu_head rcu;
};

void sroce_mcast_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->mcg_lock);
	INIT_LIST_HEAD(&sdev->mcg_list);
	sdev->nmcg = 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mcast_init);

static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev, const union ib_gid *mgid)
{
	struct sroce_mcg *mcg;

	list_for_each_entry_rcu(mcg, &sdev->mcg_list, node, lockdep_is_held(&sdev->mcg_lock))
		if (!memcmp(&mcg->mgid, mgid, sizeof(*mgid)))
			return mcg;
	return NULL;
}

#if IS_ENABLED(CONFIG_IPV6)
static int sroce_ipv6_mc(struct net_device *ndev, const struct in6_addr *a6, bool join)
{
	return join ? ipv6_dev_mc_inc(ndev, a6) : ipv6_dev_mc_dec(ndev, a6);
}
#else
static int sroce_ipv6_mc(struct net_device *ndev, const struct in6_addr *a6, bool join)
{
	return -EAFNOSUPPORT;
}
#endif

/* Join (@join) or leave the group's IP address on the netdev. */
static int sroce_mcast_ip(struct sroce_dev *sdev, const union ib_gid *mgid, bool join)
{
	const struct in6_addr *a6 = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(a6)) {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (!in_dev)
			err = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, a6->s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, a6->s6_addr32[3]);
	} else {
		err = sroce_ipv6_mc(sdev->ndev, a6, join);
	}
	rtnl_unlock();
	return err;
}

/* An IPv6 multicast address, or an IPv4-mapped one in 224.0.0.0/4. */
static bool sroce_mgid_valid(const union ib_gid *mgid)
{
	const struct in6_addr *a6 = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(a6))
		return ipv4_is_multicast(a6->s6_addr32[3]);
	return ipv6_addr_is_multicast(a6);
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *mcg, *fresh;
	int err = 0;
	u32 i, slot;

	/* A UD QP's only: QP1 takes MADs, never a group's datagrams. */
	if (ibqp->qp_type != IB_QPT_UD || !sroce_mgid_valid(mgid))
		return -EINVAL;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&sdev->mcg_lock);
	mcg = sroce_mcg_find(sdev, mgid);
	if (!mcg) {
		if (sdev->nmcg >= SROCE_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto unlock;
		}
		err = sroce_mcast_ip(sdev, mgid, true);
		if (err)
			goto unlock;
		mcg = fresh;
		fresh = NULL;
		mcg->mgid = *mgid;
		list_add_tail_rcu(&mcg->node, &sdev->mcg_list);
		sdev->nmcg++;
	}
	slot = SROCE_MAX_MCAST_QP_ATTACH;
	for (i = 0; i < SROCE_MAX_MCAST_QP_ATTACH; i++) {
		struct sroce_qp *m = rcu_dereference_protected(mcg->qp[i],
							       lockdep_is_held(&sdev->mcg_lock));

		if (m == qp) {
			mcg->attached[i]++;	/* attached already: counted */
			goto unlock;
		}
		if (!m && slot == SROCE_MAX_MCAST_QP_ATTACH)
			slot = i;
	}
	if (slot == SROCE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto unlock;
	}
	mcg->attached[slot] = 1;
	rcu_assign_pointer(mcg->qp[slot], qp);
	mcg->nqp++;
unlock:
	mutex_unlock(&sdev->mcg_lock);
	kfree(fresh);
	return err;
}

/* Take @qp out of @mcg; the group goes once its last QP has. */
static void sroce_mcg_remove(struct sroce_dev *sdev, struct sroce_mcg *mcg, u32 slot)
{
	lockdep_assert_held(&sdev->mcg_lock);
	mcg->attached[slot] = 0;
	RCU_INIT_POINTER(mcg->qp[slot], NULL);
	if (--mcg->nqp)
		return;
	list_del_rcu(&mcg->node);
	sdev->nmcg--;
	/* Leaving cannot fail for an address joined: nothing to undo. */
	sroce_mcast_ip(sdev, &mcg->mgid, false);
	kfree_rcu(mcg, rcu);
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *mcg;
	int err = -EINVAL;
	u32 i;

	mutex_lock(&sdev->mcg_lock);
	mcg = sroce_mcg_find(sdev, mgid);
	for (i = 0; mcg && i < SROCE_MAX_MCAST_QP_ATTACH; i++) {
		if (rcu_access_pointer(mcg->qp[i]) == qp) {
			if (!--mcg->attached[i])
				sroce_mcg_remove(sdev, mcg, i);
			err = 0;
			break;
		}
	}
	mutex_unlock(&sdev->mcg_lock);
	return err;
}

/*
 * @qp is being destroyed: out of every group it is still in (uverbs
 * detaches a user QP's groups itself; a kernel consumer may not have).
 */
void sroce_mcast_qp_gone(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *mcg, *next;
	u32 i;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	mutex_lock(&sdev->mcg_lock);
	list_for_each_entry_safe(mcg, next, &sdev->mcg_list, node)
		for (i = 0; i < SROCE_MAX_MCAST_QP_ATTACH; i++)
			if (rcu_access_pointer(mcg->qp[i]) == qp) {
				sroce_mcg_remove(sdev, mcg, i);
				break;
			}
	mutex_unlock(&sdev->mcg_lock);
}

/* The device goes: every QP is gone, so every group is (WARN otherwise). */
void sroce_mcast_cleanup(struct sroce_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->mcg_list));
	mutex_destroy(&sdev->mcg_lock);
}

/**
 * sroce_mcast_members() - the QPs attached to a group, each referenced
 * @sdev: the device
 * @mgid: the group's address: the datagram's IP destination
 * @qps: room for SROCE_MAX_MCAST_QP_ATTACH QPs, filled
 *
 * Context: any (RCU inside).  Return: how many; the caller puts each.
 */
u32 sroce_mcast_members(struct sroce_dev *sdev, const union ib_gid *mgid,
			struct sroce_qp **qps)
{
	struct sroce_mcg *mcg;
	u32 n = 0, i;

	rcu_read_lock();
	mcg = sroce_mcg_find(sdev, mgid);
	for (i = 0; mcg && i < SROCE_MAX_MCAST_QP_ATTACH; i++) {
		struct sroce_qp *qp = rcu_dereference(mcg->qp[i]);

		if (qp && refcount_inc_not_zero(&qp->refs))
			qps[n++] = qp;
	}
	rcu_read_unlock();
	return n;
}
