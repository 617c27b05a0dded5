// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for drivers/sroce/cq.c's completion notification rules
 * (IBA 11.4.2.2): which CQE fires which arm, that an arm fires once, and
 * what a new request does to the arm already set.  And a kernel CQ end to
 * end: create, post, poll_cq's ib_wc, the arm through req_notify_cq with
 * REPORT_MISSED_EVENTS, overflow and resize.
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

/* A kernel CQ of @cqe entries on a bare device, freed with the test. */
struct cq_kernel {
	struct sroce_dev *sdev;
	struct sroce_cq *cq;
	struct sroce_qp *qp;
	unsigned int fired;	/* comp_handler calls */
	unsigned int bh_on;	/* of which with BHs enabled */
	unsigned int errors;	/* IB_EVENT_CQ_ERR events */
};

static void cq_kernel_comp(struct ib_cq *ibcq, void *ctx)
{
	struct cq_kernel *k = ctx;

	/* With BHs off, so an IB_POLL_SOFTIRQ CQ's irq_poll runs on return. */
	k->bh_on += !in_softirq();
	k->fired++;
}

static void cq_kernel_event(struct ib_event *ev, void *ctx)
{
	struct cq_kernel *k = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		k->errors++;
}

/* The suite's exit: the CQ of a test that made one, even one that failed. */
static void cq_kernel_exit(struct kunit *test)
{
	struct cq_kernel *k = test->priv;

	if (k)
		sroce_destroy_cq(&k->cq->ibcq, NULL);
}

static struct cq_kernel *cq_kernel_new(struct kunit *test, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct cq_kernel *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->sdev = kunit_kzalloc(test, sizeof(*k->sdev), GFP_KERNEL);
	k->cq = kunit_kzalloc(test, sizeof(*k->cq), GFP_KERNEL);
	k->qp = kunit_kzalloc(test, sizeof(*k->qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->sdev);
	KUNIT_ASSERT_NOT_NULL(test, k->cq);
	KUNIT_ASSERT_NOT_NULL(test, k->qp);
	k->sdev->attr.max_cqe = 32767;
	k->cq->ibcq.device = &k->sdev->ibdev;
	k->qp->ibqp.qp_num = 17;
	KUNIT_ASSERT_EQ(test, sroce_create_cq(&k->cq->ibcq, &attr, NULL), 0);
	test->priv = k;
	/* ib_core sets these after create_cq, as here. */
	k->cq->ibcq.comp_handler = cq_kernel_comp;
	k->cq->ibcq.event_handler = cq_kernel_event;
	k->cq->ibcq.cq_context = k;
	return k;
}

static int cq_kernel_post(struct cq_kernel *k, u64 wr_id, enum ib_wc_status status,
			  u32 opcode, bool solicited)
{
	struct ib_uverbs_wc wc = {
		.wr_id = wr_id, .status = status, .opcode = opcode, .byte_len = (u32)wr_id * 3,
		.qp_num = 17, .src_qp = 99, .wc_flags = IB_WC_WITH_IMM | IB_WC_GRH,
		.ex.imm_data = cpu_to_be32(0xabcd0000 | (u32)wr_id), .port_num = 1,
	};

	return sroce_cq_post(k->cq, k->qp, &wc, solicited);
}

/* poll_cq returns each CQE once, in order, as an ib_wc naming its QP. */
static void cq_kernel_poll_test(struct kunit *test)
{
	struct cq_kernel *k = cq_kernel_new(test, 4);
	struct ib_wc *wc = kunit_kcalloc(test, 8, sizeof(*wc), GFP_KERNEL);
	unsigned int round, i;

	KUNIT_ASSERT_NOT_NULL(test, wc);
	KUNIT_EXPECT_GE(test, k->cq->ibcq.cqe, 4);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(&k->cq->ibcq, 8, wc), 0);
	/* Many rounds, so the ring wraps. */
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 3; i++)
			KUNIT_ASSERT_EQ(test, cq_kernel_post(k, round * 3 + i, IB_WC_SUCCESS,
							     IB_WC_RECV, false), 0);
		KUNIT_ASSERT_EQ(test, sroce_poll_cq(&k->cq->ibcq, 2, wc), 2);
		KUNIT_ASSERT_EQ(test, sroce_poll_cq(&k->cq->ibcq, 8, wc + 2), 1);
		for (i = 0; i < 3; i++) {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)(round * 3 + i));
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, (round * 3 + i) * 3);
			KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &k->qp->ibqp);
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
			KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
			KUNIT_EXPECT_EQ(test, wc[i].src_qp, 99u);
			KUNIT_EXPECT_EQ(test, wc[i].wc_flags, IB_WC_WITH_IMM | IB_WC_GRH);
			KUNIT_EXPECT_EQ(test, be32_to_cpu(wc[i].ex.imm_data),
					0xabcd0000 | (round * 3 + i));
			KUNIT_EXPECT_EQ(test, wc[i].port_num, 1);
		}
		KUNIT_EXPECT_EQ(test, sroce_poll_cq(&k->cq->ibcq, 8, wc), 0);
	}
	/* Never armed: no call, as IB_POLL_DIRECT requires. */
	KUNIT_EXPECT_EQ(test, k->fired, 0u);
}

