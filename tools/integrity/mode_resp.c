// SPDX-License-Identifier: GPL-2.0
/*
 * mode_resp.c - error-path modes around a responder: rnr, bad_rkey,
 * oob_write, oob_read, destroy_qp, resize_cq, hostile, mr_access and idle
 * (tools/testvm/errors-guest.sh runs them with the server's responder
 * under test, req-errors-guest.sh several of them with the client's
 * requester under test), and rnr_timer, which shares rnr's code and is a
 * requester mode (req-errors-guest.sh).
 *
 * Each mode runs one scenario between the MODE-START and MODE-END
 * handshakes (modes.c) and reports it as the sub-test named after the
 * mode.  The server's registered buffer stays guard-filled unless the
 * scenario is meant to write it, so a write that should have been refused
 * is caught.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>	/* before rdma_user_rxe.h's linux/in.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rdma/rdma_user_rxe.h>

#include "integrity.h"

#define STREAM_LEN	4096		/* destroy_qp: bytes per RDMA WRITE */
#define STREAM_SIGNAL	16		/* destroy_qp: signal every 16th */
#define STREAM_MAX_MS	30000		/* destroy_qp: give up after this */
#define DESTROY_AFTER_MS 500		/* destroy_qp: server's delay */
#define LANDED_MAX_MS	20000		/* destroy_qp: wait for the first WRITE */
#define RNR_DELAY_MS	1000		/* rnr: server posts its receive late */
#define IDLE_MAX_S	600		/* idle: longest wait for the peer */
/* rnr_timer: one packet, so that only RNR NAKs answer it (a stock rxe
 * responder also answers the later packets of a message with one
 * PSN-sequence NAK per round). */
#define RNR_TIMER_LEN	200

/*
 * rnr: one multi-packet SEND reaches the server before it has posted a
 * receive.  The responder must answer with RNR NAKs (and nothing else:
 * no sequence NAK for the packets that follow the refused first one);
 * the requester (rnr_retry 7 = unlimited, min_rnr_timer 12 from the
 * server's RTR) retries until the receive is posted ~1 s later.  The send
 * must then complete successfully and the bytes arrive intact.
 */
static uint32_t rnr_len(const struct ctx *c)
{
	return 3 * c->mtu_bytes + 5;
}

static void rnr_send(struct ctx *c, uint32_t len)
{
	uint64_t t0 = now_ms();
	struct ibv_wc wc;

	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, len, 0, 0))
		return;
	if (expect_wc(c, c->scq, ST_MODE, "SEND before the receive is posted",
		      1, IBV_WC_SEND, &wc) == 0)
		printf("# rnr: SEND of %u bytes completed after %" PRIu64 " ms\n",
		       len, now_ms() - t0);
}

static void rnr_recv(struct ctx *c, uint32_t len)
{
	struct seglist s;
	struct ibv_wc wc;
	char why[200];
	uint64_t bad;

	one_seg(&s, MODE_OFF, len + 64);
	s.rstart = 0;			/* check the whole buffer */
	s.rend = c->buf_len;
	sleep_ms(RNR_DELAY_MS);
	printf("# rnr: posting the receive now (%u ms after the start)\n",
	       RNR_DELAY_MS);
	if (post_recv(c, ST_MODE, 7, &s, 1))
		return;
	if (expect_wc(c, c->rcq, ST_MODE, "receive posted late", 7,
		      IBV_WC_RECV, &wc) < 0)
		return;
	if (wc.byte_len != len)
		fail(ST_MODE, "receive: byte_len %u, expected %u", wc.byte_len, len);
	if (wc.wc_flags & IBV_WC_WITH_IMM)
		fail(ST_MODE, "receive: IBV_WC_WITH_IMM set for a plain SEND");
	bad = verify_region(c->buf, &s, mode_seed(c, 0), len, why, sizeof(why));
	if (bad)
		fail(ST_MODE, "receive: %" PRIu64 " wrong bytes; first: %s", bad, why);
}

void rnr_client(struct ctx *c)
{
	rnr_send(c, rnr_len(c));
}

void rnr_server(struct ctx *c)
{
	rnr_recv(c, rnr_len(c));
}

void rnr_timer_client(struct ctx *c)
{
	rnr_send(c, RNR_TIMER_LEN);
}

