// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the wire layer: sroce_wire, a round trip through
 * sroce_put_headers() (wire.c) and the receive parse, sroce_parse()
 * (recv.c), for every opcode of the X-macro lists in
 * include/sroce/ib_wire.h; and sroce_icrc, known answers of sroce_icrc()
 * (icrc.c) for IPv4 and IPv6 frames.
 *
 * The round trip checks every field of struct sroce_hdrs: what
 * sroce_parse() puts in struct sroce_pkt, and the rest (P_Key, DestQP,
 * MigReq, PadCnt, TVer, AETH, AtomicETH operands, AtomicAckETH) read
 * back from the bytes at the offsets the IBA header order gives (9.2:
 * DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH), which the
 * test derives itself from each opcode's header list.  Three value
 * sets: ordinary values; all ones; and only the bits beyond each 24-bit
 * field (DestQP, PSN, MSN, SrcQP), which must not reach the wire, into
 * FECN/BECN, AckReq, the syndrome or the DETH's reserved byte.  A canary
 * after the headers catches a write past them.
 *
 * The ICRC vectors were computed by tools/icrc-vectors.py, written from
 * the definition (IBA Annex A17.3.3) independently of icrc.c; the frames
 * are its output, byte for byte.  Pairs that differ only in variant
 * fields (TOS, TTL, IP checksum, traffic class, flow label, hop limit,
 * UDP checksum, FECN/BECN) have the same ICRC; a flipped payload bit or
 * a changed IPv4 identification give another.  Each frame is run linear
 * and with its payload in a page frag.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include <sroce/ib_wire.h>
#include <sroce/psn.h>
#include "../drivers/sroce/sroce.h"
#include "../drivers/sroce/wire.h"
#include "../drivers/sroce/kunit_exports.h"

/* --- sroce_wire: put_headers, then parse ------------------------------ */

struct wire_row {
	const char *name;
	u8 opcode;
	u8 kind;		/* enum sroce_op_kind */
	u8 hdrs;		/* SROCE_HDR_* */
};

