// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for drivers/sroce/stats.c. */
#include <kunit/test.h>
#include <linux/netlink.h>

#include "../drivers/sroce/sroce.h"

/*
 * `rdma statistic show` sends every counter enabled by default in one
 * netlink message, or none at all: what they take stays under
 * NLMSG_DEFAULT_SIZE, less room for the message's other attributes
 * (device, port, the nest around the table).
 */
static void stats_fit_netlink_message_test(struct kunit *test)
{
	size_t bytes;

	/* A counter left without a name would be shown as nothing (or crash). */
	KUNIT_ASSERT_TRUE(test, sroce_stats_all_named());
	bytes = sroce_stats_nl_bytes();

	kunit_info(test, "counters enabled by default: %zu netlink bytes of %lu", bytes,
		   (unsigned long)NLMSG_DEFAULT_SIZE);
	KUNIT_EXPECT_LT(test, bytes, (size_t)(NLMSG_DEFAULT_SIZE - 256));
}

/*
 * `rdma statistic set ... optional-counters` first reads every counter's
 * status in one message: past the budget it fails with EMSGSIZE.  The
 * header (device index and name, port, the nest) takes about 32 bytes.
 */
static void stats_status_fit_netlink_message_test(struct kunit *test)
{
	size_t bytes = sroce_stats_status_nl_bytes();

	kunit_info(test, "counter status: %zu netlink bytes of %lu", bytes,
		   (unsigned long)NLMSG_DEFAULT_SIZE);
	KUNIT_EXPECT_LT(test, bytes, (size_t)(NLMSG_DEFAULT_SIZE - 64));
}

/* ib_core's sysfs setup WARNs unless the optional counters come last. */
static void stats_optional_last_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_stats_optional_last());
}

static struct kunit_case stats_cases[] = {
	KUNIT_CASE(stats_fit_netlink_message_test),
	KUNIT_CASE(stats_status_fit_netlink_message_test),
	KUNIT_CASE(stats_optional_last_test),
	{}
};

static struct kunit_suite sroce_stats_suite = {
	.name = "sroce_stats",
	.test_cases = stats_cases,
};

kunit_test_suite(sroce_stats_suite);
