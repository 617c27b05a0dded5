// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_ud.c - the UD pair: datagrams, Q_Keys, multicast, AHs
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

/* UD */

/* An AH to @dgid (NULL: the run's own GID); a multicast one gets its group's MAC. */
static struct ib_ah *kv_create_ah_to(struct kv_run *r, const union ib_gid *dgid, u32 flags)
{
	union ib_gid to = dgid ? *dgid : r->gid->gid;
	const struct in6_addr *a6 = (const struct in6_addr *)to.raw;
	struct rdma_ah_attr aa = {};
	struct ib_ah *ah;

	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&aa, KV_PORT);
	rdma_ah_set_grh(&aa, &to, 0, r->gid->index, 64, 0);
	if (!dgid) {
		if (!kv_own_dmac(r, aa.roce.dmac))
			return NULL;
	} else if (ipv6_addr_v4mapped(a6)) {
		ip_eth_mc_map(a6->s6_addr32[3], aa.roce.dmac);
	} else {
		ipv6_eth_mc_map(a6, aa.roce.dmac);
	}
	ah = rdma_create_ah(r->pd, &aa, flags);
	if (IS_ERR(ah)) {
		kv_fail(r, "rdma_create_ah: %ld", PTR_ERR(ah));
		return NULL;
	}
	return ah;
}

static struct ib_ah *kv_create_ah(struct kv_run *r, u32 flags)
{
	return kv_create_ah_to(r, NULL, flags);
}

static struct ib_qp *kv_create_ud_qp(struct kv_run *r, int side)
{
	struct ib_qp_init_attr ia = {
		.cap = { .max_recv_wr = KV_MAX_WR, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IB_QPT_UD,
	};

	return kv_create_qp_attr(r, side, &ia, "ib_create_qp(UD)");
}

/* RESET -> INIT (Q_Key) -> RTR -> RTS: a UD QP needs no path. */
static bool kv_ud_up(struct kv_run *r, struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = KV_PORT,
		.qkey = KV_QKEY,
	};
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY);
	if (!ret) {
		a.qp_state = IB_QPS_RTR;
		ret = ib_modify_qp(qp, &a, IB_QP_STATE);
	}
	if (!ret) {
		a.qp_state = IB_QPS_RTS;
		a.sq_psn = 0x777;
		ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	}
	if (ret)
		return kv_fail(r, "UD QP to RTS: %d", ret);
	return true;
}

/* A UD send of @len bytes of src[0] from QP 0 to QP 1, under @qkey. */
static void kv_ud_wr(struct kv_run *r, struct ib_ud_wr *uwr, struct ib_sge *sge,
		     struct ib_ah *ah, const struct kv_seg *s, bool imm, u32 qkey)
{
	kv_sges(r, sge, &r->src[0], s, 1);
	memset(uwr, 0, sizeof(*uwr));
	uwr->wr.sg_list = sge;
	uwr->wr.num_sge = 1;
	uwr->wr.opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND;
	uwr->wr.ex.imm_data = cpu_to_be32(0x0d000000 | s->len);
	uwr->ah = ah;
	uwr->remote_qpn = r->qp[1]->qp_num;
	uwr->remote_qkey = qkey;
}

/*
 * The GRH a UD receive left in the first 40 bytes, read back the way
 * ib_mad and ib_cm read it (ib_init_ah_attr_from_wc()): its source must
 * be the run's own GID, the receive flagged with its header type.
 */
static bool kv_ud_check_grh(struct kv_run *r, const struct ib_wc *wc, const void *grh)
{
	enum rdma_network_type want = rdma_gid_attr_network_type(r->gid);
	struct rdma_ah_attr aa = {};
	bool ok = true;
	int ret;

	if (!(wc->wc_flags & IB_WC_GRH))
		return kv_fail(r, "IB_WC_GRH not set");
	if (!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) || wc->network_hdr_type != want)
		return kv_fail(r, "network header type %d (flag %d), expected %d",
			       wc->network_hdr_type,
			       !!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE), want);
	/*
	 * Stock rxe leaves a wrong IPv4 checksum in a loopback datagram's GRH,
	 * which ib_core then takes for IPv6.
	 */
	if (r->d->rxe && want == RDMA_NETWORK_IPV4)
		return true;
	ret = ib_init_ah_attr_from_wc(r->d->ibdev, KV_PORT, wc, grh, &aa);
	if (ret)
		return kv_fail(r, "ib_init_ah_attr_from_wc: %d", ret);
	if (memcmp(rdma_ah_read_grh(&aa)->dgid.raw, r->gid->gid.raw, 16))
		ok = kv_fail(r, "GRH source %pI6c, expected %pI6c",
			     rdma_ah_read_grh(&aa)->dgid.raw, r->gid->gid.raw);
	rdma_destroy_ah_attr(&aa);
	return ok;
}

