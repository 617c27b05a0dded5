/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The C ABI of the sroce requester and completer cores.
 *
 * Like the responder (core_abi.h), both are pure decision engines over
 * per-QP state the caller owns.  They share one send queue: a ring of
 * kernel shadow WQEs (struct sroce_sq_wqe) in caller storage, which the
 * caller fills and the cores then own until each WQE is retired.  They
 * allocate nothing, take no locks and include no kernel header; the
 * caller runs every call for one QP in one execution context.
 *
 * The requester turns WQEs into packet descriptors; the caller gathers
 * the payload and transmits:
 *
 *	fill ring slots, then sroce_req_post(sq, n);
 *	while ((r = sroce_req_next(sq, &pkt)).action == SROCE_SQ_SEND) {
 *		build and transmit pkt;   no memory? sroce_req_unsend(sq), stop
 *		                          gather failed? sroce_req_wqe_error(sq, st)
 *		apply r.timer;
 *	}
 *	(r.action == SROCE_SQ_LOCAL: carry out the local operation of WQE
 *	pkt.wqe, then r = sroce_req_local_done(sq, status), and go on)
 *
 * The completer interprets every response packet, says where READ
 * response data and ATOMIC results go, rewinds the requester for
 * go-back-N, and retires WQEs in order:
 *
 *	r = sroce_comp_rx(sq, &resp, &place);
 *	if (r.action == SROCE_SQ_PLACE)
 *		r = sroce_comp_placed(sq, copy(place) ? SROCE_WC_LOC_PROT_ERR : 0);
 *	apply r.timer;  (timer expiry: sroce_comp_timeout() / sroce_comp_rnr_expired())
 *	while (sroce_comp_pull(sq, &cqe))
 *		retire the WQE, post a CQE if cqe.signaled, move to Error if cqe.qp_error;
 *
 * Rules are tagged with the IBA Vol 1 (release 1.2.1) section that holds
 * them; enum sroce_sq_rule lists them and kunit/spec-rules.txt maps each
 * to the tests that check it.
 */
#ifndef SROCE_SQ_ABI_H
#define SROCE_SQ_ABI_H

#include "types.h"
#include "ib_wire.h"

/* Work request operations the requester carries out. */
enum sroce_wr_op {
	SROCE_WR_SEND = 0,
	SROCE_WR_SEND_IMM = 1,
	SROCE_WR_WRITE = 2,
	SROCE_WR_WRITE_IMM = 3,
	SROCE_WR_READ = 4,
	SROCE_WR_CMP_SWAP = 5,
	SROCE_WR_FETCH_ADD = 6,
	SROCE_WR_SEND_INV = 7,	/* SEND with Invalidate: imm holds the IETH R_Key */
	SROCE_WR_LOCAL_INV = 8,	/* local: invalidate a key (no packet) */
	SROCE_WR_BIND_MW = 9,	/* local: bind a memory window (no packet) */
	SROCE_WR_OP_COUNT = 10,
};

/* The QP's transport service (struct sroce_sq_params.transport). */
enum sroce_transport {
	SROCE_TRANSPORT_RC = 0,	/* reliable connected: ACKs, retries, window, credits */
	SROCE_TRANSPORT_UD = 1,	/* unreliable datagram: one SEND Only packet per message */
	SROCE_TRANSPORT_UC = 2,	/* unreliable connected: RC's packets, no ACK, no retry */
	SROCE_TRANSPORT_COUNT = 3,
};

/* struct sroce_sq_wqe.flags, set by the caller. */
#define SROCE_WF_SIGNALED 0x01	/* post a CQE on success (errors always post) */
#define SROCE_WF_FENCE 0x02	/* wait for earlier READ/ATOMICs to complete */
#define SROCE_WF_SOLICITED 0x04	/* BTH SE on the last packet */

