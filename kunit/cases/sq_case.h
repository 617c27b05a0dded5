/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Table-driven requester and completer cases, shared by KUnit and the
 * GoogleTest runner like the responder's (case.h).  A case posts WQEs,
 * asks for packets, feeds responses and timer expiries, and pulls
 * completions; every step names what must come out, field by field, and
 * that nothing else does.
 */
#ifndef SROCE_SQ_CASE_H
#define SROCE_SQ_CASE_H

#include <sroce/sq_abi.h>
#include "case.h"

enum sroce_sq_step_op {
	SQ_POST = 0,	/* post one WQE */
	SQ_NEXT,	/* sroce_req_next() until it stops sending */
	SQ_RESP,	/* one response packet into the completer */
	SQ_PLACED,	/* report the placement the last SQ_RESP asked for */
	SQ_TIMEOUT,	/* the retransmit timer expired */
	SQ_RNR_DONE,	/* the RNR timer expired */
	SQ_UNSEND,	/* the last packet could not be sent */
	SQ_WQE_ERROR,	/* the last packet could not be gathered */
	SQ_FLUSH,	/* the QP moved to Error */
	SQ_DRAIN,	/* SQD: value 1 on, 0 off */
	SQ_PULL,	/* pull completions */
	SQ_POST_ERROR,	/* post one WQE refused with status */
	SQ_NEXT_PASS,	/* as SQ_NEXT, the value-th through sroce_req_next_last() */
	SQ_NEXT_AGED,	/* as SQ_NEXT, each with SROCE_REQ_HINT_TIMER_AGED */
	SQ_LOCAL_DONE,	/* report the local operation handed out: status */
	SQ_PORT_MTU,	/* the port's MTU is now value bytes */
	SQ_HELD,	/* the caller cannot send now (sroce_req_held()) */
};

/* An expected request packet: every field is compared. */
struct sroce_sq_exp_pkt {
	uint8_t opcode;
	uint8_t flags;
	uint8_t rule;
	uint32_t wqe;
	uint32_t psn;		/* offset from the case's initial PSN */
	uint32_t offset;
	uint32_t length;
	uint32_t dma_len;
	uint32_t rkey;
	uint32_t imm;
	uint64_t va;
	uint64_t swap_add;
	uint64_t compare;
};

/* An expected completion. */
struct sroce_sq_exp_cqe {
	uint32_t wqe;
	uint32_t byte_len;
	uint8_t status;
	uint8_t signaled;
	uint8_t qp_error;
	uint8_t rule;
};

#define SQ_CHECK_ACKED 0x02	/* acked PSN (offset from the initial PSN) after the step */
#define SQ_CHECK_PLACE 0x04

struct sroce_sq_step {
	uint8_t op;
	/* SQ_POST */
	uint8_t wr;
	uint8_t wflags;
	uint32_t len;
	uint64_t va;
	uint32_t rkey;
	uint32_t imm;
	uint64_t swap_add;
	uint64_t compare;
	/* SQ_RESP: psn is an offset from the initial PSN */
	uint8_t opcode;
	uint8_t syndrome;
	uint32_t psn;
	uint32_t msn;
	uint32_t plen;
	uint64_t orig;
	/* SQ_PLACED, SQ_WQE_ERROR: status; SQ_DRAIN: on; SQ_NEXT: at most this many (0: all) */
	uint8_t status;
	uint32_t value;
	/* expectations */
	uint8_t action;		/* of the step's last call */
	uint8_t reason;
	uint8_t rule;
	uint8_t timer;		/* enum sroce_timer_op; an RNR one must carry the NAK's code */
	uint8_t check;		/* SQ_CHECK_* */
	uint8_t drained1;	/* 0: not checked, else sroce_sq_drained() + 1 */
	uint32_t acked;
	struct sroce_comp_place place;	/* SQ_CHECK_PLACE: wqe, offset, length, atomic */
	uint32_t npkt;
	const struct sroce_sq_exp_pkt *pkts;
	uint32_t ncqe;
	const struct sroce_sq_exp_cqe *cqes;
};

struct sroce_sq_case {
	const char *name;	/* behaviour, with its rule tag */
	const char *rules;	/* the rule tags it proves, space separated */
	struct sroce_sq_params params;
	uint32_t nsteps;
	const struct sroce_sq_step *steps;
};

