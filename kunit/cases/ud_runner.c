// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Runs the UD receive cases of ud.h through include/sroce/ud_abi.h. */
#include "ud_case.h"

#define CHECK(what, exp, act) chk->check(chk->ctx, (what), 0, (uint64_t)(exp), (uint64_t)(act))

void sroce_ud_case_run(const struct sroce_ud_case *c, const struct sroce_case_checker *chk)
{
	struct sroce_ud_ret r = sroce_ud_admit(c->qp_qkey, &c->req);

	CHECK("admit action", c->admit_action, r.action);
	CHECK("admit reason", c->admit_reason, r.reason);
	CHECK("admit rule", c->admit_rule, r.rule);
	if (r.action != SROCE_UD_TAKE_WQE)
		return;
	r = sroce_ud_place(&c->req, c->wqe, c->wqe_len);
	CHECK("place action", c->place.action, r.action);
	CHECK("place reason", c->place.reason, r.reason);
	CHECK("place rule", c->place.rule, r.rule);
	CHECK("place status", c->place.status, r.status);
	CHECK("byte_len", c->place.byte_len, r.byte_len);
	CHECK("data_off", c->place.data_off, r.data_off);
}

void sroce_ud_qkey_case_run(const struct sroce_ud_qkey_case *c,
			    const struct sroce_case_checker *chk)
{
	CHECK("deth q_key", c->deth_qkey, sroce_ud_deth_qkey(c->wr_qkey, c->qp_qkey));
}
