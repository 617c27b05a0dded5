/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What cases.c exports to the C++ test runners. */
#ifndef SROCE_UTEST_CASES_H
#define SROCE_UTEST_CASES_H

#include "case.h"
#include "sq_case.h"
#include "ud_case.h"
#include "uc_case.h"
#include "mw_case.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sroce_suite {
	const char *name;
	const struct sroce_case *cases;
	unsigned int n;
};

struct sroce_sq_suite {
	const char *name;
	const struct sroce_sq_case *cases;
	unsigned int n;
};

extern const struct sroce_suite sroce_suites[];
extern const struct sroce_sq_suite sroce_sq_suites[];
extern const unsigned int sroce_sq_nsuites;
extern const unsigned int sroce_nsuites;
extern const struct sroce_credit_case *const sroce_credit_table;
extern const unsigned int sroce_ncredit;
extern const struct sroce_psn_case *const sroce_psn_table;
extern const unsigned int sroce_npsn;
extern const struct sroce_aeth_case *const sroce_aeth_table;
extern const unsigned int sroce_naeth;
extern const struct sroce_ud_case *const sroce_ud_table;
extern const unsigned int sroce_nud;
extern const struct sroce_ud_qkey_case *const sroce_ud_qkey_table;
extern const unsigned int sroce_nud_qkey;
extern const struct sroce_mw_case *const sroce_mw_table;
extern const unsigned int sroce_nmw;
extern const struct sroce_uc_case *const sroce_uc_table;
extern const unsigned int sroce_nuc;

#ifdef __cplusplus
}
#endif

#endif
