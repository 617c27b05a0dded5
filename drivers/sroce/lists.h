/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's name lists, each one X-macro: the enum and every table of
 * names is generated from it (sroce.h, stats.c), so that a name cannot
 * drift from its value.  Only lists here: `make style` checks this file
 * without checkpatch's rules for ordinary macros.
 */
#ifndef SROCE_LISTS_H
#define SROCE_LISTS_H

/*
 * Why a received packet was dropped: one counter each, the device's
 * counter "rx_drop_<name>" (stats.c), optional (off until asked for) if
 * FLAGS says so.  X(NAME, name, FLAGS), in counter order.  (A datagram
 * for a netdev without an sroce device has no device to count it: net.c
 * counts those in debugfs, sroce/global_drops.)
 */
#define SROCE_RX_DROP_LIST(X)								\
	X(TOO_SHORT, too_short, 0)	/* shorter than its headers + ICRC */		\
	X(NO_QP, no_qp, 0)		/* no such destination QP */			\
	X(BAD_TVER, bad_tver, 0)	/* BTH TVer != 0 */				\
	X(BAD_PKEY, bad_pkey, 0)	/* P_Key not 0xFFFF */				\
	X(BAD_OPCODE, bad_opcode, 0)	/* an opcode sroce does not carry */		\
	X(BAD_PAD, bad_pad, 0)		/* pad count larger than the payload */		\
	X(BAD_ICRC, bad_icrc, 0)	/* ICRC mismatch */				\
	X(QP_TYPE, qp_type, 0)		/* the opcode's transport is not the QP's */	\
	X(QP_STATE, qp_state, 0)	/* QP not in RTR/RTS/SQD/SQE */			\
	X(BAD_ADDR, bad_addr, 0)	/* source/destination IP != the QP's path */	\
	X(SQ_STATE, sq_state, 0)	/* a response to a QP not in RTS/SQD */		\
	X(RESP_BUSY, resp_busy, 0)	/* responder queue full */			\
	X(CORE, core, 0)		/* the core decided DROP (its stats say why) */	\
	X(COMP_BUSY, comp_busy, 0)	/* completer queue full */			\
	X(BAD_DGID, bad_dgid, 0)	/* UD: destination not in the GID table */	\
	X(BAD_QKEY, bad_qkey, 0)	/* UD: DETH Q_Key is not the QP's (ud.c) */	\
	X(NO_WQE, no_wqe, 0)		/* UD, UC: no receive WQE posted */		\
	X(UC_SEQUENCE, uc_sequence, 0)	/* UC: PSN gap or out of sequence */		\
	X(UC_REFUSED, uc_refused, 0)	/* UC: length, access, rkey or buffer */	\
	/* multicast: no memory for a member's copy */					\
	X(NO_MEMORY, no_memory, IB_STAT_FLAG_OPTIONAL)

/*
 * The driver's own counters (beside the receive drops above and the
 * cores' counters, which stats.c names by their struct fields): the
 * device's counter "<name>".  X(NAME, name), in counter order.
 */
#define SROCE_COUNTER_LIST(X)									\
	X(RX_PACKETS, rx_packets)		/* RoCEv2 datagrams received */			\
	X(TX_PACKETS, tx_packets)		/* packets transmitted */			\
	X(TX_ERRORS, tx_errors)			/* transmits that failed */			\
	X(RX_BATCHES, rx_batches)		/* responder stage runs with requests */	\
	X(RX_BATCH_PACKETS, rx_batch_packets)	/* request packets they carried */		\
	X(RX_PAGED, rx_paged)			/* requests with payload in skb frags */	\
	X(SQ_PACKETS, req_packets)		/* request packets sent */			\
	X(SQ_RETRANSMITS, req_retransmits)	/* of which retransmissions */			\
	X(SQ_TIMEOUTS, req_timeouts)		/* retransmit expiries that went back */	\
	X(SQ_RNR_WAITS, req_rnr_waits)		/* RNR NAK waits started */			\
	X(SQ_TX_THROTTLED, req_tx_throttled)	/* passes ended on packets not yet sent */	\
	X(SQ_TIMER_GRACE, req_timer_grace)	/* expiries given a run-on (timers.c) */	\
	X(UD_RX_ERRORS, ud_rx_errors)		/* UD receives completed in error */

#endif /* SROCE_LISTS_H */
