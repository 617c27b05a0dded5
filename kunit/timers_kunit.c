// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for drivers/sroce/timers.c: how the cores' timer commands
 * are carried out on a QP's two timers, the early expiry that wakes a
 * held packet, and the run-on after a retransmit expiry.  The QP is a
 * bare, zeroed one with a stopped task: an expiry during the test only
 * sets its event.  The retransmit period (timeout 24: 68.7 s, aged at
 * 34 s) is far longer than a test, even a stalled one under TCG; the RNR
 * wait (code 0, the longest: 655 ms) is checked right after it starts.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include "../drivers/sroce/sroce.h"
#include "../drivers/sroce/sq.h"

#define TMR_TIMEOUT 24

struct tmr_env {
	struct sroce_dev *sdev;
	struct sroce_qp *qp;
};

static int tmr_res_init(struct kunit_resource *res, void *qp)
{
	res->data = qp;
	return 0;
}

/* At the end of each test: both timers stopped before the QP is freed. */
static void tmr_res_free(struct kunit_resource *res)
{
	sroce_sq_timers_stop(res->data);
}

static struct tmr_env tmr_env(struct kunit *test)
{
	struct tmr_env env = {
		.sdev = kunit_kzalloc(test, sizeof(*env.sdev), GFP_KERNEL),
		.qp = kunit_kzalloc(test, sizeof(*env.qp), GFP_KERNEL),
	};

	KUNIT_ASSERT_NOT_NULL(test, env.sdev);
	KUNIT_ASSERT_NOT_NULL(test, env.qp);
	env.qp->sdev = env.sdev;
	env.qp->timeout = TMR_TIMEOUT;
	sroce_task_init(&env.qp->task, NULL, NULL);	/* stopped: it never runs a pass */
	sroce_sq_timers_init(env.qp);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, tmr_res_init, tmr_res_free,
							 GFP_KERNEL, env.qp));
	return env;
}

static void tmr_apply(struct sroce_qp *qp, u8 op, u8 rnr_code)
{
	struct sroce_sq_ret r = { .timer = op, .rnr_code = rnr_code };

	sroce_sq_timer_apply(qp, &r);
}

/* The period in jiffies, as timers.c rounds it: up, plus one tick. */
static unsigned long tmr_period(void)
{
	return DIV_ROUND_UP_ULL(sroce_timeout_ns(TMR_TIMEOUT), TICK_NSEC) + 1;
}

/* 9.7.6.1-timer: ARM starts the period; half of it is the aged point. */
static void tmr_arm_9_7_6_1_timer_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;
	unsigned long before = jiffies, after;

	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	after = jiffies;
	KUNIT_EXPECT_TRUE(test, timer_pending(&s->rexmit));
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_deadline);
	KUNIT_EXPECT_TRUE(test, time_in_range(s->rexmit_deadline, before + tmr_period(),
					      after + tmr_period()));
	KUNIT_EXPECT_TRUE(test, time_in_range(s->rexmit_aged_at,
					      before + tmr_period() / SROCE_REQ_AGED_DIVISOR,
					      after + tmr_period() / SROCE_REQ_AGED_DIVISOR));
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_aged(env.qp));
	/* Aged once the aged point has come, with the timer still running. */
	s->rexmit_aged_at = jiffies;
	KUNIT_EXPECT_TRUE(test, sroce_sq_timer_aged(env.qp));
}

/* 9.7.6.1-timer: CANCEL, nothing outstanding; an expiry already recorded is dropped. */
static void tmr_cancel_9_7_6_1_timer_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;

	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	set_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
	s->rexmit_grace = true;
	tmr_apply(env.qp, SROCE_TMR_CANCEL, 0);
	KUNIT_EXPECT_FALSE(test, timer_pending(&s->rexmit));
	KUNIT_EXPECT_FALSE(test, test_bit(SROCE_SQ_EV_TIMEOUT, &s->events));
	KUNIT_EXPECT_FALSE(test, s->rexmit_grace);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_aged(env.qp));
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_events(env.qp));
}

/* 9.7.5.1.5-rnr-nak: the retransmit timer stops, the RNR wait (IBA Table 45) starts. */
static void tmr_rnr_9_7_5_1_5_rnr_nak_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;
	unsigned long before = jiffies;
	s64 waits = atomic64_read(&env.sdev->counters[SROCE_CNT_SQ_RNR_WAITS]);

	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	tmr_apply(env.qp, SROCE_TMR_RNR, 0);
	KUNIT_EXPECT_FALSE(test, timer_pending(&s->rexmit));
	KUNIT_EXPECT_TRUE(test, timer_pending(&s->rnr));
	KUNIT_EXPECT_TRUE(test, time_after_eq(s->rnr.expires,
					      before + nsecs_to_jiffies(sroce_rnr_timer_ns(0))));
	KUNIT_EXPECT_EQ(test, atomic64_read(&env.sdev->counters[SROCE_CNT_SQ_RNR_WAITS]),
			waits + 1);
}

