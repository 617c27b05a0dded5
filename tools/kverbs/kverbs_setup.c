// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_setup.c - the QPs' setup, the setup cases, and a run's release
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

/* Setup */

void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_run *r = ctx;

	WRITE_ONCE(r->last_event, ev->event);
	atomic_inc(&r->qp_events);
}

/*
 * A QP of @ia's type, capabilities and SRQ on @side's CQ, with the run's
 * event handler, KV_MAX_WR sends, each signaled as its WR asks; NULL if
 * ib_create_qp() fails (@what names it in the reason).  @ia gets the
 * capabilities the QP has.
 */
struct ib_qp *kv_create_qp_attr(struct kv_run *r, int side, struct ib_qp_init_attr *ia,
				const char *what)
{
	struct ib_qp *qp;

	ia->event_handler = kv_qp_event;
	ia->qp_context = r;
	ia->send_cq = r->cq[side];
	ia->recv_cq = r->cq[side];
	ia->cap.max_send_wr = KV_MAX_WR;
	ia->sq_sig_type = IB_SIGNAL_REQ_WR;
	qp = ib_create_qp(r->pd, ia);
	if (IS_ERR(qp)) {
		kv_fail(r, "%s: %ld", what, PTR_ERR(qp));
		return NULL;
	}
	return qp;
}

/* An RC QP of @side's CQ, taking its receives from @srq if not NULL. */
struct ib_qp *kv_create_qp_on(struct kv_run *r, int side, struct ib_srq *srq)
{
	struct ib_qp_init_attr ia = {
		.cap = {
			.max_recv_wr = srq ? 0 : KV_MAX_WR,
			.max_send_sge = KV_SGE,
			.max_recv_sge = srq ? 0 : KV_SGE,
			.max_inline_data = KV_INLINE,
		},
		.srq = srq,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp = kv_create_qp_attr(r, side, &ia, "ib_create_qp");

	if (qp && side == 0)
		r->cap = ia.cap;
	return qp;
}

struct ib_qp *kv_create_qp(struct kv_run *r, int side)
{
	return kv_create_qp_on(r, side, NULL);
}

/*
 * A pair of RC QPs in @qp, QP 1 taking its receives from @srq if not
 * NULL, moved to INIT and connected (QP 0's first PSN @psn_a, QP 1's
 * @psn_b); false if any step fails.
 */
bool kv_pair_up(struct kv_run *r, struct ib_qp **qp, struct ib_srq *srq, u32 psn_a, u32 psn_b)
{
	qp[0] = kv_create_qp(r, 0);
	qp[1] = qp[0] ? kv_create_qp_on(r, 1, srq) : NULL;
	return qp[1] && kv_modify_init(r, qp[0]) && kv_modify_init(r, qp[1]) &&
	       kv_connect(r, qp[0], qp[1], psn_a, psn_b);
}

bool kv_modify_init(struct kv_run *r, struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = KV_PORT,
		.qp_access_flags = IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	int ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			       IB_QP_PORT | IB_QP_ACCESS_FLAGS);

	if (ret)
		return kv_fail(r, "modify to INIT: %d", ret);
	return true;
}

/* The MAC of the run's GID's netdev: a kernel AV brings its own. */
bool kv_own_dmac(struct kv_run *r, u8 *mac)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(r->gid);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return kv_fail(r, "the GID has no netdev: %ld", PTR_ERR(ndev));
	}
	ether_addr_copy(mac, ndev->dev_addr);
	rcu_read_unlock();
	return true;
}

/*
 * INIT -> RTR -> RTS towards dqpn, the AV our own GID.  ib_modify_qp()
 * resolves the destination MAC only for user QPs (udata): a kernel
 * consumer brings it, here the MAC of the GID's own netdev.
 */
