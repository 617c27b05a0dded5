// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for drivers/sroce/params.c: the module parameters' range checks. */
#include <kunit/test.h>

#include "../drivers/sroce/compat.h"
#include "../drivers/sroce/params.h"

SROCE_IMPORT_NS_KUNIT();

struct param_row {
	const char *name;
	const char *val;
	int err;		/* what setting it returns */
	unsigned int after;	/* the value held afterwards */
};

/* A parameter of range 1..100 holding 7 before each row. */
static const struct param_row param_rows[] = {
	{ "the lowest in range", "1", 0, 1 },
	{ "the highest in range", "100", 0, 100 },
	{ "hexadecimal", "0x20", 0, 32 },
	{ "below the range", "0", -ERANGE, 7 },
	{ "above the range", "101", -ERANGE, 7 },
	{ "negative", "-1", -EINVAL, 7 },
	{ "not a number", "many", -EINVAL, 7 },
	{ "empty", "", -EINVAL, 7 },
	{ "wider than 32 bits", "4294967296", -ERANGE, 7 },
};

static void param_desc(const struct param_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (\"%s\")", r->name, r->val);
}

KUNIT_ARRAY_PARAM(param_rows, param_rows, param_desc);

static void param_uint_set_test(struct kunit *test)
{
	const struct param_row *r = test->param_value;
	struct sroce_uint_param p = { .val = 7, .min = 1, .max = 100 };

	KUNIT_EXPECT_EQ(test, sroce_param_uint_set(&p, r->val), r->err);
	KUNIT_EXPECT_EQ(test, p.val, r->after);
}

/* Every parameter's default lies in its own range. */
static void param_defaults_in_range_test(struct kunit *test)
{
	const struct sroce_uint_param *all[] = {
		&sroce_params.ackreq_every, &sroce_params.req_window,
		&sroce_params.ack_coalesce_max, &sroce_params.ack_span_max,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		KUNIT_EXPECT_LE_MSG(test, all[i]->min, all[i]->val, "parameter %u", i);
		KUNIT_EXPECT_LE_MSG(test, all[i]->val, all[i]->max, "parameter %u", i);
	}
	/* The window may never be 0: the requester could send nothing. */
	KUNIT_EXPECT_GE(test, sroce_params.req_window.min, 1u);
	KUNIT_EXPECT_GE(test, sroce_params.ack_coalesce_max.min, 1u);
}

static struct kunit_case params_cases[] = {
	KUNIT_CASE_PARAM(param_uint_set_test, param_rows_gen_params),
	KUNIT_CASE(param_defaults_in_range_test),
	{}
};

static struct kunit_suite sroce_params_suite = {
	.name = "sroce_params",
	.test_cases = params_cases,
};

kunit_test_suite(sroce_params_suite);
