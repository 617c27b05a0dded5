/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Local operations on the send queue (BIND_MW, LOCAL_INV: rule local-op)
 * and the SEND with Invalidate, on RC, UC and UD send queues.
 */
static const struct sroce_sq_case sroce_sq_cases_local[] = {
	{
		.name = "local-op a bind with nothing outstanding completes once carried out",
		.rules = "local-op",
		SQ_DEFAULT(10),
		SQ_STEPS(
		POST(BIND_MW, 0, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP)),
		/* Not reported yet: the same operation is handed out again. */
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP)),
		LOCAL_DONE(SUCCESS, SQ_ACT(ACCEPT), SQ_RULE(LOCAL_OP)),
		PULL(CQES(CQE_LOCAL(0, 1))),
		NEXT(SQ_IDLE)
		),
	},
	{
		.name = "local-op an invalidate between sends completes after the send before it",
		.rules = "local-op",
		SQ_DEFAULT(0),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(SEND, 10, WF(SIG)),
		POST(LOCAL_INV, 0, WF(SIG)),
		POST(SEND, 20, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		LOCAL_DONE(SUCCESS, SQ_IDLE, SQ_RULE(LOCAL_OP)),
		PULL(),
		NEXT(SQ_IDLE, PKTS(PKT_AR(SEND_ONLY, 2, 1, 0, 20, LAST))),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(RESTART)),
		PULL(CQES(CQE(0, SUCCESS, 10, 1), CQE_LOCAL(1, 1))),
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(2, SUCCESS, 20, 1)))
		),
	},
	{
		.name = "local-op an unsignaled bind completes unsignaled, in order",
		.rules = "local-op",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 10),
		POST(BIND_MW, 0),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		LOCAL_DONE(SUCCESS, SQ_IDLE, SQ_RULE(LOCAL_OP)),
		NEXT(SQ_IDLE),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 10, 0), CQE_LOCAL(1, 0)))
		),
	},
	{
		.name = "local-op a failed bind completes mw_bind_err in order, the qp to error",
		.rules = "local-op 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		POST(BIND_MW, 0, WF(SIG)),
		POST(SEND, 20, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		LOCAL_DONE(MW_BIND_ERR, SQ_IDLE, .reason = SROCE_BLK_ERROR, SQ_RULE(LOCAL_OP)),
		/* The requester stops at the failed operation. */
		NEXT(SQ_BLOCKED(ERROR)),
		PULL(),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 10, 1), CQE_R(1, MW_BIND_ERR, 0, 1, LOCAL_OP, 1),
			  FLUSHED(2)))
		),
	},
	{
		.name = "local-op a failed bind after a send whose ack is lost: resent, then error",
		.rules = "local-op 9.7.6.1-timeout 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		POST(BIND_MW, 0, WF(SIG)),
		POST(SEND, 20, WF(SIG)),
		/* The send before a local operation asks for its ACK. */
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		LOCAL_DONE(MW_BIND_ERR, SQ_IDLE, .reason = SROCE_BLK_ERROR, SQ_RULE(LOCAL_OP)),
		/* The ACK is lost: the timer resends what is before the failure. */
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		NEXT(SQ_BLOCKED(ERROR), TMR(ARM), PKTS(PKT_RT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		PULL(),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 10, 1), CQE_R(1, MW_BIND_ERR, 0, 1, LOCAL_OP, 1),
			  FLUSHED(2)))
		),
	},
	{
		.name = "local-op an invalidate that fails with nothing outstanding fails at once",
		.rules = "local-op",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(LOCAL_INV, 0),
		POST(SEND, 20, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP)),
		LOCAL_DONE(LOC_QP_OP_ERR, SQ_ACT(ACCEPT), .reason = SROCE_BLK_ERROR,
			   SQ_RULE(LOCAL_OP)),
		PULL(CQES(CQE_R(0, LOC_QP_OP_ERR, 0, 1, LOCAL_OP, 1), FLUSHED(1))),
		NEXT(SQ_BLOCKED(ERROR))
		),
	},
	{
		.name = "local-op a fenced bind waits for the read before it",
		.rules = "local-op 10.8.3.3-fence",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(READ, 100, RDMA(0x1000, 5), WF(SIG)),
		POST(BIND_MW, 0, WF(SIG | FENCE)),
		NEXT(SQ_BLOCKED(FENCE), SQ_RULE(FENCE), TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(0x1000, 5, 100)))),
		READP(ONLY, 0, 1, 100, PLACE(0, 0, 100, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, SUCCESS, 100, 1, READ_RESP, 0))),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP)),
		LOCAL_DONE(SUCCESS, SQ_ACT(ACCEPT), SQ_RULE(LOCAL_OP)),
		PULL(CQES(CQE_LOCAL(1, 1)))
		),
	},
	{
		.name = "local-op a go-back-n passes over the bind carried out: not run again",
		.rules = "local-op 9.7.5.1.5-seq-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(SEND, 10, WF(SIG)),
		POST(BIND_MW, 0, WF(SIG)),
		POST(SEND, 20, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		LOCAL_DONE(SUCCESS, SQ_IDLE, SQ_RULE(LOCAL_OP)),
		NEXT(SQ_IDLE, PKTS(PKT_AR(SEND_ONLY, 2, 1, 0, 20, LAST))),
		NAKP(0, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(SEQ_NAK), TMR(RESTART)),
		NEXT(SQ_IDLE,
		     PKTS(PKT_RT(SEND_ONLY, 0, 0, 0, 10), PKT_RT_AR(SEND_ONLY, 2, 1, 0, 20, LAST))),
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 10, 1), CQE_LOCAL(1, 1), CQE(2, SUCCESS, 20, 1)))
		),
	},
	{
		.name = "local-op a bind while draining waits, as a new message would",
		.rules = "local-op",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(BIND_MW, 0, WF(SIG)),
		DRAIN(1),
		NEXT(SQ_BLOCKED(DRAINING), DRAINED(1)),
		DRAIN(0),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP)),
		LOCAL_DONE(SUCCESS, SQ_ACT(ACCEPT), SQ_RULE(LOCAL_OP)),
		PULL(CQES(CQE_LOCAL(0, 1)))
		),
	},
	{
		.name = "local-op an error flushes a bind handed out and not yet reported",
		.rules = "local-op 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		POST(BIND_MW, 0, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 10, LAST))),
		FLUSH(),
		LOCAL_DONE(SUCCESS, SQ_IDLE, SQ_RULE(LOCAL_OP)),
		PULL(CQES(FLUSHED(0), FLUSHED(1))),
		NEXT(SQ_BLOCKED(ERROR))
		),
	},
	{
		.name = "9.7.2-segment a send with invalidate: the ieth r_key on its last packet",
		.rules = "9.7.2-segment",
		SQ_DEFAULT(0),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(SEND_INV, 300, IMM(0x12345678), WF(SIG)),
		POST(SEND_INV, 4, IMM(0x9abc)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_FIRST, 0, 0, 0, 256),
			  PKT(SEND_LAST_INV, 0, 1, 256, 44, P_IMM(0x12345678)),
			  PKT_AR(SEND_ONLY_INV, 1, 2, 0, 4, LAST, P_IMM(0x9abc)))),
		ACKP(2, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 300, 1), CQE(1, SUCCESS, 4, 0)))
		),
	},
	{
		.name = "9.7.7.2-credits a send with invalidate takes a recv wqe: needs a credit",
		.rules = "9.7.7.2-credits",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 1),
		POST(SEND_INV, 1, IMM(7)),
		NEXT(SQ_BLOCKED(CREDITS), SQ_RULE(CREDITS), TMR(ARM),
		     PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 1, BLOCK)))
		),
	},
	{
		.name = "local-op a bind on a uc qp is carried out",
		.rules = "local-op",
		SQ_UC(0, 256),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		POST(BIND_MW, 0, WF(SIG)),
		NEXT(SQ_ACT(LOCAL), SQ_RULE(LOCAL_OP),
		     PKTS(PKT_(UC_SEND_ONLY, 0, 0, 0, 10, 0, SEGMENT))),
		LOCAL_DONE(SUCCESS, SQ_ACT(ACCEPT), SQ_RULE(LOCAL_OP)),
		PULL(CQES(CQE_UC(0, 10, 1), CQE_LOCAL(1, 1)))
		),
	},
	{
		.name = "uc-op a send with invalidate on a uc qp fails loc_qp_op_err unsent",
		.rules = "uc-op",
		SQ_UC(0, 256),
		SQ_STEPS(
		POST(SEND_INV, 10, IMM(1)),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UC_OP)),
		PULL(CQES(CQE_R(0, LOC_QP_OP_ERR, 0, 1, UC_OP, 1)))
		),
	},
	{
		.name = "ud-op a bind or an invalidate on a ud qp fails loc_qp_op_err unsent",
		.rules = "ud-op",
		SQ_UD(0, 1024),
		SQ_STEPS(
		POST(BIND_MW, 0),
		POST(LOCAL_INV, 0),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UD_OP)),
		PULL(CQES(CQE_R(0, LOC_QP_OP_ERR, 0, 1, UD_OP, 1), FLUSHED(1)))
		),
	},
};
