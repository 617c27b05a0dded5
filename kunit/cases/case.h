/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Table-driven responder cases, shared by the KUnit suites (in the kernel)
 * and the GoogleTest runner (userspace).  Plain C data: a case is a list
 * of steps (a request, an execution outcome, a batch boundary ...), each
 * with the action and the exact response descriptors it must produce.
 * The runner compares every field of every response, and that nothing
 * else comes out.
 */
#ifndef SROCE_CASE_H
#define SROCE_CASE_H

#include <sroce/core_abi.h>

enum sroce_step_op {
	STEP_RX = 0,		/* a request packet */
	STEP_EXEC,		/* execution outcome of the last EXECUTE */
	STEP_BATCH_BEGIN,
	STEP_BATCH_END,
	STEP_CREDITS,		/* posted receive WQEs changed */
	STEP_READ_FAIL,		/* the READ packet just pulled failed */
	STEP_PMTU,
	STEP_PULL_ONE,		/* pull exactly one descriptor (others stay queued) */
};

/* Expected response descriptor: every field is compared. */
struct sroce_exp {
	uint8_t kind;
	uint8_t opcode;
	uint8_t has_aeth;
	uint8_t syndrome;
	uint8_t rule;
	uint8_t qp_event;
	uint32_t psn;
	uint32_t msn;
	uint32_t length;
	uint64_t va;
	uint64_t atomic_orig;
};

#define SROCE_CHECK_EPSN 0x1
#define SROCE_CHECK_MSN 0x2

struct sroce_step {
	uint8_t op;
	/* STEP_RX */
	uint8_t opcode;
	uint8_t ackreq;
	uint8_t verdict1;	/* 0: the core's own verdict, else verdict + 1 */
	uint8_t exec1;		/* 0: not checked, else 0x80 | sroce_exec_flags */
	uint32_t psn;
	uint32_t len;		/* payload length */
	uint32_t dma_len;	/* RETH length */
	uint32_t rkey;
	uint64_t va;
	/* STEP_EXEC / STEP_READ_FAIL */
	uint8_t status;
	uint64_t orig;
	/* STEP_CREDITS / STEP_PMTU */
	uint32_t value;
	/* expectations */
	uint8_t action;
	uint8_t reason;		/* for SROCE_ACT_DROP */
	uint8_t check;		/* SROCE_CHECK_* */
	uint8_t keep;		/* leave this step's responses queued */
	uint32_t epsn;		/* expected PSN after the step */
	uint32_t msn;		/* MSN after the step */
	uint32_t nresp;
	const struct sroce_exp *resp;
};

struct sroce_case {
	const char *name;	/* behaviour, with its spec rule tag */
	const char *rules;	/* spec rule tags it proves, space separated */
	struct sroce_resp_params params;
	uint32_t nres;		/* READ/ATOMIC resources (max_dest_rd_atomic) */
	uint32_t credits;	/* posted receive WQEs at start */
	uint32_t nsteps;
	const struct sroce_step *steps;
	uint8_t check_stats;	/* compare the two counters below at the end */
	uint64_t coalesced;	/* expected acks_coalesced */
	uint64_t seq_episodes;	/* expected sequence-NAK episodes */
	uint8_t check_sent;	/* compare the sent counters below at the end */
	uint64_t sent_read;	/* READ response packets counted as sent */
	uint64_t sent_nak;	/* NAKs counted as sent */
};

#define SROCE_CASE_MAX_RES 16

/* Caller-provided memory for one case run (too big for a kernel stack). */
struct sroce_case_ws {
	struct sroce_resp_qp qp;
	struct sroce_rd_res res[SROCE_CASE_MAX_RES];
};

/*
 * Called for every comparison the runner makes; @what names the field.
 * Returns nothing: the test framework records failures.
 */
struct sroce_case_checker {
	void *ctx;
	void (*check)(void *ctx, const char *what, uint32_t step, uint64_t expected,
		      uint64_t actual);
};

struct sroce_credit_case {
	uint32_t posted;	/* receive WQEs posted when the ACK is built */
	uint8_t code;		/* credit code the ACK must carry */
};

