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
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/string.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <kunit/test.h>

static char *kv_dev_name = "sroce0";
module_param_named(dev, kv_dev_name, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to test (default sroce0)");

enum {
	KV_PORT = 1,
	KV_BUF_SIZE = 72 * 1024,	/* each of the four data buffers */
	KV_CQE = 128,
	KV_MAX_WR = 32,
	KV_SGE = 4,
	KV_INLINE = 64,
	KV_RD_ATOMIC = 4,
	KV_BURST = 8,			/* unsignaled WRs before a signaled one */
	KV_CANARY = 0xa5,		/* bytes nothing may write */
	KV_TIMEOUT_S = 10,
	KV_ATOM_TARGET = 64,		/* offset of the remote u64 */
	KV_ATOM_RESULT = 128,		/* offset of the returned u64 */
};

#define KV_X 0x1111222233334444ULL
#define KV_Y 0x5555666677778888ULL
#define KV_ADD 0x0101010101010101ULL

/* The argument of a send check: the length, and whether with immediate. */
#define KV_ARG_IMM	BIT(31)
#define KV_ARG_LEN	0xffffffUL

/* Completion slots: one struct ib_cqe each, re-armed before each use. */
enum kv_comp_id {
	KV_SEND,	/* QP 0's send queue */
	KV_SEND2,
	KV_RECV,	/* QP 1's receive queue */
	KV_STRAY,	/* WRs that must never complete */
	KV_LEFT,	/* receives left posted when the QPs are destroyed */
	KV_ESEND,	/* the error pairs */
	KV_ESEND2,
	KV_ERECV,
	KV_FILL,	/* receives of the full-ring check */
	KV_NCOMP,
};

/* The address families of the runs: the GID they connect through. */
enum kv_fam {
	KV_V4,		/* the IPv4-mapped RoCEv2 GID */
	KV_V6,		/* a global IPv6 RoCEv2 GID */
	KV_NFAM,
};

enum {
	KV_NPOLL = 3,			/* DIRECT, SOFTIRQ, WORKQUEUE */
	KV_NRUN = KV_NFAM * KV_NPOLL,
};

/* How far a run's setup got: each case after it needs some of it. */
enum kv_stage {
	KV_STAGE_NONE,
	KV_STAGE_PD,		/* alloc_pd passed */
	KV_STAGE_BUFFERS,	/* buffers passed */
	KV_STAGE_CQ,		/* alloc_cq passed */
	KV_STAGE_QP,		/* create_qp passed: pair A exists */
};

/* The error pairs, each on a fresh pair of its own. */
enum kv_err_kind {
	KV_ERR_LKEY,	/* bad_lkey: a SEND whose SGE has an lkey of no MR */
	KV_ERR_ATOMIC,	/* atomic_denied: an atomic through the global rkey (no atomic access) */
	KV_NERR,
};

struct kv_comp {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;	/* the last completion */
	atomic_t count;		/* completions since armed */
};

struct kv_buf {
	void *va;
	u64 dma;
	bool mapped;
};

struct kv_seg {
	u32 off;
	u32 len;
};

/* The device under test: found by the suite's init, released at its exit. */
struct kv_dev {
	struct ib_device *ibdev;
	const char *name;
	bool rxe;		/* stock rdma_rxe */
	bool roce;		/* port 1 is RoCE */
	const struct ib_gid_attr *gid[KV_NFAM];	/* NULL: no such GID */
	struct kv_run *run[KV_NRUN];	/* by kv_params[] index; from alloc_pd */
};

/* An error pair (bad_lkey, atomic_denied): from its first case to _destroy. */
struct kv_epair {
	struct ib_qp *qp[2];
	bool up;	/* connected, with a receive posted on QP 1 */
	bool flushed;	/* every flush so far was seen: ib_drain_qp() cannot hang */
};

/* The SRQ pair, QP 1 taking its receives from srq: srq_create to srq_destroy. */
struct kv_srq {
	struct ib_srq *srq;
	struct ib_qp *qp[2];
	struct ib_srq_attr qa;	/* as the last query or modify left it */
	u32 cap;		/* max_wr, as created */
	int n;			/* receives srq_fill posted */
	int sent;		/* SENDs that took an SRQ WQE */
	bool up;		/* the pair is connected */
	bool in_order;		/* srq_send_in_order passed */
};

/* One loopback run: one poll context, one GID. */
struct kv_run {
	struct kv_dev *d;
	struct kunit *test;	/* the case running on the run */
	enum ib_poll_context poll;
	const struct ib_gid_attr *gid;
	char name[32];		/* "<dev>_<poll>_<family>" */
	char why[192];		/* the first reason of a failing check */
	enum kv_stage stage;
	struct ib_pd *pd;
	struct ib_mr *atomic_mr;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];	/* QP 0 mostly requests, QP 1 responds */
	struct ib_qp_cap cap;	/* as ib_create_qp() returned it */
	struct ib_ah *ud_ah;	/* the UD cases: to the run's own GID */
	struct kv_buf src[2];
	struct kv_buf dst[2];
	u8 *expect;		/* what a destination buffer must hold */
	struct kv_comp comp[KV_NCOMP];
	u8 seed;
	bool init_ok;		/* modify_init passed */
	bool broken;		/* the pair in qp[] can no longer be trusted */
	struct kv_epair ep[KV_NERR];
	struct kv_srq sq;
	/* ud_setup to ud_destroy: pair A stands aside, qp[] is the UD pair. */
	struct ib_qp *pair_a[2];
	bool broken_a;
	bool ud_up;		/* ud_setup passed */
	atomic_t qp_events;
	enum ib_event_type last_event;
	atomic_t repost_armed;	/* KV_FILL's handler reposts one receive */
	int repost_ret;		/* what that post returned */
	atomic_t fill_errors;	/* KV_FILL completions that were not successes */
	atomic_t srq_limit_events;
};

