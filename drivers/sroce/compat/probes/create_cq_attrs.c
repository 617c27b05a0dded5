// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_CREATE_CQ_ATTRS: ib_device_ops.create_cq takes the uverbs
 * attribute bundle (struct uverbs_attr_bundle *) instead of the user data
 * (struct ib_udata *); the user data is the bundle's driver_udata.
 * Changed in v6.11.
 */
#include <rdma/ib_verbs.h>

static int sroce_probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
				 struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static const struct ib_device_ops sroce_probe_ops __used = {
	.create_cq = sroce_probe_create_cq,
};