struct sroce_psn_case {
	const char *name;
	uint32_t psn;
	uint32_t epsn;
	int32_t diff;		/* sroce_psn_diff(psn, epsn); sroce_psn_add(epsn, diff) is psn */
	uint8_t verdict;	/* enum sroce_psn_verdict */
};

struct sroce_aeth_case {
	const char *name;
	uint8_t kind;		/* enum sroce_aeth_kind */
	uint8_t value;
	uint8_t syndrome;
};

SROCE_EXTERN_C_BEGIN

/*
 * Descriptions of the parametrised cases, shared by KUnit (which prints
 * them in KTAP) and tools/case-manifest.c (which lists what must run).
 */
#define SROCE_CREDIT_DESC_FMT "C9-150.2.1 %u posted wqes encode as code %u"
#define SROCE_PSN_DESC_FMT "psn wrap: %s"

void sroce_credit_case_run(const struct sroce_credit_case *c, struct sroce_case_ws *ws,
			   const struct sroce_case_checker *chk);
void sroce_psn_case_run(const struct sroce_psn_case *c, struct sroce_case_ws *ws,
			const struct sroce_case_checker *chk);
void sroce_aeth_case_run(const struct sroce_aeth_case *c, const struct sroce_case_checker *chk);

void sroce_case_run(const struct sroce_case *c, struct sroce_case_ws *ws,
		    const struct sroce_case_checker *chk);

SROCE_EXTERN_C_END

/* Table-building helpers. */
#define SROCE_ARRAY(type, ...) ((const type[]) { __VA_ARGS__ })
#define SROCE_COUNT(type, ...) (sizeof(SROCE_ARRAY(type, __VA_ARGS__)) / sizeof(type))
#define STEPS(...) .nsteps = SROCE_COUNT(struct sroce_step, __VA_ARGS__), \
		   .steps = SROCE_ARRAY(struct sroce_step, __VA_ARGS__)
#define RESP(...) .nresp = SROCE_COUNT(struct sroce_exp, __VA_ARGS__), \
		  .resp = SROCE_ARRAY(struct sroce_exp, __VA_ARGS__)

/* Steps. */
#define RX(op_, psn_, ...) { .op = STEP_RX, .opcode = (op_), .psn = (psn_), __VA_ARGS__ }
#define EXEC(st_, ...) { .op = STEP_EXEC, .status = (st_), __VA_ARGS__ }
#define BATCH_BEGIN() { .op = STEP_BATCH_BEGIN, .action = SROCE_ACT_HOLD }
#define BATCH_END(...) { .op = STEP_BATCH_END, __VA_ARGS__ }
#define CREDITS(n_, ...) { .op = STEP_CREDITS, .value = (n_), __VA_ARGS__ }
#define READ_FAIL(st_, ...) { .op = STEP_READ_FAIL, .status = (st_), __VA_ARGS__ }
#define PULL_ONE(...) { .op = STEP_PULL_ONE, __VA_ARGS__ }

/* Step fields. */
#define ACKREQ .ackreq = 1
#define LEN(n) .len = (n)
#define DMA(va_, rkey_, len_) .va = (va_), .rkey = (rkey_), .dma_len = (len_)
/* An EXECUTE with these enum sroce_exec_flags (SROCE_XF_ without the prefix). */
#define XF(f) .action = SROCE_ACT_EXECUTE, .exec1 = 0x80 | (f)
#define X_SEND SROCE_XF_SEND
#define X_WRITE SROCE_XF_WRITE
#define X_READ SROCE_XF_READ
#define X_ATOMIC SROCE_XF_ATOMIC
#define X_FIRST SROCE_XF_FIRST
#define X_LAST SROCE_XF_LAST
#define X_WQE SROCE_XF_WQE
#define VERDICT(v) .verdict1 = (v) + 1
#define ACT(a) .action = SROCE_ACT_##a
#define DROPPED(r) .action = SROCE_ACT_DROP, .reason = SROCE_DROP_##r
#define EPSN(p) .check = SROCE_CHECK_EPSN | SROCE_CHECK_MSN, .epsn = (p)
#define MSN(m) .msn = (m)

