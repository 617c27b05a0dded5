/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The send side of a QP (RC, UC or UD): the requester and completer shims
 * around the C++ cores (req.c, comp.c), the send queue's lifecycle (sq.c),
 * its front end (wqe.c) and the retransmit and RNR timers (timers.c).
 */
#ifndef SROCE_SQ_H
#define SROCE_SQ_H

#include <linux/skbuff.h>
#include <linux/timer.h>
#include <sroce/sq_abi.h>

#include "av.h"
#include "dma.h"

struct sroce_qp;
struct sroce_pkt;

/*
 * The driver's half of a shadow WQE (the core's half is the struct
 * sroce_sq_wqe at the same ring position): what the completion and the
 * payload copies need.  Copied out of the user-writable SQ slot once and
 * validated there; the slot is never read again.
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;			/* IB_UVERBS_WR_*, as posted */
	u32 num_sge;			/* 0 with inline data */
	u32 length;			/* message bytes */
	bool is_inline;
	void *data;			/* struct rxe_sge[num_sge], or the inline bytes */
	/* BIND_MW: the window and its MR, as posted; LOCAL_INV: the key. */
	union {
		struct {
			u64 addr;
			u64 length;
			u32 mr_lkey;
			u32 mw_rkey;	/* the window, by its key now */
			u32 rkey;	/* its next key (low 8 bits) */
			u32 access;
		} mw;
		u32 inv_rkey;
	};
	/* UD: where the datagram goes, from the WQE and its AH. */
	u32 remote_qpn;
	u32 qkey;			/* for the DETH: sroce_ud_deth_qkey() applied */
	struct sroce_av av;
};

/* struct sroce_sqs.events: set by the timers, consumed by the QP task. */
enum {
	SROCE_SQ_EV_TIMEOUT,		/* the retransmit timer expired */
	SROCE_SQ_EV_RNR,		/* the RNR timer expired */
};

struct sroce_sqs {
	/*
	 * Response packets waiting for the completer, each holding a QP
	 * reference: recv.c appends in softirq, the completer stage takes
	 * them off with BHs off, qp.c purges with the task stopped.
	 */
	struct sk_buff_head rxq;
	unsigned long events;		/* SROCE_SQ_EV_* (atomic bit ops) */
	struct timer_list rexmit;	/* the retransmit timer */
	struct timer_list rnr;		/* the RNR NAK timer */
	/* Owned by the QP task from here on (and by qp.c with it stopped). */
	struct sroce_sq_qp core;	/* requester and completer state */
	struct sroce_sq_wqe *ring;	/* the core's shadow WQEs, nslots */
	struct sroce_swqe *swqe;	/* the driver's, same positions */
	u8 *arena;			/* nslots * slot_bytes: SGE lists / inline data */
	u32 nslots;			/* a power of two, >= the SQ ring's slots */
	u32 slot_bytes;
	u32 fetched;			/* SQ slots copied past the user ring's consumer */
	bool draining;			/* SQD: IB_EVENT_SQ_DRAINED still to raise */
	/*
	 * Nothing was outstanding when the last pass ended: written by passes,
	 * read locklessly by the doorbell as a hint (sroce_post_send()).
	 */
	bool quiet;
	unsigned long rexmit_deadline;	/* jiffies, while the timer is meant to run */
	bool rexmit_grace;		/* expired once, running on for responses in flight */
	unsigned long rexmit_aged_at;	/* jiffies: half the period after its start */
	bool rexmit_early;		/* set to fire at rexmit_aged_at for a held packet */
	struct sroce_cursor gather;	/* request payloads, of WQE gather_wqe */
	u32 gather_wqe;
	bool gather_valid;
	struct sroce_cursor scatter;	/* READ responses and ATOMIC results */
	u32 scatter_wqe;
	bool scatter_valid;
	struct sroce_sq_stats seen;	/* core counters already added to the device */
};

/* wqe.c */
int sroce_sqs_create(struct sroce_qp *qp);
void sroce_sqs_destroy(struct sroce_qp *qp);
u32 sroce_sq_fetch(struct sroce_qp *qp, u32 budget);
void sroce_sq_retire(struct sroce_qp *qp, const struct sroce_sq_cqe *c);
u8 sroce_wc_status_to_ib(u8 status);	/* enum sroce_wc_status -> IB_WC_* */
struct sroce_swqe *sroce_swqe(struct sroce_qp *qp, u32 pos);

/*
 * req.c, comp.c: the requester and completer shims, stages of the QP task
 * (completer first).
 */
bool sroce_req_run(struct sroce_qp *qp);
bool sroce_comp_run(struct sroce_qp *qp);
void sroce_comp_retire(struct sroce_qp *qp);
int sroce_comp_enqueue(struct sroce_qp *qp, struct sk_buff *skb);

/* sq.c: the lifecycle; qp_state.c calls it with the task stopped or owned. */
void sroce_sq_ready(struct sroce_qp *qp);	/* the QP enters RTS: (re)initialise the cores */
void sroce_sq_stop(struct sroce_qp *qp);	/* RESET/ERR/destroy: purge, timers off */
void sroce_sq_reset(struct sroce_qp *qp);	/* RESET: the WQEs taken are discarded */
void sroce_sq_set_draining(struct sroce_qp *qp, bool on);	/* SQD */
void sroce_sq_error_flush(struct sroce_qp *qp);	/* Error: every WQE flushed, CQEs posted */
void sroce_sq_fold_stats(struct sroce_qp *qp);

/* timers.c: the retransmit and RNR timers. */
void sroce_sq_timers_init(struct sroce_qp *qp);
void sroce_sq_timers_stop(struct sroce_qp *qp);
void sroce_sq_timer_apply(struct sroce_qp *qp, const struct sroce_sq_ret *r);
bool sroce_sq_timer_events(struct sroce_qp *qp);
bool sroce_sq_timer_aged(struct sroce_qp *qp);
bool sroce_sq_timer_hold(struct sroce_qp *qp);

#endif /* SROCE_SQ_H */
