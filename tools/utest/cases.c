// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The KUnit case tables, exported to the GoogleTest runner. */
#include "tables.h"
#include "utest_cases.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* kunit/cases/suites.h's tables. */
#define WALK(suite, name, table) { #name, table, N(table) },
const struct sroce_suite sroce_suites[] = { SROCE_WALK_TABLES(WALK) };
const unsigned int sroce_nsuites = N(sroce_suites);

#define SQ(suite, name, table) { #name, table, N(table) },
const struct sroce_sq_suite sroce_sq_suites[] = { SROCE_SQ_TABLES(SQ) };
const unsigned int sroce_sq_nsuites = N(sroce_sq_suites);

#define ROW(suite, name, table)						\
	const __typeof__((table)[0]) *const sroce_##name##_table = (table);	\
	const unsigned int sroce_n##name = N(table);
SROCE_ROW_TABLES(ROW)
