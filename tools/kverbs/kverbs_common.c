// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_common.c - the suite's runs, reporting, completions, data and work requests
 * (sroce_kverbs.ko: see kverbs_suite.c).
 */
#include "kverbs.h"

struct kv_dev kv_device;

/* In the order the runs always went: the IPv4 GID first. */
const struct kv_param kv_params[KV_NRUN] = {
	{ IB_POLL_DIRECT, KV_V4 },
	{ IB_POLL_SOFTIRQ, KV_V4 },
	{ IB_POLL_WORKQUEUE, KV_V4 },
	{ IB_POLL_DIRECT, KV_V6 },
	{ IB_POLL_SOFTIRQ, KV_V6 },
	{ IB_POLL_WORKQUEUE, KV_V6 },
};

const char *const kv_fam_name[KV_NFAM] = { "v4", "v6" };

/* The setup case that takes a run past each stage. */
static const char *const kv_stage_case[] = {
	[KV_STAGE_NONE] = "alloc_pd",
	[KV_STAGE_PD] = "buffers",
	[KV_STAGE_BUFFERS] = "alloc_cq",
	[KV_STAGE_CQ] = "create_qp",
	[KV_STAGE_QP] = "none",
};

static const char *kv_poll_name(enum ib_poll_context poll)
{
	switch (poll) {
	case IB_POLL_DIRECT:
		return "direct";
	case IB_POLL_SOFTIRQ:
		return "softirq";
	case IB_POLL_WORKQUEUE:
		return "workqueue";
	default:
		return "other";
	}
}

void kv_run_name(char *buf, size_t size, const struct kv_param *p)
{
	snprintf(buf, size, "%s_%s_%s", kv_device.name, kv_poll_name(p->poll),
		 kv_fam_name[p->fam]);
}

/* Reporting */

/* Record why the check fails (the first reason given wins); false. */
__printf(2, 3) bool kv_fail(struct kv_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return false;
}

/* The verdict of the running check: @ok, or fails with the first reason. */
void kv_report(struct kv_run *r, bool ok)
{
	KUNIT_EXPECT_TRUE_MSG(r->test, ok, "%s", r->why[0] ? r->why : "(no detail)");
	r->why[0] = '\0';
}

/*
 * The run of @test's parameter, its setup done at least up to @need;
 * otherwise the case fails as not run, and ends.
 */
struct kv_run *kv_run_at(struct kunit *test, enum kv_stage need)
{
	const struct kv_param *p = test->param_value;
	struct kv_run *r = kv_device.run[p - kv_params];
	enum kv_stage got = r ? r->stage : KV_STAGE_NONE;

	KUNIT_ASSERT_TRUE_MSG(test, r && got >= need,
			      "not run: the run's setup stopped at %s", kv_stage_case[got]);
	r->test = test;
	return r;
}

/* Run one check on the pair in r->qp, unless an earlier one broke it. */
void kv_run_check(struct kv_run *r, kv_test_fn fn, unsigned long arg)
{
	bool ok;

	if (r->broken)
		ok = kv_fail(r, "not run: an earlier failure left the QPs unusable");
	else
		ok = fn(r, arg);
	kv_report(r, ok);
}

/* A check on pair A. */
void kv_check(struct kunit *test, kv_test_fn fn, unsigned long arg)
{
	kv_run_check(kv_run_at(test, KV_STAGE_QP), fn, arg);
}

/* Completions */

void kv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_comp *c = container_of(wc->wr_cqe, struct kv_comp, cqe);

	c->wc = *wc;
	atomic_inc(&c->count);
	complete(&c->done);
}

static int kv_poll_direct(struct kv_run *r);

/*
 * KV_FILL's handler: on an IB_POLL_SOFTIRQ CQ it runs inside the
 * provider's completion; once armed it reposts the receive at once, as a
 * ULP refilling its ring does.
 */
void kv_done_fill(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_comp *c = container_of(wc->wr_cqe, struct kv_comp, cqe);
	struct kv_run *r = container_of(c, struct kv_run, comp[KV_FILL]);
	const struct kv_seg d = { 0, 64 };

	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&r->fill_errors);
	if (atomic_xchg(&r->repost_armed, 0))
		r->repost_ret = kv_post_recv(r, r->qp[1], c, &r->dst[1], &d, 1);
	kv_done(cq, wc);
}

/* Wait until c has @n completions since armed. */
bool kv_wait_count(struct kv_run *r, struct kv_comp *c, int n)
{
	unsigned long deadline = jiffies + KV_TIMEOUT_S * HZ;

	while (atomic_read(&c->count) < n) {
		if (r->poll == IB_POLL_DIRECT && kv_poll_direct(r))
			continue;
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(20, 100);
	}
	return true;
}

