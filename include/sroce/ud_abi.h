/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The C ABI of the UD receive core: what a datagram arriving at a UD (or
 * GSI) QP earns.  Like the other cores it is a pure decision function:
 * no state, no allocation, no lock, no kernel header.  The UD send side
 * is the requester's (sq_abi.h, SROCE_TRANSPORT_UD).
 *
 *	r = sroce_ud_admit(qp_qkey, &req);
 *	if (r.action == SROCE_UD_TAKE_WQE) {
 *		take a receive WQE (none: SROCE_UD_WQE_NONE);
 *		r = sroce_ud_place(&req, wqe, wqe_len);
 *	}
 *	DELIVER: GRH at offset 0, payload at r.data_off, CQE byte_len r.byte_len;
 *	COMPLETE_ERROR: CQE with r.status; DROP: count r.reason.
 *
 * Rules are named by tag (enum sroce_ud_rule; kunit/spec-rules.txt): the
 * unreliable datagram service of IBA Vol 1 chapters 9 and 10, whose
 * sections are not in the project's spec text.
 */
#ifndef SROCE_UD_ABI_H
#define SROCE_UD_ABI_H

#include "types.h"
#include "ib_wire.h"
#include "sq_abi.h"

/* Every UD receive buffer starts with room for a GRH: 40 bytes. */
#define SROCE_UD_GRH_LEN 40

enum sroce_ud_action {
	SROCE_UD_TAKE_WQE = 0,		/* admitted: take a receive WQE, then sroce_ud_place() */
	SROCE_UD_DELIVER = 1,		/* place GRH and payload, complete the WQE successfully */
	SROCE_UD_COMPLETE_ERROR = 2,	/* complete the WQE with ret.status, place nothing */
	SROCE_UD_DROP = 3,		/* drop the datagram: ret.reason */
	SROCE_UD_ACTION_COUNT = 4,
};

#define SROCE_UD_DROP_LIST(X)									\
	X(SROCE_UDROP_NONE, "none")								\
	X(SROCE_UDROP_OPCODE, "opcode")	/* not a UD SEND Only opcode */				\
	X(SROCE_UDROP_QKEY, "qkey")	/* DETH Q_Key differs from the QP's */			\
	X(SROCE_UDROP_NO_WQE, "no_wqe")	/* no receive WQE posted: a datagram is not retried */

enum sroce_ud_drop {
	SROCE_UD_DROP_LIST(SROCE_ENUM_ENTRY)
	SROCE_UDROP_REASON_COUNT,
};

/* struct sroce_ud_ret.rule */
#define SROCE_UD_RULE_LIST(X)						\
	X(SROCE_UDR_NONE, "none")					\
	/* a UD QP takes UD SEND Only (with immediate) only */		\
	X(SROCE_UDR_OPCODE, "ud-opcode")				\
	/* DETH Q_Key must equal the QP's, else silently dropped */	\
	X(SROCE_UDR_QKEY, "ud-qkey")					\
	/* no receive WQE, the datagram is silently dropped */		\
	X(SROCE_UDR_NO_WQE, "ud-no-wqe")				\
	/* a malformed receive WQE completes LOC_QP_OP_ERR */		\
	X(SROCE_UDR_BAD_WQE, "ud-bad-wqe")				\
	/* GRH + payload beyond the WQE: LOC_LEN_ERR */			\
	X(SROCE_UDR_RECV_LENGTH, "ud-recv-length")			\
	/* the GRH fills the first 40 bytes, the payload follows */	\
	X(SROCE_UDR_GRH, "ud-grh")					\
	/* a WR Q_Key with bit 31 set means the QP's */			\
	X(SROCE_UDR_QKEY_PRIVILEGED, "ud-qkey-privileged")

enum sroce_ud_rule {
	SROCE_UD_RULE_LIST(SROCE_ENUM_ENTRY)
	SROCE_UDR_COUNT,
};

/* What a receive WQE is (sroce_ud_place()). */
enum sroce_ud_wqe {
	SROCE_UD_WQE_NONE = 0,	/* none posted */
	SROCE_UD_WQE_OK = 1,
	SROCE_UD_WQE_BAD = 2,	/* taken, but malformed (too many SGEs, length overflow) */
};

/* A datagram as the receive path parsed it. */
struct sroce_ud_req {
	uint32_t deth_qkey;
	uint32_t payload_len;	/* pad and ICRC excluded */
	uint8_t opcode;
	uint8_t pad[3];
};

struct sroce_ud_ret {
	uint32_t byte_len;	/* DELIVER: the CQE's byte_len, GRH included */
	uint32_t data_off;	/* DELIVER: the payload's offset in the receive buffer */
	uint8_t action;		/* enum sroce_ud_action */
	uint8_t reason;		/* enum sroce_ud_drop */
	uint8_t rule;		/* enum sroce_ud_rule */
	uint8_t status;		/* COMPLETE_ERROR: enum sroce_wc_status */
};

SROCE_STATIC_ASSERT(sizeof(struct sroce_ud_req) == 12, "ud req layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_ud_ret) == 12, "ud ret layout");

SROCE_EXTERN_C_BEGIN

/** sroce_ud_admit() - may @req reach a QP whose Q_Key is @qp_qkey? */
struct sroce_ud_ret sroce_ud_admit(uint32_t qp_qkey, const struct sroce_ud_req *req);

/**
 * sroce_ud_place() - what an admitted @req does with the receive WQE taken
 * for it: @wqe (enum sroce_ud_wqe), of @wqe_len bytes.
 */
struct sroce_ud_ret sroce_ud_place(const struct sroce_ud_req *req, uint8_t wqe, uint32_t wqe_len);

/**
 * sroce_ud_deth_qkey() - the Q_Key a UD send puts in its DETH: the work
 * request's @wr_qkey, unless its high bit is set; then the QP's own
 * @qp_qkey (ud-qkey-privileged).
 */
uint32_t sroce_ud_deth_qkey(uint32_t wr_qkey, uint32_t qp_qkey);

const char *sroce_ud_rule_name(uint8_t rule);
const char *sroce_ud_drop_name(uint8_t reason);

SROCE_EXTERN_C_END

#endif /* SROCE_UD_ABI_H */
