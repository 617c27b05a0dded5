// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for drivers/sroce/compat.h: the newest-API names it gives
 * sroce work on the kernel under test, whichever way the probes found
 * them (native, or the fallback to the older API).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/jiffies.h>

#include "../drivers/sroce/compat.h"

struct compat_timer_owner {
	struct timer_list timer;
	struct completion fired;
	int runs;
};

static void compat_timer_fn(struct timer_list *t)
{
	struct compat_timer_owner *o = timer_container_of(o, t, timer);

	o->runs++;
	complete(&o->fired);
}

/* timer_container_of() finds the owner of the timer that fired. */
static void compat_timer_container_of_test(struct kunit *test)
{
	struct compat_timer_owner o = { .runs = 0 };

	init_completion(&o.fired);
	timer_setup_on_stack(&o.timer, compat_timer_fn, 0);
	mod_timer(&o.timer, jiffies + 1);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&o.fired, 10 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, o.runs, 1);
	KUNIT_EXPECT_EQ(test, timer_delete_sync(&o.timer), 0);
	destroy_timer_on_stack(&o.timer);
}

/*
 * timer_delete_sync() and timer_delete() cancel a pending timer (1) and
 * find nothing to cancel the second time (0); the callback never runs.
 */
static void compat_timer_delete_test(struct kunit *test)
{
	struct compat_timer_owner o = { .runs = 0 };

	init_completion(&o.fired);
	timer_setup_on_stack(&o.timer, compat_timer_fn, 0);
	mod_timer(&o.timer, jiffies + 3600 * HZ);
	KUNIT_EXPECT_EQ(test, timer_delete_sync(&o.timer), 1);
	KUNIT_EXPECT_EQ(test, timer_delete_sync(&o.timer), 0);
	mod_timer(&o.timer, jiffies + 3600 * HZ);
	KUNIT_EXPECT_EQ(test, timer_delete(&o.timer), 1);
	KUNIT_EXPECT_EQ(test, timer_delete(&o.timer), 0);
	KUNIT_EXPECT_EQ(test, o.runs, 0);
	destroy_timer_on_stack(&o.timer);
}

/* A kernel CQ (no attribute bundle or user data) has no udata. */
static void compat_create_cq_udata_test(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, sroce_create_cq_udata(NULL));
}

static struct kunit_case compat_cases[] = {
	KUNIT_CASE(compat_timer_container_of_test),
	KUNIT_CASE(compat_timer_delete_test),
	KUNIT_CASE(compat_create_cq_udata_test),
	{}
};

static struct kunit_suite sroce_compat_suite = {
	.name = "sroce_compat",
	.test_cases = compat_cases,
};

kunit_test_suite(sroce_compat_suite);
