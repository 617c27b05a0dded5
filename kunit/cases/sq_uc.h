/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UC requester cases (SROCE_TRANSPORT_UC): RC's packets with the UC
 * opcodes, no AckReq, window, credits or timer; a message completes once
 * its last packet went; a READ or ATOMIC fails unsent.
 */
static const struct sroce_sq_case sroce_sq_cases_uc[] = {
	{
		.name = "uc-send rc packets with uc opcodes, no ackreq, done once the last went",
		.rules = "uc-send",
		SQ_UC(100, 256),
		SQ_STEPS(
		POST(SEND, 600, WF(SIG)),
		POST(WRITE_IMM, 10, RDMA(0x1000, 5), IMM(9)),
		POST(SEND, 0, WF(SIG | SOLICITED)),
		NEXT(SQ_IDLE,
		     PKTS(PKT(UC_SEND_FIRST, 0, 0, 0, 256),
			  PKT(UC_SEND_MIDDLE, 0, 1, 256, 256),
			  PKT(UC_SEND_LAST, 0, 2, 512, 88),
			  PKT(UC_WRITE_ONLY_IMM, 1, 3, 0, 10, P_RETH(0x1000, 5, 10), P_IMM(9)),
			  PKT_(UC_SEND_ONLY, 2, 4, 0, 0, SROCE_PF_SOLICITED, SEGMENT))),
		HELD(SQ_IDLE),			/* a full transmit path: hold, no timer */
		PULL(CQES(CQE_UC(0, 600, 1), CQE_UC(1, 10, 0), CQE_UC(2, 0, 1)))
		),
	},
	{
		.name = "uc-send the path mtu is the qp's: a port mtu change leaves uc alone",
		.rules = "uc-send",
		SQ_UC(0, 256),
		SQ_STEPS(
		PORT_MTU(4096),
		POST(SEND, 300, WF(SIG)),
		NEXT(SQ_IDLE,
		     PKTS(PKT(UC_SEND_FIRST, 0, 0, 0, 256),
			  PKT(UC_SEND_LAST, 0, 1, 256, 44))),
		PULL(CQES(CQE_UC(0, 300, 1)))
		),
	},
	{
		.name = "uc-send a completion pulled is final: an unsend after it changes nothing",
		.rules = "uc-send",
		SQ_UC(0, 256),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(UC_SEND), PKTS(PKT(UC_SEND_ONLY, 0, 0, 0, 10))),
		PULL(CQES(CQE_UC(0, 10, 1))),
		UNSEND(),
		POST(SEND, 5, WF(SIG)),
		PULL(),
		NEXT(SQ_IDLE, PKTS(PKT(UC_SEND_ONLY, 1, 1, 0, 5))),
		PULL(CQES(CQE_UC(1, 5, 1)))
		),
	},
	{
		.name = "uc-send a write: the reth on its first packet, the immediate on its last",
		.rules = "uc-send",
		SQ_UC(0, 256),
		SQ_STEPS(
		POST(WRITE_IMM, 300, RDMA(0x2000, 7), IMM(3), WF(SIG)),
		NEXT(SQ_IDLE,
		     PKTS(PKT(UC_WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x2000, 7, 300)),
			  PKT(UC_WRITE_LAST_IMM, 0, 1, 256, 44, P_IMM(3)))),
		PULL(CQES(CQE_UC(0, 300, 1)))
		),
	},
	{
		.name = "uc-send the rc gates do not apply: window 1, no credits, a fence",
		.rules = "uc-send",
		SQ_UC(0xfffffe, 256),
		SQ_STEPS(
		POST(SEND, 300),
		POST(SEND, 1),
		POST(WRITE, 2, RDMA(0x10, 1), WF(FENCE)),
		NEXT(SQ_IDLE,
		     PKTS(PKT(UC_SEND_FIRST, 0, 0, 0, 256),
			  PKT(UC_SEND_LAST, 0, 1, 256, 44),
			  PKT(UC_SEND_ONLY, 1, 2, 0, 1),
			  PKT(UC_WRITE_ONLY, 2, 3, 0, 2, P_RETH(0x10, 1, 2)))),
		PULL(CQES(CQE_UC(0, 300, 0), CQE_UC(1, 1, 0), CQE_UC(2, 2, 0)))
		),
	},
	{
		.name = "uc-send a last packet that could not go leaves its message incomplete",
		.rules = "uc-send",
		SQ_UC(5, 256),
		SQ_STEPS(
		POST(SEND, 300, WF(SIG)),
		NEXT_N(2, SQ_ACT(SEND), SQ_RULE(UC_SEND),
		       PKTS(PKT(UC_SEND_FIRST, 0, 0, 0, 256), PKT(UC_SEND_LAST, 0, 1, 256, 44))),
		UNSEND(),
		PULL(),
		NEXT(SQ_IDLE, PKTS(PKT(UC_SEND_LAST, 0, 1, 256, 44))),
		PULL(CQES(CQE_UC(0, 300, 1)))
		),
	},
	{
		.name = "uc-send a response reaching a uc send queue is dropped",
		.rules = "uc-send",
		SQ_UC(0, 1024),
		SQ_STEPS(
		POST(SEND, 10),
		NEXT(SQ_IDLE, PKTS(PKT(UC_SEND_ONLY, 0, 0, 0, 10))),
		ACKP(0, 1, 31, SQ_DROPPED(BAD_OPCODE), SQ_RULE(UC_SEND)),
		PULL(CQES(CQE_UC(0, 10, 0)))
		),
	},
	{
		.name = "uc-op a read or atomic on a uc qp fails loc_qp_op_err unsent",
		.rules = "uc-op 10.10.2-flush",
		SQ_UC(0, 4096),
		SQ_STEPS(
		POST(SEND, 8),
		POST(READ, 8, RDMA(0x1000, 5)),
		POST(SEND, 8),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UC_OP), PKTS(PKT(UC_SEND_ONLY, 0, 0, 0, 8))),
		PULL(CQES(CQE_UC(0, 8, 0), CQE_R(1, LOC_QP_OP_ERR, 0, 1, UC_OP, 1), FLUSHED(2))),
		POST(FETCH_ADD, 8, ATOM(0x1000, 5, 1, 0)),
		NEXT(SQ_BLOCKED(ERROR)),
		PULL(CQES(FLUSHED(3)))
		),
	},
	{
		.name = "uc-send a local error part-way fails the message, the rest flushed",
		.rules = "uc-send 10.10.2-local-err",
		SQ_UC(0, 256),
		SQ_STEPS(
		POST(SEND, 600, WF(SIG)),
		POST(SEND, 4),
		NEXT_N(2, SQ_ACT(SEND), SQ_RULE(UC_SEND),
		       PKTS(PKT(UC_SEND_FIRST, 0, 0, 0, 256), PKT(UC_SEND_MIDDLE, 0, 1, 256, 256))),
		WQE_ERROR(SROCE_WC_LOC_PROT_ERR, SQ_ACT(ACCEPT), .reason = SROCE_BLK_ERROR,
			  SQ_RULE(LOCAL_ERR)),
		PULL(CQES(CQE_R(0, LOC_PROT_ERR, 0, 1, LOCAL_ERR, 1), FLUSHED(1)))
		),
	},
};
