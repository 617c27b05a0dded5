// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Runs the UC receive cases of uc.h through include/sroce/uc_abi.h. */
#include "uc_case.h"

#define CHECK(what, exp, act) chk->check(chk->ctx, (what), step, (uint64_t)(exp), (uint64_t)(act))

static void sroce_uc_check_ret(const struct sroce_case_checker *chk, uint32_t step,
			       const char *const what[6], const struct sroce_uc_ret *exp,
			       const struct sroce_uc_ret *r)
{
	CHECK(what[0], exp->action, r->action);
	CHECK(what[1], exp->exec, r->exec);
	CHECK(what[2], exp->abort, r->abort);
	CHECK(what[3], exp->reason, r->reason);
	CHECK(what[4], exp->rule, r->rule);
	CHECK(what[5], exp->status, r->status);
}

void sroce_uc_case_run(const struct sroce_uc_case *c, const struct sroce_case_checker *chk)
{
	static const char *const rx_what[6] = {
		"rx action", "rx exec", "rx abort", "rx reason", "rx rule", "rx status",
	};
	static const char *const done_what[6] = {
		"executed action", "executed exec", "executed abort", "executed reason",
		"executed rule", "executed status",
	};
	struct sroce_uc_state st;
	uint32_t step;

	sroce_uc_init(&st, c->epsn, c->pmtu, c->srq);
	for (step = 0; step < c->nsteps; step++) {
		const struct sroce_uc_step *s = &c->steps[step];
		struct sroce_uc_ret r = sroce_uc_rx(&st, &s->req);

		sroce_uc_check_ret(chk, step, rx_what, &s->rx, &r);
		if (r.action == SROCE_UC_EXECUTE) {
			r = sroce_uc_executed(&st, s->exec_status);
			sroce_uc_check_ret(chk, step, done_what, &s->done, &r);
		}
		CHECK("expected psn", s->epsn, st.epsn);
	}
	/* A report nobody asked for changes nothing. */
	{
		struct sroce_uc_state before = st;
		struct sroce_uc_ret r = sroce_uc_executed(&st, SROCE_EXEC_OK);

		CHECK("unasked report action", SROCE_UC_DROP, r.action);
		CHECK("unasked report psn", before.epsn, st.epsn);
		CHECK("unasked report in_msg", before.in_msg, st.in_msg);
	}
}
