// SPDX-License-Identifier: GPL-2.0
/*
 * mode_wire.c - the error-path modes whose requests no verbs provider
 * would send: misaligned_atomic and malformed.  The server's responder is
 * the one under test (tools/testvm/errors-guest.sh checks its counters).
 *
 * Hand-built packets (inject.c), sent by the client from a raw IPv4 socket
 * with the QPN and PSN of the connected pair; the client's own QP never
 * sends a request in these modes until the final READ of malformed.
 * Both need IPv4-mapped GIDs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"
#include "integrity.h"

#define INJ_SNIFF_MS	5000	/* longest wait for an expected response */
#define INJ_QUIET_MS	1000	/* silence expected after a dropped packet */

struct inj_ctx {
	int tx, rx;
	struct in_addr me, peer;
	char err[200];
};

static int inj_setup(struct ctx *c, struct inj_ctx *ic)
{
	ic->tx = ic->rx = -1;
	if (!inj_gid_ipv4(c->gid.raw, &ic->me) ||
	    !inj_gid_ipv4(c->peer.gid.raw, &ic->peer)) {
		fail(ST_MODE, "hand-built packets need IPv4-mapped GIDs on both sides");
		return -1;
	}
	ic->rx = inj_open_sniffer(ic->err, sizeof(ic->err));
	if (ic->rx >= 0)
		ic->tx = inj_open_sender(ic->err, sizeof(ic->err));
	if (ic->tx < 0) {
		fail(ST_MODE, "%s", ic->err);
		return -1;
	}
	return 0;
}

static void inj_close(struct inj_ctx *ic)
{
	if (ic->tx >= 0)
		close(ic->tx);
	if (ic->rx >= 0)
		close(ic->rx);
}

/* A request to the server's QP at the server's next expected PSN. */
static void inj_base(const struct ctx *c, const struct inj_ctx *ic,
		     struct inj_pkt *p, uint8_t opcode)
{
	memset(p, 0, sizeof(*p));
	p->src = ic->me;
	p->dst = ic->peer;
	p->udp_sport = (uint16_t)(0xc000 | (c->qp->qp_num & 0x3fff));
	p->opcode = opcode;
	p->pkey = 0xffff;
	p->qpn = c->peer.qpn;
	p->psn = c->psn;
	p->ackreq = true;
}

/* Expect no packet at all from the server for INJ_QUIET_MS. */
static void inj_expect_silence(struct inj_ctx *ic, const char *what)
{
	struct inj_seen s;
	int r = inj_sniff(ic->rx, ic->peer, INJ_QUIET_MS, &s, ic->err, sizeof(ic->err));

	if (r < 0)
		fail(ST_MODE, "%s: %s", what, ic->err);
	else if (r > 0)
		fail(ST_MODE, "%s: the server answered (opcode 0x%02x PSN 0x%06x syndrome 0x%02x); it must drop it silently",
		     what, s.opcode, s.psn, s.syndrome);
	else
		printf("# %s: no answer in %u ms, as expected\n", what, INJ_QUIET_MS);
}

/*
 * misaligned_atomic: a FETCH_ADD to the server's MR at an address that is
 * not 8-byte aligned, at the server's expected PSN.  The responder must
 * answer NAK Invalid Request (AETH syndrome 0x61) carrying its expected
 * PSN and MSN 0 (C9-121), with a valid ICRC, touch no memory, move its QP
 * to the error state, and then drop the same packet sent again.
 */
