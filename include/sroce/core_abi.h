/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The C ABI of the sroce response-generation core.
 *
 * This is the only interface C and C++ share.  The core is a pure
 * decision engine over per-QP state that the caller owns: it takes the
 * RX PSN check's verdict and a parsed request, and answers with an action
 * (execute / responses queued / hold / drop) plus response descriptors the
 * caller pulls and transmits.  It allocates nothing, takes no locks and
 * includes no kernel header; the caller serialises all calls for one QP.
 *
 * A typical RX batch in the driver:
 *
 *	sroce_resp_batch_begin(qp);
 *	for each request packet:
 *		r = sroce_resp_rx(qp, &req);
 *		if (r.action == SROCE_ACT_EXECUTE)
 *			r = sroce_resp_executed(qp, &outcome);
 *		while (sroce_resp_pull(qp, &desc))
 *			transmit(desc);    (READ data failed? sroce_resp_read_failed())
 *	sroce_resp_batch_end(qp);
 *	while (sroce_resp_pull(qp, &desc))
 *		transmit(desc);
 *
 * Spec rules are cited by tag (C9-xxx, o9-xx) from
 * spec/response-generation.md.
 */
#ifndef SROCE_CORE_ABI_H
#define SROCE_CORE_ABI_H

#include "types.h"
#include "ib_wire.h"

/* RX PSN check verdicts. */
enum sroce_psn_verdict {
	SROCE_PSN_NEW = 0,	 /* PSN == expected PSN */
	SROCE_PSN_DUPLICATE = 1, /* behind the expected PSN */
	SROCE_PSN_AHEAD = 2,	 /* ahead: a PSN sequence error */
	SROCE_PSN_VERDICT_COUNT = 3,
};

/* What the caller must do with the request it just handed in. */
#define SROCE_ACTION_LIST(X)										\
	X(SROCE_ACT_HOLD, 0, "hold")		/* nothing to do or send now */				\
	X(SROCE_ACT_EXECUTE, 1, "execute")	/* execute it, then call sroce_resp_executed() */	\
	X(SROCE_ACT_RESPOND, 2, "respond")	/* responses are queued: sroce_resp_pull() */		\
	X(SROCE_ACT_DROP, 3, "drop")		/* drop it; ret.reason says why */

enum sroce_action {
	SROCE_ACTION_LIST(SROCE_ENUM_ENTRY_VALUE)
	SROCE_ACT_COUNT,
};

/*
 * What an EXECUTE asks of the caller (sroce_resp_ret.exec): one class bit
 * and the message facts of the opcode, from the core's opcode table.
 */
enum sroce_exec_flags {
	SROCE_XF_SEND = 0x01,	/* place the payload in the receive WQE */
	SROCE_XF_WRITE = 0x02,	/* place the payload at the RETH address */
	SROCE_XF_READ = 0x04,	/* check the RETH range; data goes per response */
	SROCE_XF_ATOMIC = 0x08,	/* execute the AtomicETH operation */
	SROCE_XF_FIRST = 0x10,	/* starts a message: First or Only */
	SROCE_XF_LAST = 0x20,	/* ends a message: Last or Only */
	SROCE_XF_WQE = 0x40,	/* takes a receive WQE: SEND First/Only, WRITE with immediate */
};

/* Why a request (or the rest of a response) was dropped. */
#define SROCE_DROP_REASON_LIST(X)						\
	X(SROCE_DROP_NONE, "none")						\
	/* PSN wider than 24 bits */						\
	X(SROCE_DROP_BAD_PSN, "bad_psn")					\
	/* not an RC request opcode */						\
	X(SROCE_DROP_BAD_OPCODE, "bad_opcode")					\
	/* verdict disagrees with the expected PSN */				\
	X(SROCE_DROP_BAD_VERDICT, "bad_verdict")				\
	/* ahead of the expected PSN while latched (C9-114) */			\
	X(SROCE_DROP_NAK_LATCHED, "nak_latched")				\
	/* QP is in the error state */						\
	X(SROCE_DROP_QP_ERROR, "qp_error")					\
	/* duplicate READ/ATOMIC not in the resources (o9-67, C9-106) */	\
	X(SROCE_DROP_DUP_NO_RESOURCE, "dup_no_resource")			\
	/* error while answering a duplicate (C9-106, C9-115) */		\
	X(SROCE_DROP_DUP_ERROR, "dup_error")					\
	/* response queue full or execution pending */				\
	X(SROCE_DROP_BUSY, "busy")						\
	/* event with nothing to apply it to */					\
	X(SROCE_DROP_NOT_EXPECTED, "not_expected")

enum sroce_drop_reason {
	SROCE_DROP_REASON_LIST(SROCE_ENUM_ENTRY)
	SROCE_DROP_REASON_COUNT,
};