void rnr_timer_server(struct ctx *c)
{
	rnr_recv(c, RNR_TIMER_LEN);
}

/*
 * bad_rkey / oob_write / oob_read: one request the responder must refuse
 * with a Remote Access Error NAK, so the client's completion is
 * IBV_WC_REM_ACCESS_ERR, and nothing of the server's buffer (nor, for the
 * read, of the client's destination) may be written.  The out-of-bounds
 * ones start 2 MTUs before the end of the server's MR and run 64 bytes past
 * it, so a responder that checks only each packet (not the whole RETH
 * range at the first one) writes the first two packets and is caught.
 */
void bad_rkey_client(struct ctx *c)
{
	printf("# bad_rkey: RDMA_WRITE of 64 bytes with rkey 0x%x (the server's is 0x%x)\n",
	       c->peer.rkey ^ 0xff00, c->peer.rkey);
	if (!post_one(c, IBV_WR_RDMA_WRITE, 1, MODE_OFF, 64,
		      c->peer.addr + MODE_OFF, c->peer.rkey ^ 0xff00))
		expect_status(c, "RDMA_WRITE with a wrong rkey", 1,
			      IBV_WC_REM_ACCESS_ERR);
	print_qp_state(c);
}

static uint32_t oob_len(const struct ctx *c)
{
	return 2 * c->mtu_bytes + 64;
}

static uint64_t oob_addr(const struct ctx *c)
{
	return c->peer.addr + c->peer.len - 2 * c->mtu_bytes;
}

void oob_write_client(struct ctx *c)
{
	printf("# oob_write: RDMA_WRITE of %u bytes at MR end - %u\n",
	       oob_len(c), 2 * c->mtu_bytes);
	if (!post_one(c, IBV_WR_RDMA_WRITE, 1, MODE_OFF, oob_len(c),
		      oob_addr(c), c->peer.rkey))
		expect_status(c, "RDMA_WRITE past the end of the MR", 1,
			      IBV_WC_REM_ACCESS_ERR);
	print_qp_state(c);
}

void oob_read_client(struct ctx *c)
{
	struct seglist s;
	char why[200];

	printf("# oob_read: RDMA_READ of %u bytes at MR end - %u\n",
	       oob_len(c), 2 * c->mtu_bytes);
	one_seg(&s, MODE_OFF, oob_len(c));
	fill_guard(c->buf, s.rstart, s.rend);
	if (!post_one(c, IBV_WR_RDMA_READ, 1, MODE_OFF, oob_len(c),
		      oob_addr(c), c->peer.rkey))
		expect_status(c, "RDMA_READ past the end of the MR", 1,
			      IBV_WC_REM_ACCESS_ERR);
	if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
		fail(ST_MODE, "the refused read wrote the local buffer: %s", why);
	print_qp_state(c);
}

/*
 * destroy_qp: the client streams 4 KiB RDMA WRITEs (64 outstanding, every
 * 16th signaled) until it gets an error completion; 0.5 s after the first
 * WRITE landed in its memory (not after the start: on a loaded host the
 * stream may not have begun by then, and the client would see no write
 * complete) the server destroys its QP, MR, CQs and PD under that stream.  The
 * client's QP (timeout 16, retry_cnt 2) must then fail the oldest write
 * with IBV_WC_RETRY_EXC_ERR, after the destroy (checked with the server's
 * destroy time at MODE-END), and the server must survive.
 */
