/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Completer cases: acknowledgements (9.7.5.1.2), READ responses and
 * ATOMIC ACKs (9.7.5.1.3), NAKs (9.7.5.1.5, 9.7.5.2), retries and the
 * retransmit timer (9.7.6.1), local errors and flushing (10.10.2).
 */
#define RNR_AGAIN(code_)							\
	RNRP(code_, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK), TMR(RNR)),	\
	NEXT(SQ_BLOCKED(RNR_WAIT), SQ_RULE(RNR_NAK)),				\
	RNR_DONE(SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK)),				\
	NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT_RT_AR(SEND_ONLY, 0, 0, 0, 1, LAST)))

#define TWO_WRITES_SENT								\
	POST(WRITE, 1, RDMA(1, 1)),						\
	POST(WRITE, 1, RDMA(2, 1)),						\
	NEXT(SQ_IDLE, TMR(ARM),							\
	     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),			\
		  PKT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(2, 1, 1))))

/* After a timeout one packet probes, with AckReq, until something is acked. */
#define PROBE_AGAIN								\
	NEXT(SQ_BLOCKED(WINDOW), SQ_RULE(WINDOW), TMR(ARM),			\
	     PKTS(PKT_RT_AR(WRITE_ONLY, 0, 0, 0, 1, BLOCK, P_RETH(1, 1, 1))))

/*
 * A WRITE, a SEND of three packets whose third could not be gathered
 * (failed behind the WRITE), a WRITE not started; then the response NAK_,
 * a NAK for the SEND's second packet, and what must complete: the first
 * WRITE, the SEND with its error, the second WRITE flushed.
 */
#define FAILED_BEHIND_NAK(NAK_) \
	UNLIMITED_CREDITS(), \
	POST(WRITE, 1, RDMA(1, 1)), \
	POST(SEND, 600), \
	POST(WRITE, 1, RDMA(2, 1)), \
	NEXT_N(3, SQ_ACT(SEND), SQ_RULE(SEGMENT), TMR(ARM), \
	       PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)), \
		    PKT(SEND_FIRST, 1, 1, 0, 256), PKT(SEND_MIDDLE, 1, 2, 256, 256))), \
	WQE_ERROR(SROCE_WC_LOC_PROT_ERR, SQ_IDLE, .reason = SROCE_BLK_ERROR, \
		  SQ_RULE(LOCAL_ERR)), \
	NAK_, \
	PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE_R(1, LOC_PROT_ERR, 0, 1, LOCAL_ERR, 1), \
		  FLUSHED(2)))

