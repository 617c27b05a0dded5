/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's wire layer: what each RC and UD opcode carries, with its
 * header offsets (derived at load from the opcode lists, SROCE_RC_OPCODES
 * and SROCE_UD_OPCODES in include/sroce/ib_wire.h, which the cores read
 * too), and the header
 * builder every transmit path uses.
 */
#ifndef SROCE_WIRE_H
#define SROCE_WIRE_H

#include <linux/types.h>
#include <sroce/ib_wire.h>

#define SROCE_BTH_LEN sizeof(struct sroce_bth)
#define SROCE_PKEY_DEFAULT 0xffff

/*
 * What an opcode carries (IBA Table 35 and 9.3).  Offsets are from the
 * start of the BTH; 0 means the header is absent.
 */
struct sroce_opinfo {
	u8 len;		/* BTH and extension headers; 0: an opcode sroce does not carry */
	u8 deth;
	u8 reth;
	u8 atmeth;
	u8 aeth;
	u8 atmack;
	u8 immdt;
	u8 ieth;
	bool response;	/* a response: for the completer */
};

extern struct sroce_opinfo sroce_opinfo_table[U8_MAX + 1];

static inline const struct sroce_opinfo *sroce_opinfo(u8 opcode)
{
	return &sroce_opinfo_table[opcode];
}

/*
 * The fields of a packet's transport headers, host endian.  Which
 * extension headers are written is the opcode's business (its
 * sroce_opinfo); the fields of the others are ignored.
 */
struct sroce_hdrs {
	u8 opcode;
	u8 bth_flags;		/* SROCE_BTH_SE, SROCE_BTH_MIG */
	bool ackreq;
	u8 pad;			/* 0-3 bytes after the payload */
	u16 pkey;
	u32 dest_qpn;
	u32 psn;
	u64 va;			/* RETH, AtomicETH */
	u32 rkey;		/* RETH, AtomicETH */
	u32 dma_len;		/* RETH */
	u64 swap_add;		/* AtomicETH */
	u64 compare;		/* AtomicETH */
	u8 syndrome;		/* AETH */
	u32 msn;		/* AETH */
	u64 atomic_orig;	/* AtomicAckETH */
	__be32 imm;		/* ImmDt, or IETH's R_Key */
	u32 qkey;		/* DETH */
	u32 src_qpn;		/* DETH */
};

void sroce_wire_init(void);
u8 *sroce_put_headers(u8 *p, const struct sroce_hdrs *h);

#endif /* SROCE_WIRE_H */