void misaligned_client(struct ctx *c)
{
	uint64_t va = c->peer.addr + MODE_OFF;	/* MODE_OFF is odd */
	uint8_t eth[INJ_ATMETH_LEN];
	struct inj_ctx ic;
	struct inj_pkt p;
	struct inj_seen s;
	int r;

	if (inj_setup(c, &ic))
		goto out;
	inj_base(c, &ic, &p, INJ_OP_FETCH_ADD);
	p.ext = eth;
	p.ext_len = inj_put_atmeth(eth, va, c->peer.rkey, 1, 0);
	printf("# misaligned_atomic: FETCH_ADD at VA 0x%" PRIx64 " (VA %% 8 = %u), PSN 0x%06x, to QP 0x%06x\n",
	       va, (unsigned)(va % 8), p.psn, p.qpn);
	if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
		fail(ST_MODE, "%s", ic.err);
		goto out;
	}
	r = inj_sniff(ic.rx, ic.peer, INJ_SNIFF_MS, &s, ic.err, sizeof(ic.err));
	if (r <= 0) {
		fail(ST_MODE, "no response from the server: %s",
		     r ? ic.err : "timeout");
		goto out;
	}
	printf("# response: opcode 0x%02x to QP 0x%06x PSN 0x%06x syndrome 0x%02x MSN %u ICRC %s\n",
	       s.opcode, s.qpn, s.psn, s.syndrome, s.msn, s.icrc_ok ? "ok" : "BAD");
	if (s.opcode != INJ_OP_ACKNOWLEDGE || !s.has_aeth)
		fail(ST_MODE, "response opcode 0x%02x, expected Acknowledge 0x11", s.opcode);
	if (s.syndrome != 0x61)
		fail(ST_MODE, "AETH syndrome 0x%02x, expected 0x61 (NAK invalid request)",
		     s.syndrome);
	if (s.psn != c->psn)
		fail(ST_MODE, "NAK PSN 0x%06x, expected the request's 0x%06x", s.psn, c->psn);
	if (s.msn != 0)
		fail(ST_MODE, "NAK MSN %u, expected 0 (no message completed)", s.msn);
	if (s.qpn != c->qp->qp_num)
		fail(ST_MODE, "NAK to QP 0x%06x, expected 0x%06x", s.qpn, c->qp->qp_num);
	if (!s.icrc_ok)
		fail(ST_MODE, "the NAK's ICRC is wrong");
	if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
		fail(ST_MODE, "%s", ic.err);
		goto out;
	}
	inj_expect_silence(&ic, "the same FETCH_ADD to the QP in error");
out:
	inj_close(&ic);
}

/* One malformed packet: what is wrong with it, and the drop it must get. */
enum malformed_kind {
	MF_TOO_SHORT, MF_TVER, MF_PKEY, MF_OPCODE, MF_RESPONSE, MF_PAD, MF_ICRC,
	MF_NO_QP, MF_QP_STATE, MF_SRC_ADDR, MF_COUNT
};

static const char *const malformed_names[MF_COUNT] = {
	[MF_TOO_SHORT]	= "UDP payload of 8 bytes (rx_drop_too_short)",
	[MF_TVER]	= "BTH TVer 1 (rx_drop_bad_tver)",
	[MF_PKEY]	= "P_Key 0x0001 (rx_drop_bad_pkey)",
	[MF_OPCODE]	= "reserved RC opcode 0x1f (rx_drop_bad_opcode)",
	[MF_RESPONSE]	= "an Acknowledge that answers nothing the QP sent (comp_drop_ghost or _duplicate)",
	[MF_PAD]	= "PadCnt 3 with no payload (rx_drop_bad_pad)",
	[MF_ICRC]	= "one ICRC bit flipped (rx_drop_bad_icrc)",
	[MF_NO_QP]	= "a destination QP that does not exist (rx_drop_no_qp)",
	[MF_QP_STATE]	= "a destination QP in INIT (rx_drop_qp_state)",
	[MF_SRC_ADDR]	= "a source IP that is not the QP's peer (rx_drop_bad_addr)",
};

/*
 * malformed: a valid 16-byte RDMA WRITE at the server's expected PSN, sent
 * once per kind above with one thing wrong.  Each must be dropped without
 * an answer and without touching memory (the guest script checks that each
 * named drop counter moved by exactly one); afterwards the QP must still
 * serve an RDMA READ at that same PSN.  The server also creates a second
 * QP, left in INIT, as the target of MF_QP_STATE.
 */
