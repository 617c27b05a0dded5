// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_REG_MR_DMABUF_ATTRS: the last argument of
 * ib_device_ops.reg_user_mr_dmabuf is the uverbs attribute bundle (struct
 * uverbs_attr_bundle *), not the user data (struct ib_udata *).  Changed
 * in v6.12.  True as well from v6.17 on, where a DMA handle comes before
 * it (reg_mr_dmah.c).
 */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

struct ib_dmah;

#define sroce_probe_op typeof_member(const struct ib_device_ops, reg_user_mr_dmabuf)

static_assert(__same_type(sroce_probe_op,
			  struct ib_mr *(*)(struct ib_pd *, u64, u64, u64, int, int,
					    struct uverbs_attr_bundle *)) ||
	      __same_type(sroce_probe_op,
			  struct ib_mr *(*)(struct ib_pd *, u64, u64, u64, int, int,
					    struct ib_dmah *, struct uverbs_attr_bundle *)));