/* Execution outcome of a request the core told the caller to execute. */
enum sroce_exec_status {
	SROCE_EXEC_OK = 0,
	SROCE_EXEC_RNR = 1,		/* no receive WQE (C9-113) */
	SROCE_EXEC_REM_ACCESS = 2,	/* rkey/bounds/permission (C9-124) */
	SROCE_EXEC_INVALID = 3,		/* length error, misaligned atomic ... */
	SROCE_EXEC_REM_OP = 4,		/* responder-side failure */
	SROCE_EXEC_STATUS_COUNT = 5,
};

/* Response descriptor kinds. */
#define SROCE_RESP_KIND_LIST(X)									\
	X(SROCE_RESP_ACK, 0, "ack")								\
	X(SROCE_RESP_NAK, 1, "nak")								\
	X(SROCE_RESP_RNR_NAK, 2, "rnr_nak")							\
	X(SROCE_RESP_READ_FIRST, 3, "read_first")						\
	X(SROCE_RESP_READ_MIDDLE, 4, "read_middle")						\
	X(SROCE_RESP_READ_LAST, 5, "read_last")							\
	X(SROCE_RESP_READ_ONLY, 6, "read_only")							\
	X(SROCE_RESP_ATOMIC_ACK, 7, "atomic_ack")						\
	X(SROCE_RESP_QP_ERROR, 8, "qp_error")		/* move the QP to the error state */

enum sroce_resp_kind {
	SROCE_RESP_KIND_LIST(SROCE_ENUM_ENTRY_VALUE)
	SROCE_RESP_KIND_COUNT,
};

/*
 * QP_ERROR: the asynchronous event the QP's move to Error raises (IBA
 * 11.6.3.1), decided with the error: the shim maps it, never the rule.
 */
enum sroce_qp_event {
	SROCE_QP_EVENT_NONE = 0,
	SROCE_QP_EVENT_FATAL = 1,	/* Local Work Queue Catastrophic Error */
	SROCE_QP_EVENT_ACCESS = 2,	/* Local Access Violation Work Queue Error */
};

/* The spec rule that drove a decision, for tests and tracepoints. */
#define SROCE_RULE_LIST(X)									\
	X(SROCE_RULE_NONE, "none")								\
	X(SROCE_RULE_C9_95, "C9-95")		/* ACK PSN = newest new request covered */	\
	X(SROCE_RULE_C9_96, "C9-96")		/* READ response PSNs */			\
	X(SROCE_RULE_O9_58, "o9-58")		/* ATOMIC ACK PSN */				\
	X(SROCE_RULE_C9_97, "C9-97")		/* AETH on READ First/Only */			\
	X(SROCE_RULE_C9_98, "C9-98")		/* AETH on READ Last */				\
	X(SROCE_RULE_C9_100, "C9-100")		/* READ failing part-way */			\
	X(SROCE_RULE_C9_101, "C9-101")		/* no ACK overtakes a READ response */		\
	X(SROCE_RULE_C9_103, "C9-103")		/* duplicates do not move the expected PSN */	\
	X(SROCE_RULE_C9_104, "C9-104")		/* duplicates answered oldest first */		\
	X(SROCE_RULE_C9_105, "C9-105")		/* duplicate SEND/WRITE ACK */			\
	X(SROCE_RULE_C9_106, "C9-106")		/* error answering a duplicate: drop */		\
	X(SROCE_RULE_C9_107, "C9-107")		/* duplicate READ re-executed */		\
	X(SROCE_RULE_O9_66, "o9-66")		/* duplicate ATOMIC: saved value */		\
	X(SROCE_RULE_O9_67, "o9-67")		/* duplicate ATOMIC not saved: drop */		\
	X(SROCE_RULE_C9_111, "C9-111")		/* sequence-error NAK PSN */			\
	X(SROCE_RULE_C9_113, "C9-113")		/* RNR NAK PSN, NAK is an Acknowledge */	\
	X(SROCE_RULE_C9_114, "C9-114")		/* NAK latch */					\
	X(SROCE_RULE_C9_116, "C9-116")		/* AckReq scheduling */				\
	X(SROCE_RULE_C9_121, "C9-121")		/* invalid request NAK PSN */			\
	X(SROCE_RULE_C9_124, "C9-124")		/* remote access error NAK PSN */		\
	X(SROCE_RULE_C9_125, "C9-125")		/* remote operational error NAK PSN */		\
	X(SROCE_RULE_C9_148, "C9-148")		/* MSN bump point for READ */			\
	X(SROCE_RULE_C9_149, "C9-149")		/* MSN */					\
	X(SROCE_RULE_C9_150_2_1, "C9-150.2.1")	/* end-to-end credits */			\
	X(SROCE_RULE_O9_95_2_2, "o9-95.2.2")	/* SRQ credits invalid; unsolicited ACK */

