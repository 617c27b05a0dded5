/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The spec's 17-step walk ("Play the whole sequence"), checked field by
 * field at every step, including that nothing is sent where the walk says
 * nothing is owed.  8 KiB READ at a 4 KiB path MTU; 16 receive WQEs
 * posted, so positive AETHs carry credit code 7 (12 WQEs) once the first
 * SEND has used one (15 left) and until the end (13 left).
 */
static const struct sroce_case sroce_cases_walk[] = {
	{
		.name = "spec walk: two unacked requests, READ, lost SEND, NAK, resend, ACK",
		.rules = "C9-95 C9-96 C9-97 C9-98 C9-111 C9-113.a1 C9-114 C9-116 C9-148 C9-149",
		PARAMS(300, 4096), .nres = 4, .credits = 16,
		STEPS(
		/* 1. SEND 300, AckReq clear. */
		RX(SROCE_OP_SEND_ONLY, 300, LEN(32), ACT(EXECUTE), EPSN(300), MSN(0)),
		/* 2. Valid and complete: MSN 1, expected 301, nothing sent. */
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(301), MSN(1)),
		/* 3. WRITE 301, AckReq clear. */
		RX(SROCE_OP_WRITE_ONLY, 301, LEN(64), DMA(0x1000, 7, 64), ACT(EXECUTE),
		   EPSN(301), MSN(1)),
		/* 4. Placed: MSN 2, expected 302, still nothing. */
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(302), MSN(2)),
		/* 5. READ 8 KiB: PSNs 302 and 303 reserved. */
		RX(SROCE_OP_READ_REQUEST, 302, DMA(0x20000, 9, 8192), ACT(EXECUTE), EPSN(302),
		   MSN(2)),
		/* 6-8. Resource taken, expected PSN jumps past both; First carries
		 * MSN 2 and acknowledges 300-301, Last carries MSN 3.
		 */
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(304), MSN(3),
		     RESP(R_READ(FIRST, 302, 2, SYN_ACK(7), 0x20000, 4096, C9_97),
			  R_READ(LAST, 303, 3, SYN_ACK(7), 0x21000, 4096, C9_98))),
		/* 9-11. 304 lost; 305 with AckReq is ahead: one NAK, expected
		 * PSN 304, MSN still 3, nothing executed.
		 */
		RX(SROCE_OP_SEND_ONLY, 305, LEN(16), ACKREQ, ACT(RESPOND), EPSN(304), MSN(3),
		   RESP(R_NAK(SROCE_NAK_PSN_SEQ_ERR, 304, 3, C9_111))),
		/* 12. The latch: the next in-flight request draws no second NAK. */
		RX(SROCE_OP_SEND_ONLY, 306, LEN(16), ACKREQ, DROPPED(NAK_LATCHED), EPSN(304),
		   MSN(3)),
		/* 13-14. The resent 304 clears the latch and runs: MSN 4. */
		RX(SROCE_OP_SEND_ONLY, 304, LEN(16), ACT(EXECUTE), EPSN(304), MSN(3)),
		EXEC(SROCE_EXEC_OK, ACT(HOLD), EPSN(305), MSN(4)),
		/* 15-17. 305 with AckReq: MSN 5, one ACK with PSN 305. */
		RX(SROCE_OP_SEND_ONLY, 305, LEN(16), ACKREQ, ACT(EXECUTE), EPSN(305), MSN(4)),
		EXEC(SROCE_EXEC_OK, ACT(RESPOND), EPSN(306), MSN(5),
		     RESP(R_ACK(305, 5, SYN_ACK(7), C9_95)))
		),
		STATS(0, 1),
	},
};
