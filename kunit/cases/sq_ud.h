/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UD requester cases (SROCE_TRANSPORT_UD): a message is one UD SEND Only
 * packet with no AckReq, no window, credits or timer; it completes once
 * sent; what cannot go fails with its local error and the rest flushes.
 */
static const struct sroce_sq_case sroce_sq_cases_ud[] = {
	{
		.name = "ud-send one ud send only per message, no ackreq or timer, done when sent",
		.rules = "ud-send",
		SQ_UD(100, 1024),
		SQ_STEPS(
		POST(SEND, 1000, WF(SIG)),
		POST(SEND_IMM, 0, IMM(7), WF(SIG | SOLICITED)),
		POST(SEND, 3),
		NEXT(SQ_IDLE,
		     PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 1000),
			  PKT_UD_SE(UD_SEND_ONLY_IMM, 1, 1, 0, P_IMM(7)),
			  PKT_UD(UD_SEND_ONLY, 2, 2, 3))),
		HELD(SQ_IDLE),			/* a full transmit path: hold, no timer */
		PULL(CQES(CQE_UD(0, 1000, 1), CQE_UD(1, 0, 1), CQE_UD(2, 3, 0)))
		),
	},
	{
		.name = "ud-send the rc gates do not apply: window 1, ord 0, no credits",
		.rules = "ud-send",
		SQ_UD(0xffffff, 256),
		SQ_STEPS(
		POST(SEND, 256),
		POST(SEND, 1),
		POST(SEND, 2, WF(FENCE)),
		NEXT(SQ_IDLE,
		     PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 256),
			  PKT_UD(UD_SEND_ONLY, 1, 1, 1),
			  PKT_UD(UD_SEND_ONLY, 2, 2, 2))),
		PULL(CQES(CQE_UD(0, 256, 0), CQE_UD(1, 1, 0), CQE_UD(2, 2, 0)))
		),
	},
	{
		.name = "ud-send a datagram that could not be sent is not complete and goes again",
		.rules = "ud-send",
		SQ_UD(5, 1024),
		SQ_STEPS(
		POST(SEND, 10, WF(SIG)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(UD_SEND), PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 10))),
		UNSEND(),
		PULL(),
		NEXT(SQ_IDLE, PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 10))),
		PULL(CQES(CQE_UD(0, 10, 1)))
		),
	},
	{
		.name = "ud-send a response reaching a ud send queue is dropped",
		.rules = "ud-send",
		SQ_UD(0, 1024),
		SQ_STEPS(
		POST(SEND, 10),
		NEXT(SQ_IDLE, PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 10))),
		ACKP(0, 1, 31, SQ_DROPPED(BAD_OPCODE), SQ_RULE(UD_SEND)),
		PULL(CQES(CQE_UD(0, 10, 0)))
		),
	},
	{
		.name = "ud-length a message over the mtu: loc_len_err unsent, the rest flushed",
		.rules = "ud-length 10.10.2-flush",
		SQ_UD(0, 256),
		SQ_STEPS(
		POST(SEND, 256),
		POST(SEND, 257),
		POST(SEND, 10, WF(SIG)),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UD_LENGTH),
		     PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 256))),
		PULL(CQES(CQE_UD(0, 256, 0), CQE_R(1, LOC_LEN_ERR, 0, 1, UD_LENGTH, 1),
			  FLUSHED(2))),
		POST(SEND, 1),
		NEXT(SQ_BLOCKED(ERROR)),
		PULL(CQES(FLUSHED(3)))
		),
	},
	{
		.name = "ud-length the port mtu grows: up to the new mtu is one packet",
		.rules = "ud-length",
		SQ_UD(0, 1024),
		SQ_STEPS(
		POST(SEND, 1024),
		NEXT(SQ_IDLE, PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 1024))),
		PORT_MTU(4096),
		POST(SEND, 4000),
		POST(SEND, 4096),
		NEXT(SQ_IDLE, PKTS(PKT_UD(UD_SEND_ONLY, 1, 1, 4000),
				   PKT_UD(UD_SEND_ONLY, 2, 2, 4096))),
		PULL(CQES(CQE_UD(0, 1024, 0), CQE_UD(1, 4000, 0), CQE_UD(2, 4096, 0)))
		),
	},
	{
		.name = "ud-length the port mtu shrinks: the next message over it fails unsent",
		.rules = "ud-length",
		SQ_UD(0, 4096),
		SQ_STEPS(
		POST(SEND, 2048),
		POST(SEND, 2048, WF(SIG)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(UD_SEND), PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 2048))),
		/* 1500 rounds down to the IBA's 1024. */
		PORT_MTU(1500),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UD_LENGTH)),
		PULL(CQES(CQE_UD(0, 2048, 0), CQE_R(1, LOC_LEN_ERR, 0, 1, UD_LENGTH, 1)))
		),
	},
	{
		.name = "ud-length a datagram taken back is measured anew: over a new mtu it fails",
		.rules = "ud-length",
		SQ_UD(0, 4096),
		SQ_STEPS(
		POST(SEND, 2048, WF(SIG)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(UD_SEND), PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 2048))),
		UNSEND(),
		PORT_MTU(1024),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UD_LENGTH)),
		PULL(CQES(CQE_R(0, LOC_LEN_ERR, 0, 1, UD_LENGTH, 1)))
		),
	},
	{
		.name = "ud-op a read, write or atomic on a ud qp fails loc_qp_op_err unsent",
		.rules = "ud-op",
		SQ_UD(0, 4096),
		SQ_STEPS(
		POST(WRITE, 8, RDMA(0x1000, 5)),
		POST(SEND, 8),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(UD_OP)),
		PULL(CQES(CQE_R(0, LOC_QP_OP_ERR, 0, 1, UD_OP, 1), FLUSHED(1)))
		),
	},
	{
		.name = "ud-send sqd: no new datagram starts while draining",
		.rules = "ud-send",
		SQ_UD(0, 4096),
		SQ_STEPS(
		DRAIN(1),
		POST(SEND, 8),
		NEXT(SQ_BLOCKED(DRAINING)),
		DRAIN(0),
		NEXT(SQ_IDLE, PKTS(PKT_UD(UD_SEND_ONLY, 0, 0, 8))),
		PULL(CQES(CQE_UD(0, 8, 0)))
		),
	},
};
