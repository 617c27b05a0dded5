// SPDX-License-Identifier: GPL-2.0
/*
 * mode_resp.c - error-path modes around a responder: rnr, bad_rkey,
 * oob_write, oob_read, destroy_qp and idle (tools/testvm/errors-guest.sh
 * runs them with the server's responder under test, req-errors-guest.sh
 * several of them with the client's requester under test), and
 * rnr_timer, which shares rnr's code and is a requester mode
 * (req-errors-guest.sh).  resize_cq, hostile and mr_access, the modes on
 * a responder's CQ, receive ring and MRs, are in mode_resp_res.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

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
