// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_rc.c - the checks on pair A: SEND, WRITE, READ, atomics, posting
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

/* Checks on pair A */

/* SEND or SEND_WITH_IMM of one SGE: arg is the length (| KV_ARG_IMM). */
bool kv_t_send(struct kv_run *r, unsigned long arg)
{
	u32 len = arg & KV_ARG_LEN;
	bool imm = arg & KV_ARG_IMM;
	const struct kv_seg s = { 3, len }, d = { 0, KV_BUF_SIZE };
	__be32 immv = cpu_to_be32(0x5a000000 | len);
	struct ib_send_wr wr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_send_wr(r, &wr, &sge, &s, 0);
	if (imm) {
		wr.opcode = IB_WR_SEND_WITH_IMM;
		wr.ex.imm_data = immv;
	}
	if (!kv_xfer(r, &wr, IB_WC_SEND, true, &d, 1, IB_WC_RECV) ||
	    !kv_check_len(r, len) || !kv_check_imm(r, imm, immv))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "receive buffer");
}

/*
 * The receive ring filled: posts are taken up to at least the capacity
 * ib_create_qp() reported, the one beyond is refused with -ENOMEM and
 * bad_wr set to it.  A SEND then consumes one receive, and its completion
 * handler reposts at once, which must find the room the completed receive
 * left (the provider releases the slot before it completes the WR).  Then
 * SENDs consume every receive left, each a success.
 */
bool kv_t_ring_full(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 1 }, d = { 0, 64 };
	struct kv_comp *c = kv_arm(r, KV_FILL);
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr wr;
	struct ib_sge sge, rsge;
	int n = 0, ret, i;

	atomic_set(&r->fill_errors, 0);
	for (;;) {
		kv_sges(r, &rsge, &r->dst[1], &d, 1);
		rwr.wr_cqe = &c->cqe;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		bad = NULL;
		ret = ib_post_recv(r->qp[1], &rwr, &bad);
		if (ret || n == 4096)
			break;
		n++;
	}
	r->broken = true;	/* until every receive posted is consumed */
	if (ret != -ENOMEM || bad != &rwr)
		return kv_fail(r, "post %d: %d (bad_wr %s), expected -ENOMEM with bad_wr set",
			       n + 1, ret, bad == &rwr ? "set" : "not set");
	if (n < r->cap.max_recv_wr)
		return kv_fail(r, "only %d receives taken, capacity %u reported", n,
			       r->cap.max_recv_wr);

	kv_send_wr(r, &wr, &sge, &s, 0);
	r->repost_ret = 1;
	atomic_set(&r->repost_armed, 1);
	if (!kv_xfer(r, &wr, IB_WC_SEND, false, NULL, 0, 0) || !kv_wait_count(r, c, 1))
		return kv_fail(r, "the first SEND did not complete");
	if (r->repost_ret)
		return kv_fail(r, "repost from the completion handler: %d", r->repost_ret);
	for (i = 0; i < n; i++) {
		kv_send_wr(r, &wr, &sge, &s, 0);
		if (!kv_xfer(r, &wr, IB_WC_SEND, false, NULL, 0, 0) ||
		    !kv_wait_count(r, c, i + 2))
			return kv_fail(r, "SEND %d of %d to consume the ring did not complete",
				       i + 1, n);
	}
	if (atomic_read(&r->fill_errors))
		return kv_fail(r, "%d receive completions in error", atomic_read(&r->fill_errors));
	r->broken = false;
	return kv_no_stray(r, "ring_full");
}

/* Gathered from three unaligned SGEs, scattered into three others. */
static const struct kv_seg kv_sg_send[] = { { 3, 7 }, { 1001, 1500 }, { 7777, 2999 } };
static const struct kv_seg kv_sg_recv[] = { { 1, 100 }, { 2049, 3000 }, { 9003, 2000 } };