/* Completion status, as IBA 10.10.2 / libibverbs name them. */
#define SROCE_WC_STATUS_LIST(X)					\
	X(SROCE_WC_SUCCESS, 0, "success")			\
	X(SROCE_WC_LOC_LEN_ERR, 1, "loc_len_err")		\
	X(SROCE_WC_LOC_QP_OP_ERR, 2, "loc_qp_op_err")		\
	X(SROCE_WC_LOC_PROT_ERR, 3, "loc_prot_err")		\
	X(SROCE_WC_WR_FLUSH_ERR, 4, "wr_flush_err")		\
	X(SROCE_WC_BAD_RESP_ERR, 5, "bad_resp_err")		\
	X(SROCE_WC_REM_INV_REQ_ERR, 6, "rem_inv_req_err")	\
	X(SROCE_WC_REM_ACCESS_ERR, 7, "rem_access_err")		\
	X(SROCE_WC_REM_OP_ERR, 8, "rem_op_err")			\
	X(SROCE_WC_RETRY_EXC_ERR, 9, "retry_exc_err")		\
	X(SROCE_WC_RNR_RETRY_EXC_ERR, 10, "rnr_retry_exc_err")	\
	X(SROCE_WC_MW_BIND_ERR, 11, "mw_bind_err")

enum sroce_wc_status {
	SROCE_WC_STATUS_LIST(SROCE_ENUM_ENTRY_VALUE)
	SROCE_WC_STATUS_COUNT,
};

/* What a call asks of the caller. */
enum sroce_sq_action {
	SROCE_SQ_IDLE = 0,	/* nothing to do */
	SROCE_SQ_SEND = 1,	/* build and transmit the packet descriptor */
	SROCE_SQ_BLOCKED = 2,	/* work is queued but may not go yet: ret.reason */
	SROCE_SQ_ACCEPT = 3,	/* response consumed; pull completions */
	SROCE_SQ_PLACE = 4,	/* place response data, then sroce_comp_placed() */
	SROCE_SQ_DROP = 5,	/* response dropped: ret.reason */
	SROCE_SQ_LOCAL = 6,	/* carry out WQE pkt.wqe's local operation, then sroce_req_local_done() */
	SROCE_SQ_ACTION_COUNT = 7,
};

/* Why the requester may not send (SROCE_SQ_BLOCKED). */
#define SROCE_BLOCK_REASON_LIST(X)									\
	X(SROCE_BLK_NONE, "none")									\
	X(SROCE_BLK_WINDOW, "window")		/* PSN window full */					\
	X(SROCE_BLK_ORD, "ord")			/* max_rd_atomic READ/ATOMICs outstanding */		\
	X(SROCE_BLK_FENCE, "fence")		/* fenced WQE behind an outstanding READ/ATOMIC */	\
	X(SROCE_BLK_CREDITS, "credits")		/* no end-to-end credit for a WQE-consuming message */	\
	X(SROCE_BLK_RNR_WAIT, "rnr_wait")	/* waiting out an RNR NAK's timer */			\
	X(SROCE_BLK_DRAINING, "draining")	/* SQD: no new WQE starts */				\
	X(SROCE_BLK_ERROR, "error")		/* a WQE failed: nothing more goes */			\
	X(SROCE_BLK_HOLD, "hold")		/* the last packet posted waits for the response due */

enum sroce_block_reason {
	SROCE_BLOCK_REASON_LIST(SROCE_ENUM_ENTRY)
	SROCE_BLK_REASON_COUNT,
};

/* Why the completer dropped a response (SROCE_SQ_DROP). */
#define SROCE_COMP_DROP_LIST(X)										\
	X(SROCE_CDROP_NONE, "none")									\
	X(SROCE_CDROP_GHOST, "ghost")		/* answers nothing outstanding */			\
	X(SROCE_CDROP_DUPLICATE, "duplicate")	/* an ACK/response already applied */			\
	X(SROCE_CDROP_STALE_NAK, "stale_nak")	/* NAK for a point already retried */			\
	X(SROCE_CDROP_BAD_OPCODE, "bad_opcode")	/* not a response opcode, or out of sequence */		\
	X(SROCE_CDROP_BAD_LENGTH, "bad_length")	/* READ response payload does not fit */		\
	X(SROCE_CDROP_RESERVED, "reserved")	/* reserved AETH syndrome or NAK code */		\
	X(SROCE_CDROP_READ_GAP, "read_gap")	/* READ response beyond the next expected PSN */	\
	X(SROCE_CDROP_QP_ERROR, "qp_error")	/* the send queue is in error */

enum sroce_comp_drop {
	SROCE_COMP_DROP_LIST(SROCE_ENUM_ENTRY)
	SROCE_CDROP_REASON_COUNT,
};