enum sroce_rule {
	SROCE_RULE_LIST(SROCE_ENUM_ENTRY)
	SROCE_RULE_COUNT,
};

/* Responder parameters, fixed at init (pmtu may change later). */
struct sroce_resp_params {
	uint32_t epsn;		 /* initial expected PSN (rq_psn) */
	uint32_t pmtu;		 /* path MTU in bytes: 256..4096, power of two */
	uint32_t ack_coalesce_max; /* AckReq'd requests one ACK may cover; 1 = ACK each */
	uint32_t ack_span_max;	 /* PSNs an owed ACK may newly cover before it goes at once; 0 = no limit */
	uint8_t srq;		 /* QP uses an SRQ: credits are 0x1F (o9-95.2.2) */
	uint8_t min_rnr_timer;	 /* 5-bit RNR timer code for RNR NAKs */
	uint8_t read_msn_at_first; /* C9-148: bump MSN at validation (1) or at the end (0) */
	uint8_t pad;
};

/* One READ/ATOMIC resource (C9-107, o9-66).  Storage belongs to the caller. */
struct sroce_rd_res {
	uint64_t va;
	uint64_t atomic_orig;	/* saved original value for ATOMIC */
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t rkey;
	uint32_t length;
	uint8_t kind;		/* 0 free, 1 READ, 2 ATOMIC */
	uint8_t pending;	/* responses for it are still queued */
	uint8_t has_result;	/* ATOMIC executed, atomic_orig valid */
	uint8_t pad[5];
};

/* The responder's request: a request packet as the receive path parsed it. */
struct sroce_resp_req {
	uint64_t va;		/* RETH or AtomicETH virtual address */
	uint32_t psn;
	uint32_t payload_len;	/* payload bytes in this packet, pad removed */
	uint32_t dma_len;	/* RETH DMA length (READ/WRITE First/Only) */
	uint32_t rkey;
	uint8_t opcode;		/* BTH opcode */
	uint8_t verdict;	/* enum sroce_psn_verdict */
	uint8_t ackreq;		/* BTH AckReq bit */
	uint8_t pad[5];
};

/* The execution outcome the caller reports for an EXECUTE request. */
struct sroce_exec {
	uint64_t atomic_orig;	/* original value, for a successful ATOMIC */
	uint8_t status;		/* enum sroce_exec_status */
	uint8_t pad[7];
};

/* A fully specified response for TX Packet Build. */
struct sroce_resp_desc {
	uint64_t va;		/* READ: address of this packet's payload */
	uint64_t atomic_orig;	/* ATOMIC ACK: AtomicAckETH value */
	uint32_t psn;		/* BTH PSN */
	uint32_t msn;		/* AETH MSN */
	uint32_t length;	/* READ: payload bytes */
	uint32_t rkey;		/* READ: rkey to fetch with */
	uint8_t kind;		/* enum sroce_resp_kind */
	uint8_t opcode;		/* BTH opcode */
	uint8_t has_aeth;
	uint8_t syndrome;	/* AETH syndrome, encoded */
	uint8_t rule;		/* enum sroce_rule */
	uint8_t qp_event;	/* QP_ERROR: enum sroce_qp_event, else 0 */
	uint8_t pad[2];
};

/* What a call decided. */
struct sroce_resp_ret {
	uint8_t action;		/* enum sroce_action */
	uint8_t reason;		/* enum sroce_drop_reason when DROP */
	uint8_t rule;		/* enum sroce_rule behind the decision */
	uint8_t exec;		/* enum sroce_exec_flags when EXECUTE, else 0 */
};

/* Counters kept by the core, per QP. */
struct sroce_resp_stats {
	uint64_t sent[SROCE_RESP_KIND_COUNT];	/* descriptors handed out */
	uint64_t naks[SROCE_NAK_CODE_COUNT];	/* NAKs by code */
	uint64_t acks_coalesced;	/* ACK-owing requests covered by another response */
	uint64_t unsolicited_acks;
	uint64_t dup_send_write;
	uint64_t dup_read;
	uint64_t dup_atomic;
	uint64_t seq_episodes;		/* sequence NAKs sent (C9-114) */
	uint64_t drops[SROCE_DROP_REASON_COUNT];
};

#define SROCE_RESP_QP_WORDS 192
#define SROCE_RESP_QUEUE_LEN 16

/* Per-QP responder state.  Opaque: only the core looks inside. */
struct sroce_resp_qp {
	uint64_t opaque[SROCE_RESP_QP_WORDS];
};

