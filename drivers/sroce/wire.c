// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode table of the driver's wire layer, and the transport header
 * builder (see wire.h).
 */
#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <sroce/psn.h>
#include "compat.h"
#include "wire.h"

struct sroce_opinfo sroce_opinfo_table[U8_MAX + 1] __ro_after_init;
EXPORT_SYMBOL_IF_KUNIT(sroce_opinfo_table);

struct sroce_opdef {
	u8 opcode;
	u8 kind;	/* enum sroce_op_kind */
	u8 hdrs;	/* SROCE_HDR_* */
};

#define SROCE_OPDEF(op, kind, first, last, wqe, hdrs) \
	{ SROCE_OP_##op, SROCE_OPK_##kind, hdrs },
static const struct sroce_opdef sroce_opdefs[] __initconst = {
	SROCE_RC_OPCODES(SROCE_OPDEF)
	SROCE_UC_OPCODES(SROCE_OPDEF)
	SROCE_UD_OPCODES(SROCE_OPDEF)
};

/* Place @len bytes of header @h after what @info already holds. */
static u8 __init sroce_opinfo_add(struct sroce_opinfo *info, u8 hdrs, u8 h, u8 len)
{
	u8 at = info->len;

	if (!(hdrs & h))
		return 0;
	info->len += len;
	return at;
}

/*
 * The extension headers follow the BTH as DETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH.
 */
void __init sroce_wire_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_opdefs); i++) {
		const struct sroce_opdef *d = &sroce_opdefs[i];
		struct sroce_opinfo *info = &sroce_opinfo_table[d->opcode];

		if (d->kind == SROCE_OPK_RESERVED)
			continue;
		info->len = SROCE_BTH_LEN;
		info->deth = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_DETH,
					      sizeof(struct sroce_deth));
		info->reth = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_RETH,
					      sizeof(struct sroce_reth));
		info->atmeth = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_ATMETH,
						sizeof(struct sroce_atmeth));
		info->aeth = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_AETH,
					      sizeof(struct sroce_aeth));
		info->atmack = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_ATMACK,
						sizeof(struct sroce_atmack));
		info->immdt = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_IMMDT, sizeof(__be32));
		info->ieth = sroce_opinfo_add(info, d->hdrs, SROCE_HDR_IETH, sizeof(__be32));
		info->response = d->kind == SROCE_OPK_RESPONSE;
	}
}

/**
 * sroce_put_headers() - write a packet's BTH and extension headers.
 * @p: where the BTH goes, room for sroce_opinfo(h->opcode)->len bytes
 * @h: the fields
 *
 * Return: where the payload goes (after the headers).  TVer is 0.
 */
u8 *sroce_put_headers(u8 *p, const struct sroce_hdrs *h)
{
	const struct sroce_opinfo *info = sroce_opinfo(h->opcode);
	u8 *eth;

	p[offsetof(struct sroce_bth, opcode)] = h->opcode;
	p[offsetof(struct sroce_bth, flags)] = h->bth_flags | h->pad << SROCE_BTH_PAD_SHIFT;
	put_unaligned_be16(h->pkey, p + offsetof(struct sroce_bth, pkey));
	put_unaligned_be32(h->dest_qpn & SROCE_BTH_QPN_MASK, p + offsetof(struct sroce_bth, qpn));
	put_unaligned_be32((h->psn & SROCE_PSN_MASK) | (h->ackreq ? SROCE_BTH_ACKREQ : 0),
			   p + offsetof(struct sroce_bth, apsn));
	if (info->deth) {
		eth = p + info->deth;
		put_unaligned_be32(h->qkey, eth + offsetof(struct sroce_deth, qkey));
		put_unaligned_be32(h->src_qpn & SROCE_BTH_QPN_MASK,
				   eth + offsetof(struct sroce_deth, src_qpn));
	}
	if (info->reth) {
		eth = p + info->reth;
		put_unaligned_be64(h->va, eth + offsetof(struct sroce_reth, va));
		put_unaligned_be32(h->rkey, eth + offsetof(struct sroce_reth, rkey));
		put_unaligned_be32(h->dma_len, eth + offsetof(struct sroce_reth, len));
	}
	if (info->atmeth) {
		eth = p + info->atmeth;
		put_unaligned_be64(h->va, eth + offsetof(struct sroce_atmeth, va));
		put_unaligned_be32(h->rkey, eth + offsetof(struct sroce_atmeth, rkey));
		put_unaligned_be64(h->swap_add, eth + offsetof(struct sroce_atmeth, swap_add));
		put_unaligned_be64(h->compare, eth + offsetof(struct sroce_atmeth, compare));
	}
	if (info->aeth)
		put_unaligned_be32((u32)h->syndrome << SROCE_AETH_SYNDROME_SHIFT |
				   (h->msn & SROCE_AETH_MSN_MASK), p + info->aeth);
	if (info->atmack)
		put_unaligned_be64(h->atomic_orig, p + info->atmack);
	if (info->immdt)
		put_unaligned(h->imm, (__be32 *)(p + info->immdt));
	if (info->ieth)
		put_unaligned(h->imm, (__be32 *)(p + info->ieth));
	return p + info->len;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_put_headers);
