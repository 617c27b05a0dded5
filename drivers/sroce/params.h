/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce's limits, budgets and module parameters, in one place.
 *
 * The device limits are what query_device reports (device.c fills struct
 * ib_device_attr from them) and what the verbs check their arguments
 * against.  The budgets bound the work of one pass of a QP's task.  The
 * module parameters (params.c) are read-only once the module is loaded;
 * each is range-checked when it is set.
 */
#ifndef SROCE_PARAMS_H
#define SROCE_PARAMS_H

#include <linux/types.h>

/* --- device limits (struct ib_device_attr, struct ib_port_attr) --- */
#define SROCE_VENDOR_ID 0xffffff	/* as rxe: perftest takes its generic path */
#define SROCE_MAX_QP 0x10000
#define SROCE_MAX_QP_WR 0x4000
#define SROCE_MAX_SGE 32		/* max_send_sge, max_recv_sge, max_sge_rd */
#define SROCE_MAX_SRQ_SGE 27
#define SROCE_MAX_INLINE 512
#define SROCE_MAX_CQ 0x4000
#define SROCE_MAX_CQE 32767
#define SROCE_MAX_MR 0x4000
#define SROCE_MAX_MW 0x4000
#define SROCE_MAX_PD 0x7ffc
#define SROCE_MAX_QP_RD_ATOM 128	/* max_qp_rd_atom and max_qp_init_rd_atom */
#define SROCE_MAX_RES_RD_ATOM 0x3f000
#define SROCE_MAX_SRQ 0x3ff
#define SROCE_MAX_SRQ_WR 0x4000
#define SROCE_MAX_AH 0x7fff		/* AH numbers 1..SROCE_MAX_AH */
#define SROCE_MAX_MCAST_GRP 8192
#define SROCE_MAX_MCAST_QP_ATTACH 56
#define SROCE_MAX_PKEYS 64
#define SROCE_LOCAL_CA_ACK_DELAY 15
#define SROCE_GID_TABLE_LEN 1024
#define SROCE_MAX_MSG_SIZE 0x800000
#define SROCE_MIN_QPN 17		/* 0, 1 are special; rxe starts at 0x11 too */
#define SROCE_MAX_QPN 0xfffffe		/* 0xffffff is IB_MULTICAST_QPN, never a QP's */
/* MR and window keys: (index << 8) | a random byte, index 1..SROCE_KEY_INDEX_MAX. */
#define SROCE_KEY_INDEX_MAX 0xffffff
/* Ethernet + IPv6 + UDP + BTH + the largest extension + ICRC (rxe: 80). */
#define SROCE_MAX_HDR_LENGTH 80

/* --- budgets --- */
/*
 * Packets one requester pass may send before it yields to the other QPs
 * and to its own completer, which runs first in every pass: a response
 * waits at most this many transmits, not a whole long message.
 */
#define SROCE_REQ_BUDGET 16
#define SROCE_REQ_FETCH 64		/* WQEs one pass may copy in from the ring */
#define SROCE_COMP_BUDGET 64		/* responses one pass takes */
#define SROCE_COMP_QUEUE_MAX 1024	/* responses queued for the completer; more dropped */
#define SROCE_RESP_QUEUE_MAX 4096	/* request packets queued for the responder */
#define SROCE_RESP_BATCH_MAX 64		/* requests one responder run takes */
/*
 * Packets handed to the IP stack and not yet freed by it: the requester
 * stops at HIGH rather than overrun the qdisc, and is scheduled again at LOW.
 */
#define SROCE_TX_INFLIGHT_HIGH 64
#define SROCE_TX_INFLIGHT_LOW 16
/* destroy_qp waits at most this long for them to be freed (tx.c), then leaves them. */
#define SROCE_TX_DRAIN_MS 200

/* --- module parameters (params.c) --- */
struct sroce_uint_param {
	unsigned int val;
	unsigned int min;
	unsigned int max;
};

struct sroce_params {
	struct sroce_uint_param ackreq_every;
	struct sroce_uint_param req_window;
	struct sroce_uint_param ack_coalesce_max;
	struct sroce_uint_param ack_span_max;
	bool ackreq_hold;
};

extern struct sroce_params sroce_params;

int sroce_param_uint_set(struct sroce_uint_param *p, const char *val);

#endif /* SROCE_PARAMS_H */
