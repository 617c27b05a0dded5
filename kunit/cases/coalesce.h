/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Coalescing and AckReq (C9-116, C9-95, C9-149). 0 credits: syndrome 0x00. */
static const struct sroce_case sroce_cases_coalesce[] = {
	{
		.name = "C9-116 ackreq outside a batch is acked at once",
		.rules = "C9-116 C9-95",
		PARAMS(100, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(101), MSN(1),
		     RESP(R_ACK(100, 1, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-116 ackreqs in one batch share one ack at batch end",
		.rules = "C9-116 C9-95",
		PARAMS(100, 1024),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_ONLY, 101, LEN(8), DMA(0x10, 1, 8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 102, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(103), MSN(3)),
		BATCH_END(ACT(RESPOND), RESP(R_ACK(102, 3, SYN_ACK(0), C9_116)))
		),
		STATS(2, 0),
	},
	{
		.name = "C9-95 coalesced ack carries the newest request psn",
		.rules = "C9-95 C9-149",
		PARAMS(0x10, 1024),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 0x10, LEN(8), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 0x11, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 0x12, LEN(8), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		BATCH_END(ACT(RESPOND), EPSN(0x13), MSN(3),
			  RESP(R_ACK(0x12, 3, SYN_ACK(0), C9_116)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-116 coalescing cap sends the ack mid-batch",
		.rules = "C9-116",
		PARAMS_CAP(100, 1024, 2),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 101, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(101, 2, SYN_ACK(0), C9_95))),
		RX(SROCE_OP_SEND_ONLY, 102, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		BATCH_END(ACT(RESPOND), RESP(R_ACK(102, 3, SYN_ACK(0), C9_116)))
		),
		STATS(1, 0),
	},
	{
		.name = "C9-116 cap of one acks every ackreq like stock rxe",
		.rules = "C9-116",
		PARAMS_CAP(7, 1024, 1),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 7, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(7, 1, SYN_ACK(0), C9_95))),
		RX(SROCE_OP_SEND_ONLY, 8, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(8, 2, SYN_ACK(0), C9_95))),
		BATCH_END(ACT(HOLD))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-116 requests without ackreq may wait past the batch",
		.rules = "C9-116",
		PARAMS(100, 1024),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 101, LEN(8), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(102), MSN(2)),
		BATCH_END(ACT(HOLD)),
		/* The next AckReq'd request's ACK covers them. */
		RX(SROCE_OP_SEND_ONLY, 102, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(102, 3, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-149 multi-packet send acked once with one msn step",
		.rules = "C9-149 C9-95 C9-116",
		PARAMS(200, 256),
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_FIRST, 200, LEN(256), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(201), MSN(0)),
		RX(SROCE_OP_SEND_MIDDLE, 201, LEN(256), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(202), MSN(0)),
		RX(SROCE_OP_SEND_LAST, 202, LEN(10), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(203), MSN(1)),
		BATCH_END(ACT(RESPOND), RESP(R_ACK(202, 1, SYN_ACK(0), C9_116)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-116 ackreq mid-message is honoured",
		.rules = "C9-116 C9-95",
		PARAMS(200, 256),
		STEPS(
		RX(SROCE_OP_WRITE_FIRST, 200, LEN(256), DMA(0x100, 3, 600), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_WRITE_MIDDLE, 201, LEN(256), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), MSN(0), EPSN(202),
		     RESP(R_ACK(201, 0, SYN_ACK(0), C9_95))),
		RX(SROCE_OP_WRITE_LAST, 202, LEN(88), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(202, 1, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-97 read response first covers the owed ack",
		.rules = "C9-97 C9-116",
		PARAMS(100, 1024), .nres = 2,
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		/* AckReq means nothing for a READ: it is always answered. */
		RX(SROCE_OP_READ_REQUEST, 101, DMA(0x5000, 4, 100), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND),
		     RESP(R_READ(ONLY, 101, 2, SYN_ACK(0), 0x5000, 100, C9_97))),
		BATCH_END(ACT(HOLD))
		),
		STATS(1, 0),
	},
	{
		.name = "o9-58 atomic ack carries the request psn and covers the owed ack",
		.rules = "o9-58 C9-116",
		PARAMS(100, 1024), .nres = 2,
		STEPS(
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 100, LEN(8), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_FETCH_ADD, 101, DMA(0x8, 4, 0), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, .orig = 0xdeadbeefcafe, ACT(RESPOND), EPSN(102), MSN(2),
		     RESP(R_ATOMIC(101, 2, SYN_ACK(0), 0xdeadbeefcafe, O9_58))),
		BATCH_END(ACT(HOLD))
		),
		STATS(1, 0),
	},
};
