// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for drivers/sroce/queue.c's kernel rings: the geometry
 * (capacity, stride, header), both directions with the client side in the
 * kernel, order and fullness across many wraps, and cleanup.  The user
 * rings share the index arithmetic; the VM suites drive those through
 * librxe.
 */
#include <kunit/test.h>
#include <linux/cache.h>
#include <linux/log2.h>

#include "../drivers/sroce/sroce.h"

struct queue_elem {
	u32 seq;
	u32 check;
};

static void queue_elem_put(void *slot, u32 seq)
{
	struct queue_elem *e = slot;

	e->seq = seq;
	e->check = ~seq;
}

static void queue_expect_elem(struct kunit *test, const void *slot, u32 seq)
{
	const struct queue_elem *e = slot;

	KUNIT_EXPECT_EQ(test, e->seq, seq);
	KUNIT_EXPECT_EQ(test, e->check, ~seq);
}

static int queue_res_init(struct kunit_resource *res, void *q)
{
	res->data = q;
	return 0;
}

/* At the end of the test, passed or not: the ring goes (kmemleak checks). */
static void queue_res_free(struct kunit_resource *res)
{
	sroce_queue_cleanup(res->data);
}

static struct sroce_queue *queue_new(struct kunit *test, u32 *num, size_t elem_size)
{
	struct sroce_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, sroce_queue_init_kernel(q, num, elem_size), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, queue_res_init, queue_res_free,
							 GFP_KERNEL, q));
	return q;
}

/* The capacity is the next power of two above the request, less the empty slot. */
static void queue_kernel_geometry_test(struct kunit *test)
{
	static const u32 want[] = { 1, 2, 3, 7, 8, 100, 255, 256 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		u32 num = want[i];
		struct sroce_queue *q = queue_new(test, &num, sizeof(struct queue_elem));

		KUNIT_EXPECT_EQ(test, num, roundup_pow_of_two(want[i] + 1) - 1);
		KUNIT_EXPECT_EQ(test, sroce_queue_slots(q), num + 1);
		KUNIT_EXPECT_EQ(test, q->buf->index_mask, num);
		KUNIT_EXPECT_EQ(test, 1u << q->log2_elem_size, (u32)cache_line_size());
		KUNIT_EXPECT_EQ(test, q->buf->log2_elem_size, q->log2_elem_size);
		KUNIT_EXPECT_NULL(test, q->mmap);
		KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0u);
		KUNIT_EXPECT_NULL(test, sroce_queue_head(q));
		KUNIT_EXPECT_NULL(test, sroce_queue_client_head(q));
	}
}

/* A slot larger than a cache line gets a power-of-two stride that holds it. */
static void queue_kernel_stride_test(struct kunit *test)
{
	size_t elem = cache_line_size() * 3 + 1;
	u32 num = 4;
	struct sroce_queue *q = queue_new(test, &num, elem);

	KUNIT_EXPECT_EQ(test, 1ul << q->log2_elem_size, roundup_pow_of_two(elem));
	KUNIT_EXPECT_EQ(test, num, 7u);
}

/* Impossible geometries are refused and leave nothing allocated. */
static void queue_kernel_bad_geometry_test(struct kunit *test)
{
	struct sroce_queue q = {};
	u32 num = 0;

	KUNIT_EXPECT_EQ(test, sroce_queue_init_kernel(&q, &num, 16), -EINVAL);
	num = 4;
	KUNIT_EXPECT_EQ(test, sroce_queue_init_kernel(&q, &num, 0), -EINVAL);
	num = U32_MAX;
	KUNIT_EXPECT_EQ(test, sroce_queue_init_kernel(&q, &num, 16), -EINVAL);
	num = 1u << 30;
	KUNIT_EXPECT_EQ(test, sroce_queue_init_kernel(&q, &num, 1u << 20), -ENOMEM);
	KUNIT_EXPECT_EQ(test, num, 1u << 30);
	KUNIT_EXPECT_NULL(test, q.buf);
	/* Cleanup of a never-initialised ring does nothing, twice. */
	sroce_queue_cleanup(&q);
	sroce_queue_cleanup(&q);
}

/*
 * FROM_CLIENT (SQ, RQ): the client fills the ring to capacity and no
 * further; the kernel sees the slots in order, peeks ahead, and each slot
 * it pops is one more the client may fill, over many wraps.
 */
