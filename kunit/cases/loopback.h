/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The loopback stream test, shared by KUnit (a few fixed seeds) and
 * GoogleTest (many seeds).  The requester core turns random work into
 * request packets; a channel that loses, duplicates and reorders carries
 * them to the responder core, which executes them against a simulated
 * remote memory and receive queue; its responses come back through
 * another such channel into the completer core.  It checks that:
 *   - every WQE completes exactly once, in order, successfully, with its
 *     signaled flag and byte count, and every byte arrived: SEND payloads
 *     in order, WRITE regions, READ buffers, CMP_SWAP results, each
 *     FETCH_ADD executed exactly once;
 *   - go-back-N holds: the acknowledged PSN never moves backwards, the
 *     responder sends at most one sequence NAK per episode and it names
 *     its expected PSN, and after the completer accepts a sequence NAK
 *     the next request packet is a retransmission starting at the NAK's
 *     PSN, or at the first PSN not acknowledged if responses in between
 *     moved it;
 *   - the timer commands are consistent (ARM only when stopped, RESTART
 *     only when running), a clean link retransmits nothing and never
 *     times out, and the requester's counters agree with what was sent.
 *
 * Plain C with no library: it builds in the kernel and in userspace.
 * Every check goes through a struct sroce_case_checker; its step is the
 * round of the stream, and the caller names the profile and the seed.
 */
#ifndef SROCE_LOOPBACK_H
#define SROCE_LOOPBACK_H

#include <sroce/core_abi.h>
#include <sroce/sq_abi.h>
#include "case.h"

#define SROCE_LOOP_PMTU 256u
#define SROCE_LOOP_SLOTS 64u		/* send queue ring */
#define SROCE_LOOP_MAX_MSG (4 * SROCE_LOOP_PMTU)	/* longest message */
#define SROCE_LOOP_WQES 300u		/* WQEs per run */
#define SROCE_LOOP_MAX_WQES 512u	/* most WQEs a run may ask for */
#define SROCE_LOOP_MAX_RES 16u		/* READ/ATOMIC resources */
#define SROCE_LOOP_FWD_LEN 256u		/* request channel capacity */
#define SROCE_LOOP_BACK_LEN 1024u	/* response channel capacity */
#define SROCE_LOOP_MAX_ROUNDS 200000u
#define SROCE_LOOP_TIMEOUT 40u		/* retransmit timer, in rounds */
#define SROCE_LOOP_RNR_WAIT 3u		/* RNR timer, in rounds */
#define SROCE_LOOP_MAX_RECVS 8u		/* receives the receiver keeps posted */

/*
 * Remote memory: a read-only pattern below SROCE_LOOP_WRITE_BASE that
 * READs fetch, a region per WRITE WQE above it, and the two ATOMIC words
 * at the top.
 */
#define SROCE_LOOP_REMOTE_SIZE (1024u * 1024)
#define SROCE_LOOP_WRITE_BASE (256u * 1024)
#define SROCE_LOOP_WRITE_STRIDE 1100u
#define SROCE_LOOP_COUNTER_VA (SROCE_LOOP_REMOTE_SIZE - 8)	/* FETCH_ADD */
#define SROCE_LOOP_SWAP_VA (SROCE_LOOP_REMOTE_SIZE - 16)	/* CMP_SWAP */

SROCE_STATIC_ASSERT(SROCE_LOOP_WRITE_BASE + SROCE_LOOP_MAX_WQES * SROCE_LOOP_WRITE_STRIDE +
		    SROCE_LOOP_MAX_MSG <= SROCE_LOOP_SWAP_VA, "WRITE regions fit");

/*
 * The link profiles, the same for both runners: expand
 * SROCE_LOOP_PROFILE_LIST with SROCE_LOOP_PROFILE defined as
 *	SROCE_LOOP_PROFILE(name, forward drop, duplicate, reorder,
 *			   backward drop, duplicate, reorder,
 *			   receive rate, window, max_rd_atomic, ackreq_every, hold_tail)
 * Link chances are in basis points (1/10000) per packet; the receive rate
 * is the percentage of rounds in which the receiver posts a receive.
 */
