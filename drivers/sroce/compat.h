/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences sroce meets between v6.1 and today's
 * upstream, in one place.  sroce's code is written against the newest
 * API; this header supplies it on older kernels.  What a kernel has is
 * decided by compile probes run against KDIR before the build
 * (compat/probe.sh, one file per difference under compat/probes/, each
 * naming the version that changed it), never by version numbers: stable
 * series backport (Debian's 6.1 has timer_delete_sync(), which arrived
 * in v6.2).
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/timer.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#if !__has_include("compat/config.h")
#error "compat/config.h is missing: build with the top-level Makefile (it runs the probes)"
#endif
#include "compat/config.h"

/* get/put_unaligned: <linux/unaligned.h> from v6.12, <asm/unaligned.h> before. */
#ifdef SROCE_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * ib_device_ops.create_cq: v6.11 passes the attribute bundle; the user
 * data is its driver_udata.  Kernel CQs get NULL either way.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
#define sroce_create_cq_ctx uverbs_attr_bundle
static inline struct ib_udata *sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_ctx ib_udata
static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * ib_device_ops.reg_user_mr (and reg_user_mr_dmabuf) gain a DMA handle
 * in v6.17.  SROCE_REG_MR_DMAH_PARAM goes before the last parameter of
 * either; sroce_reg_mr_dmah() is that handle (NULL on older kernels).
 * sroce has no DMA handles and refuses an MR that names one, as stock
 * rxe does.
 */
#ifdef SROCE_HAVE_REG_MR_DMAH
#define SROCE_REG_MR_DMAH_PARAM struct ib_dmah *dmah,
#define sroce_reg_mr_dmah() (dmah)
#else
#define SROCE_REG_MR_DMAH_PARAM
#define sroce_reg_mr_dmah() ((void *)NULL)
#endif

/* timer_delete_sync() and timer_delete(): v6.2, and the 6.1 stable series. */
#ifndef SROCE_HAVE_TIMER_DELETE_SYNC
static inline int timer_delete_sync(struct timer_list *timer)
{
	return del_timer_sync(timer);
}

static inline int timer_delete(struct timer_list *timer)
{
	return del_timer(timer);
}
#endif

/* timer_container_of(): v6.16 renamed from_timer(). */
#ifndef SROCE_HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

/*
 * Importing the namespace of KUnit-only exports (EXPORT_SYMBOL_IF_KUNIT):
 * a string literal from v6.13, a bare identifier before.
 */
#ifdef SROCE_HAVE_MODULE_IMPORT_NS_IDENT
#define SROCE_IMPORT_NS_KUNIT() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define SROCE_IMPORT_NS_KUNIT() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

#endif /* SROCE_COMPAT_H */
