// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_srq.c - the SRQ pair
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

/* SRQ */

static void kv_srq_event(struct ib_event *ev, void *ctx)
{
	struct kv_run *r = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&r->srq_limit_events);
}

static int kv_post_srq_recv(struct kv_run *r, struct ib_srq *srq, struct kv_comp *c,
			    const struct kv_seg *d, int n, const struct ib_recv_wr **bad)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge[KV_SGE];

	kv_sges(r, sge, &r->dst[1], d, n);
	wr.wr_cqe = &c->cqe;
	wr.sg_list = sge;
	wr.num_sge = n;
	*bad = NULL;
	return ib_post_srq_recv(srq, &wr, bad);
}

/* The two segments of SRQ WQE @j: WQE j scatters into its own 4.5 KiB of dst[1]. */
static void kv_srq_segs(struct kv_seg *d, u32 j)
{
	u32 base = (j % 16) * 4608;

	d[0] = (struct kv_seg){ base, 1000 };
	d[1] = (struct kv_seg){ base + 1500, 3000 };
}

/*
 * SEND @i (0-based) from QP 0: it must take SRQ WQE @i, so land in that
 * WQE's segments (the SRQ's WQEs are taken in order), every byte checked.
 */
static bool kv_srq_send(struct kv_run *r, struct ib_qp *qp0, struct ib_qp *qp1,
			struct kv_comp *rc, int i)
{
	const struct kv_seg s = { 5, 3500 };
	struct ib_send_wr wr;
	struct kv_seg d[2];
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	bool ok;

	kv_srq_segs(d, i);
	kv_send_wr(r, &wr, &sge, &s, 0);
	r->qp[0] = qp0;		/* kv_xfer posts on r->qp[0] */
	ok = kv_xfer(r, &wr, IB_WC_SEND, false, NULL, 0, 0);
	r->qp[0] = NULL;
	if (!ok)
		return false;
	if (!kv_wait_count(r, rc, i + 1))
		return kv_fail(r, "SEND %d: no receive completion", i + 1);
	if (rc->wc.status != IB_WC_SUCCESS)
		return kv_fail(r, "SEND %d: status %s", i + 1, ib_wc_status_msg(rc->wc.status));
	if (rc->wc.qp != qp1)
		return kv_fail(r, "SEND %d: wc.qp is not QP 1", i + 1);
	if (rc->wc.opcode != IB_WC_RECV || rc->wc.byte_len != s.len)
		return kv_fail(r, "SEND %d: opcode %d, byte_len %u", i + 1, rc->wc.opcode,
			       rc->wc.byte_len);
	kv_expect(r, seed, &s, 1, d, 2);
	return kv_verify(r, &r->dst[1], "SRQ receive buffer (WQE order)");
}

/*
 * Pair C: QP 1 takes its receives from a kernel SRQ.  A post to the QP's
 * own RQ is refused, as is an SRQ receive with more SGEs than the SRQ's
 * max (bad_wr names it); the SRQ takes receives up to at least the
 * capacity it reported, the one beyond is refused with -ENOMEM.  Each WQE
 * scatters into its own part of the buffer, so the SENDs show that WQEs
 * are taken in order.  With the limit armed at n - 1 (n posted), the
 * event fires after the second SEND's WQE, not the first, and disarms.
 * The SRQ resized with WQEs still posted keeps them, in order.  Destroying
 * the QPs and the SRQ with WQEs left completes none of them.  Ten cases,
 * srq_create to srq_destroy.
 */
static const struct kv_seg kv_srq_d3[3] = { { 0, 1000 }, { 1500, 3000 }, { 9000, 8 } };

/* The run of a case after srq_create; @up: after srq_qp_connect too. */
static struct kv_run *kv_srq_at(struct kunit *test, bool up)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	KUNIT_ASSERT_TRUE_MSG(test, r->sq.srq, "not run: srq_create failed");
	KUNIT_ASSERT_TRUE_MSG(test, r->sq.up || !up, "not run: srq_qp_connect failed");
	return r;
}

/* The run of a case that needs at least 4 receives posted by srq_fill. */
static struct kv_run *kv_srq_filled(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);

	KUNIT_ASSERT_GE_MSG(test, r->sq.n, 4, "not run: srq_fill took fewer than 4 receives");
	return r;
}

void kv_case_srq_create(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	struct ib_srq_init_attr sia = {
		.event_handler = kv_srq_event,
		.srq_context = r,
		.attr = { .max_wr = 8, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;

	kv_arm(r, KV_ERECV);
	atomic_set(&r->srq_limit_events, 0);
	srq = ib_create_srq(r->pd, &sia);
	if (IS_ERR(srq)) {
		kv_fail(r, "ib_create_srq: %ld", PTR_ERR(srq));
		kv_report(r, false);
		return;
	}
	r->sq.srq = srq;
	r->sq.cap = sia.attr.max_wr;
	kv_report(r, r->sq.cap >= 8 || kv_fail(r, "max_wr %u, asked for 8", r->sq.cap));
}

void kv_case_srq_qp_connect(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, false);
	struct kv_srq *sq = &r->sq;

	sq->up = kv_pair_up(r, sq->qp, sq->srq, 0x30, 0x40);
	kv_report(r, sq->up);
}

void kv_case_srq_qp_post_recv_refused(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);
	int ret;

	ret = kv_post_recv(r, r->sq.qp[1], &r->comp[KV_ERECV], &r->dst[1], kv_srq_d3, 1);
	kv_report(r, ret == -EINVAL || kv_fail(r, "ib_post_recv on a QP with an SRQ: %d", ret));
}