typedef bool (*kv_test_fn)(struct kv_run *r, unsigned long arg);

static struct kv_dev kv_device;

/* A run: the parameter of every case past the device's. */
struct kv_param {
	enum ib_poll_context poll;
	enum kv_fam fam;
};

/* In the order the runs always went: the IPv4 GID first. */
static const struct kv_param kv_params[KV_NRUN] = {
	{ IB_POLL_DIRECT, KV_V4 },
	{ IB_POLL_SOFTIRQ, KV_V4 },
	{ IB_POLL_WORKQUEUE, KV_V4 },
	{ IB_POLL_DIRECT, KV_V6 },
	{ IB_POLL_SOFTIRQ, KV_V6 },
	{ IB_POLL_WORKQUEUE, KV_V6 },
};

static const char *const kv_fam_name[KV_NFAM] = { "v4", "v6" };

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

static void kv_run_name(char *buf, size_t size, const struct kv_param *p)
{
	snprintf(buf, size, "%s_%s_%s", kv_device.name, kv_poll_name(p->poll),
		 kv_fam_name[p->fam]);
}

/* Reporting */

/* Record why the check fails (the first reason given wins); false. */
static __printf(2, 3) bool kv_fail(struct kv_run *r, const char *fmt, ...)
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
static void kv_report(struct kv_run *r, bool ok)
{
	KUNIT_EXPECT_TRUE_MSG(r->test, ok, "%s", r->why[0] ? r->why : "(no detail)");
	r->why[0] = '\0';
}

/*
 * The run of @test's parameter, its setup done at least up to @need;
 * otherwise the case fails as not run, and ends.
 */
static struct kv_run *kv_run_at(struct kunit *test, enum kv_stage need)
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
static void kv_run_check(struct kv_run *r, kv_test_fn fn, unsigned long arg)
{
	bool ok;

	if (r->broken)
		ok = kv_fail(r, "not run: an earlier failure left the QPs unusable");
	else
		ok = fn(r, arg);
	kv_report(r, ok);
}