static void queue_kernel_from_client_test(struct kunit *test)
{
	u32 num = 5, produced = 0, consumed = 0, round;
	struct sroce_queue *q = queue_new(test, &num, sizeof(struct queue_elem));

	KUNIT_ASSERT_EQ(test, num, 7u);
	for (round = 0; round < 40; round++) {
		u32 burst = round % (num + 2), i;
		void *slot;

		for (i = 0; i < burst; i++) {
			slot = sroce_queue_client_tail(q);
			if (produced - consumed == num) {
				KUNIT_EXPECT_NULL(test, slot);
				break;
			}
			KUNIT_ASSERT_NOT_NULL(test, slot);
			queue_elem_put(slot, produced++);
			sroce_queue_client_push(q);
		}
		KUNIT_EXPECT_EQ(test, sroce_queue_count(q), produced - consumed);
		if (produced != consumed) {
			slot = sroce_queue_peek(q, produced - consumed - 1);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			queue_expect_elem(test, slot, produced - 1);
		}
		KUNIT_EXPECT_NULL(test, sroce_queue_peek(q, produced - consumed));
		/* The kernel takes all but (round % 3) of them. */
		while (produced - consumed > round % 3) {
			slot = sroce_queue_head(q);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			queue_expect_elem(test, slot, consumed++);
			sroce_queue_pop(q);
		}
	}
	KUNIT_EXPECT_GT(test, produced, 4 * (num + 1));
}

/*
 * RESET (sroce_queue_client_reset()): what the client posted and the
 * kernel did not take is gone, and the whole capacity is free again.
 */
static void queue_kernel_reset_test(struct kunit *test)
{
	u32 num = 3, i;
	struct sroce_queue *q = queue_new(test, &num, sizeof(struct queue_elem));
	void *slot;

	for (i = 0; i < 5; i++) {
		slot = sroce_queue_client_tail(q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		queue_elem_put(slot, i);
		sroce_queue_client_push(q);
		if (i < 3) {
			KUNIT_ASSERT_NOT_NULL(test, sroce_queue_head(q));
			sroce_queue_pop(q);
		}
	}
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 2u);
	sroce_queue_client_reset(q);
	KUNIT_EXPECT_EQ(test, sroce_queue_count(q), 0u);
	KUNIT_EXPECT_NULL(test, sroce_queue_head(q));
	for (i = 0; i < num; i++) {
		slot = sroce_queue_client_tail(q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		queue_elem_put(slot, 100 + i);
		sroce_queue_client_push(q);
	}
	KUNIT_EXPECT_NULL(test, sroce_queue_client_tail(q));
	slot = sroce_queue_head(q);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	queue_expect_elem(test, slot, 100);
}

/*
 * TO_CLIENT (CQ): the kernel produces until the ring is full, the client
 * polls the entries in order, and what it releases the kernel can reuse.
 */
static void queue_kernel_to_client_test(struct kunit *test)
{
	u32 num = 3, produced = 0, consumed = 0, round;
	struct sroce_queue *q = queue_new(test, &num, sizeof(struct queue_elem));
	void *slot;

	KUNIT_ASSERT_EQ(test, num, 3u);
	for (round = 0; round < 40; round++) {
		while ((slot = sroce_queue_tail(q))) {
			queue_elem_put(slot, produced++);
			sroce_queue_push(q);
		}
		KUNIT_EXPECT_EQ(test, produced - consumed, num);
		/* The client takes 1 to num of them. */
		while (produced - consumed > round % num) {
			slot = sroce_queue_client_head(q);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			queue_expect_elem(test, slot, consumed++);
			sroce_queue_client_pop(q);
		}
	}
	while (produced != consumed) {
		slot = sroce_queue_client_head(q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		queue_expect_elem(test, slot, consumed++);
		sroce_queue_client_pop(q);
	}
	KUNIT_EXPECT_NULL(test, sroce_queue_client_head(q));
	KUNIT_EXPECT_EQ(test, consumed, produced);
	KUNIT_EXPECT_GT(test, produced, 10 * num);
}

static struct kunit_case queue_cases[] = {
	KUNIT_CASE(queue_kernel_geometry_test),
	KUNIT_CASE(queue_kernel_stride_test),
	KUNIT_CASE(queue_kernel_bad_geometry_test),
	KUNIT_CASE(queue_kernel_from_client_test),
	KUNIT_CASE(queue_kernel_to_client_test),
	KUNIT_CASE(queue_kernel_reset_test),
	{}
};

static struct kunit_suite sroce_queue_suite = {
	.name = "sroce_queue",
	.test_cases = queue_cases,
};

kunit_test_suite(sroce_queue_suite);
