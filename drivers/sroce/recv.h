/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recv.c: the receive path, which parses and checks every datagram into a
 * struct sroce_pkt; icrc.c: the RoCEv2 ICRC.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct sroce_qp;
struct sroce_dev;

#define SROCE_ICRC_SIZE 4		/* RoCEv2 ICRC trailer */

/*
 * A received packet, parsed and validated by recv.c, in skb->cb.  Offsets
 * are from skb->data, which recv.c leaves pointing at the BTH.
 */
struct sroce_pkt {
	struct sroce_qp *qp;		/* referenced; the consumer puts it */
	u32 psn;
	u8 opcode;
	u8 ackreq;
	u8 se;				/* solicited event */
	u8 has_imm;			/* ImmDt present (imm_data valid) */
	u8 has_inv;			/* IETH present (imm_data is the rkey) */
	u8 pad_;
	u16 atmeth_off;			/* AtomicETH offset, 0 if none */
	__be32 imm_data;		/* ImmDt or IETH, as received */
	u32 payload_off;		/* payload starts here */
	u32 payload_len;		/* pad and ICRC excluded */
	union {
		struct {		/* the remote memory the request names */
			u64 remote_va;		/* the RETH's or the AtomicETH's VA */
			u32 remote_rkey;	/* its R_Key */
			u32 remote_len;		/* the RETH's DMA length */
		};
		struct {			/* UD: the DETH (no RETH) */
			u32 deth_qkey;
			u32 deth_src_qpn;
		};
	};
};

static inline struct sroce_pkt *sroce_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_pkt) > sizeof(skb->cb));
	return (struct sroce_pkt *)skb->cb;
}

/* recv.c: called by the UDP tunnel for every datagram (owns the skb) */
void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);

u32 sroce_icrc(struct sk_buff *skb, unsigned int bth_off, unsigned int len);

#endif /* SROCE_RECV_H */