static void malformed_inject(struct ctx *c, uint32_t init_qpn)
{
	uint8_t reth[INJ_RETH_LEN], aeth[INJ_AETH_LEN] = { 0 };
	uint8_t data[16] = "sroce-malformed";
	struct seglist s;
	struct inj_ctx ic;
	char why[200];

	if (inj_setup(c, &ic))
		goto out;
	for (int k = 0; k < MF_COUNT; k++) {
		struct inj_pkt p;

		inj_base(c, &ic, &p, INJ_OP_RDMA_WRITE_ONLY);
		p.ext = reth;
		p.ext_len = inj_put_reth(reth, c->peer.addr + MODE_OFF, c->peer.rkey,
					 sizeof(data));
		p.payload = data;
		p.payload_len = sizeof(data);
		switch (k) {
		case MF_TOO_SHORT:
			p.truncate = 8;
			break;
		case MF_TVER:
			p.flags = INJ_BTH_TVER(1);
			break;
		case MF_PKEY:
			p.pkey = 0x0001;
			break;
		case MF_OPCODE:
			p.opcode = INJ_OP_RESERVED_RC;
			p.ext_len = 0;
			break;
		case MF_RESPONSE:
			p.opcode = INJ_OP_ACKNOWLEDGE;
			p.ext = aeth;
			p.ext_len = sizeof(aeth);
			p.payload_len = 0;
			break;
		case MF_PAD:
			p.flags = INJ_BTH_PAD(3);
			p.ext_len = inj_put_reth(reth, c->peer.addr + MODE_OFF,
						 c->peer.rkey, 0);
			p.payload_len = 0;
			break;
		case MF_ICRC:
			p.bad_icrc = true;
			break;
		case MF_NO_QP:
			p.qpn = c->peer.qpn ^ 0x400000;
			break;
		case MF_QP_STATE:
			p.qpn = init_qpn;
			break;
		case MF_SRC_ADDR:
			p.src.s_addr = htonl(ntohl(ic.me.s_addr) ^ 0x80);
			break;
		}
		printf("# malformed %d: %s\n", k, malformed_names[k]);
		if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
			fail(ST_MODE, "%s: %s", malformed_names[k], ic.err);
			goto out;
		}
	}
	inj_expect_silence(&ic, "all malformed packets");

	/* The QP still works, from the PSN none of them consumed. */
	one_seg(&s, MODE_OFF, 64);
	fill_guard(c->buf, s.rstart, s.rend);
	if (!post_one(c, IBV_WR_RDMA_READ, 1, MODE_OFF, 64, c->peer.addr + MODE_OFF,
		      c->peer.rkey))
		expect_status(c, "RDMA_READ after the malformed packets", 1,
			      IBV_WC_SUCCESS);
	/* The server's bytes there are still its guard pattern. */
	for (unsigned i = 0; i < 64; i++) {
		if (c->buf[MODE_OFF + i] != guard_byte(MODE_OFF + i)) {
			snprintf(why, sizeof(why), "byte %u read back 0x%02x, the server's guard is 0x%02x",
				 i, c->buf[MODE_OFF + i], guard_byte(MODE_OFF + i));
			fail(ST_MODE, "RDMA_READ data: %s", why);
			break;
		}
	}
out:
	inj_close(&ic);
}

/* malformed, server side: the INIT-state QP that MF_QP_STATE targets. */
void malformed_server(struct ctx *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	uint64_t v[1] = { 0 };
	int r;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(c->pd, &ia);
	if (!qp) {
		fail(ST_MODE, "ibv_create_qp (second QP): %s", strerror(errno));
	} else {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = c->ib_port;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (r)
			fail(ST_MODE, "ibv_modify_qp (second QP) to INIT: %s", strerror(r));
		else
			v[0] = qp->qp_num;
	}
	printf("# malformed: second QP 0x%06" PRIx64 " in INIT\n", v[0]);
	if (msg_send(c, "INIT-QP", v, 1, NULL) || msg_recv(c, "INJECTED", v, 1, NULL))
		c->broken = true;
	if (qp && (r = ibv_destroy_qp(qp)))
		fail(ST_MODE, "ibv_destroy_qp (second QP): %s", strerror(r));
}

/* Client side of the INIT-QP / INJECTED exchange around malformed_inject. */
void malformed_client(struct ctx *c)
{
	uint64_t v[1];

	if (msg_recv(c, "INIT-QP", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!v[0])
		fail(ST_MODE, "the server has no second QP in INIT");
	else
		malformed_inject(c, (uint32_t)v[0]);
	if (msg_send(c, "INJECTED", v, 1, NULL))
		c->broken = true;
}
