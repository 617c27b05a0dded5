/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: internal interfaces of the driver (C side).
 *
 * One struct sroce_dev per `rdma link add ... type sroce`, bound to one
 * netdev.  The UDP 4791 tunnel sockets are global and live from module
 * load to unload.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#define SROCE_LINK_TYPE "sroce"
#define SROCE_VENDOR_ID 0xffffff	/* as rxe: perftest takes its generic path */
#define SROCE_MAX_QP_RD_ATOM 128
#define SROCE_UVERBS_ABI_VERSION 2
/* Ethernet + IPv6 + UDP + BTH + the largest extension + ICRC (rxe: 80). */
#define SROCE_MAX_HDR_LENGTH 80

/* Why a received packet was dropped: one counter each (stats.c names them). */
enum sroce_drop {
	SROCE_RX_DROP_NO_DEVICE,	/* no sroce device on the receiving netdev */
	SROCE_RX_DROP_TOO_SHORT,	/* shorter than BTH + ICRC */
	SROCE_RX_DROP_NO_QP,		/* no such destination QP */
	SROCE_RX_DROP_COUNT,
};

/* Per-device counters, exported through `rdma statistic`. */
enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_DROP_FIRST,
	SROCE_CNT_RX_DROP_LAST = SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_COUNT - 1,
	SROCE_CNT_COUNT,
};

struct sroce_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	/* Referenced by the core (ib_device_set_netdev) while registered. */
	struct net_device *ndev;
	struct ib_device_attr attr;
	enum ib_mtu active_mtu;
	atomic64_t counters[SROCE_CNT_COUNT];
};

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
void sroce_set_mtu(struct sroce_dev *sdev, unsigned int ndev_mtu);

/* net.c */
int sroce_net_init(void);
void sroce_net_exit(void);
void sroce_rx_drop_global(enum sroce_drop why);

/* stats.c */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
		       int index);

#endif /* SROCE_H */
