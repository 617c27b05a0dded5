// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the sroce response-generation core.  Every suite runs
 * the shared case tables in kunit/cases/ through the core's C ABI, the
 * same tables the userspace GoogleTest runner uses.  Each comparison the
 * runner makes is a KUNIT_EXPECT, so a failure names the case, the step
 * and the field.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../drivers/sroce/compat.h"
#include "cases/case.h"
#include "cases/walk.h"
#include "cases/coalesce.h"
#include "cases/duplicates.h"
#include "cases/nak_latch.h"
#include "cases/read.h"
#include "cases/credits.h"
#include "cases/encoding.h"
#include "cases/suites.h"

SROCE_IMPORT_NS_KUNIT();

static void kunit_check(void *ctx, const char *what, u32 step, u64 expected, u64 actual)
{
	struct kunit *test = ctx;

	KUNIT_EXPECT_EQ_MSG(test, actual, expected, "step %u: %s", step, what);
}

static struct sroce_case_ws *new_ws(struct kunit *test)
{
	struct sroce_case_ws *ws = kunit_kzalloc(test, sizeof(*ws), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ws);
	return ws;
}

static void case_desc(const struct sroce_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void run_case(struct kunit *test)
{
	const struct sroce_case *c = test->param_value;
	struct sroce_case_checker chk = { .ctx = test, .check = kunit_check };

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_GT(test, c->nsteps, 0u);
	sroce_case_run(c, new_ws(test), &chk);
}

/* Every responder walk table of the registry: <name>_gen_params. */
#define WALK_PARAMS(suite, name, table) KUNIT_ARRAY_PARAM(name, table, case_desc)
SROCE_WALK_TABLES(WALK_PARAMS)

static void credit_desc(const struct sroce_credit_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, SROCE_CREDIT_DESC_FMT, c->posted, c->code);
}

static void credit_code_test(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = kunit_check };

	sroce_credit_case_run(test->param_value, new_ws(test), &chk);
}

KUNIT_ARRAY_PARAM(credit_code, sroce_credit_cases, credit_desc);

static void psn_desc(const struct sroce_psn_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, SROCE_PSN_DESC_FMT, c->name);
}

static void psn_arith_test(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = kunit_check };

	sroce_psn_case_run(test->param_value, new_ws(test), &chk);
}

KUNIT_ARRAY_PARAM(psn_arith, sroce_psn_cases, psn_desc);

static void aeth_desc(const struct sroce_aeth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void aeth_syndrome_test(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = kunit_check };

	sroce_aeth_case_run(test->param_value, &chk);
}

KUNIT_ARRAY_PARAM(aeth_syndrome, sroce_aeth_cases, aeth_desc);

/* Every name table covers its enum; out-of-range values are named too. */
static void names_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SROCE_RULE_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_rule_name(i), "invalid");
	for (i = 0; i < SROCE_RESP_KIND_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_resp_kind_name(i), "invalid");
	for (i = 0; i < SROCE_DROP_REASON_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_drop_reason_name(i), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_rule_name(SROCE_RULE_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_rule_name(SROCE_RULE_C9_101), "C9-101");
	KUNIT_EXPECT_STREQ(test, sroce_action_name(SROCE_ACT_COUNT), "invalid");
}

#define SUITE(name_, ...)						\
	static struct kunit_case name_##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite name_##_suite = {			\
		.name = #name_,						\
		.test_cases = name_##_cases,				\
	}

SUITE(sroce_walk, KUNIT_CASE_PARAM(run_case, walk_gen_params));
SUITE(sroce_coalesce, KUNIT_CASE_PARAM(run_case, coalesce_gen_params));
SUITE(sroce_duplicates, KUNIT_CASE_PARAM(run_case, duplicates_gen_params));
SUITE(sroce_nak_latch, KUNIT_CASE_PARAM(run_case, nak_latch_gen_params));
SUITE(sroce_read, KUNIT_CASE_PARAM(run_case, read_gen_params));
SUITE(sroce_credits,
	KUNIT_CASE_PARAM(run_case, credits_gen_params),
	KUNIT_CASE_PARAM(credit_code_test, credit_code_gen_params));
SUITE(sroce_encoding,
	KUNIT_CASE_PARAM(run_case, encoding_gen_params),
	KUNIT_CASE_PARAM(psn_arith_test, psn_arith_gen_params),
	KUNIT_CASE_PARAM(aeth_syndrome_test, aeth_syndrome_gen_params),
	KUNIT_CASE(names_test));

kunit_test_suites(&sroce_walk_suite, &sroce_coalesce_suite, &sroce_duplicates_suite,
		  &sroce_nak_latch_suite, &sroce_read_suite, &sroce_credits_suite,
		  &sroce_encoding_suite);

MODULE_DESCRIPTION("KUnit suites for the sroce response-generation core");
MODULE_LICENSE("GPL");
