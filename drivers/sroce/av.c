// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 paths (struct sroce_av, av.h): made from the rdma_ah_attr of
 * modify_qp and create_ah, and turned back into one for query_qp and
 * query_ah.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

/*
 * Check a RoCEv2 path (the core has filled the sgid attr and resolved the
 * dmac) and turn it into @av; the UDP source port is set when stored.
 */
int sroce_av_from_attr(const struct rdma_ah_attr *ah, struct sroce_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	struct sockaddr *saddr = (struct sockaddr *)&av->saddr;
	struct sockaddr *daddr = (struct sockaddr *)&av->daddr;
	int type;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	type = rdma_gid_attr_network_type(sgid_attr);
	if (type != RDMA_NETWORK_IPV4 && type != RDMA_NETWORK_IPV6)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = type;
	rdma_gid2ip(saddr, &sgid_attr->gid);
	rdma_gid2ip(daddr, &grh->dgid);
	if (saddr->sa_family != daddr->sa_family)
		return -EINVAL;
	ether_addr_copy(av->dmac, ah->roce.dmac);
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = grh->flow_label;
	return 0;
}

/* The GID table index of a path's source address, 0 if it is gone. */
static u8 sroce_sgid_index(struct sroce_dev *sdev, const struct sroce_av *av)
{
	const struct ib_gid_attr *gid_attr;
	union ib_gid sgid;
	u8 index;

	rdma_ip2gid((struct sockaddr *)&av->saddr, &sgid);
	gid_attr = rdma_find_gid_by_port(&sdev->ibdev, &sgid, IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(gid_attr))
		return 0;
	index = gid_attr->index;
	rdma_put_gid_attr(gid_attr);
	return index;
}

void sroce_av_to_attr(struct sroce_dev *sdev, const struct sroce_av *av, struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	if (!av->network_type)
		return;
	rdma_ip2gid((struct sockaddr *)&av->daddr, &dgid);
	rdma_ah_set_grh(ah, &dgid, av->flow_label, sroce_sgid_index(sdev, av), av->hop_limit,
			av->traffic_class);
	ether_addr_copy(ah->roce.dmac, av->dmac);
}
