// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the sroce requester and completer cores: the shared
 * case tables in kunit/cases/sq_*.h, run through the C ABI of
 * include/sroce/sq_abi.h exactly as the userspace GoogleTest runner runs
 * them, plus the timer encodings and the name tables.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "../drivers/sroce/compat.h"
#include "cases/sq_case.h"
#include "cases/sq_requester.h"
#include "cases/sq_local.h"
#include "cases/sq_completer.h"

static void sq_check(void *ctx, const char *what, u32 step, u64 expected, u64 actual)
{
	struct kunit *test = ctx;

	KUNIT_EXPECT_EQ_MSG(test, actual, expected, "step %u: %s", step, what);
}

static void sq_case_desc(const struct sroce_sq_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void sq_run_case(struct kunit *test)
{
	const struct sroce_sq_case *c = test->param_value;
	struct sroce_case_checker chk = { .ctx = test, .check = sq_check };
	struct sroce_sq_case_ws *ws = kunit_kzalloc(test, sizeof(*ws), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ws);
	KUNIT_ASSERT_GT(test, c->nsteps, 0u);
	sroce_sq_case_run(c, ws, &chk);
}

KUNIT_ARRAY_PARAM(sq_requester, sroce_sq_cases_requester, sq_case_desc);
KUNIT_ARRAY_PARAM(sq_completer, sroce_sq_cases_completer, sq_case_desc);
KUNIT_ARRAY_PARAM(sq_local, sroce_sq_cases_local, sq_case_desc);

/* 9.7.6.1: 4.096 us * 2^timeout; IBA Table 45 for the RNR timer codes. */
static void sq_timers_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_timeout_ns(0), 0ull);
	KUNIT_EXPECT_EQ(test, sroce_timeout_ns(1), 8192ull);
	KUNIT_EXPECT_EQ(test, sroce_timeout_ns(14), 67108864ull);
	KUNIT_EXPECT_EQ(test, sroce_timeout_ns(31), 4096ull << 31);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(0), 655360000ull);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(1), 10000ull);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(14), 1280000ull);
	KUNIT_EXPECT_EQ(test, sroce_rnr_timer_ns(31), 491520000ull);
}

static void sq_names_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < SROCE_SQR_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_sq_rule_name(i), "invalid");
	for (i = 0; i < SROCE_BLK_REASON_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_block_reason_name(i), "invalid");
	for (i = 0; i < SROCE_CDROP_REASON_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_comp_drop_name(i), "invalid");
	for (i = 0; i < SROCE_WC_STATUS_COUNT; i++)
		KUNIT_EXPECT_STRNEQ(test, sroce_wc_status_name(i), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_sq_rule_name(SROCE_SQR_COUNT), "invalid");
	KUNIT_EXPECT_STREQ(test, sroce_sq_rule_name(SROCE_SQR_SEQ_NAK), "9.7.5.1.5-seq-nak");
	KUNIT_EXPECT_STREQ(test, sroce_wc_status_name(SROCE_WC_RETRY_EXC_ERR), "retry_exc_err");
}

static struct kunit_case sroce_requester_cases[] = {
	KUNIT_CASE_PARAM(sq_run_case, sq_requester_gen_params),
	KUNIT_CASE_PARAM(sq_run_case, sq_local_gen_params),
	{}
};

static struct kunit_case sroce_completer_cases[] = {
	KUNIT_CASE_PARAM(sq_run_case, sq_completer_gen_params),
	KUNIT_CASE(sq_timers_test),
	KUNIT_CASE(sq_names_test),
	{}
};

static struct kunit_suite sroce_requester_suite = {
	.name = "sroce_requester",
	.test_cases = sroce_requester_cases,
};

static struct kunit_suite sroce_completer_suite = {
	.name = "sroce_completer",
	.test_cases = sroce_completer_cases,
};

kunit_test_suites(&sroce_requester_suite, &sroce_completer_suite);