/*
 * req_notify_cq arms once per request (IBA 11.4.2.2), and with
 * REPORT_MISSED_EVENTS says whether CQEs are waiting, so a ULP that re-arms
 * after polling misses none (ib_poll_handler's loop).
 */
static void cq_kernel_notify_iba_11_4_2_2_test(struct kunit *test)
{
	struct cq_kernel *k = cq_kernel_new(test, 8);
	struct ib_cq *ibcq = &k->cq->ibcq;
	struct ib_wc *wc = kunit_kcalloc(test, 8, sizeof(*wc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, wc);
	KUNIT_EXPECT_EQ(test, sroce_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
						  IB_CQ_REPORT_MISSED_EVENTS), 0);
	cq_kernel_post(k, 1, IB_WC_SUCCESS, IB_WC_SEND, false);
	cq_kernel_post(k, 2, IB_WC_SUCCESS, IB_WC_SEND, false);
	KUNIT_EXPECT_EQ(test, k->fired, 1u);
	/* Re-armed with a CQE still there: told so. */
	KUNIT_EXPECT_EQ(test, sroce_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
						  IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, sroce_req_notify_cq(ibcq, IB_CQ_NEXT_COMP |
						  IB_CQ_REPORT_MISSED_EVENTS), 0);
	cq_kernel_post(k, 3, IB_WC_SUCCESS, IB_WC_SEND, false);
	KUNIT_EXPECT_EQ(test, k->fired, 2u);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(ibcq, 8, wc), 1);
	/* SOLICITED: a plain CQE does not fire it, a flush does. */
	sroce_req_notify_cq(ibcq, IB_CQ_SOLICITED);
	cq_kernel_post(k, 4, IB_WC_SUCCESS, IB_WC_RECV, false);
	KUNIT_EXPECT_EQ(test, k->fired, 2u);
	cq_kernel_post(k, 5, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, false);
	KUNIT_EXPECT_EQ(test, k->fired, 3u);
	KUNIT_EXPECT_EQ(test, sroce_poll_cq(ibcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, k->bh_on, 0u);
}

/* A full kernel CQ refuses the CQE and raises IB_EVENT_CQ_ERR; resize keeps the CQEs. */
static void cq_kernel_overflow_resize_test(struct kunit *test)
{
	struct cq_kernel *k = cq_kernel_new(test, 1);
	struct ib_cq *ibcq = &k->cq->ibcq;
	struct ib_wc *wc = kunit_kcalloc(test, 64, sizeof(*wc), GFP_KERNEL);
	int cap = ibcq->cqe, i;

	KUNIT_ASSERT_NOT_NULL(test, wc);

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, cq_kernel_post(k, i, IB_WC_SUCCESS, IB_WC_SEND, false), 0);
	KUNIT_EXPECT_EQ(test, cq_kernel_post(k, cap, IB_WC_SUCCESS, IB_WC_SEND, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, k->errors, 1u);
	/* Too small for what is queued: refused, nothing lost. */
	if (cap > 1)
		KUNIT_EXPECT_EQ(test, sroce_resize_cq(ibcq, 1, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, sroce_resize_cq(ibcq, 40, NULL), 0);
	KUNIT_EXPECT_GE(test, ibcq->cqe, 40);
	KUNIT_EXPECT_EQ(test, cq_kernel_post(k, cap, IB_WC_SUCCESS, IB_WC_SEND, false), 0);
	KUNIT_ASSERT_EQ(test, sroce_poll_cq(ibcq, 64, wc), cap + 1);
	for (i = 0; i <= cap; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &k->qp->ibqp);
	}
}

/* A kernel CQ of 0 or of more than max_cqe entries is refused, and nothing is allocated. */
static void cq_kernel_bad_size_refused_test(struct kunit *test)
{
	static const int sizes[] = { 0, -1, SROCE_MAX_CQE + 1 };
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct sroce_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	sdev->attr.max_cqe = SROCE_MAX_CQE;
	cq->ibcq.device = &sdev->ibdev;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct ib_cq_init_attr attr = { .cqe = sizes[i] };

		KUNIT_EXPECT_EQ(test, sroce_create_cq(&cq->ibcq, &attr, NULL), -EINVAL);
		KUNIT_EXPECT_NULL(test, cq->queue.buf);
	}
}

static struct kunit_case cq_cases[] = {
	KUNIT_CASE(cq_kernel_bad_size_refused_test),
	KUNIT_CASE(cq_kernel_poll_test),
	KUNIT_CASE(cq_kernel_notify_iba_11_4_2_2_test),
	KUNIT_CASE(cq_kernel_overflow_resize_test),
	KUNIT_CASE(cq_fires_iba_11_4_2_2_test),
	KUNIT_CASE(cq_fires_once_iba_11_4_2_2_test),
	KUNIT_CASE(cq_arm_iba_11_4_2_2_test),
	{}
};

static struct kunit_suite sroce_cq_suite = {
	.name = "sroce_cq",
	.exit = cq_kernel_exit,
	.test_cases = cq_cases,
};

kunit_test_suite(sroce_cq_suite);
