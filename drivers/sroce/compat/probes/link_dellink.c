// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_LINK_DELLINK: struct rdma_link_ops has a dellink
 * callback, which `rdma link delete` calls before it unregisters the
 * device.  "RDMA/nldev: Add dellink function pointer" (Zhu Yanjun), whose
 * v5 was on linux-rdma in March 2026, after v6.19; no kernel that sroce
 * can be built against here has the member.
 */
#include <rdma/rdma_netlink.h>

static int sroce_probe_dellink(struct ib_device *dev)
{
	return 0;
}

static struct rdma_link_ops sroce_probe_link_ops __used = {
	.dellink = sroce_probe_dellink,
};
