// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_err.c - the error pairs (bad_lkey, atomic_denied) and destroy_with_recvs
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

/* Error pairs */

/* Move the QP to Error by hand. */
static bool kv_to_error(struct kv_run *r, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = ib_modify_qp(qp, &attr, IB_QP_STATE);

	if (ret)
		return kv_fail(r, "ib_modify_qp(ERR): %d", ret);
	return true;
}

/* Wait up to a second for the QP to reach Error. */
static bool kv_wait_error(struct kv_run *r, struct ib_qp *qp)
{
	enum ib_qp_state st = IB_QPS_RESET;
	int i;

	for (i = 0; i < 50; i++) {
		if (kv_query_state(r, qp, IB_QPS_ERR, &st))
			return true;
		if (r->why[0])
			return false;
		msleep(20);
	}
	return kv_fail(r, "QP state %d, not ERR, a second after the error completion", st);
}

/*
 * Each error pair, on a fresh pair B, is nine cases: the error itself
 * (<pfx>, after the pair's setup, <pfx>_setup), the state after it
 * (_qp_err), a flushed WR posted after it (_flush), the receive QP 1's
 * move to Error flushes (_recv_flushed), receives posted on either QP in
 * Error (_recv_in_error_qp0, _qp1) and a send on QP 1 (_flush_qp1), all
 * flushed, ib_drain_qp() on both QPs (_drain), then destroy (_destroy).
 */
static const char *const kv_ep_name[KV_NERR] = {
	[KV_ERR_LKEY] = "bad_lkey",
	[KV_ERR_ATOMIC] = "atomic_denied",
};

/* The run of a case of error pair @kind after its setup: else not run. */
static struct kv_run *kv_ep_at(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	KUNIT_ASSERT_TRUE_MSG(test, r->ep[kind].up, "not run: %s_setup failed",
			      kv_ep_name[kind]);
	return r;
}

/* A SEND of src[0] that completes in @c, to post on a QP in Error. */
static void kv_ep_send_wr(struct kv_run *r, struct ib_send_wr *wr, struct ib_sge *sge,
			  struct kv_comp *c)
{
	const struct kv_seg s = { 0, 100 };

	kv_send_wr(r, wr, sge, &s, IB_SEND_SIGNALED);
	wr->wr_cqe = &c->cqe;
}

/*
 * A SEND posted on @qp in Error completes in @c, flushed; @where says
 * where it was posted, @what names its completion.
 */
static bool kv_ep_send_flushed(struct kv_run *r, struct ib_qp *qp, struct kv_comp *c,
			       const char *where, const char *what)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	struct ib_sge sge;
	int ret;

	kv_ep_send_wr(r, &wr, &sge, c);
	ret = ib_post_send(qp, &wr, &bad);
	if (ret)
		return kv_fail(r, "ib_post_send %s: %d", where, ret);
	return kv_wc(r, c, what, IB_WC_WR_FLUSH_ERR, 0, qp);
}

/* Set the pair up, a receive posted on QP 1; a failure is <pfx>_setup's. */
static bool kv_ep_setup(struct kv_run *r, struct kv_epair *ep)
{
	const struct kv_seg d = { 0, KV_BUF_SIZE };
	int ret;

	if (!kv_pair_up(r, ep->qp, NULL, 0x10, 0x20))
		return false;
	ret = kv_post_recv(r, ep->qp[1], &r->comp[KV_ERECV], &r->dst[1], &d, 1);
	if (ret)
		return kv_fail(r, "ib_post_recv: %d", ret);
	return true;
}

/* The error: a bad lkey (IB_WC_LOC_PROT_ERR) or a denied atomic (IB_WC_REM_ACCESS_ERR). */
void kv_ep_error(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	struct kv_epair *ep = &r->ep[kind];
	const struct kv_seg res = { KV_ATOM_RESULT, sizeof(u64) };
	struct kv_comp *sc = kv_arm(r, KV_ESEND);
	const struct ib_send_wr *bad = NULL;
	struct ib_atomic_wr awr = {};
	struct ib_send_wr wr = {};
	enum ib_wc_status want;
	struct ib_sge sge;
	bool ok;
	int ret;

	kv_arm(r, KV_ESEND2);
	kv_arm(r, KV_ERECV);
	ep->up = kv_ep_setup(r, ep);
	if (!ep->up) {
		KUNIT_FAIL(test, "%s_setup: %s", kv_ep_name[kind],
			   r->why[0] ? r->why : "(no detail)");
		r->why[0] = '\0';
		return;
	}

	if (kind == KV_ERR_LKEY) {
		kv_prepare(r, &r->src[0], &r->dst[1]);
		kv_ep_send_wr(r, &wr, &sge, sc);
		sge.lkey = r->pd->local_dma_lkey ^ 0x5a5a5a00;
		if (r->atomic_mr && sge.lkey == r->atomic_mr->lkey)
			sge.lkey ^= 0x00010000;
		ret = ib_post_send(ep->qp[0], &wr, &bad);
		want = IB_WC_LOC_PROT_ERR;
	} else {
		kv_atomic_prepare(r, KV_X);
		kv_sges(r, &sge, &r->dst[0], &res, 1);
		awr.wr.wr_cqe = &sc->cqe;
		awr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		awr.wr.send_flags = IB_SEND_SIGNALED;
		awr.wr.sg_list = &sge;
		awr.wr.num_sge = 1;
		awr.remote_addr = r->dst[1].dma + KV_ATOM_TARGET;
		awr.rkey = r->pd->unsafe_global_rkey;
		awr.compare_add = KV_ADD;
		ret = ib_post_send(ep->qp[0], &awr.wr, &bad);
		want = IB_WC_REM_ACCESS_ERR;
	}
	ok = true;
	if (ret) {
		ok = kv_fail(r, "ib_post_send: %d", ret);
	} else if (!kv_wait(r, sc)) {
		ok = kv_fail(r, "no completion in %d s", KV_TIMEOUT_S);
	} else if (kind == KV_ERR_LKEY && r->d->rxe &&
		   sc->wc.status == IB_WC_LOC_QP_OP_ERR) {
		/* Stock rxe reports a failed lkey lookup as a QP operation error. */
		kunit_info(test, "%s: completed with %s, accepted from stock rdma_rxe (IBA: %s)",
			   r->name, ib_wc_status_msg(sc->wc.status), ib_wc_status_msg(want));
	} else if (sc->wc.status != want) {
		ok = kv_fail(r, "status %s (%d), expected %s",
			     ib_wc_status_msg(sc->wc.status), sc->wc.status,
			     ib_wc_status_msg(want));
	} else if (sc->wc.qp != ep->qp[0]) {
		ok = kv_fail(r, "wc.qp is not the QP posted to");
	}
	if (ok && kind == KV_ERR_ATOMIC)
		ok = kv_check_u64(r, &r->dst[1], KV_ATOM_TARGET, KV_X,
				  "remote value after the denied atomic");
	kv_report(r, ok);
}