/* Timer commands (ret.timer): the caller owns the timers, the core when they run. */
enum sroce_timer_op {
	SROCE_TMR_KEEP = 0,	/* leave the timers as they are */
	SROCE_TMR_ARM = 1,	/* start the retransmit timer (it was not running) */
	SROCE_TMR_RESTART = 2,	/* progress: restart the retransmit timer */
	SROCE_TMR_CANCEL = 3,	/* nothing outstanding: stop the retransmit timer */
	SROCE_TMR_RNR = 4,	/* stop the retransmit timer, start the RNR timer (ret.rnr_code) */
	SROCE_TMR_OP_COUNT = 5,
};

/* struct sroce_req_pkt.flags */
#define SROCE_PF_ACKREQ 0x01	/* BTH AckReq */
#define SROCE_PF_SOLICITED 0x02	/* BTH SE */
#define SROCE_PF_RETRY 0x04	/* a retransmission */

/* The rule behind a requester or completer decision. */
#define SROCE_SQ_RULE_LIST(X)								\
	X(SROCE_SQR_NONE, "none")							\
	/* one PSN per request packet, a READ reserves one per response */		\
	X(SROCE_SQR_PSN, "9.7.1-psn")							\
	/* First/Middle/Last/Only by path MTU, RETH first, ImmDt last */		\
	X(SROCE_SQR_SEGMENT, "9.7.2-segment")						\
	/* AckReq on the last packet posted so far */					\
	X(SROCE_SQR_ACKREQ_LAST, "9.7.5.1.6-ackreq-last")				\
	/* AckReq every N packets, at a message end within 2N */			\
	X(SROCE_SQR_ACKREQ_EVERY, "9.7.5.1.6-ackreq-every")				\
	/* AckReq before blocking on the window or credits */				\
	X(SROCE_SQR_ACKREQ_BLOCK, "9.7.5.1.6-ackreq-block")				\
	/* AckReq before the caller yields (sroce_req_next_last) */			\
	X(SROCE_SQR_ACKREQ_YIELD, "9.7.5.1.6-ackreq-yield")				\
	/* AckReq when the timer has aged with no response due */			\
	X(SROCE_SQR_ACKREQ_AGED, "9.7.5.1.6-ackreq-aged")				\
	/* the last packet posted waits while a response is due */			\
	X(SROCE_SQR_ACKREQ_HOLD, "9.7.5.1.6-ackreq-hold")				\
	/* at most window PSNs outstanding */						\
	X(SROCE_SQR_WINDOW, "9.7.1-window")						\
	/* at most max_rd_atomic READ/ATOMICs outstanding */				\
	X(SROCE_SQR_ORD, "9.7.6.1-ord")							\
	/* a fenced WQE waits for earlier READ/ATOMICs */				\
	X(SROCE_SQR_FENCE, "10.8.3.3-fence")						\
	/* no WQE-consuming message beyond credits (+1 probe) */			\
	X(SROCE_SQR_CREDITS, "9.7.7.2-credits")						\
	/* an ACK acknowledges every PSN up to its own */				\
	X(SROCE_SQR_ACK, "9.7.5.1.2-ack")						\
	/* ACK beyond an unanswered READ/ATOMIC: resend it */				\
	X(SROCE_SQR_IMPLIED_NAK, "9.7.5.1.2-implied-nak")				\
	/* READ responses in PSN order, First implies ACK */				\
	X(SROCE_SQR_READ_RESP, "9.7.5.1.3-read-resp")					\
	/* ATOMIC ACK carries the original value */					\
	X(SROCE_SQR_ATOMIC_ACK, "9.7.5.1.3-atomic-ack")					\
	/* sequence NAK: go back to its PSN */						\
	X(SROCE_SQR_SEQ_NAK, "9.7.5.1.5-seq-nak")					\
	/* RNR NAK: wait its timer, then resend from its PSN */				\
	X(SROCE_SQR_RNR_NAK, "9.7.5.1.5-rnr-nak")					\
	/* invalid request, remote access, remote op NAK */				\
	X(SROCE_SQR_FATAL_NAK, "9.7.5.2-fatal-nak")					\
	/* local ACK timeout: go back to the oldest unacked PSN */			\
	X(SROCE_SQR_TIMEOUT, "9.7.6.1-timeout")						\
	/* retry_cnt retries per episode, then RETRY_EXC_ERR */				\
	X(SROCE_SQR_RETRY_CNT, "9.7.6.1-retry-cnt")					\
	/* rnr_retry retries, 7 is infinite, then RNR_RETRY_EXC_ERR */			\
	X(SROCE_SQR_RNR_RETRY, "9.7.6.1-rnr-retry")					\
	/* timer armed on send, restarted on progress, cancelled idle */		\
	X(SROCE_SQR_TIMER, "9.7.6.1-timer")						\
	/* a response that answers nothing is dropped */				\
	X(SROCE_SQR_GHOST, "9.7.6.1-ghost")						\
	/* a local error completes its WQE, the QP goes to Error */			\
	X(SROCE_SQR_LOCAL_ERR, "10.10.2-local-err")					\
	/* in Error every remaining WQE completes WR_FLUSH_ERR */			\
	X(SROCE_SQR_FLUSH, "10.10.2-flush")						\
	/* UD: a message is one SEND Only packet, complete once sent */			\
	X(SROCE_SQR_UD_SEND, "ud-send")							\
	/* UD: a message longer than the MTU fails LOC_LEN_ERR, unsent */		\
	X(SROCE_SQR_UD_LENGTH, "ud-length")						\
	/* UD: only SEND and SEND with immediate; else LOC_QP_OP_ERR */			\
	X(SROCE_SQR_UD_OP, "ud-op")							\
	/* UC: RC's packets, no AckReq, window, credits or timer; done once sent */	\
	X(SROCE_SQR_UC_SEND, "uc-send")							\
	/* UC: SEND and WRITE (with immediate) only; else LOC_QP_OP_ERR */		\
	X(SROCE_SQR_UC_OP, "uc-op")							\
	/* BIND_MW, LOCAL_INV run when reached, complete in order */			\
	X(SROCE_SQR_LOCAL_OP, "local-op")