/*
 * 9.7.5.1.6-ackreq-hold: a held packet makes the retransmit timer fire at
 * the aged point; once, however often asked; and if the aged point has
 * passed already, the caller is told to ask the core again.
 */
static void tmr_hold_early_9_7_5_1_6_ackreq_hold_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;

	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_hold(env.qp));	/* no timer: nothing */
	KUNIT_EXPECT_FALSE(test, s->rexmit_early);
	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_hold(env.qp));
	KUNIT_EXPECT_TRUE(test, s->rexmit_early);
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_aged_at);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_hold(env.qp));
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_aged_at);
	/* A restart (progress) ends the early expiry. */
	tmr_apply(env.qp, SROCE_TMR_RESTART, 0);
	KUNIT_EXPECT_FALSE(test, s->rexmit_early);
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_deadline);
	/* Aged between the requester's hint and the hold: ask again. */
	s->rexmit_aged_at = jiffies - 1;
	KUNIT_EXPECT_TRUE(test, sroce_sq_timer_hold(env.qp));
	KUNIT_EXPECT_FALSE(test, s->rexmit_early);
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_deadline);
}

/* The early expiry has run: the timer goes back to its deadline, no go-back. */
static void tmr_early_expiry_9_7_5_1_6_ackreq_hold_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;

	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_hold(env.qp));
	/* As if it fired: not pending, its event set. */
	timer_delete_sync(&s->rexmit);
	set_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_events(env.qp));
	KUNIT_EXPECT_FALSE(test, s->rexmit_early);
	KUNIT_EXPECT_FALSE(test, test_bit(SROCE_SQ_EV_TIMEOUT, &s->events));
	KUNIT_EXPECT_TRUE(test, timer_pending(&s->rexmit));
	KUNIT_EXPECT_EQ(test, s->rexmit.expires, s->rexmit_deadline);
	KUNIT_EXPECT_FALSE(test, s->rexmit_grace);
}

/*
 * IBA 9.7.6.1.3 lets the timer run to four periods: the first expiry at
 * the deadline only starts a run-on of an eighth of the period, counted,
 * so that responses already received reach the completer first.
 */
static void tmr_grace_9_7_6_1_3_test(struct kunit *test)
{
	struct tmr_env env = tmr_env(test);
	struct sroce_sqs *s = &env.qp->sqs;
	s64 grace = atomic64_read(&env.sdev->counters[SROCE_CNT_SQ_TIMER_GRACE]);
	unsigned long before, eighth;

	tmr_apply(env.qp, SROCE_TMR_ARM, 0);
	/* A restart overtook this expiry: ignored, the timer runs on. */
	set_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_events(env.qp));
	KUNIT_EXPECT_FALSE(test, s->rexmit_grace);
	KUNIT_EXPECT_TRUE(test, timer_pending(&s->rexmit));
	/* The deadline has come. */
	timer_delete_sync(&s->rexmit);
	s->rexmit_deadline = jiffies;
	set_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
	before = jiffies;
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_events(env.qp));
	KUNIT_EXPECT_TRUE(test, s->rexmit_grace);
	KUNIT_EXPECT_TRUE(test, timer_pending(&s->rexmit));
	eighth = nsecs_to_jiffies(sroce_timeout_ns(TMR_TIMEOUT) / 8);
	KUNIT_EXPECT_TRUE(test, time_after_eq(s->rexmit_deadline, before + eighth));
	KUNIT_EXPECT_TRUE(test, time_before(s->rexmit_deadline, before + tmr_period()));
	KUNIT_EXPECT_EQ(test, atomic64_read(&env.sdev->counters[SROCE_CNT_SQ_TIMER_GRACE]),
			grace + 1);
	/* No early expiry for a hold during the run-on. */
	KUNIT_EXPECT_FALSE(test, sroce_sq_timer_hold(env.qp));
	KUNIT_EXPECT_FALSE(test, s->rexmit_early);
}

static struct kunit_case timers_cases[] = {
	KUNIT_CASE(tmr_arm_9_7_6_1_timer_test),
	KUNIT_CASE(tmr_cancel_9_7_6_1_timer_test),
	KUNIT_CASE(tmr_rnr_9_7_5_1_5_rnr_nak_test),
	KUNIT_CASE(tmr_hold_early_9_7_5_1_6_ackreq_hold_test),
	KUNIT_CASE(tmr_early_expiry_9_7_5_1_6_ackreq_hold_test),
	KUNIT_CASE(tmr_grace_9_7_6_1_3_test),
	{}
};

static struct kunit_suite sroce_timers_suite = {
	.name = "sroce_timers",
	.test_cases = timers_cases,
};

kunit_test_suite(sroce_timers_suite);
