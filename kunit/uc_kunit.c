// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the UC cores: the UC requester cases (kunit/cases/sq_uc.h,
 * the send queue with SROCE_TRANSPORT_UC) and the UC receive decisions
 * (kunit/cases/uc.h), run through the C ABI exactly as the GoogleTest
 * runner runs them.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cases/sq_case.h"
#include "cases/sq_uc.h"
#include "cases/uc.h"

static void uc_check(void *ctx, const char *what, u32 step, u64 expected, u64 actual)
{
	struct kunit *test = ctx;

	KUNIT_EXPECT_EQ_MSG(test, actual, expected, "step %u: %s", step, what);
}

static void uc_sq_desc(const struct sroce_sq_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void uc_sq_case(struct kunit *test)
{
	const struct sroce_sq_case *c = test->param_value;
	struct sroce_case_checker chk = { .ctx = test, .check = uc_check };
	struct sroce_sq_case_ws *ws = kunit_kzalloc(test, sizeof(*ws), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ws);
	sroce_sq_case_run(c, ws, &chk);
}

static void uc_recv_desc(const struct sroce_uc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void uc_recv_case(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = uc_check };

	sroce_uc_case_run(test->param_value, &chk);
}

KUNIT_ARRAY_PARAM(uc_sq, sroce_sq_cases_uc, uc_sq_desc);
KUNIT_ARRAY_PARAM(uc_recv, sroce_uc_cases, uc_recv_desc);

static void uc_names_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SROCE_UCR_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_uc_rule_name(i), "invalid");
	for (i = 0; i < SROCE_UCDROP_REASON_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_uc_drop_name(i), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_uc_rule_name(SROCE_UCR_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_uc_drop_name(SROCE_UCDROP_REASON_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_uc_rule_name(SROCE_UCR_RESYNC), "uc-resync");
	KUNIT_EXPECT_STREQ(test, sroce_sq_rule_name(SROCE_SQR_UC_OP), "uc-op");
}

static struct kunit_case sroce_uc_cases_k[] = {
	KUNIT_CASE_PARAM(uc_sq_case, uc_sq_gen_params),
	KUNIT_CASE_PARAM(uc_recv_case, uc_recv_gen_params),
	KUNIT_CASE(uc_names_test),
	{}
};

static struct kunit_suite sroce_uc_suite = {
	.name = "sroce_uc",
	.test_cases = sroce_uc_cases_k,
};

kunit_test_suites(&sroce_uc_suite);