bool kv_t_send_sge3(struct kv_run *r, unsigned long arg)
{
	struct ib_send_wr wr = {};
	struct ib_sge sge[3];
	u8 seed;

	if (r->cap.max_send_sge < 3 || r->cap.max_recv_sge < 3)
		return kv_fail(r, "max_send_sge %u, max_recv_sge %u: fewer than 3",
			       r->cap.max_send_sge, r->cap.max_recv_sge);
	seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_sges(r, sge, &r->src[0], kv_sg_send, 3);
	wr.opcode = IB_WR_SEND;
	wr.sg_list = sge;
	wr.num_sge = 3;
	if (!kv_xfer(r, &wr, IB_WC_SEND, true, kv_sg_recv, 3, IB_WC_RECV) ||
	    !kv_check_len(r, 7 + 1500 + 2999))
		return false;
	kv_expect(r, seed, kv_sg_send, 3, kv_sg_recv, 3);
	return kv_verify(r, &r->dst[1], "receive buffers");
}

/* Inline: the source may be reused as soon as ib_post_send() returns. */
bool kv_t_send_inline(struct kv_run *r, unsigned long arg)
{
	u32 len = min_t(u32, r->cap.max_inline_data, 61);
	const struct kv_seg s = { 5, len }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr;
	struct ib_sge sge;
	u8 seed;

	if (!len)
		return kv_fail(r, "max_inline_data is 0");
	seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_send_wr(r, &wr, &sge, &s, IB_SEND_INLINE);
	if (!kv_xfer_post(r, &wr, true, &d, 1))
		return false;
	memset(r->src[0].va + s.off, 0x5a, len);
	kv_to_dev(r, &r->src[0]);
	if (!kv_xfer_wait(r, IB_WC_SEND, true, IB_WC_RECV) ||
	    !kv_check_len(r, len))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "receive buffer (source overwritten after the post)");
}

/*
 * An RDMA WR of @op: the local bytes of @lb at @ls (one SGE), the remote
 * ones of @rb at @rs, through the PD's global rkey.
 */
static void kv_rdma_wr(struct kv_run *r, struct ib_rdma_wr *wr, struct ib_sge *sge,
		       enum ib_wr_opcode op, struct kv_buf *lb, const struct kv_seg *ls,
		       struct kv_buf *rb, const struct kv_seg *rs)
{
	kv_sges(r, sge, lb, ls, 1);
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = op;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = rb->dma + rs->off;
	wr->rkey = r->pd->unsafe_global_rkey;
}

/* RDMA WRITE of arg bytes (0: no SGE) into dst[1] at an odd offset. */
bool kv_t_write(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 5, len };
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_rdma_wr(r, &wr, &sge, IB_WR_RDMA_WRITE, &r->src[0], &s, &r->dst[1], &d);
	if (!len) {
		wr.wr.sg_list = NULL;
		wr.wr.num_sge = 0;
	}
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_WRITE, false, NULL, 0, 0))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "target buffer");
}

/* RDMA WRITE_WITH_IMM: consumes a receive (with no SGE) on QP 1. */
bool kv_t_write_imm(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 5, len };
	__be32 immv = cpu_to_be32(0xa5000000 | len);
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_rdma_wr(r, &wr, &sge, IB_WR_RDMA_WRITE_WITH_IMM, &r->src[0], &s, &r->dst[1], &d);
	wr.wr.ex.imm_data = immv;
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_WRITE, true, NULL, 0,
		     IB_WC_RECV_RDMA_WITH_IMM) ||
	    !kv_check_len(r, len) || !kv_check_imm(r, true, immv))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "target buffer");
}

/* RDMA READ of arg bytes from src[1] into dst[0]. */
bool kv_t_read(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 7, len };
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[1], &r->dst[0]);

	kv_rdma_wr(r, &wr, &sge, IB_WR_RDMA_READ, &r->dst[0], &d, &r->src[1], &s);
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_READ, false, NULL, 0, 0))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[0], "local buffer");
}

struct kv_atomic_case {
	enum ib_wr_opcode op;
	enum ib_wc_opcode wop;
	u64 init;	/* the remote value before, and the one returned */
	u64 compare_add;
	u64 swap;
	u64 after;	/* the remote value after */
};

static const struct kv_atomic_case kv_atomics[] = {
	[KV_ATOMIC_CMP_SWP] = { IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_COMP_SWAP,
				KV_X, KV_X, KV_Y, KV_Y },
	[KV_ATOMIC_CMP_SWP_MISS] = { IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_COMP_SWAP,
				     KV_Y, 1, KV_X, KV_Y },
	[KV_ATOMIC_FETCH_ADD] = { IB_WR_ATOMIC_FETCH_AND_ADD, IB_WC_FETCH_ADD,
				  KV_Y, KV_ADD, 0, KV_Y + KV_ADD },
};