void destroy_client(struct ctx *c)
{
	uint64_t start = now_ms(), posted = 0, done = 0, flushed = 0, other = 0;
	uint64_t nslots = c->peer.len / STREAM_LEN, err_wr = 0, quiet;
	enum ibv_wc_status err = IBV_WC_SUCCESS;
	bool post_failed = false;
	unsigned spins = 0;
	struct ibv_wc wc[16];
	int n;

	while (err == IBV_WC_SUCCESS) {
		if (now_ms() - start > STREAM_MAX_MS) {
			fail(ST_MODE, "no error completion within %u ms (%" PRIu64
			     " writes completed, server destroyed its QP after ~%u ms)",
			     STREAM_MAX_MS, done, DESTROY_AFTER_MS);
			return;
		}
		while (!post_failed && posted - done < QUEUE_DEPTH) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)(c->buf + MODE_OFF),
				.length = STREAM_LEN,
				.lkey = c->mr->lkey,
			};
			struct ibv_send_wr wr, *bad = NULL;
			int r;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = c->peer.addr +
						 (posted % nslots) * STREAM_LEN;
			wr.wr.rdma.rkey = c->peer.rkey;
			if (posted % STREAM_SIGNAL == STREAM_SIGNAL - 1)
				wr.send_flags = IBV_SEND_SIGNALED;
			r = ibv_post_send(c->qp, &wr, &bad);
			if (r) {
				/* The QP may be in error already: keep polling. */
				printf("# destroy_qp: ibv_post_send of write #%" PRIu64
				       " failed: %s\n", posted, strerror(r));
				post_failed = true;
				break;
			}
			posted++;
		}
		n = ibv_poll_cq(c->scq, 16, wc);
		if (n < 0) {
			fail(ST_MODE, "ibv_poll_cq failed (%d)", n);
			return;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				err = wc[i].status;
				err_wr = wc[i].wr_id;
				break;
			}
			done = wc[i].wr_id + 1;
		}
		if (n == 0 && ++spins > 1000) {	/* soft RoCE needs the CPU too */
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	c->error_ms = now_ms() - start;
	/* Drain the flushed rest until the CQ stays quiet for 1 s. */
	quiet = now_ms();
	while (now_ms() - quiet < 1000) {
		n = ibv_poll_cq(c->scq, 16, wc);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				flushed++;
			else
				other++;
		}
		if (n > 0)
			quiet = now_ms();
		else
			sleep_ms(1);
	}
	printf("# destroy_qp: %" PRIu64 " writes posted, %" PRIu64
	       " completed; first error %s (%d) on write #%" PRIu64 " after %"
	       PRIu64 " ms; then %" PRIu64 " flushed, %" PRIu64 " other\n",
	       posted, done, ibv_wc_status_str(err), err, err_wr, c->error_ms,
	       flushed, other);
	if (err != IBV_WC_RETRY_EXC_ERR)
		fail(ST_MODE, "first error completion %s (%d), expected %s",
		     ibv_wc_status_str(err), err,
		     ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	if (done == 0)
		fail(ST_MODE, "no write completed before the error: the stream never ran");
	print_qp_state(c);
}

void destroy_server(struct ctx *c)
{
	uint64_t start = c->start_ms;
	unsigned char before[64];
	int r;

	/* Slot 0 of the stream is the start of the MR: wait until it changes. */
	memcpy(before, c->buf, sizeof(before));
	while (!memcmp(before, c->buf, sizeof(before)) && now_ms() - start < LANDED_MAX_MS)
		sleep_ms(1);
	printf("# destroy_qp: the first WRITE landed %" PRIu64 " ms after the start%s\n",
	       now_ms() - start, memcmp(before, c->buf, sizeof(before)) ? "" :
	       " (not seen: destroying anyway)");
	sleep_ms(DESTROY_AFTER_MS);
	c->destroy_ms = now_ms() - start;
	printf("# destroy_qp: destroying QP 0x%06x under the client's stream (%"
	       PRIu64 " ms after the start)\n", c->qp->qp_num, c->destroy_ms);
	r = ibv_destroy_qp(c->qp);
	c->qp = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	r = ibv_dereg_mr(c->mr);
	c->mr = NULL;
	if (r)
		fail(ST_MODE, "ibv_dereg_mr: %s", strerror(r));
	r = ibv_destroy_cq(c->rcq);
	c->rcq = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_cq (recv): %s", strerror(r));
	r = ibv_destroy_cq(c->scq);
	c->scq = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_cq (send): %s", strerror(r));
	r = ibv_dealloc_pd(c->pd);
	c->pd = NULL;
	if (r)
		fail(ST_MODE, "ibv_dealloc_pd: %s", strerror(r));
	printf("# destroy_qp: QP, MR, CQs and PD destroyed after %" PRIu64 " ms\n",
	       now_ms() - start);
}

/* Client, after MODE-END: its error must not come before the server's destroy. */
void destroy_post_client(struct ctx *c, uint64_t peer_destroy_ms)
{
	if (c->error_ms + 100 < peer_destroy_ms)
		fail(ST_MODE, "the error completion came %" PRIu64
		     " ms after the start, before the server destroyed its QP (%"
		     PRIu64 " ms): spurious retry exhaustion?", c->error_ms,
		     peer_destroy_ms);
}

