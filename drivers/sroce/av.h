/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A RoCEv2 path: an RC QP's (qp->av, from modify_qp), a UD address
 * handle's (ah.c), and each UD send WQE's copy of its AH's.
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/types.h>

struct sroce_av {
	int network_type;		/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} saddr, daddr;
	u8 dmac[ETH_ALEN];
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u16 sport;			/* UDP source port of the packets on this path */
};

/* av.c */
struct rdma_ah_attr;
struct sroce_dev;
int sroce_av_from_attr(const struct rdma_ah_attr *ah, struct sroce_av *av);
void sroce_av_to_attr(struct sroce_dev *sdev, const struct sroce_av *av,
		      struct rdma_ah_attr *ah);

#endif /* SROCE_AV_H */
