// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Runs the memory window cases of mw.h through include/sroce/mw_abi.h. */
#include "mw_case.h"

#define CHECK(what, exp, act) chk->check(chk->ctx, (what), 0, (uint64_t)(exp), (uint64_t)(act))

void sroce_mw_case_run(const struct sroce_mw_case *c, const struct sroce_case_checker *chk)
{
	struct sroce_mw_verdict v;

	switch (c->kind) {
	case MW_BIND:
		v = sroce_mw_bind(&c->bind);
		break;
	case MW_INV:
		v = sroce_mw_invalidate(&c->inv);
		break;
	default:
		v = sroce_mw_access(&c->access);
		break;
	}
	CHECK("status", c->want.status, v.status);
	CHECK("state", c->want.state, v.state);
	CHECK("rkey", c->want.rkey, v.rkey);
	CHECK("rule", c->want.rule, v.rule);
	CHECK("va", c->want.va, v.va);
}