/*
 * idle: after the connection, wait until the peer closes the control
 * connection (or this process is killed).  Used to tear the device down
 * while a user context and a connected QP exist.  Returns 1 (no result
 * exchange: the peer is gone) or 0 if the setup failed.
 */
int idle_wait(struct ctx *c)
{
	uint64_t deadline = now_ms() + IDLE_MAX_S * 1000ull;

	if (c->broken) {
		fail(ST_MODE, "not run: setup failed (this side or peer)");
		report(ST_MODE);
		return 0;
	}
	printf("# idle: connected; waiting until the peer closes the control connection or this process is killed\n");
	fflush(stdout);
	for (;;) {
		char b;
		ssize_t n = recv(c->sock, &b, 1, 0);

		if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE))) {
			printf("# idle: the peer closed the control connection\n");
			break;
		}
		if (n > 0) {
			fail(ST_MODE, "unexpected data on the control connection");
			break;
		}
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			fail(ST_MODE, "control connection: %s", strerror(errno));
			break;
		}
		if (now_ms() > deadline) {
			fail(ST_MODE, "the peer did not go away within %d s", IDLE_MAX_S);
			break;
		}
	}
	report(ST_MODE);
	return 1;
}

/*
 * resize_cq: the server's receive CQ is resized while it holds unpolled
 * completions.  8 SENDs land first (CQEs in the original 256-entry ring);
 * a resize below that count must fail and change nothing; resizes to 512
 * and then to 16 must keep the 8 CQEs; 8 more SENDs land in the resized
 * ring.  Then all 16 completions must come out in order, with the right
 * lengths and bytes, and an empty CQ must shrink to 1 entry.
 */
#define RS_BATCH	8
#define RS_SLOT		512	/* receive buffer stride on the server */

static uint32_t rs_len(unsigned k)
{
	return 100 + 13 * k;
}

void resize_client(struct ctx *c)
{
	uint64_t v[1] = { 0 };

	for (unsigned round = 0; round < 2 && !c->broken; round++) {
		if (msg_recv(c, round ? "RESIZED" : "POSTED", v, 1, NULL)) {
			c->broken = true;
			return;
		}
		for (unsigned k = round * RS_BATCH; k < (round + 1) * RS_BATCH; k++) {
			if (post_one(c, IBV_WR_SEND, k, MODE_OFF, rs_len(k), 0, 0))
				break;
			expect_status(c, "SEND", k, IBV_WC_SUCCESS);
		}
		if (msg_send(c, "SENT", v, 1, NULL))
			c->broken = true;
	}
}

static int rs_resize(struct ctx *c, int cqe, bool must_work)
{
	int r = ibv_resize_cq(c->rcq, cqe);

	printf("# resize_cq to %d: %s (cq->cqe now %d)\n", cqe,
	       r ? strerror(r) : "ok", c->rcq->cqe);
	if (must_work && r)
		fail(ST_MODE, "ibv_resize_cq(%d) with %d CQEs queued: %s", cqe,
		     RS_BATCH, strerror(r));
	if (!must_work && !r)
		fail(ST_MODE, "ibv_resize_cq(%d) succeeded with %d CQEs queued",
		     cqe, RS_BATCH);
	if (!r && c->rcq->cqe < cqe)
		fail(ST_MODE, "ibv_resize_cq(%d): cq->cqe %d is smaller", cqe,
		     c->rcq->cqe);
	return r;
}

