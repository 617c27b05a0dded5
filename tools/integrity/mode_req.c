// SPDX-License-Identifier: GPL-2.0
/*
 * mode_req.c - requester error modes: the client's requester is the one
 * under test.  The hostile send ring modes (sq_*) are in mode_sq.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrity.h"

/*
 * In these modes the device under test is the client's (its requester and
 * completer); the server is any RC responder (stock rxe or sroce).  Each
 * mode ends the client's QP in Error, so each is one process pair.  The
 * client's counters and trace events are checked by the caller
 * (tools/testvm/req-errors-guest.sh).
 *
 *   retry_exc        the server destroys its QP (a silent peer); SEND,
 *                    WRITE, SEND posted: RETRY_EXC_ERR after about
 *                    4.096 us * 2^timeout * (retry_cnt + 1), the rest
 *                    WR_FLUSH_ERR, and a WR posted after that, to the QP in
 *                    Error, WR_FLUSH_ERR too
 *   rnr_timer        as rnr, with the server's min_rnr_timer 26 (81.92 ms):
 *                    the caller checks the gaps NAK -> retry in the trace
 *   rnr_exc          rnr_retry 1, no receive ever posted: RNR_RETRY_EXC_ERR
 *                    after at least one RNR wait, the next WR flushed
 *   bad_lkey         SEND with a wrong lkey: LOC_PROT_ERR, nothing sent
 *   read_mr_range    READ whose local SGE runs 32 bytes past the end of its
 *                    MR (the "too small READ buffer" verbs can express: the
 *                    requested length is the SGE sum, so the response always
 *                    fits the SGEs; what can be too small is the MR under
 *                    them): LOC_PROT_ERR, nothing sent or written
 *   read_no_lwrite   READ into an MR without IBV_ACCESS_LOCAL_WRITE:
 *                    LOC_PROT_ERR, nothing written
 *   atomic_short     FETCH_ADD whose local SGE is 4 bytes (the 8-byte
 *                    result does not fit): LOC_LEN_ERR, nothing sent
 *   atomic_unaligned FETCH_ADD at a remote VA that is not 8-byte aligned:
 *                    the responder NAKs it (Invalid Request, C9-121):
 *                    REM_INV_REQ_ERR, the server's buffer unchanged
 *                    (librxe refuses both atomics at post time, so they are
 *                    written into the SQ ring by hand: ring_atomic())
 *   sq_num_sge, sq_opcode, sq_length, sq_lkey, sq_inline, sq_prod
 *                    hostile userspace on the send ring, see sq_client()
 *   destroy_armed    the server destroys its QP; the client posts WRITEs
 *                    (timeout 16, retry_cnt 7), waits until retransmits
 *                    have happened and the timer is armed again, then
 *                    destroys its QP: must return promptly
 *   armed            as destroy_armed up to "# armed: sends in flight", then
 *                    the client waits to be killed (the caller then deletes
 *                    the device and unloads the module)
 *   wedged           4 KiB WRITEs stream to a live server over a slow
 *                    link (the caller's netem qdisc lets 8 packets go
 *                    every 10 ms and keeps 64 of the requester's in the IP
 *                    stack, so that it holds back); after "# wedged:
 *                    streaming" the caller stops the link (one packet per
 *                    1000 s).
 *                    The oldest WRITE must fail with RETRY_EXC_ERR, the
 *                    rest be flushed, and ibv_destroy_qp return within 5 s
 *                    with the packets still in the qdisc; then
 *                    "# wedged: QP destroyed", and the caller lets the
 *                    link go for the mode's end over TCP
 */
#define ARMED_WRITES	8	/* destroy_armed, armed: WRITEs in flight */
#define ARMED_WAIT_MS	700
#define WEDGED_DEPTH	48	/* wedged: WRITEs outstanding */
#define WEDGED_LEN	4096
#define WEDGED_WARM	64	/* completions before "# wedged: streaming" */
#define WEDGED_WAIT_MS	60000	/* for the caller to stop the link */

/* The server side of the silent peer: its QP is destroyed, then "GONE". */
void silent_server(struct ctx *c)
{
	int r = ibv_destroy_qp(c->qp);

	c->qp = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	else
		printf("# %s: server QP destroyed; the client's requests go unanswered\n",
		       c->mode->name);
	if (msg_send(c, "GONE", (uint64_t[]){ 0 }, 1, NULL))
		c->broken = true;
}

static int wait_gone(struct ctx *c)
{
	uint64_t v;

	if (msg_recv(c, "GONE", &v, 1, NULL)) {
		c->broken = true;
		return -1;
	}
	return 0;
}

