// SPDX-License-Identifier: GPL-2.0
/*
 * mode_sq.c - the requester error modes that write into the mapped send
 * ring themselves (sq_num_sge, sq_opcode, sq_length, sq_lkey, sq_inline,
 * sq_prod, and the ATOMICs librxe refuses: ring_atomic()), and the
 * witness QP pair that must survive them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>	/* before rdma_user_rxe.h's linux/in.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "integrity.h"

/*
 * Hostile userspace on the send ring (client).  A marker SEND goes through
 * librxe; its slot tells where the SQ ring (struct rxe_queue_buf: three
 * 128-byte header lines, then the slots) is mapped.  Then the client
 * writes a WQE into the next slot itself, rewritten as the mode says,
 * moves the producer index, and lets librxe post one good SEND behind it
 * (whose doorbell makes the kernel fetch both):
 *   sq_num_sge  dma.num_sge 0x7fffffff             -> LOC_QP_OP_ERR
 *   sq_opcode   wr.opcode 0x7f                     -> LOC_QP_OP_ERR
 *   sq_length   first a WQE whose dma.length is 0xffffffff (ignored: the
 *               length is the SGE sum; it must arrive, 64 bytes), then one
 *               whose two SGE lengths, 0x80000000 + 0x80000040, sum past
 *               2^32 (0x40 if summed in 32 bits)   -> LOC_LEN_ERR
 *   sq_lkey     sge[0].lkey changed                -> LOC_PROT_ERR
 *   sq_inline   IBV_SEND_INLINE, dma.length 0x7fffffff -> LOC_QP_OP_ERR
 *   sq_prod     SQ_JUMP slots of random bytes (wr_id SQ_JUMP_BASE + k,
 *               opcode >= 0x10) and a producer index of (prod + SQ_JUMP)
 *               with every bit above the index mask set, rung with a raw
 *               doorbell (write() of POST_SEND with no WR, as librxe
 *               does): the first completes LOC_QP_OP_ERR, the rest
 *               WR_FLUSH_ERR, in order
 * Every WQE behind the bad one completes WR_FLUSH_ERR and the QP is in
 * Error.  Then a second QP pair of the same devices (the witness) must
 * still carry a SEND and an RDMA WRITE byte for byte.
 */
#define SQ_MARK		UINT64_C(0x5eed00005a5a0000)
#define SQ_LEN_OK	(SQ_MARK + 1)
#define SQ_HOSTILE	(SQ_MARK + 2)
#define SQ_FOLLOW	(SQ_MARK + 3)
#define SQ_JUMP_BASE	(SQ_MARK + 0x1000)
#define SQ_JUMP		40
#define RING_HDR	384
#define W_RECV_OFF	(MODE_OFF + 3 * 4096)
#define W_WRITE_OFF	(MODE_OFF + 5 * 4096)
#define W_SEND_LEN	200
#define W_WRITE_LEN	300

struct sq_ring {
	uint8_t *base;
	uint32_t mask, elem;
};

static uint32_t *ring_prod(const struct sq_ring *r)
{
	return (uint32_t *)(r->base + 128);
}

static uint8_t *ring_slot(const struct sq_ring *r, uint32_t i)
{
	return r->base + RING_HDR + (size_t)(i & r->mask) * r->elem;
}