void kv_case_srq_too_many_sge(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);
	const struct ib_recv_wr *rbad;
	int ret;

	ret = kv_post_srq_recv(r, r->sq.srq, &r->comp[KV_ERECV], kv_srq_d3, 3, &rbad);
	kv_report(r, (ret == -EINVAL && rbad) ||
		  kv_fail(r, "3 SGEs, max 2: %d, bad_wr %s", ret, rbad ? "set" : "not set"));
}

void kv_case_srq_fill(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);
	struct kv_srq *sq = &r->sq;
	const struct ib_recv_wr *rbad;
	struct kv_seg d[2];
	int ret, n = 0;
	bool ok;

	for (;;) {
		kv_srq_segs(d, n);
		ret = kv_post_srq_recv(r, sq->srq, &r->comp[KV_ERECV], d, 2, &rbad);
		if (ret || n == 4096)
			break;
		n++;
	}
	sq->n = n;
	ok = (ret == -ENOMEM && rbad) ||
	     kv_fail(r, "post %d: %d, expected -ENOMEM with bad_wr set", n + 1, ret);
	ok = ok && (n >= sq->cap || kv_fail(r, "only %d receives taken, capacity %u", n, sq->cap));
	kv_report(r, ok);
}

void kv_case_srq_arm_limit(struct kunit *test)
{
	struct kv_run *r = kv_srq_filled(test);
	struct kv_srq *sq = &r->sq;
	int ret;

	sq->qa.srq_limit = sq->n - 1;
	ret = ib_modify_srq(sq->srq, &sq->qa, IB_SRQ_LIMIT);
	kv_report(r, !ret || kv_fail(r, "ib_modify_srq(limit %d): %d", sq->n - 1, ret));
}

/* The limit event comes with the WQE taken, before its completion. */
void kv_case_srq_send_in_order(struct kunit *test)
{
	struct kv_run *r = kv_srq_filled(test);
	struct kv_srq *sq = &r->sq;
	bool ok = true;
	int i, ev;

	for (i = 0; i < 3 && ok; i++, sq->sent++) {
		ok = kv_srq_send(r, sq->qp[0], sq->qp[1], &r->comp[KV_ERECV], i);
		ev = atomic_read(&r->srq_limit_events);
		if (ok && ev != (i == 0 ? 0 : 1))
			ok = kv_fail(r, "%d limit events after SEND %d, expected %d", ev, i + 1,
				     i == 0 ? 0 : 1);
	}
	sq->in_order = ok;
	kv_report(r, ok);
}

void kv_case_srq_limit(struct kunit *test)
{
	struct kv_run *r = kv_srq_filled(test);
	struct kv_srq *sq = &r->sq;
	bool ok;
	int ret;

	ret = ib_query_srq(sq->srq, &sq->qa);
	ok = sq->in_order || kv_fail(r, "not run: srq_send_in_order failed");
	ok = ok && (!ret || kv_fail(r, "ib_query_srq: %d", ret));
	ok = ok && (sq->qa.srq_limit == 0 ||
		    kv_fail(r, "limit %u after the event, not 0", sq->qa.srq_limit));
	kv_report(r, ok);
}

/* Resize with n - 3 WQEs posted: they stay, in order. */
void kv_case_srq_resize(struct kunit *test)
{
	struct kv_run *r = kv_srq_filled(test);
	struct kv_srq *sq = &r->sq;
	bool ok;
	int ret;

	sq->qa.max_wr = 2 * sq->cap;
	ret = ib_modify_srq(sq->srq, &sq->qa, IB_SRQ_MAX_WR);
	ok = !ret || kv_fail(r, "ib_modify_srq(max_wr %u): %d", 2 * sq->cap, ret);
	if (ok) {
		ret = ib_query_srq(sq->srq, &sq->qa);
		ok = (!ret && sq->qa.max_wr >= 2 * sq->cap) ||
		     kv_fail(r, "after resize: query %d, max_wr %u", ret, sq->qa.max_wr);
	}
	if (ok) {
		ok = kv_srq_send(r, sq->qp[0], sq->qp[1], &r->comp[KV_ERECV], 3);
		sq->sent++;
	}
	kv_report(r, ok);
}

/* After srq_create, whether the pair came up or not. */
void kv_case_srq_destroy(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, false);
	struct kv_srq *sq = &r->sq;
	struct kv_comp *rc = &r->comp[KV_ERECV];
	bool ok;
	int ret;

	ok = kv_destroy_qp(r, &sq->qp[0], "SRQ pair QP 0");
	ok = kv_destroy_qp(r, &sq->qp[1], "SRQ pair QP 1") && ok;
	ret = ib_destroy_srq_user(sq->srq, NULL);
	sq->srq = NULL;
	ok = (!ret || kv_fail(r, "ib_destroy_srq: %d", ret)) && ok;
	kv_settle(r);
	if (ok && sq->up && atomic_read(&rc->count) != sq->sent)
		ok = kv_fail(r, "%d receive completions, expected the %d SENDs'",
			     atomic_read(&rc->count), sq->sent);
	kv_report(r, ok);
}