#define WIRE_ROW(op, kind_, first, last, wqe, hdrs_) \
	{ .name = #op, .opcode = SROCE_OP_##op, .kind = SROCE_OPK_##kind_, .hdrs = hdrs_ },
static const struct wire_row wire_rows[] = {
	SROCE_RC_OPCODES(WIRE_ROW)
	SROCE_UC_OPCODES(WIRE_ROW)
	SROCE_UD_OPCODES(WIRE_ROW)
};

static void wire_desc(const struct wire_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s round trip", r->name);
}

KUNIT_ARRAY_PARAM(wire, wire_rows, wire_desc);

/* The extension headers in their wire order, with their sizes (IBA 9.3). */
enum { W_DETH, W_RETH, W_ATMETH, W_AETH, W_ATMACK, W_IMMDT, W_IETH, W_NHDRS };
static const struct {
	u8 flag;
	u8 size;
} wire_hdr_order[W_NHDRS] = {
	[W_DETH] = { SROCE_HDR_DETH, 8 },
	[W_RETH] = { SROCE_HDR_RETH, 16 },
	[W_ATMETH] = { SROCE_HDR_ATMETH, 28 },
	[W_AETH] = { SROCE_HDR_AETH, 4 },
	[W_ATMACK] = { SROCE_HDR_ATMACK, 8 },
	[W_IMMDT] = { SROCE_HDR_IMMDT, 4 },
	[W_IETH] = { SROCE_HDR_IETH, 4 },
};

static const struct sroce_hdrs wire_values[] = {
	{
		.bth_flags = SROCE_BTH_SE, .ackreq = true, .pad = 2, .pkey = 0x8001,
		.dest_qpn = 0xabcdef, .psn = 0x765432, .va = 0x0123456789abcdefull,
		.rkey = 0x11223344, .dma_len = 0x55667788, .swap_add = 0x99aabbccddeeff00ull,
		.compare = 0x0f1e2d3c4b5a6978ull, .syndrome = 0x61, .msn = 0x123456,
		.atomic_orig = 0xfedcba9876543210ull, .imm = cpu_to_be32(0xcafef00d),
		.qkey = 0x80000001, .src_qpn = 0x00fedc,
	},
	{	/* All ones: a field's extra bits must not spill into its neighbours. */
		.bth_flags = SROCE_BTH_MIG, .ackreq = false, .pad = 3, .pkey = 0xffff,
		.dest_qpn = U32_MAX, .psn = U32_MAX, .va = U64_MAX, .rkey = U32_MAX,
		.dma_len = U32_MAX, .swap_add = U64_MAX, .compare = U64_MAX, .syndrome = 0xff,
		.msn = U32_MAX, .atomic_orig = U64_MAX, .imm = cpu_to_be32(U32_MAX),
		.qkey = U32_MAX, .src_qpn = U32_MAX,
	},
	{	/* Only the bits beyond each 24-bit field: none may reach the wire. */
		.pkey = 0xffff, .dest_qpn = 0xff000000, .psn = 0xff000000, .msn = 0xff000000,
		.src_qpn = 0xff000000,
	},
};

#define WIRE_PAYLOAD 5
#define WIRE_CANARY 0xa5

static void wire_check_bth(struct kunit *test, const u8 *bth, const struct sroce_hdrs *h,
			   const struct sroce_pkt *pkt)
{
	u8 flags = bth[offsetof(struct sroce_bth, flags)];

	KUNIT_EXPECT_EQ(test, pkt->opcode, h->opcode);
	KUNIT_EXPECT_EQ(test, pkt->se, !!(h->bth_flags & SROCE_BTH_SE));
	KUNIT_EXPECT_EQ(test, !!(flags & SROCE_BTH_MIG), !!(h->bth_flags & SROCE_BTH_MIG));
	KUNIT_EXPECT_EQ(test, (flags >> SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK, h->pad);
	KUNIT_EXPECT_EQ(test, flags & SROCE_BTH_TVER_MASK, 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(bth + offsetof(struct sroce_bth, pkey)),
			h->pkey);
	/* FECN, BECN and resv6 zero; DestQP its 24 bits. */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(bth + offsetof(struct sroce_bth, qpn)),
			h->dest_qpn & 0xffffff);
	KUNIT_EXPECT_EQ(test, pkt->psn, h->psn & 0xffffff);
	KUNIT_EXPECT_EQ(test, pkt->ackreq, h->ackreq);
	/* resv7 between AckReq and the PSN is zero. */
	KUNIT_EXPECT_EQ(test, bth[offsetof(struct sroce_bth, apsn)] & 0x7f, 0);
}

static void wire_test(struct kunit *test)
{
	const struct wire_row *r = test->param_value;
	const struct sroce_opinfo *info = sroce_opinfo(r->opcode);
	unsigned int off[W_NHDRS] = {}, len = SROCE_BTH_LEN, i, v;

	for (i = 0; i < W_NHDRS; i++) {
		if (!(r->hdrs & wire_hdr_order[i].flag))
			continue;
		off[i] = len;
		len += wire_hdr_order[i].size;
	}
	if (r->kind == SROCE_OPK_RESERVED) {
		/* Not carried: the receive path drops it as rx_drop_bad_opcode. */
		KUNIT_EXPECT_EQ(test, info->len, 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, info->len, len);
	KUNIT_EXPECT_EQ(test, info->deth, off[W_DETH]);
	KUNIT_EXPECT_EQ(test, info->reth, off[W_RETH]);
	KUNIT_EXPECT_EQ(test, info->atmeth, off[W_ATMETH]);
	KUNIT_EXPECT_EQ(test, info->aeth, off[W_AETH]);
	KUNIT_EXPECT_EQ(test, info->atmack, off[W_ATMACK]);
	KUNIT_EXPECT_EQ(test, info->immdt, off[W_IMMDT]);
	KUNIT_EXPECT_EQ(test, info->ieth, off[W_IETH]);
	KUNIT_EXPECT_EQ(test, info->response, r->kind == SROCE_OPK_RESPONSE);

	for (v = 0; v < ARRAY_SIZE(wire_values); v++) {
		struct sroce_hdrs h = wire_values[v];
		unsigned int room = len + WIRE_PAYLOAD + h.pad + SROCE_ICRC_SIZE;
		struct sk_buff *skb = alloc_skb(room + 16, GFP_KERNEL);
		const struct sroce_pkt *pkt;
		u8 *bth, *end;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		h.opcode = r->opcode;
		bth = skb_put(skb, room);
		memset(bth, WIRE_CANARY, room + 16);
		end = sroce_put_headers(bth, &h);
		KUNIT_EXPECT_PTR_EQ_MSG(test, end, bth + len, "values %u", v);
		for (i = len; i < room + 16; i++)
			if (bth[i] != WIRE_CANARY)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, room + 16, "values %u: written past the headers", v);

		sroce_parse(skb, info, h.pad);
		pkt = sroce_pkt(skb);
		wire_check_bth(test, bth, &h, pkt);
		KUNIT_EXPECT_EQ(test, pkt->payload_off, len);
		KUNIT_EXPECT_EQ(test, pkt->payload_len, WIRE_PAYLOAD);
		KUNIT_EXPECT_EQ(test, pkt->has_imm, !!off[W_IMMDT]);
		KUNIT_EXPECT_EQ(test, pkt->has_inv, !!off[W_IETH]);
		KUNIT_EXPECT_EQ(test, pkt->atmeth_off, off[W_ATMETH]);
		if (off[W_DETH]) {
			KUNIT_EXPECT_EQ(test, pkt->deth_qkey, h.qkey);
			KUNIT_EXPECT_EQ(test, pkt->deth_src_qpn, h.src_qpn & 0xffffff);
			/* The reserved byte before SrcQP is zero. */
			KUNIT_EXPECT_EQ(test, bth[off[W_DETH] + 4], 0);
		}
		if (off[W_RETH]) {
			KUNIT_EXPECT_EQ(test, pkt->remote_va, h.va);
			KUNIT_EXPECT_EQ(test, pkt->remote_rkey, h.rkey);
			KUNIT_EXPECT_EQ(test, pkt->remote_len, h.dma_len);
		}
		if (off[W_ATMETH]) {
			const u8 *a = bth + off[W_ATMETH];

			KUNIT_EXPECT_EQ(test, pkt->remote_va, h.va);
			KUNIT_EXPECT_EQ(test, pkt->remote_rkey, h.rkey);
			KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 12), h.swap_add);
			KUNIT_EXPECT_EQ(test, get_unaligned_be64(a + 20), h.compare);
		}
		if (off[W_AETH]) {
			KUNIT_EXPECT_EQ(test, bth[off[W_AETH]], h.syndrome);
			KUNIT_EXPECT_EQ(test, get_unaligned_be32(bth + off[W_AETH]) & 0xffffff,
					h.msn & 0xffffff);
		}
		if (off[W_ATMACK])
			KUNIT_EXPECT_EQ(test, get_unaligned_be64(bth + off[W_ATMACK]),
					h.atomic_orig);
		if (off[W_IMMDT] || off[W_IETH])
			KUNIT_EXPECT_EQ(test, be32_to_cpu(pkt->imm_data), be32_to_cpu(h.imm));
		kfree_skb(skb);
	}
}