enum sroce_sq_rule {
	SROCE_SQ_RULE_LIST(SROCE_ENUM_ENTRY)
	SROCE_SQR_COUNT,
};

/* Requester parameters, fixed when the QP enters RTS. */
struct sroce_sq_params {
	uint32_t psn;		/* sq_psn: the first request PSN */
	uint32_t pmtu;		/* path MTU in bytes: 256..4096 */
	uint32_t window;	/* max PSNs outstanding (1..2^23-1) */
	uint32_t ackreq_every;	/* AckReq after N packets at the message end, at most 2N; 0: never */
	uint8_t max_rd_atomic;	/* ORD; 0 means READ/ATOMIC block forever */
	uint8_t timeout;	/* local ACK timeout exponent; 0: no retransmit timer */
	uint8_t retry_cnt;	/* 0..7 */
	uint8_t rnr_retry;	/* 0..7, 7 is infinite */
	uint8_t hold_tail;	/* hold the last packet posted while a response is due */
	uint8_t transport;	/* enum sroce_transport; UD: pmtu is the port's MTU */
	uint8_t pad[2];
};

/* One shadow WQE.  The caller fills the first block before posting. */
struct sroce_sq_wqe {
	uint64_t remote_va;	/* RETH / AtomicETH address */
	uint64_t swap_add;	/* ATOMIC swap or add value */
	uint64_t compare;	/* ATOMIC compare value */
	uint32_t length;	/* message length in bytes (ATOMIC: 8) */
	uint32_t rkey;
	uint32_t imm;		/* immediate data or the IETH R_Key, as on the wire */
	uint8_t op;		/* enum sroce_wr_op */
	uint8_t flags;		/* SROCE_WF_* */
	uint8_t pad0[2];
	/* Owned by the cores from sroce_req_post() until the WQE is retired. */
	uint32_t first_psn;	/* PSN of its first packet */
	uint32_t npsn;		/* PSNs it spans */
	uint32_t ssn;		/* send sequence number, for credits */
	uint8_t state;		/* core private */
	uint8_t status;		/* enum sroce_wc_status once known */
	uint8_t rule;		/* enum sroce_sq_rule that completed it */
	uint8_t qp_error;	/* its completion moves the QP to Error */
	uint8_t pad1[4];
};