#define SROCE_SQ_CASE_SLOTS 16

struct sroce_sq_case_ws {
	struct sroce_sq_qp sq;
	struct sroce_sq_wqe ring[SROCE_SQ_CASE_SLOTS];
	uint8_t last_action;
};

SROCE_EXTERN_C_BEGIN
void sroce_sq_case_run(const struct sroce_sq_case *c, struct sroce_sq_case_ws *ws,
		       const struct sroce_case_checker *chk);
SROCE_EXTERN_C_END

/* Table-building helpers (SROCE_ARRAY/SROCE_COUNT from case.h). */
#define SQ_STEPS(...) .nsteps = SROCE_COUNT(struct sroce_sq_step, __VA_ARGS__), \
		      .steps = SROCE_ARRAY(struct sroce_sq_step, __VA_ARGS__)
#define PKTS(...) .npkt = SROCE_COUNT(struct sroce_sq_exp_pkt, __VA_ARGS__), \
		  .pkts = SROCE_ARRAY(struct sroce_sq_exp_pkt, __VA_ARGS__)
#define CQES(...) .ncqe = SROCE_COUNT(struct sroce_sq_exp_cqe, __VA_ARGS__), \
		  .cqes = SROCE_ARRAY(struct sroce_sq_exp_cqe, __VA_ARGS__)

/* Parameters: initial PSN, path MTU, window, AckReq-every, ORD, timeout, retry, rnr_retry. */
#define SQ_PARAMS(psn_, pmtu_, win_, every_, ord_, to_, retry_, rnr_) \
	.params = { .psn = (psn_), .pmtu = (pmtu_), .window = (win_), .ackreq_every = (every_), \
		    .max_rd_atomic = (ord_), .timeout = (to_), .retry_cnt = (retry_), \
		    .rnr_retry = (rnr_) }
#define SQ_DEFAULT(psn_) SQ_PARAMS(psn_, 256, 64, 0, 4, 14, 7, 7)
/* As SQ_PARAMS, with the tail hold on (9.7.5.1.6-ackreq-hold). */
#define SQ_PARAMS_HOLD(psn_, pmtu_, win_, every_, ord_, to_, retry_, rnr_) \
	.params = { .psn = (psn_), .pmtu = (pmtu_), .window = (win_), .ackreq_every = (every_), \
		    .max_rd_atomic = (ord_), .timeout = (to_), .retry_cnt = (retry_), \
		    .rnr_retry = (rnr_), .hold_tail = 1 }
#define SQ_DEFAULT_HOLD(psn_) SQ_PARAMS_HOLD(psn_, 256, 64, 0, 4, 14, 7, 7)
/*
 * A UD send queue: initial PSN and the port's MTU; the RC parameters are
 * set as an RC queue would have them, to show that UD ignores them.
 */
#define SQ_UD(psn_, mtu_) \
	.params = { .psn = (psn_), .pmtu = (mtu_), .window = 1, .ackreq_every = 1, \
		    .max_rd_atomic = 0, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, \
		    .hold_tail = 1, .transport = SROCE_TRANSPORT_UD }
/* A UC send queue: initial PSN and path MTU; the RC gates set shut, as for UD. */
#define SQ_UC(psn_, mtu_) \
	.params = { .psn = (psn_), .pmtu = (mtu_), .window = 1, .ackreq_every = 1, \
		    .max_rd_atomic = 0, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, \
		    .hold_tail = 1, .transport = SROCE_TRANSPORT_UC }

/* Steps. */
#define POST(wr_, len_, ...) { .op = SQ_POST, .wr = SROCE_WR_##wr_, .len = (len_), __VA_ARGS__ }
#define NEXT(...) { .op = SQ_NEXT, __VA_ARGS__ }
#define NEXT_N(n_, ...) { .op = SQ_NEXT, .value = (n_), __VA_ARGS__ }
/* A pass with a budget of n_ packets: the n_-th is the last before a yield. */
#define NEXT_PASS(n_, ...) { .op = SQ_NEXT_PASS, .value = (n_), __VA_ARGS__ }
/* n_ packets while the retransmit timer has aged (half its period). */
#define NEXT_AGED(n_, ...) { .op = SQ_NEXT_AGED, .value = (n_), __VA_ARGS__ }
#define ACKP(psn_, msn_, credits_, ...) \
	{ .op = SQ_RESP, .opcode = SROCE_OP_ACKNOWLEDGE, .psn = (psn_), .msn = (msn_), \
	  .syndrome = SYN_ACK(credits_), __VA_ARGS__ }
