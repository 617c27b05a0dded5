// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the UD cores: the UD requester cases (kunit/cases/sq_ud.h,
 * the send queue with SROCE_TRANSPORT_UD) and the UD receive decisions
 * (kunit/cases/ud.h), run through the C ABI exactly as the GoogleTest
 * runner runs them.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cases/sq_case.h"
#include "cases/sq_ud.h"
#include "cases/ud.h"

static void ud_check(void *ctx, const char *what, u32 step, u64 expected, u64 actual)
{
	struct kunit *test = ctx;

	KUNIT_EXPECT_EQ_MSG(test, actual, expected, "step %u: %s", step, what);
}

static void ud_sq_desc(const struct sroce_sq_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void ud_sq_case(struct kunit *test)
{
	const struct sroce_sq_case *c = test->param_value;
	struct sroce_case_checker chk = { .ctx = test, .check = ud_check };
	struct sroce_sq_case_ws *ws = kunit_kzalloc(test, sizeof(*ws), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ws);
	sroce_sq_case_run(c, ws, &chk);
}

static void ud_recv_desc(const struct sroce_ud_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void ud_recv_case(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = ud_check };

	sroce_ud_case_run(test->param_value, &chk);
}

static void ud_qkey_desc(const struct sroce_ud_qkey_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void ud_qkey_case(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = ud_check };

	sroce_ud_qkey_case_run(test->param_value, &chk);
}

KUNIT_ARRAY_PARAM(ud_sq, sroce_sq_cases_ud, ud_sq_desc);
KUNIT_ARRAY_PARAM(ud_recv, sroce_ud_cases, ud_recv_desc);
KUNIT_ARRAY_PARAM(ud_qkey, sroce_ud_qkey_cases, ud_qkey_desc);

static void ud_names_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SROCE_UDR_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_ud_rule_name(i), "invalid");
	for (i = 0; i < SROCE_UDROP_REASON_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_ud_drop_name(i), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_ud_rule_name(SROCE_UDR_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_ud_rule_name(SROCE_UDR_QKEY), "ud-qkey");
	KUNIT_EXPECT_STREQ(test, sroce_sq_rule_name(SROCE_SQR_UD_LENGTH), "ud-length");
}

static struct kunit_case sroce_ud_cases_k[] = {
	KUNIT_CASE_PARAM(ud_sq_case, ud_sq_gen_params),
	KUNIT_CASE_PARAM(ud_recv_case, ud_recv_gen_params),
	KUNIT_CASE_PARAM(ud_qkey_case, ud_qkey_gen_params),
	KUNIT_CASE(ud_names_test),
	{}
};

static struct kunit_suite sroce_ud_suite = {
	.name = "sroce_ud",
	.test_cases = sroce_ud_cases_k,
};

kunit_test_suites(&sroce_ud_suite);