/* The requester is in Error now. */
void kv_ep_qp_err(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);

	kv_report(r, kv_wait_error(r, r->ep[kind].qp[0]));
}

/* A WR posted in Error completes, flushed. */
void kv_ep_flush(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	struct kv_comp *sc2 = &r->comp[KV_ESEND2];
	bool ok;

	ok = kv_ep_send_flushed(r, ep->qp[0], sc2, "in Error", "WR posted in Error");
	/* Seen at all, if posted: ib_drain_qp() will not wait for it forever. */
	ep->flushed = atomic_read(&sc2->count) > 0;
	kv_report(r, ok);
}

/*
 * ib_drain_qp() waits without a timeout (and polls a DIRECT CQ forever),
 * so every flush it relies on is first seen by a case of its own, with
 * one: QP 1 moved to Error flushes the receive posted on it; a receive
 * posted on either QP in Error, and a send posted on QP 1, are flushed.
 */
void kv_ep_recv_flushed(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	bool ok;

	ok = ep->flushed && kv_to_error(r, ep->qp[1]) &&
	     kv_wc(r, &r->comp[KV_ERECV], "receive posted before the error",
		   IB_WC_WR_FLUSH_ERR, 0, ep->qp[1]);
	if (!ep->flushed)
		ok = kv_fail(r, "not run: no flush completion seen");
	kv_report(r, ok);
	ep->flushed = ok;
}

void kv_ep_recv_in_error(struct kunit *test, enum kv_err_kind kind, int i)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	const struct kv_seg d = { 0, KV_BUF_SIZE };
	struct kv_comp *c;
	bool ok;
	int ret;

	KUNIT_ASSERT_TRUE_MSG(test, ep->flushed, "not run: a flush before it was not seen");
	c = kv_arm(r, KV_ERECV);
	ret = kv_post_recv(r, ep->qp[i], c, &r->dst[i], &d, 1);
	ok = ret ? kv_fail(r, "ib_post_recv on QP %d in Error: %d", i, ret) :
		   kv_wc(r, c, "receive posted in Error", IB_WC_WR_FLUSH_ERR, 0, ep->qp[i]);
	kv_report(r, ok);
	ep->flushed = ok;
}

void kv_ep_flush_qp1(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	bool ok;

	KUNIT_ASSERT_TRUE_MSG(test, ep->flushed, "not run: a flush before it was not seen");
	ok = kv_ep_send_flushed(r, ep->qp[1], kv_arm(r, KV_ESEND2), "on QP 1 in Error",
				"WR posted on QP 1 in Error");
	kv_report(r, ok);
	ep->flushed = ok;
}

void kv_ep_drain(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	bool ok;

	if (ep->flushed) {
		ib_drain_qp(ep->qp[0]);
		ib_drain_qp(ep->qp[1]);
		ok = true;
	} else {
		ok = kv_fail(r, "not run: a flush it waits for was not seen, it could hang");
	}
	kv_report(r, ok);
}

/* After the error pair's setup, whether it passed or not. */
void kv_ep_destroy(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	struct kv_epair *ep = &r->ep[kind];
	bool ok;

	ok = kv_destroy_qp(r, &ep->qp[0], "error pair QP 0");
	ok = kv_destroy_qp(r, &ep->qp[1], "error pair QP 1") && ok;
	kv_report(r, ok);
}

/* Pair A: destroy both QPs with receives still posted. */
void kv_case_destroy_with_recvs(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	const struct kv_seg d = { 0, 512 };
	struct kv_comp *c = kv_arm(r, KV_LEFT);
	bool ok = true;
	int i, q, ret;

	for (q = 0; q < 2; q++)
		for (i = 0; i < 4; i++) {
			ret = kv_post_recv(r, r->qp[q], c, &r->dst[q], &d, 1);
			if (ret && ok)
				ok = kv_fail(r, "ib_post_recv on QP %d: %d", q, ret);
		}
	ok = kv_destroy_qp(r, &r->qp[0], "QP 0") && ok;
	ok = kv_destroy_qp(r, &r->qp[1], "QP 1") && ok;
	/* A destroyed QP's WRs are gone with it, never completed. */
	kv_settle(r);
	if (ok && atomic_read(&c->count))
		ok = kv_fail(r, "%d completion(s) of receives of destroyed QPs",
			     atomic_read(&c->count));
	kv_report(r, ok);
}
