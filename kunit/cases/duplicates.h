/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Duplicates: SEND, WRITE, READ, ATOMIC (C9-102..C9-110, o9-66, o9-67). */

/* Three SENDs 10..12 completed, the last with AckReq, acked: MSN 3. */
#define THREE_SENDS_DONE \
	RX(SROCE_OP_SEND_ONLY, 10, LEN(4), ACT(EXECUTE)), \
	EXEC(SROCE_EXEC_OK, ACT(HOLD)), \
	RX(SROCE_OP_SEND_ONLY, 11, LEN(4), ACT(EXECUTE)), \
	EXEC(SROCE_EXEC_OK, ACT(HOLD)), \
	RX(SROCE_OP_SEND_ONLY, 12, LEN(4), ACKREQ, ACT(EXECUTE)), \
	EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(12, 3, SYN_ACK(0), C9_95)))

/* A 3-packet READ at PSN 20 (700 bytes at 256 MTU), fully answered: MSN 1. */
#define READ_700_DONE \
	RX(SROCE_OP_READ_REQUEST, 20, DMA(0x9000, 0x55, 700), ACT(EXECUTE)), \
	EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(23), MSN(1), \
	     RESP(R_READ(FIRST, 20, 0, SYN_ACK(0), 0x9000, 256, C9_97), \
		  R_READ(MIDDLE, 21, 0, 0, 0x9100, 256, C9_96), \
		  R_READ(LAST, 22, 1, SYN_ACK(0), 0x9200, 188, C9_98)))

