/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Encodings: AETH syndromes (C9-119..C9-126), 24-bit PSN arithmetic, bad input. */

static const struct sroce_psn_case sroce_psn_cases[] = {
	{ "equal is new", 0x123456, 0x123456, 0, SROCE_PSN_NEW },
	{ "one ahead", 0x000001, 0x000000, 1, SROCE_PSN_AHEAD },
	{ "one behind", 0x000000, 0x000001, -1, SROCE_PSN_DUPLICATE },
	{ "ahead across the wrap", 0x000002, 0xfffffe, 4, SROCE_PSN_AHEAD },
	{ "behind across the wrap", 0xfffffe, 0x000002, -4, SROCE_PSN_DUPLICATE },
	{ "last of the ahead half", 0x7fffff, 0x000000, 0x7fffff, SROCE_PSN_AHEAD },
	{ "exactly half is behind", 0x800000, 0x000000, -0x800000, SROCE_PSN_DUPLICATE },
	{ "far behind", 0x800001, 0x000000, -0x7fffff, SROCE_PSN_DUPLICATE },
	{ "max psn vs zero", 0xffffff, 0x000000, -1, SROCE_PSN_DUPLICATE },
};

static const struct sroce_aeth_case sroce_aeth_cases[] = {
	{ "C9-119 ack with credit code 0", SROCE_AETH_ACK, 0, 0x00 },
	{ "C9-119 ack with credit code 30", SROCE_AETH_ACK, 30, 0x1e },
	{ "C9-119 ack with invalid credits", SROCE_AETH_ACK, 31, 0x1f },
	{ "C9-121 rnr nak timer 0", SROCE_AETH_RNR_NAK, 0, 0x20 },
	{ "C9-121 rnr nak timer 31", SROCE_AETH_RNR_NAK, 31, 0x3f },
	{ "C9-121 nak psn sequence error", SROCE_AETH_NAK, SROCE_NAK_PSN_SEQ_ERR, 0x60 },
	{ "C9-121 nak invalid request", SROCE_AETH_NAK, SROCE_NAK_INVALID_REQ, 0x61 },
	{ "C9-124 nak remote access", SROCE_AETH_NAK, SROCE_NAK_REM_ACCESS_ERR, 0x62 },
	{ "C9-126 nak remote operational", SROCE_AETH_NAK, SROCE_NAK_REM_OP_ERR, 0x63 },
	{ "C9-119 value wider than 5 bits is masked", SROCE_AETH_ACK, 0xff, 0x1f },
};

