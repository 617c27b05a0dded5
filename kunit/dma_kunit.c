// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_dma: the MR range check, sroce_mr_covers() (mr.c),
 * and the copy cursor (dma.c) at their edges.
 *
 * sroce_mr_covers() is a table of MR ranges and pieces with the answer
 * each must get: zero lengths at both ends, the last byte, one past,
 * pieces and MRs at the top of the 64-bit space, and pieces whose end
 * wraps it.
 *
 * The cursor runs over a fake user MR of three pages, registered by hand
 * in a zeroed device's key table: its iova is 2^64 - 3 pages + 0x10 and
 * it ends exactly at 2^64, so "the end of the MR" and "the end of the
 * address space" are the same edge, and one byte past it wraps to 0.
 * Each row lays SGEs over it (offsets from its iova), copies a message
 * piece into it (from an skb), out of it (into one) or stores a buffer
 * (sroce_cursor_write(), an ATOMIC's result), and says what must come
 * back and where the bytes must land, as literal (MR offset, message
 * offset, length) spans.  Every byte of the MR (or of the skb, when
 * copying out) is checked: inside a span it holds its pattern, outside
 * it is untouched; and the MR's reference count is back to one once the
 * cursor is put.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>

#include "../drivers/sroce/sroce.h"
#include "../drivers/sroce/dma.h"
#include "../drivers/sroce/kunit_exports.h"

/* --- sroce_mr_covers --------------------------------------------------- */

struct covers_row {
	const char *name;
	u64 mr_iova;
	u64 mr_len;
	u64 iova;
	u64 len;
	bool covers;
};

#define TOP(n) (U64_MAX - (n) + 1)	/* n bytes below 2^64 */

static const struct covers_row covers_rows[] = {
	{ .name = "whole mr", 0x1000, 0x100, 0x1000, 0x100, true },
	{ .name = "zero length at the start", 0x1000, 0x100, 0x1000, 0, true },
	{ .name = "zero length at the end", 0x1000, 0x100, 0x1100, 0, true },
	{ .name = "zero length one past the end", 0x1000, 0x100, 0x1101, 0, false },
	{ .name = "zero length one before the start", 0x1000, 0x100, 0xfff, 0, false },
	{ .name = "last byte", 0x1000, 0x100, 0x10ff, 1, true },
	{ .name = "last byte and one past", 0x1000, 0x100, 0x10ff, 2, false },
	{ .name = "first byte and one before", 0x1000, 0x100, 0xfff, 2, false },
	{ .name = "longer than the mr", 0x1000, 0x100, 0x1000, 0x101, false },
	{ .name = "end wraps 2^64 back into the mr", 0x1000, 0x100, TOP(0x80), 0x1100, false },
	{ .name = "start far above, end wraps below", 0x1000, 0x100, TOP(0x10), 0x20, false },
	{ .name = "mr at the top: its last 8 bytes", TOP(0x1000), 0x1000, TOP(8), 8, true },
	{ .name = "mr at the top: 9 bytes wrap 2^64", TOP(0x1000), 0x1000, TOP(8), 9, false },
	{ .name = "mr at the top: zero length at 2^64 - 1", TOP(0x1000), 0x1000, U64_MAX, 0,
	  true },
	{ .name = "mr at the top: piece from 0 (2^64 wrapped)", TOP(0x1000), 0x1000, 0, 1,
	  false },
	{ .name = "dma mr: last byte before 2^64 - 1", 0, U64_MAX, U64_MAX - 1, 1, true },
	{ .name = "dma mr: byte 2^64 - 1 is outside", 0, U64_MAX, U64_MAX, 1, false },
	{ .name = "dma mr: all of it", 0, U64_MAX, 0, U64_MAX, true },
	{ .name = "dma mr: all of it from 1", 0, U64_MAX, 1, U64_MAX, false },
	{ .name = "length above 32 bits", 0x1000, 0x200000000ull, 0x1000, 0x1ffffffffull, true },
};

static void covers_desc(const struct covers_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(covers, covers_rows, covers_desc);

static void covers_test(struct kunit *test)
{
	const struct covers_row *r = test->param_value;
	struct sroce_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->iova = r->mr_iova;
	mr->length = r->mr_len;
	KUNIT_EXPECT_EQ(test, sroce_mr_covers(mr, r->iova, r->len), r->covers);
}

/* --- the copy cursor --------------------------------------------------- */

#define CUR_PAGES 3
#define CUR_FIRST_OFFSET 0x10
#define CUR_LEN (CUR_PAGES * PAGE_SIZE - CUR_FIRST_OFFSET)
#define CUR_IOVA TOP(CUR_LEN)			/* the MR ends at 2^64 */
#define CUR_KEY (5 << 8 | 0x3c)
#define CUR_ACCESS IB_ACCESS_LOCAL_WRITE
#define P PAGE_SIZE
#define P0 (P - CUR_FIRST_OFFSET)		/* MR offset of the first page boundary */

enum cur_op {
	CUR_TO_MR,	/* sroce_cursor_copy(SROCE_COPY_TO_MR): receive placement */
	CUR_FROM_MR,	/* sroce_cursor_copy(SROCE_COPY_FROM_MR): gather */
	CUR_WRITE,	/* sroce_cursor_write(): an ATOMIC's result */
};

struct cur_sge {
	s64 off;	/* from the MR's iova */
	u32 len;
	bool bad_key;
};

struct cur_span {
	u32 mr_off;
	u32 msg_off;
	u32 len;
};

struct cur_row {
	const char *name;
	struct cur_sge sge[3];
	u32 nsge;
	enum cur_op op;
	u32 pos;
	u32 len;
	int ret;
	struct cur_span span[3];	/* where the bytes land; len 0 ends the list */
};

#define SGE(o, l) { .off = (o), .len = (l) }

static const struct cur_row cur_rows[] = {
	{ .name = "zero length", .sge = { SGE(0, 16) }, .nsge = 1, .len = 0 },
	{ .name = "within a page", .sge = { SGE(0x20, 64) }, .nsge = 1, .len = 64,
	  .span = { { 0x20, 0, 64 } } },
	{ .name = "across a page boundary", .sge = { SGE(P0 - 8, 16) }, .nsge = 1, .len = 16,
	  .span = { { P0 - 8, 0, 16 } } },
	{ .name = "across an sge boundary", .sge = { SGE(0, 10), SGE(100, 20) }, .nsge = 2,
	  .len = 30, .span = { { 0, 0, 10 }, { 100, 10, 20 } } },
	{ .name = "from the middle of the second sge", .sge = { SGE(0, 10), SGE(100, 20) },
	  .nsge = 2, .pos = 15, .len = 5, .span = { { 105, 15, 5 } } },
	{ .name = "from the start of the second sge", .sge = { SGE(0, 10), SGE(100, 20) },
	  .nsge = 2, .pos = 10, .len = 20, .span = { { 100, 10, 20 } } },
	{ .name = "sge boundary on a page boundary",
	  .sge = { SGE(P0 - 4, 4), SGE(P0, 4), SGE(P0 + P, 4) }, .nsge = 3, .len = 12,
	  .span = { { P0 - 4, 0, 4 }, { P0, 4, 4 }, { P0 + P, 8, 4 } } },
	{ .name = "a zero-length sge is stepped over", .sge = { SGE(0, 0), SGE(50, 8) },
	  .nsge = 2, .len = 8, .span = { { 50, 0, 8 } } },
	{ .name = "ends exactly at the mr end (2^64)", .sge = { SGE(CUR_LEN - 16, 16) },
	  .nsge = 1, .len = 16, .span = { { CUR_LEN - 16, 0, 16 } } },
	{ .name = "one past the mr end wraps 2^64: refused", .sge = { SGE(CUR_LEN - 16, 17) },
	  .nsge = 1, .len = 17, .ret = -EFAULT },
	{ .name = "an sge at 2^64 (address 0): refused", .sge = { SGE(CUR_LEN, 4) }, .nsge = 1,
	  .len = 4, .ret = -EACCES },
	{ .name = "an sge one byte below the mr: refused", .sge = { SGE(-1, 4) }, .nsge = 1,
	  .len = 4, .ret = -EACCES },
	{ .name = "an sge of another key: refused",
	  .sge = { { .off = 0, .len = 8, .bad_key = true } }, .nsge = 1, .len = 8,
	  .ret = -EACCES },
	{ .name = "message longer than the sges: the sges filled, then a length error",
	  .sge = { SGE(0, 10) }, .nsge = 1, .len = 11, .ret = -EMSGSIZE,
	  .span = { { 0, 0, 10 } } },
	{ .name = "position past the sges: a length error", .sge = { SGE(0, 10) }, .nsge = 1,
	  .pos = 11, .len = 1, .ret = -EMSGSIZE },
	{ .name = "gather across an sge and a page boundary",
	  .sge = { SGE(P0 - 3, 6), SGE(200, 10) }, .nsge = 2, .op = CUR_FROM_MR, .len = 16,
	  .span = { { P0 - 3, 0, 6 }, { 200, 6, 10 } } },
	{ .name = "gather ending exactly at the mr end", .sge = { SGE(CUR_LEN - 8, 8) },
	  .nsge = 1, .op = CUR_FROM_MR, .len = 8, .span = { { CUR_LEN - 8, 0, 8 } } },
	{ .name = "gather one past the mr end: refused", .sge = { SGE(CUR_LEN - 4, 8) },
	  .nsge = 1, .op = CUR_FROM_MR, .len = 8, .ret = -EFAULT },
	{ .name = "atomic result across an sge boundary", .sge = { SGE(0x40, 4), SGE(0x80, 4) },
	  .nsge = 2, .op = CUR_WRITE, .len = 8, .span = { { 0x40, 0, 4 }, { 0x80, 4, 4 } } },
	{ .name = "atomic result at the mr end", .sge = { SGE(CUR_LEN - 8, 8) }, .nsge = 1,
	  .op = CUR_WRITE, .len = 8, .span = { { CUR_LEN - 8, 0, 8 } } },
	{ .name = "atomic result one past the mr end: refused", .sge = { SGE(CUR_LEN - 7, 8) },
	  .nsge = 1, .op = CUR_WRITE, .len = 8, .ret = -EFAULT },
};

static void cur_desc(const struct cur_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cur, cur_rows, cur_desc);

/* Message bytes and MR bytes: never 0, so an untouched byte differs from both. */
static u8 cur_msg_byte(u32 msg_off)
{
	return 0x80 | (msg_off * 7 & 0x7f);
}

static u8 cur_mr_byte(u32 mr_off)
{
	return 0x80 | ((mr_off * 13 + 5) & 0x7f);
}

struct cur_env {
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_mr *mr;
	struct page *pages[CUR_PAGES];
};

static int cur_init(struct kunit *test)
{
	struct cur_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	unsigned int i;

	test->priv = NULL;	/* the struct kunit of the last row may hold it */
	KUNIT_ASSERT_NOT_NULL(test, env);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	xa_init(&sdev->mr_xa);
	env->sdev = sdev;
	test->priv = env;
	env->pd = kunit_kzalloc(test, sizeof(*env->pd), GFP_KERNEL);
	env->mr = kunit_kzalloc(test, sizeof(*env->mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->pd);
	KUNIT_ASSERT_NOT_NULL(test, env->mr);
	for (i = 0; i < CUR_PAGES; i++) {
		env->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, env->pages[i]);
	}
	*env->mr = (struct sroce_mr){
		.sdev = env->sdev, .kind = SROCE_MR_USER, .pages = env->pages,
		.npages = CUR_PAGES, .first_offset = CUR_FIRST_OFFSET, .iova = CUR_IOVA,
		.length = CUR_LEN, .access = CUR_ACCESS,
	};
	env->mr->ibmr.lkey = CUR_KEY;
	env->mr->ibmr.rkey = CUR_KEY;
	env->mr->ibmr.pd = &env->pd->ibpd;
	refcount_set(&env->mr->refs, 1);
	init_completion(&env->mr->released);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&env->sdev->mr_xa, CUR_KEY >> 8, env->mr,
					      GFP_KERNEL)), 0);
	return 0;
}

