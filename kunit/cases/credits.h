/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* End-to-end credits (C9-150.2.1, o9-95.2.2) and unsolicited ACKs. */

/*
 * Every code of the credit table (IBA Table 44) at both ends of its
 * range: posted receive WQEs -> the code an ACK must carry.  Run through
 * a real SEND + ACK by sroce_credit_case_run().
 */
static const struct sroce_credit_case sroce_credit_cases[] = {
	{          0u,  0 },
	{          1u,  1 },
	{          2u,  2 },
	{          3u,  3 },
	{          4u,  4 },
	{          5u,  4 },
	{          6u,  5 },
	{          7u,  5 },
	{          8u,  6 },
	{         11u,  6 },
	{         12u,  7 },
	{         15u,  7 },
	{         16u,  8 },
	{         23u,  8 },
	{         24u,  9 },
	{         31u,  9 },
	{         32u, 10 },
	{         47u, 10 },
	{         48u, 11 },
	{         63u, 11 },
	{         64u, 12 },
	{         95u, 12 },
	{         96u, 13 },
	{        127u, 13 },
	{        128u, 14 },
	{        191u, 14 },
	{        192u, 15 },
	{        255u, 15 },
	{        256u, 16 },
	{        383u, 16 },
	{        384u, 17 },
	{        511u, 17 },
	{        512u, 18 },
	{        767u, 18 },
	{        768u, 19 },
	{       1023u, 19 },
	{       1024u, 20 },
	{       1535u, 20 },
	{       1536u, 21 },
	{       2047u, 21 },
	{       2048u, 22 },
	{       3071u, 22 },
	{       3072u, 23 },
	{       4095u, 23 },
	{       4096u, 24 },
	{       6143u, 24 },
	{       6144u, 25 },
	{       8191u, 25 },
	{       8192u, 26 },
	{      12287u, 26 },
	{      12288u, 27 },
	{      16383u, 27 },
	{      16384u, 28 },
	{      24575u, 28 },
	{      24576u, 29 },
	{      32767u, 29 },
	{      32768u, 30 },
	{      65535u, 30 },
	{ 2147483648u, 30 },
	{ 4294967295u, 30 },
};

static const struct sroce_case sroce_cases_credits[] = {
	{
		.name = "C9-150.2.1 each send consumes a credit, acks carry the rest",
		.rules = "C9-150.2.1 C9-119",
		PARAMS(1, 1024), .credits = 5,
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 1, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(1, 1, SYN_ACK(4), C9_95))),
		RX(SROCE_OP_SEND_ONLY, 2, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(2, 2, SYN_ACK(3), C9_95))),
		/* A WRITE uses no receive WQE. */
		RX(SROCE_OP_WRITE_ONLY, 3, LEN(4), DMA(0, 1, 4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(3, 3, SYN_ACK(3), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "o9-95.2.2 srq qp acks carry the invalid credit code",
		.rules = "o9-95.2.2",
		PARAMS(1, 1024, .srq = 1), .nres = 1, .credits = 100,
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 1, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(1, 1, SYN_ACK(0x1f), C9_95))),
		RX(SROCE_OP_READ_REQUEST, 2, DMA(0, 1, 4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND),
		     RESP(R_READ(ONLY, 2, 2, SYN_ACK(0x1f), 0, 4, C9_97))),
		/* No unsolicited ACKs on an SRQ. */
		CREDITS(0, ACT(HOLD)),
		CREDITS(50, ACT(HOLD))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-150.2.1 unsolicited ack resends the last ack with new credits",
		.rules = "C9-150.2.1 o9-95.2.2",
		PARAMS(1, 1024), .credits = 1,
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 1, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(1, 1, SYN_ACK(0), C9_95))),
		RX(SROCE_OP_SEND_ONLY, 2, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), MSN(2), EPSN(3)),
		/* The requester was told 0: re-send ACK 1 / MSN 1 with 8. */
		CREDITS(8, ACT(RESPOND), RESP(R_ACK(1, 1, SYN_ACK(6), C9_150_2_1))),
		/* It already knows it has credits: no further unsolicited ACK. */
		CREDITS(9, ACT(HOLD))
		),
		STATS(0, 0),
	},
	{
		.name = "o9-95.2.2 unsolicited ack is never made from a nak",
		.rules = "o9-95.2.2",
		PARAMS(1, 1024), .credits = 1,
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 1, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(1, 1, SYN_ACK(0), C9_95))),
		RX(SROCE_OP_SEND_ONLY, 2, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_RNR, ACT(RESPOND), RESP(R_RNR(14, 2, 1))),
		CREDITS(4, ACT(HOLD)),
		/* The retry clears the latch and runs. */
		RX(SROCE_OP_SEND_ONLY, 2, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD))
		),
		STATS(0, 0),
	},
	{
		.name = "o9-95.2.2 no unsolicited ack before the first positive ack",
		.rules = "o9-95.2.2",
		PARAMS(1, 1024),
		STEPS(
		CREDITS(4, ACT(HOLD))
		),
		STATS(0, 0),
	},
};