/* A check on pair A. */
static void kv_check(struct kunit *test, kv_test_fn fn, unsigned long arg)
{
	kv_run_check(kv_run_at(test, KV_STAGE_QP), fn, arg);
}

/* Completions */

static void kv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_comp *c = container_of(wc->wr_cqe, struct kv_comp, cqe);

	c->wc = *wc;
	atomic_inc(&c->count);
	complete(&c->done);
}

static int kv_post_recv(struct kv_run *r, struct ib_qp *qp, struct kv_comp *c,
			struct kv_buf *b, const struct kv_seg *s, int n);
static int kv_poll_direct(struct kv_run *r);

/*
 * KV_FILL's handler: on an IB_POLL_SOFTIRQ CQ it runs inside the
 * provider's completion; once armed it reposts the receive at once, as a
 * ULP refilling its ring does.
 */
static void kv_done_fill(struct ib_cq *cq, struct ib_wc *wc)
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
static bool kv_wait_count(struct kv_run *r, struct kv_comp *c, int n)
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

static struct kv_comp *kv_arm(struct kv_run *r, enum kv_comp_id id)
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

/* Wait for a completion of c: true if one came within KV_TIMEOUT_S. */
static bool kv_wait(struct kv_run *r, struct kv_comp *c)
{
	unsigned long deadline = jiffies + KV_TIMEOUT_S * HZ;

	if (r->poll != IB_POLL_DIRECT)
		return wait_for_completion_timeout(&c->done, KV_TIMEOUT_S * HZ);
	while (!completion_done(&c->done)) {
		if (kv_poll_direct(r))
			continue;
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(20, 100);
	}
	return true;
}

/* Give completions that should not come the time to come anyway. */
static void kv_settle(struct kv_run *r)
{
	msleep(50);
	if (r->poll == IB_POLL_DIRECT)
		while (kv_poll_direct(r))
			;
}

