// SPDX-License-Identifier: GPL-2.0
/*
 * mode_uc.c - -m uc: a UC QP pair on a lossy link (not an error path).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "integrity.h"

/*
 * A UC QP pair, meant for a link that loses, duplicates and reorders
 * packets (netem).  UC never retransmits: a message with a lost or
 * out-of-sequence packet is dropped by the responder, which completes no
 * receive for it.  What must never happen is a message completed with
 * wrong, partial or misplaced data, one message spliced into another, a
 * duplicate, or whole messages out of order.  Two phases, each of UC_N
 * messages of uc_len() = 3 * MTU + 100 bytes (four packets), client ->
 * server, at most UC_WINDOW sends outstanding (all signaled; a UC send
 * completes once it is transmitted):
 *
 *   uc_send   SEND (even sequence numbers) and SEND_WITH_IMM (odd, imm =
 *             sequence number) into UC_N pre-posted receives of capacity
 *             uc_len() + UC_SPARE, each in its own guard-filled slot.
 *             Every completion: SUCCESS, IBV_WC_RECV, byte_len, the
 *             sequence number in the message's first 8 bytes, every byte
 *             of that message's pattern, unused capacity and guards
 *             untouched, IBV_WC_WITH_IMM exactly for odd ones with imm =
 *             sequence number, sequence numbers and wr_ids strictly
 *             increasing.
 *   uc_write  RDMA_WRITE_WITH_IMM of message k into server slot k, imm =
 *             k; UC_N receives (no SGE) pre-posted for the immediates.
 *             Every completion: IBV_WC_RECV_RDMA_WITH_IMM, byte_len, slot
 *             imm holds exactly that message, imm strictly increasing.
 *             A slot without a completion may hold any part of its own
 *             message (a write whose later packets were lost), but each
 *             of its bytes must be either the guard or the message's byte
 *             at that position.
 *
 * Message k's bytes: k big-endian in bytes 0-7, then pat_byte() of
 * seed_for(phase, k).  The client tells the server over TCP when it is
 * done; the server drains its CQ until UC_GRACE_MS pass without a new
 * completion, then re-checks every slot (so a late stray write is caught
 * too) and sends its count back.  A phase passes with no error and at
 * least a tenth of the messages received (so it cannot pass on nothing:
 * with 5% loss, duplication and reordering about 40% of four-packet
 * messages arrive whole, with 1% loss about 96%); both sides print
 * "received R/N".
 */
/* UC_N, UC_RQ_DEPTH and UC_BUF_SIZE are in integrity.h (the table uses them). */
#define UC_WINDOW	8	/* client: sends outstanding at most */
#define UC_SPARE	64	/* uc_send: receive capacity beyond the message */
#define UC_DOFF		17	/* data offset in a slot (unaligned) */
#define UC_GRACE_MS	2000	/* server: drain until this long without a CQE */
#define UC_NONE		UINT32_MAX
#define UC_POLL_BATCH	16

enum { T_UC_SEND = 0x20, T_UC_WRITE = 0x21 };

static uint32_t uc_len(const struct ctx *c)
{
	return 3 * c->mtu_bytes + 100;
}

/* Message seq's byte i: seq in bytes 0-7 (big-endian), then the pattern. */
static inline uint8_t uc_byte(uint64_t seed, uint32_t seq, uint32_t i)
{
	return i < 8 ? (uint8_t)((uint64_t)seq >> (56 - 8 * i)) : pat_byte(seed, i);
}