static const struct sroce_case sroce_cases_encoding[] = {
	{
		/* IBA 9.2: what each request opcode asks the shim to do. */
		.name = "C9-149 execute flags follow the opcode, one msn per message",
		.rules = "C9-149",
		PARAMS(10, 256), .nres = 4,
		STEPS(
		RX(SROCE_OP_SEND_FIRST, 10, LEN(256), XF(X_SEND | X_FIRST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_MIDDLE, 11, LEN(256), XF(X_SEND)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_LAST, 12, LEN(8), XF(X_SEND | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(13), MSN(1)),
		RX(SROCE_OP_SEND_ONLY, 13, LEN(8), XF(X_SEND | X_FIRST | X_LAST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(14), MSN(2)),
		RX(SROCE_OP_SEND_FIRST, 14, LEN(256), XF(X_SEND | X_FIRST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_LAST_IMM, 15, LEN(8), XF(X_SEND | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(16), MSN(3)),
		RX(SROCE_OP_SEND_ONLY_IMM, 16, LEN(8), XF(X_SEND | X_FIRST | X_LAST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(17), MSN(4)),
		RX(SROCE_OP_SEND_FIRST, 17, LEN(256), XF(X_SEND | X_FIRST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_LAST_INV, 18, LEN(8), XF(X_SEND | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(19), MSN(5)),
		RX(SROCE_OP_SEND_ONLY_INV, 19, LEN(8), XF(X_SEND | X_FIRST | X_LAST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(20), MSN(6)),
		RX(SROCE_OP_WRITE_FIRST, 20, LEN(256), DMA(0x1000, 5, 520),
		   XF(X_WRITE | X_FIRST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_MIDDLE, 21, LEN(256), XF(X_WRITE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_LAST, 22, LEN(8), XF(X_WRITE | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(23), MSN(7)),
		/* A WRITE with immediate takes a receive WQE at its end. */
		RX(SROCE_OP_WRITE_FIRST, 23, LEN(256), DMA(0x2000, 5, 264),
		   XF(X_WRITE | X_FIRST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_LAST_IMM, 24, LEN(8), XF(X_WRITE | X_LAST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(25), MSN(8)),
		RX(SROCE_OP_WRITE_ONLY, 25, LEN(8), DMA(0x3000, 5, 8),
		   XF(X_WRITE | X_FIRST | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(26), MSN(9)),
		RX(SROCE_OP_WRITE_ONLY_IMM, 26, LEN(8), DMA(0x3100, 5, 8),
		   XF(X_WRITE | X_FIRST | X_LAST | X_WQE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(27), MSN(10)),
		RX(SROCE_OP_READ_REQUEST, 27, DMA(0x4000, 5, 8), XF(X_READ | X_FIRST | X_LAST)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(28), MSN(11),
		     RESP(R_READ(ONLY, 27, 11, SYN_ACK(0), 0x4000, 8, C9_97))),
		RX(SROCE_OP_CMP_SWAP, 28, DMA(0x8, 5, 0), XF(X_ATOMIC | X_FIRST | X_LAST)),
		EXEC(SROCE_EXEC_OK, .orig = 7, ACT(RESPOND), EPSN(29), MSN(12),
		     RESP(R_ATOMIC(28, 12, SYN_ACK(0), 7, O9_58))),
		RX(SROCE_OP_FETCH_ADD, 29, DMA(0x10, 5, 0), XF(X_ATOMIC | X_FIRST | X_LAST)),
		EXEC(SROCE_EXEC_OK, .orig = 9, ACT(RESPOND), EPSN(30), MSN(13),
		     RESP(R_ATOMIC(29, 13, SYN_ACK(0), 9, O9_58)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-95 psn wraps from 0xffffff to 0 on sends",
		.rules = "C9-95 C9-149",
		PARAMS(0xfffffe, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 0xfffffe, LEN(1), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(0xffffff), MSN(1)),
		RX(SROCE_OP_SEND_ONLY, 0xffffff, LEN(1), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(0), MSN(2)),
		RX(SROCE_OP_SEND_ONLY, 0, LEN(1), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(1), MSN(3),
		     RESP(R_ACK(0, 3, SYN_ACK(0), C9_95))),
		/* 0xffffff is now a duplicate, 5 is ahead. */
		RX(SROCE_OP_SEND_ONLY, 0xffffff, LEN(1), ACT(RESPOND),
		   RESP(R_ACK(0, 3, SYN_ACK(0), C9_105))),
		RX(SROCE_OP_SEND_ONLY, 5, LEN(1), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 1, 3, C9_111)))
		),
		STATS(0, 1),
	},
	{
		.name = "C9-96 read response psns wrap at 2^24",
		.rules = "C9-96 C9-107",
		PARAMS(0xfffffe, 256), .nres = 1,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 0xfffffe, DMA(0x100, 1, 600), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(1), MSN(1),
		     RESP(R_READ(FIRST, 0xfffffe, 0, SYN_ACK(0), 0x100, 256, C9_97),
			  R_READ(MIDDLE, 0xffffff, 0, 0, 0x200, 256, C9_96),
			  R_READ(LAST, 0, 1, SYN_ACK(0), 0x300, 88, C9_98))),
		/* A duplicate from the middle, across the wrap. */
		RX(SROCE_OP_READ_REQUEST, 0xffffff, DMA(0x200, 1, 344), ACT(RESPOND),
		   RESP(R_READ(FIRST, 0xffffff, 1, SYN_ACK(0), 0x200, 256, C9_107),
			R_READ(LAST, 0, 1, SYN_ACK(0), 0x300, 88, C9_107)))
		),
		STATS(0, 0),
	},
	{
		/* No spec rule: malformed input, not a duplicate (C9-102). */
		.name = "bad input: psn wider than 24 bits is dropped",
		.rules = "",
		PARAMS(7, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 0x1000007, LEN(1), VERDICT(SROCE_PSN_NEW), DROPPED(BAD_PSN),
		   EPSN(7), MSN(0))
		),
		STATS(0, 0),
	},
	{
		/* No spec rule: nothing is sent, so no NAK form (C9-113.a1) is seen. */
		.name = "bad input: opcodes not for the responder are dropped",
		.rules = "",
		PARAMS(7, 1024),
		STEPS(
		RX(SROCE_OP_ACKNOWLEDGE, 7, DROPPED(BAD_OPCODE)),
		RX(SROCE_OP_READ_RESP_ONLY, 7, DROPPED(BAD_OPCODE)),
		RX(0x18, 7, DROPPED(BAD_OPCODE)),
		RX(0x64, 7, DROPPED(BAD_OPCODE)),
		RX(0xff, 7, DROPPED(BAD_OPCODE), EPSN(7), MSN(0))
		),
		STATS(0, 0),
	},
	{
		/* No spec rule: no AckReq in it, so nothing of C9-116. */
		.name = "bad input: executed without a pending request is not expected",
		.rules = "",
		PARAMS(7, 1024),
		STEPS(
		EXEC(SROCE_EXEC_OK, DROPPED(NOT_EXPECTED), EPSN(7), MSN(0)),
		RX(SROCE_OP_SEND_ONLY, 7, LEN(1), ACT(EXECUTE)),
		/* A second request before the first's outcome: refused, not lost. */
		RX(SROCE_OP_SEND_ONLY, 8, LEN(1), DROPPED(BUSY)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(8), MSN(1))
		),
		STATS(0, 0),
	},
	{
		/* C9-96: the two response packets carry the request's PSN, then +1. */
		.name = "bad input: invalid path mtu is rounded to a supported one",
		.rules = "C9-96",
		PARAMS(1, 1000), .nres = 1,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 1, DMA(0, 1, 1000), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(3), MSN(1),
		     RESP(R_READ(FIRST, 1, 0, SYN_ACK(0), 0, 512, C9_97),
			  R_READ(LAST, 2, 1, SYN_ACK(0), 512, 488, C9_98)))
		),
		STATS(0, 0),
	},
	{
		/* No spec rule: back-pressure; no duplicate in it, so nothing of C9-104. */
		.name = "bad input: a full response queue refuses requests without losing them",
		.rules = "",
		PARAMS(1, 256), .nres = 16,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 1, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 2, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 3, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 4, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 5, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 6, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 7, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 8, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 9, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 10, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 11, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 12, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 13, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 14, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 15, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		/* 15 responses queued: room for fewer than a NAK and a QP error. */
		RX(SROCE_OP_READ_REQUEST, 16, DMA(0, 1, 1), DROPPED(BUSY), EPSN(16), MSN(15), KEEP),
		PULL_ONE(RESP(R_READ(ONLY, 1, 1, SYN_ACK(0), 0, 1, C9_97))),
		/* The requester's retry gets through once TX drained a slot. */
		RX(SROCE_OP_READ_REQUEST, 16, DMA(0, 1, 1), ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(17), MSN(16),
		     RESP(
			  R_READ(ONLY, 2, 2, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 3, 3, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 4, 4, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 5, 5, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 6, 6, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 7, 7, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 8, 8, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 9, 9, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 10, 10, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 11, 11, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 12, 12, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 13, 13, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 14, 14, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 15, 15, SYN_ACK(0), 0, 1, C9_97),
			  R_READ(ONLY, 16, 16, SYN_ACK(0), 0, 1, C9_97)))
		),
		STATS(0, 0),
	},
};