SROCE_STATIC_ASSERT(sizeof(struct sroce_resp_params) == 20, "params layout");
SROCE_STATIC_ASSERT(__builtin_offsetof(struct sroce_resp_params, srq) == 16, "params layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_rd_res) == 40, "rd_res layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_resp_req) == 32, "req layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_exec) == 16, "exec layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_resp_desc) == 40, "desc layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_resp_ret) == 4, "ret layout");
SROCE_STATIC_ASSERT(__builtin_offsetof(struct sroce_resp_desc, kind) == 32, "desc layout");
SROCE_STATIC_ASSERT(__builtin_offsetof(struct sroce_resp_req, opcode) == 24, "req layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_resp_qp) == 8 * SROCE_RESP_QP_WORDS, "qp layout");

SROCE_EXTERN_C_BEGIN

/**
 * sroce_resp_init() - reset a QP's responder state.
 * @qp: state to initialise
 * @p: parameters; an invalid pmtu is rounded to a supported one
 * @res: caller-owned READ/ATOMIC resource ring, @nres entries
 *	 (max_dest_rd_atomic); @nres may be 0, then READ/ATOMIC are NAKed
 * @nres: number of entries in @res
 */
void sroce_resp_init(struct sroce_resp_qp *qp, const struct sroce_resp_params *p,
		     struct sroce_rd_res *res, uint32_t nres);

/**
 * sroce_resp_classify() - the RX PSN check for @psn against the expected PSN.
 * Returns an enum sroce_psn_verdict.
 */
uint8_t sroce_resp_classify(const struct sroce_resp_qp *qp, uint32_t psn);

/**
 * sroce_resp_rx() - decide what a request is owed.  Should be called for
 * every RC request packet that passed header checks, in arrival order.
 */
struct sroce_resp_ret sroce_resp_rx(struct sroce_resp_qp *qp, const struct sroce_resp_req *req);

/**
 * sroce_resp_executed() - report the outcome of the request that
 * sroce_resp_rx() asked to execute.  Should be called exactly once after
 * each SROCE_ACT_EXECUTE.
 */
struct sroce_resp_ret sroce_resp_executed(struct sroce_resp_qp *qp, const struct sroce_exec *ex);

/**
 * sroce_resp_read_failed() - the READ response packet most recently pulled
 * could not be built (its data could not be read).  Turns it into a NAK
 * for that packet's PSN (C9-100, C9-112), or drops the rest of the
 * response if it answered a duplicate (C9-106).
 */
struct sroce_resp_ret sroce_resp_read_failed(struct sroce_resp_qp *qp, uint8_t status);

/** sroce_resp_batch_begin() - an RX batch starts: ACKs may be held. */
void sroce_resp_batch_begin(struct sroce_resp_qp *qp);

/** sroce_resp_batch_end() - an RX batch ended: every owed ACK is queued (C9-116). */
struct sroce_resp_ret sroce_resp_batch_end(struct sroce_resp_qp *qp);

/**
 * sroce_resp_set_credits() - the number of posted receive WQEs changed.
 * May queue an unsolicited ACK (C9-150.2.1).
 */
struct sroce_resp_ret sroce_resp_set_credits(struct sroce_resp_qp *qp, uint32_t posted);

/** sroce_resp_set_pmtu() - the path MTU changed (modify QP). */
void sroce_resp_set_pmtu(struct sroce_resp_qp *qp, uint32_t pmtu);

/**
 * sroce_resp_pull() - take the next response to transmit, in order.
 * Returns 1 and fills @d, or 0 when nothing is queued.
 */
int sroce_resp_pull(struct sroce_resp_qp *qp, struct sroce_resp_desc *d);

/** sroce_resp_expected_psn() - the responder's expected PSN. */
uint32_t sroce_resp_expected_psn(const struct sroce_resp_qp *qp);

/** sroce_resp_msn() - the current MSN. */
uint32_t sroce_resp_msn(const struct sroce_resp_qp *qp);

/** sroce_resp_stats() - the QP's counters. */
const struct sroce_resp_stats *sroce_resp_get_stats(const struct sroce_resp_qp *qp);

/** sroce_aeth_credit_code() - encode @posted receive WQEs (IBA Table 44). */
uint8_t sroce_aeth_credit_code(uint32_t posted);

/** sroce_aeth_credit_count() - the WQE count a credit code stands for. */
uint32_t sroce_aeth_credit_count(uint8_t code);

/* Names for logs, tests and tracepoints; never NULL. */
const char *sroce_resp_kind_name(uint8_t kind);
const char *sroce_rule_name(uint8_t rule);
const char *sroce_drop_reason_name(uint8_t reason);
const char *sroce_action_name(uint8_t action);

SROCE_EXTERN_C_END

#endif /* SROCE_CORE_ABI_H */
