// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The KUnit case tables, exported to the GoogleTest runner. */
#include "case.h"
#include "walk.h"
#include "coalesce.h"
#include "duplicates.h"
#include "nak_latch.h"
#include "read.h"
#include "credits.h"
#include "encoding.h"
#include "sq_case.h"
#include "sq_requester.h"
#include "sq_completer.h"
#include "sq_ud.h"
#include "ud.h"
#include "sq_uc.h"
#include "sq_local.h"
#include "uc.h"
#include "mw_case.h"
#include "mw.h"
#include "utest_cases.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct sroce_suite sroce_suites[] = {
	{ "walk", sroce_cases_walk, N(sroce_cases_walk) },
	{ "coalesce", sroce_cases_coalesce, N(sroce_cases_coalesce) },
	{ "duplicates", sroce_cases_duplicates, N(sroce_cases_duplicates) },
	{ "nak_latch", sroce_cases_nak_latch, N(sroce_cases_nak_latch) },
	{ "read", sroce_cases_read, N(sroce_cases_read) },
	{ "credits", sroce_cases_credits, N(sroce_cases_credits) },
	{ "encoding", sroce_cases_encoding, N(sroce_cases_encoding) },
};
const unsigned int sroce_nsuites = N(sroce_suites);

const struct sroce_credit_case *const sroce_credit_table = sroce_credit_cases;
const unsigned int sroce_ncredit = N(sroce_credit_cases);
const struct sroce_psn_case *const sroce_psn_table = sroce_psn_cases;
const unsigned int sroce_npsn = N(sroce_psn_cases);
const struct sroce_aeth_case *const sroce_aeth_table = sroce_aeth_cases;
const unsigned int sroce_naeth = N(sroce_aeth_cases);

const struct sroce_sq_suite sroce_sq_suites[] = {
	{ "requester", sroce_sq_cases_requester, N(sroce_sq_cases_requester) },
	{ "completer", sroce_sq_cases_completer, N(sroce_sq_cases_completer) },
	{ "ud", sroce_sq_cases_ud, N(sroce_sq_cases_ud) },
	{ "uc", sroce_sq_cases_uc, N(sroce_sq_cases_uc) },
	{ "local", sroce_sq_cases_local, N(sroce_sq_cases_local) },
};
const unsigned int sroce_sq_nsuites = N(sroce_sq_suites);

const struct sroce_ud_case *const sroce_ud_table = sroce_ud_cases;
const unsigned int sroce_nud = N(sroce_ud_cases);
const struct sroce_ud_qkey_case *const sroce_ud_qkey_table = sroce_ud_qkey_cases;
const unsigned int sroce_nud_qkey = N(sroce_ud_qkey_cases);
const struct sroce_mw_case *const sroce_mw_table = sroce_mw_cases;
const unsigned int sroce_nmw = N(sroce_mw_cases);
const struct sroce_uc_case *const sroce_uc_table = sroce_uc_cases;
const unsigned int sroce_nuc = N(sroce_uc_cases);