/* A request packet for the caller to build. */
struct sroce_req_pkt {
	uint64_t va;		/* RETH / AtomicETH address */
	uint64_t swap_add;
	uint64_t compare;
	uint32_t wqe;		/* ring position of its WQE (free-running) */
	uint32_t psn;
	uint32_t offset;	/* where the payload starts in the message */
	uint32_t length;	/* payload bytes, pad excluded */
	uint32_t dma_len;	/* RETH DMA length */
	uint32_t rkey;
	uint32_t imm;
	uint8_t opcode;		/* BTH opcode */
	uint8_t flags;		/* SROCE_PF_* */
	uint8_t pad_count;	/* BTH PadCnt */
	uint8_t rule;		/* enum sroce_sq_rule behind its AckReq or opcode */
};

/* A response packet as the receive path parsed it. */
struct sroce_comp_pkt {
	uint64_t atomic_orig;	/* AtomicAckETH */
	uint32_t psn;
	uint32_t msn;		/* AETH MSN (if the opcode has an AETH) */
	uint32_t payload_len;	/* pad removed */
	uint8_t opcode;
	uint8_t syndrome;	/* AETH syndrome */
	uint8_t pad[2];
};

/* Where response data goes (SROCE_SQ_PLACE). */
struct sroce_comp_place {
	uint64_t atomic_orig;	/* ATOMIC: the value for the local buffer */
	uint32_t wqe;		/* ring position */
	uint32_t offset;	/* READ: offset in the local buffers */
	uint32_t length;	/* READ: payload bytes; ATOMIC: 8 */
	uint8_t atomic;
	uint8_t pad[3];
};

/* A retired WQE, in send queue order. */
struct sroce_sq_cqe {
	uint32_t wqe;		/* ring position */
	uint32_t byte_len;	/* bytes transferred */
	uint8_t status;		/* enum sroce_wc_status */
	uint8_t op;		/* enum sroce_wr_op */
	uint8_t signaled;	/* post a CQE for it */
	uint8_t qp_error;	/* this completion moves the QP to Error */
	uint8_t rule;
	uint8_t pad[3];
};

/* What a call decided. */
struct sroce_sq_ret {
	uint8_t action;		/* enum sroce_sq_action */
	uint8_t reason;		/* block reason or completer drop reason */
	uint8_t rule;		/* enum sroce_sq_rule */
	uint8_t timer;		/* enum sroce_timer_op */
	uint8_t rnr_code;	/* RNR timer code for SROCE_TMR_RNR */
	uint8_t pad[3];
};

/* Counters kept by the cores, per QP. */
struct sroce_sq_stats {
	uint64_t packets;		/* request packets handed out */
	uint64_t retransmits;		/* of which retransmissions */
	uint64_t timeouts;		/* retransmit timer expiries acted on */
	uint64_t rnr_waits;		/* RNR NAKs waited out */
	uint64_t seq_naks;
	uint64_t rnr_naks;
	uint64_t fatal_naks[SROCE_NAK_CODE_COUNT];	/* by NAK code (1..3 used) */
	uint64_t implied_naks;
	uint64_t acks;			/* ACKs that acknowledged something new */
	uint64_t drops[SROCE_CDROP_REASON_COUNT];
	uint64_t completions[SROCE_WC_STATUS_COUNT];
	uint64_t blocked[SROCE_BLK_REASON_COUNT];
};

#define SROCE_SQ_QP_WORDS 80

/* Per-QP requester and completer state.  Opaque. */
struct sroce_sq_qp {
	uint64_t opaque[SROCE_SQ_QP_WORDS];
};

SROCE_STATIC_ASSERT(sizeof(struct sroce_sq_params) == 24, "sq params layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_sq_wqe) == 64, "sq wqe layout");
SROCE_STATIC_ASSERT(__builtin_offsetof(struct sroce_sq_wqe, first_psn) == 40, "sq wqe layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_req_pkt) == 56, "req pkt layout");
SROCE_STATIC_ASSERT(__builtin_offsetof(struct sroce_req_pkt, opcode) == 52, "req pkt layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_comp_pkt) == 24, "comp pkt layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_comp_place) == 24, "comp place layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_sq_cqe) == 16, "sq cqe layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_sq_ret) == 8, "sq ret layout");

SROCE_EXTERN_C_BEGIN

