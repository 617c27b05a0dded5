// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drives one table case through the core's C ABI and reports every
 * comparison to the test framework's checker.  Shared by KUnit and the
 * userspace GoogleTest runner.
 */
#include "case.h"
#include <sroce/psn.h>

#define CHECK(what, exp, act) chk->check(chk->ctx, (what), step, (uint64_t)(exp), (uint64_t)(act))

static void compare(const struct sroce_exp *e, const struct sroce_resp_desc *d,
		    uint32_t step, const struct sroce_case_checker *chk)
{
	CHECK("resp.kind", e->kind, d->kind);
	CHECK("resp.opcode", e->opcode, d->opcode);
	CHECK("resp.psn", e->psn, d->psn);
	CHECK("resp.has_aeth", e->has_aeth, d->has_aeth);
	CHECK("resp.msn", e->msn, d->has_aeth ? d->msn : 0);
	CHECK("resp.syndrome", e->syndrome, d->syndrome);
	CHECK("resp.rule", e->rule, d->rule);
	CHECK("resp.qp_event", e->qp_event, d->qp_event);
	CHECK("resp.va", e->va, d->va);
	CHECK("resp.length", e->length, d->length);
	CHECK("resp.atomic_orig", e->atomic_orig, d->atomic_orig);
}

static struct sroce_resp_ret do_step(const struct sroce_step *s, struct sroce_resp_qp *qp)
{
	struct sroce_resp_ret ret = { .action = SROCE_ACT_HOLD };
	struct sroce_resp_req req = {
		.psn = s->psn, .opcode = s->opcode, .ackreq = s->ackreq,
		.payload_len = s->len, .dma_len = s->dma_len, .rkey = s->rkey, .va = s->va,
	};
	struct sroce_exec ex = { .status = s->status, .atomic_orig = s->orig };

	switch (s->op) {
	case STEP_RX:
		req.verdict = s->verdict1 ? s->verdict1 - 1 : sroce_resp_classify(qp, s->psn);
		return sroce_resp_rx(qp, &req);
	case STEP_EXEC:
		return sroce_resp_executed(qp, &ex);
	case STEP_BATCH_BEGIN:
		sroce_resp_batch_begin(qp);
		return ret;
	case STEP_BATCH_END:
		return sroce_resp_batch_end(qp);
	case STEP_CREDITS:
		return sroce_resp_set_credits(qp, s->value);
	case STEP_READ_FAIL:
		return sroce_resp_read_failed(qp, s->status);
	case STEP_PMTU:
		sroce_resp_set_pmtu(qp, s->value);
		return ret;
	default:
		return ret;
	}
}

void sroce_case_run(const struct sroce_case *c, struct sroce_case_ws *ws,
		    const struct sroce_case_checker *chk)
{
	uint32_t nres = c->nres <= SROCE_CASE_MAX_RES ? c->nres : SROCE_CASE_MAX_RES;
	uint32_t step, i;

	sroce_resp_init(&ws->qp, &c->params, ws->res, nres);
	if (c->credits)
		sroce_resp_set_credits(&ws->qp, c->credits);

	for (step = 0; step < c->nsteps; step++) {
		const struct sroce_step *s = &c->steps[step];
		struct sroce_resp_desc d;
		struct sroce_resp_ret ret;
		uint32_t limit = s->op == STEP_PULL_ONE ? 1 : s->keep ? 0 : ~0u;
		uint32_t got = 0;

		ret = do_step(s, &ws->qp);
		if (s->op != STEP_PULL_ONE) {
			CHECK("action", s->action, ret.action);
			if (s->action == SROCE_ACT_DROP)
				CHECK("drop reason", s->reason, ret.reason);
			/* Execute flags come with an EXECUTE and nothing else. */
			if (s->exec1)
				CHECK("exec flags", s->exec1 & 0x7f, ret.exec);
			else if (ret.action != SROCE_ACT_EXECUTE)
				CHECK("exec flags", 0, ret.exec);
		}
		/* Every response the step made, and nothing more. */
		while (got < limit && sroce_resp_pull(&ws->qp, &d)) {
			if (got < s->nresp)
				compare(&s->resp[got], &d, step, chk);
			got++;
		}
		if (!s->keep)
			CHECK("response count", s->nresp, got);
		if (s->check & SROCE_CHECK_EPSN)
			CHECK("expected psn", s->epsn, sroce_resp_expected_psn(&ws->qp));
		if (s->check & SROCE_CHECK_MSN)
			CHECK("msn", s->msn, sroce_resp_msn(&ws->qp));
	}
	/* Whatever the steps left queued is a response nobody expected. */
	for (i = 0; i < 64; i++) {
		struct sroce_resp_desc d;

		if (!sroce_resp_pull(&ws->qp, &d))
			break;
	}
	step = c->nsteps;
	CHECK("leftover responses", 0, i);
	if (c->check_stats) {
		const struct sroce_resp_stats *st = sroce_resp_get_stats(&ws->qp);

		CHECK("acks_coalesced", c->coalesced, st->acks_coalesced);
		CHECK("seq_episodes", c->seq_episodes, st->seq_episodes);
	}
	if (c->check_sent) {
		const struct sroce_resp_stats *st = sroce_resp_get_stats(&ws->qp);

		CHECK("sent read responses", c->sent_read,
		      st->sent[SROCE_RESP_READ_FIRST] + st->sent[SROCE_RESP_READ_MIDDLE] +
		      st->sent[SROCE_RESP_READ_LAST] + st->sent[SROCE_RESP_READ_ONLY]);
		CHECK("sent naks", c->sent_nak, st->sent[SROCE_RESP_NAK]);
	}
}