/* Wait for c and check its status, QP, opcode (on success) and count. */
static bool kv_wc(struct kv_run *r, struct kv_comp *c, const char *what,
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

static bool kv_no_stray(struct kv_run *r, const char *what)
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

static void kv_to_dev(struct kv_run *r, struct kv_buf *b)
{
	ib_dma_sync_single_for_device(r->d->ibdev, b->dma, KV_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

static void kv_to_cpu(struct kv_run *r, struct kv_buf *b)
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
static u8 kv_prepare(struct kv_run *r, struct kv_buf *src, struct kv_buf *dst)
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
static void kv_expect(struct kv_run *r, u8 seed, const struct kv_seg *s,
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

static bool kv_verify(struct kv_run *r, struct kv_buf *b, const char *what)
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

static void kv_sges(struct kv_run *r, struct ib_sge *sge, struct kv_buf *b,
		    const struct kv_seg *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = b->dma + s[i].off;
		sge[i].length = s[i].len;
		sge[i].lkey = r->pd->local_dma_lkey;
	}
}

static int kv_post_recv(struct kv_run *r, struct ib_qp *qp, struct kv_comp *c,
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
static bool kv_xfer_post(struct kv_run *r, struct ib_send_wr *wr, bool recv,
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

static bool kv_xfer_wait(struct kv_run *r, enum ib_wc_opcode sop, bool recv,
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

static bool kv_xfer(struct kv_run *r, struct ib_send_wr *wr,
		    enum ib_wc_opcode sop, bool recv, const struct kv_seg *rs,
		    int nrs, enum ib_wc_opcode rop)
{
	return kv_xfer_post(r, wr, recv, rs, nrs) &&
	       kv_xfer_wait(r, sop, recv, rop);
}

static bool kv_check_imm(struct kv_run *r, bool imm, __be32 want)
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

static bool kv_check_len(struct kv_run *r, u32 len)
{
	u32 got = r->comp[KV_RECV].wc.byte_len;

	if (got != len)
		return kv_fail(r, "byte_len %u, expected %u", got, len);
	return true;
}

/* Checks on pair A */

/* SEND or SEND_WITH_IMM of one SGE: arg is the length (| KV_ARG_IMM). */
static bool kv_t_send(struct kv_run *r, unsigned long arg)
{
	u32 len = arg & KV_ARG_LEN;
	bool imm = arg & KV_ARG_IMM;
	const struct kv_seg s = { 3, len }, d = { 0, KV_BUF_SIZE };
	__be32 immv = cpu_to_be32(0x5a000000 | len);
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (imm)
		wr.ex.imm_data = immv;
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
static bool kv_t_ring_full(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 1 }, d = { 0, 64 };
	struct kv_comp *c = kv_arm(r, KV_FILL);
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr wr = {};
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

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	r->repost_ret = 1;
	atomic_set(&r->repost_armed, 1);
	if (!kv_xfer(r, &wr, IB_WC_SEND, false, NULL, 0, 0) || !kv_wait_count(r, c, 1))
		return kv_fail(r, "the first SEND did not complete");
	if (r->repost_ret)
		return kv_fail(r, "repost from the completion handler: %d", r->repost_ret);
	for (i = 0; i < n; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IB_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
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

static bool kv_t_send_sge3(struct kv_run *r, unsigned long arg)
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
static bool kv_t_send_inline(struct kv_run *r, unsigned long arg)
{
	u32 len = min_t(u32, r->cap.max_inline_data, 61);
	const struct kv_seg s = { 5, len }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	u8 seed;

	if (!len)
		return kv_fail(r, "max_inline_data is 0");
	seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_INLINE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
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

/* RDMA WRITE of arg bytes (0: no SGE) into dst[1] at an odd offset. */
static bool kv_t_write(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 5, len };
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.sg_list = len ? &sge : NULL;
	wr.wr.num_sge = len ? 1 : 0;
	wr.remote_addr = r->dst[1].dma + d.off;
	wr.rkey = r->pd->unsafe_global_rkey;
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_WRITE, false, NULL, 0, 0))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "target buffer");
}

/* RDMA WRITE_WITH_IMM: consumes a receive (with no SGE) on QP 1. */
static bool kv_t_write_imm(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 5, len };
	__be32 immv = cpu_to_be32(0xa5000000 | len);
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.ex.imm_data = immv;
	wr.remote_addr = r->dst[1].dma + d.off;
	wr.rkey = r->pd->unsafe_global_rkey;
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_WRITE, true, NULL, 0,
		     IB_WC_RECV_RDMA_WITH_IMM) ||
	    !kv_check_len(r, len) || !kv_check_imm(r, true, immv))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "target buffer");
}

/* RDMA READ of arg bytes from src[1] into dst[0]. */
static bool kv_t_read(struct kv_run *r, unsigned long arg)
{
	u32 len = arg;
	const struct kv_seg s = { 3, len }, d = { 7, len };
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[1], &r->dst[0]);

	kv_sges(r, &sge, &r->dst[0], &d, 1);
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = r->src[1].dma + s.off;
	wr.rkey = r->pd->unsafe_global_rkey;
	if (!kv_xfer(r, &wr.wr, IB_WC_RDMA_READ, false, NULL, 0, 0))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[0], "local buffer");
}

/* The atomic checks, by the argument of kv_t_atomic(). */
enum kv_atomic {
	KV_ATOMIC_CMP_SWP,		/* atomic_cmp_swp */
	KV_ATOMIC_CMP_SWP_MISS,		/* atomic_cmp_swp_miss */
	KV_ATOMIC_FETCH_ADD,		/* atomic_fetch_add */
};

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
static void kv_atomic_prepare(struct kv_run *r, u64 init)
{
	memset(r->dst[0].va, KV_CANARY, KV_BUF_SIZE);
	memset(r->dst[1].va, KV_CANARY, KV_BUF_SIZE);
	*(u64 *)(r->dst[1].va + KV_ATOM_TARGET) = init;
	kv_to_dev(r, &r->dst[0]);
	kv_to_dev(r, &r->dst[1]);
}