/**
 * sroce_sq_init() - reset a QP's requester and completer.
 * @sq: state to initialise
 * @p: parameters; pmtu is rounded to a supported one, window clamped
 * @ring: caller-owned shadow WQE ring
 * @nslots: ring slots, a power of two (else rounded down)
 */
void sroce_sq_init(struct sroce_sq_qp *sq, const struct sroce_sq_params *p,
		   struct sroce_sq_wqe *ring, uint32_t nslots);

/** sroce_sq_room() - ring slots free for sroce_req_post(). */
uint32_t sroce_sq_room(const struct sroce_sq_qp *sq);

/** sroce_sq_producer() - ring position the next posted WQE takes. */
uint32_t sroce_sq_producer(const struct sroce_sq_qp *sq);

/**
 * sroce_req_post() - @n WQEs were filled at the producer position onward.
 * Returns how many were taken (at most sroce_sq_room()).  In Error they
 * are taken and flushed at once.
 */
uint32_t sroce_req_post(struct sroce_sq_qp *sq, uint32_t n);

/**
 * sroce_req_post_error() - post one WQE the caller refused (bad opcode,
 * length, inline size or key): it completes with @status in send queue
 * order, and the QP goes to Error.  Returns 1, or 0 if the ring is full.
 */
uint32_t sroce_req_post_error(struct sroce_sq_qp *sq, uint8_t status);

/** sroce_req_next() - the next request packet to send, or why none can go. */
struct sroce_sq_ret sroce_req_next(struct sroce_sq_qp *sq, struct sroce_req_pkt *pkt);

/**
 * sroce_req_next_last() - as sroce_req_next(), for the last packet the
 * caller sends before it yields (its send budget is spent) and comes back
 * after an unknown time: a SEND or WRITE packet gets AckReq
 * (SROCE_SQR_ACKREQ_YIELD) unless an earlier rule gave it one, so no
 * packet waits unrequested for an ACK while the requester is away.
 */
struct sroce_sq_ret sroce_req_next_last(struct sroce_sq_qp *sq, struct sroce_req_pkt *pkt);

/* sroce_req_next_hint() hints: what the caller knows and the core cannot. */
#define SROCE_REQ_HINT_YIELD 0x01	/* the caller yields after this packet */
#define SROCE_REQ_HINT_TIMER_AGED 0x02	/* the retransmit timer ran half its period */

/*
 * The retransmit timer has aged (SROCE_REQ_HINT_TIMER_AGED) once it has run
 * for period / SROCE_REQ_AGED_DIVISOR since it was last started.  The
 * driver's timers and the loopback stream test both use it.
 */
#define SROCE_REQ_AGED_DIVISOR 2

/**
 * sroce_req_next_hint() - as sroce_req_next(), with @hints (SROCE_REQ_HINT_*).
 * YIELD is sroce_req_next_last().  TIMER_AGED: the retransmit timer has
 * run for half its period since it was last started; if no packet
 * that draws a response (AckReq'd, READ, ATOMIC) is outstanding, a SEND
 * or WRITE packet gets AckReq (SROCE_SQR_ACKREQ_AGED).  A requester that
 * sends slowly (under TCG, 32 packets took longer than the 67 ms timer)
 * then asks for the ACK before the timer expires rather than after.
 */
struct sroce_sq_ret sroce_req_next_hint(struct sroce_sq_qp *sq, struct sroce_req_pkt *pkt,
					uint8_t hints);

/**
 * sroce_req_held() - the caller's transmit path is full: may it hold back?
 * SROCE_SQ_IDLE: yes; the retransmit timer still runs for what is
 * outstanding (9.7.6.1): if a timeout's go-back left it stopped until the
 * retransmission goes out, it is armed now (SROCE_TMR_ARM), so that a path
 * that never drains ends in RETRY_EXC_ERR after retry_cnt timeouts rather
 * than in a silent stall.  SROCE_SQ_ACCEPT (RC, nothing outstanding): no
 * timer could end a hold, so the caller sends on (sroce_req_next()), and
 * the first packet arms the timer.  UC and UD always hold, with no timer.
 * Rule SROCE_SQR_TIMER.
 */
struct sroce_sq_ret sroce_req_held(struct sroce_sq_qp *sq);

/**
 * sroce_req_unsend() - the packet the last sroce_req_next() returned was
 * not sent: hand it out again.  Only directly after that call; any other
 * call in between makes it a no-op.
 */