/* Set the remote u64 (dst[1]) and canaries everywhere else. */
void kv_atomic_prepare(struct kv_run *r, u64 init)
{
	memset(r->dst[0].va, KV_CANARY, KV_BUF_SIZE);
	memset(r->dst[1].va, KV_CANARY, KV_BUF_SIZE);
	*(u64 *)(r->dst[1].va + KV_ATOM_TARGET) = init;
	kv_to_dev(r, &r->dst[0]);
	kv_to_dev(r, &r->dst[1]);
}

bool kv_check_u64(struct kv_run *r, struct kv_buf *b, u32 off, u64 want,
		  const char *what)
{
	u64 got;

	kv_to_cpu(r, b);
	got = *(u64 *)(b->va + off);
	if (got != want)
		return kv_fail(r, "%s %#llx, expected %#llx", what, got, want);
	memset(r->expect, KV_CANARY, KV_BUF_SIZE);
	memcpy(r->expect + off, &want, sizeof(want));
	return kv_verify(r, b, what);
}

bool kv_t_atomic(struct kv_run *r, unsigned long arg)
{
	const struct kv_atomic_case *c = &kv_atomics[arg];
	const struct kv_seg res = { KV_ATOM_RESULT, sizeof(u64) };
	struct ib_atomic_wr wr = {};
	struct ib_sge sge;

	if (!r->atomic_mr)
		return kv_fail(r, "no DMA MR with remote atomic access");
	kv_atomic_prepare(r, c->init);
	kv_sges(r, &sge, &r->dst[0], &res, 1);
	wr.wr.opcode = c->op;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = r->dst[1].dma + KV_ATOM_TARGET;
	wr.rkey = r->atomic_mr->rkey;
	wr.compare_add = c->compare_add;
	wr.swap = c->swap;
	return kv_xfer(r, &wr.wr, c->wop, false, NULL, 0, 0) &&
	       kv_check_u64(r, &r->dst[0], KV_ATOM_RESULT, c->init,
			    "returned original value") &&
	       kv_check_u64(r, &r->dst[1], KV_ATOM_TARGET, c->after,
			    "remote value after");
}

/*
 * A READ into dst[0], then a fenced SEND of what it read: the SEND must
 * wait for the READ's data.
 */
bool kv_t_fence(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg rs = { 11, 4097 }, ls = { 0, 4097 };
	const struct kv_seg d = { 0, KV_BUF_SIZE };
	const struct ib_send_wr *bad = NULL;
	struct kv_comp *c0 = kv_arm(r, KV_SEND), *c1 = kv_arm(r, KV_SEND2);
	struct kv_comp *rc = kv_arm(r, KV_RECV);
	struct ib_rdma_wr rd = {};
	struct ib_send_wr snd = {};
	struct ib_sge sge[2];
	u8 seed = kv_prepare(r, &r->src[1], &r->dst[0]);
	int ret;

	memset(r->dst[1].va, KV_CANARY, KV_BUF_SIZE);
	kv_to_dev(r, &r->dst[1]);
	ret = kv_post_recv(r, r->qp[1], rc, &r->dst[1], &d, 1);
	if (ret)
		return kv_fail(r, "ib_post_recv: %d", ret);
	kv_sges(r, &sge[0], &r->dst[0], &ls, 1);
	kv_sges(r, &sge[1], &r->dst[0], &ls, 1);
	rd.wr.wr_cqe = &c0->cqe;
	rd.wr.opcode = IB_WR_RDMA_READ;
	rd.wr.send_flags = IB_SEND_SIGNALED;
	rd.wr.sg_list = &sge[0];
	rd.wr.num_sge = 1;
	rd.wr.next = &snd;
	rd.remote_addr = r->src[1].dma + rs.off;
	rd.rkey = r->pd->unsafe_global_rkey;
	snd.wr_cqe = &c1->cqe;
	snd.opcode = IB_WR_SEND;
	snd.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE;
	snd.sg_list = &sge[1];
	snd.num_sge = 1;
	ret = ib_post_send(r->qp[0], &rd.wr, &bad);
	if (ret) {
		r->broken = true;
		return kv_fail(r, "ib_post_send: %d", ret);
	}
	if (!kv_wc(r, c0, "READ completion", IB_WC_SUCCESS, IB_WC_RDMA_READ, r->qp[0]) ||
	    !kv_wc(r, c1, "SEND completion", IB_WC_SUCCESS, IB_WC_SEND, r->qp[0]) ||
	    !kv_wc(r, rc, "receive completion", IB_WC_SUCCESS, IB_WC_RECV, r->qp[1]) ||
	    !kv_check_len(r, ls.len))
		return false;
	kv_expect(r, seed, &rs, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "received (what the READ fetched)");
}