/* Expected responses. */
#define SYN_ACK(credits) ((uint8_t)((SROCE_AETH_ACK << 5) | (credits)))
#define SYN_RNR(timer) ((uint8_t)((SROCE_AETH_RNR_NAK << 5) | (timer)))
#define SYN_NAK(code) ((uint8_t)((SROCE_AETH_NAK << 5) | (code)))
#define R_ACK(psn_, msn_, syn_, rule_) \
	{ .kind = SROCE_RESP_ACK, .opcode = SROCE_OP_ACKNOWLEDGE, .has_aeth = 1, \
	  .syndrome = (syn_), .rule = SROCE_RULE_##rule_, .psn = (psn_), .msn = (msn_) }
#define R_NAK(code_, psn_, msn_, rule_) \
	{ .kind = SROCE_RESP_NAK, .opcode = SROCE_OP_ACKNOWLEDGE, .has_aeth = 1, \
	  .syndrome = SYN_NAK(code_), .rule = SROCE_RULE_##rule_, .psn = (psn_), .msn = (msn_) }
#define R_RNR(timer_, psn_, msn_) \
	{ .kind = SROCE_RESP_RNR_NAK, .opcode = SROCE_OP_ACKNOWLEDGE, .has_aeth = 1, \
	  .syndrome = SYN_RNR(timer_), .rule = SROCE_RULE_C9_113, .psn = (psn_), .msn = (msn_) }
#define R_QPERR(psn_, event_, rule_) \
	{ .kind = SROCE_RESP_QP_ERROR, .qp_event = SROCE_QP_EVENT_##event_, \
	  .rule = SROCE_RULE_##rule_, .psn = (psn_) }
#define R_ATOMIC(psn_, msn_, syn_, orig_, rule_) \
	{ .kind = SROCE_RESP_ATOMIC_ACK, .opcode = SROCE_OP_ATOMIC_ACKNOWLEDGE, .has_aeth = 1, \
	  .syndrome = (syn_), .rule = SROCE_RULE_##rule_, .psn = (psn_), .msn = (msn_), \
	  .atomic_orig = (orig_) }
#define R_READ(k_, psn_, msn_, syn_, va_, len_, rule_) \
	{ .kind = SROCE_RESP_READ_##k_, .opcode = SROCE_OP_READ_RESP_##k_, \
	  .has_aeth = SROCE_RESP_READ_##k_ != SROCE_RESP_READ_MIDDLE, \
	  .syndrome = (syn_), .rule = SROCE_RULE_##rule_, .psn = (psn_), .msn = (msn_), \
	  .va = (va_), .length = (len_) }

#define KEEP .keep = 1
#define STATS(coalesced_, episodes_) \
	.check_stats = 1, .coalesced = (coalesced_), .seq_episodes = (episodes_)
/* The responses counted as sent (every one pulled, less a failed READ's). */
#define SENT(read_, nak_) .check_sent = 1, .sent_read = (read_), .sent_nak = (nak_)

/*
 * Case parameters: expected PSN, path MTU, ACK cap, RNR timer (+ srq ...).
 * ack_span_max is 0 (no limit) unless PARAMS_SPAN sets it.
 */
#define PARAMS_ALL(epsn_, pmtu_, cap_, rnr_, ...) \
	.params = { .epsn = (epsn_), .pmtu = (pmtu_), .ack_coalesce_max = (cap_), \
		    .min_rnr_timer = (rnr_), __VA_ARGS__ }
#define PARAMS(epsn_, pmtu_, ...) PARAMS_ALL(epsn_, pmtu_, 16, 14, __VA_ARGS__)
#define PARAMS_CAP(epsn_, pmtu_, cap_) PARAMS_ALL(epsn_, pmtu_, cap_, 14)
#define PARAMS_RNR(epsn_, pmtu_, rnr_) PARAMS_ALL(epsn_, pmtu_, 16, rnr_)
#define PARAMS_SPAN(epsn_, pmtu_, span_) PARAMS_ALL(epsn_, pmtu_, 16, 14, .ack_span_max = (span_))

#endif /* SROCE_CASE_H */