static uint64_t uc_header(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/*
 * Slot areas: the client's source slots (UC_WINDOW, reused round robin),
 * the server's receive buffers (uc_send) and, after them, its write
 * targets (uc_write).  A slot is one SGE at UC_DOFF; every other byte of
 * it up to the next slot is guard.
 */
enum uc_area { UC_SRC, UC_RECV, UC_WRITE };

static uint32_t uc_cap(const struct ctx *c, enum uc_area area)
{
	return uc_len(c) + (area == UC_RECV ? UC_SPARE : 0);
}

static uint64_t uc_stride(const struct ctx *c, enum uc_area area)
{
	return ((uint64_t)UC_DOFF + uc_cap(c, area) + 16 + 63) & ~63ull;
}

static uint64_t uc_base(const struct ctx *c, enum uc_area area)
{
	if (area != UC_WRITE)
		return 0;
	return (UC_N * uc_stride(c, UC_RECV) + 4095) & ~4095ull;
}

static void uc_slot(const struct ctx *c, enum uc_area area, unsigned k,
		    struct seglist *s)
{
	memset(s, 0, sizeof(*s));
	s->n = 1;
	s->rstart = uc_base(c, area) + k * uc_stride(c, area);
	s->rend = s->rstart + uc_stride(c, area);
	s->off[0] = s->rstart + UC_DOFF;
	s->len[0] = uc_cap(c, area);
}

/* After the MTU is known: both areas must fit the buffers (and the MR). */
int uc_check_layout(struct ctx *c)
{
	uint64_t srv = uc_base(c, UC_WRITE) + UC_N * uc_stride(c, UC_WRITE);
	uint64_t cli = UC_WINDOW * uc_stride(c, UC_SRC);
	uint64_t need = c->server ? srv : cli;

	if (need > c->buf_len) {
		fail(ST_SETUP, "internal: UC layout (%" PRIu64
		     " bytes) exceeds the %zu-byte buffer", need, c->buf_len);
		return -1;
	}
	if (!c->server && c->peer.len < srv) {
		fail(ST_SETUP, "server buffer too small (%" PRIu64 " < %" PRIu64 ")",
		     c->peer.len, srv);
		return -1;
	}
	return 0;
}

enum uc_data {
	UC_EXACT,	/* the whole message */
	UC_PARTIAL,	/* each byte the message's or the guard */
	UC_ANY,		/* not checked (an uncompleted receive buffer) */
};

/*
 * Check slot s, whose first len SGE bytes are the data area of message
 * seq of phase test (as mode says); every other byte of the slot must be
 * guard.  Returns the number of wrong bytes and describes the first in
 * why; *hits / *guards count data bytes equal to the message / guard.
 */
static uint64_t uc_check_slot(const uint8_t *buf, const struct seglist *s,
			      uint32_t len, unsigned test, uint32_t seq,
			      enum uc_data mode, uint64_t *hits, uint64_t *guards,
			      char *why, size_t whylen)
{
	uint64_t seed = seed_for(test, seq), bad = 0, nhit = 0, nguard = 0;
	uint64_t d0 = s->off[0], d1 = s->off[0] + len;

	why[0] = '\0';
	for (uint64_t pos = s->rstart; pos < s->rend; pos++) {
		uint8_t g = guard_byte(pos), m;

		if (pos < d0 || pos >= d1) {
			if (buf[pos] == g)
				continue;
			if (!bad++)
				snprintf(why, whylen,
					 "%s byte at buffer offset %" PRIu64
					 " overwritten (0x%02x, guard 0x%02x)",
					 pos >= d1 && pos < d0 + s->len[0] ?
					 "unused-capacity" : "guard",
					 pos, buf[pos], g);
			continue;
		}
		if (mode == UC_ANY)
			continue;
		m = uc_byte(seed, seq, (uint32_t)(pos - d0));
		nhit += buf[pos] == m;
		nguard += buf[pos] == g;
		if (buf[pos] == m || (mode == UC_PARTIAL && buf[pos] == g))
			continue;
		if (!bad++) {
			if (mode == UC_PARTIAL)
				snprintf(why, whylen,
					 "data byte %" PRIu64 " = 0x%02x, neither the message's 0x%02x nor the guard 0x%02x",
					 pos - d0, buf[pos], m, g);
			else
				snprintf(why, whylen,
					 "data byte %" PRIu64 " = 0x%02x, expected 0x%02x",
					 pos - d0, buf[pos], m);
		}
	}
	if (hits)
		*hits = nhit;
	if (guards)
		*guards = nguard;
	return bad;
}

/* Server: what the receive CQ reported in one phase. */
struct uc_rx {
	int st;
	bool write;
	uint32_t len;
	unsigned received;		/* successful completions */
	bool have_seq;
	uint32_t last_seq;
	uint32_t seq[UC_N];		/* uc_send: message in receive k */
	bool done[UC_N];		/* uc_write: slot k reported */
	bool bad[UC_N];			/* slot k failed: not checked again */
	/* Kept across both phases (one receive queue). */
	bool have_wr;
	uint64_t last_wr;
};

static void uc_rx_start(struct ctx *c, struct uc_rx *rx, bool write)
{
	rx->st = write ? ST_UC_WRITE : ST_UC_SEND;
	rx->write = write;
	rx->len = uc_len(c);
	rx->received = 0;
	rx->have_seq = false;
	rx->last_seq = 0;
	for (unsigned k = 0; k < UC_N; k++) {
		rx->seq[k] = UC_NONE;
		rx->done[k] = false;
		rx->bad[k] = false;
	}
}

/* Server: check one receive completion of the current phase. */
static void uc_rx_wc(struct ctx *c, struct uc_rx *rx, const struct ibv_wc *wc)
{
	enum ibv_wc_opcode op = rx->write ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	bool has_imm = wc->wc_flags & IBV_WC_WITH_IMM;
	uint32_t imm = ntohl(wc->imm_data);
	uint64_t wr_id = wc->wr_id, hdr, bad;
	int st = rx->st;
	struct seglist s;
	char why[200];
	unsigned slot;
	uint32_t seq;

	if (wc->status != IBV_WC_SUCCESS) {
		fail(st, "receive wr_id %" PRIu64 ": completion status %s (%d), vendor_err 0x%x",
		     wr_id, ibv_wc_status_str(wc->status), wc->status,
		     wc->vendor_err);
		c->broken = true;
		return;
	}
	rx->received++;
	/* The receive queue is consumed in posting order. */
	if (rx->have_wr && wr_id <= rx->last_wr)
		fail(st, "receive wr_id %" PRIu64 " completed after wr_id %" PRIu64
		     " (out of posting order or twice)", wr_id, rx->last_wr);
	rx->have_wr = true;
	rx->last_wr = wr_id;
	if (wc->opcode != op)
		fail(st, "receive wr_id %" PRIu64 ": opcode %s (%d), expected %s",
		     wr_id, wc_op_name(wc->opcode), wc->opcode, wc_op_name(op));
	if (wc->qp_num != c->qp->qp_num)
		fail(st, "receive wr_id %" PRIu64 ": wc.qp_num 0x%x, expected 0x%x",
		     wr_id, wc->qp_num, c->qp->qp_num);

	if (!rx->write) {
		if (wr_id >= UC_N) {
			fail(st, "completion of unknown receive wr_id %" PRIu64, wr_id);
			return;
		}
		slot = (unsigned)wr_id;
		uc_slot(c, UC_RECV, slot, &s);
		if (wc->byte_len != rx->len) {
			fail(st, "receive wr_id %" PRIu64 ": byte_len %u, expected %u",
			     wr_id, wc->byte_len, rx->len);
			rx->bad[slot] = true;
			return;
		}
		hdr = uc_header(c->buf + s.off[0]);
		if (hdr >= UC_N) {
			fail(st, "receive wr_id %" PRIu64 ": sequence number %" PRIu64
			     " in the header is out of range (corrupt message)",
			     wr_id, hdr);
			rx->bad[slot] = true;
			return;
		}
		seq = (uint32_t)hdr;
		rx->seq[slot] = seq;
		if (has_imm != (seq & 1))
			fail(st, "message %u: IBV_WC_WITH_IMM flag %s", seq,
			     has_imm ? "set for a SEND" : "missing for a SEND_WITH_IMM");
		else if (has_imm && imm != seq)
			fail(st, "message %u: imm_data %u, expected the sequence number",
			     seq, imm);
	} else {
		if (wc->byte_len != rx->len)
			fail(st, "receive wr_id %" PRIu64 ": byte_len %u, expected %u",
			     wr_id, wc->byte_len, rx->len);
		if (!has_imm) {
			fail(st, "receive wr_id %" PRIu64 ": IBV_WC_WITH_IMM missing",
			     wr_id);
			return;
		}
		if (imm >= UC_N) {
			fail(st, "receive wr_id %" PRIu64 ": imm_data %u out of range",
			     wr_id, imm);
			return;
		}
		seq = imm;
		slot = seq;
		if (rx->done[slot])
			fail(st, "message %u: reported twice", seq);
		rx->done[slot] = true;
		uc_slot(c, UC_WRITE, slot, &s);
	}
	if (rx->have_seq && seq <= rx->last_seq)
		fail(st, "message %u completed after message %u (duplicate or reordered)",
		     seq, rx->last_seq);
	rx->have_seq = true;
	rx->last_seq = seq;
	bad = uc_check_slot(c->buf, &s, rx->len, rx->write ? T_UC_WRITE : T_UC_SEND,
			    seq, UC_EXACT, NULL, NULL, why, sizeof(why));
	if (bad) {
		fail(st, "message %u (receive wr_id %" PRIu64 ", %s slot %u): %" PRIu64
		     " wrong bytes; first: %s", seq, wr_id,
		     rx->write ? "write" : "receive", slot, bad, why);
		rx->bad[slot] = true;
	}
}

/*
 * Server: poll the receive CQ while the client sends, until the client
 * says (message tag) that it is done and UC_GRACE_MS pass without a new
 * completion.  *sent: the client's count.  -1 if the control connection
 * failed or stayed silent for TCP_IO_TIMEOUT_S without any completion.
 */
static int uc_collect(struct ctx *c, struct uc_rx *rx, const char *tag,
		      uint64_t *sent)
{
	uint64_t last = now_ms();
	bool done = false, cq_ok = true;

	for (;;) {
		struct ibv_wc wc[UC_POLL_BATCH];
		struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
		uint64_t v[2];
		int n = 0, r;

		if (cq_ok) {
			n = ibv_poll_cq(c->rcq, UC_POLL_BATCH, wc);
			if (n < 0) {
				fail(rx->st, "ibv_poll_cq failed (%d)", n);
				c->broken = true;
				cq_ok = false;
				n = 0;
			}
		}
		for (int i = 0; i < n; i++)
			uc_rx_wc(c, rx, &wc[i]);
		if (n > 0) {
			last = now_ms();
			continue;
		}
		if (done) {
			if (!cq_ok || now_ms() - last >= UC_GRACE_MS)
				return 0;
			sleep_ms(1);
			continue;
		}
		r = poll(&pfd, 1, cq_ok ? 1 : 1000);
		if (r < 0 && errno != EINTR) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "poll on the control connection: %s", strerror(errno));
			return -1;
		}
		if (r > 0) {
			if (msg_recv(c, tag, v, 2, NULL))
				return -1;
			*sent = v[0];
			done = true;
			last = now_ms();
			continue;
		}
		if (now_ms() - last > TCP_IO_TIMEOUT_S * 1000ull) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "neither a completion nor %s from the client within %d s",
				 tag, TCP_IO_TIMEOUT_S);
			return -1;
		}
	}
}

