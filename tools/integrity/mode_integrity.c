// SPDX-License-Identifier: GPL-2.0
/*
 * mode_integrity.c - the default mode: the data-integrity sequence
 * (SEND / SEND_WITH_IMM, RDMA_WRITE[_WITH_IMM], RDMA_READ, CMP_SWAP and
 * FETCH_ADD), every byte checked against the plan (plan.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "integrity.h"

static void skip_subtests(const int *sts, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (subtests[sts[i]].sides & my_side)
			fail(sts[i], "skipped: QP unusable after an earlier failure (this side or peer)");
}

/* Fail, once each, the sub-tests of items[from..n) (unverified items). */
static void fail_rest(const struct item *items, unsigned from, unsigned n,
		      const char *why)
{
	bool seen[ST_COUNT] = { false };

	for (unsigned k = from; k < n; k++) {
		if (seen[items[k].st])
			continue;
		seen[items[k].st] = true;
		fail(items[k].st, "%s #%u and later not verified: %s",
		     wr_op_name(items[k].op), k, why);
	}
}

static void item_name(const struct item *it, unsigned k, char *b, size_t n)
{
	snprintf(b, n, "%s #%u (len %u)", wr_op_name(it->op), k, it->len);
}

/* Receive-side checks shared by SEND_WITH_IMM and WRITE_WITH_IMM. */
static void check_recv_wc(struct ctx *c, const struct item *it, const char *what,
			  const struct ibv_wc *wc, bool with_imm)
{
	bool has_imm = wc->wc_flags & IBV_WC_WITH_IMM;

	if (wc->qp_num != c->qp->qp_num)
		fail(it->st, "%s: wc.qp_num 0x%x, expected 0x%x", what,
		     wc->qp_num, c->qp->qp_num);
	if (wc->byte_len != it->len)
		fail(it->st, "%s: byte_len %u, expected %u", what, wc->byte_len,
		     it->len);
	if (has_imm != with_imm)
		fail(it->st, "%s: IBV_WC_WITH_IMM flag %s", what,
		     has_imm ? "set unexpectedly" : "missing");
	if (has_imm && with_imm && ntohl(wc->imm_data) != it->imm)
		fail(it->st, "%s: imm_data 0x%08x, expected 0x%08x", what,
		     ntohl(wc->imm_data), it->imm);
}

/* ------------------------------------------------------------------ */
/* Test 1: SEND / SEND_WITH_IMM                                        */
/* ------------------------------------------------------------------ */

/*
 * Proves: a message gathered from up to 4 unaligned client SGEs arrives
 * byte for byte in up to 4 unaligned server SGEs, across packet (MTU)
 * boundaries and SGE boundaries that do not line up with each other;
 * byte_len is the message length (not the posted capacity); IBV_WC_RECV
 * is the opcode; IBV_WC_WITH_IMM and imm_data appear exactly for
 * SEND_WITH_IMM; receives complete in posting order; nothing outside the
 * received bytes (gaps between SGEs, unused capacity, guards) is written.
 */
static void send_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_SEND; k++) {
		struct item *it = &p->send[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = it->op;
		if (it->op == IBV_WR_SEND_WITH_IMM)
			wr.imm_data = htonl(it->imm);
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		item_name(&p->send[k], k, what, sizeof(what));
		if (expect_wc(c, c->scq, p->send[k].st, what, k, IBV_WC_SEND, &wc) < 0)
			break;
	}
	if (k < N_SEND)
		fail_rest(p->send, k, N_SEND, "no successful send completion");
}

static void send_server(struct ctx *c)
{
	struct plan *p = &c->plan;
	struct ibv_wc wc;
	char what[64];
	unsigned k;

	for (k = 0; k < N_SEND; k++) {
		struct item *it = &p->send[k];
		int r;

		item_name(it, k, what, sizeof(what));
		r = expect_wc(c, c->rcq, it->st, what, k, IBV_WC_RECV, &wc);
		if (r < 0)
			break;
		check_recv_wc(c, it, what, &wc, it->op == IBV_WR_SEND_WITH_IMM);
		check_region(c, it, what, &it->srv, it->len);
	}
	if (k < N_SEND)
		fail_rest(p->send, k, N_SEND, "receive did not complete");
}