void resize_server(struct ctx *c)
{
	uint64_t seed = mode_seed(c, 0);
	struct seglist s[2 * RS_BATCH];
	uint64_t v[1] = { 0 };
	struct ibv_wc wc;
	char why[200];
	int before;

	for (unsigned k = 0; k < 2 * RS_BATCH; k++)
		one_seg(&s[k], MODE_OFF + (uint64_t)k * RS_SLOT, RS_SLOT - 64);
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned k = round * RS_BATCH; k < (round + 1) * RS_BATCH; k++)
			if (post_recv(c, ST_MODE, k, &s[k], 1))
				return;
		if (msg_send(c, round ? "RESIZED" : "POSTED", v, 1, NULL) ||
		    msg_recv(c, "SENT", v, 1, NULL)) {
			c->broken = true;
			return;
		}
		if (round)
			break;
		before = c->rcq->cqe;
		if (rs_resize(c, RS_BATCH / 2, false) && c->rcq->cqe != before)
			fail(ST_MODE, "the refused resize changed cq->cqe from %d to %d",
			     before, c->rcq->cqe);
		rs_resize(c, 512, true);
		rs_resize(c, 2 * RS_BATCH, true);
	}
	for (unsigned k = 0; k < 2 * RS_BATCH; k++) {
		char what[64];

		snprintf(what, sizeof(what), "receive %u", k);
		if (expect_wc(c, c->rcq, ST_MODE, what, k, IBV_WC_RECV, &wc) < 0)
			return;
		if (wc.byte_len != rs_len(k))
			fail(ST_MODE, "%s: byte_len %u, expected %u", what,
			     wc.byte_len, rs_len(k));
		if (verify_region(c->buf, &s[k], seed, rs_len(k), why, sizeof(why)))
			fail(ST_MODE, "%s: %s", what, why);
	}
	if (ibv_poll_cq(c->rcq, 1, &wc) != 0)
		fail(ST_MODE, "a 17th completion (wr_id %" PRIu64 ")", wc.wr_id);
	rs_resize(c, 1, true);
}

/*
 * hostile: the user side of sroce's shared rings misbehaves (server).
 *  1. A SEND from the client lands intact in a posted receive.  (The
 *     send ring is the requester's, tested on its own.)
 *  2. A posted receive WQE is rewritten in the mapped ring (num_sge
 *     0x7fffffff) before the client's SEND reaches it.  The responder must
 *     validate its copy: that WQE completes with IBV_WC_LOC_QP_OP_ERR and
 *     the one posted after it with IBV_WC_WR_FLUSH_ERR (the QP is in
 *     Error, and says so), the client gets IBV_WC_REM_OP_ERR, and no byte
 *     of the server's buffer changes but the first SEND's.
 */
#define HOSTILE_WR	UINT64_C(0x5eed0000c0ffee00)

/* The slot of the receive WQE with this wr_id in a mapped uverbs ring. */
static uint8_t *find_ring_wqe(uint64_t wr_id, unsigned *hits)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uint8_t *found = NULL;
	char line[512];

	*hits = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[8];

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r' ||
		    perm[1] != 'w')
			continue;
		for (unsigned long a = lo; a + sizeof(struct rxe_recv_wqe) <= hi; a += 8) {
			uint64_t v;

			memcpy(&v, (void *)a, sizeof(v));
			if (v == wr_id) {
				found = (uint8_t *)a;
				(*hits)++;
			}
		}
	}
	fclose(f);
	return found;
}

