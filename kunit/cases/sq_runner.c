// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drives one requester/completer table case through the C ABI and
 * reports every comparison to the test framework's checker.  Shared by
 * KUnit and the userspace GoogleTest runner.
 */
#include "sq_case.h"
#include <sroce/psn.h>

#define CHECK(what, exp, act) chk->check(chk->ctx, (what), step, (uint64_t)(exp), (uint64_t)(act))

static void compare_pkt(const struct sroce_sq_exp_pkt *e, const struct sroce_req_pkt *p,
			uint32_t psn0, uint32_t step, const struct sroce_case_checker *chk)
{
	CHECK("pkt.opcode", e->opcode, p->opcode);
	CHECK("pkt.psn", sroce_psn_add(psn0, e->psn), p->psn);
	CHECK("pkt.wqe", e->wqe, p->wqe);
	CHECK("pkt.offset", e->offset, p->offset);
	CHECK("pkt.length", e->length, p->length);
	CHECK("pkt.pad_count", (4 - (e->length & 3)) & 3, p->pad_count);
	CHECK("pkt.flags", e->flags, p->flags);
	CHECK("pkt.rule", e->rule, p->rule);
	CHECK("pkt.va", e->va, p->va);
	CHECK("pkt.rkey", e->rkey, p->rkey);
	CHECK("pkt.dma_len", e->dma_len, p->dma_len);
	CHECK("pkt.imm", e->imm, p->imm);
	CHECK("pkt.swap_add", e->swap_add, p->swap_add);
	CHECK("pkt.compare", e->compare, p->compare);
}

static void compare_cqe(const struct sroce_sq_exp_cqe *e, const struct sroce_sq_cqe *c,
			uint32_t step, const struct sroce_case_checker *chk)
{
	CHECK("cqe.wqe", e->wqe, c->wqe);
	CHECK("cqe.status", e->status, c->status);
	CHECK("cqe.byte_len", e->byte_len, c->byte_len);
	CHECK("cqe.signaled", e->signaled, c->signaled);
	CHECK("cqe.qp_error", e->qp_error, c->qp_error);
	CHECK("cqe.rule", e->rule, c->rule);
}

static void post(const struct sroce_sq_step *s, struct sroce_sq_case_ws *ws, uint32_t step,
		 const struct sroce_case_checker *chk)
{
	uint32_t pos = sroce_sq_producer(&ws->sq);
	struct sroce_sq_wqe *w = &ws->ring[pos % SROCE_SQ_CASE_SLOTS];

	*w = (struct sroce_sq_wqe){
		.op = s->wr, .flags = s->wflags, .length = s->len, .remote_va = s->va,
		.rkey = s->rkey, .imm = s->imm, .swap_add = s->swap_add, .compare = s->compare,
	};
	CHECK("posted", 1, sroce_req_post(&ws->sq, 1));
}

/* SQ_NEXT: every packet until the requester stops, then why it stopped. */
static struct sroce_sq_ret next(const struct sroce_sq_step *s, struct sroce_sq_case_ws *ws,
				uint32_t psn0, uint32_t step, const struct sroce_case_checker *chk)
{
	struct sroce_sq_ret r = { .action = SROCE_SQ_IDLE };
	struct sroce_sq_ret first_timer = { .timer = SROCE_TMR_KEEP };
	struct sroce_req_pkt pkt;
	uint32_t got = 0;

	for (;;) {
		if (s->value && got == s->value)
			break;
		if (s->op == SQ_NEXT_PASS && got + 1 == s->value)
			r = sroce_req_next_last(&ws->sq, &pkt);
		else if (s->op == SQ_NEXT_AGED)
			r = sroce_req_next_hint(&ws->sq, &pkt, SROCE_REQ_HINT_TIMER_AGED);
		else
			r = sroce_req_next(&ws->sq, &pkt);
		if (r.action != SROCE_SQ_SEND || got > 64)
			break;
		if (first_timer.timer == SROCE_TMR_KEEP)
			first_timer.timer = r.timer;
		if (got < s->npkt)
			compare_pkt(&s->pkts[got], &pkt, psn0, step, chk);
		got++;
	}
	CHECK("packet count", s->npkt, got);
	r.timer = first_timer.timer;
	return r;
}

