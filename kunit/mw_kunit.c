// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the memory window core: the bind, invalidate and access
 * decisions of kunit/cases/mw.h, run through the C ABI exactly as the
 * GoogleTest runner runs them.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "cases/mw_case.h"
#include "cases/mw.h"

static void mw_check(void *ctx, const char *what, u32 step, u64 expected, u64 actual)
{
	struct kunit *test = ctx;

	KUNIT_EXPECT_EQ_MSG(test, actual, expected, "%s", what);
}

static void mw_desc(const struct sroce_mw_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void mw_case(struct kunit *test)
{
	struct sroce_case_checker chk = { .ctx = test, .check = mw_check };

	sroce_mw_case_run(test->param_value, &chk);
}

KUNIT_ARRAY_PARAM(mw, sroce_mw_cases, mw_desc);

/* The core's access bits are ib_core's, as the driver hands them over. */
static void mw_names_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SROCE_MWR_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_mw_rule_name(i), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_mw_rule_name(SROCE_MWR_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_mw_rule_name(SROCE_MWR_C10_75), "C10-75");
	KUNIT_EXPECT_EQ(test, SROCE_MWA_LOCAL_WRITE, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, SROCE_MWA_REMOTE_WRITE, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, SROCE_MWA_REMOTE_READ, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, SROCE_MWA_REMOTE_ATOMIC, IB_ACCESS_REMOTE_ATOMIC);
	KUNIT_EXPECT_EQ(test, SROCE_MWA_MW_BIND, IB_ACCESS_MW_BIND);
	KUNIT_EXPECT_EQ(test, SROCE_MWA_ZERO_BASED, IB_ZERO_BASED);
}

static struct kunit_case sroce_mw_cases_k[] = {
	KUNIT_CASE_PARAM(mw_case, mw_gen_params),
	KUNIT_CASE(mw_names_test),
	{}
};

static struct kunit_suite sroce_mw_suite = {
	.name = "sroce_mw",
	.test_cases = sroce_mw_cases_k,
};

kunit_test_suites(&sroce_mw_suite);
