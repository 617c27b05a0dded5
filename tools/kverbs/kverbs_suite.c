// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kverbs: the KUnit suite sroce_kverbs, which tests an RDMA provider
 * (sroce, or stock rdma_rxe as the control) through the kernel verbs.
 *
 *	insmod sroce_kverbs.ko dev=NAME
 *
 * The suite runs RC loopback tests on device NAME: two QPs of the device
 * connected to each other through a RoCEv2 GID of port 1 (the IPv4-mapped
 * one, and an IPv6 one that is not link-local if there is one), once for
 * each CQ poll context (DIRECT, SOFTIRQ, WORKQUEUE).  Such a run is the
 * parameter, "<dev>_<poll>_<family>", of every case but the first three
 * (device, gid_v4, gid_v6), and each case is one check: each check of each
 * run is one KTAP test point.
 *
 *	    # Subtest: send_1
 *	        ok 1 sroce0_direct_v4
 *	        ...
 *	        ok 6 sroce0_workqueue_v6
 *	    ok 13 send_1
 *
 * A case runs its check on every run before the next case starts, so the
 * runs live side by side: a run's PD, buffers, CQs and QP pair A come with
 * its setup cases (alloc_pd ... create_qp) and go at the suite's exit; the
 * error pairs, the SRQ pair and the UD pair are made and destroyed by
 * cases of their own.  Each run takes its checks in the order of the case
 * list, the order a run has always taken them.
 *
 * A check fails with the first reason kv_fail() was given.  One that
 * cannot run because an earlier one failed (a run whose setup stopped,
 * pair A broken, a pair that is not up) fails as "not run": 6.1 prints a
 * skipped parameter as "ok", so no parameter is ever skipped.  Checks
 * that do not apply are no parameter at all: send_solicited on a DIRECT
 * CQ (no completion handler), ud_qkey_privileged on stock rxe (which
 * sends the WR's privileged Q_Key as it is: the case is skipped); gid_v6
 * is skipped without a global IPv6 GID.
 *
 * The suite runs from module init, not by kunit_test_suites(): 6.1 runs a
 * module's suites at MODULE_STATE_COMING, before the module's parameters
 * are parsed, where it would not see dev=.  Everything is freed before
 * init returns; unload removes the suite's debugfs results.
 *
 * Every work request carries a struct ib_cqe; DIRECT CQs are polled with
 * ib_process_cq_direct(), the others call back from softirq or a
 * workqueue.  No wait is longer than KV_TIMEOUT_S.  Remote access uses the
 * PD's unsafe global rkey (which grants remote read and write), the
 * atomics a DMA MR made the way ib_core makes the PD's own, with remote
 * atomic access added.
 */
#include "kverbs.h"

static char *kv_dev_name = "sroce0";
module_param_named(dev, kv_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test (default sroce0)");

/* The device */

/* The IPv4-mapped RoCEv2 GID of port 1, and a global IPv6 one. */
static void kv_find_gids(struct kv_dev *d, const struct ib_gid_attr **gid)
{
	const struct ib_port_immutable *im = ib_port_immutable_read(d->ibdev, KV_PORT);
	const struct ib_gid_attr *a;
	const struct in6_addr *ip;
	int i, f;

	for (i = 0; i < im->gid_tbl_len; i++) {
		a = rdma_get_gid_attr(d->ibdev, KV_PORT, i);
		if (IS_ERR(a))
			continue;
		ip = (const struct in6_addr *)a->gid.raw;
		f = ipv6_addr_v4mapped(ip) ? 0 : 1;
		if (a->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP || gid[f] ||
		    (a->gid.raw[0] == 0xfe && (a->gid.raw[1] & 0xc0) == 0x80)) {
			rdma_put_gid_attr(a);
			continue;
		}
		gid[f] = a;
	}
}

static void kv_case_device(struct kunit *test)
{
	struct kv_dev *d = &kv_device;

	KUNIT_ASSERT_NOT_NULL_MSG(test, d->ibdev, "no RDMA device by that name: %s", d->name);
	kunit_info(test, "%s, driver %s", d->name,
		   d->ibdev->ops.owner ? module_name(d->ibdev->ops.owner) : "built in");
	KUNIT_EXPECT_TRUE_MSG(test, d->roce, "port_roce: port 1 is not RoCE");
}

/* The GID of family @f that its runs connect through. */
static void kv_gid(struct kunit *test, enum kv_fam f)
{
	const struct ib_gid_attr *gid = kv_device.gid[f];

	KUNIT_ASSERT_TRUE_MSG(test, kv_device.ibdev && kv_device.roce,
			      "not run: no RoCE device %s", kv_device.name);
	if (!gid && f == KV_V6)
		kunit_skip(test, "no global IPv6 RoCEv2 GID on port 1");
	KUNIT_ASSERT_NOT_NULL_MSG(test, gid, "no IPv4-mapped RoCEv2 GID on port 1");
	kunit_info(test, "%s: GID index %u, %pI6c", kv_fam_name[f], gid->index, gid->gid.raw);
}

/* The parameters */

/* The next run after @prev (NULL: the first) of a family with a GID. */
static const void *kv_gen_next(const void *prev, char *desc, bool handler)
{
	const struct kv_param *p = prev ? (const struct kv_param *)prev + 1 : kv_params;

	for (; p < kv_params + ARRAY_SIZE(kv_params); p++) {
		if (!kv_device.gid[p->fam] || (handler && p->poll == IB_POLL_DIRECT))
			continue;
		kv_run_name(desc, KUNIT_PARAM_DESC_SIZE, p);
		return p;
	}
	return NULL;
}

/* Every run. */
static const void *kv_gen_runs(const void *prev, char *desc)
{
	return kv_gen_next(prev, desc, false);
}

/* The runs whose CQs call a completion handler: not DIRECT. */
static const void *kv_gen_runs_handler(const void *prev, char *desc)
{
	return kv_gen_next(prev, desc, true);
}

/*
 * Every run on sroce, none on stock rxe, which sends a WR's privileged
 * Q_Key as it is: KUnit then reports the case skipped.
 */
static const void *kv_gen_runs_sroce(const void *prev, char *desc)
{
	if (!kv_device.rxe)
		return kv_gen_next(prev, desc, false);
	pr_info("    # ud_qkey_privileged: not on stock rxe, which sends a WR's privileged Q_Key as it is\n");
	return NULL;
}

/* The cases */

/*
 * Case @check runs kv_case_<check>(): here @fn(test, ...).  The case's name
 * is no function's, which keeps the names of the checks (atomic_fetch_add)
 * clear of the kernel's.
 */
#define KV_CASE(check, fn, ...)				\
static void kv_case_##check(struct kunit *test)		\
{							\
	fn(test, __VA_ARGS__);				\
}

KV_CASE(gid_v4, kv_gid, KV_V4)
KV_CASE(gid_v6, kv_gid, KV_V6)
KV_CASE(post_reset, kv_check, kv_t_post_refused, IB_QPS_RESET)
KV_CASE(post_init, kv_check, kv_t_post_refused, IB_QPS_INIT)
KV_CASE(send_1, kv_check, kv_t_send, 1)
KV_CASE(send_1000, kv_check, kv_t_send, 1000)
KV_CASE(send_1025, kv_check, kv_t_send, 1025)
KV_CASE(send_4097, kv_check, kv_t_send, 4097)
KV_CASE(send_65539, kv_check, kv_t_send, 65539)
KV_CASE(send_imm_1, kv_check, kv_t_send, 1 | KV_ARG_IMM)
KV_CASE(send_imm_1000, kv_check, kv_t_send, 1000 | KV_ARG_IMM)
KV_CASE(send_imm_1025, kv_check, kv_t_send, 1025 | KV_ARG_IMM)
KV_CASE(send_imm_4097, kv_check, kv_t_send, 4097 | KV_ARG_IMM)
KV_CASE(send_imm_65539, kv_check, kv_t_send, 65539 | KV_ARG_IMM)
KV_CASE(send_sge3, kv_check, kv_t_send_sge3, 0)
KV_CASE(send_inline, kv_check, kv_t_send_inline, 0)
KV_CASE(write_0, kv_check, kv_t_write, 0)
KV_CASE(write_1, kv_check, kv_t_write, 1)
KV_CASE(write_65539, kv_check, kv_t_write, 65539)
KV_CASE(write_imm_4097, kv_check, kv_t_write_imm, 4097)
KV_CASE(read_1, kv_check, kv_t_read, 1)
KV_CASE(read_65539, kv_check, kv_t_read, 65539)
KV_CASE(atomic_cmp_swp, kv_check, kv_t_atomic, KV_ATOMIC_CMP_SWP)
KV_CASE(atomic_cmp_swp_miss, kv_check, kv_t_atomic, KV_ATOMIC_CMP_SWP_MISS)
KV_CASE(atomic_fetch_add, kv_check, kv_t_atomic, KV_ATOMIC_FETCH_ADD)
KV_CASE(fence_read_send, kv_check, kv_t_fence, 0)
KV_CASE(unsignaled_burst, kv_check, kv_t_burst, 0)
KV_CASE(send_solicited, kv_check, kv_t_solicited, 0)
KV_CASE(bad_opcode, kv_check, kv_t_bad_opcode, 0)
KV_CASE(too_many_sge, kv_check, kv_t_too_many_sge, 0)
KV_CASE(ring_full, kv_check, kv_t_ring_full, 0)
KV_CASE(post_irqs_off, kv_check, kv_t_irqs_off, 0)
KV_CASE(bad_lkey, kv_ep_error, KV_ERR_LKEY)
KV_CASE(bad_lkey_qp_err, kv_ep_qp_err, KV_ERR_LKEY)
KV_CASE(bad_lkey_flush, kv_ep_flush, KV_ERR_LKEY)
KV_CASE(bad_lkey_recv_flushed, kv_ep_recv_flushed, KV_ERR_LKEY)
KV_CASE(bad_lkey_recv_in_error_qp0, kv_ep_recv_in_error, KV_ERR_LKEY, 0)
KV_CASE(bad_lkey_recv_in_error_qp1, kv_ep_recv_in_error, KV_ERR_LKEY, 1)
KV_CASE(bad_lkey_flush_qp1, kv_ep_flush_qp1, KV_ERR_LKEY)
KV_CASE(bad_lkey_drain, kv_ep_drain, KV_ERR_LKEY)
KV_CASE(bad_lkey_destroy, kv_ep_destroy, KV_ERR_LKEY)
KV_CASE(atomic_denied, kv_ep_error, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_qp_err, kv_ep_qp_err, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_flush, kv_ep_flush, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_recv_flushed, kv_ep_recv_flushed, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_recv_in_error_qp0, kv_ep_recv_in_error, KV_ERR_ATOMIC, 0)
KV_CASE(atomic_denied_recv_in_error_qp1, kv_ep_recv_in_error, KV_ERR_ATOMIC, 1)
KV_CASE(atomic_denied_flush_qp1, kv_ep_flush_qp1, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_drain, kv_ep_drain, KV_ERR_ATOMIC)
KV_CASE(atomic_denied_destroy, kv_ep_destroy, KV_ERR_ATOMIC)
KV_CASE(ud_send_1, kv_ud_check, kv_t_ud_send, 1)
KV_CASE(ud_send_imm_1000, kv_ud_check, kv_t_ud_send, 1000 | KV_ARG_IMM)
KV_CASE(ud_send_mtu, kv_ud_check, kv_t_ud_send, 1024)
KV_CASE(ud_qkey_privileged, kv_ud_check, kv_t_ud_send, 100 | KV_ARG_PRIV)
KV_CASE(ud_bad_qkey, kv_ud_check, kv_t_ud_bad_qkey, 0)
KV_CASE(ud_too_long, kv_ud_check, kv_t_ud_too_long, 0)
KV_CASE(ah_atomic, kv_ud_check, kv_t_ah_atomic, 0)
KV_CASE(ud_mcast, kv_ud_check, kv_t_ud_mcast, 0)

/* Case @check of the device. */
#define KV_DEV(check) { .run_case = kv_case_##check, .name = #check }

/* Case @check over the runs @gen gives: KUNIT_CASE_PARAM() but for its name. */
#define KV_RUNS_OF(check, gen)						\
	{ .run_case = kv_case_##check, .name = #check, .generate_params = gen }

/* Case @check over every run. */
#define KV_RUNS(check) KV_RUNS_OF(check, kv_gen_runs)

/* Each run takes the checks in this order. */
static struct kunit_case kv_cases[] = {
	KV_DEV(device),
	KV_DEV(gid_v4),
	KV_DEV(gid_v6),
	/* Setup, then pair A (QP 0 to QP 1) */
	KV_RUNS(alloc_pd),
	KV_RUNS(atomic_mr),
	KV_RUNS(buffers),
	KV_RUNS(alloc_cq),
	KV_RUNS(create_qp),
	KV_RUNS(post_reset),
	KV_RUNS(modify_init),
	KV_RUNS(post_init),
	KV_RUNS(modify_rts),
	KV_RUNS(send_1),
	KV_RUNS(send_1000),
	KV_RUNS(send_1025),
	KV_RUNS(send_4097),
	KV_RUNS(send_65539),
	KV_RUNS(send_imm_1),
	KV_RUNS(send_imm_1000),
	KV_RUNS(send_imm_1025),
	KV_RUNS(send_imm_4097),
	KV_RUNS(send_imm_65539),
	KV_RUNS(send_sge3),
	KV_RUNS(send_inline),
	KV_RUNS(write_0),
	KV_RUNS(write_1),
	KV_RUNS(write_65539),
	KV_RUNS(write_imm_4097),
	KV_RUNS(read_1),
	KV_RUNS(read_65539),
	KV_RUNS(atomic_cmp_swp),
	KV_RUNS(atomic_cmp_swp_miss),
	KV_RUNS(atomic_fetch_add),
	KV_RUNS(fence_read_send),
	KV_RUNS(unsignaled_burst),
	KV_RUNS_OF(send_solicited, kv_gen_runs_handler),
	KV_RUNS(bad_opcode),
	KV_RUNS(too_many_sge),
	KV_RUNS(ring_full),
	KV_RUNS(post_irqs_off),
	/* Error pairs (pair B) */
	KV_RUNS(bad_lkey),
	KV_RUNS(bad_lkey_qp_err),
	KV_RUNS(bad_lkey_flush),
	KV_RUNS(bad_lkey_recv_flushed),
	KV_RUNS(bad_lkey_recv_in_error_qp0),
	KV_RUNS(bad_lkey_recv_in_error_qp1),
	KV_RUNS(bad_lkey_flush_qp1),
	KV_RUNS(bad_lkey_drain),
	KV_RUNS(bad_lkey_destroy),
	KV_RUNS(atomic_denied),
	KV_RUNS(atomic_denied_qp_err),
	KV_RUNS(atomic_denied_flush),
	KV_RUNS(atomic_denied_recv_flushed),
	KV_RUNS(atomic_denied_recv_in_error_qp0),
	KV_RUNS(atomic_denied_recv_in_error_qp1),
	KV_RUNS(atomic_denied_flush_qp1),
	KV_RUNS(atomic_denied_drain),
	KV_RUNS(atomic_denied_destroy),
	KV_RUNS(destroy_with_recvs),
	/* The SRQ pair (pair C) */
	KV_RUNS(srq_create),
	KV_RUNS(srq_qp_connect),
	KV_RUNS(srq_qp_post_recv_refused),
	KV_RUNS(srq_too_many_sge),
	KV_RUNS(srq_fill),
	KV_RUNS(srq_arm_limit),
	KV_RUNS(srq_send_in_order),
	KV_RUNS(srq_limit),
	KV_RUNS(srq_resize),
	KV_RUNS(srq_destroy),
	/* The UD pair */
	KV_RUNS(ud_setup),
	KV_RUNS(ud_send_1),
	KV_RUNS(ud_send_imm_1000),
	KV_RUNS(ud_send_mtu),
	KV_RUNS_OF(ud_qkey_privileged, kv_gen_runs_sroce),
	KV_RUNS(ud_bad_qkey),
	KV_RUNS(ud_too_long),
	KV_RUNS(ah_atomic),
	KV_RUNS(ud_mcast),
	KV_RUNS(ud_drain),
	KV_RUNS(ud_destroy),
	{}
};

/* The device and its GIDs, before the first case. */
static int kv_suite_init(struct kunit_suite *suite)
{
	struct kv_dev *d = &kv_device;

	d->name = kv_dev_name;
	d->ibdev = ib_device_get_by_name(kv_dev_name, RDMA_DRIVER_UNKNOWN);
	if (!d->ibdev)
		return 0;
	d->rxe = d->ibdev->ops.owner &&
		 !strcmp(module_name(d->ibdev->ops.owner), "rdma_rxe");
	d->roce = rdma_protocol_roce(d->ibdev, KV_PORT);
	if (d->roce)
		kv_find_gids(d, d->gid);
	return 0;
}

static void kv_suite_exit(struct kunit_suite *suite)
{
	struct kv_dev *d = &kv_device;
	int i;

	for (i = 0; i < ARRAY_SIZE(d->run); i++) {
		if (d->run[i])
			kv_run_free(d->run[i]);
		d->run[i] = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(d->gid); i++) {
		if (d->gid[i])
			rdma_put_gid_attr(d->gid[i]);
		d->gid[i] = NULL;
	}
	if (d->ibdev)
		ib_device_put(d->ibdev);
	d->ibdev = NULL;
}

static struct kunit_suite kv_suite = {
	.name = "sroce_kverbs",
	.suite_init = kv_suite_init,
	.suite_exit = kv_suite_exit,
	.test_cases = kv_cases,
};

static struct kunit_suite *kv_suites[] = { &kv_suite };

/* After the parameters are parsed: see the head of this file. */
static int __init kv_init(void)
{
	return __kunit_test_suites_init(kv_suites, ARRAY_SIZE(kv_suites));
}

static void __exit kv_exit(void)
{
	__kunit_test_suites_exit(kv_suites, ARRAY_SIZE(kv_suites));
}

module_init(kv_init);
module_exit(kv_exit);

MODULE_DESCRIPTION("KUnit suite of the kernel verbs of a soft-RoCE provider (sroce, rdma_rxe)");
MODULE_LICENSE("GPL");