static bool kv_check_u64(struct kv_run *r, struct kv_buf *b, u32 off, u64 want,
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

static bool kv_t_atomic(struct kv_run *r, unsigned long arg)
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
static bool kv_t_fence(struct kv_run *r, unsigned long arg)
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

static bool kv_t_burst(struct kv_run *r, unsigned long arg)
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
static DEFINE_SPINLOCK(kv_ulp_lock);

static bool kv_t_irqs_off(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 11, 777 }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr = {};
	unsigned long flags;
	struct ib_sge sge;
	bool ok;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	spin_lock_irqsave(&kv_ulp_lock, flags);
	ok = kv_xfer_post(r, &wr, true, &d, 1);
	spin_unlock_irqrestore(&kv_ulp_lock, flags);
	if (!ok || !kv_xfer_wait(r, IB_WC_SEND, true, IB_WC_RECV) || !kv_check_len(r, s.len))
		return false;
	kv_expect(r, seed, &s, 1, &d, 1);
	return kv_verify(r, &r->dst[1], "receive buffer");
}

/* A SEND with the solicited bit reaches a CQ with a completion handler. */
static bool kv_t_solicited(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 100 }, d = { 0, KV_BUF_SIZE };
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);

	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SOLICITED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
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
static bool kv_t_post_refused(struct kv_run *r, unsigned long arg)
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
static bool kv_t_bad_opcode(struct kv_run *r, unsigned long arg)
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
static bool kv_t_too_many_sge(struct kv_run *r, unsigned long arg)
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

/* Setup */

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_run *r = ctx;

	WRITE_ONCE(r->last_event, ev->event);
	atomic_inc(&r->qp_events);
}