static void cur_exit(struct kunit *test)
{
	struct cur_env *env = test->priv;
	unsigned int i;

	if (!env)
		return;
	xa_destroy(&env->sdev->mr_xa);
	for (i = 0; i < CUR_PAGES; i++)
		if (env->pages[i])
			__free_page(env->pages[i]);
}

/* The MR's byte at @off from its iova. */
static u8 *cur_mr_at(struct cur_env *env, u32 off)
{
	u32 o = off + CUR_FIRST_OFFSET;

	return (u8 *)page_address(env->pages[o / PAGE_SIZE]) + o % PAGE_SIZE;
}

/* The span of @r holding MR offset @at (@in_mr), or message offset @at; or NULL. */
static const struct cur_span *cur_span_of(const struct cur_row *r, u32 at, bool in_mr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r->span) && r->span[i].len; i++) {
		u32 start = in_mr ? r->span[i].mr_off : r->span[i].msg_off;

		if (at >= start && at - start < r->span[i].len)
			return &r->span[i];
	}
	return NULL;
}

/* Copying in: each MR byte holds its message byte if a span covers it, else 0. */
static void cur_check_mr(struct kunit *test, struct cur_env *env, const struct cur_row *r)
{
	u32 off, bad = 0, first_bad = 0;

	for (off = 0; off < CUR_LEN; off++) {
		const struct cur_span *s = cur_span_of(r, off, true);
		u8 want = s ? cur_msg_byte(s->msg_off + off - s->mr_off) : 0;

		if (*cur_mr_at(env, off) != want && !bad++)
			first_bad = off;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "MR bytes wrong, the first at offset %#x", first_bad);
}

