// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_loopback: the loopback stream test of
 * kunit/cases/loopback*.c (requester core -> lossy channel -> responder
 * core -> lossy channel -> completer core), every link profile with the
 * fixed seeds 1..SROCE_LOOP_KUNIT_SEEDS.  GoogleTest runs the same C with
 * many more seeds; "<profile> seed <n>" here is <profile>_seed<n> there,
 * the same run.  Every check is a KUNIT_EXPECT naming the profile, the
 * seed, the round and the check.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "cases/loopback.h"

/*
 * One entry per case; its index is the case: profile i / seeds, seed
 * i % seeds + 1.
 */
static const u8 loop_cases[SROCE_LOOP_NPROFILES * SROCE_LOOP_KUNIT_SEEDS];

static const struct sroce_loop_profile *loop_profile(const u8 *c)
{
	return &sroce_loop_profiles[(c - loop_cases) / SROCE_LOOP_KUNIT_SEEDS];
}

static u32 loop_seed(const u8 *c)
{
	return (c - loop_cases) % SROCE_LOOP_KUNIT_SEEDS + 1;
}

static void loop_desc(const u8 *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, SROCE_LOOP_DESC_FMT, loop_profile(c)->name,
		 loop_seed(c));
}

KUNIT_ARRAY_PARAM(loop, loop_cases, loop_desc);

struct loop_ctx {
	struct kunit *test;
	const char *profile;
	u32 seed;
};

static void loop_check(void *ctx, const char *what, u32 round, u64 expected, u64 actual)
{
	const struct loop_ctx *l = ctx;

	KUNIT_EXPECT_EQ_MSG(l->test, actual, expected, SROCE_LOOP_DESC_FMT " round %u: %s",
			    l->profile, l->seed, round, what);
}

static void loop_stream_test(struct kunit *test)
{
	const struct sroce_loop_profile *p = loop_profile(test->param_value);
	struct loop_ctx ctx = { .test = test, .profile = p->name };
	struct sroce_case_checker chk = { .ctx = &ctx, .check = loop_check };
	const struct sroce_sq_stats *st;
	struct sroce_loop_ws *ws;
	u64 failed, t0, ms;

	ctx.seed = loop_seed(test->param_value);
	/* About 2 MiB: remote memory, the WQEs and both channels. */
	ws = kvzalloc(sizeof(*ws), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ws);
	t0 = ktime_get_ns();
	failed = sroce_loop_run(ws, p, ctx.seed, 0, &chk, NULL);
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	st = sroce_sq_get_stats(&ws->sq);
	kunit_info(test, SROCE_LOOP_DESC_FMT ": %u wqes, %u rounds, %llu checks (%llu failed)\n",
		   p->name, ctx.seed, ws->nwork, ws->rounds, ws->checks, failed);
	kunit_info(test, "%llu packets, %llu retransmits, %llu timeouts, %llu ms\n",
		   st->packets, st->retransmits, st->timeouts, ms);
	KUNIT_EXPECT_GT(test, ws->checks, 0ULL);
	kvfree(ws);
}

static struct kunit_case loop_test_cases[] = {
	KUNIT_CASE_PARAM(loop_stream_test, loop_gen_params),
	{}
};

static struct kunit_suite sroce_loopback_suite = {
	.name = "sroce_loopback",
	.test_cases = loop_test_cases,
};

kunit_test_suite(sroce_loopback_suite);