void retry_exc_client(struct ctx *c)
{
	struct conn_params p = conn_params(c);
	double want = 4.096e-3 * (double)(1u << p.timeout) * (p.retry_cnt + 1);
	uint64_t t0, dt;
	struct ibv_wc wc;

	if (wait_gone(c))
		return;
	t0 = now_ms();
	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0) ||
	    post_one(c, IBV_WR_RDMA_WRITE, 2, MODE_OFF, 3000, c->peer.addr + MODE_OFF,
		     c->peer.rkey) ||
	    post_one(c, IBV_WR_SEND, 3, MODE_OFF, 10, 0, 0))
		return;
	if (poll_one(c, c->scq, ST_MODE, "SEND to the silent peer", &wc))
		return;
	dt = now_ms() - t0;
	printf("# retry_exc: first completion after %" PRIu64 " ms: wr_id %" PRIu64
	       " status %s; expected ~%.0f ms (timeout %u, retry_cnt %u)\n",
	       dt, wc.wr_id, ibv_wc_status_str(wc.status), want, p.timeout, p.retry_cnt);
	if (wc.wr_id != 1 || wc.status != IBV_WC_RETRY_EXC_ERR)
		fail(ST_MODE, "first completion wr_id %" PRIu64 " status %s, expected wr_id 1 %s",
		     wc.wr_id, ibv_wc_status_str(wc.status),
		     ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	else
		printf("RETRY-EXC elapsed_ms=%" PRIu64 " expected_ms=%.0f\n", dt, want);
	/* Timers may fire late under TCG, never early. */
	if (dt + 5 < want * 0.9 || dt > want * 4 + 2000)
		fail(ST_MODE, "RETRY_EXC_ERR after %" PRIu64 " ms, expected %.0f ms (0.9x..4x+2s)",
		     dt, want);
	expect_status(c, "WRITE behind the failed SEND", 2, IBV_WC_WR_FLUSH_ERR);
	expect_status(c, "SEND behind it", 3, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "retry exhaustion");
	if (!post_one(c, IBV_WR_SEND, 4, MODE_OFF, 10, 0, 0))
		expect_status(c, "SEND posted to the QP in Error", 4, IBV_WC_WR_FLUSH_ERR);
}

void rnr_exc_client(struct ctx *c)
{
	uint64_t t0 = now_ms(), dt;

	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0) ||
	    post_one(c, IBV_WR_SEND, 2, MODE_OFF, 10, 0, 0))
		return;
	expect_status(c, "SEND that never finds a receive", 1, IBV_WC_RNR_RETRY_EXC_ERR);
	dt = now_ms() - t0;
	printf("# rnr_exc: RNR_RETRY_EXC_ERR after %" PRIu64 " ms (rnr_retry %u, RNR timer %.2f ms)\n",
	       dt, RNR_EXC_RETRY, RNR_TIMER_MS);
	if (dt + 5 < RNR_EXC_RETRY * RNR_TIMER_MS)
		fail(ST_MODE, "RNR_RETRY_EXC_ERR after %" PRIu64 " ms, before %u RNR wait(s) of %.2f ms",
		     dt, RNR_EXC_RETRY, RNR_TIMER_MS);
	expect_status(c, "SEND behind it", 2, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "RNR retry exhaustion");
}

/*
 * The local errors (bad_lkey, read_mr_range, read_no_lwrite, atomic_short,
 * atomic_unaligned): one bad WR (wr_id 1), posted by the mode's function,
 * must complete with e->want and the good WR behind it be flushed; nothing
 * may leave the client, nothing be written.
 */
struct local_err {
	const char *what;
	enum ibv_wc_status want;
	enum ibv_wr_opcode fop;		/* the good WR's: SEND, or else a READ */
	uint8_t *dst;			/* guard-filled local target */
	uint8_t *buf2;			/* read_no_lwrite: its MR's buffer */
	struct ibv_mr *mr2;
};

/* Post the bad WR of a local error mode; 0 if it was posted. */
typedef int bad_wr_fn(struct ctx *c, struct local_err *e);