/* Find the mapped SQ ring holding the send WQE wr_id (a 1-SGE op). */
static int find_sq_ring(struct ctx *c, uint64_t wr_id, enum ibv_wr_opcode op,
			struct sq_ring *ring)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned hits = 0;
	char line[512];

	if (!f) {
		fail(ST_MODE, "/proc/self/maps: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		uint32_t log2, mask;
		char perm[8];

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r' ||
		    perm[1] != 'w' || hi - lo < RING_HDR + 64)
			continue;
		memcpy(&log2, (void *)lo, 4);
		memcpy(&mask, (void *)(lo + 4), 4);
		if (log2 < 6 || log2 > 16 || mask == 0 || (mask & (mask + 1)) ||
		    RING_HDR + ((uint64_t)mask + 1) * (1u << log2) > hi - lo ||
		    (1u << log2) < sizeof(struct rxe_send_wqe) + MAX_SEG * sizeof(struct rxe_sge))
			continue;
		for (uint32_t i = 0; i <= mask; i++) {
			struct rxe_send_wqe *w = (void *)(lo + RING_HDR + ((size_t)i << log2));

			if (w->wr.wr_id == wr_id && w->wr.opcode == op &&
			    w->dma.num_sge == 1 && w->dma.sge[0].lkey == c->mr->lkey) {
				ring->base = (uint8_t *)lo;
				ring->mask = mask;
				ring->elem = 1u << log2;
				hits++;
			}
		}
	}
	fclose(f);
	if (hits != 1) {
		fail(ST_MODE, "send WQE 0x%" PRIx64 " found %u times in the mapped rings",
		     wr_id, hits);
		return -1;
	}
	printf("# SQ ring at %p: %u slots of %u bytes, producer %u, consumer %u\n",
	       (void *)ring->base, ring->mask + 1, ring->elem,
	       __atomic_load_n(ring_prod(ring), __ATOMIC_ACQUIRE),
	       __atomic_load_n((uint32_t *)(ring->base + 256), __ATOMIC_ACQUIRE));
	return 0;
}

/* Write @w into the slot at the producer index and publish it. */
static void ring_push(const struct sq_ring *r, const void *w)
{
	uint32_t prod = __atomic_load_n(ring_prod(r), __ATOMIC_RELAXED);

	memcpy(ring_slot(r, prod), w, r->elem);
	__atomic_store_n(ring_prod(r), (prod + 1) & r->mask, __ATOMIC_RELEASE);
}

/* librxe's doorbell: POST_SEND with no WR through the command fd. */
static int raw_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} m;
	struct ib_uverbs_post_send_resp resp;

	memset(&m, 0, sizeof(m));
	memset(&resp, 0, sizeof(resp));
	m.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	m.hdr.in_words = sizeof(m) / 4;
	m.hdr.out_words = sizeof(resp) / 4;
	m.cmd.response = (uintptr_t)&resp;
	m.cmd.qp_handle = qp->handle;
	m.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return errno ? errno : EIO;
	return 0;
}

struct witness {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* A second connected QP pair on the same devices, PD and MR. */
static int witness_setup(struct ctx *c, struct witness *w)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	uint64_t mine[3], peer[3];
	uint32_t psn = (c->psn + 0x4000) & 0xffffff;
	int r;

