/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The C ABI of the UC receive core: what a packet arriving at a UC QP
 * earns.  UC is RC's packets with no acknowledgement, no retry and no
 * duplicate detection: a packet either fits the message in progress, or
 * that message is lost and dropped to its end.  The core is a decision
 * function over caller-owned state (struct sroce_uc_state), like the others:
 * no allocation, no lock, no kernel header.  The UC send side is the
 * requester's (sq_abi.h, SROCE_TRANSPORT_UC).
 *
 *	r = sroce_uc_rx(&st, &req);
 *	if (r.abort) the WQE in hand, if any: ABORT_REWIND puts it back
 *		untouched (an RQ's), ABORT_FAIL completes it with r.status
 *		(an SRQ's, which cannot go back);
 *	if (r.action == SROCE_UC_EXECUTE) {
 *		carry out r.exec (SROCE_XF_*, as the RC responder's);
 *		r = sroce_uc_executed(&st, exec_status);
 *		apply r.abort as above; DROP: count r.reason;
 *	} else count r.reason;
 *
 * Rules are named by tag (enum sroce_uc_rule; kunit/spec-rules.txt): the
 * unreliable connected service of IBA Vol 1 chapter 9, whose sections are
 * not in the project's spec text.
 */
#ifndef SROCE_UC_ABI_H
#define SROCE_UC_ABI_H

#include "types.h"
#include "ib_wire.h"
#include "core_abi.h"
#include "sq_abi.h"

enum sroce_uc_action {
	SROCE_UC_EXECUTE = 0,	/* carry out ret.exec, then sroce_uc_executed() */
	SROCE_UC_DROP = 1,	/* drop the packet: ret.reason */
	SROCE_UC_DONE = 2,	/* sroce_uc_executed(): carried out, the PSN moved on */
	SROCE_UC_ACTION_COUNT = 3,
};

/* What becomes of the receive WQE of a SEND message that is dropped part-way. */
enum sroce_uc_abort {
	SROCE_UC_ABORT_NONE = 0,
	SROCE_UC_ABORT_REWIND = 1,	/* RQ: back at the queue's head, as if never taken */
	SROCE_UC_ABORT_FAIL = 2,	/* SRQ: completes with ret.status */
};

#define SROCE_UC_DROP_LIST(X)							\
	X(SROCE_UCDROP_NONE, "none")						\
	/* not a UC SEND or WRITE opcode */					\
	X(SROCE_UCDROP_OPCODE, "opcode")					\
	/* not the expected PSN: a packet of the message was lost */		\
	X(SROCE_UCDROP_PSN, "psn")						\
	/* Middle or Last with no message in progress */			\
	X(SROCE_UCDROP_SEQUENCE, "sequence")					\
	/* the rest of a message already dropped */				\
	X(SROCE_UCDROP_REST, "rest")						\
	/* payload or RETH length wrong for its place in the message */		\
	X(SROCE_UCDROP_LENGTH, "length")					\
	/* no receive WQE posted: no RNR on UC */				\
	X(SROCE_UCDROP_NO_WQE, "no_wqe")					\
	/* the message could not be carried out: access, rkey, buffer */	\
	X(SROCE_UCDROP_EXEC, "exec")

enum sroce_uc_drop {
	SROCE_UC_DROP_LIST(SROCE_ENUM_ENTRY)
	SROCE_UCDROP_REASON_COUNT,
};

/* struct sroce_uc_ret.rule */
#define SROCE_UC_RULE_LIST(X)						\
	X(SROCE_UCR_NONE, "none")					\
	/* a UC QP takes UC SEND and WRITE opcodes only */		\
	X(SROCE_UCR_OPCODE, "uc-opcode")				\
	/* a PSN gap drops the packet and the rest of its message */	\
	X(SROCE_UCR_PSN, "uc-psn")					\
	/* First/Only starts a message at its own PSN */		\
	X(SROCE_UCR_RESYNC, "uc-resync")				\
	/* Middle/Last outside a message; First inside one */		\
	X(SROCE_UCR_SEQUENCE, "uc-sequence")				\
	/* First/Middle one MTU, Last/Only at most one */		\
	X(SROCE_UCR_LENGTH, "uc-length")				\
	/* a message that cannot be carried out is dropped */		\
	X(SROCE_UCR_EXEC, "uc-exec")					\
	/* a dropped SEND's WQE: RQ rewound, SRQ failed */		\
	X(SROCE_UCR_ABORT, "uc-abort")					\
	/* the packet is carried out, the PSN moves on */		\
	X(SROCE_UCR_PLACE, "uc-place")

enum sroce_uc_rule {
	SROCE_UC_RULE_LIST(SROCE_ENUM_ENTRY)
	SROCE_UCR_COUNT,
};

/* The receive state of one UC QP, owned by the caller; set by sroce_uc_init(). */
struct sroce_uc_state {
	uint32_t epsn;		/* the PSN expected next */
	uint32_t pmtu;		/* path MTU in bytes */
	uint8_t in_msg;		/* 0 none, 1 SEND, 2 WRITE in progress */
	uint8_t dropping;	/* the message in progress is being dropped */
	uint8_t srq;		/* receive WQEs come from an SRQ */
	uint8_t pending;	/* sroce_uc_executed() is owed */
	uint32_t pending_psn;	/* the PSN of the packet being executed */
	uint8_t pending_op;	/* and its opcode */
	uint8_t pad[3];
};

/* A UC packet as the receive path parsed it. */
struct sroce_uc_req {
	uint32_t psn;
	uint32_t payload_len;	/* pad and ICRC excluded */
	uint32_t dma_len;	/* RETH length (WRITE First/Only) */
	uint8_t opcode;
	uint8_t pad[3];
};

struct sroce_uc_ret {
	uint8_t action;		/* enum sroce_uc_action */
	uint8_t exec;		/* EXECUTE: SROCE_XF_* */
	uint8_t abort;		/* enum sroce_uc_abort, for the WQE in hand */
	uint8_t reason;		/* DROP: enum sroce_uc_drop */
	uint8_t rule;		/* enum sroce_uc_rule */
	uint8_t status;		/* ABORT_FAIL: enum sroce_wc_status */
	uint8_t pad[2];
};

SROCE_STATIC_ASSERT(sizeof(struct sroce_uc_state) == 20, "uc rx layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_uc_req) == 16, "uc req layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_uc_ret) == 8, "uc ret layout");

SROCE_EXTERN_C_BEGIN

/** sroce_uc_init() - the QP enters RTR: expect @epsn, packets of @pmtu bytes. */
void sroce_uc_init(struct sroce_uc_state *st, uint32_t epsn, uint32_t pmtu, int srq);

/** sroce_uc_rx() - what @req earns at a UC QP in state @st. */
struct sroce_uc_ret sroce_uc_rx(struct sroce_uc_state *st, const struct sroce_uc_req *req);

/**
 * sroce_uc_executed() - the caller carried out the EXECUTE of the last
 * sroce_uc_rx() with @status (enum sroce_exec_status).
 */
struct sroce_uc_ret sroce_uc_executed(struct sroce_uc_state *st, uint8_t status);

const char *sroce_uc_rule_name(uint8_t rule);
const char *sroce_uc_drop_name(uint8_t reason);

SROCE_EXTERN_C_END

#endif /* SROCE_UC_ABI_H */