/* KV_BURST unsignaled WRITEs, then a signaled one: one completion. */
struct kv_burst {
	struct kv_seg s[KV_BURST + 1];
	struct kv_seg d[KV_BURST + 1];
	struct ib_rdma_wr wr[KV_BURST + 1];
	struct ib_sge sge[KV_BURST + 1];
};

bool kv_t_burst(struct kv_run *r, unsigned long arg)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_comp *stray = kv_arm(r, KV_STRAY);
	struct kv_comp *sc = kv_arm(r, KV_SEND);
	struct kv_burst *b;
	bool ok = false;
	u8 seed;
	int i, ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return kv_fail(r, "no memory");
	seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	for (i = 0; i <= KV_BURST; i++) {
		b->s[i].off = 1 + i * 1024;
		b->s[i].len = 1000;
		b->d[i].off = 2 + i * 1024;
		b->d[i].len = 1000;
		kv_sges(r, &b->sge[i], &r->src[0], &b->s[i], 1);
		b->wr[i].wr.wr_cqe = i < KV_BURST ? &stray->cqe : &sc->cqe;
		b->wr[i].wr.opcode = IB_WR_RDMA_WRITE;
		b->wr[i].wr.send_flags = i < KV_BURST ? 0 : IB_SEND_SIGNALED;
		b->wr[i].wr.sg_list = &b->sge[i];
		b->wr[i].wr.num_sge = 1;
		b->wr[i].wr.next = i < KV_BURST ? &b->wr[i + 1].wr : NULL;
		b->wr[i].remote_addr = r->dst[1].dma + b->d[i].off;
		b->wr[i].rkey = r->pd->unsafe_global_rkey;
	}
	ret = ib_post_send(r->qp[0], &b->wr[0].wr, &bad);
	if (ret) {
		r->broken = true;
		kv_fail(r, "ib_post_send: %d", ret);
		goto out;
	}
	if (!kv_wc(r, sc, "signaled WRITE", IB_WC_SUCCESS, IB_WC_RDMA_WRITE, r->qp[0]) ||
	    !kv_no_stray(r, "unsignaled WRITEs"))
		goto out;
	kv_expect(r, seed, b->s, KV_BURST + 1, b->d, KV_BURST + 1);
	ok = kv_verify(r, &r->dst[1], "target buffer");
out:
	kfree(b);
	return ok;
}

/*
 * Posts with interrupts off under a spinlock, as ib_mad posts its MADs
 * (ib_send_mad(), ib_mad_post_receive_mads()): a receive on QP 1 and a
 * SEND on QP 0, then the transfer completes as any other.  On the debug
 * kernel lockdep checks the provider's post paths in that context.
 */
DEFINE_SPINLOCK(kv_ulp_lock);

bool kv_t_irqs_off(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 11, 777 }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr;
	unsigned long flags;
	struct ib_sge sge;
	bool ok;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_send_wr(r, &wr, &sge, &s, 0);
	spin_lock_irqsave(&kv_ulp_lock, flags);
	ok = kv_xfer_post(r, &wr, true, &d, 1);
	spin_unlock_irqrestore(&kv_ulp_lock, flags);
	if (!ok || !kv_xfer_wait(r, IB_WC_SEND, true, IB_WC_RECV) || !kv_check_len(r, s.len))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "receive buffer");
}

/* A SEND with the solicited bit reaches a CQ with a completion handler. */
bool kv_t_solicited(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 100 }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr;
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_send_wr(r, &wr, &sge, &s, IB_SEND_SOLICITED);
	if (!kv_xfer(r, &wr, IB_WC_SEND, true, &d, 1, IB_WC_RECV) ||
	    !kv_check_len(r, s.len))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "receive buffer");
}