struct kv_comp *kv_arm(struct kv_run *r, enum kv_comp_id id)
{
	struct kv_comp *c = &r->comp[id];

	reinit_completion(&c->done);
	atomic_set(&c->count, 0);
	memset(&c->wc, 0, sizeof(c->wc));
	return c;
}

static int kv_poll_direct(struct kv_run *r)
{
	return ib_process_cq_direct(r->cq[0], 16) +
	       ib_process_cq_direct(r->cq[1], 16);
}

/*
 * Wait for a completion of c: true if one came within KV_TIMEOUT_S.  On a
 * DIRECT CQ nothing waits on c->done, so it counts what c->count counts.
 */
bool kv_wait(struct kv_run *r, struct kv_comp *c)
{
	if (r->poll != IB_POLL_DIRECT)
		return wait_for_completion_timeout(&c->done, KV_TIMEOUT_S * HZ);
	return kv_wait_count(r, c, 1);
}

/* Give completions that should not come the time to come anyway. */
void kv_settle(struct kv_run *r)
{
	msleep(50);
	if (r->poll == IB_POLL_DIRECT)
		while (kv_poll_direct(r))
			;
}

/* Wait for c and check its status, QP, opcode (on success) and count. */
bool kv_wc(struct kv_run *r, struct kv_comp *c, const char *what,
	   enum ib_wc_status status, enum ib_wc_opcode opcode,
	   struct ib_qp *qp)
{
	if (!kv_wait(r, c)) {
		r->broken = true;
		return kv_fail(r, "%s: no completion in %d s", what, KV_TIMEOUT_S);
	}
	if (c->wc.status != status) {
		if (status == IB_WC_SUCCESS)
			r->broken = true;
		return kv_fail(r, "%s: status %s (%d), expected %s", what,
			       ib_wc_status_msg(c->wc.status), c->wc.status,
			       ib_wc_status_msg(status));
	}
	if (c->wc.qp != qp)
		return kv_fail(r, "%s: wc.qp is not the QP posted to", what);
	if (status == IB_WC_SUCCESS && c->wc.opcode != opcode)
		return kv_fail(r, "%s: opcode %d, expected %d", what,
			       c->wc.opcode, opcode);
	if (atomic_read(&c->count) != 1)
		return kv_fail(r, "%s: %d completions for one WR", what,
			       atomic_read(&c->count));
	return true;
}

bool kv_no_stray(struct kv_run *r, const char *what)
{
	int n;

	kv_settle(r);
	n = atomic_read(&r->comp[KV_STRAY].count);
	if (n)
		return kv_fail(r, "%s: %d completion(s) of WRs that must not complete (last: %s)",
			       what, n,
			       ib_wc_status_msg(r->comp[KV_STRAY].wc.status));
	return true;
}

/* Data */

static u8 kv_pat(u8 seed, u32 i)
{
	u32 x = i * 2654435761U + seed * 40503U;

	return (u8)((x >> 24) ^ (x >> 11));
}