static void local_err_client(struct ctx *c, bad_wr_fn *post_bad)
{
	struct local_err e = {
		.what = "?",
		.want = IBV_WC_LOC_PROT_ERR,
		.fop = IBV_WR_SEND,
		.dst = c->buf + 2 * MODE_SRC_LEN,
	};
	struct seglist s;
	char why[200];
	int r = post_bad(c, &e);

	if (!r) {
		/* A good WR behind the bad one: flushed. */
		if (e.fop == IBV_WR_SEND)
			r = post_wr(c, c->qp, e.fop, 2, c->buf + MODE_OFF, 16, c->mr->lkey, 0, 0);
		else	/* a READ: librxe refuses bad atomics itself */
			r = post_wr(c, c->qp, IBV_WR_RDMA_READ, 2, e.dst + 64, 8, c->mr->lkey,
				    c->peer.addr + 8192, c->peer.rkey);
		expect_status(c, e.what, 1, e.want);
		if (!r)
			expect_status(c, "the good WR behind it", 2, IBV_WC_WR_FLUSH_ERR);
		expect_qp_error(c, e.what);
	}
	/* Nothing landed anywhere locally. */
	one_seg(&s, 2 * MODE_SRC_LEN, 128);
	if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
		fail(ST_MODE, "the refused WR wrote the local buffer: %s", why);
	one_seg(&s, c->buf_len - 64, 48);
	if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
		fail(ST_MODE, "the refused READ wrote the end of the local MR: %s", why);
	if (e.buf2) {
		one_seg(&s, 64, 64);
		if (verify_region(e.buf2, &s, 0, 0, why, sizeof(why)))
			fail(ST_MODE, "the refused READ wrote the MR without local write: %s", why);
	}
	if (e.mr2 && (r = ibv_dereg_mr(e.mr2)))
		fail(ST_MODE, "ibv_dereg_mr: %s", strerror(r));
	free(e.buf2);
}

static int bad_lkey_post(struct ctx *c, struct local_err *e)
{
	e->what = "SEND with a wrong lkey";
	printf("# bad_lkey: SEND of 64 bytes with lkey 0x%x (the MR's is 0x%x)\n",
	       c->mr->lkey ^ 0x5a00, c->mr->lkey);
	return post_wr(c, c->qp, IBV_WR_SEND, 1, c->buf + MODE_OFF, 64,
		       c->mr->lkey ^ 0x5a00, 0, 0);
}

static int read_mr_range_post(struct ctx *c, struct local_err *e)
{
	e->what = "READ into an SGE running past its MR";
	e->fop = IBV_WR_RDMA_READ;
	printf("# read_mr_range: RDMA_READ of 64 bytes into the last 32 bytes of the local MR and 32 past it\n");
	return post_wr(c, c->qp, IBV_WR_RDMA_READ, 1, c->buf + c->buf_len - 32, 64,
		       c->mr->lkey, c->peer.addr + MODE_OFF, c->peer.rkey);
}

static int read_no_lwrite_post(struct ctx *c, struct local_err *e)
{
	e->what = "READ into an MR without local write";
	e->fop = IBV_WR_RDMA_READ;
	e->buf2 = aligned_alloc(4096, 4096);
	if (e->buf2) {
		fill_guard(e->buf2, 0, 4096);
		e->mr2 = ibv_reg_mr(c->pd, e->buf2, 4096, 0);
	}
	if (!e->mr2) {
		fail(ST_MODE, "ibv_reg_mr (4096 bytes, no access flags): %s", strerror(errno));
		return -1;
	}
	printf("# read_no_lwrite: RDMA_READ of 64 bytes into MR lkey 0x%x (access 0)\n",
	       e->mr2->lkey);
	return post_wr(c, c->qp, IBV_WR_RDMA_READ, 1, e->buf2 + 64, 64, e->mr2->lkey,
		       c->peer.addr + MODE_OFF, c->peer.rkey);
}

static int atomic_short_post(struct ctx *c, struct local_err *e)
{
	e->what = "FETCH_ADD with a 4-byte local SGE";
	e->want = IBV_WC_LOC_LEN_ERR;
	e->fop = IBV_WR_ATOMIC_FETCH_AND_ADD;
	printf("# atomic_short: FETCH_ADD whose result SGE is 4 bytes\n");
	return ring_atomic(c, e->dst, 4, c->peer.addr + 8192);
}

static int atomic_unaligned_post(struct ctx *c, struct local_err *e)
{
	e->what = "FETCH_ADD at an unaligned remote VA";
	e->want = IBV_WC_REM_INV_REQ_ERR;
	e->fop = IBV_WR_ATOMIC_FETCH_AND_ADD;
	printf("# atomic_unaligned: FETCH_ADD at server VA 0x%" PRIx64 " (VA %% 8 = %u)\n",
	       c->peer.addr + MODE_OFF, (unsigned)((c->peer.addr + MODE_OFF) & 7));
	return ring_atomic(c, e->dst, 8, c->peer.addr + MODE_OFF);
}

void bad_lkey_client(struct ctx *c)
{
	local_err_client(c, bad_lkey_post);
}

void read_mr_range_client(struct ctx *c)
{
	local_err_client(c, read_mr_range_post);
}

void read_no_lwrite_client(struct ctx *c)
{
	local_err_client(c, read_no_lwrite_post);
}

void atomic_short_client(struct ctx *c)
{
	local_err_client(c, atomic_short_post);
}

void atomic_unaligned_client(struct ctx *c)
{
	local_err_client(c, atomic_unaligned_post);
}

