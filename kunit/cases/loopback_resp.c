// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loopback stream test's responder end (see loopback.h): the request
 * packets the forward channel delivers go to the responder core, which
 * executes them here against the simulated remote memory and receive
 * queue; its responses go into the backward channel.  No library, only
 * the compiler's builtins.
 */
#include "loopback_int.h"

static void deliver_send(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p, uint8_t xf)
{
	const struct sroce_loop_work *k;

	if (xf & SROCE_XF_FIRST)
		ws->msg_len = 0;
	if (!sroce_loop_check_le(ws, "SEND message within its longest", SROCE_LOOP_MAX_MSG,
				 (uint64_t)ws->msg_len + p->len)) {
		sroce_loop_fatal(ws);
		return;
	}
	loop_copy(&ws->msg[ws->msg_len], p->data, p->len);
	ws->msg_len += p->len;
	if (!(xf & SROCE_XF_LAST))
		return;
	/* SEND payloads arrive in order, each once. */
	if (!sroce_loop_check_le(ws, "SEND message has a SEND WQE (messages delivered)",
				 ws->nsends, ws->nreceived + 1)) {
		sroce_loop_fatal(ws);
		return;
	}
	k = &ws->work[ws->send_wqe[ws->nreceived++]];
	sroce_loop_check_eq(ws, "SEND payload length", k->w.length, ws->msg_len);
	if (k->w.length == ws->msg_len)
		sroce_loop_check_eq(ws, "SEND payload bytes (memcmp)", 0,
				    ws->msg_len ?
				    __builtin_memcmp(ws->msg, k->local, ws->msg_len) != 0 : 0);
}

static uint8_t execute(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p, uint8_t xf,
		       uint64_t *orig)
{
	uint64_t v;

	if (xf & SROCE_XF_WQE) {
		if (!ws->recvs)
			return SROCE_EXEC_RNR;
		ws->recvs--;
		sroce_resp_set_credits(&ws->rq, ws->recvs);
	}
	if (xf & SROCE_XF_SEND) {
		deliver_send(ws, p, xf);
	} else if (xf & SROCE_XF_WRITE) {
		if (xf & SROCE_XF_FIRST)
			ws->write_va = p->req.va;
		if (!sroce_loop_check_le(ws, "WRITE within remote memory", SROCE_LOOP_REMOTE_SIZE,
					 ws->write_va + p->len)) {
			sroce_loop_fatal(ws);
			return SROCE_EXEC_OK;
		}
		loop_copy(&ws->remote[ws->write_va], p->data, p->len);
		ws->write_va += p->len;
		if ((xf & SROCE_XF_LAST) && (xf & SROCE_XF_WQE))
			ws->imms++;
	} else if (xf & SROCE_XF_ATOMIC) {
		if (!sroce_loop_check_le(ws, "ATOMIC within remote memory", SROCE_LOOP_REMOTE_SIZE,
					 p->req.va + 8)) {
			sroce_loop_fatal(ws);
			return SROCE_EXEC_OK;
		}
		loop_copy(&v, &ws->remote[p->req.va], 8);
		*orig = v;
		if (p->req.opcode == SROCE_OP_FETCH_ADD)
			v += p->req.swap_add;
		else if (v == p->req.compare)
			v = p->req.swap_add;
		loop_copy(&ws->remote[p->req.va], &v, 8);
	}
	return SROCE_EXEC_OK;
}

/* Every response the responder core has ready, into the backward channel. */
void sroce_loop_pull_responses(struct sroce_loop_ws *ws)
{
	struct sroce_loop_pkt *p = &ws->scratch;
	struct sroce_resp_desc d;

	while (!ws->stop && sroce_resp_pull(&ws->rq, &d)) {
		/* Reported as 0x100 | its rule if it does. */
		if (!sroce_loop_check_eq(ws, "responder never moves to error (0x100 | rule)", 0,
					 d.kind == SROCE_RESP_QP_ERROR ? 0x100u | d.rule : 0)) {
			TRACE(ws, "responder error, rule %s\n", sroce_rule_name(d.rule));
			sroce_loop_fatal(ws);
			return;
		}
		if (d.kind == SROCE_RESP_NAK && (d.syndrome & 0x1f) == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_loop_check_eq(ws,
					    "a sequence NAK names the expected (first missing) PSN",
					    sroce_resp_expected_psn(&ws->rq), d.psn);
			/* C9-114: one NAK per episode: a second one needs the PSN to have moved. */
			sroce_loop_check_true(ws, "at most one sequence NAK per episode",
					      !ws->nak_sent || d.psn != ws->last_nak_psn);
			ws->nak_sent = 1;
			ws->last_nak_psn = d.psn;
		}
		loop_zero(p, sizeof(*p));
		p->resp = d;
		if (d.kind >= SROCE_RESP_READ_FIRST && d.kind <= SROCE_RESP_READ_ONLY && d.length) {
			if (!sroce_loop_check_le(ws, "READ response from the pattern region",
						 SROCE_LOOP_WRITE_BASE, d.va + d.length) ||
			    !sroce_loop_check_le(ws, "READ response within the path MTU",
						 SROCE_LOOP_PMTU, d.length)) {
				sroce_loop_fatal(ws);
				return;
			}
			loop_copy(p->data, &ws->remote[d.va], d.length);
			p->len = d.length;
		}
		sroce_loop_chan_send(ws, &ws->back, p);
	}
}

static void deliver(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p)
{
	struct sroce_resp_req req = { 0 };
	struct sroce_exec ex = { 0 };
	struct sroce_resp_ret r;

	req.psn = p->req.psn;
	req.opcode = p->req.opcode;
	req.ackreq = (p->req.flags & SROCE_PF_ACKREQ) ? 1 : 0;
	req.payload_len = p->req.length;
	req.dma_len = p->req.dma_len;
	req.rkey = p->req.rkey;
	req.va = p->req.va;
	req.verdict = sroce_resp_classify(&ws->rq, req.psn);
	r = sroce_resp_rx(&ws->rq, &req);
	TRACE(ws, "  responder psn %u op %#x verdict %u -> %s %s %s\n", req.psn, req.opcode,
	      req.verdict, sroce_action_name(r.action), sroce_drop_reason_name(r.reason),
	      sroce_rule_name(r.rule));
	if (r.action == SROCE_ACT_EXECUTE) {
		ex.status = execute(ws, p, r.exec, &ex.atomic_orig);
		sroce_resp_executed(&ws->rq, &ex);
	}
	sroce_loop_pull_responses(ws);
}

/* A round's requests: those the forward channel held at its start, one batch. */
void sroce_loop_responder(struct sroce_loop_ws *ws)
{
	const struct sroce_loop_pkt *p;
	uint32_t i, n = ws->fwd.count;

	sroce_resp_batch_begin(&ws->rq);
	for (i = 0; i < n && !ws->stop && (p = sroce_loop_chan_take(&ws->fwd)); i++)
		deliver(ws, p);
	sroce_resp_batch_end(&ws->rq);
	sroce_loop_pull_responses(ws);
}