/* A QP of @side's CQ, taking its receives from @srq if not NULL. */
static struct ib_qp *kv_create_qp_on(struct kv_run *r, int side, struct ib_srq *srq)
{
	struct ib_qp_init_attr ia = {
		.event_handler = kv_qp_event,
		.qp_context = r,
		.send_cq = r->cq[side],
		.recv_cq = r->cq[side],
		.cap = {
			.max_send_wr = KV_MAX_WR,
			.max_recv_wr = KV_MAX_WR,
			.max_send_sge = KV_SGE,
			.max_recv_sge = KV_SGE,
			.max_inline_data = KV_INLINE,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	if (srq) {
		ia.srq = srq;
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
	}
	qp = ib_create_qp(r->pd, &ia);
	if (IS_ERR(qp)) {
		kv_fail(r, "ib_create_qp: %ld", PTR_ERR(qp));
		return NULL;
	}
	if (side == 0)
		r->cap = ia.cap;
	return qp;
}

static struct ib_qp *kv_create_qp(struct kv_run *r, int side)
{
	return kv_create_qp_on(r, side, NULL);
}

static bool kv_modify_init(struct kv_run *r, struct ib_qp *qp)
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
static bool kv_own_dmac(struct kv_run *r, u8 *mac)
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

static bool kv_query_state(struct kv_run *r, struct ib_qp *qp,
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

static bool kv_connect(struct kv_run *r, struct ib_qp *a, struct ib_qp *b,
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

static bool kv_destroy_qp(struct kv_run *r, struct ib_qp **qp, const char *what)
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

	kv_sges(r, sge, &r->src[0], &s, 1);
	memset(wr, 0, sizeof(*wr));
	wr->wr_cqe = &c->cqe;
	wr->opcode = IB_WR_SEND;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->sg_list = sge;
	wr->num_sge = 1;
}

/* Set the pair up, a receive posted on QP 1; a failure is <pfx>_setup's. */
static bool kv_ep_setup(struct kv_run *r, struct kv_epair *ep)
{
	const struct kv_seg d = { 0, KV_BUF_SIZE };
	int ret;

	ep->qp[0] = kv_create_qp(r, 0);
	ep->qp[1] = ep->qp[0] ? kv_create_qp(r, 1) : NULL;
	if (!ep->qp[1] || !kv_modify_init(r, ep->qp[0]) || !kv_modify_init(r, ep->qp[1]) ||
	    !kv_connect(r, ep->qp[0], ep->qp[1], 0x10, 0x20))
		return false;
	ret = kv_post_recv(r, ep->qp[1], &r->comp[KV_ERECV], &r->dst[1], &d, 1);
	if (ret)
		return kv_fail(r, "ib_post_recv: %d", ret);
	return true;
}

/* The error: a bad lkey (IB_WC_LOC_PROT_ERR) or a denied atomic (IB_WC_REM_ACCESS_ERR). */
static void kv_ep_error(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	struct kv_epair *ep = &r->ep[kind];
	const struct kv_seg s = { 0, 100 };
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
		kv_sges(r, &sge, &r->src[0], &s, 1);
		sge.lkey = r->pd->local_dma_lkey ^ 0x5a5a5a00;
		if (r->atomic_mr && sge.lkey == r->atomic_mr->lkey)
			sge.lkey ^= 0x00010000;
		wr.wr_cqe = &sc->cqe;
		wr.opcode = IB_WR_SEND;
		wr.send_flags = IB_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
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
static void kv_ep_qp_err(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);

	kv_report(r, kv_wait_error(r, r->ep[kind].qp[0]));
}

/* A WR posted in Error completes, flushed. */
static void kv_ep_flush(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	struct kv_comp *sc2 = &r->comp[KV_ESEND2];
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	struct ib_sge sge;
	bool ok;
	int ret;

	kv_ep_send_wr(r, &wr, &sge, sc2);
	ret = ib_post_send(ep->qp[0], &wr, &bad);
	if (ret) {
		ok = kv_fail(r, "ib_post_send in Error: %d", ret);
	} else {
		ok = kv_wc(r, sc2, "WR posted in Error", IB_WC_WR_FLUSH_ERR, 0,
			   ep->qp[0]);
		ep->flushed = atomic_read(&sc2->count) > 0;
	}
	kv_report(r, ok);
}

/*
 * ib_drain_qp() waits without a timeout (and polls a DIRECT CQ forever),
 * so every flush it relies on is first seen by a case of its own, with
 * one: QP 1 moved to Error flushes the receive posted on it; a receive
 * posted on either QP in Error, and a send posted on QP 1, are flushed.
 */
static void kv_ep_recv_flushed(struct kunit *test, enum kv_err_kind kind)
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

static void kv_ep_recv_in_error(struct kunit *test, enum kv_err_kind kind, int i)
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

static void kv_ep_flush_qp1(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_ep_at(test, kind);
	struct kv_epair *ep = &r->ep[kind];
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr;
	struct kv_comp *sc2;
	struct ib_sge sge;
	bool ok;
	int ret;

	KUNIT_ASSERT_TRUE_MSG(test, ep->flushed, "not run: a flush before it was not seen");
	sc2 = kv_arm(r, KV_ESEND2);
	kv_ep_send_wr(r, &wr, &sge, sc2);
	ret = ib_post_send(ep->qp[1], &wr, &bad);
	ok = ret ? kv_fail(r, "ib_post_send on QP 1 in Error: %d", ret) :
		   kv_wc(r, sc2, "WR posted on QP 1 in Error", IB_WC_WR_FLUSH_ERR, 0, ep->qp[1]);
	kv_report(r, ok);
	ep->flushed = ok;
}

static void kv_ep_drain(struct kunit *test, enum kv_err_kind kind)
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
static void kv_ep_destroy(struct kunit *test, enum kv_err_kind kind)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);
	struct kv_epair *ep = &r->ep[kind];
	bool ok;