/* Server, after the grace period: re-check every slot of the phase. */
static void uc_rx_final(struct ctx *c, struct uc_rx *rx)
{
	unsigned untouched = 0, full = 0, part = 0, missing = 0;
	uint64_t bad, hits, guards;
	struct seglist s;
	char why[200];

	for (unsigned k = 0; k < UC_N; k++) {
		if (rx->bad[k])
			continue;
		if (!rx->write) {
			uint32_t seq = rx->seq[k];

			uc_slot(c, UC_RECV, k, &s);
			bad = uc_check_slot(c->buf, &s, rx->len, T_UC_SEND,
					    seq == UC_NONE ? 0 : seq,
					    seq == UC_NONE ? UC_ANY : UC_EXACT,
					    NULL, NULL, why, sizeof(why));
			if (bad && seq != UC_NONE)
				fail(rx->st, "receive buffer %u (message %u) changed after its completion: %" PRIu64
				     " wrong bytes; first: %s", k, seq, bad, why);
			else if (bad)
				fail(rx->st, "receive buffer %u (no completion): %" PRIu64
				     " wrong bytes; first: %s", k, bad, why);
			continue;
		}
		uc_slot(c, UC_WRITE, k, &s);
		missing += !rx->done[k];
		bad = uc_check_slot(c->buf, &s, rx->len, T_UC_WRITE, k,
				    rx->done[k] ? UC_EXACT : UC_PARTIAL,
				    &hits, &guards, why, sizeof(why));
		if (bad && rx->done[k])
			fail(rx->st, "write slot %u changed after its completion: %" PRIu64
			     " wrong bytes; first: %s", k, bad, why);
		else if (bad)
			fail(rx->st, "write slot %u (no completion): %" PRIu64
			     " wrong bytes; first: %s", k, bad, why);
		else if (rx->done[k])
			continue;
		else if (guards == rx->len)
			untouched++;
		else if (hits == rx->len)
			full++;
		else
			part++;
	}
	if (rx->write)
		printf("# uc_write: of the %u writes without a completion, %u left no trace, %u landed in full, %u in part\n",
		       missing, untouched, full, part);
}