static bool kv_modify_rts(struct kv_run *r, struct ib_qp *qp, u32 dqpn,
			  u32 rq_psn, u32 sq_psn)
{
	union ib_gid dgid = r->gid->gid;
	struct ib_qp_attr a = {};
	int ret;

	if (!kv_own_dmac(r, a.ah_attr.roce.dmac))
		return false;

	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = KV_RD_ATOMIC;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, KV_PORT);
	rdma_ah_set_sl(&a.ah_attr, 0);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, r->gid->index, 64, 0);
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return kv_fail(r, "modify to RTR: %d", ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = KV_RD_ATOMIC;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return kv_fail(r, "modify to RTS: %d", ret);
	return true;
}

bool kv_query_state(struct kv_run *r, struct ib_qp *qp,
		    enum ib_qp_state want, enum ib_qp_state *got)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int ret;

	ret = ib_query_qp(qp, &a, IB_QP_STATE, &ia);
	if (ret)
		return kv_fail(r, "ib_query_qp: %d", ret);
	*got = a.qp_state;
	return a.qp_state == want;
}

bool kv_connect(struct kv_run *r, struct ib_qp *a, struct ib_qp *b,
		u32 psn_a, u32 psn_b)
{
	enum ib_qp_state st = IB_QPS_RESET;

	if (!kv_modify_rts(r, a, b->qp_num, psn_b, psn_a) ||
	    !kv_modify_rts(r, b, a->qp_num, psn_a, psn_b))
		return false;
	if (!kv_query_state(r, a, IB_QPS_RTS, &st) ||
	    !kv_query_state(r, b, IB_QPS_RTS, &st))
		return kv_fail(r, "ib_query_qp: state %d after the move to RTS", st);
	return true;
}

/* A DMA MR with remote atomic access, made as __ib_alloc_pd() makes its own. */
static struct ib_mr *kv_atomic_mr(struct kv_run *r)
{
	struct ib_mr *mr;

	if (!r->d->ibdev->ops.get_dma_mr) {
		kv_fail(r, "the device has no get_dma_mr");
		return NULL;
	}
	mr = r->d->ibdev->ops.get_dma_mr(r->pd, IB_ACCESS_LOCAL_WRITE |
					 IB_ACCESS_REMOTE_READ |
					 IB_ACCESS_REMOTE_WRITE |
					 IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr)) {
		kv_fail(r, "get_dma_mr: %ld", PTR_ERR(mr));
		return NULL;
	}
	mr->device = r->pd->device;
	mr->pd = r->pd;
	mr->type = IB_MR_TYPE_DMA;
	mr->uobject = NULL;
	mr->need_inval = false;
	return mr;
}

static bool kv_buffers(struct kv_run *r)
{
	struct kv_buf *b[] = { &r->src[0], &r->src[1], &r->dst[0], &r->dst[1] };
	int i;

	r->expect = kmalloc(KV_BUF_SIZE, GFP_KERNEL);
	if (!r->expect)
		return kv_fail(r, "no memory");
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		b[i]->va = kmalloc(KV_BUF_SIZE, GFP_KERNEL);
		if (!b[i]->va)
			return kv_fail(r, "no memory");
		b[i]->dma = ib_dma_map_single(r->d->ibdev, b[i]->va, KV_BUF_SIZE,
					      DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(r->d->ibdev, b[i]->dma))
			return kv_fail(r, "ib_dma_map_single failed");
		b[i]->mapped = true;
	}
	return true;
}

static void kv_free_buffers(struct kv_run *r)
{
	struct kv_buf *b[] = { &r->src[0], &r->src[1], &r->dst[0], &r->dst[1] };
	int i;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		if (b[i]->mapped)
			ib_dma_unmap_single(r->d->ibdev, b[i]->dma, KV_BUF_SIZE,
					    DMA_BIDIRECTIONAL);
		kfree(b[i]->va);
	}
	kfree(r->expect);
}

bool kv_destroy_qp(struct kv_run *r, struct ib_qp **qp, const char *what)
{
	int ret;

	if (!*qp)
		return true;
	ret = ib_destroy_qp(*qp);
	*qp = NULL;
	if (ret)
		return kv_fail(r, "ib_destroy_qp(%s): %d", what, ret);
	return true;
}

/* Setup cases: a failure stops the run, but for atomic_mr (the atomics fail). */