	ok = kv_destroy_qp(r, &ep->qp[0], "error pair QP 0");
	ok = kv_destroy_qp(r, &ep->qp[1], "error pair QP 1") && ok;
	kv_report(r, ok);
}

/* Pair A: destroy both QPs with receives still posted. */
static void kv_case_destroy_with_recvs(struct kunit *test)
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
	struct ib_send_wr wr = {};
	struct kv_seg d[2];
	struct ib_sge sge;
	u8 seed = kv_prepare(r, &r->src[0], &r->dst[1]);
	bool ok;

	kv_srq_segs(d, i);
	kv_sges(r, &sge, &r->src[0], &s, 1);
	wr.opcode = IB_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
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

static void kv_case_srq_create(struct kunit *test)
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

static void kv_case_srq_qp_connect(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, false);
	struct kv_srq *sq = &r->sq;

	sq->qp[0] = kv_create_qp(r, 0);
	sq->qp[1] = sq->qp[0] ? kv_create_qp_on(r, 1, sq->srq) : NULL;
	sq->up = sq->qp[1] && kv_modify_init(r, sq->qp[0]) && kv_modify_init(r, sq->qp[1]) &&
		 kv_connect(r, sq->qp[0], sq->qp[1], 0x30, 0x40);
	kv_report(r, sq->up);
}

static void kv_case_srq_qp_post_recv_refused(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);
	int ret;

	ret = kv_post_recv(r, r->sq.qp[1], &r->comp[KV_ERECV], &r->dst[1], kv_srq_d3, 1);
	kv_report(r, ret == -EINVAL || kv_fail(r, "ib_post_recv on a QP with an SRQ: %d", ret));
}

static void kv_case_srq_too_many_sge(struct kunit *test)
{
	struct kv_run *r = kv_srq_at(test, true);
	const struct ib_recv_wr *rbad;
	int ret;

	ret = kv_post_srq_recv(r, r->sq.srq, &r->comp[KV_ERECV], kv_srq_d3, 3, &rbad);
	kv_report(r, (ret == -EINVAL && rbad) ||
		  kv_fail(r, "3 SGEs, max 2: %d, bad_wr %s", ret, rbad ? "set" : "not set"));
}

static void kv_case_srq_fill(struct kunit *test)
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

static void kv_case_srq_arm_limit(struct kunit *test)
{
	struct kv_run *r = kv_srq_filled(test);
	struct kv_srq *sq = &r->sq;
	int ret;

	sq->qa.srq_limit = sq->n - 1;
	ret = ib_modify_srq(sq->srq, &sq->qa, IB_SRQ_LIMIT);
	kv_report(r, !ret || kv_fail(r, "ib_modify_srq(limit %d): %d", sq->n - 1, ret));
}

/* The limit event comes with the WQE taken, before its completion. */
static void kv_case_srq_send_in_order(struct kunit *test)
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

static void kv_case_srq_limit(struct kunit *test)
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
static void kv_case_srq_resize(struct kunit *test)
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
static void kv_case_srq_destroy(struct kunit *test)
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

/* UD */

#define KV_QKEY 0x1234
#define KV_ARG_PRIV	BIT(30)	/* the WR's Q_Key has the high bit set */

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
		.event_handler = kv_qp_event,
		.qp_context = r,
		.send_cq = r->cq[side],
		.recv_cq = r->cq[side],
		.cap = {
			.max_send_wr = KV_MAX_WR,
			.max_recv_wr = KV_MAX_WR,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_UD,
	};
	struct ib_qp *qp = ib_create_qp(r->pd, &ia);

	if (IS_ERR(qp)) {
		kv_fail(r, "ib_create_qp(UD): %ld", PTR_ERR(qp));
		return NULL;
	}
	return qp;
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
static bool kv_t_ud_send(struct kv_run *r, unsigned long arg)
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
 * A datagram under a Q_Key that is not the receiver's is dropped: the
 * receive stays posted and takes the next one.
 */
