/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * InfiniBand transport wire knowledge shared by the driver and the core:
 * RC opcodes, AETH syndrome layout, NAK codes, and the fixed header
 * layouts (IBA 9.2-9.4, Annex A17 for RoCEv2).  All multi-byte fields on
 * the wire are big endian; the structs below describe layout only.
 */
#ifndef SROCE_IB_WIRE_H
#define SROCE_IB_WIRE_H

#include "types.h"

/* RoCEv2 UDP destination port (Annex A17). */
#define SROCE_ROCE_V2_PORT 4791

/* BTH opcodes, RC transport (high three bits 000).  IBA Table 35. */
enum sroce_rc_opcode {
	SROCE_OP_SEND_FIRST = 0x00,
	SROCE_OP_SEND_MIDDLE = 0x01,
	SROCE_OP_SEND_LAST = 0x02,
	SROCE_OP_SEND_LAST_IMM = 0x03,
	SROCE_OP_SEND_ONLY = 0x04,
	SROCE_OP_SEND_ONLY_IMM = 0x05,
	SROCE_OP_WRITE_FIRST = 0x06,
	SROCE_OP_WRITE_MIDDLE = 0x07,
	SROCE_OP_WRITE_LAST = 0x08,
	SROCE_OP_WRITE_LAST_IMM = 0x09,
	SROCE_OP_WRITE_ONLY = 0x0a,
	SROCE_OP_WRITE_ONLY_IMM = 0x0b,
	SROCE_OP_READ_REQUEST = 0x0c,
	SROCE_OP_READ_RESP_FIRST = 0x0d,
	SROCE_OP_READ_RESP_MIDDLE = 0x0e,
	SROCE_OP_READ_RESP_LAST = 0x0f,
	SROCE_OP_READ_RESP_ONLY = 0x10,
	SROCE_OP_ACKNOWLEDGE = 0x11,
	SROCE_OP_ATOMIC_ACKNOWLEDGE = 0x12,
	SROCE_OP_CMP_SWAP = 0x13,
	SROCE_OP_FETCH_ADD = 0x14,
	SROCE_OP_RESERVED_15 = 0x15,	/* reserved */
	SROCE_OP_SEND_LAST_INV = 0x16,
	SROCE_OP_SEND_ONLY_INV = 0x17,
	SROCE_OP_RC_COUNT = 0x18, /* first value past the RC table */
};

/*
 * BTH opcodes, UD transport (high three bits 011).  IBA Table 35: a UD
 * message is one SEND Only packet, with a DETH after the BTH.
 */
enum sroce_ud_opcode {
	SROCE_OP_UD_SEND_ONLY = 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM = 0x65,
};

/*
 * BTH opcodes, UC transport (high three bits 001).  IBA Table 35: RC's
 * SEND and RDMA WRITE opcodes with the UC transport bits; no READ,
 * ATOMIC, acknowledgement or invalidate.
 */
enum sroce_uc_opcode {
	SROCE_OP_UC_SEND_FIRST = 0x20,
	SROCE_OP_UC_SEND_MIDDLE = 0x21,
	SROCE_OP_UC_SEND_LAST = 0x22,
	SROCE_OP_UC_SEND_LAST_IMM = 0x23,
	SROCE_OP_UC_SEND_ONLY = 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM = 0x25,
	SROCE_OP_UC_WRITE_FIRST = 0x26,
	SROCE_OP_UC_WRITE_MIDDLE = 0x27,
	SROCE_OP_UC_WRITE_LAST = 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM = 0x29,
	SROCE_OP_UC_WRITE_ONLY = 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM = 0x2b,
	SROCE_OP_UC_END = 0x2c, /* first value past the UC opcodes */
};

/* The transport an opcode belongs to: its high three bits (IBA 9.2). */
#define SROCE_OP_TRANSPORT_SHIFT 5
#define SROCE_OP_TRANSPORT_RC 0x0
#define SROCE_OP_TRANSPORT_UC 0x1
#define SROCE_OP_TRANSPORT_RD 0x2
#define SROCE_OP_TRANSPORT_UD 0x3

/* What an RC opcode is: a request of one of four kinds, a response, or reserved. */
enum sroce_op_kind {
	SROCE_OPK_SEND,
	SROCE_OPK_WRITE,
	SROCE_OPK_READ,
	SROCE_OPK_ATOMIC,
	SROCE_OPK_RESPONSE,
	SROCE_OPK_RESERVED,
};

/* The extension headers an opcode carries after the BTH (IBA 9.3). */
#define SROCE_HDR_RETH 0x01
#define SROCE_HDR_AETH 0x02
#define SROCE_HDR_ATMETH 0x04
#define SROCE_HDR_ATMACK 0x08
#define SROCE_HDR_IMMDT 0x10
#define SROCE_HDR_IETH 0x20
#define SROCE_HDR_DETH 0x40