/* A datagram (arg: length, KV_ARG_IMM, KV_ARG_PRIV): GRH, then the payload. */
bool kv_t_ud_send(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 5, arg & KV_ARG_LEN };
	const struct kv_seg d = { 0, KV_BUF_SIZE }, at = { 40, s.len };
	u32 qkey = arg & KV_ARG_PRIV ? 0x80000000 : KV_QKEY;
	bool imm = arg & KV_ARG_IMM;
	const struct ib_wc *wc = &r->comp[KV_RECV].wc;
	struct ib_ud_wr uwr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, imm, qkey);
	if (!kv_xfer(r, &uwr.wr, IB_WC_SEND, true, &d, 1, IB_WC_RECV) ||
	    !kv_check_len(r, 40 + s.len) || !kv_check_imm(r, imm, uwr.wr.ex.imm_data))
		return false;
	if (wc->src_qp != r->qp[0]->qp_num)
		return kv_fail(r, "src_qp %#x, expected %#x", wc->src_qp, r->qp[0]->qp_num);
	kv_to_cpu(r, &r->dst[1]);
	if (!kv_ud_check_grh(r, wc, r->dst[1].va))
		return false;
	kv_expect(r, seed, &s, 1, &at, 1);
	memcpy(r->expect, r->dst[1].va, 40);	/* the GRH, checked above */
	return kv_verify(r, &r->dst[1], "UD receive buffer");
}

/*
 * The datagram @uwr (of src[0] at @s, from QP 0) is not to arrive: a
 * receive posted on QP 1 first, it completes on QP 0 (@sent names that
 * completion) and QP 1 gets nothing (@lost: the reason if it does).  The
 * receive left posted then takes a datagram of @s to QP 1 under its Q_Key.
 */
static bool kv_ud_not_received(struct kv_run *r, struct ib_ud_wr *uwr, struct ib_sge *sge,
			       const struct kv_seg *s, const char *sent, const char *lost)
{
	const struct kv_seg d = { 0, KV_BUF_SIZE };

	if (!kv_xfer_post(r, &uwr->wr, true, &d, 1) ||
	    !kv_wc(r, &r->comp[KV_SEND], sent, IB_WC_SUCCESS, IB_WC_SEND, r->qp[0]))
		return false;
	kv_settle(r);
	if (atomic_read(&r->comp[KV_RECV].count))
		return kv_fail(r, "%s", lost);
	kv_ud_wr(r, uwr, sge, r->ud_ah, s, false, KV_QKEY);
	return kv_xfer(r, &uwr->wr, IB_WC_SEND, false, NULL, 0, 0) &&
	       kv_wc(r, &r->comp[KV_RECV], "the receive left posted", IB_WC_SUCCESS, IB_WC_RECV,
		     r->qp[1]);
}

/*
 * A datagram under a Q_Key that is not the receiver's is dropped: the
 * receive stays posted and takes the next one.
 */
bool kv_t_ud_bad_qkey(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 64 };
	struct ib_ud_wr uwr;
	struct ib_sge sge;

	kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, false, KV_QKEY + 1);
	return kv_ud_not_received(r, &uwr, &sge, &s, "send completion",
				  "a datagram under a wrong Q_Key was received") &&
	       kv_check_len(r, 40 + s.len);
}

/*
 * A datagram longer than the port's MTU: sroce refuses the post
 * (-EMSGSIZE); stock rxe takes it and completes it without sending it
 * (C10-93.1.1).
 */
bool kv_t_ud_too_long(struct kv_run *r, unsigned long arg)
{
	struct ib_port_attr pa;
	const struct ib_send_wr *bad = NULL;
	struct kv_comp *sc = kv_arm(r, KV_SEND);
	struct kv_seg s = { 0, 0 };
	struct ib_ud_wr uwr;
	struct ib_sge sge;
	int ret;

	ret = ib_query_port(r->d->ibdev, KV_PORT, &pa);
	if (ret)
		return kv_fail(r, "ib_query_port: %d", ret);
	s.len = ib_mtu_enum_to_int(pa.active_mtu) + 1;
	kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, false, KV_QKEY);
	uwr.wr.wr_cqe = &sc->cqe;
	uwr.wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(r->qp[0], &uwr.wr, &bad);
	if (!r->d->rxe)
		return (ret == -EMSGSIZE && bad == &uwr.wr) ||
		       kv_fail(r, "%u bytes, MTU %u: ib_post_send %d, bad_wr %s", s.len,
			       s.len - 1, ret, bad ? "set" : "not set");
	if (ret)
		return kv_fail(r, "stock rxe refused %u bytes: %d", s.len, ret);
	return kv_wc(r, sc, "oversized datagram", IB_WC_SUCCESS, IB_WC_SEND, r->qp[0]);
}

