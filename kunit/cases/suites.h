/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The case-suite registry: every shared case table with the KUnit suite
 * that runs its rows, in one list per kind of row.  The GoogleTest runner
 * (tools/utest/cases.c exports each table from here) and the manifest of
 * the cases that must have run (tools/case-manifest.c, which
 * tools/testvm/kunit.sh checks the KUnit run against, case by case) expand
 * these lists, so a table added here is run by GoogleTest and must be run
 * by KUnit; tables.h includes every table.
 *
 *   X(suite, name, table)
 *     suite  the KUnit suite whose run holds the table's rows
 *     name   the table's name: GoogleTest's, and sroce_<name>_table /
 *            sroce_n<name> in utest_cases.h for the row tables
 *     table  the array of rows
 */
#ifndef SROCE_CASES_SUITES_H
#define SROCE_CASES_SUITES_H

/* Responder walks: struct sroce_case, run by sroce_case_run(). */
#define SROCE_WALK_TABLES(X)						\
	X(sroce_walk, walk, sroce_cases_walk)				\
	X(sroce_coalesce, coalesce, sroce_cases_coalesce)		\
	X(sroce_duplicates, duplicates, sroce_cases_duplicates)	\
	X(sroce_nak_latch, nak_latch, sroce_cases_nak_latch)		\
	X(sroce_read, read, sroce_cases_read)				\
	X(sroce_credits, credits, sroce_cases_credits)			\
	X(sroce_encoding, encoding, sroce_cases_encoding)

/* Send-queue walks: struct sroce_sq_case, run by sroce_sq_case_run(). */
#define SROCE_SQ_TABLES(X)						\
	X(sroce_requester, requester, sroce_sq_cases_requester)	\
	X(sroce_completer, completer, sroce_sq_cases_completer)	\
	X(sroce_ud, ud, sroce_sq_cases_ud)				\
	X(sroce_uc, uc, sroce_sq_cases_uc)				\
	X(sroce_requester, local, sroce_sq_cases_local)

/* One-step rows, each table its own row type and runner. */
#define SROCE_ROW_TABLES(X)						\
	X(sroce_credits, credit, sroce_credit_cases)			\
	X(sroce_encoding, psn, sroce_psn_cases)			\
	X(sroce_encoding, aeth, sroce_aeth_cases)			\
	X(sroce_ud, ud, sroce_ud_cases)				\
	X(sroce_ud, ud_qkey, sroce_ud_qkey_cases)			\
	X(sroce_uc, uc, sroce_uc_cases)				\
	X(sroce_mw, mw, sroce_mw_cases)

#endif
