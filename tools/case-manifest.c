// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints every KUnit case the suites must run, one per line:
 *	suite <TAB> case description <TAB> spec rule tags
 * Built from kunit/cases/suites.h's registry of the tables KUnit runs (and
 * the cases beside them), so a case that did not run in the kernel (or a
 * suite that did not load) is noticed.
 */
#include <stdio.h>

#include "../kunit/cases/tables.h"
#include "../include/sroce/ib_wire.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The rows of each kind of table (kunit/cases/suites.h): name and tags. */
#define TAGGED_ROWS(fn, type)						\
	static void fn(const char *suite, const type *c, size_t n)	\
	{								\
		for (size_t i = 0; i < n; i++)				\
			printf("%s\t%s\t%s\n", suite, c[i].name, c[i].rules); \
	}
TAGGED_ROWS(walk_rows, struct sroce_case)
TAGGED_ROWS(sq_rows, struct sroce_sq_case)
TAGGED_ROWS(ud_rows, struct sroce_ud_case)
TAGGED_ROWS(uc_rows, struct sroce_uc_case)
TAGGED_ROWS(mw_rows, struct sroce_mw_case)

static void credit_rows(const char *suite, const struct sroce_credit_case *c, size_t n)
{
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), SROCE_CREDIT_DESC_FMT, c[i].posted, c[i].code);
		printf("%s\t%s\tC9-150.2.1 C9-119\n", suite, buf);
	}
}

static void psn_rows(const char *suite, const struct sroce_psn_case *c, size_t n)
{
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), SROCE_PSN_DESC_FMT, c[i].name);
		printf("%s\t%s\tC9-102\n", suite, buf);
	}
}

/* An AETH row's name begins with the rule it checks. */
static void aeth_rows(const char *suite, const struct sroce_aeth_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int taglen = 0;

		while (c[i].name[taglen] && c[i].name[taglen] != ' ')
			taglen++;
		printf("%s\t%s\t%.*s\n", suite, c[i].name, taglen, c[i].name);
	}
}

static void ud_qkey_rows(const char *suite, const struct sroce_ud_qkey_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s\t%s\tud-qkey-privileged\n", suite, c[i].name);
}

int main(void)
{
#define WALK(suite, name, table) walk_rows(#suite, table, N(table));
#define SQ(suite, name, table) sq_rows(#suite, table, N(table));
#define ROW(suite, name, table) name##_rows(#suite, table, N(table));
	SROCE_WALK_TABLES(WALK)
	SROCE_SQ_TABLES(SQ)
	SROCE_ROW_TABLES(ROW)
	/* The KUNIT_CASEs beside the tables. */
	printf("sroce_encoding\tnames_test\t\n");
	printf("sroce_completer\tsq_timers_test\t9.7.6.1-timer\n");
	printf("sroce_completer\tsq_names_test\t\n");
	printf("sroce_ud\tud_names_test\t\n");
	printf("sroce_uc\tuc_names_test\t\n");
	printf("sroce_mw\tmw_names_test\t\n");
	/* kunit/wire_kunit.c: one round trip per opcode of the lists. */
#define WIRE_ROW(op, ...) printf("sroce_wire\t%s round trip\t\n", #op);
	SROCE_RC_OPCODES(WIRE_ROW)
	SROCE_UC_OPCODES(WIRE_ROW)
	SROCE_UD_OPCODES(WIRE_ROW)
#undef WIRE_ROW
	return 0;
}