/*
 * A harmless WR (an 8-byte WRITE into dst[1]) that ib_post_send() must
 * refuse: with the QP in RESET or INIT (arg: the state).
 */
bool kv_t_post_refused(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 8 };
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	int ret;

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.wr.wr_cqe = &kv_arm(r, KV_STRAY)->cqe;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = r->dst[1].dma + 256;
	wr.rkey = r->pd->unsafe_global_rkey;
	ret = ib_post_send(r->qp[0], &wr.wr, &bad);
	if (!ret)
		return kv_fail(r, "ib_post_send in %s returned 0",
			       arg == IB_QPS_RESET ? "RESET" : "INIT");
	if (bad != &wr.wr)
		return kv_fail(r, "returned %d but bad_wr does not point to the WR", ret);
	return true;
}

/* An opcode RC has no use for (LSO is for UD) must be refused. */
bool kv_t_bad_opcode(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 8 };
	const struct ib_send_wr *bad = NULL;
	struct ib_ud_wr wr = {};	/* room for what an LSO WR carries */
	struct ib_sge sge;
	int ret;

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.wr.wr_cqe = &kv_arm(r, KV_STRAY)->cqe;
	wr.wr.opcode = IB_WR_LSO;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	ret = ib_post_send(r->qp[0], &wr.wr, &bad);
	if (!ret) {
		r->broken = true;
		return kv_fail(r, "IB_WR_LSO on an RC QP was accepted");
	}
	if (bad != &wr.wr)
		return kv_fail(r, "returned %d but bad_wr does not point to the WR", ret);
	return kv_no_stray(r, "refused WR");
}

/*
 * A list of a good WRITE and one with max_send_sge + 1 SGEs: the first
 * is posted and completes, the second is refused and named by bad_wr.
 */
bool kv_t_too_many_sge(struct kv_run *r, unsigned long arg)
{
	u32 i, n = r->cap.max_send_sge + 1;
	const struct kv_seg s = { 0, 8 };
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr good = {}, over = {};
	struct kv_comp *sc = kv_arm(r, KV_SEND);
	struct ib_sge *sges, sge;
	bool ok = true;
	int ret;

	sges = kcalloc(n, sizeof(*sges), GFP_KERNEL);
	if (!sges)
		return kv_fail(r, "no memory for %u SGEs", n);
	for (i = 0; i < n; i++) {
		sges[i].addr = r->src[0].dma + 16 * i;
		sges[i].length = 8;
		sges[i].lkey = r->pd->local_dma_lkey;
	}
	kv_sges(r, &sge, &r->src[0], &s, 1);
	good.wr.wr_cqe = &sc->cqe;
	good.wr.opcode = IB_WR_RDMA_WRITE;
	good.wr.send_flags = IB_SEND_SIGNALED;
	good.wr.sg_list = &sge;
	good.wr.num_sge = 1;
	good.wr.next = &over.wr;
	good.remote_addr = r->dst[1].dma;
	good.rkey = r->pd->unsafe_global_rkey;
	over.wr.wr_cqe = &kv_arm(r, KV_STRAY)->cqe;
	over.wr.opcode = IB_WR_RDMA_WRITE;
	over.wr.send_flags = IB_SEND_SIGNALED;
	over.wr.sg_list = sges;
	over.wr.num_sge = n;
	over.remote_addr = r->dst[1].dma + 1024;
	over.rkey = r->pd->unsafe_global_rkey;
	ret = ib_post_send(r->qp[0], &good.wr, &bad);
	if (!ret) {
		ok = kv_fail(r, "a WR of %u SGEs was accepted (max_send_sge %u)",
			     n, r->cap.max_send_sge);
		r->broken = true;
	} else if (bad != &over.wr) {
		ok = kv_fail(r, "returned %d but bad_wr is %s", ret,
			     bad == &good.wr ? "the good first WR" : "not the second WR");
	}
	/* Unless refused too, the first WR completes. */
	if (ret && bad == &good.wr)
		goto out;
	if (!kv_wc(r, sc, "the good first WR", IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		   r->qp[0]) ||
	    !kv_no_stray(r, "refused WR"))
		ok = false;
out:
	kfree(sges);
	return ok;
}