static bool kv_t_ud_bad_qkey(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 0, 64 }, d = { 0, KV_BUF_SIZE };
	struct ib_ud_wr uwr;
	struct ib_sge sge;

	kv_prepare(r, &r->src[0], &r->dst[1]);
	kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, false, KV_QKEY + 1);
	if (!kv_xfer_post(r, &uwr.wr, true, &d, 1) ||
	    !kv_wc(r, &r->comp[KV_SEND], "send completion", IB_WC_SUCCESS, IB_WC_SEND, r->qp[0]))
		return false;
	kv_settle(r);
	if (atomic_read(&r->comp[KV_RECV].count))
		return kv_fail(r, "a datagram under a wrong Q_Key was received");
	kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, false, KV_QKEY);
	return kv_xfer(r, &uwr.wr, IB_WC_SEND, false, NULL, 0, 0) &&
	       kv_wc(r, &r->comp[KV_RECV], "the receive left posted", IB_WC_SUCCESS, IB_WC_RECV,
		     r->qp[1]) && kv_check_len(r, 40 + s.len);
}

/*
 * A datagram longer than the port's MTU: sroce refuses the post
 * (-EMSGSIZE); stock rxe takes it and completes it without sending it
 * (C10-93.1.1).
 */
static bool kv_t_ud_too_long(struct kv_run *r, unsigned long arg)
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

static bool kv_t_ud_mcast(struct kv_run *r, unsigned long arg)
{
	const struct kv_seg s = { 3, 200 }, d = { 0, KV_BUF_SIZE };
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
		if (!kv_xfer_post(r, &uwr.wr, true, &d, 1) ||
		    !kv_wc(r, &r->comp[KV_SEND], "send to the group", IB_WC_SUCCESS, IB_WC_SEND,
			   r->qp[0]))
			goto gone;
		kv_settle(r);
		if (atomic_read(&r->comp[KV_RECV].count)) {
			kv_fail(r, "a datagram to the group was received after the detach");
			goto gone;
		}
		kv_ud_wr(r, &uwr, &sge, r->ud_ah, &s, false, KV_QKEY);
		if (!kv_xfer(r, &uwr.wr, IB_WC_SEND, false, NULL, 0, 0) ||
		    !kv_wc(r, &r->comp[KV_RECV], "the receive left posted", IB_WC_SUCCESS,
			   IB_WC_RECV, r->qp[1]))
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
static bool kv_t_ah_atomic(struct kv_run *r, unsigned long arg)
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
static void kv_case_ud_setup(struct kunit *test)
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
static void kv_ud_check(struct kunit *test, kv_test_fn fn, unsigned long arg)
{
	kv_run_check(kv_ud_at(test), fn, arg);
}

/* Drain: the posted receive is flushed, the send queue's marker too. */
static void kv_case_ud_drain(struct kunit *test)
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
static void kv_case_ud_destroy(struct kunit *test)
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

/* Setup cases: a failure stops the run, but for atomic_mr (the atomics fail). */

static void kv_case_alloc_pd(struct kunit *test)
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

static void kv_case_atomic_mr(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_PD);

	r->atomic_mr = kv_atomic_mr(r);
	kv_report(r, r->atomic_mr);
}

static void kv_case_buffers(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_PD);
	bool ok = kv_buffers(r);

	kv_report(r, ok);
	if (ok)
		r->stage = KV_STAGE_BUFFERS;
}

static void kv_case_alloc_cq(struct kunit *test)
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

static void kv_case_create_qp(struct kunit *test)
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

static void kv_case_modify_init(struct kunit *test)
{
	struct kv_run *r = kv_run_at(test, KV_STAGE_QP);

	r->init_ok = kv_modify_init(r, r->qp[0]) && kv_modify_init(r, r->qp[1]);
	kv_report(r, r->init_ok);
}

/* Pair A to RTS; it is broken if it does not get there. */
static void kv_case_modify_rts(struct kunit *test)
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
static void kv_run_free(struct kv_run *r)
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