/* destroy_armed (client): destroy the QP with WRITEs in flight, timer armed. */
void destroy_armed_client(struct ctx *c)
{
	uint64_t t0;
	int r;

	if (wait_gone(c))
		return;
	for (unsigned k = 0; k < ARMED_WRITES; k++)
		if (post_one(c, IBV_WR_RDMA_WRITE, k + 1, MODE_OFF, 4096,
			     c->peer.addr + MODE_OFF, c->peer.rkey))
			return;
	sleep_ms(ARMED_WAIT_MS);
	print_qp_state(c);
	t0 = now_ms();
	r = ibv_destroy_qp(c->qp);
	if (!r)
		c->qp = NULL;
	printf("# destroy_armed: ibv_destroy_qp with %u WRITEs in flight took %" PRIu64 " ms\n",
	       ARMED_WRITES, now_ms() - t0);
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	else if (now_ms() - t0 > 5000)
		fail(ST_MODE, "ibv_destroy_qp took %" PRIu64 " ms", now_ms() - t0);
}

static int wedged_post(struct ctx *c, uint64_t wr_id)
{
	return post_one(c, IBV_WR_RDMA_WRITE, wr_id, MODE_OFF, WEDGED_LEN,
			c->peer.addr + MODE_OFF, c->peer.rkey);
}

/* wedged (client): a stream of WRITEs whose link stops under it. */
void wedged_client(struct ctx *c)
{
	struct conn_params p = conn_params(c);
	uint64_t posted = 0, done = 0, t_stop = 0, t0;
	struct ibv_wc wc;
	int r;

	while (posted < WEDGED_DEPTH)
		if (wedged_post(c, ++posted))
			return;
	for (;;) {
		if (poll_one(c, c->scq, ST_MODE, "a WRITE of the stream", &wc))
			return;
		if (wc.status != IBV_WC_SUCCESS)
			break;
		if (wc.wr_id != done + 1) {
			fail(ST_MODE, "WRITE wr_id %" PRIu64 " completed, expected %" PRIu64,
			     wc.wr_id, done + 1);
			return;
		}
		if (++done == WEDGED_WARM) {
			printf("# wedged: streaming, %u WRITEs of %u bytes outstanding\n",
			       WEDGED_DEPTH, WEDGED_LEN);
			fflush(stdout);
			t_stop = now_ms();
		}
		if (t_stop && now_ms() - t_stop > WEDGED_WAIT_MS) {
			fail(ST_MODE, "WRITEs still complete %u ms after the link was to stop",
			     WEDGED_WAIT_MS);
			return;
		}
		if (wedged_post(c, ++posted))
			return;
	}
	printf("# wedged: first failed WRITE wr_id %" PRIu64 " status %s after %" PRIu64
	       " good ones, %" PRIu64 " ms after streaming (timeout %u, retry_cnt %u)\n",
	       wc.wr_id, ibv_wc_status_str(wc.status), done, t_stop ? now_ms() - t_stop : 0,
	       p.timeout, p.retry_cnt);
	if (!t_stop || wc.wr_id != done + 1 || wc.status != IBV_WC_RETRY_EXC_ERR)
		fail(ST_MODE, "first failed WRITE wr_id %" PRIu64 " status %s, expected wr_id %"
		     PRIu64 " %s after the link stopped", wc.wr_id, ibv_wc_status_str(wc.status),
		     done + 1, ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	for (uint64_t k = wc.wr_id + 1; k <= posted; k++)
		expect_status(c, "a WRITE behind the failed one", k, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "retry exhaustion on a stopped link");
	t0 = now_ms();
	r = ibv_destroy_qp(c->qp);
	if (!r)
		c->qp = NULL;
	printf("# wedged: ibv_destroy_qp with the link stopped took %" PRIu64 " ms\n",
	       now_ms() - t0);
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	else if (now_ms() - t0 > 5000)
		fail(ST_MODE, "ibv_destroy_qp took %" PRIu64 " ms", now_ms() - t0);
	printf("# wedged: QP destroyed\n");
	fflush(stdout);
}

/* armed: before MODE-START; ends like idle (the client is killed). */
int armed_run(struct ctx *c)
{
	if (c->broken)
		return idle_wait(c);
	if (c->server) {
		silent_server(c);
	} else if (!wait_gone(c)) {
		for (unsigned k = 0; k < ARMED_WRITES; k++)
			if (post_one(c, IBV_WR_RDMA_WRITE, k + 1, MODE_OFF, 4096,
				     c->peer.addr + MODE_OFF, c->peer.rkey))
				break;
		sleep_ms(ARMED_WAIT_MS);
		if (!c->broken)
			printf("# armed: sends in flight, retransmit timer armed\n");
		fflush(stdout);
	}
	return idle_wait(c);
}