/*
 * Every RC opcode once, in opcode order (IBA Table 35; headers 9.3-9.4):
 *
 *   X(OP, KIND, FIRST, LAST, WQE, HDRS)
 *
 * OP names SROCE_OP_OP; KIND SROCE_OPK_KIND; FIRST/LAST: starts/ends a
 * message (Only is both); WQE: consumes a receive WQE at the responder
 * (SEND First/Only, WRITE with immediate Last/Only); HDRS: SROCE_HDR_*.
 * The receive path takes header lengths and offsets from it, the core
 * its meaning: one table for both.
 */
#define SROCE_RC_OPCODES(X)							\
	X(SEND_FIRST,		SEND,		1, 0, 1, 0)			\
	X(SEND_MIDDLE,		SEND,		0, 0, 0, 0)			\
	X(SEND_LAST,		SEND,		0, 1, 0, 0)			\
	X(SEND_LAST_IMM,	SEND,		0, 1, 0, SROCE_HDR_IMMDT)	\
	X(SEND_ONLY,		SEND,		1, 1, 1, 0)			\
	X(SEND_ONLY_IMM,	SEND,		1, 1, 1, SROCE_HDR_IMMDT)	\
	X(WRITE_FIRST,		WRITE,		1, 0, 0, SROCE_HDR_RETH)	\
	X(WRITE_MIDDLE,		WRITE,		0, 0, 0, 0)			\
	X(WRITE_LAST,		WRITE,		0, 1, 0, 0)			\
	X(WRITE_LAST_IMM,	WRITE,		0, 1, 1, SROCE_HDR_IMMDT)	\
	X(WRITE_ONLY,		WRITE,		1, 1, 0, SROCE_HDR_RETH)	\
	X(WRITE_ONLY_IMM,	WRITE,		1, 1, 1, SROCE_HDR_RETH | SROCE_HDR_IMMDT) \
	X(READ_REQUEST,		READ,		1, 1, 0, SROCE_HDR_RETH)	\
	X(READ_RESP_FIRST,	RESPONSE,	0, 0, 0, SROCE_HDR_AETH)	\
	X(READ_RESP_MIDDLE,	RESPONSE,	0, 0, 0, 0)			\
	X(READ_RESP_LAST,	RESPONSE,	0, 0, 0, SROCE_HDR_AETH)	\
	X(READ_RESP_ONLY,	RESPONSE,	0, 0, 0, SROCE_HDR_AETH)	\
	X(ACKNOWLEDGE,		RESPONSE,	0, 0, 0, SROCE_HDR_AETH)	\
	X(ATOMIC_ACKNOWLEDGE,	RESPONSE,	0, 0, 0, SROCE_HDR_AETH | SROCE_HDR_ATMACK) \
	X(CMP_SWAP,		ATOMIC,		1, 1, 0, SROCE_HDR_ATMETH)	\
	X(FETCH_ADD,		ATOMIC,		1, 1, 0, SROCE_HDR_ATMETH)	\
	X(RESERVED_15,		RESERVED,	1, 1, 0, 0)			\
	X(SEND_LAST_INV,	SEND,		0, 1, 0, SROCE_HDR_IETH)	\
	X(SEND_ONLY_INV,	SEND,		1, 1, 1, SROCE_HDR_IETH)

/*
 * The UC and UD opcodes, in the same form (IBA Table 35; DETH 9.3.2).
 * The responder's core reads only the RC table; the UC and UD receive
 * sides decide in their own cores (uc_abi.h, ud_abi.h).
 */
#define SROCE_UC_OPCODES(X)							\
	X(UC_SEND_FIRST,	SEND,		1, 0, 1, 0)			\
	X(UC_SEND_MIDDLE,	SEND,		0, 0, 0, 0)			\
	X(UC_SEND_LAST,		SEND,		0, 1, 0, 0)			\
	X(UC_SEND_LAST_IMM,	SEND,		0, 1, 0, SROCE_HDR_IMMDT)	\
	X(UC_SEND_ONLY,		SEND,		1, 1, 1, 0)			\
	X(UC_SEND_ONLY_IMM,	SEND,		1, 1, 1, SROCE_HDR_IMMDT)	\
	X(UC_WRITE_FIRST,	WRITE,		1, 0, 0, SROCE_HDR_RETH)	\
	X(UC_WRITE_MIDDLE,	WRITE,		0, 0, 0, 0)			\
	X(UC_WRITE_LAST,	WRITE,		0, 1, 0, 0)			\
	X(UC_WRITE_LAST_IMM,	WRITE,		0, 1, 1, SROCE_HDR_IMMDT)	\
	X(UC_WRITE_ONLY,	WRITE,		1, 1, 0, SROCE_HDR_RETH)	\
	X(UC_WRITE_ONLY_IMM,	WRITE,		1, 1, 1, SROCE_HDR_RETH | SROCE_HDR_IMMDT)