#define SROCE_LOOP_PROFILE_LIST							\
	SROCE_LOOP_PROFILE(clean,	    0,   0,    0,   0,   0,    0, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(loss1,	  100,   0,    0, 100,   0,    0, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(loss5,	  500,   0,    0, 500,   0,    0, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(dup1,	    0, 100,    0,   0, 100,    0, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(reorder,	    0,   0,  500,   0,   0,  500, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(mixed,	  300, 200,  300, 300, 200,  300, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(mixed_nohold,  300, 200,  300, 300, 200,  300, 100, 64, 4, 16, 0)	\
	SROCE_LOOP_PROFILE(slow_receiver, 100,   0,    0, 100,   0,    0,  10, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(loss5_reorder10, 500, 200, 1000, 500, 200, 1000, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(forward_loss,  500,   0,    0,   0,   0,    0, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(reverse_loss,    0,   0,    0, 500, 100,  200, 100, 64, 4, 16, 1)	\
	SROCE_LOOP_PROFILE(tight_window,  200, 100,  200, 200, 100,  200, 100,  8, 1,  0, 0)

#define SROCE_LOOP_PROFILE(name, ...) SROCE_LOOP_P_##name,
enum sroce_loop_profile_index {
	SROCE_LOOP_PROFILE_LIST
	SROCE_LOOP_NPROFILES
};

#undef SROCE_LOOP_PROFILE

/* KUnit runs seeds 1..SROCE_LOOP_KUNIT_SEEDS of every profile. */
#define SROCE_LOOP_KUNIT_SEEDS 3u
/* A case's name: profile and seed. */
#define SROCE_LOOP_DESC_FMT "%s seed %u"

struct sroce_loop_link {
	uint16_t drop;		/* basis points */
	uint16_t dup;
	uint16_t reorder;	/* swap with the packet queued before it */
};

struct sroce_loop_profile {
	const char *name;
	struct sroce_loop_link fwd;	/* requests */
	struct sroce_loop_link back;	/* responses */
	uint32_t recv_rate;	/* percent of rounds that post a receive, up to 8 posted */
	uint32_t window;	/* requester PSN window */
	uint32_t rd_atomic;	/* max_rd_atomic = max_dest_rd_atomic */
	uint32_t ackreq_every;	/* requester AckReq every N packets */
	uint32_t hold_tail;	/* requester holds its last packet while a response is due */
	uint32_t coalesce;	/* responder ack_coalesce_max */
	uint32_t wqes;		/* WQEs per run */
};

extern const struct sroce_loop_profile sroce_loop_profiles[SROCE_LOOP_NPROFILES];

/* Optional tracing: one line per packet, decision and loss, printf-style. */
struct sroce_loop_tracer {
	void *ctx;
	void (*trace)(void *ctx, const char *fmt, ...);
};

/* A packet on either channel: a request going forward, a response back. */
struct sroce_loop_pkt {
	struct sroce_req_pkt req;
	struct sroce_resp_desc resp;
	uint32_t len;		/* bytes of data */
	uint8_t data[SROCE_LOOP_PMTU];
};

struct sroce_loop_chan {
	struct sroce_loop_link link;
	uint32_t cap;		/* slots of q in use: the FWD or BACK length */
	uint32_t head;
	uint32_t count;
	struct sroce_loop_pkt *q;
};

struct sroce_loop_work {
	struct sroce_sq_wqe w;	/* as posted */
	uint64_t result;	/* ATOMIC: the original value returned */
	uint8_t completed;
	uint8_t local[SROCE_LOOP_MAX_MSG];	/* SEND/WRITE source, READ destination */
};

/*
 * Everything one run uses, provided by the caller (about 2 MiB: too
 * big for a kernel stack).  sroce_loop_run() initialises all of it; the
 * results at the end are the caller's to read.
 */
struct sroce_loop_ws {
	/* Results. */
	uint64_t checks;	/* comparisons reported to the checker */
	uint64_t failures;	/* of which failed */
	uint32_t rounds;	/* rounds the stream took */
	uint32_t nwork;		/* WQEs posted */

	/* The cores' state. */
	struct sroce_sq_qp sq;
	struct sroce_sq_wqe ring[SROCE_LOOP_SLOTS];
	struct sroce_resp_qp rq;
	struct sroce_rd_res res[SROCE_LOOP_MAX_RES];

	/* The simulation: private to kunit/cases/loopback*.c. */
	const struct sroce_loop_profile *p;
	const struct sroce_case_checker *chk;
	const struct sroce_loop_tracer *tr;
	uint64_t rng;
	uint32_t wqes;		/* WQEs this run posts */
	uint8_t stop;		/* a fatal check failed: end the stream */
	struct sroce_loop_chan fwd, back;
	struct sroce_loop_pkt scratch;	/* the packet being built */
	struct sroce_loop_pkt swap;	/* for reordering */
	uint64_t swaps;		/* CMP_SWAPs posted */
	uint64_t new_packets;	/* request packets that were not retransmissions */
	uint64_t write_va;	/* where the WRITE being executed goes next */
	uint32_t imms;		/* WRITE with immediate executed */
	uint32_t recvs;		/* receives posted and not consumed */
	uint32_t done;		/* WQEs retired */
	uint32_t round;
	uint32_t acked;		/* the completer's acknowledged PSN, last seen */
	uint32_t next_new;	/* the PSN the next new request packet must take */
	uint8_t new_psn;	/* next_new is known */
	uint8_t expect_retry;	/* a sequence NAK was accepted */
	uint8_t nak_sent;	/* the responder has sent a sequence NAK */
	uint8_t timer_on;
	uint8_t rnr_on;
	uint32_t expect_psn;	/* the accepted NAK's PSN */
	uint32_t last_nak_psn;
	uint32_t deadline;	/* round the retransmit timer expires */
	uint32_t rnr_deadline;
	uint32_t nsends;	/* SEND WQEs posted */
	uint32_t nreceived;	/* SEND messages the responder delivered */
	uint32_t msg_len;	/* SEND message being assembled */
	uint16_t send_wqe[SROCE_LOOP_MAX_WQES];	/* the SEND WQEs, in order */
	uint8_t msg[SROCE_LOOP_MAX_MSG];
	struct sroce_loop_pkt fwd_q[SROCE_LOOP_FWD_LEN];
	struct sroce_loop_pkt back_q[SROCE_LOOP_BACK_LEN];
	struct sroce_loop_work work[SROCE_LOOP_MAX_WQES];
	uint8_t remote[SROCE_LOOP_REMOTE_SIZE];
};

SROCE_EXTERN_C_BEGIN

/**
 * sroce_loop_run() - one loopback stream.
 * @ws: workspace, need not be initialised
 * @p: link profile
 * @seed: seeds the run's pseudo-random generator: same seed, same run
 * @wqes: WQEs to post, 0 for the profile's count (at most SROCE_LOOP_MAX_WQES)
 * @chk: receives every check; its step is the round
 * @tr: tracing, or 0
 *
 * Returns the number of failed checks (also in @ws->failures).
 */
uint64_t sroce_loop_run(struct sroce_loop_ws *ws, const struct sroce_loop_profile *p,
			uint32_t seed, uint32_t wqes, const struct sroce_case_checker *chk,
			const struct sroce_loop_tracer *tr);

SROCE_EXTERN_C_END

#endif /* SROCE_LOOPBACK_H */