/* One SEND with AckReq while @posted receive WQEs remain: check the code. */
void sroce_credit_case_run(const struct sroce_credit_case *c, struct sroce_case_ws *ws,
			   const struct sroce_case_checker *chk)
{
	struct sroce_resp_params p = { .epsn = 1, .pmtu = 1024, .ack_coalesce_max = 16 };
	struct sroce_resp_req req = { .psn = 1, .opcode = SROCE_OP_WRITE_ONLY, .ackreq = 1 };
	struct sroce_exec ex = { .status = SROCE_EXEC_OK };
	struct sroce_resp_desc d;
	uint32_t step = 0;

	sroce_resp_init(&ws->qp, &p, ws->res, 0);
	sroce_resp_set_credits(&ws->qp, c->posted);
	req.verdict = sroce_resp_classify(&ws->qp, req.psn);
	CHECK("action", SROCE_ACT_EXECUTE, sroce_resp_rx(&ws->qp, &req).action);
	CHECK("action", SROCE_ACT_RESPOND, sroce_resp_executed(&ws->qp, &ex).action);
	CHECK("pulled", 1, sroce_resp_pull(&ws->qp, &d));
	CHECK("resp.kind", SROCE_RESP_ACK, d.kind);
	CHECK("resp.syndrome", (SROCE_AETH_ACK << 5) | c->code, d.syndrome);
	CHECK("credit code", c->code, sroce_aeth_credit_code(c->posted));
	/* The code never promises more WQEs than are posted. */
	CHECK("count <= posted", 1, sroce_aeth_credit_count(c->code) <= c->posted);
}

void sroce_psn_case_run(const struct sroce_psn_case *c, struct sroce_case_ws *ws,
			const struct sroce_case_checker *chk)
{
	struct sroce_resp_params p = { .epsn = c->epsn, .pmtu = 1024 };
	uint32_t step = 0;

	sroce_resp_init(&ws->qp, &p, ws->res, 0);
	CHECK("diff", (int64_t)c->diff, (int64_t)sroce_psn_diff(c->psn, c->epsn));
	CHECK("verdict", c->verdict, sroce_resp_classify(&ws->qp, c->psn));
	/* The row's own psn, a literal: epsn advanced by diff lands on it. */
	CHECK("add wraps", c->psn, sroce_psn_add(c->epsn, (uint32_t)c->diff));
}

void sroce_aeth_case_run(const struct sroce_aeth_case *c, const struct sroce_case_checker *chk)
{
	uint32_t step = 0;
	uint8_t syn = sroce_aeth_syndrome((enum sroce_aeth_kind)c->kind, c->value);

	CHECK("syndrome", c->syndrome, syn);
	CHECK("kind back", c->kind, sroce_aeth_kind_of(syn));
	CHECK("reserved bit 7 clear", 0, syn & 0x80);
}
