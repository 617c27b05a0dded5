/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: the device, its counters and every file's header (C side).
 *
 * One struct sroce_dev per `rdma link add ... type sroce`, bound to one
 * netdev.  The UDP 4791 tunnel sockets are global and live from module
 * load to unload.
 *
 * Locking: every lock is described beside the fields it guards, with the
 * contexts that take it.  The engines of a QP (responder, requester and
 * completer) run only in the QP's task (task.c); fields marked "owned by the QP task"
 * need no lock, because only a pass of the task touches them, or qp.c
 * while the task is stopped.  Lock order, outermost first:
 * qp->modify_lock, qp->state_lock, resp->rxq.lock, qp->task.lock.  The
 * CQ, SRQ and atomic locks are taken with no QP spinlock held.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <sroce/core_abi.h>
#include <sroce/sq_abi.h>

#include "compat.h"
#include "params.h"

#define SROCE_LINK_TYPE "sroce"
#define SROCE_UVERBS_ABI_VERSION 2

#include "lists.h"

#define SROCE_RX_DROP_ENUM(NAME, lname, flags) SROCE_RX_DROP_##NAME,
enum sroce_drop {
	SROCE_RX_DROP_LIST(SROCE_RX_DROP_ENUM)
	SROCE_RX_DROP_COUNT,
};

#undef SROCE_RX_DROP_ENUM

/*
 * Per-device counters, exported through `rdma statistic`: the driver's own
 * (lists.h), the receive drops, then the cores'.
 */
#define SROCE_COUNTER_ENUM(NAME, lname) SROCE_CNT_##NAME,
enum sroce_counter {
	SROCE_COUNTER_LIST(SROCE_COUNTER_ENUM)
	SROCE_CNT_RX_DROP_FIRST,
	SROCE_CNT_RX_DROP_LAST = SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_COUNT - 1,
	/* The core's struct sroce_resp_stats, summed over QPs, field by field. */
	SROCE_CNT_CORE_FIRST,
	SROCE_CNT_CORE_LAST = SROCE_CNT_CORE_FIRST +
			      sizeof(struct sroce_resp_stats) / sizeof(u64) - 1,
	/* The requester and completer cores' struct sroce_sq_stats, likewise. */
	SROCE_CNT_SQ_CORE_FIRST,
	SROCE_CNT_SQ_CORE_LAST = SROCE_CNT_SQ_CORE_FIRST +
				 sizeof(struct sroce_sq_stats) / sizeof(u64) - 1,
	SROCE_CNT_COUNT,
};

#undef SROCE_COUNTER_ENUM

struct sroce_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	/* Referenced by the core (ib_device_set_netdev) while registered. */
	struct net_device *ndev;
	struct ib_device_attr attr;
	enum ib_mtu active_mtu;
	struct xarray qp_xa;		/* QPN -> struct sroce_qp, RCU lookups */
	u32 qp_next;			/* cyclic QPN allocation hint (xa_lock) */
	struct xarray mr_xa;		/* key >> 8 -> struct sroce_mr or a window (mw.c), RCU */
	u32 mr_next;			/* (xa_lock of mr_xa) */
	struct xarray ah_xa;		/* AH number -> struct sroce_ah_av, RCU lookups (ah.c) */
	u32 ah_next;			/* (xa_lock of ah_xa) */
	/*
	 * Guards the 8 bytes of MR memory under an ATOMIC: its read, compare
	 * and write are one step against every other QP's (sroce_mr_atomic).
	 * Taken with BHs off, from QP tasks only.
	 */
	spinlock_t atomic_lock;
	/* Guards each MR's num_mw and dying (mw.c, mr.c); BHs off. */
	spinlock_t mw_lock;
	atomic64_t counters[SROCE_CNT_COUNT];
	struct list_head list;		/* in sroce_devs (device.c) while registered */
	/* Multicast groups (mcast.c): the list is RCU, mcg_lock its writers' mutex. */
	struct mutex mcg_lock;
	struct list_head mcg_list;
	u32 nmcg;
};

#define SROCE_MCAST_QPN 0xffffff	/* BTH DestQP of a multicast datagram */

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

/* device.c */
extern struct rdma_link_ops sroce_link_ops;
extern struct notifier_block sroce_netdev_notifier;
struct sroce_dev *sroce_get_dev_from_net(struct net_device *ndev);
void sroce_unregister_all(void);
void sroce_set_mtu(struct sroce_dev *sdev, unsigned int ndev_mtu);

/* net.c */
int sroce_net_init(void);
void sroce_net_exit(void);
struct socket *sroce_net_sock(bool ipv6);

/* Each file's own structs and functions. */
#include "queue.h"
#include "cq.h"
#include "ah.h"
#include "mr.h"
#include "mw.h"
#include "srq.h"
#include "recv.h"
#include "tx.h"
#include "resp.h"
#include "qp.h"
#include "mcast.h"
#include "stats.h"

#endif /* SROCE_H */