void sroce_req_unsend(struct sroce_sq_qp *sq);

/**
 * sroce_req_wqe_error() - the last packet handed out could not be built:
 * its WQE completes with @status (a local error) once everything before
 * it has, and the requester stops.
 */
struct sroce_sq_ret sroce_req_wqe_error(struct sroce_sq_qp *sq, uint8_t status);

/**
 * sroce_req_local_done() - the local operation (BIND_MW, LOCAL_INV) the
 * last SROCE_SQ_LOCAL handed out was carried out (SROCE_WC_SUCCESS) or
 * failed with @status.  It completes in send queue order; a failure
 * completes it with @status and moves the QP to Error, as a local error.
 * SROCE_SQ_ACCEPT means completions may be pulled.
 */
struct sroce_sq_ret sroce_req_local_done(struct sroce_sq_qp *sq, uint8_t status);

/** sroce_req_set_draining() - SQD: start no new WQE while @on. */
void sroce_req_set_draining(struct sroce_sq_qp *sq, uint8_t on);

/**
 * sroce_req_set_port_mtu() - UD: the port's MTU is now @pmtu bytes.
 *
 * A datagram is one packet of at most the port's current MTU (ud-length):
 * every WQE the requester reaches from now on is measured against it.
 * RC and UC ignore it (their path MTU is a QP attribute, fixed at RTR).
 */
void sroce_req_set_port_mtu(struct sroce_sq_qp *sq, uint32_t pmtu);

/**
 * sroce_comp_rx() - interpret a response packet.  On SROCE_SQ_PLACE,
 * @place says where its data goes and sroce_comp_placed() must follow.
 */
struct sroce_sq_ret sroce_comp_rx(struct sroce_sq_qp *sq, const struct sroce_comp_pkt *resp,
				  struct sroce_comp_place *place);

/** sroce_comp_placed() - the data of the last SROCE_SQ_PLACE was placed (0) or not (a status). */
struct sroce_sq_ret sroce_comp_placed(struct sroce_sq_qp *sq, uint8_t status);

/** sroce_comp_timeout() - the retransmit timer expired. */
struct sroce_sq_ret sroce_comp_timeout(struct sroce_sq_qp *sq);

/** sroce_comp_rnr_expired() - the RNR timer expired: resume. */
struct sroce_sq_ret sroce_comp_rnr_expired(struct sroce_sq_qp *sq);

/** sroce_sq_flush() - the QP is in Error: every WQE not retired completes WR_FLUSH_ERR. */
void sroce_sq_flush(struct sroce_sq_qp *sq);

/** sroce_comp_pull() - the next retired WQE, in order.  Returns 1 and fills @c, or 0. */
int sroce_comp_pull(struct sroce_sq_qp *sq, struct sroce_sq_cqe *c);

/** sroce_sq_outstanding() - WQEs posted and not yet pulled as retired. */
uint32_t sroce_sq_outstanding(const struct sroce_sq_qp *sq);

/** sroce_sq_drained() - SQD is draining and nothing is outstanding on the wire. */
int sroce_sq_drained(const struct sroce_sq_qp *sq);

/** sroce_sq_next_psn() - the PSN the next new request packet takes. */
uint32_t sroce_sq_next_psn(const struct sroce_sq_qp *sq);

/** sroce_sq_acked_psn() - the newest PSN acknowledged (first PSN - 1 at start). */
uint32_t sroce_sq_acked_psn(const struct sroce_sq_qp *sq);

const struct sroce_sq_stats *sroce_sq_get_stats(const struct sroce_sq_qp *sq);

/** sroce_timeout_ns() - the local ACK timeout: 4.096 us * 2^@code, 0 for none. */
uint64_t sroce_timeout_ns(uint8_t code);

/** sroce_rnr_timer_ns() - the RNR NAK timer for a 5-bit code (IBA Table 45). */
uint64_t sroce_rnr_timer_ns(uint8_t code);

/* Names for logs, tests and tracepoints; never NULL. */
const char *sroce_sq_rule_name(uint8_t rule);
const char *sroce_block_reason_name(uint8_t reason);
const char *sroce_comp_drop_name(uint8_t reason);
const char *sroce_wc_status_name(uint8_t status);

SROCE_EXTERN_C_END

#endif /* SROCE_SQ_ABI_H */