void kv_case_alloc_pd(struct kunit *test)
{
	const struct kv_param *p = test->param_value;
	struct kv_run *r;
	int i;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "run_alloc: no memory");
	kv_device.run[p - kv_params] = r;
	r->test = test;
	r->d = &kv_device;
	r->poll = p->poll;
	r->gid = kv_device.gid[p->fam];
	kv_run_name(r->name, sizeof(r->name), p);
	atomic_set(&r->qp_events, 0);
	for (i = 0; i < KV_NCOMP; i++) {
		r->comp[i].cqe.done = i == KV_FILL ? kv_done_fill : kv_done;
		init_completion(&r->comp[i].done);
		atomic_set(&r->comp[i].count, 0);
	}

	r->pd = ib_alloc_pd(r->d->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(r->pd)) {
		kv_fail(r, "ib_alloc_pd: %ld", PTR_ERR(r->pd));
		r->pd = NULL;
	}
	kv_report(r, r->pd);
	if (r->pd)
		r->stage = KV_STAGE_PD;
}

void kv_case_atomic_mr(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_PD);

	r->atomic_mr = kv_atomic_mr(r);
	kv_report(r, r->atomic_mr);
}

void kv_case_buffers(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_PD);
	bool ok = kv_buffers(r);

	kv_report(r, ok);
	if (ok)
		r->stage = KV_STAGE_BUFFERS;
}

void kv_case_alloc_cq(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_BUFFERS);
	bool ok;
	int i;

	for (i = 0; i < 2; i++) {
		r->cq[i] = ib_alloc_cq(r->d->ibdev, r, KV_CQE, 0, r->poll);
		if (IS_ERR(r->cq[i])) {
			kv_fail(r, "ib_alloc_cq: %ld", PTR_ERR(r->cq[i]));
			r->cq[i] = NULL;
			break;
		}
	}
	ok = r->cq[0] && r->cq[1];
	kv_report(r, ok);
	if (ok)
		r->stage = KV_STAGE_CQ;
}

void kv_case_create_qp(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_CQ);
	bool ok;

	r->qp[0] = kv_create_qp(r, 0);
	r->qp[1] = r->qp[0] ? kv_create_qp(r, 1) : NULL;
	ok = r->qp[1];
	if (ok && r->cap.max_inline_data == 0)
		kunit_info(test, "%s: max_inline_data 0", r->name);
	kv_report(r, ok);
	if (ok)
		r->stage = KV_STAGE_QP;
}

void kv_case_modify_init(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	r->init_ok = kv_modify_init(r, r->qp[0]) && kv_modify_init(r, r->qp[1]);
	kv_report(r, r->init_ok);
}

/* Pair A to RTS; it is broken if it does not get there. */
void kv_case_modify_rts(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	bool ok;

	ok = r->init_ok || kv_fail(r, "not run: modify_init failed");
	ok = ok && kv_connect(r, r->qp[0], r->qp[1], 0xffffc0, 0x000123);
	kv_report(r, ok);
	if (!ok)
		r->broken = true;
}

/* Whatever a run still holds, at the suite's exit. */
void kv_run_free(struct kv_run *r)
{
	int i, k;

	for (i = 0; i < 2; i++) {
		kv_destroy_qp(r, &r->qp[i], "QP");
		kv_destroy_qp(r, &r->pair_a[i], "pair A QP");
		kv_destroy_qp(r, &r->sq.qp[i], "SRQ pair QP");
		for (k = 0; k < KV_NERR; k++)
			kv_destroy_qp(r, &r->ep[k].qp[i], "error pair QP");
	}
	if (r->sq.srq)
		ib_destroy_srq_user(r->sq.srq, NULL);
	if (r->ud_ah)
		rdma_destroy_ah(r->ud_ah, RDMA_DESTROY_AH_SLEEPABLE);
	for (i = 0; i < 2; i++)
		if (r->cq[i])
			ib_free_cq(r->cq[i]);
	if (r->atomic_mr)
		r->d->ibdev->ops.dereg_mr(r->atomic_mr, NULL);
	if (r->pd)
		ib_dealloc_pd(r->pd);
	kv_free_buffers(r);
	kfree(r);
}