#define NAKP(code_, psn_, msn_, ...) \
	{ .op = SQ_RESP, .opcode = SROCE_OP_ACKNOWLEDGE, .psn = (psn_), .msn = (msn_), \
	  .syndrome = SYN_NAK(code_), __VA_ARGS__ }
#define RNRP(timer_, psn_, msn_, ...) \
	{ .op = SQ_RESP, .opcode = SROCE_OP_ACKNOWLEDGE, .psn = (psn_), .msn = (msn_), \
	  .syndrome = SYN_RNR(timer_), __VA_ARGS__ }
#define READP(k_, psn_, msn_, plen_, ...) \
	{ .op = SQ_RESP, .opcode = SROCE_OP_READ_RESP_##k_, .psn = (psn_), .msn = (msn_), \
	  .plen = (plen_), .syndrome = SYN_ACK(31), __VA_ARGS__ }
#define ATOMICP(psn_, msn_, orig_, ...) \
	{ .op = SQ_RESP, .opcode = SROCE_OP_ATOMIC_ACKNOWLEDGE, .psn = (psn_), .msn = (msn_), \
	  .orig = (orig_), .syndrome = SYN_ACK(31), __VA_ARGS__ }
#define PLACED(st_, ...) { .op = SQ_PLACED, .status = (st_), __VA_ARGS__ }
#define TIMEOUT(...) { .op = SQ_TIMEOUT, __VA_ARGS__ }
#define RNR_DONE(...) { .op = SQ_RNR_DONE, __VA_ARGS__ }
#define UNSEND() { .op = SQ_UNSEND }
#define WQE_ERROR(st_, ...) { .op = SQ_WQE_ERROR, .status = (st_), __VA_ARGS__ }
#define FLUSH() { .op = SQ_FLUSH }
#define DRAIN(on_, ...) { .op = SQ_DRAIN, .value = (on_), __VA_ARGS__ }
#define PULL(...) { .op = SQ_PULL, __VA_ARGS__ }
#define POST_ERROR(st_) { .op = SQ_POST_ERROR, .status = (st_) }
#define LOCAL_DONE(st_, ...) { .op = SQ_LOCAL_DONE, .status = SROCE_WC_##st_, __VA_ARGS__ }
#define PORT_MTU(mtu_) { .op = SQ_PORT_MTU, .value = (mtu_) }
/* The transmit path is full: hold (SQ_IDLE) or send on (SQ_ACT(ACCEPT)). */
#define HELD(...) { .op = SQ_HELD, SQ_RULE(TIMER), __VA_ARGS__ }

/* Step fields. */
#define WF(f) .wflags = (f)
#define SIG SROCE_WF_SIGNALED
#define FENCE SROCE_WF_FENCE
#define SOLICITED SROCE_WF_SOLICITED
#define RDMA(va_, rkey_) .va = (va_), .rkey = (rkey_)
#define IMM(v) .imm = (v)
#define ATOM(va_, rkey_, swap_, cmp_) .va = (va_), .rkey = (rkey_), .swap_add = (swap_), \
				      .compare = (cmp_)
#define SQ_ACT(a) .action = SROCE_SQ_##a
#define SQ_IDLE .action = SROCE_SQ_IDLE
#define SQ_BLOCKED(r) .action = SROCE_SQ_BLOCKED, .reason = SROCE_BLK_##r
#define SQ_DROPPED(r) .action = SROCE_SQ_DROP, .reason = SROCE_CDROP_##r
#define SQ_RULE(r) .rule = SROCE_SQR_##r
/* The timer command is compared on every step; unnamed, it must be KEEP. */
#define TMR(t) .timer = SROCE_TMR_##t
#define TMR_ACKED(t, p) .check = SQ_CHECK_ACKED, .timer = SROCE_TMR_##t, .acked = (p)
#define ACKED(p) .check = SQ_CHECK_ACKED, .acked = (p)
#define DRAINED(v) .drained1 = (v) + 1
#define PLACE(wqe_, off_, len_, atomic_, orig_) \
	.check = SQ_CHECK_PLACE, .action = SROCE_SQ_PLACE, \
	.place = { .wqe = (wqe_), .offset = (off_), .length = (len_), .atomic = (atomic_), \
		   .atomic_orig = (orig_) }

