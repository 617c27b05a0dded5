/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kverbs.h - what the files of sroce_kverbs.ko share (kverbs_suite.c
 * describes the suite): its types, and the functions one file has of another.
 */
#ifndef SROCE_KVERBS_H
#define SROCE_KVERBS_H

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

/* A run: the parameter of every case past the device's. */
struct kv_param {
	enum ib_poll_context poll;
	enum kv_fam fam;
};

/* The atomic checks, by the argument of kv_t_atomic(). */
enum kv_atomic {
	KV_ATOMIC_CMP_SWP,		/* atomic_cmp_swp */
	KV_ATOMIC_CMP_SWP_MISS,		/* atomic_cmp_swp_miss */
	KV_ATOMIC_FETCH_ADD,		/* atomic_fetch_add */
};

#define KV_QKEY 0x1234
#define KV_ARG_PRIV	BIT(30)	/* the WR's Q_Key has the high bit set */

/* kverbs_common.c */
extern struct kv_dev kv_device;
extern const struct kv_param kv_params[KV_NRUN];
extern const char *const kv_fam_name[KV_NFAM];

void kv_run_name(char *buf, size_t size, const struct kv_param *p);
__printf(2, 3) bool kv_fail(struct kv_run *r, const char *fmt, ...);
void kv_report(struct kv_run *r, bool ok);
struct kv_run *kv_run_at(struct kunit *test, enum kv_stage need);
void kv_run_check(struct kv_run *r, kv_test_fn fn, unsigned long arg);
void kv_check(struct kunit *test, kv_test_fn fn, unsigned long arg);
void kv_done(struct ib_cq *cq, struct ib_wc *wc);
void kv_done_fill(struct ib_cq *cq, struct ib_wc *wc);
bool kv_wait_count(struct kv_run *r, struct kv_comp *c, int n);
struct kv_comp *kv_arm(struct kv_run *r, enum kv_comp_id id);
bool kv_wait(struct kv_run *r, struct kv_comp *c);
void kv_settle(struct kv_run *r);
bool kv_wc(struct kv_run *r, struct kv_comp *c, const char *what,
	   enum ib_wc_status status, enum ib_wc_opcode opcode,
	   struct ib_qp *qp);
bool kv_no_stray(struct kv_run *r, const char *what);
void kv_to_dev(struct kv_run *r, struct kv_buf *b);
void kv_to_cpu(struct kv_run *r, struct kv_buf *b);
u8 kv_prepare(struct kv_run *r, struct kv_buf *src, struct kv_buf *dst);
void kv_expect(struct kv_run *r, u8 seed, const struct kv_seg *s,
	       int ns, const struct kv_seg *d, int nd);
bool kv_verify(struct kv_run *r, struct kv_buf *b, const char *what);
void kv_sges(struct kv_run *r, struct ib_sge *sge, struct kv_buf *b,
	     const struct kv_seg *s, int n);
void kv_send_wr(struct kv_run *r, struct ib_send_wr *wr, struct ib_sge *sge,
		const struct kv_seg *s, int flags);
int kv_post_recv(struct kv_run *r, struct ib_qp *qp, struct kv_comp *c,
		 struct kv_buf *b, const struct kv_seg *s, int n);
bool kv_xfer_post(struct kv_run *r, struct ib_send_wr *wr, bool recv,
		  const struct kv_seg *rs, int nrs);
bool kv_xfer_wait(struct kv_run *r, enum ib_wc_opcode sop, bool recv,
		  enum ib_wc_opcode rop);
bool kv_xfer(struct kv_run *r, struct ib_send_wr *wr,
	     enum ib_wc_opcode sop, bool recv, const struct kv_seg *rs,
	     int nrs, enum ib_wc_opcode rop);
bool kv_check_imm(struct kv_run *r, bool imm, __be32 want);
bool kv_check_len(struct kv_run *r, u32 len);

/* kverbs_setup.c */
void kv_qp_event(struct ib_event *ev, void *ctx);
struct ib_qp *kv_create_qp_attr(struct kv_run *r, int side, struct ib_qp_init_attr *ia,
				const char *what);
struct ib_qp *kv_create_qp_on(struct kv_run *r, int side, struct ib_srq *srq);
struct ib_qp *kv_create_qp(struct kv_run *r, int side);
bool kv_modify_init(struct kv_run *r, struct ib_qp *qp);
bool kv_own_dmac(struct kv_run *r, u8 *mac);
bool kv_query_state(struct kv_run *r, struct ib_qp *qp,
		    enum ib_qp_state want, enum ib_qp_state *got);
