// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_REG_MR_DMAH: ib_device_ops.reg_user_mr takes a DMA handle
 * (struct ib_dmah *) before its last argument.  Changed in v6.17, with
 * the DMA handle objects of the uverbs ioctl interface.
 */
#include <rdma/ib_verbs.h>

static struct ib_mr *sroce_probe_reg(struct ib_pd *pd, u64 start, u64 length, u64 iova,
				     int access, struct ib_dmah *dmah, struct ib_udata *udata)
{
	return NULL;
}

static const struct ib_device_ops sroce_probe_ops __used = {
	.reg_user_mr = sroce_probe_reg,
};