/* Client: post message seq of the phase from source slot seq % UC_WINDOW. */
static int uc_post(struct ctx *c, bool write, uint32_t seq)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	uint64_t seed = seed_for(write ? T_UC_WRITE : T_UC_SEND, seq);
	uint32_t len = uc_len(c);
	struct ibv_send_wr wr;
	struct seglist s, d;
	struct ibv_sge sge;

	uc_slot(c, UC_SRC, seq % UC_WINDOW, &s);
	for (uint32_t i = 0; i < len; i++)
		c->buf[s.off[0] + i] = uc_byte(seed, seq, i);
	to_sges(c, &s, &sge);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seq;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (write) {
		uc_slot(c, UC_WRITE, seq, &d);
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.wr.rdma.remote_addr = c->peer.addr + d.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		wr.imm_data = htonl(seq);
	} else if (seq & 1) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(seq);
	} else {
		wr.opcode = IBV_WR_SEND;
	}
	return post_send(c, st, &wr);
}

/*
 * Client: send the phase's UC_N messages, at most UC_WINDOW outstanding
 * (a source slot is refilled only after its send completed).  Returns the
 * number of sends that completed successfully.
 */
static unsigned uc_send_all(struct ctx *c, bool write)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	enum ibv_wc_opcode op = write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;
	unsigned posted = 0, done = 0;
	struct ibv_wc wc;
	char what[64];

	while (done < posted || (posted < UC_N && !c->broken)) {
		if (posted < UC_N && !c->broken && posted - done < UC_WINDOW) {
			if (uc_post(c, write, posted) == 0)
				posted++;
			continue;
		}
		snprintf(what, sizeof(what), "%s #%u",
			 write ? "RDMA_WRITE_WITH_IMM" :
			 done & 1 ? "SEND_WITH_IMM" : "SEND", done);
		if (expect_wc(c, c->scq, st, what, done, op, &wc) < 0)
			break;
		done++;
	}
	return done;
}