/*
 * Expected packets: opcode without SROCE_OP_, WQE, PSN offset, payload
 * offset, length (the pad count is checked against it); PKT_AR sets
 * AckReq with its SROCE_SQR_ACKREQ_ rule, the _RT forms the
 * retransmission flag.
 */
#define PKT_(op_, wqe_, psn_, off_, len_, flags_, rule_, ...) \
	{ .opcode = SROCE_OP_##op_, .wqe = (wqe_), .psn = (psn_), .offset = (off_), \
	  .length = (len_), .flags = (flags_), .rule = SROCE_SQR_##rule_, __VA_ARGS__ }
#define PKT(op_, wqe_, psn_, off_, len_, ...) \
	PKT_(op_, wqe_, psn_, off_, len_, 0, SEGMENT, __VA_ARGS__)
#define PKT_AR(op_, wqe_, psn_, off_, len_, why_, ...) \
	PKT_(op_, wqe_, psn_, off_, len_, SROCE_PF_ACKREQ, ACKREQ_##why_, __VA_ARGS__)
#define PKT_RT(op_, wqe_, psn_, off_, len_, ...) \
	PKT_(op_, wqe_, psn_, off_, len_, SROCE_PF_RETRY, SEGMENT, __VA_ARGS__)
#define PKT_RT_AR(op_, wqe_, psn_, off_, len_, why_, ...) \
	PKT_(op_, wqe_, psn_, off_, len_, SROCE_PF_RETRY | SROCE_PF_ACKREQ, ACKREQ_##why_, \
	     __VA_ARGS__)
/* A UD datagram: one SEND Only packet, whole message at offset 0. */
#define PKT_UD(op_, wqe_, psn_, len_, ...) \
	PKT_(op_, wqe_, psn_, 0, len_, 0, UD_SEND, __VA_ARGS__)
/* ... with BTH SE (the WQE was solicited). */
#define PKT_UD_SE(op_, wqe_, psn_, len_, ...) \
	PKT_(op_, wqe_, psn_, 0, len_, SROCE_PF_SOLICITED, UD_SEND, __VA_ARGS__)
#define P_RETH(va_, rkey_, len_) .va = (va_), .rkey = (rkey_), .dma_len = (len_)
#define P_IMM(v) .imm = (v)
#define P_ATOM(va_, rkey_, swap_, cmp_) .va = (va_), .rkey = (rkey_), .swap_add = (swap_), \
					.compare = (cmp_)

/* Expected completions. */
#define CQE(wqe_, st_, len_, sig_) \
	{ .wqe = (wqe_), .status = SROCE_WC_##st_, .byte_len = (len_), .signaled = (sig_), \
	  .rule = SROCE_SQR_ACK }
#define CQE_R(wqe_, st_, len_, sig_, rule_, qperr_) \
	{ .wqe = (wqe_), .status = SROCE_WC_##st_, .byte_len = (len_), .signaled = (sig_), \
	  .rule = SROCE_SQR_##rule_, .qp_error = (qperr_) }
#define FLUSHED(wqe_) CQE_R(wqe_, WR_FLUSH_ERR, 0, 1, FLUSH, 0)
#define CQE_UD(wqe_, len_, sig_) CQE_R(wqe_, SUCCESS, len_, sig_, UD_SEND, 0)
#define CQE_UC(wqe_, len_, sig_) CQE_R(wqe_, SUCCESS, len_, sig_, UC_SEND, 0)
#define CQE_LOCAL(wqe_, sig_) CQE_R(wqe_, SUCCESS, 0, sig_, LOCAL_OP, 0)

/* A duplicate ACK of "nothing" that lifts the credit limit (0x1F). */
#define UNLIMITED_CREDITS() \
	ACKP(0xffffff, 0, 31, SQ_ACT(ACCEPT), SQ_RULE(CREDITS))

#endif /* SROCE_SQ_CASE_H */