void hostile_client(struct ctx *c)
{
	uint64_t v[1] = { 0 };

	if (msg_recv(c, "STEP1", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0))
		expect_status(c, "SEND into the posted receive", 1, IBV_WC_SUCCESS);
	if (msg_send(c, "SENT", v, 1, NULL) || msg_recv(c, "STEP2", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!post_one(c, IBV_WR_SEND, 2, MODE_OFF, 64, 0, 0))
		expect_status(c, "SEND into the rewritten receive WQE", 2, IBV_WC_REM_OP_ERR);
	if (msg_send(c, "SENT", v, 1, NULL))
		c->broken = true;
}

void hostile_server(struct ctx *c)
{
	uint64_t v[1] = { 0 };
	struct seglist s[3];
	unsigned hits;
	uint8_t *slot;
	uint32_t evil = 0x7fffffff;
	char why[200];

	for (unsigned k = 0; k < 3; k++)
		one_seg(&s[k], MODE_OFF + 4096 * (uint64_t)k, 256);
	if (post_recv(c, ST_MODE, HOSTILE_WR, &s[0], 1))
		return;
	if (msg_send(c, "STEP1", v, 1, NULL) || msg_recv(c, "SENT", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	expect_completion(c, c->rcq, "receive of the first SEND", HOSTILE_WR,
			  IBV_WC_SUCCESS);
	if (verify_region(c->buf, &s[0], mode_seed(c, 0), 100, why, sizeof(why)))
		fail(ST_MODE, "the SEND after the doorbell: %s", why);

	if (post_recv(c, ST_MODE, HOSTILE_WR + 1, &s[1], 1) ||
	    post_recv(c, ST_MODE, HOSTILE_WR + 2, &s[2], 1))
		return;
	slot = find_ring_wqe(HOSTILE_WR + 1, &hits);
	if (!slot || hits != 1) {
		fail(ST_MODE, "receive WQE 0x%" PRIx64 " found %u times in the mapped rings",
		     HOSTILE_WR + 1, hits);
		c->broken = true;
	} else {
		memcpy(slot + offsetof(struct rxe_recv_wqe, dma.num_sge), &evil, sizeof(evil));
		printf("# rewrote num_sge of the posted receive WQE to 0x%x\n", evil);
	}
	if (msg_send(c, "STEP2", v, 1, NULL) || msg_recv(c, "SENT", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	expect_completion(c, c->rcq, "the rewritten receive WQE", HOSTILE_WR + 1,
			  IBV_WC_LOC_QP_OP_ERR);
	expect_completion(c, c->rcq, "the receive behind it", HOSTILE_WR + 2, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "the bad WQE");
	/* Only the first SEND's 100 bytes may have changed. */
	fill_guard(c->buf, MODE_OFF, MODE_OFF + 100);
	check_untouched(c, "after the rewritten WQE");
}

/*
 * mr_access: the server registers a second MR with LOCAL_WRITE and
 * REMOTE_READ only.  An RDMA_READ of it must work (and return its bytes);
 * an RDMA_WRITE to it must fail with IBV_WC_REM_ACCESS_ERR, writing
 * nothing: MR access flags are enforced, not only the QP's.
 */
#define MR2_LEN		4096

void mr_access_client(struct ctx *c)
{
	uint64_t v[2];
	struct seglist s;
	char why[200];

	if (msg_recv(c, "MR2", v, 2, NULL)) {
		c->broken = true;
		return;
	}
	one_seg(&s, 2 * MODE_SRC_LEN, 64);
	fill_guard(c->buf, s.rstart, s.rend);
	if (!post_one(c, IBV_WR_RDMA_READ, 1, 2 * MODE_SRC_LEN, 64, v[0], (uint32_t)v[1]))
		expect_status(c, "RDMA_READ of the read-only MR", 1, IBV_WC_SUCCESS);
	if (verify_region(c->buf, &s, mode_seed(c, 1), 64, why, sizeof(why)))
		fail(ST_MODE, "RDMA_READ of the read-only MR: %s", why);
	if (!post_one(c, IBV_WR_RDMA_WRITE, 2, MODE_OFF, 64, v[0] + 128, (uint32_t)v[1]))
		expect_status(c, "RDMA_WRITE to the read-only MR", 2, IBV_WC_REM_ACCESS_ERR);
	if (msg_send(c, "DONE", v, 1, NULL))
		c->broken = true;
}

void mr_access_server(struct ctx *c)
{
	uint64_t seed = mode_seed(c, 1);
	uint8_t *buf = aligned_alloc(4096, MR2_LEN);
	struct ibv_mr *mr = NULL;
	uint64_t v[2] = { 0, 0 };
	int r;

	if (buf) {
		for (unsigned i = 0; i < MR2_LEN; i++)
			buf[i] = i < 64 ? pat_byte(seed, i) : guard_byte(i);
		mr = ibv_reg_mr(c->pd, buf, MR2_LEN,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	}
	if (!mr)
		fail(ST_MODE, "ibv_reg_mr (read-only, %d bytes): %s", MR2_LEN, strerror(errno));
	else
		v[0] = (uintptr_t)buf, v[1] = mr->rkey;
	if (msg_send(c, "MR2", v, 2, NULL) || msg_recv(c, "DONE", v, 1, NULL))
		c->broken = true;
	for (unsigned i = 64; buf && i < MR2_LEN; i++) {
		if (buf[i] != guard_byte(i)) {
			fail(ST_MODE, "byte %u of the read-only MR was written", i);
			break;
		}
	}
	if (mr && (r = ibv_dereg_mr(mr)))
		fail(ST_MODE, "ibv_dereg_mr (read-only): %s", strerror(r));
	free(buf);
}