static const struct sroce_case sroce_cases_duplicates[] = {
	{
		.name = "C9-105 duplicate send is acked with the last completed psn",
		.rules = "C9-105 C9-103 C9-102",
		PARAMS(10, 1024),
		STEPS(
		THREE_SENDS_DONE,
		RX(SROCE_OP_SEND_ONLY, 10, LEN(4), ACT(RESPOND), EPSN(13), MSN(3),
		   RESP(R_ACK(12, 3, SYN_ACK(0), C9_105)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-105 go-back-N burst of duplicates is acked once",
		.rules = "C9-105 C9-103",
		PARAMS(10, 1024),
		STEPS(
		THREE_SENDS_DONE,
		BATCH_BEGIN(),
		RX(SROCE_OP_SEND_ONLY, 10, LEN(4), ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 11, LEN(4), ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 12, LEN(4), ACKREQ, ACT(HOLD), EPSN(13), MSN(3)),
		BATCH_END(ACT(RESPOND), RESP(R_ACK(12, 3, SYN_ACK(0), C9_116)))
		),
		STATS(2, 0),
	},
	{
		.name = "C9-105 duplicate write burst then new send: one ack, newest psn",
		.rules = "C9-105 C9-95",
		PARAMS(10, 1024),
		STEPS(
		RX(SROCE_OP_WRITE_ONLY, 10, LEN(4), DMA(0x40, 2, 4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(10, 1, SYN_ACK(0), C9_95))),
		BATCH_BEGIN(),
		RX(SROCE_OP_WRITE_ONLY, 10, LEN(4), DMA(0x40, 2, 4), ACKREQ, ACT(HOLD)),
		RX(SROCE_OP_SEND_ONLY, 11, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		BATCH_END(ACT(RESPOND), RESP(R_ACK(11, 2, SYN_ACK(0), C9_116)))
		),
		STATS(1, 0),
	},
	{
		.name = "C9-105 duplicate before any completion acks the psn before the first",
		.rules = "C9-105",
		PARAMS(0, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 0xfffffe, LEN(4), ACT(RESPOND), EPSN(0), MSN(0),
		   RESP(R_ACK(0xffffff, 0, SYN_ACK(0), C9_105)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-107 duplicate read is re-executed from its own psn",
		.rules = "C9-107 C9-103",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		READ_700_DONE,
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x9100, 0x55, 444), ACT(RESPOND), EPSN(23),
		   MSN(1),
		   RESP(R_READ(FIRST, 21, 1, SYN_ACK(0), 0x9100, 256, C9_107),
			R_READ(LAST, 22, 1, SYN_ACK(0), 0x9200, 188, C9_107)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-107 duplicate of the whole read replays every packet",
		.rules = "C9-107",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		READ_700_DONE,
		RX(SROCE_OP_READ_REQUEST, 20, DMA(0x9000, 0x55, 700), ACT(RESPOND), EPSN(23),
		   MSN(1),
		   RESP(R_READ(FIRST, 20, 1, SYN_ACK(0), 0x9000, 256, C9_107),
			R_READ(MIDDLE, 21, 0, 0, 0x9100, 256, C9_107),
			R_READ(LAST, 22, 1, SYN_ACK(0), 0x9200, 188, C9_107)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-106 duplicate read with another rkey is dropped, not naked",
		.rules = "C9-106",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		READ_700_DONE,
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x9100, 0x56, 444), DROPPED(DUP_ERROR),
		   EPSN(23), MSN(1)),
		/* A range past the original is an error too. */
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x9100, 0x55, 445), DROPPED(DUP_ERROR)),
		/* So is an address that does not match the PSN. */
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x9104, 0x55, 100), DROPPED(DUP_ERROR))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-106 duplicate read with no resource is dropped",
		.rules = "C9-106",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 5, DMA(0x9000, 0x55, 10), DROPPED(DUP_NO_RESOURCE),
		   EPSN(20), MSN(0))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-115 error while answering a duplicate read drops it",
		.rules = "C9-115 C9-106",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		READ_700_DONE,
		RX(SROCE_OP_READ_REQUEST, 20, DMA(0x9000, 0x55, 700), ACT(RESPOND), KEEP),
		PULL_ONE(RESP(R_READ(FIRST, 20, 1, SYN_ACK(0), 0x9000, 256, C9_107))),
		/* The data cannot be read this time: no NAK, no QP error. */
		READ_FAIL(SROCE_EXEC_REM_ACCESS, DROPPED(DUP_ERROR), EPSN(23), MSN(1)),
		/* The QP still works. */
		RX(SROCE_OP_SEND_ONLY, 23, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(23, 2, SYN_ACK(0), C9_95)))
		),
		STATS(0, 0), SENT(3, 0),
	},
	{
		.name = "o9-66 duplicate atomic returns the saved value without executing",
		.rules = "o9-66 C9-103",
		PARAMS(30, 1024), .nres = 2,
		STEPS(
		RX(SROCE_OP_CMP_SWAP, 30, DMA(0x100, 5, 0), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, .orig = 0x1234, ACT(RESPOND), EPSN(31), MSN(1),
		     RESP(R_ATOMIC(30, 1, SYN_ACK(0), 0x1234, O9_58))),
		RX(SROCE_OP_SEND_ONLY, 31, LEN(4), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD)),
		RX(SROCE_OP_CMP_SWAP, 30, DMA(0x100, 5, 0), ACT(RESPOND), EPSN(32), MSN(2),
		   RESP(R_ATOMIC(30, 2, SYN_ACK(0), 0x1234, O9_66)))
		),
		STATS(0, 0),
	},
	{
		.name = "o9-67 duplicate atomic with no saved result is dropped",
		.rules = "o9-67",
		PARAMS(30, 1024), .nres = 1,
		STEPS(
		RX(SROCE_OP_FETCH_ADD, 30, DMA(0x100, 5, 0), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, .orig = 1, ACT(RESPOND),
		     RESP(R_ATOMIC(30, 1, SYN_ACK(0), 1, O9_58))),
		RX(SROCE_OP_FETCH_ADD, 31, DMA(0x100, 5, 0), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, .orig = 2, ACT(RESPOND),
		     RESP(R_ATOMIC(31, 2, SYN_ACK(0), 2, O9_58))),
		/* 30's slot was reused by 31 (one resource). */
		RX(SROCE_OP_FETCH_ADD, 30, DMA(0x100, 5, 0), DROPPED(DUP_NO_RESOURCE),
		   EPSN(32), MSN(2))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-104 C9-110 duplicates answered oldest first, ack after read",
		.rules = "C9-104 C9-110 C9-101",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		READ_700_DONE,
		RX(SROCE_OP_SEND_ONLY, 23, LEN(4), ACKREQ, ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), RESP(R_ACK(23, 2, SYN_ACK(0), C9_95))),
		BATCH_BEGIN(),
		RX(SROCE_OP_READ_REQUEST, 22, DMA(0x9200, 0x55, 188), ACT(RESPOND), KEEP),
		RX(SROCE_OP_SEND_ONLY, 23, LEN(4), ACKREQ, ACT(HOLD), KEEP),
		BATCH_END(ACT(RESPOND),
			  RESP(R_READ(ONLY, 22, 2, SYN_ACK(0), 0x9200, 188, C9_107),
			       R_ACK(23, 2, SYN_ACK(0), C9_116)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-104 two duplicate reads answered in arrival order",
		.rules = "C9-104 C9-110",
		PARAMS(20, 256), .nres = 2,
		STEPS(
		RX(SROCE_OP_READ_REQUEST, 20, DMA(0x1000, 1, 10), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND),
		     RESP(R_READ(ONLY, 20, 1, SYN_ACK(0), 0x1000, 10, C9_97))),
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x2000, 2, 20), ACT(EXECUTE)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND),
		     RESP(R_READ(ONLY, 21, 2, SYN_ACK(0), 0x2000, 20, C9_97))),
		RX(SROCE_OP_READ_REQUEST, 20, DMA(0x1000, 1, 10), ACT(RESPOND), KEEP),
		RX(SROCE_OP_READ_REQUEST, 21, DMA(0x2000, 2, 20), ACT(RESPOND),
		   RESP(R_READ(ONLY, 20, 2, SYN_ACK(0), 0x1000, 10, C9_107),
			R_READ(ONLY, 21, 2, SYN_ACK(0), 0x2000, 20, C9_107)))
		),
		STATS(0, 0),
	},
	{
		.name = "C9-102 verdict that disagrees with the expected psn is dropped",
		.rules = "C9-102",
		PARAMS(50, 1024),
		STEPS(
		RX(SROCE_OP_SEND_ONLY, 49, LEN(4), VERDICT(SROCE_PSN_NEW), DROPPED(BAD_VERDICT)),
		RX(SROCE_OP_SEND_ONLY, 50, LEN(4), VERDICT(SROCE_PSN_DUPLICATE),
		   DROPPED(BAD_VERDICT)),
		RX(SROCE_OP_SEND_ONLY, 49, LEN(4), VERDICT(SROCE_PSN_DUPLICATE), ACT(RESPOND),
		   EPSN(50), MSN(0), RESP(R_ACK(49, 0, SYN_ACK(0), C9_105)))
		),
		STATS(0, 0),
	},
};