/*
 * Multicast: QP 1 attached to a group (239.200.0.1, or ff0e::42 on an
 * IPv6 GID) receives what QP 0 sends to it (DestQP 0xFFFFFF, back
 * through the IP stack's multicast loopback); on sroce, attached twice
 * it stays until detached twice; once detached, QP 1 gets nothing more (its receive stays posted
 * for the next datagram to it) and a second detach fails.  Stock rxe
 * joins no IP group on attach (rdma_cm does that for its users), so on
 * it only the verbs are checked.
 */
/* A datagram from QP 0 to the group of @ah arrives at QP 1, bytes checked. */
static bool kv_mcast_deliver(struct kv_run *r, struct ib_ah *ah)
{
	const struct kv_seg s = { 3, 200 }, d = { 0, KV_BUF_SIZE }, at = { 40, s.len };
	const struct ib_wc *wc = &r->comp[KV_RECV].wc;
	struct ib_ud_wr uwr;
	struct ib_sge sge;
	u8 seed;

	seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_ud_wr(r, &uwr, &sge, ah, &s, false, KV_QKEY);
	uwr.remote_qpn = 0xffffff;
	if (!kv_xfer(r, &uwr.wr, IB_WC_SEND, true, &d, 1, IB_WC_RECV) ||
	    !kv_check_len(r, 40 + s.len))
		return false;
	if (wc->src_qp != r->qp[0]->qp_num)
		return kv_fail(r, "src_qp %#x, expected %#x", wc->src_qp, r->qp[0]->qp_num);
	kv_to_cpu(r, &r->dst[1]);
	kv_expect(r, seed, &s, 1, &at, 1);
	memcpy(r->expect, r->dst[1].va, 40);	/* the GRH */
	return kv_verify(r, &r->dst[1], "multicast receive buffer");
}

bool kv_t_ud_mcast(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 3, 200 };
	union ib_gid mgid = {};
	struct ib_ud_wr uwr;
	struct ib_sge sge;
	struct ib_ah *ah;
	bool ok = false;
	int ret;

	if (ipv6_addr_v4mapped((const struct in6_addr *)r->gid->gid.raw)) {
		ipv6_addr_set_v4mapped(htonl(0xefc80001), (struct in6_addr *)mgid.raw);
	} else {
		mgid.raw[0] = 0xff;
		mgid.raw[1] = 0x0e;
		mgid.raw[15] = 0x42;
	}
	/*
	 * Attached once: ib_core counts each successful attach on the QP
	 * (qp->usecnt) and each detach off it, so a second attach of the same
	 * QP, which rxe and sroce take as a no-op, would leave the QP
	 * impossible to destroy after one detach.
	 */
	ret = ib_attach_mcast(r->qp[1], &mgid, 0);
	if (ret)
		return kv_fail(r, "ib_attach_mcast: %d", ret);
	ah = kv_create_ah_to(r, &mgid, RDMA_CREATE_AH_SLEEPABLE);
	if (!ah)
		goto detach;
	if (!r->d->rxe) {
		if (!kv_mcast_deliver(r, ah))
			goto out;
		/* sroce counts attaches: twice attached, once detached, still there. */
		ret = ib_attach_mcast(r->qp[1], &mgid, 0);
		if (ret) {
			kv_fail(r, "attaching again: %d", ret);
			goto out;
		}
		ret = ib_detach_mcast(r->qp[1], &mgid, 0);
		if (ret) {
			kv_fail(r, "ib_detach_mcast of one of two attaches: %d", ret);
			goto out;
		}
		if (!kv_mcast_deliver(r, ah))
			goto out;
	}
	ret = ib_detach_mcast(r->qp[1], &mgid, 0);
	if (ret) {
		kv_fail(r, "ib_detach_mcast: %d", ret);
		goto out;
	}
	if (!r->d->rxe) {
		kv_prepare(r, &r->src[0], &r->dst[1]);
		kv_ud_wr(r, &uwr, &sge, ah, &s, false, KV_QKEY);
		uwr.remote_qpn = 0xffffff;
		if (!kv_ud_not_received(r, &uwr, &sge, &s, "send to the group",
					"a datagram to the group was received after the detach"))
			goto gone;
	}
	ret = ib_detach_mcast(r->qp[1], &mgid, 0);
	ok = ret == -EINVAL || kv_fail(r, "detaching again: %d, expected -EINVAL", ret);
	goto gone;
