// SPDX-License-Identifier: GPL-2.0
/*
 * mode_resp_res.c - error-path modes on a responder's resources:
 * resize_cq (its receive CQ), hostile (its receive ring, rewritten by the
 * user) and mr_access (an MR's access flags).  As mode_resp.c's modes,
 * errors-guest.sh runs them with the server's responder under test, and
 * req-errors-guest.sh mr_access with the client's requester under test.
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

#include <rdma/rdma_user_rxe.h>

#include "integrity.h"

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
