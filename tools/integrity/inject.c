// SPDX-License-Identifier: GPL-2.0
/*
 * inject - hand-built RoCEv2 (IPv4) packets for sroce_integrity; see
 * inject.h.
 *
 * Sending: a raw IPv4 socket (IPPROTO_RAW, so the IP header is ours; the
 * kernel fills in only the header checksum, which the ICRC masks).  The
 * IP identification is fixed and nonzero so that the kernel leaves it
 * alone: it is covered by the ICRC.  The UDP checksum is 0 (none), as
 * IPv4 allows.
 *
 * Receiving: an AF_PACKET socket sees a copy of every incoming IPv4
 * frame, including the RoCEv2 packets the local RDMA provider consumes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

#define IP4_HLEN	20
#define UDP_HLEN	8
#define IP4_ID		0x5352		/* "SR": any fixed nonzero value */
#define IP4_DF		0x4000
#define IP4_TTL		64

static void put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void put_be32(uint8_t *b, uint32_t v)
{
	put_be16(b, (uint16_t)(v >> 16));
	put_be16(b + 2, (uint16_t)v);
}

static void put_be64(uint8_t *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b + 4, (uint32_t)v);
}

static uint16_t get_be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t get_be32(const uint8_t *b)
{
	return (uint32_t)get_be16(b) << 16 | get_be16(b + 2);
}

bool inj_gid_ipv4(const uint8_t gid[16], struct in_addr *out)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	if (memcmp(gid, prefix, sizeof(prefix)))
		return false;
	memcpy(&out->s_addr, gid + 12, 4);
	return true;
}

size_t inj_put_reth(uint8_t *b, uint64_t va, uint32_t rkey, uint32_t len)
{
	put_be64(b, va);
	put_be32(b + 8, rkey);
	put_be32(b + 12, len);
	return INJ_RETH_LEN;
}

size_t inj_put_atmeth(uint8_t *b, uint64_t va, uint32_t rkey, uint64_t swap_add,
		      uint64_t compare)
{
	put_be64(b, va);
	put_be32(b + 8, rkey);
	put_be64(b + 12, swap_add);
	put_be64(b + 20, compare);
	return INJ_ATMETH_LEN;
}

/* CRC-32 (IEEE 802.3, reflected), bit by bit: a handful of packets. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return crc;
}

/*
 * Annex A17.3.3: the CRC runs over 8 bytes of ones (the LRH RoCEv2 has
 * not got), the IP header with TOS, TTL and checksum set to ones, the UDP
 * header with its checksum set to ones, the BTH with its FECN/BECN/resv
 * byte set to ones, and everything after it up to the ICRC.
 */
uint32_t inj_icrc_ipv4(const uint8_t *ip, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t h[IP4_HLEN + UDP_HLEN + INJ_BTH_LEN];
	uint32_t crc = 0xffffffffu;

	memcpy(h, ip, sizeof(h));
	h[1] = 0xff;				/* TOS */
	h[8] = 0xff;				/* TTL */
	h[10] = h[11] = 0xff;			/* header checksum */
	h[IP4_HLEN + 6] = h[IP4_HLEN + 7] = 0xff;	/* UDP checksum */
	h[IP4_HLEN + UDP_HLEN + 4] = 0xff;	/* FECN, BECN, resv6 */
	crc = crc32_update(crc, lrh, sizeof(lrh));
	crc = crc32_update(crc, h, sizeof(h));
	crc = crc32_update(crc, ip + sizeof(h), len - sizeof(h));
	return ~crc;
}

int inj_open_sender(char *err, size_t n)
{
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);

	if (fd < 0)
		snprintf(err, n, "raw IPv4 socket: %s", strerror(errno));
	return fd;
}

int inj_open_sniffer(char *err, size_t n)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));

	if (fd < 0)
		snprintf(err, n, "AF_PACKET socket: %s", strerror(errno));
	return fd;
}

