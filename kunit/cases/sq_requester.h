/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Requester cases: packetization (9.7.2), PSN assignment (9.7.1), the
 * AckReq policy (9.7.5.1.6) and the gates: window, ORD, fence, credits
 * (9.7.7.2), draining.
 */
static const struct sroce_sq_case sroce_sq_cases_requester[] = {
	{
		.name = "9.7.2-segment 9.7.1-psn a 600-byte send: first, middle, last, psns wrap",
		.rules = "9.7.2-segment 9.7.1-psn 9.7.5.1.6-ackreq-last",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		POST(SEND, 600, WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_FIRST, 0, 0, 0, 256),
			  PKT(SEND_MIDDLE, 0, 1, 256, 256),
			  PKT_AR(SEND_LAST, 0, 2, 512, 88, LAST))),
		ACKP(2, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(CANCEL, 2)),
		PULL(CQES(CQE(0, SUCCESS, 600, 1)))
		),
	},
	{
		.name = "9.7.2-segment reth on the first packet only, immdt on the last",
		.rules = "9.7.2-segment",
		SQ_DEFAULT(100),
		SQ_STEPS(
		POST(WRITE_IMM, 300, RDMA(0x1000, 0x77), IMM(0xabcd)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x1000, 0x77, 300)),
			  PKT_AR(WRITE_LAST_IMM, 0, 1, 256, 44, LAST, P_IMM(0xabcd))))
		),
	},
	{
		.name = "9.7.2-segment pad counts and zero-length send and write",
		.rules = "9.7.2-segment",
		SQ_DEFAULT(7),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(SEND, 5),
		POST(SEND, 0),
		POST(WRITE, 0, RDMA(0x2000, 5)),
		POST(SEND_IMM, 258, IMM(9)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_ONLY, 0, 0, 0, 5),
			  PKT(SEND_ONLY, 1, 1, 0, 0),
			  PKT(WRITE_ONLY, 2, 2, 0, 0, P_RETH(0x2000, 5, 0)),
			  PKT(SEND_FIRST, 3, 3, 0, 256),
			  PKT_AR(SEND_LAST_IMM, 3, 4, 256, 2, LAST, P_IMM(9))))
		),
	},
	{
		.name = "9.7.1-psn a read reserves one psn per response packet",
		.rules = "9.7.1-psn",
		SQ_DEFAULT(0xfffffd),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(READ, 1000, RDMA(0x3000, 9)),
		POST(READ, 0, RDMA(0x3400, 9)),
		POST(SEND, 10),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(0x3000, 9, 1000)),
			  PKT(READ_REQUEST, 1, 4, 0, 0, P_RETH(0x3400, 9, 0)),
			  PKT_AR(SEND_ONLY, 2, 5, 0, 10, LAST)))
		),
	},
	{
		.name = "9.7.5.1.3-atomic-ack atomics carry the atomiceth, return the original",
		.rules = "9.7.5.1.3-atomic-ack",
		SQ_DEFAULT(50),
		SQ_STEPS(
		POST(FETCH_ADD, 8, ATOM(0x4000, 3, 5, 0)),
		POST(CMP_SWAP, 8, ATOM(0x4008, 3, 7, 6), WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(FETCH_ADD, 0, 0, 0, 0, P_ATOM(0x4000, 3, 5, 0)),
			  PKT(CMP_SWAP, 1, 1, 0, 0, P_ATOM(0x4008, 3, 7, 6)))),
		ATOMICP(0, 1, 0x11, PLACE(0, 0, 8, 1, 0x11), SQ_RULE(ATOMIC_ACK)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(ATOMIC_ACK), TMR(RESTART)),
		ATOMICP(1, 2, 6, PLACE(1, 0, 8, 1, 6), SQ_RULE(ATOMIC_ACK)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(ATOMIC_ACK), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, SUCCESS, 8, 0, ATOMIC_ACK, 0),
			  CQE_R(1, SUCCESS, 8, 1, ATOMIC_ACK, 0)))
		),
	},
	{
		.name = "9.7.5.1.6-ackreq-every ackreq every 4 packets and on the last",
		.rules = "9.7.5.1.6-ackreq-every 9.7.5.1.6-ackreq-last",
		SQ_PARAMS(0, 256, 64, 4, 4, 14, 7, 7),
		SQ_STEPS(
		POST(WRITE, 2560, RDMA(0x8000, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x8000, 1, 2560)),
			  PKT(WRITE_MIDDLE, 0, 1, 256, 256),
			  PKT(WRITE_MIDDLE, 0, 2, 512, 256),
			  PKT_AR(WRITE_MIDDLE, 0, 3, 768, 256, EVERY),
			  PKT(WRITE_MIDDLE, 0, 4, 1024, 256),
			  PKT(WRITE_MIDDLE, 0, 5, 1280, 256),
			  PKT(WRITE_MIDDLE, 0, 6, 1536, 256),
			  PKT_AR(WRITE_MIDDLE, 0, 7, 1792, 256, EVERY),
			  PKT(WRITE_MIDDLE, 0, 8, 2048, 256),
			  PKT_AR(WRITE_LAST, 0, 9, 2304, 256, LAST)))
		),
	},
	{
		.name = "9.7.5.1.6-ackreq-yield ackreq on a pass's last write, not on a read",
		.rules = "9.7.5.1.6-ackreq-yield 9.7.5.1.6-ackreq-last",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(WRITE, 1024, RDMA(0x8000, 1)),
		POST(READ, 256, RDMA(0x9000, 2)),
		POST(WRITE, 512, RDMA(0xa000, 3)),
		NEXT_PASS(3, SQ_ACT(SEND), SQ_RULE(ACKREQ_YIELD), TMR(ARM),
			  PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x8000, 1, 1024)),
			       PKT(WRITE_MIDDLE, 0, 1, 256, 256),
			       PKT_AR(WRITE_MIDDLE, 0, 2, 512, 256, YIELD))),
		NEXT_PASS(2, SQ_ACT(SEND), SQ_RULE(SEGMENT),
			  PKTS(PKT(WRITE_LAST, 0, 3, 768, 256),
			       PKT(READ_REQUEST, 1, 4, 0, 0, P_RETH(0x9000, 2, 256)))),
		NEXT_PASS(2, SQ_ACT(SEND), SQ_RULE(ACKREQ_LAST),
			  PKTS(PKT(WRITE_FIRST, 2, 5, 0, 256, P_RETH(0xa000, 3, 512)),
			       PKT_AR(WRITE_LAST, 2, 6, 256, 256, LAST))),
		NEXT(SQ_IDLE)
		),
	},
	{
		.name = "9.7.1-window at most window psns outstanding, ackreq before blocking",
		.rules = "9.7.1-window 9.7.5.1.6-ackreq-block",
		SQ_PARAMS(0xfffffe, 256, 4, 0, 4, 14, 7, 7),
		SQ_STEPS(
		POST(WRITE, 1536, RDMA(0x100, 2)),
		NEXT(SQ_BLOCKED(WINDOW), SQ_RULE(WINDOW), TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x100, 2, 1536)),
			  PKT(WRITE_MIDDLE, 0, 1, 256, 256),
			  PKT(WRITE_MIDDLE, 0, 2, 512, 256),
			  PKT_AR(WRITE_MIDDLE, 0, 3, 768, 256, BLOCK))),
		ACKP(1, 0, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(RESTART, 1)),
		NEXT(SQ_IDLE,
		     PKTS(PKT(WRITE_MIDDLE, 0, 4, 1024, 256),
			  PKT_AR(WRITE_LAST, 0, 5, 1280, 256, LAST)))
		),
	},
	{
		.name = "9.7.1-window a read over the window goes when nothing is outstanding",
		.rules = "9.7.1-window",
		SQ_PARAMS(0, 256, 2, 0, 4, 14, 7, 7),
		SQ_STEPS(
		POST(WRITE, 4, RDMA(0x10, 1)),
		POST(READ, 1024, RDMA(0x20, 1)),
		NEXT(SQ_BLOCKED(WINDOW), SQ_RULE(WINDOW), TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 4, BLOCK, P_RETH(0x10, 1, 4)))),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 1, 1, 0, 0, P_RETH(0x20, 1, 1024)))),
		PULL(CQES(CQE(0, SUCCESS, 4, 0)))
		),
	},
	{
		.name = "9.7.6.1-ord max_rd_atomic reads outstanding, then the next waits",
		.rules = "9.7.6.1-ord 9.7.5.1.3-read-resp",
		SQ_PARAMS(10, 256, 64, 0, 1, 14, 7, 7),
		SQ_STEPS(
		POST(READ, 100, RDMA(0x10, 1)),
		POST(READ, 100, RDMA(0x20, 1)),
		NEXT(SQ_BLOCKED(ORD), SQ_RULE(ORD), TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(0x10, 1, 100)))),
		READP(ONLY, 0, 1, 100, PLACE(0, 0, 100, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(CANCEL)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 1, 1, 0, 0, P_RETH(0x20, 1, 100)))),
		PULL(CQES(CQE_R(0, SUCCESS, 100, 0, READ_RESP, 0)))
		),
	},
	{
		.name = "10.8.3.3-fence a fenced wqe waits for earlier reads, others do not",
		.rules = "10.8.3.3-fence",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(READ, 8, RDMA(0x10, 1)),
		POST(WRITE, 8, RDMA(0x40, 2)),
		POST(WRITE, 8, RDMA(0x50, 2), WF(FENCE)),
		NEXT(SQ_BLOCKED(FENCE), SQ_RULE(FENCE), TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(0x10, 1, 8)),
			  PKT(WRITE_ONLY, 1, 1, 0, 8, P_RETH(0x40, 2, 8)))),
		READP(ONLY, 0, 1, 8, PLACE(0, 0, 8, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		NEXT(SQ_IDLE,
		     PKTS(PKT_AR(WRITE_ONLY, 2, 2, 0, 8, LAST, P_RETH(0x50, 2, 8)))),
		PULL(CQES(CQE_R(0, SUCCESS, 8, 0, READ_RESP, 0)))
		),
	},
	{
		.name = "9.7.7.2-credits sends stay within msn plus credits plus one probe",
		.rules = "9.7.7.2-credits 9.7.5.1.6-ackreq-block",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 10),
		POST(SEND, 10),
		POST(SEND, 10),
		NEXT(SQ_BLOCKED(CREDITS), SQ_RULE(CREDITS), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, BLOCK))),
		/* msn 1, 2 credits: messages up to ssn 3 (+1) */
		ACKP(0, 1, 2, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_ONLY, 1, 1, 0, 10),
			  PKT_AR(SEND_ONLY, 2, 2, 0, 10, LAST))),
		POST(SEND, 10),
		POST(SEND, 10),
		NEXT(SQ_BLOCKED(CREDITS), SQ_RULE(CREDITS),
		     PKTS(PKT_AR(SEND_ONLY, 3, 3, 0, 10, BLOCK))),
		/* credits 0x1f: no limit */
		ACKP(3, 4, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 4, 4, 0, 10, LAST))),
		PULL(CQES(CQE(0, SUCCESS, 10, 0), CQE(1, SUCCESS, 10, 0), CQE(2, SUCCESS, 10, 0),
			  CQE(3, SUCCESS, 10, 0)))
		),
	},
	{
		.name = "9.7.7.2-credits writes need none, an unsolicited ack raises them",
		.rules = "9.7.7.2-credits",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 1),
		POST(WRITE, 4, RDMA(1, 1)),
		POST(SEND, 1),
		NEXT(SQ_BLOCKED(CREDITS), SQ_RULE(CREDITS), TMR(ARM),
		     PKTS(PKT(SEND_ONLY, 0, 0, 0, 1),
			  PKT_AR(WRITE_ONLY, 1, 1, 0, 4, BLOCK, P_RETH(1, 1, 4)))),
		ACKP(1, 2, 0, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT_AR(SEND_ONLY, 2, 2, 0, 1, LAST))),
		POST(SEND, 1),
		NEXT(SQ_BLOCKED(CREDITS), SQ_RULE(CREDITS)),
		/* the same ACK again with 4 credits: no progress, the timer stays */
		ACKP(1, 2, 4, SQ_ACT(ACCEPT), SQ_RULE(CREDITS)),
		NEXT(SQ_IDLE, PKTS(PKT_AR(SEND_ONLY, 3, 3, 0, 1, LAST))),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 4, 0)))
		),
	},
	{
		.name = "9.7.2-segment solicited event on the last packet of a send",
		.rules = "9.7.2-segment",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND_IMM, 300, WF(SOLICITED), IMM(7)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_FIRST, 0, 0, 0, 256),
			  PKT_(SEND_LAST_IMM, 0, 1, 256, 44, SROCE_PF_ACKREQ | SROCE_PF_SOLICITED,
			       ACKREQ_LAST, P_IMM(7))))
		),
	},
	{
		.name = "unsend hands the same packet out again, with its wqe not started",
		.rules = "9.7.1-psn",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 300, RDMA(0x10, 1)),
		NEXT_N(2, SQ_ACT(SEND), SQ_RULE(ACKREQ_LAST), TMR(ARM),
		       PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x10, 1, 300)),
			    PKT_AR(WRITE_LAST, 0, 1, 256, 44, LAST))),
		UNSEND(),
		UNSEND(),
		NEXT(SQ_IDLE, PKTS(PKT_AR(WRITE_LAST, 0, 1, 256, 44, LAST))),
		/* only right after the packet: an idle call in between ends it */
		UNSEND(),
		NEXT(SQ_IDLE),
		POST(WRITE, 1, RDMA(0x20, 1)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(ACKREQ_LAST),
		       PKTS(PKT_AR(WRITE_ONLY, 1, 2, 0, 1, LAST, P_RETH(0x20, 1, 1)))),
		UNSEND(),
		NEXT(SQ_IDLE, PKTS(PKT_AR(WRITE_ONLY, 1, 2, 0, 1, LAST, P_RETH(0x20, 1, 1))))
		),
	},
	{
		.name = "9.7.6.1-timer timeout 0 arms no timer and an expiry is ignored",
		.rules = "9.7.6.1-timer",
		SQ_PARAMS(0, 256, 64, 0, 4, 0, 7, 7),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "sqd draining starts no new wqe, drained once started ones complete",
		.rules = "",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 300, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(1, 1, 300)),
			  PKT_AR(WRITE_LAST, 0, 1, 256, 44, LAST))),
		POST(WRITE, 1, RDMA(2, 1)),
		DRAIN(1, DRAINED(0)),
		NEXT(SQ_BLOCKED(DRAINING), DRAINED(0)),
		ACKP(1, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL), DRAINED(1)),
		DRAIN(0, DRAINED(0)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 1, 2, 0, 1, LAST, P_RETH(2, 1, 1)))),
		PULL(CQES(CQE(0, SUCCESS, 300, 0)))
		),
	},
};