static void uc_client(struct ctx *c, bool write, bool *ctl_failed)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	unsigned sent = uc_send_all(c, write);
	uint64_t v[2] = { sent, subtests[st].nfail };

	printf("# %s: %u of %d messages sent\n", subtests[st].name, sent, UC_N);
	if (msg_send(c, write ? "UC-WRITTEN" : "UC-SENT", v, 2, NULL) ||
	    msg_recv(c, "UC-RECEIVED", v, 2, NULL)) {
		*ctl_failed = true;
		return;
	}
	snprintf(st_note[st], sizeof(st_note[st]), "received %" PRIu64 "/%d, sent %u/%d",
		 v[0], UC_N, sent, UC_N);
	if (v[1])
		printf("# %s: the server reports %" PRIu64 " failures\n",
		       subtests[st].name, v[1]);
}

static void uc_server(struct ctx *c, struct uc_rx *rx, bool write,
		      bool *ctl_failed)
{
	int st = rx->st;
	uint64_t sent = 0, v[2];

	if (uc_collect(c, rx, write ? "UC-WRITTEN" : "UC-SENT", &sent)) {
		*ctl_failed = true;
		return;
	}
	uc_rx_final(c, rx);
	printf("# %s: %u of %d messages received, %d lost; the client sent %" PRIu64 "\n",
	       subtests[st].name, rx->received, UC_N, UC_N - (int)rx->received, sent);
	if (10 * rx->received < UC_N)
		fail(st, "only %u of %d messages arrived (fewer than a tenth)",
		     rx->received, UC_N);
	snprintf(st_note[st], sizeof(st_note[st]), "received %u/%d",
		 rx->received, UC_N);
	v[0] = rx->received;
	v[1] = subtests[st].nfail;
	if (msg_send(c, "UC-RECEIVED", v, 2, NULL))
		*ctl_failed = true;
}

/* One UC phase between its START and END handshakes. */
static int uc_phase(struct ctx *c, struct uc_rx *rx, bool write)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	bool ctl_failed = false;
	struct seglist s;
	int r;

	/* Server: guard-fill the area and post the receives first. */
	if (c->server && !c->broken) {
		enum uc_area area = write ? UC_WRITE : UC_RECV;

		uc_rx_start(c, rx, write);
		fill_guard(c->buf, uc_base(c, area),
			   uc_base(c, area) + UC_N * uc_stride(c, area));
		for (unsigned k = 0; k < UC_N && !c->broken; k++) {
			uc_slot(c, area, k, &s);
			if (write)	/* for the immediate only: no SGE */
				post_recv(c, st, UC_N + k, &s, 0);
			else
				post_recv(c, st, k, &s, 1);
		}
	}
	r = phase_sync(c, write ? "UC-WRITE-START" : "UC-SEND-START");
	if (r < 0)
		return -1;
	if (r == 0)
		fail(st, "skipped: QP unusable after an earlier failure (this side or peer)");
	else if (c->server)
		uc_server(c, rx, write, &ctl_failed);
	else
		uc_client(c, write, &ctl_failed);
	if (ctl_failed)
		return -1;
	if (phase_sync(c, write ? "UC-WRITE-END" : "UC-SEND-END") < 0)
		return -1;
	report(st);
	return 0;
}

/* -m uc: both phases; 0 when done (results are then exchanged), -1 on a
 * control connection failure. */
int uc_run(struct ctx *c)
{
	static struct uc_rx rx;

	rx.have_wr = false;
	if (uc_phase(c, &rx, false) || uc_phase(c, &rx, true))
		return -1;
	return 0;
}