/* --- sroce_icrc: known answers ---------------------------------------- */

/* tools/icrc-vectors.py's output: IP header to pad, no ICRC trailer. */
static const u8 v4_send[] = {
	0x45, 0x00, 0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x99, 0x35,
	0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x04, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v4_send_variant[] = {
	0x45, 0xb9, 0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x01, 0x11, 0x5a, 0x5a,
	0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x1c, 0xbe, 0xef, 0x04, 0x80, 0xff, 0xff, 0xd5, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v4_send_flipped[] = {
	0x45, 0x00, 0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x99, 0x35,
	0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x04, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0x10, 0x11, 0x12, 0x12, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v4_send_ident[] = {
	0x45, 0x00, 0x00, 0x30, 0x12, 0x35, 0x40, 0x00, 0x40, 0x11, 0x99, 0x34,
	0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x04, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x12, 0x34, 0x56, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v4_write_pad[] = {
	0x45, 0x00, 0x00, 0x48, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x14, 0x6f,
	0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xd0, 0x00, 0x12, 0xb7,
	0x00, 0x34, 0x00, 0x00, 0x0a, 0x30, 0xff, 0xff, 0x00, 0x00, 0xab, 0xcd,
	0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78,
	0x00, 0x00, 0xab, 0xcd, 0x00, 0x00, 0x00, 0x0d, 0xa0, 0xa1, 0xa2, 0xa3,
	0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0x00, 0x00, 0x00,
};

static const u8 v6_send[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x1c, 0x00, 0x00,
	0x04, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v6_send_variant[] = {
	0x6b, 0x8a, 0xbc, 0xde, 0x00, 0x1c, 0x11, 0x01, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x1c, 0x12, 0x34,
	0x04, 0x80, 0xff, 0xff, 0xff, 0x00, 0x00, 0x11, 0x80, 0x12, 0x34, 0x56,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const u8 v6_ud_pad[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x20, 0xe0, 0x01, 0x12, 0xb7, 0x00, 0x20, 0x00, 0x00,
	0x64, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x42,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x5a, 0x00, 0x00, 0x00,
};

struct icrc_row {
	const char *name;
	bool ipv6;
	bool paged;		/* the payload (from @payload) in a page frag */
	const u8 *frame;
	unsigned int len;
	unsigned int payload;
	u32 icrc;		/* as a little-endian load of the trailer gives it */
};

#define V4(f, pay) .frame = f, .len = sizeof(f), .payload = pay
#define V6(f, pay) .ipv6 = true, V4(f, pay)

static const struct icrc_row icrc_rows[] = {
	{ .name = "ipv4 send only", V4(v4_send, 40), .icrc = 0x3e47190e },
	{ .name = "ipv4 send only, paged", V4(v4_send, 40), .paged = true, .icrc = 0x3e47190e },
	{ .name = "ipv4 send only, variant fields changed", V4(v4_send_variant, 40),
	  .icrc = 0x3e47190e },
	{ .name = "ipv4 send only, a payload bit flipped", V4(v4_send_flipped, 40),
	  .icrc = 0x032730be },
	{ .name = "ipv4 send only, identification changed", V4(v4_send_ident, 40),
	  .icrc = 0x7954eff5 },
	{ .name = "ipv4 write only with reth and pad", V4(v4_write_pad, 56), .icrc = 0x8fadba19 },
	{ .name = "ipv4 write only with reth and pad, paged", V4(v4_write_pad, 56), .paged = true,
	  .icrc = 0x8fadba19 },
	{ .name = "ipv6 send only", V6(v6_send, 60), .icrc = 0x599c1800 },
	{ .name = "ipv6 send only, paged", V6(v6_send, 60), .paged = true, .icrc = 0x599c1800 },
	{ .name = "ipv6 send only, variant fields changed", V6(v6_send_variant, 60),
	  .icrc = 0x599c1800 },
	{ .name = "ipv6 ud send only with deth and pad", V6(v6_ud_pad, 68), .icrc = 0x367911b6 },
	{ .name = "ipv6 ud send only with deth and pad, paged", V6(v6_ud_pad, 68), .paged = true,
	  .icrc = 0x367911b6 },
};

static void icrc_desc(const struct icrc_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(icrc, icrc_rows, icrc_desc);

static void icrc_test(struct kunit *test)
{
	const struct icrc_row *r = test->param_value;
	unsigned int ip_len = r->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	unsigned int bth_off = ip_len + sizeof(struct udphdr);
	unsigned int linear = r->paged ? r->payload : r->len;
	struct sk_buff *skb = alloc_skb(LL_MAX_HEADER + r->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, LL_MAX_HEADER);
	skb_reset_network_header(skb);
	skb_put_data(skb, r->frame, linear);
	if (r->paged) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			kfree_skb(skb);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), r->frame + linear, r->len - linear);
		skb_add_rx_frag(skb, 0, page, 0, r->len - linear, PAGE_SIZE);
	}
	skb->protocol = htons(r->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	KUNIT_EXPECT_EQ(test, sroce_icrc(skb, bth_off, r->len - bth_off), r->icrc);
	/* The variant fields were masked in a copy: the frame is as it came. */
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), linear);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data, r->frame, linear), 0);
	kfree_skb(skb);
}

static struct kunit_case wire_cases[] = {
	KUNIT_CASE_PARAM(wire_test, wire_gen_params),
	{}
};

static struct kunit_case icrc_cases[] = {
	KUNIT_CASE_PARAM(icrc_test, icrc_gen_params),
	{}
};

static struct kunit_suite sroce_wire_suite = {
	.name = "sroce_wire",
	.test_cases = wire_cases,
};

static struct kunit_suite sroce_icrc_suite = {
	.name = "sroce_icrc",
	.test_cases = icrc_cases,
};

kunit_test_suites(&sroce_wire_suite, &sroce_icrc_suite);