void kv_to_dev(struct kv_run *r, struct kv_buf *b)
{
	ib_dma_sync_single_for_device(r->d->ibdev, b->dma, KV_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

void kv_to_cpu(struct kv_run *r, struct kv_buf *b)
{
	ib_dma_sync_single_for_cpu(r->d->ibdev, b->dma, KV_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
}

static void kv_fill(struct kv_buf *b, u8 seed)
{
	u8 *p = b->va;
	u32 i;

	for (i = 0; i < KV_BUF_SIZE; i++)
		p[i] = kv_pat(seed, i);
}

/* A fresh pattern in src, canaries in dst; returns the pattern's seed. */
u8 kv_prepare(struct kv_run *r, struct kv_buf *src, struct kv_buf *dst)
{
	u8 seed = ++r->seed;

	kv_fill(src, seed);
	memset(dst->va, KV_CANARY, KV_BUF_SIZE);
	kv_to_dev(r, src);
	kv_to_dev(r, dst);
	return seed;
}

/*
 * The expected destination: canaries, and the stream gathered from the
 * source segments s (pattern seed) scattered into the segments d.
 */
void kv_expect(struct kv_run *r, u8 seed, const struct kv_seg *s,
	       int ns, const struct kv_seg *d, int nd)
{
	u32 so = 0, dofs = 0, n, k;
	int si = 0, di = 0;

	memset(r->expect, KV_CANARY, KV_BUF_SIZE);
	while (si < ns && di < nd) {
		n = min(s[si].len - so, d[di].len - dofs);
		for (k = 0; k < n; k++)
			r->expect[d[di].off + dofs + k] =
				kv_pat(seed, s[si].off + so + k);
		so += n;
		dofs += n;
		if (so == s[si].len) {
			si++;
			so = 0;
		}
		if (dofs == d[di].len) {
			di++;
			dofs = 0;
		}
	}
}

bool kv_verify(struct kv_run *r, struct kv_buf *b, const char *what)
{
	const u8 *p = b->va;
	u32 i;

	kv_to_cpu(r, b);
	for (i = 0; i < KV_BUF_SIZE; i++)
		if (p[i] != r->expect[i])
			return kv_fail(r, "%s: byte %u is %#x, expected %#x",
				       what, i, p[i], r->expect[i]);
	return true;
}

/* Work requests */

void kv_sges(struct kv_run *r, struct ib_sge *sge, struct kv_buf *b,
	     const struct kv_seg *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = b->dma + s[i].off;
		sge[i].length = s[i].len;
		sge[i].lkey = r->pd->local_dma_lkey;
	}
}

/* A SEND of src[0] at @s, one SGE, with @flags; no completion slot yet. */
void kv_send_wr(struct kv_run *r, struct ib_send_wr *wr, struct ib_sge *sge,
		const struct kv_seg *s, int flags)
{
	kv_sges(r, sge, &r->src[0], s, 1);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_SEND;
	wr->send_flags = flags;
	wr->sg_list = sge;
	wr->num_sge = 1;
}

int kv_post_recv(struct kv_run *r, struct ib_qp *qp, struct kv_comp *c,
		 struct kv_buf *b, const struct kv_seg *s, int n)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr wr = {};
	struct ib_sge sge[KV_SGE];

	kv_sges(r, sge, b, s, n);
	wr.wr_cqe = &c->cqe;
	wr.sg_list = n ? sge : NULL;
	wr.num_sge = n;
	return ib_post_recv(qp, &wr, &bad);
}

/*
 * Post wr on QP 0 as a signaled WR of KV_SEND, after a receive on QP 1
 * (KV_RECV, into dst[1] at the segments rs) if recv.
 */
bool kv_xfer_post(struct kv_run *r, struct ib_send_wr *wr, bool recv,
		  const struct kv_seg *rs, int nrs)
{
	const struct ib_send_wr *bad = NULL;
	struct kv_comp *sc = kv_arm(r, KV_SEND);
	struct kv_comp *rc = kv_arm(r, KV_RECV);
	int ret;

	if (recv) {
		ret = kv_post_recv(r, r->qp[1], rc, &r->dst[1], rs, nrs);
		if (ret)
			return kv_fail(r, "ib_post_recv: %d", ret);
	}
	wr->wr_cqe = &sc->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(r->qp[0], wr, &bad);
	if (ret) {
		if (recv)	/* a receive is left over */
			r->broken = true;
		return kv_fail(r, "ib_post_send: %d", ret);
	}
	return true;
}

bool kv_xfer_wait(struct kv_run *r, enum ib_wc_opcode sop, bool recv,
		  enum ib_wc_opcode rop)
{
	if (!kv_wc(r, &r->comp[KV_SEND], "send completion", IB_WC_SUCCESS, sop,
		   r->qp[0]))
		return false;
	if (recv && !kv_wc(r, &r->comp[KV_RECV], "receive completion",
			   IB_WC_SUCCESS, rop, r->qp[1])) {
		r->broken = true;
		return false;
	}
	return true;
}

bool kv_xfer(struct kv_run *r, struct ib_send_wr *wr,
	     enum ib_wc_opcode sop, bool recv, const struct kv_seg *rs,
	     int nrs, enum ib_wc_opcode rop)
{
	return kv_xfer_post(r, wr, recv, rs, nrs) &&
	       kv_xfer_wait(r, sop, recv, rop);
}

bool kv_check_imm(struct kv_run *r, bool imm, __be32 want)
{
	const struct ib_wc *wc = &r->comp[KV_RECV].wc;

	if (!imm) {
		if (wc->wc_flags & IB_WC_WITH_IMM)
			return kv_fail(r, "IB_WC_WITH_IMM set without immediate data");
		return true;
	}
	if (!(wc->wc_flags & IB_WC_WITH_IMM))
		return kv_fail(r, "IB_WC_WITH_IMM not set");
	if (wc->ex.imm_data != want)
		return kv_fail(r, "immediate %#x, expected %#x",
			       be32_to_cpu(wc->ex.imm_data), be32_to_cpu(want));
	return true;
}

bool kv_check_len(struct kv_run *r, u32 len)
{
	u32 got = r->comp[KV_RECV].wc.byte_len;

	if (got != len)
		return kv_fail(r, "byte_len %u, expected %u", got, len);
	return true;
}