static struct sroce_sq_ret do_step(const struct sroce_sq_step *s, struct sroce_sq_case_ws *ws,
				   uint32_t psn0, uint32_t step,
				   const struct sroce_case_checker *chk)
{
	struct sroce_sq_ret none = { .action = SROCE_SQ_IDLE };
	struct sroce_comp_pkt resp = {
		.opcode = s->opcode, .psn = sroce_psn_add(psn0, s->psn), .msn = s->msn,
		.syndrome = s->syndrome, .payload_len = s->plen, .atomic_orig = s->orig,
	};
	struct sroce_comp_place place = { 0 };
	struct sroce_sq_ret r;

	switch (s->op) {
	case SQ_POST:
		post(s, ws, step, chk);
		return none;
	case SQ_POST_ERROR:
		CHECK("posted", 1, sroce_req_post_error(&ws->sq, s->status));
		return none;
	case SQ_NEXT:
	case SQ_NEXT_PASS:
	case SQ_NEXT_AGED:
		return next(s, ws, psn0, step, chk);
	case SQ_RESP:
		r = sroce_comp_rx(&ws->sq, &resp, &place);
		if (s->check & SQ_CHECK_PLACE) {
			CHECK("place.wqe", s->place.wqe, place.wqe);
			CHECK("place.offset", s->place.offset, place.offset);
			CHECK("place.length", s->place.length, place.length);
			CHECK("place.atomic", s->place.atomic, place.atomic);
			CHECK("place.atomic_orig", s->place.atomic_orig, place.atomic_orig);
		}
		return r;
	case SQ_PLACED:
		return sroce_comp_placed(&ws->sq, s->status);
	case SQ_TIMEOUT:
		return sroce_comp_timeout(&ws->sq);
	case SQ_RNR_DONE:
		return sroce_comp_rnr_expired(&ws->sq);
	case SQ_UNSEND:
		sroce_req_unsend(&ws->sq);
		return none;
	case SQ_WQE_ERROR:
		return sroce_req_wqe_error(&ws->sq, s->status);
	case SQ_LOCAL_DONE:
		return sroce_req_local_done(&ws->sq, s->status);
	case SQ_FLUSH:
		sroce_sq_flush(&ws->sq);
		return none;
	case SQ_DRAIN:
		sroce_req_set_draining(&ws->sq, (uint8_t)s->value);
		return none;
	case SQ_PORT_MTU:
		sroce_req_set_port_mtu(&ws->sq, s->value);
		return none;
	case SQ_HELD:
		return sroce_req_held(&ws->sq);
	default:
		return none;
	}
}

void sroce_sq_case_run(const struct sroce_sq_case *c, struct sroce_sq_case_ws *ws,
		       const struct sroce_case_checker *chk)
{
	uint32_t psn0 = c->params.psn & SROCE_PSN_MASK;
	struct sroce_sq_cqe cqe;
	uint32_t step, i;

	sroce_sq_init(&ws->sq, &c->params, ws->ring, SROCE_SQ_CASE_SLOTS);
	for (step = 0; step < c->nsteps; step++) {
		const struct sroce_sq_step *s = &c->steps[step];
		struct sroce_sq_ret r;

		if (s->op == SQ_PULL) {
			for (i = 0; i < 64 && sroce_comp_pull(&ws->sq, &cqe); i++)
				if (i < s->ncqe)
					compare_cqe(&s->cqes[i], &cqe, step, chk);
			CHECK("completion count", s->ncqe, i);
			continue;
		}
		r = do_step(s, ws, psn0, step, chk);
		if (s->drained1)
			CHECK("drained", s->drained1 - 1, sroce_sq_drained(&ws->sq));
		if (s->op == SQ_POST || s->op == SQ_POST_ERROR || s->op == SQ_UNSEND ||
		    s->op == SQ_FLUSH || s->op == SQ_DRAIN || s->op == SQ_PORT_MTU)
			continue;
		CHECK("action", s->action, r.action);
		CHECK("reason", s->reason, r.reason);
		CHECK("rule", s->rule, r.rule);
		CHECK("timer", s->timer, r.timer);
		if (r.timer == SROCE_TMR_RNR)
			CHECK("rnr code", s->syndrome & SROCE_AETH_VALUE_MASK, r.rnr_code);
		if (s->check & SQ_CHECK_ACKED)
			CHECK("acked psn", sroce_psn_add(psn0, s->acked),
			      sroce_sq_acked_psn(&ws->sq));
	}
	/* Whatever completed and the steps did not pull is unexpected. */
	step = c->nsteps;
	for (i = 0; i < 64 && sroce_comp_pull(&ws->sq, &cqe); i++)
		;
	CHECK("leftover completions", 0, i);
}