static int test_send(struct ctx *c)
{
	static const int sts[] = { ST_SEND, ST_SEND_IMM };
	struct plan *p = &c->plan;
	int r;

	/* Prepare before the handshake: receives must be posted before the
	 * client sends (no RNR retries in the data path). */
	for (unsigned k = 0; k < N_SEND && !c->broken; k++) {
		struct item *it = &p->send[k];

		if (c->server) {
			fill_guard(c->buf, it->srv.rstart, it->srv.rend);
			post_recv(c, it->st, k, &it->srv, it->srv.n);
		} else {
			fill_region(c->buf, &it->cli, it->seed, it->len);
		}
	}
	r = phase_sync(c, "SEND-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 2);
	else if (c->server)
		send_server(c);
	else
		send_client(c);
	if (phase_sync(c, "SEND-END") < 0)
		return -1;
	report(ST_SEND);
	report(ST_SEND_IMM);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 2: RDMA_WRITE / RDMA_WRITE_WITH_IMM                            */
/* ------------------------------------------------------------------ */

/*
 * Proves: a write gathered from up to 4 unaligned client SGEs lands byte
 * for byte at an unaligned server address, for single-byte, sub-MTU and
 * multi-MTU lengths, without touching the bytes around the target range;
 * WRITE_WITH_IMM consumes exactly one posted receive (alternately with 0
 * and 1 SGE) and completes it as IBV_WC_RECV_RDMA_WITH_IMM with
 * byte_len = write length, IBV_WC_WITH_IMM and the immediate, without
 * writing into the receive buffer, and its data is in place when the
 * receive completes.  Plain writes are verified once the client has its
 * completions and tells the server (over TCP) which ranges to check.
 */
static void write_client(struct ctx *c, bool *ok)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_WRITE; k++) {
		struct item *it = &p->write[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = it->op;
		if (it->op == IBV_WR_RDMA_WRITE_WITH_IMM)
			wr.imm_data = htonl(it->imm);
		wr.wr.rdma.remote_addr = c->peer.addr + it->srv.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		item_name(&p->write[k], k, what, sizeof(what));
		if (expect_wc(c, c->scq, p->write[k].st, what, k,
			      IBV_WC_RDMA_WRITE, &wc) < 0)
			break;
		ok[k] = true;
	}
	if (k < N_WRITE)
		fail_rest(p->write, k, N_WRITE, "no successful write completion");
}

static void write_server_imm(struct ctx *c)
{
	struct plan *p = &c->plan;
	struct ibv_wc wc;
	char what[64], why[200];
	unsigned k;

	for (k = 1; k < N_WRITE; k += 2) {
		struct item *it = &p->write[k];

		item_name(it, k, what, sizeof(what));
		if (expect_wc(c, c->rcq, it->st, what, k,
			      IBV_WC_RECV_RDMA_WITH_IMM, &wc) < 0)
			break;
		check_recv_wc(c, it, what, &wc, true);
		check_region(c, it, what, &it->srv, it->len);
		if (verify_region(c->buf, &it->rcv, 0, 0, why, sizeof(why)))
			fail(it->st, "%s: receive buffer was written: %s", what, why);
	}
	if (k < N_WRITE)
		fail(ST_WRITE_IMM, "RDMA_WRITE_WITH_IMM #%u and later not verified: receive did not complete",
		     k);
}

/* Server: read the client's descriptors and verify the plain writes. */
static int write_server_plain(struct ctx *c)
{
	struct plan *p = &c->plan;
	char what[64];

	for (unsigned k = 0; k < N_WRITE; k++) {
		struct item *it = &p->write[k];
		uint64_t v[5];

		if (msg_recv(c, "WRITE-DESC", v, 5, NULL))
			return -1;
		if (it->st != ST_WRITE)
			continue;	/* WRITE_WITH_IMM: checked on its completion */
		item_name(it, k, what, sizeof(what));
		if (v[0] != k || v[1] != it->srv.off[0] || v[2] != it->len ||
		    v[3] != it->seed) {
			fail(it->st, "%s: client's descriptor (off %" PRIu64 " len %" PRIu64
			     ") does not match the plan (protocol mismatch)",
			     what, v[1], v[2]);
			continue;
		}
		if (!v[4]) {
			fail(it->st, "%s: not verifiable, the client's write did not complete",
			     what);
			continue;
		}
		check_region(c, it, what, &it->srv, it->len);
	}
	return 0;
}

static int test_write(struct ctx *c)
{
	static const int sts[] = { ST_WRITE, ST_WRITE_IMM };
	struct plan *p = &c->plan;
	bool ok[N_WRITE] = { false };
	int r;

	for (unsigned k = 0; k < N_WRITE && !c->broken; k++) {
		struct item *it = &p->write[k];

		if (c->server) {
			fill_guard(c->buf, it->srv.rstart, it->srv.rend);
			if (it->st == ST_WRITE_IMM) {
				/* Alternately 0 and 1 SGEs: neither may be written. */
				fill_guard(c->buf, it->rcv.rstart, it->rcv.rend);
				post_recv(c, it->st, k, &it->rcv, (k / 2) % 2);
			}
		} else {
			fill_region(c->buf, &it->cli, it->seed, it->len);
		}
	}
	r = phase_sync(c, "WRITE-START");
	if (r < 0)
		return -1;
	if (r == 0) {
		skip_subtests(sts, 2);
	} else if (c->server) {
		write_server_imm(c);
		if (write_server_plain(c))
			return -1;
	} else {
		write_client(c, ok);
		/* Tell the server which ranges were written (and completed). */
		for (unsigned k = 0; k < N_WRITE; k++) {
			const struct item *it = &p->write[k];
			uint64_t v[5] = { k, it->srv.off[0], it->len, it->seed, ok[k] };

			if (msg_send(c, "WRITE-DESC", v, 5, NULL))
				return -1;
		}
	}
	if (phase_sync(c, "WRITE-END") < 0)
		return -1;
	report(ST_WRITE);
	report(ST_WRITE_IMM);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 3: RDMA_READ                                                   */
/* ------------------------------------------------------------------ */

/*
 * Proves: a read of an unaligned server range (1 byte to 16+ MTUs, 4 reads
 * outstanding at once) scatters byte for byte into up to 4 unaligned
 * client SGEs, writes nothing outside them, and (checked on the server)
 * leaves the source memory unchanged.
 */
static void read_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_READ; k++) {
		struct item *it = &p->read[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = c->peer.addr + it->srv.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		struct item *it = &p->read[k];

		item_name(it, k, what, sizeof(what));
		if (expect_wc(c, c->scq, it->st, what, k, IBV_WC_RDMA_READ, &wc) < 0)
			break;
		check_region(c, it, what, &it->cli, it->len);
	}
	if (k < N_READ)
		fail_rest(p->read, k, N_READ, "no successful read completion");
}

static int test_read(struct ctx *c)
{
	static const int sts[] = { ST_READ };
	struct plan *p = &c->plan;
	char what[64];
	int r;

	for (unsigned k = 0; k < N_READ && !c->broken; k++) {
		struct item *it = &p->read[k];

		if (c->server)
			fill_region(c->buf, &it->srv, it->seed, it->len);
		else
			fill_guard(c->buf, it->cli.rstart, it->cli.rend);
	}
	r = phase_sync(c, "READ-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 1);
	else if (!c->server)
		read_client(c);
	if (phase_sync(c, "READ-END") < 0)
		return -1;
	/* Server: after the client is done, the sources must be intact. */
	if (r == 1 && c->server) {
		for (unsigned k = 0; k < N_READ; k++) {
			item_name(&p->read[k], k, what, sizeof(what));
			check_region(c, &p->read[k], what, &p->read[k].srv,
				     p->read[k].len);
		}
	}
	report(ST_READ);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 4: atomics                                                     */
/* ------------------------------------------------------------------ */

/*
 * Proves: CMP_SWAP compares all 64 bits (hits swap, misses - including
 * half-matching compare values - do not) and FETCH_ADD is a full 64-bit
 * add (carry across bit 31, wraparound at 2^64, signed overflow); every
 * returned original value is right, in posting order on the same slot,
 * and lands in exactly 8 bytes of the client's result buffer.  The server
 * then checks the final value of every slot (including one never
 * targeted) and that the bytes between the slots are untouched.
 */
static void atomic_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	const struct seglist *res = &p->cli_atomic;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[80];

	if (c->dattr.atomic_cap == IBV_ATOMIC_NONE) {
		fail(ST_CAS, "device reports atomic_cap IBV_ATOMIC_NONE");
		fail(ST_FADD, "device reports atomic_cap IBV_ATOMIC_NONE");
		return;
	}
	for (k = 0; k < N_ATOMIC; k++) {
		const struct atomic_op *a = &p->atomic[k];
		int st = a->op == IBV_WR_ATOMIC_CMP_AND_SWP ? ST_CAS : ST_FADD;
		struct ibv_sge sge = {
			.addr = (uintptr_t)(c->buf + slot_off(res, k)),
			.length = 8,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = a->op;
		wr.wr.atomic.remote_addr = c->peer.addr + slot_off(&p->srv_atomic, a->slot);
		wr.wr.atomic.rkey = c->peer.rkey;
		wr.wr.atomic.compare_add = a->arg;
		wr.wr.atomic.swap = a->swap;
		if (post_send(c, st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		const struct atomic_op *a = &p->atomic[k];
		bool cas = a->op == IBV_WR_ATOMIC_CMP_AND_SWP;
		int st = cas ? ST_CAS : ST_FADD;
		uint64_t got, o = slot_off(res, k);

		snprintf(what, sizeof(what), "%s #%u slot %u (%s)",
			 wr_op_name(a->op), k, a->slot, a->what);
		if (expect_wc(c, c->scq, st, what, k,
			      cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, &wc) < 0)
			break;
		memcpy(&got, c->buf + o, 8);
		if (got != a->expect)
			fail(st, "%s: returned 0x%016" PRIx64 ", expected 0x%016" PRIx64,
			     what, got, a->expect);
		/* The 8 guard bytes after the result (and before slot 0). */
		for (uint64_t g = (k ? o + 8 : res->rstart); g < o + 16; g++) {
			if (g >= o && g < o + 8)
				continue;
			if (c->buf[g] != guard_byte(g)) {
				fail(st, "%s: byte at buffer offset %" PRIu64
				     " next to the result was written", what, g);
				break;
			}
		}
	}
	if (k < N_ATOMIC) {
		for (; k < N_ATOMIC; k++) {
			int st = p->atomic[k].op == IBV_WR_ATOMIC_CMP_AND_SWP ?
				 ST_CAS : ST_FADD;

			if (!subtests[st].nfail)
				fail(st, "atomic #%u and later not verified", k);
		}
	}
}

static void atomic_server_final(struct ctx *c)
{
	const struct plan *p = &c->plan;
	const struct seglist *a = &p->srv_atomic;

	for (unsigned i = 0; i < N_SLOTS; i++) {
		uint64_t got;

		memcpy(&got, c->buf + slot_off(a, i), 8);
		if (got != p->slot_final[i])
			fail(ST_ATOMIC_FINAL, "slot %u: final value 0x%016" PRIx64
			     ", expected 0x%016" PRIx64 " (initial 0x%016" PRIx64 ")",
			     i, got, p->slot_final[i], slot_init[i]);
	}
	for (uint64_t o = a->rstart; o < a->rend; o++) {
		if ((o - a->rstart) % 16 >= 8)
			continue;	/* inside a slot */
		if (c->buf[o] != guard_byte(o)) {
			fail(ST_ATOMIC_FINAL, "byte at buffer offset %" PRIu64
			     " between the slots was written", o);
			break;
		}
	}
}

static int test_atomic(struct ctx *c)
{
	static const int sts[] = { ST_CAS, ST_FADD, ST_ATOMIC_FINAL };
	struct plan *p = &c->plan;
	int r, re;

	if (c->broken) {
		/* nothing to prepare: the phase is skipped */
	} else if (c->server) {
		fill_guard(c->buf, p->srv_atomic.rstart, p->srv_atomic.rend);
		for (unsigned i = 0; i < N_SLOTS; i++)
			memcpy(c->buf + slot_off(&p->srv_atomic, i), &slot_init[i], 8);
	} else {
		fill_guard(c->buf, p->cli_atomic.rstart, p->cli_atomic.rend);
	}
	r = phase_sync(c, "ATOMIC-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 3);
	else if (!c->server)
		atomic_client(c);
	re = phase_sync(c, "ATOMIC-END");
	if (re < 0)
		return -1;
	if (r == 1 && c->server) {
		if (re == 1)
			atomic_server_final(c);
		else
			fail(ST_ATOMIC_FINAL, "not verified: the atomic sequence did not complete");
	}
	report(ST_CAS);
	report(ST_FADD);
	report(ST_ATOMIC_FINAL);
	return 0;
}

/* The sequence, phase by phase; -1 if the control connection failed. */
int integrity_run(struct ctx *c)
{
	if (test_send(c) || test_write(c) || test_read(c) || test_atomic(c))
		return -1;
	return 0;
}

/* Build the plan and check that both buffers can hold it. */
int check_plan(struct ctx *c)
{
	struct plan *p = &c->plan;

	build_plan(p, c->mtu_bytes);
	if (p->overflow || p->cli_size > c->buf_len || p->srv_size > c->buf_len) {
		fail(ST_SETUP, "internal: test layout (%" PRIu64 "/%" PRIu64
		     " bytes) exceeds the %zu-byte buffer", p->cli_size,
		     p->srv_size, c->buf_len);
		return -1;
	}
	if (!c->server && c->peer.len < p->srv_size) {
		fail(ST_SETUP, "server buffer too small (%" PRIu64 " < %" PRIu64 ")",
		     c->peer.len, p->srv_size);
		return -1;
	}
	return 0;
}
