// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_RDMA_LINK_DELLINK: struct rdma_link_ops has a dellink
 * callback, which `rdma link delete` calls before it unregisters the
 * device.  Added after v6.19 ("RDMA/nldev: Add dellink function pointer",
 * linux-rdma, March 2026); no kernel before it has the member.
 */
#include <rdma/rdma_netlink.h>

static int sroce_probe_dellink(struct ib_device *dev)
{
	return 0;
}

static struct rdma_link_ops sroce_probe_link_ops __used = {
	.dellink = sroce_probe_dellink,
};