static const struct sroce_sq_case sroce_sq_cases_completer[] = {
	{
		.name = "9.7.5.1.2-ack one ack completes every wqe up to its psn, in order",
		.rules = "9.7.5.1.2-ack 9.7.6.1-timer",
		SQ_DEFAULT(0xffffff),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		POST(WRITE, 1, RDMA(2, 1)),
		POST(WRITE, 1, RDMA(3, 1), WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			  PKT(WRITE_ONLY, 1, 1, 0, 1, P_RETH(2, 1, 1)),
			  PKT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(3, 1, 1)))),
		ACKP(2, 3, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(CANCEL, 2)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 1, 0), CQE(2, SUCCESS, 1, 1)))
		),
	},
	{
		.name = "9.7.6.1-timer an ack inside a message acks part of it, restarts the timer",
		.rules = "9.7.6.1-timer 9.7.5.1.2-ack",
		SQ_DEFAULT(40),
		SQ_STEPS(
		POST(WRITE, 600, RDMA(0x100, 1)),
		POST(WRITE, 1, RDMA(0x900, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x100, 1, 600)),
			  PKT(WRITE_MIDDLE, 0, 1, 256, 256),
			  PKT(WRITE_LAST, 0, 2, 512, 88),
			  PKT_AR(WRITE_ONLY, 1, 3, 0, 1, LAST, P_RETH(0x900, 1, 1)))),
		ACKP(1, 0, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(RESTART, 1)),
		PULL(),
		ACKP(2, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(RESTART, 2)),
		PULL(CQES(CQE(0, SUCCESS, 600, 0))),
		ACKP(3, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(1, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.6.1-ghost an ack beyond all sent is a ghost, an old one a duplicate",
		.rules = "9.7.6.1-ghost",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		ACKP(5, 1, 31, SQ_DROPPED(GHOST), SQ_RULE(GHOST), ACKED(0xffffff)),
		NAKP(0, 5, 1, SQ_DROPPED(GHOST), SQ_RULE(GHOST)),
		READP(ONLY, 1, 1, 0, SQ_DROPPED(GHOST), SQ_RULE(GHOST)),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		ACKP(0, 1, 31, SQ_DROPPED(DUPLICATE), SQ_RULE(ACK)),
		NAKP(0, 0, 1, SQ_DROPPED(STALE_NAK), SQ_RULE(GHOST)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.5.1.3-read-resp read first acks earlier sends, data lands by psn",
		.rules = "9.7.5.1.3-read-resp",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		POST(SEND, 1),
		POST(READ, 600, RDMA(0x1000, 4), WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_ONLY, 0, 0, 0, 1),
			  PKT(READ_REQUEST, 1, 1, 0, 0, P_RETH(0x1000, 4, 600)))),
		READP(FIRST, 1, 1, 256, PLACE(1, 0, 256, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		PULL(CQES(CQE_R(0, SUCCESS, 1, 0, READ_RESP, 0))),
		READP(MIDDLE, 2, 0, 256, PLACE(1, 256, 256, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		READP(MIDDLE, 2, 0, 256, SQ_DROPPED(DUPLICATE), SQ_RULE(READ_RESP)),
		READP(LAST, 3, 2, 88, PLACE(1, 512, 88, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(CANCEL)),
		PULL(CQES(CQE_R(1, SUCCESS, 600, 1, READ_RESP, 0)))
		),
	},
	{
		.name = "9.7.5.1.3-read-resp a lost read response restarts the read there, once",
		.rules = "9.7.5.1.3-read-resp",
		SQ_DEFAULT(300),
		SQ_STEPS(
		POST(READ, 768, RDMA(0x1000, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(0x1000, 1, 768)))),
		READP(FIRST, 0, 1, 256, PLACE(0, 0, 256, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		READP(LAST, 2, 1, 256, SQ_ACT(ACCEPT), .reason = SROCE_CDROP_READ_GAP,
		      SQ_RULE(READ_RESP), TMR(RESTART)),
		READP(LAST, 2, 1, 256, SQ_DROPPED(READ_GAP), SQ_RULE(READ_RESP)),
		NEXT(SQ_IDLE, PKTS(PKT_RT(READ_REQUEST, 0, 1, 256, 0, P_RETH(0x1100, 1, 512)))),
		READP(FIRST, 1, 1, 256, PLACE(0, 256, 256, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		READP(LAST, 2, 1, 256, PLACE(0, 512, 256, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, SUCCESS, 768, 0, READ_RESP, 0)))
		),
	},
	{
		.name = "9.7.5.1.3-read-resp read responses that do not fit the read are dropped",
		.rules = "9.7.5.1.3-read-resp",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(READ, 600, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(1, 1, 600)))),
		READP(ONLY, 0, 1, 600, SQ_DROPPED(BAD_LENGTH), SQ_RULE(READ_RESP)),
		READP(FIRST, 0, 1, 100, SQ_DROPPED(BAD_LENGTH), SQ_RULE(READ_RESP)),
		READP(MIDDLE, 0, 0, 256, SQ_DROPPED(BAD_LENGTH), SQ_RULE(READ_RESP)),
		ATOMICP(0, 1, 5, SQ_DROPPED(BAD_OPCODE), SQ_RULE(READ_RESP)),
		{ .op = SQ_RESP, .opcode = SROCE_OP_SEND_ONLY, .psn = 0,
		  SQ_DROPPED(BAD_OPCODE), SQ_RULE(NONE) },
		{ .op = SQ_RESP, .opcode = SROCE_OP_READ_RESP_FIRST, .psn = 0, .plen = 256,
		  .syndrome = SYN_NAK(2), SQ_DROPPED(RESERVED), SQ_RULE(READ_RESP) },
		FLUSH(),
		PULL(CQES(FLUSHED(0)))
		),
	},
	{
		.name = "9.7.5.1.2-implied-nak an ack beyond an unanswered read resends the read",
		.rules = "9.7.5.1.2-implied-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 8, RDMA(0x10, 1)),
		POST(READ, 8, RDMA(0x20, 1)),
		POST(WRITE, 8, RDMA(0x30, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 8, P_RETH(0x10, 1, 8)),
			  PKT(READ_REQUEST, 1, 1, 0, 0, P_RETH(0x20, 1, 8)),
			  PKT_AR(WRITE_ONLY, 2, 2, 0, 8, LAST, P_RETH(0x30, 1, 8)))),
		ACKP(2, 3, 31, SQ_ACT(ACCEPT), SQ_RULE(IMPLIED_NAK), TMR_ACKED(RESTART, 0)),
		PULL(CQES(CQE(0, SUCCESS, 8, 0))),
		NEXT(SQ_IDLE,
		     PKTS(PKT_RT(READ_REQUEST, 1, 1, 0, 0, P_RETH(0x20, 1, 8)),
			  PKT_RT_AR(WRITE_ONLY, 2, 2, 0, 8, LAST, P_RETH(0x30, 1, 8)))),
		READP(ONLY, 1, 2, 8, PLACE(1, 0, 8, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(READ_RESP), TMR(RESTART)),
		ACKP(2, 3, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE_R(1, SUCCESS, 8, 0, READ_RESP, 0), CQE(2, SUCCESS, 8, 0)))
		),
	},
	{
		.name = "9.7.5.1.2-implied-nak a nak past an unanswered atomic resends it",
		.rules = "9.7.5.1.2-implied-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(FETCH_ADD, 8, ATOM(0x40, 1, 1, 0)),
		POST(WRITE, 1, RDMA(1, 1)),
		POST(WRITE, 1, RDMA(2, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(FETCH_ADD, 0, 0, 0, 0, P_ATOM(0x40, 1, 1, 0)),
			  PKT(WRITE_ONLY, 1, 1, 0, 1, P_RETH(1, 1, 1)),
			  PKT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(2, 1, 1)))),
		NAKP(0, 2, 2, SQ_ACT(ACCEPT), SQ_RULE(IMPLIED_NAK), TMR(RESTART)),
		NEXT(SQ_IDLE,
		     PKTS(PKT_RT(FETCH_ADD, 0, 0, 0, 0, P_ATOM(0x40, 1, 1, 0)),
			  PKT_RT(WRITE_ONLY, 1, 1, 0, 1, P_RETH(1, 1, 1)),
			  PKT_RT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(2, 1, 1)))),
		ATOMICP(0, 1, 77, PLACE(0, 0, 8, 1, 77), SQ_RULE(ATOMIC_ACK)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(ATOMIC_ACK), TMR(RESTART)),
		ACKP(2, 3, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, SUCCESS, 8, 0, ATOMIC_ACK, 0), CQE(1, SUCCESS, 1, 0),
			  CQE(2, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.5.1.3-atomic-ack an atomic ack implies the ack of earlier writes",
		.rules = "9.7.5.1.3-atomic-ack",
		SQ_DEFAULT(9),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		POST(FETCH_ADD, 8, ATOM(0x40, 1, 1, 0)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			  PKT(FETCH_ADD, 1, 1, 0, 0, P_ATOM(0x40, 1, 1, 0)))),
		ATOMICP(1, 2, 0x99, PLACE(1, 0, 8, 1, 0x99), SQ_RULE(ATOMIC_ACK)),
		PLACED(0, SQ_ACT(ACCEPT), SQ_RULE(ATOMIC_ACK), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, SUCCESS, 1, 0, ATOMIC_ACK, 0),
			  CQE_R(1, SUCCESS, 8, 0, ATOMIC_ACK, 0)))
		),
	},
	{
		.name = "9.7.5.1.5-seq-nak go back to the nak's psn, once per episode",
		.rules = "9.7.5.1.5-seq-nak",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		POST(WRITE, 1024, RDMA(0x10, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_FIRST, 0, 0, 0, 256, P_RETH(0x10, 1, 1024)),
			  PKT(WRITE_MIDDLE, 0, 1, 256, 256),
			  PKT(WRITE_MIDDLE, 0, 2, 512, 256),
			  PKT_AR(WRITE_LAST, 0, 3, 768, 256, LAST))),
		NAKP(0, 2, 0, SQ_ACT(ACCEPT), SQ_RULE(SEQ_NAK), TMR_ACKED(RESTART, 1)),
		NAKP(0, 2, 0, SQ_DROPPED(STALE_NAK), SQ_RULE(SEQ_NAK)),
		NEXT(SQ_IDLE,
		     PKTS(PKT_RT(WRITE_MIDDLE, 0, 2, 512, 256),
			  PKT_RT_AR(WRITE_LAST, 0, 3, 768, 256, LAST))),
		/* a second loss in the retransmission is a new episode */
		NAKP(0, 3, 0, SQ_ACT(ACCEPT), SQ_RULE(SEQ_NAK), TMR_ACKED(RESTART, 2)),
		NEXT(SQ_IDLE, PKTS(PKT_RT_AR(WRITE_LAST, 0, 3, 768, 256, LAST))),
		ACKP(3, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1024, 0)))
		),
	},
	{
		.name = "9.7.5.1.5-rnr-nak wait the nak's timer, then resend from its psn",
		.rules = "9.7.5.1.5-rnr-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 1, WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 1, LAST))),
		RNR_AGAIN(5),
		RNR_DONE(SQ_IDLE, SQ_RULE(RNR_NAK)),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 1)))
		),
	},
	{
		.name = "9.7.5.1.5-rnr-nak a sequence nak for the psn an rnr wait resends is stale",
		.rules = "9.7.5.1.5-rnr-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 600),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_FIRST, 0, 0, 0, 256),
			  PKT(SEND_MIDDLE, 0, 1, 256, 256),
			  PKT_AR(SEND_LAST, 0, 2, 512, 88, LAST))),
		RNRP(4, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK), TMR(RNR)),
		NAKP(0, 0, 0, SQ_DROPPED(STALE_NAK), SQ_RULE(SEQ_NAK)),
		NAKP(0, 0, 0, SQ_DROPPED(STALE_NAK), SQ_RULE(SEQ_NAK)),
		RNR_DONE(SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_RT(SEND_FIRST, 0, 0, 0, 256),
			  PKT_RT(SEND_MIDDLE, 0, 1, 256, 256),
			  PKT_RT_AR(SEND_LAST, 0, 2, 512, 88, LAST))),
		ACKP(2, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 600, 0)))
		),
	},
	{
		.name = "9.7.6.1-rnr-retry rnr_retry 7 retries without end",
		.rules = "9.7.6.1-rnr-retry",
		SQ_PARAMS(0, 256, 64, 0, 4, 14, 7, 7),
		SQ_STEPS(
		POST(SEND, 1),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 1, LAST))),
		RNR_AGAIN(1), RNR_AGAIN(2), RNR_AGAIN(3), RNR_AGAIN(4), RNR_AGAIN(5),
		RNR_AGAIN(6), RNR_AGAIN(7), RNR_AGAIN(8), RNR_AGAIN(0),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.6.1-rnr-retry rnr_retry 2: the third rnr nak is rnr_retry_exc_err",
		.rules = "9.7.6.1-rnr-retry 10.10.2-flush",
		SQ_PARAMS(0, 256, 64, 0, 4, 14, 7, 2),
		SQ_STEPS(
		POST(SEND, 1),
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(SEND_ONLY, 0, 0, 0, 1),
			  PKT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(1, 1, 1)))),
		RNRP(3, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK), TMR(RNR)),
		RNR_DONE(SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_RT(SEND_ONLY, 0, 0, 0, 1),
			  PKT_RT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(1, 1, 1)))),
		RNRP(3, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK), TMR(RNR)),
		RNR_DONE(SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_RT(SEND_ONLY, 0, 0, 0, 1),
			  PKT_RT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(1, 1, 1)))),
		RNRP(3, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_RETRY), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, RNR_RETRY_EXC_ERR, 0, 1, RNR_RETRY, 1), FLUSHED(1))),
		NEXT(SQ_BLOCKED(ERROR)),
		POST(WRITE, 1, RDMA(1, 1)),
		PULL(CQES(FLUSHED(2)))
		),
	},
	{
		.name = "9.7.6.1-retry-cnt retry_cnt 2: two timeouts probe again, the third fails",
		.rules = "9.7.6.1-timeout 9.7.6.1-retry-cnt 10.10.2-flush",
		SQ_PARAMS(0x123456, 256, 64, 0, 4, 14, 2, 7),
		SQ_STEPS(
		TWO_WRITES_SENT,
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		PROBE_AGAIN,
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		PROBE_AGAIN,
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(RETRY_CNT)),
		PULL(CQES(CQE_R(0, RETRY_EXC_ERR, 0, 1, RETRY_CNT, 1), FLUSHED(1))),
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		ACKP(1, 2, 31, SQ_DROPPED(QP_ERROR), SQ_RULE(FLUSH))
		),
	},
	{
		.name = "9.7.6.1-retry-cnt held back after timeouts, the timer uses up the retries",
		.rules = "9.7.6.1-timer 9.7.6.1-timeout 9.7.6.1-retry-cnt",
		SQ_PARAMS(0x123456, 256, 64, 0, 4, 14, 2, 7),
		SQ_STEPS(
		TWO_WRITES_SENT,
		HELD(SQ_IDLE),			/* the timer runs already */
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		HELD(SQ_IDLE, TMR(ARM)),	/* the probe cannot go: the timer runs on */
		HELD(SQ_IDLE),
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		HELD(SQ_IDLE, TMR(ARM)),
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(RETRY_CNT)),
		PULL(CQES(CQE_R(0, RETRY_EXC_ERR, 0, 1, RETRY_CNT, 1), FLUSHED(1))),
		HELD(SQ_IDLE)			/* in error: no timer */
		),
	},
	{
		.name = "9.7.6.1-timer held back after a timeout, the probe goes under that timer",
		.rules = "9.7.6.1-timer 9.7.6.1-timeout",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		HELD(SQ_ACT(ACCEPT)),		/* nothing outstanding: send on */
		TWO_WRITES_SENT,
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		HELD(SQ_IDLE, TMR(ARM)),
		/* the path drained: the probe does not arm the timer again */
		NEXT(SQ_BLOCKED(WINDOW), SQ_RULE(WINDOW),
		     PKTS(PKT_RT_AR(WRITE_ONLY, 0, 0, 0, 1, BLOCK, P_RETH(1, 1, 1)))),
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		HELD(SQ_ACT(ACCEPT)),		/* all acknowledged: send on */
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.6.1-timer held back in an RNR wait: no retransmit timer",
		.rules = "9.7.6.1-timer",
		SQ_DEFAULT(0),
		SQ_STEPS(
		TWO_WRITES_SENT,
		RNRP(3, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK), TMR(RNR)),
		HELD(SQ_IDLE),
		RNR_DONE(SQ_ACT(ACCEPT), SQ_RULE(RNR_NAK)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_RT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			  PKT_RT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(2, 1, 1)))),
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.6.1-timeout after a timeout one packet probes until an ack",
		.rules = "9.7.6.1-timeout",
		SQ_DEFAULT(0xfffffe),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		POST(WRITE, 1, RDMA(2, 1)),
		POST(WRITE, 1, RDMA(3, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			  PKT(WRITE_ONLY, 1, 1, 0, 1, P_RETH(2, 1, 1)),
			  PKT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(3, 1, 1)))),
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		PROBE_AGAIN,
		NEXT(SQ_BLOCKED(WINDOW), SQ_RULE(WINDOW)),
		/* the responder had the first two: resume after them */
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR_ACKED(RESTART, 1)),
		NEXT(SQ_IDLE, PKTS(PKT_RT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(3, 1, 1)))),
		ACKP(2, 3, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 1, 0), CQE(2, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.6.1-retry-cnt progress gives back the retries",
		.rules = "9.7.6.1-retry-cnt",
		SQ_PARAMS(0, 256, 64, 0, 4, 14, 1, 7),
		SQ_STEPS(
		TWO_WRITES_SENT,
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		PROBE_AGAIN,
		/* progress ends the probe: the rest of the window goes again */
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(RESTART)),
		NEXT(SQ_IDLE, PKTS(PKT_RT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(2, 1, 1)))),
		TIMEOUT(SQ_ACT(ACCEPT), SQ_RULE(TIMEOUT)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_RT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(2, 1, 1)))),
		ACKP(1, 2, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE(1, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "9.7.5.2-fatal-nak remote access error fails its wqe, the rest flush",
		.rules = "9.7.5.2-fatal-nak 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		POST(WRITE, 1, RDMA(2, 1)),
		POST(WRITE, 1, RDMA(3, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			  PKT(WRITE_ONLY, 1, 1, 0, 1, P_RETH(2, 1, 1)),
			  PKT_AR(WRITE_ONLY, 2, 2, 0, 1, LAST, P_RETH(3, 1, 1)))),
		NAKP(2, 1, 1, SQ_ACT(ACCEPT), SQ_RULE(FATAL_NAK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE_R(1, REM_ACCESS_ERR, 0, 1, FATAL_NAK, 1),
			  FLUSHED(2))),
		ACKP(2, 3, 31, SQ_DROPPED(QP_ERROR), SQ_RULE(FLUSH))
		),
	},
	{
		.name = "9.7.5.2-fatal-nak invalid request and remote operational error statuses",
		.rules = "9.7.5.2-fatal-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(READ, 8, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(1, 1, 8)))),
		NAKP(1, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(FATAL_NAK), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, REM_INV_REQ_ERR, 0, 1, FATAL_NAK, 1)))
		),
	},
	{
		.name = "9.7.5.2-fatal-nak remote operational error on a send",
		.rules = "9.7.5.2-fatal-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(SEND, 1),
		NEXT(SQ_IDLE, TMR(ARM), PKTS(PKT_AR(SEND_ONLY, 0, 0, 0, 1, LAST))),
		NAKP(3, 0, 0, SQ_ACT(ACCEPT), SQ_RULE(FATAL_NAK), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, REM_OP_ERR, 0, 1, FATAL_NAK, 1)))
		),
	},
	{
		.name = "9.7.5.2-fatal-nak reserved nak codes and syndromes are dropped",
		.rules = "9.7.5.2-fatal-nak",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		NAKP(4, 0, 0, SQ_DROPPED(RESERVED), SQ_RULE(FATAL_NAK)),
		NAKP(31, 0, 0, SQ_DROPPED(RESERVED), SQ_RULE(FATAL_NAK)),
		{ .op = SQ_RESP, .opcode = SROCE_OP_ACKNOWLEDGE, .psn = 0, .syndrome = 0x40,
		  SQ_DROPPED(RESERVED), SQ_RULE(FATAL_NAK) },
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0)))
		),
	},
	{
		.name = "10.10.2-local-err an ungatherable wqe fails in order, the rest flush",
		.rules = "10.10.2-local-err 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		UNLIMITED_CREDITS(),
		POST(WRITE, 1, RDMA(1, 1)),
		POST(SEND, 600),
		POST(WRITE, 1, RDMA(2, 1)),
		NEXT_N(2, SQ_ACT(SEND), SQ_RULE(SEGMENT), TMR(ARM),
		       PKTS(PKT(WRITE_ONLY, 0, 0, 0, 1, P_RETH(1, 1, 1)),
			    PKT(SEND_FIRST, 1, 1, 0, 256))),
		WQE_ERROR(SROCE_WC_LOC_PROT_ERR, SQ_IDLE, .reason = SROCE_BLK_ERROR,
			  SQ_RULE(LOCAL_ERR)),
		NEXT(SQ_BLOCKED(ERROR)),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE_R(1, LOC_PROT_ERR, 0, 1, LOCAL_ERR, 1),
			  FLUSHED(2)))
		),
	},
	/*
	 * A NAK whose implied ACK reaches a WQE that failed locally: the ACK
	 * completes what it acknowledges, the failed WQE completes with its
	 * error and the rest flush, and the NAK has nothing left to resend or
	 * fail (once: the WQE after the last one posted completed, and the
	 * flush walked round the ring's 32-bit positions; found by libFuzzer).
	 */
	{
		.name = "10.10.2-local-err a fatal nak past an ungatherable wqe only acks",
		.rules = "10.10.2-local-err 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(FAILED_BEHIND_NAK(NAKP(3, 1, 1, SQ_ACT(ACCEPT), SQ_RULE(ACK),
						TMR(CANCEL))))
	},
	{
		.name = "10.10.2-local-err an rnr nak, no retry left, past it only acks",
		.rules = "10.10.2-local-err 10.10.2-flush",
		SQ_PARAMS(0, 256, 64, 0, 4, 14, 7, 0),
		SQ_STEPS(FAILED_BEHIND_NAK(RNRP(1, 1, 1, SQ_ACT(ACCEPT), SQ_RULE(ACK),
						TMR(CANCEL))))
	},
	{
		.name = "10.10.2-local-err a sequence nak, no retry left, past it only acks",
		.rules = "10.10.2-local-err 10.10.2-flush",
		SQ_PARAMS(0, 256, 64, 0, 4, 14, 0, 7),
		SQ_STEPS(FAILED_BEHIND_NAK(NAKP(0, 1, 1, SQ_ACT(ACCEPT), SQ_RULE(ACK),
						TMR(CANCEL))))
	},
	{
		.name = "10.10.2-local-err the oldest wqe failing completes at once",
		.rules = "10.10.2-local-err",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT_N(1, SQ_ACT(SEND), SQ_RULE(ACKREQ_LAST), TMR(ARM),
		       PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		WQE_ERROR(SROCE_WC_LOC_LEN_ERR, SQ_ACT(ACCEPT), .reason = SROCE_BLK_ERROR,
			  SQ_RULE(LOCAL_ERR)),
		PULL(CQES(CQE_R(0, LOC_LEN_ERR, 0, 1, LOCAL_ERR, 1)))
		),
	},
	{
		.name = "10.10.2-local-err a wqe refused at post completes in order",
		.rules = "10.10.2-local-err 10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1)),
		POST_ERROR(SROCE_WC_LOC_QP_OP_ERR),
		POST(WRITE, 1, RDMA(2, 1)),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(LOCAL_ERR), TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		NEXT(SQ_BLOCKED(ERROR)),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0), CQE_R(1, LOC_QP_OP_ERR, 0, 1, LOCAL_ERR, 1),
			  FLUSHED(2)))
		),
	},
	{
		.name = "10.10.2-local-err a refused wqe with nothing before it fails at once",
		.rules = "10.10.2-local-err",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST_ERROR(SROCE_WC_LOC_LEN_ERR),
		NEXT(SQ_BLOCKED(ERROR), SQ_RULE(LOCAL_ERR)),
		PULL(CQES(CQE_R(0, LOC_LEN_ERR, 0, 1, LOCAL_ERR, 1)))
		),
	},
	{
		.name = "10.10.2-local-err read data that cannot be placed fails the read",
		.rules = "10.10.2-local-err",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(READ, 8, RDMA(1, 1)),
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT(READ_REQUEST, 0, 0, 0, 0, P_RETH(1, 1, 8)),
			  PKT_AR(WRITE_ONLY, 1, 1, 0, 1, LAST, P_RETH(1, 1, 1)))),
		READP(ONLY, 0, 1, 8, PLACE(0, 0, 8, 0, 0), SQ_RULE(READ_RESP)),
		PLACED(SROCE_WC_LOC_PROT_ERR, SQ_ACT(ACCEPT), SQ_RULE(LOCAL_ERR), TMR(CANCEL)),
		PULL(CQES(CQE_R(0, LOC_PROT_ERR, 0, 1, LOCAL_ERR, 1), FLUSHED(1)))
		),
	},
	{
		.name = "10.10.2-flush error flushes all wqes, later posts too, engines stop",
		.rules = "10.10.2-flush",
		SQ_DEFAULT(0),
		SQ_STEPS(
		POST(WRITE, 1, RDMA(1, 1), WF(SIG)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		FLUSH(),
		PULL(CQES(FLUSHED(0))),
		POST(SEND, 1),
		PULL(CQES(FLUSHED(1))),
		NEXT(SQ_BLOCKED(ERROR)),
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		ACKP(0, 1, 31, SQ_DROPPED(QP_ERROR), SQ_RULE(FLUSH))
		),
	},
	{
		.name = "9.7.6.1-timer an expiry with nothing outstanding is ignored",
		.rules = "9.7.6.1-timer",
		SQ_DEFAULT(0),
		SQ_STEPS(
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		POST(WRITE, 1, RDMA(1, 1)),
		NEXT(SQ_IDLE, TMR(ARM),
		     PKTS(PKT_AR(WRITE_ONLY, 0, 0, 0, 1, LAST, P_RETH(1, 1, 1)))),
		ACKP(0, 1, 31, SQ_ACT(ACCEPT), SQ_RULE(ACK), TMR(CANCEL)),
		TIMEOUT(SQ_IDLE, SQ_RULE(TIMER)),
		PULL(CQES(CQE(0, SUCCESS, 1, 0)))
		),
	},
};