#define SROCE_UD_OPCODES(X)							\
	X(UD_SEND_ONLY,		SEND,		1, 1, 1, SROCE_HDR_DETH)	\
	X(UD_SEND_ONLY_IMM,	SEND,		1, 1, 1, SROCE_HDR_DETH | SROCE_HDR_IMMDT)

/* AETH syndrome (IBA 9.7.5.2, Tables 43/44): bit 7 reserved, 6:5 kind. */
enum sroce_aeth_kind {
	SROCE_AETH_ACK = 0x0,
	SROCE_AETH_RNR_NAK = 0x1,
	SROCE_AETH_RESERVED = 0x2,
	SROCE_AETH_NAK = 0x3,
};

#define SROCE_AETH_KIND_SHIFT 5
#define SROCE_AETH_VALUE_MASK 0x1f
/* Bits 4:0 of an ACK: "no valid credit count" (o9-95.2.2). */
#define SROCE_AETH_CREDITS_INVALID 0x1f

/* Bits 4:0 of a NAK (C9-119..C9-126). */
enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR = 0,
	SROCE_NAK_INVALID_REQ = 1,
	SROCE_NAK_REM_ACCESS_ERR = 2,
	SROCE_NAK_REM_OP_ERR = 3,
	SROCE_NAK_CODE_COUNT = 4,
};

static inline uint8_t sroce_aeth_syndrome(enum sroce_aeth_kind kind, uint8_t value)
{
	return (uint8_t)(((unsigned int)kind << SROCE_AETH_KIND_SHIFT) |
			 (value & SROCE_AETH_VALUE_MASK));
}

static inline enum sroce_aeth_kind sroce_aeth_kind_of(uint8_t syndrome)
{
	return (enum sroce_aeth_kind)((syndrome >> SROCE_AETH_KIND_SHIFT) & 0x3);
}

/* Header layouts.  Fields are big endian on the wire. */
struct sroce_bth {
	uint8_t opcode;
	uint8_t flags;		/* SE:1 M:1 PadCnt:2 TVer:4 */
	uint16_t pkey;
	uint32_t qpn;		/* FECN:1 BECN:1 resv:6 DestQP:24 */
	uint32_t apsn;		/* AckReq:1 resv:7 PSN:24 */
};

struct sroce_aeth {
	uint32_t smsn;		/* Syndrome:8 MSN:24 */
};

struct sroce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
};

struct sroce_atmeth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
} __attribute__((packed));

struct sroce_atmack {
	uint64_t orig;
};

/* Datagram extended transport header (IBA 9.3.2). */
struct sroce_deth {
	uint32_t qkey;
	uint32_t src_qpn;	/* reserved:8 SrcQP:24 */
};

/* The Q_Key a UD send names with its high bit set means the QP's own. */
#define SROCE_QKEY_PRIVILEGED 0x80000000u

#define SROCE_BTH_ACKREQ 0x80000000u
#define SROCE_BTH_SE 0x80
#define SROCE_BTH_MIG 0x40
#define SROCE_BTH_PAD_SHIFT 4
#define SROCE_BTH_PAD_MASK 0x3
#define SROCE_BTH_TVER_MASK 0x0f
#define SROCE_BTH_QPN_MASK 0x00ffffffu	/* DestQP: the low 24 bits of BTH word 1 */
#define SROCE_AETH_MSN_MASK 0x00ffffffu	/* MSN: the low 24 bits of the AETH */
#define SROCE_AETH_SYNDROME_SHIFT 24

SROCE_STATIC_ASSERT(sizeof(struct sroce_bth) == 12, "BTH is 12 bytes");
SROCE_STATIC_ASSERT(sizeof(struct sroce_aeth) == 4, "AETH is 4 bytes");
SROCE_STATIC_ASSERT(sizeof(struct sroce_reth) == 16, "RETH is 16 bytes");
SROCE_STATIC_ASSERT(sizeof(struct sroce_atmeth) == 28, "AtomicETH is 28 bytes");
SROCE_STATIC_ASSERT(sizeof(struct sroce_atmack) == 8, "AtomicAckETH is 8 bytes");
SROCE_STATIC_ASSERT(sizeof(struct sroce_deth) == 8, "DETH is 8 bytes");

#endif /* SROCE_IB_WIRE_H */
