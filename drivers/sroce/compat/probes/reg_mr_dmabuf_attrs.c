// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_REG_MR_DMABUF_ATTRS: ib_device_ops.reg_user_mr_dmabuf takes
 * the uverbs attribute bundle (struct uverbs_attr_bundle *) as its last
 * argument instead of the user data (struct ib_udata *).  Changed in v6.12
 * ("RDMA: Pass uverbs_attr_bundle as part of '.reg_user_mr_dmabuf' API").
 * Either way with no DMA handle: see reg_mr_dmah.c for that.
 */
#include <rdma/ib_verbs.h>

static struct ib_mr *sroce_probe_reg_dmabuf(struct ib_pd *pd, u64 offset, u64 length,
					    u64 iova, int fd, int access,
					    struct uverbs_attr_bundle *attrs)
{
	return NULL;
}

static const struct ib_device_ops sroce_probe_ops __used = {
	.reg_user_mr_dmabuf = sroce_probe_reg_dmabuf,
};