	memset(w, 0, sizeof(*w));
	w->cq = ibv_create_cq(c->dev, 16, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = w->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	w->qp = w->cq ? ibv_create_qp(c->pd, &ia) : NULL;
	if (!w->qp) {
		fail(ST_MODE, "witness QP: ibv_create_%s: %s", w->cq ? "qp" : "cq",
		     strerror(errno));
		c->broken = true;
	} else {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = c->ib_port;
		a.qp_access_flags = c->server ?
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0;
		r = ibv_modify_qp(w->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (r) {
			fail(ST_MODE, "witness QP to INIT: %s", strerror(r));
			c->broken = true;
		}
	}
	mine[0] = w->qp ? w->qp->qp_num : 0;
	mine[1] = c->broken;
	mine[2] = psn;
	if (msg_send(c, "WITNESS", mine, 3, NULL) || msg_recv(c, "WITNESS", peer, 3, NULL))
		return -1;
	if (c->broken || peer[1]) {
		c->broken = true;
		return 0;
	}
	if (qp_connect(c, w->qp, (uint32_t)peer[0], (uint32_t)peer[2], psn)) {
		fail(ST_MODE, "witness QP: cannot connect");
		c->broken = true;
	} else {
		printf("# witness QP 0x%06x <-> 0x%06x connected\n", w->qp->qp_num,
		       (uint32_t)peer[0]);
	}
	return 0;
}

/* The witness pair still works: a SEND and a WRITE, checked by the server. */
static void witness_check(struct ctx *c, struct witness *w)
{
	uint64_t seed = mode_seed(c, 0), v[1] = { 0 };
	struct ibv_wc wc;
	struct seglist s;
	char why[200];

	if (c->broken)
		return;
	if (!c->server) {
		if (msg_recv(c, "WREADY", v, 1, NULL))
			goto broken;
		if (!post_wr(c, w->qp, IBV_WR_SEND, 100, c->buf + MODE_OFF, W_SEND_LEN,
			     c->mr->lkey, 0, 0))
			expect_completion(c, w->cq, "witness SEND", 100, IBV_WC_SUCCESS);
		if (!post_wr(c, w->qp, IBV_WR_RDMA_WRITE, 101, c->buf + MODE_OFF, W_WRITE_LEN,
			     c->mr->lkey, c->peer.addr + W_WRITE_OFF, c->peer.rkey))
			expect_completion(c, w->cq, "witness RDMA_WRITE", 101, IBV_WC_SUCCESS);
		if (msg_send(c, "WSENT", v, 1, NULL))
			goto broken;
		return;
	}
	one_seg(&s, W_RECV_OFF, 256);
	if (post_recv_qp(c, w->qp, 100, &s))
		return;
	if (msg_send(c, "WREADY", v, 1, NULL) || msg_recv(c, "WSENT", v, 1, NULL))
		goto broken;
	if (expect_wc(c, w->cq, ST_MODE, "witness receive", 100, IBV_WC_RECV, &wc) == 0) {
		if (wc.byte_len != W_SEND_LEN)
			fail(ST_MODE, "witness receive: byte_len %u, expected %u", wc.byte_len,
			     W_SEND_LEN);
		if (verify_region(c->buf, &s, seed, W_SEND_LEN, why, sizeof(why)))
			fail(ST_MODE, "witness SEND: %s", why);
	}
	one_seg(&s, W_WRITE_OFF, W_WRITE_LEN);
	if (verify_region(c->buf, &s, seed, W_WRITE_LEN, why, sizeof(why)))
		fail(ST_MODE, "witness RDMA_WRITE: %s", why);
	else
		printf("# witness QP pair: SEND and RDMA_WRITE arrived intact\n");
	return;
broken:
	c->broken = true;
}

static void witness_destroy(struct witness *w)
{
	int r;

	if (w->qp && (r = ibv_destroy_qp(w->qp)))
		fail(ST_MODE, "witness ibv_destroy_qp: %s", strerror(r));
	if (w->cq && (r = ibv_destroy_cq(w->cq)))
		fail(ST_MODE, "witness ibv_destroy_cq: %s", strerror(r));
}

/*
 * The hostile part of an sq_* mode (client).  t is a copy of the marker
 * WQE, now wr_id SQ_HOSTILE, and ring its SQ ring; the mode rewrites and
 * publishes what it says, and waits for the completions it expects.
 */
typedef void sq_attack_fn(struct ctx *c, struct sq_ring *ring,
			  struct rxe_send_wqe *t);

static void sq_client(struct ctx *c, sq_attack_fn *attack)
{
	struct rxe_send_wqe *t = NULL;
	uint64_t v[1] = { 0 };
	struct sq_ring ring;
	struct ibv_wc wc;

	if (msg_recv(c, "STEP1", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (post_one(c, IBV_WR_SEND, SQ_MARK, MODE_OFF, 64, 0, 0))
		return;
	expect_status(c, "marker SEND through librxe", SQ_MARK, IBV_WC_SUCCESS);
	if (find_sq_ring(c, SQ_MARK, IBV_WR_SEND, &ring))
		goto out;
	t = malloc(ring.elem);
	if (!t) {
		fail(ST_MODE, "out of memory");
		goto out;
	}
	memcpy(t, ring_slot(&ring, __atomic_load_n(ring_prod(&ring), __ATOMIC_ACQUIRE) - 1),
	       ring.elem);
	if (t->wr.wr_id != SQ_MARK) {
		fail(ST_MODE, "the slot before the producer index is not the marker WQE");
		goto out;
	}
	t->wr.wr_id = SQ_HOSTILE;
	attack(c, &ring, t);
	expect_qp_error(c, "the hostile WQE");
	if (ibv_poll_cq(c->scq, 1, &wc) > 0)
		fail(ST_MODE, "an extra completion: wr_id 0x%" PRIx64 " status %s", wc.wr_id,
		     ibv_wc_status_str(wc.status));
out:
	free(t);
	if (msg_send(c, "DONE", v, 1, NULL))
		c->broken = true;
}

/*
 * Publish the rewritten WQE t and let librxe post a good SEND behind it:
 * t must complete with want (after the SQ_LEN_OK WQE before it if
 * len_ok), the good SEND with WR_FLUSH_ERR.
 */
static void sq_rewritten(struct ctx *c, struct sq_ring *ring,
			 struct rxe_send_wqe *t, enum ibv_wc_status want,
			 bool len_ok)
{
	int r;

	ring_push(ring, t);
	printf("# %s: hostile WQE written at slot %u, then a good SEND through librxe\n",
	       c->mode->name, __atomic_load_n(ring_prod(ring), __ATOMIC_RELAXED) - 1);
	r = post_one(c, IBV_WR_SEND, SQ_FOLLOW, MODE_OFF, 32, 0, 0);
	if (len_ok)
		expect_status(c, "WQE with dma.length 0xffffffff (ignored)", SQ_LEN_OK,
			      IBV_WC_SUCCESS);
	expect_status(c, "the rewritten WQE", SQ_HOSTILE, want);
	if (!r)
		expect_status(c, "the good SEND behind it", SQ_FOLLOW, IBV_WC_WR_FLUSH_ERR);
}

static void sq_num_sge_attack(struct ctx *c, struct sq_ring *ring,
			      struct rxe_send_wqe *t)
{
	t->dma.num_sge = 0x7fffffff;
	sq_rewritten(c, ring, t, IBV_WC_LOC_QP_OP_ERR, false);
}

static void sq_opcode_attack(struct ctx *c, struct sq_ring *ring,
			     struct rxe_send_wqe *t)
{
	t->wr.opcode = 0x7f;
	sq_rewritten(c, ring, t, IBV_WC_LOC_QP_OP_ERR, false);
}

static void sq_length_attack(struct ctx *c, struct sq_ring *ring,
			     struct rxe_send_wqe *t)
{
	t->wr.wr_id = SQ_LEN_OK;
	t->dma.length = 0xffffffff;
	ring_push(ring, t);
	t->wr.wr_id = SQ_HOSTILE;
	t->dma.length = 64;
	t->dma.num_sge = 2;
	t->dma.sge[0].length = 0x80000000u;
	t->dma.sge[1] = t->dma.sge[0];
	t->dma.sge[1].length = 0x80000040u;
	sq_rewritten(c, ring, t, IBV_WC_LOC_LEN_ERR, true);
}

static void sq_lkey_attack(struct ctx *c, struct sq_ring *ring,
			   struct rxe_send_wqe *t)
{
	t->dma.sge[0].lkey ^= 0x5a5a00;
	sq_rewritten(c, ring, t, IBV_WC_LOC_PROT_ERR, false);
}

static void sq_inline_attack(struct ctx *c, struct sq_ring *ring,
			     struct rxe_send_wqe *t)
{
	t->wr.send_flags |= IBV_SEND_INLINE;
	t->dma.length = 0x7fffffff;
	sq_rewritten(c, ring, t, IBV_WC_LOC_QP_OP_ERR, false);
}

/* sq_prod: random slots behind a producer index out of range. */
static void sq_prod_attack(struct ctx *c, struct sq_ring *ring,
			   struct rxe_send_wqe *t)
{
	enum ibv_wc_status want;
	uint64_t rng = 0x243f6a8885a308d3ull;
	struct ibv_wc wc;
	uint32_t prod;
	int r;

	(void)t;	/* nothing of the marker is reused */
	prod = __atomic_load_n(ring_prod(ring), __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < SQ_JUMP; k++) {
		uint8_t *slot = ring_slot(ring, prod + k);
		struct rxe_send_wqe *w = (void *)slot;

		for (uint32_t i = 0; i < ring->elem; i += 8) {
			uint64_t x = rng_next(&rng);

			memcpy(slot + i, &x, 8);
		}
		w->wr.wr_id = SQ_JUMP_BASE + k;
		w->wr.opcode = 0x10 + (uint32_t)(rng_next(&rng) % 0xfffff0u);
	}
	__atomic_store_n(ring_prod(ring), (prod + SQ_JUMP) | ~ring->mask,
			 __ATOMIC_RELEASE);
	printf("# sq_prod: producer index %u -> 0x%x (%u slots of random bytes), raw doorbell\n",
	       prod, (prod + SQ_JUMP) | ~ring->mask, SQ_JUMP);
	r = raw_doorbell(c->qp);
	if (r) {
		fail(ST_MODE, "raw doorbell: %s", strerror(r));
	} else {
		for (uint32_t k = 0; k < SQ_JUMP; k++) {
			if (poll_one(c, c->scq, ST_MODE, "a jumped-over slot", &wc))
				break;
			want = k ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_QP_OP_ERR;
			if (wc.wr_id != SQ_JUMP_BASE + k || wc.status != want) {
				fail(ST_MODE, "jumped slot %u: completion wr_id 0x%" PRIx64
				     " status %s, expected wr_id 0x%" PRIx64 " %s", k,
				     wc.wr_id, ibv_wc_status_str(wc.status),
				     SQ_JUMP_BASE + k, ibv_wc_status_str(want));
				break;
			}
		}
		printf("# sq_prod: the %u jumped-over slots completed\n", SQ_JUMP);
	}
	/* Put the producer index back in range for librxe. */
	__atomic_store_n(ring_prod(ring), (prod + SQ_JUMP) & ring->mask, __ATOMIC_RELEASE);
}

void sq_num_sge_client(struct ctx *c)
{
	sq_client(c, sq_num_sge_attack);
}

void sq_opcode_client(struct ctx *c)
{
	sq_client(c, sq_opcode_attack);
}

void sq_length_client(struct ctx *c)
{
	sq_client(c, sq_length_attack);
}

void sq_lkey_client(struct ctx *c)
{
	sq_client(c, sq_lkey_attack);
}

void sq_inline_client(struct ctx *c)
{
	sq_client(c, sq_inline_attack);
}

void sq_prod_client(struct ctx *c)
{
	sq_client(c, sq_prod_attack);
}

/* The server of the sq_* modes: the marker SEND (and, for sq_length, the
 * SEND whose dma.length is ignored) arrive intact, and nothing else. */
static void sq_server_run(struct ctx *c, bool len_ok)
{
	uint64_t seed = mode_seed(c, 0), v[1] = { 0 };
	struct seglist s[2];
	struct ibv_wc wc;
	char why[200];

	one_seg(&s[0], MODE_OFF, 256);
	one_seg(&s[1], MODE_OFF + 4096, 256);
	if (post_recv(c, ST_MODE, SQ_MARK, &s[0], 1) ||
	    post_recv(c, ST_MODE, SQ_LEN_OK, &s[1], 1))
		return;
	if (msg_send(c, "STEP1", v, 1, NULL) || msg_recv(c, "DONE", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (expect_wc(c, c->rcq, ST_MODE, "the marker SEND", SQ_MARK, IBV_WC_RECV, &wc) == 0 &&
	    (wc.byte_len != 64 || verify_region(c->buf, &s[0], seed, 64, why, sizeof(why))))
		fail(ST_MODE, "the marker SEND: byte_len %u or its bytes wrong", wc.byte_len);
	if (len_ok &&
	    expect_wc(c, c->rcq, ST_MODE, "the SEND with dma.length 0xffffffff", SQ_LEN_OK,
		      IBV_WC_RECV, &wc) == 0 &&
	    (wc.byte_len != 64 || verify_region(c->buf, &s[1], seed, 64, why, sizeof(why))))
		fail(ST_MODE, "the SEND with dma.length 0xffffffff: byte_len %u (expected 64) or its bytes wrong",
		     wc.byte_len);
	if (ibv_poll_cq(c->rcq, 1, &wc) > 0)
		fail(ST_MODE, "an unexpected receive completion: wr_id 0x%" PRIx64 " status %s",
		     wc.wr_id, ibv_wc_status_str(wc.status));
}

void sq_server(struct ctx *c)
{
	sq_server_run(c, false);
}

void sq_length_server(struct ctx *c)
{
	sq_server_run(c, true);
}

/*
 * The scenario of a mode whose row asks for a witness: the witness pair
 * is connected first, then this side's part runs, then the pair must
 * still carry a SEND and a WRITE.
 */
void witness_run(struct ctx *c, void (*side)(struct ctx *c))
{
	struct witness w;

	if (witness_setup(c, &w)) {
		c->broken = true;
		return;
	}
	if (!c->broken && side)
		side(c);
	witness_check(c, &w);
	witness_destroy(&w);
}

/*
 * librxe refuses to post an ATOMIC whose local length is below 8 or whose
 * remote VA is unaligned, so those go into the ring by hand: a READ
 * marker through librxe finds the ring; the ATOMIC (wr_id 1) is written
 * into the next slot; the caller's next post rings the doorbell.
 */
int ring_atomic(struct ctx *c, uint8_t *dst, uint32_t len, uint64_t raddr)
{
	struct rxe_send_wqe *t;
	struct sq_ring ring;

	if (post_wr(c, c->qp, IBV_WR_RDMA_READ, SQ_MARK, c->buf + 3 * MODE_SRC_LEN, 8,
		    c->mr->lkey, c->peer.addr + 8192, c->peer.rkey))
		return -1;
	expect_status(c, "marker READ through librxe", SQ_MARK, IBV_WC_SUCCESS);
	if (find_sq_ring(c, SQ_MARK, IBV_WR_RDMA_READ, &ring))
		return -1;
	t = calloc(1, ring.elem);
	if (!t) {
		fail(ST_MODE, "out of memory");
		return -1;
	}
	memcpy(t, ring_slot(&ring, __atomic_load_n(ring_prod(&ring), __ATOMIC_ACQUIRE) - 1),
	       ring.elem);
	t->wr.wr_id = 1;
	t->wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	t->wr.send_flags = IBV_SEND_SIGNALED;
	memset(&t->wr.wr, 0, sizeof(t->wr.wr));
	t->wr.wr.atomic.remote_addr = raddr;
	t->wr.wr.atomic.compare_add = 1;
	t->wr.wr.atomic.rkey = c->peer.rkey;
	t->dma.length = len;
	t->dma.resid = len;
	t->dma.num_sge = 1;
	t->dma.sge[0].addr = (uintptr_t)dst;
	t->dma.sge[0].length = len;
	t->dma.sge[0].lkey = c->mr->lkey;
	ring_push(&ring, t);
	free(t);
	printf("# FETCH_ADD (local length %u, remote VA 0x%" PRIx64 ") written into the SQ ring\n",
	       len, raddr);
	return 0;
}