out:
	/* Attached once or twice (ib_core counts only detaches that succeed). */
	if (!ib_detach_mcast(r->qp[1], &mgid, 0))
		ib_detach_mcast(r->qp[1], &mgid, 0);
gone:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ok;
detach:
	ib_detach_mcast(r->qp[1], &mgid, 0);
	return false;
}

/* ib_cm creates and destroys AHs with a spinlock held: neither may sleep. */
bool kv_t_ah_atomic(struct kv_run *r, unsigned long arg)
{
	unsigned long flags;
	struct ib_ah *ah;

	spin_lock_irqsave(&kv_ulp_lock, flags);
	ah = kv_create_ah(r, 0);
	if (ah)
		rdma_destroy_ah(ah, 0);
	spin_unlock_irqrestore(&kv_ulp_lock, flags);
	return ah;
}

/*
 * UD QPs on the run's CQs, an AH to the run's own GID: datagrams with and
 * without immediate data, the Q_Key rules, the MTU limit, AHs made in
 * atomic context, then ib_drain_qp() on both QPs (stock rxe:
 * ib_drain_rq()), a receive posted.  From ud_setup to ud_destroy pair A's
 * QPs stand aside (r->qp is the UD pair).
 */
void kv_case_ud_setup(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	r->pair_a[0] = r->qp[0];
	r->pair_a[1] = r->qp[1];
	r->broken_a = r->broken;
	r->broken = false;
	r->qp[0] = kv_create_ud_qp(r, 0);
	r->qp[1] = r->qp[0] ? kv_create_ud_qp(r, 1) : NULL;
	r->ud_ah = r->qp[1] ? kv_create_ah(r, RDMA_CREATE_AH_SLEEPABLE) : NULL;
	r->ud_up = r->ud_ah && kv_ud_up(r, r->qp[0]) && kv_ud_up(r, r->qp[1]);
	kv_report(r, r->ud_up);
}

/* The run of a UD case after ud_setup: else not run. */
static struct kv_run *kv_ud_at(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	KUNIT_ASSERT_TRUE_MSG(test, r->ud_up, "not run: ud_setup failed");
	return r;
}

/* A check on the UD pair. */
void kv_ud_check(struct kunit *test, kv_test_fn fn, unsigned long arg)
{
	kv_run_check(kv_ud_at(test), fn, arg);
}

/* Drain: the posted receive is flushed, the send queue's marker too. */
void kv_case_ud_drain(struct kunit *test)
{
	struct kv_run *r = kv_ud_at(test);
	const struct kv_seg d = { 0, 256 };
	struct kv_comp *rc = kv_arm(r, KV_ERECV);
	bool ok;
	int i, ret;

	ret = kv_post_recv(r, r->qp[1], rc, &r->dst[1], &d, 1);
	ok = !ret || kv_fail(r, "ib_post_recv: %d", ret);
	if (ok) {
		/*
		 * Stock rxe on 6.1 refuses ib_drain_sq()'s RDMA WRITE on a UD
		 * QP (-EINVAL, and ib_core WARNs): its receive queues only.
		 */
		for (i = 0; i < 2; i++) {
			if (r->d->rxe)
				ib_drain_rq(r->qp[i]);
			else
				ib_drain_qp(r->qp[i]);
		}
		ok = kv_wc(r, rc, "receive flushed by ib_drain_qp", IB_WC_WR_FLUSH_ERR, 0,
			   r->qp[1]);
	}
	kv_report(r, ok);
}

/* After ud_setup, whether it passed or not; pair A comes back. */
void kv_case_ud_destroy(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	bool ok;
	int n;

	ok = kv_destroy_qp(r, &r->qp[0], "UD QP 0");
	ok = kv_destroy_qp(r, &r->qp[1], "UD QP 1") && ok;
	if (r->ud_ah) {
		rdma_destroy_ah(r->ud_ah, RDMA_DESTROY_AH_SLEEPABLE);
		r->ud_ah = NULL;
	}
	kv_report(r, ok);
	r->qp[0] = r->pair_a[0];
	r->qp[1] = r->pair_a[1];
	r->pair_a[0] = NULL;
	r->pair_a[1] = NULL;
	r->broken = r->broken_a;
	n = atomic_read(&r->qp_events);
	if (n)
		kunit_info(test, "%s: %d QP event(s), the last %s", r->name, n,
			   ib_event_msg(READ_ONCE(r->last_event)));
}
