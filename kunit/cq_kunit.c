// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for drivers/sroce/cq.c's completion notification rules
 * (IBA 11.4.2.2): which CQE fires which arm, that an arm fires once, and
 * what a new request does to the arm already set.
 */
#include <kunit/test.h>

#include "../drivers/sroce/sroce.h"

struct cq_fires_case {
	u8 notify;		/* the arm before the CQE */
	bool solicited;		/* a solicited receive */
	bool error;		/* an unsuccessful completion */
	bool fires;
	u8 after;		/* the arm after it */
};

static const struct cq_fires_case cq_fires_cases[] = {
	/* Not armed: nothing fires, whatever the CQE. */
	{ 0, false, false, false, 0 },
	{ 0, true, false, false, 0 },
	{ 0, false, true, false, 0 },
	{ 0, true, true, false, 0 },
	/* NEXT_COMP: any CQE fires it, and it is spent. */
	{ IB_CQ_NEXT_COMP, false, false, true, 0 },
	{ IB_CQ_NEXT_COMP, true, false, true, 0 },
	{ IB_CQ_NEXT_COMP, false, true, true, 0 },
	{ IB_CQ_NEXT_COMP, true, true, true, 0 },
	/* SOLICITED: a solicited receive or an unsuccessful completion. */
	{ IB_CQ_SOLICITED, false, false, false, IB_CQ_SOLICITED },
	{ IB_CQ_SOLICITED, true, false, true, 0 },
	{ IB_CQ_SOLICITED, false, true, true, 0 },
	{ IB_CQ_SOLICITED, true, true, true, 0 },
};

/* Each arm against each kind of CQE. */
static void cq_fires_iba_11_4_2_2_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cq_fires_cases); i++) {
		const struct cq_fires_case *c = &cq_fires_cases[i];
		u8 notify = c->notify;

		KUNIT_EXPECT_EQ_MSG(test, sroce_cq_fires(&notify, c->solicited, c->error),
				    c->fires, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, notify, c->after, "case %u", i);
	}
}

/* A flush of a QP's work (every CQE an error) fires a SOLICITED arm once. */
static void cq_fires_once_iba_11_4_2_2_test(struct kunit *test)
{
	u8 notify = IB_CQ_SOLICITED;
	unsigned int i, fired = 0;

	for (i = 0; i < 8; i++)
		fired += sroce_cq_fires(&notify, false, true);
	KUNIT_EXPECT_EQ(test, fired, 1u);
	KUNIT_EXPECT_EQ(test, notify, 0);
}

/* A request arms; NEXT_COMP is not narrowed by a SOLICITED request. */
static void cq_arm_iba_11_4_2_2_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(0, IB_CQ_SOLICITED), IB_CQ_SOLICITED);
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(0, IB_CQ_NEXT_COMP), IB_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(IB_CQ_SOLICITED, IB_CQ_NEXT_COMP), IB_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(IB_CQ_NEXT_COMP, IB_CQ_SOLICITED), IB_CQ_NEXT_COMP);
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(IB_CQ_SOLICITED, IB_CQ_SOLICITED), IB_CQ_SOLICITED);
	/* REPORT_MISSED_EVENTS is not an arm. */
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(0, IB_CQ_SOLICITED | IB_CQ_REPORT_MISSED_EVENTS),
			IB_CQ_SOLICITED);
	KUNIT_EXPECT_EQ(test, sroce_cq_arm(0, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS),
			IB_CQ_NEXT_COMP);
}

static struct kunit_case cq_cases[] = {
	KUNIT_CASE(cq_fires_iba_11_4_2_2_test),
	KUNIT_CASE(cq_fires_once_iba_11_4_2_2_test),
	KUNIT_CASE(cq_arm_iba_11_4_2_2_test),
	{}
};

static struct kunit_suite sroce_cq_suite = {
	.name = "sroce_cq",
	.test_cases = cq_cases,
};

kunit_test_suite(sroce_cq_suite);