int inj_send(int fd, const struct inj_pkt *p, char *err, size_t n)
{
	uint8_t pkt[IP4_HLEN + UDP_HLEN + INJ_MAX_UDP_PAYLOAD];
	uint8_t *udp = pkt + IP4_HLEN;
	uint8_t *bth = udp + UDP_HLEN;
	size_t roce = INJ_BTH_LEN + p->ext_len + p->payload_len + INJ_ICRC_LEN;
	size_t body, total;
	struct sockaddr_in to;
	uint32_t icrc;

	if (roce > INJ_MAX_UDP_PAYLOAD) {
		snprintf(err, n, "packet of %zu bytes is too long", roce);
		return -1;
	}
	body = p->truncate ? p->truncate : roce;
	if (body > roce) {
		snprintf(err, n, "truncation to %zu > %zu bytes", body, roce);
		return -1;
	}
	total = IP4_HLEN + UDP_HLEN + body;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;				/* IPv4, 5 words */
	put_be16(pkt + 2, (uint16_t)total);
	put_be16(pkt + 4, IP4_ID);
	put_be16(pkt + 6, IP4_DF);
	pkt[8] = IP4_TTL;
	pkt[9] = IPPROTO_UDP;
	memcpy(pkt + 12, &p->src.s_addr, 4);
	memcpy(pkt + 16, &p->dst.s_addr, 4);

	put_be16(udp, p->udp_sport);
	put_be16(udp + 2, INJ_ROCE_PORT);
	put_be16(udp + 4, (uint16_t)(UDP_HLEN + body));

	bth[0] = p->opcode;
	bth[1] = p->flags;
	put_be16(bth + 2, p->pkey);
	put_be32(bth + 4, p->qpn & 0xffffff);
	put_be32(bth + 8, (p->ackreq ? 0x80000000u : 0) | (p->psn & 0xffffff));
	if (p->ext_len)
		memcpy(bth + INJ_BTH_LEN, p->ext, p->ext_len);
	if (p->payload_len)
		memcpy(bth + INJ_BTH_LEN + p->ext_len, p->payload, p->payload_len);
	icrc = inj_icrc_ipv4(pkt, IP4_HLEN + UDP_HLEN + roce - INJ_ICRC_LEN);
	if (p->bad_icrc)
		icrc ^= 0x00010000u;
	/* Little endian on the wire, as stock rxe writes it. */
	for (int i = 0; i < 4; i++)
		bth[roce - INJ_ICRC_LEN + i] = (uint8_t)(icrc >> (8 * i));

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr = p->dst;
	if (sendto(fd, pkt, total, 0, (struct sockaddr *)&to, sizeof(to)) !=
	    (ssize_t)total) {
		snprintf(err, n, "sendto: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Parse one IPv4 datagram; 1 if it is RoCEv2 from `from`. */
static int parse_roce(const uint8_t *b, size_t len, struct in_addr from,
		      struct inj_seen *s)
{
	size_t ihl, tot, roce;
	const uint8_t *udp, *bth;
	uint32_t icrc;

	if (len < IP4_HLEN || b[0] >> 4 != 4)
		return 0;
	ihl = (size_t)(b[0] & 0xf) * 4;
	tot = get_be16(b + 2);
	if (ihl != IP4_HLEN || tot > len || tot < ihl + UDP_HLEN || b[9] != IPPROTO_UDP)
		return 0;
	if (memcmp(b + 12, &from.s_addr, 4))
		return 0;
	udp = b + ihl;
	if (get_be16(udp + 2) != INJ_ROCE_PORT)
		return 0;
	roce = tot - ihl - UDP_HLEN;
	if (roce < INJ_BTH_LEN + INJ_ICRC_LEN)
		return 0;
	bth = udp + UDP_HLEN;

	memset(s, 0, sizeof(*s));
	memcpy(&s->src.s_addr, b + 12, 4);
	memcpy(&s->dst.s_addr, b + 16, 4);
	s->opcode = bth[0];
	s->qpn = get_be32(bth + 4) & 0xffffff;
	s->psn = get_be32(bth + 8) & 0xffffff;
	s->ackreq = bth[8] & 0x80;
	/* ACKNOWLEDGE, ATOMIC ACKNOWLEDGE, READ response first/last/only. */
	if ((s->opcode == 0x11 || s->opcode == 0x12 || s->opcode == 0x0d ||
	     s->opcode == 0x0f || s->opcode == 0x10) &&
	    roce >= INJ_BTH_LEN + INJ_AETH_LEN + INJ_ICRC_LEN) {
		s->has_aeth = true;
		s->syndrome = bth[INJ_BTH_LEN];
		s->msn = get_be32(bth + INJ_BTH_LEN) & 0xffffff;
	}
	icrc = (uint32_t)bth[roce - 4] | (uint32_t)bth[roce - 3] << 8 |
	       (uint32_t)bth[roce - 2] << 16 | (uint32_t)bth[roce - 1] << 24;
	s->icrc_ok = icrc == inj_icrc_ipv4(b, tot - INJ_ICRC_LEN);
	return 1;
}

int inj_sniff(int fd, struct in_addr from, unsigned int timeout_ms,
	      struct inj_seen *seen, char *err, size_t n)
{
	uint64_t end = mono_ms() + timeout_ms;
	uint8_t buf[4096];

	for (;;) {
		uint64_t now = mono_ms();
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;
		int r;

		if (now >= end)
			return 0;
		r = poll(&pfd, 1, (int)(end - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, n, "poll: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			return 0;
		got = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sll, &sl);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, n, "recvfrom: %s", strerror(errno));
			return -1;
		}
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (parse_roce(buf, (size_t)got, from, seen))
			return 1;
	}
}
