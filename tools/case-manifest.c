// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints every KUnit case the suites must run, one per line:
 *	suite <TAB> case description <TAB> spec rule tags
 * Built from the same tables as kunit/sroce_kunit.c, so a case that did
 * not run in the kernel (or a suite that did not load) is noticed.
 */
#include <stdio.h>

#include "../kunit/cases/case.h"
#include "../kunit/cases/walk.h"
#include "../kunit/cases/coalesce.h"
#include "../kunit/cases/duplicates.h"
#include "../kunit/cases/nak_latch.h"
#include "../kunit/cases/read.h"
#include "../kunit/cases/credits.h"
#include "../kunit/cases/encoding.h"
#include "../kunit/cases/sq_case.h"
#include "../kunit/cases/sq_requester.h"
#include "../kunit/cases/sq_completer.h"
#include "../kunit/cases/sq_ud.h"
#include "../kunit/cases/ud.h"
#include "../kunit/cases/sq_uc.h"
#include "../kunit/cases/sq_local.h"
#include "../kunit/cases/mw_case.h"
#include "../kunit/cases/mw.h"
#include "../kunit/cases/uc.h"
#include "../include/sroce/ib_wire.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void cases(const char *suite, const struct sroce_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", suite, c[i].name, c[i].rules);
}

static void sq_cases(const char *suite, const struct sroce_sq_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", suite, c[i].name, c[i].rules);
}

int main(void)
{
	char buf[128];

	cases("sroce_walk", sroce_cases_walk, N(sroce_cases_walk));
	cases("sroce_coalesce", sroce_cases_coalesce, N(sroce_cases_coalesce));
	cases("sroce_duplicates", sroce_cases_duplicates, N(sroce_cases_duplicates));
	cases("sroce_nak_latch", sroce_cases_nak_latch, N(sroce_cases_nak_latch));
	cases("sroce_read", sroce_cases_read, N(sroce_cases_read));
	cases("sroce_credits", sroce_cases_credits, N(sroce_cases_credits));
	for (size_t i = 0; i < N(sroce_credit_cases); i++) {
		snprintf(buf, sizeof(buf), SROCE_CREDIT_DESC_FMT, sroce_credit_cases[i].posted,
			 sroce_credit_cases[i].code);
		printf("sroce_credits\t%s\tC9-150.2.1 C9-119\n", buf);
	}
	cases("sroce_encoding", sroce_cases_encoding, N(sroce_cases_encoding));
	for (size_t i = 0; i < N(sroce_psn_cases); i++) {
		snprintf(buf, sizeof(buf), SROCE_PSN_DESC_FMT, sroce_psn_cases[i].name);
		printf("sroce_encoding\t%s\tC9-102\n", buf);
	}
	for (size_t i = 0; i < N(sroce_aeth_cases); i++) {
		const char *name = sroce_aeth_cases[i].name;
		int taglen = 0;

		while (name[taglen] && name[taglen] != ' ')
			taglen++;
		printf("sroce_encoding\t%s\t%.*s\n", name, taglen, name);
	}
	printf("sroce_encoding\tnames_test\t\n");
	sq_cases("sroce_requester", sroce_sq_cases_requester, N(sroce_sq_cases_requester));
	sq_cases("sroce_completer", sroce_sq_cases_completer, N(sroce_sq_cases_completer));
	sq_cases("sroce_requester", sroce_sq_cases_local, N(sroce_sq_cases_local));
	printf("sroce_completer\tsq_timers_test\t9.7.6.1-timer\n");
	printf("sroce_completer\tsq_names_test\t\n");
	sq_cases("sroce_ud", sroce_sq_cases_ud, N(sroce_sq_cases_ud));
	for (size_t i = 0; i < N(sroce_ud_cases); i++)
		printf("sroce_ud\t%s\t%s\n", sroce_ud_cases[i].name, sroce_ud_cases[i].rules);
	for (size_t i = 0; i < N(sroce_ud_qkey_cases); i++)
		printf("sroce_ud\t%s\tud-qkey-privileged\n", sroce_ud_qkey_cases[i].name);
	printf("sroce_ud\tud_names_test\t\n");
	sq_cases("sroce_uc", sroce_sq_cases_uc, N(sroce_sq_cases_uc));
	for (size_t i = 0; i < N(sroce_uc_cases); i++)
		printf("sroce_uc\t%s\t%s\n", sroce_uc_cases[i].name, sroce_uc_cases[i].rules);
	printf("sroce_uc\tuc_names_test\t\n");
	for (size_t i = 0; i < N(sroce_mw_cases); i++)
		printf("sroce_mw\t%s\t%s\n", sroce_mw_cases[i].name, sroce_mw_cases[i].rules);
	printf("sroce_mw\tmw_names_test\t\n");
	/* kunit/wire_kunit.c: one round trip per opcode of the lists. */
#define WIRE_ROW(op, ...) printf("sroce_wire\t%s round trip\t\n", #op);
	SROCE_RC_OPCODES(WIRE_ROW)
	SROCE_UC_OPCODES(WIRE_ROW)
	SROCE_UD_OPCODES(WIRE_ROW)
#undef WIRE_ROW
	return 0;
}
