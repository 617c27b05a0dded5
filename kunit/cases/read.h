/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* READ responses (C9-96..C9-101, C9-112, C9-148). */
static const struct sroce_case sroce_cases_read[] = {
	{
		.name = "C9-96 C9-97 C9-98 read responses: psn per packet, aeth on first and last",
		.rules = "C9-96 C9-97 C9-98 C9-148",
		PARAMS(0x400, 1024), .nres = 4,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 0x400, DMA(0x7f0000, 0x11, 4000), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(0x404), MSN(1),
		     RESP(R_READ(FIRST, 0x400, 0, SYN_ACK(0), 0x7f0000, 1024, C9_97),
			  R_READ(MIDDLE, 0x401, 0, 0, 0x7f0400, 1024, C9_96),
			  R_READ(MIDDLE, 0x402, 0, 0, 0x7f0800, 1024, C9_96),
			  R_READ(LAST, 0x403, 1, SYN_ACK(0), 0x7f0c00, 928, C9_98)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-148 msn bumped at validation when chosen",
		.rules = "C9-148 C9-149",
		PARAMS(0x400, 1024, .read_msn_at_first = 1), .nres = 4,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 0x400, DMA(0x1000, 0x11, 2048), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(0x402), MSN(1),
		     RESP(R_READ(FIRST, 0x400, 1, SYN_ACK(0), 0x1000, 1024, C9_97),
			  R_READ(LAST, 0x401, 1, SYN_ACK(0), 0x1400, 1024, C9_98)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-96 zero-length read gets one empty only packet",
		.rules = "C9-96 C9-97",
		PARAMS(5, 1024), .nres = 1,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 5, DMA(0, 0, 0), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(6), MSN(1),
		     RESP(R_READ(ONLY, 5, 1, SYN_ACK(0), 0, 0, C9_97)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-101 ack of later sends waits behind the read response",
		.rules = "C9-101 C9-116",
		PARAMS(10, 256), .nres = 2,
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_READ_REQUEST, 10, DMA(0x3000, 3, 512), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		/* Executed while the READ response is still queued. */
		RX(SROCE_OP_SEND_ONLY, 12, LEN(4), ACKREQ, ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), KEEP),
		BATCH_END(ACT(RESPOND),
			  RESP(R_READ(FIRST, 10, 0, SYN_ACK(0), 0x3000, 256, C9_97),
			       R_READ(LAST, 11, 1, SYN_ACK(0), 0x3100, 256, C9_98),
			       R_ACK(12, 2, SYN_ACK(0), C9_116)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-101 ack forced by the coalescing cap still waits behind the read",
		.rules = "C9-101",
		PARAMS_CAP(10, 256, 1), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 10, DMA(0x3000, 3, 300), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_SEND_ONLY, 12, LEN(4), ACKREQ, ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND),
		     RESP(R_READ(FIRST, 10, 0, SYN_ACK(0), 0x3000, 256, C9_97),
			  R_READ(LAST, 11, 1, SYN_ACK(0), 0x3100, 44, C9_98),
			  R_ACK(12, 2, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-100 C9-112 read failing part-way naks the refused packet's psn",
		.rules = "C9-100 C9-112",
		PARAMS(40, 256), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 40, DMA(0x6000, 8, 700), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		PULL_ONE(RESP(R_READ(FIRST, 40, 0, SYN_ACK(0), 0x6000, 256, C9_97))),
		PULL_ONE(RESP(R_READ(MIDDLE, 41, 0, 0, 0x6100, 256, C9_96))),
		/* 41's data could not be read: it goes out as a NAK instead. */
		READ_FAIL(SROCE_EXEC_REM_ACCESS, ACT(RESPOND),
			  RESP(R_NAK(SROCE_NAK_REM_ACCESS_ERR, 41, 1, C9_100),
			       R_QPERR(41, ACCESS, C9_100))),
		RX(SROCE_OP_SEND_ONLY, 43, LEN(4), DROPPED(QP_ERROR))
		),
		STATS(0, 0), SENT(1, 1),
	},
	{
		.name = "C9-100 read failure discards the acks queued behind it",
		.rules = "C9-100 C9-101",
		PARAMS(40, 256), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 40, DMA(0x6000, 8, 300), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		RX(SROCE_OP_SEND_ONLY, 42, LEN(4), ACKREQ, ACT(EXECUTE), KEEP),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), KEEP),
		PULL_ONE(RESP(R_READ(FIRST, 40, 0, SYN_ACK(0), 0x6000, 256, C9_97))),
		PULL_ONE(RESP(R_READ(LAST, 41, 1, SYN_ACK(0), 0x6100, 44, C9_98))),
		READ_FAIL(SROCE_EXEC_REM_OP, ACT(RESPOND),
			  RESP(R_NAK(SROCE_NAK_REM_OP_ERR, 41, 2, C9_100),
			       R_QPERR(41, ACCESS, C9_100)))
		),
		STATS(0, 0), SENT(1, 1),
	},
	{
		.name = "C9-100 read failure with nothing pulled is not expected",
		.rules = "C9-100",
		PARAMS(40, 256), .nres = 2,
		STEPS(
		READ_FAIL(SROCE_EXEC_REM_ACCESS, DROPPED(NOT_EXPECTED))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-121 read request with payload or over 2^31 bytes is invalid",
		.rules = "C9-121",
		PARAMS(40, 256), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 40, DMA(0x6000, 8, 0x80000001u), ACT(RESPOND),
		   RESP(R_NAK(SROCE_NAK_INVALID_REQ, 40, 0, C9_121), R_QPERR(40, FATAL, C9_121)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-96 path mtu change applies to the next read",
		.rules = "C9-96",
		PARAMS(1, 4096), .nres = 2,
		STEPS(
		{ .op = STEP_PMTU, .value = 512, .action = SROCE_ACT_HOLD },
		RX(SROCE_OP_READ_REQUEST, 1, DMA(0x0, 8, 1000), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(3), MSN(1),
		     RESP(R_READ(FIRST, 1, 0, SYN_ACK(0), 0, 512, C9_97),
			  R_READ(LAST, 2, 1, SYN_ACK(0), 512, 488, C9_98)))
		),
		STATS(0, 0),
	},
};