bool kv_connect(struct kv_run *r, struct ib_qp *a, struct ib_qp *b,
		u32 psn_a, u32 psn_b);
bool kv_pair_up(struct kv_run *r, struct ib_qp **qp, struct ib_srq *srq, u32 psn_a, u32 psn_b);
bool kv_destroy_qp(struct kv_run *r, struct ib_qp **qp, const char *what);
void kv_case_alloc_pd(struct kunit *test);
void kv_case_atomic_mr(struct kunit *test);
void kv_case_buffers(struct kunit *test);
void kv_case_alloc_cq(struct kunit *test);
void kv_case_create_qp(struct kunit *test);
void kv_case_modify_init(struct kunit *test);
void kv_case_modify_rts(struct kunit *test);
void kv_run_free(struct kv_run *r);

/* kverbs_rc.c */
extern spinlock_t kv_ulp_lock;
bool kv_t_send(struct kv_run *r, unsigned long arg);
bool kv_t_ring_full(struct kv_run *r, unsigned long arg);
bool kv_t_send_sge3(struct kv_run *r, unsigned long arg);
bool kv_t_send_inline(struct kv_run *r, unsigned long arg);
bool kv_t_write(struct kv_run *r, unsigned long arg);
bool kv_t_write_imm(struct kv_run *r, unsigned long arg);
bool kv_t_read(struct kv_run *r, unsigned long arg);
void kv_atomic_prepare(struct kv_run *r, u64 init);
bool kv_check_u64(struct kv_run *r, struct kv_buf *b, u32 off, u64 want,
		  const char *what);
bool kv_t_atomic(struct kv_run *r, unsigned long arg);
bool kv_t_fence(struct kv_run *r, unsigned long arg);
bool kv_t_burst(struct kv_run *r, unsigned long arg);
bool kv_t_irqs_off(struct kv_run *r, unsigned long arg);
bool kv_t_solicited(struct kv_run *r, unsigned long arg);
bool kv_t_post_refused(struct kv_run *r, unsigned long arg);
bool kv_t_bad_opcode(struct kv_run *r, unsigned long arg);
bool kv_t_too_many_sge(struct kv_run *r, unsigned long arg);

/* kverbs_err.c */
void kv_ep_error(struct kunit *test, enum kv_err_kind kind);
void kv_ep_qp_err(struct kunit *test, enum kv_err_kind kind);
void kv_ep_flush(struct kunit *test, enum kv_err_kind kind);
void kv_ep_recv_flushed(struct kunit *test, enum kv_err_kind kind);
void kv_ep_recv_in_error(struct kunit *test, enum kv_err_kind kind, int i);
void kv_ep_flush_qp1(struct kunit *test, enum kv_err_kind kind);
void kv_ep_drain(struct kunit *test, enum kv_err_kind kind);
void kv_ep_destroy(struct kunit *test, enum kv_err_kind kind);
void kv_case_destroy_with_recvs(struct kunit *test);

/* kverbs_srq.c */
void kv_case_srq_create(struct kunit *test);
void kv_case_srq_qp_connect(struct kunit *test);
void kv_case_srq_qp_post_recv_refused(struct kunit *test);
void kv_case_srq_too_many_sge(struct kunit *test);
void kv_case_srq_fill(struct kunit *test);
void kv_case_srq_arm_limit(struct kunit *test);
void kv_case_srq_send_in_order(struct kunit *test);
void kv_case_srq_limit(struct kunit *test);
void kv_case_srq_resize(struct kunit *test);
void kv_case_srq_destroy(struct kunit *test);

/* kverbs_ud.c */
bool kv_t_ud_send(struct kv_run *r, unsigned long arg);
bool kv_t_ud_bad_qkey(struct kv_run *r, unsigned long arg);
bool kv_t_ud_too_long(struct kv_run *r, unsigned long arg);
bool kv_t_ud_mcast(struct kv_run *r, unsigned long arg);
bool kv_t_ah_atomic(struct kv_run *r, unsigned long arg);
void kv_case_ud_setup(struct kunit *test);
void kv_ud_check(struct kunit *test, kv_test_fn fn, unsigned long arg);
void kv_case_ud_drain(struct kunit *test);
void kv_case_ud_destroy(struct kunit *test);

#endif /* SROCE_KVERBS_H */
