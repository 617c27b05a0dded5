/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* NAKs and the NAK latch (C9-111..C9-126), RNR included. */
static const struct sroce_case sroce_cases_nak_latch[] = {
	{
		.name = "C9-114 one sequence nak per episode, nothing executed",
		.rules = "C9-114 C9-111 C9-122 C9-113.a1",
		PARAMS(50, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		/* 51 lost: 52 is ahead.  RESPOND, not EXECUTE: no WQE used. */
		RX(SROCE_OP_SEND_ONLY, 52, LEN(4), ACKREQ, ACT(RESPOND), EPSN(51), MSN(1),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 51, 1, C9_111))),
		RX(SROCE_OP_SEND_ONLY, 53, LEN(4), DROPPED(NAK_LATCHED), EPSN(51), MSN(1)),
		RX(SROCE_OP_SEND_ONLY, 54, LEN(4), ACKREQ, DROPPED(NAK_LATCHED)),
		BATCH_BEGIN(),
		BATCH_END(ACT(HOLD))
		),
		STATS(0, 1),
	},
	{
		.name = "C9-122 latch is cleared by the expected psn only",
		.rules = "C9-122 C9-114",
		PARAMS(50, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 52, LEN(4), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 50, 0, C9_111))),
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(51), MSN(1)),
		/* A new episode gets its own single NAK. */
		RX(SROCE_OP_SEND_ONLY, 53, LEN(4), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 51, 1, C9_111))),
		RX(SROCE_OP_SEND_ONLY, 52, LEN(4), DROPPED(NAK_LATCHED))
		),
		STATS(0, 2),
	},
	{
		.name = "C9-114 duplicates are still answered while latched",
		.rules = "C9-114 C9-105",
		PARAMS(50, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 55, LEN(4), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 51, 1, C9_111))),
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), ACT(RESPOND),
		   RESP(R_ACK(50, 1, SYN_ACK(0), C9_105)))
		),
		STATS(0, 1),
	},
	{
		.name = "C9-114 sequence nak covers the owed ack",
		.rules = "C9-114 C9-116",
		PARAMS(50, 1024),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 52, LEN(4), ACKREQ, ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 51, 1, C9_111))),
		BATCH_END(ACT(HOLD))
		),
		STATS(1, 1),
	},
	{
		.name = "C9-113 rnr nak carries the refused psn and latches (F1)",
		.rules = "C9-113 C9-114",
		PARAMS_RNR(60, 1024, 18),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 60, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_RNR, ACT(RESPOND), EPSN(60), MSN(0),
		     RESP(R_RNR(18, 60, 0))),
		/* 61 and 62 were already in flight: no sequence NAK for them. */
		RX(SROCE_OP_SEND_ONLY, 61, LEN(4), DROPPED(NAK_LATCHED)),
		RX(SROCE_OP_SEND_ONLY, 62, LEN(4), ACKREQ, DROPPED(NAK_LATCHED)),
		/* After the RNR wait, 60 again: a receive is posted now. */
		RX(SROCE_OP_SEND_ONLY, 60, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(61), MSN(1),
		     RESP(R_ACK(60, 1, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-113 rnr on a write with immediate",
		.rules = "C9-113",
		PARAMS(60, 1024),
		STEPS(
		RX(SROCE_OP_WRITE_ONLY_IMM, 60, LEN(4), DMA(0x10, 1, 4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_RNR, ACT(RESPOND), RESP(R_RNR(14, 60, 0)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-125 rnr for a request that needs no wqe is an operational error",
		.rules = "C9-125",
		PARAMS(60, 1024),
		STEPS(
		RX(SROCE_OP_WRITE_ONLY, 60, LEN(4), DMA(0x10, 1, 4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_RNR, ACT(RESPOND),
		     RESP(R_NAK(SROCE_NAK_REM_OP_ERR, 60, 0, C9_125), R_QPERR(60, FATAL, C9_125)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-124 remote access nak carries the offending psn, then qp error",
		.rules = "C9-124",
		PARAMS(70, 1024),
		STEPS(
		RX(SROCE_OP_WRITE_ONLY, 70, LEN(4), DMA(0x10, 0xbad, 4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_REM_ACCESS, ACT(RESPOND), EPSN(70), MSN(0),
		     RESP(R_NAK(SROCE_NAK_REM_ACCESS_ERR, 70, 0, C9_124),
			  R_QPERR(70, ACCESS, C9_124))),
		RX(SROCE_OP_SEND_ONLY, 71, LEN(4), DROPPED(QP_ERROR)),
		RX(SROCE_OP_WRITE_ONLY, 70, LEN(4), DMA(0x10, 0xbad, 4), DROPPED(QP_ERROR))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 opcode sequence error naks the expected psn",
		.rules = "C9-121 C9-113.a1",
		PARAMS(80, 1024),
		STEPS(
		RX(SROCE_OP_SEND_MIDDLE, 80, LEN(1024), ACT(RESPOND), EPSN(80), MSN(0),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 80, 0, C9_121), R_QPERR(80, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 write inside a send message is a sequence error",
		.rules = "C9-121",
		PARAMS(80, 256),
		STEPS(
		RX(SROCE_OP_SEND_FIRST, 80, LEN(256), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_ONLY, 81, LEN(4), DMA(0, 1, 4), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 81, 0, C9_121), R_QPERR(81, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 short first packet is a length error",
		.rules = "C9-121",
		PARAMS(80, 1024),
		STEPS(
		RX(SROCE_OP_SEND_FIRST, 80, LEN(1000), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 80, 0, C9_121), R_QPERR(80, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 execution length error naks the expected psn",
		.rules = "C9-121",
		PARAMS(80, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 80, LEN(100), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_INVALID, ACT(RESPOND),
		     RESP(R_NAK(SROCE_NAK_INVALID_REQ, 80, 0, C9_121), R_QPERR(80, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-125 remote operational error naks the expected psn",
		.rules = "C9-125 C9-126",
		PARAMS(90, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 90, LEN(10), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_REM_OP, ACT(RESPOND),
		     RESP(R_NAK(SROCE_NAK_REM_OP_ERR, 90, 0, C9_125), R_QPERR(90, FATAL, C9_125)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 reserved opcode is an invalid request",
		.rules = "C9-121",
		PARAMS(90, 1024),
		STEPS(
		RX(0x15, 90, ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 90, 0, C9_121), R_QPERR(90, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 too many outstanding reads is an invalid request",
		.rules = "C9-121",
		PARAMS(10, 1024), .nres = 1,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 10, DMA(0x100, 1, 64), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		/* Its response has not gone out yet: no resource is free. */
		RX(SROCE_OP_READ_REQUEST, 11, DMA(0x200, 1, 64), ACT(RESPOND),
		   RESP(R_READ(ONLY, 10, 1, SYN_ACK(0), 0x100, 64, C9_97),
			R_NAK(SROCE_NAK_INVALID_REQ, 11, 1, C9_121), R_QPERR(11, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 zero-sized resource ring naks read and atomic",
		.rules = "C9-121",
		PARAMS(10, 1024), .nres = 0,
		STEPS(
		RX(SROCE_OP_CMP_SWAP, 10, DMA(0x100, 1, 0), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 10, 0, C9_121), R_QPERR(10, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-113 rnr nak covers the owed ack, expected psn stays",
		.rules = "C9-113 C9-116",
		PARAMS(60, 1024),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 60, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 61, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_RNR, ACT(RESPOND), EPSN(61), MSN(1),
		     RESP(R_RNR(14, 61, 1))),
		BATCH_END(ACT(HOLD))
		),
		STATS(1, 0),
	},
};
