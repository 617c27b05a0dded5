// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 invariant CRC (IBA Annex A17.3.3), bit-compatible with stock
 * rdma_rxe (rxe_icrc.c).
 *
 * The CRC-32 (IEEE, reflected: crc32_le) runs over 8 bytes of 0xff (the
 * masked LRH that RoCEv2 lacks), the IP and UDP headers with their variant
 * fields set to all-ones, the BTH with its FECN/BECN/resv6 byte set to
 * all-ones, then the rest of the transport headers, the payload and the
 * pad.  The result is inverted.  Stock rxe stores that u32 in host order,
 * i.e. little endian on the hosts it runs on; sroce stores and checks it
 * with put_unaligned_le32()/get_unaligned_le32().
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <kunit/visibility.h>

#include <sroce/ib_wire.h>
#include "sroce.h"

/* crc32_le(~0, 8 bytes of 0xff, 8): the CRC state after the masked LRH. */
#define SROCE_ICRC_SEED 0xdebb20e3

/* The BTH byte holding FECN, BECN and resv6: masked to all-ones. */
#define SROCE_BTH_VARIANT_OFF offsetof(struct sroce_bth, qpn)

/**
 * sroce_icrc() - compute the ICRC of a RoCEv2 packet.
 * @skb: the packet; its network header is the IPv4 (skb->protocol
 *	 ETH_P_IP) or IPv6 header, and the UDP header immediately precedes
 *	 the BTH.  The IP, UDP and BTH headers must be in the linear area;
 *	 the rest may be paged.
 * @bth_off: offset of the BTH from skb->data
 * @len: bytes from the BTH up to the ICRC (headers, payload and pad)
 *
 * Return: the ICRC in CPU order; it is carried little endian on the wire.
 */
u32 sroce_icrc(struct sk_buff *skb, unsigned int bth_off, unsigned int len)
{
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + sizeof(struct sroce_bth)];
	const u8 *bth = skb->data + bth_off;
	struct skb_seq_state seq;
	struct udphdr *udph;
	unsigned int rest = len - sizeof(struct sroce_bth);
	unsigned int ip_len;
	unsigned int done;
	unsigned int n;
	const u8 *data;
	u32 crc;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *ip4h = (struct iphdr *)hdr;

		ip_len = sizeof(*ip4h);
		memcpy(ip4h, skb_network_header(skb), ip_len);
		ip4h->tos = 0xff;
		ip4h->ttl = 0xff;
		ip4h->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)hdr;

		ip_len = sizeof(*ip6h);
		memcpy(ip6h, skb_network_header(skb), ip_len);
		/* Traffic class (priority and flow_lbl[0] high) and flow label. */
		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}

	udph = (struct udphdr *)(hdr + ip_len);
	memcpy(udph, bth - sizeof(*udph), sizeof(*udph));
	udph->check = CSUM_MANGLED_0;

	memcpy(udph + 1, bth, sizeof(struct sroce_bth));
	((u8 *)(udph + 1))[SROCE_BTH_VARIANT_OFF] = 0xff;

	crc = crc32_le(SROCE_ICRC_SEED, hdr,
		       ip_len + sizeof(*udph) + sizeof(struct sroce_bth));

	/* The rest of the headers, the payload and the pad; maybe paged. */
	skb_prepare_seq_read(skb, bth_off + sizeof(struct sroce_bth), bth_off + len, &seq);
	done = 0;
	while ((n = skb_seq_read(done, &data, &seq))) {
		n = min(n, rest - done);
		crc = crc32_le(crc, data, n);
		done += n;
	}

	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc);