/* Copying out: each skb byte holds its MR byte if a span covers it, else 0. */
static void cur_check_skb(struct kunit *test, const struct sk_buff *skb, const struct cur_row *r)
{
	u32 j, bad = 0, first_bad = 0;

	for (j = 0; j < r->len; j++) {
		const struct cur_span *s = cur_span_of(r, r->pos + j, false);
		u8 want = s ? cur_mr_byte(s->mr_off + r->pos + j - s->msg_off) : 0;

		if (skb->data[j] != want && !bad++)
			first_bad = j;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "skb bytes wrong, the first at %u", first_bad);
}

static void cur_test(struct kunit *test)
{
	const struct cur_row *r = test->param_value;
	struct cur_env *env = test->priv;
	struct rxe_sge sge[ARRAY_SIZE(r->sge)];
	struct sroce_cursor c;
	struct sk_buff *skb;
	u32 i, off;
	u8 *data;
	int ret;

	for (i = 0; i < r->nsge; i++)
		sge[i] = (struct rxe_sge){
			.addr = CUR_IOVA + r->sge[i].off, .length = r->sge[i].len,
			.lkey = r->sge[i].bad_key ? CUR_KEY + 0x100 : CUR_KEY,
		};
	if (r->op == CUR_FROM_MR)
		for (off = 0; off < CUR_LEN; off++)
			*cur_mr_at(env, off) = cur_mr_byte(off);

	skb = alloc_skb(r->len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	data = skb_put_zero(skb, r->len);
	if (r->op != CUR_FROM_MR)
		for (i = 0; i < r->len; i++)
			data[i] = cur_msg_byte(r->pos + i);

	sroce_cursor_init(&c, env->sdev, env->pd, sge, r->nsge, CUR_ACCESS);
	if (r->op == CUR_WRITE)
		ret = sroce_cursor_write(&c, r->pos, data, r->len);
	else
		ret = sroce_cursor_copy(&c, r->pos, skb, 0, r->len,
					r->op == CUR_TO_MR ? SROCE_COPY_TO_MR : SROCE_COPY_FROM_MR);
	sroce_cursor_put(&c);

	KUNIT_EXPECT_EQ(test, ret, r->ret);
	KUNIT_EXPECT_EQ(test, refcount_read(&env->mr->refs), 1);
	if (r->op == CUR_FROM_MR)
		cur_check_skb(test, skb, r);
	else
		cur_check_mr(test, env, r);
	kfree_skb(skb);
}

static struct kunit_case covers_cases[] = {
	KUNIT_CASE_PARAM(covers_test, covers_gen_params),
	{}
};

static struct kunit_case cur_cases[] = {
	KUNIT_CASE_PARAM(cur_test, cur_gen_params),
	{}
};

static struct kunit_suite sroce_mr_covers_suite = {
	.name = "sroce_mr_covers",
	.test_cases = covers_cases,
};

static struct kunit_suite sroce_cursor_suite = {
	.name = "sroce_cursor",
	.init = cur_init,
	.exit = cur_exit,
	.test_cases = cur_cases,
};

kunit_test_suites(&sroce_mr_covers_suite, &sroce_cursor_suite);
