/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inject - hand-built RoCEv2 (IPv4) packets for sroce_integrity's wire
 * tests: requests that no verbs provider would send (a misaligned atomic,
 * malformed headers), sent through a raw IPv4 socket with the ICRC
 * computed here, and a sniffer that picks up the responder's answers and
 * checks their ICRC.
 *
 * The byte layouts are written out here from the IBA (9.2 BTH, 9.3
 * extension headers, Annex A17 RoCEv2 and its ICRC) and deliberately do
 * not use sroce's own wire header: the test is an independent encoder.
 */
#ifndef SROCE_INJECT_H
#define SROCE_INJECT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INJ_ROCE_PORT		4791
#define INJ_BTH_LEN		12
#define INJ_RETH_LEN		16
#define INJ_AETH_LEN		4
#define INJ_ATMETH_LEN		28
#define INJ_ICRC_LEN		4
#define INJ_MAX_UDP_PAYLOAD	2048

/* RC opcodes used by the tests (IBA Table 35). */
#define INJ_OP_RDMA_WRITE_ONLY	0x0a
#define INJ_OP_ACKNOWLEDGE	0x11
#define INJ_OP_FETCH_ADD	0x14
#define INJ_OP_RESERVED_RC	0x1f

/* BTH byte 1: SE, MigReq, PadCnt (2 bits), TVer (4 bits). */
#define INJ_BTH_PAD(n)		((uint8_t)(((n) & 3) << 4))
#define INJ_BTH_TVER(n)		((uint8_t)((n) & 0xf))

/* One request to build and send. */
struct inj_pkt {
	struct in_addr src, dst;	/* IPv4 source and destination */
	uint16_t udp_sport;
	uint8_t opcode;
	uint8_t flags;			/* BTH byte 1 */
	uint16_t pkey;
	uint32_t qpn;			/* destination QP */
	uint32_t psn;
	bool ackreq;
	const uint8_t *ext;		/* extension headers, wire order */
	size_t ext_len;
	const uint8_t *payload;		/* payload and pad bytes */
	size_t payload_len;
	bool bad_icrc;			/* send the ICRC with one bit flipped */
	size_t truncate;		/* >0: cut the UDP payload to this length */
};

/* An ACK, NAK or other RoCEv2 packet seen by the sniffer. */
struct inj_seen {
	struct in_addr src, dst;
	uint8_t opcode;
	uint32_t qpn, psn;
	bool ackreq;
	bool has_aeth;
	uint8_t syndrome;
	uint32_t msn;
	bool icrc_ok;
};

/* The IPv4 address in an IPv4-mapped GID (::ffff:a.b.c.d). */
bool inj_gid_ipv4(const uint8_t gid[16], struct in_addr *out);

/* Extension header encoders; each returns the bytes written. */
size_t inj_put_reth(uint8_t *b, uint64_t va, uint32_t rkey, uint32_t len);
size_t inj_put_atmeth(uint8_t *b, uint64_t va, uint32_t rkey, uint64_t swap_add,
		      uint64_t compare);

/* The RoCEv2 ICRC of an IPv4 packet (IP header through the pad). */
uint32_t inj_icrc_ipv4(const uint8_t *ip, size_t len);

/* Open the raw IPv4 sender and the sniffer; -1 with err set on failure. */
int inj_open_sender(char *err, size_t n);
int inj_open_sniffer(char *err, size_t n);

/* Build and send p; 0 or -1 with err set. */
int inj_send(int fd, const struct inj_pkt *p, char *err, size_t n);

/*
 * Wait up to timeout_ms for the next incoming RoCEv2 packet from `from`
 * (any destination QP).  Returns 1 with *seen filled, 0 on timeout, -1 on
 * a socket error with err set.
 */
int inj_sniff(int fd, struct in_addr from, unsigned int timeout_ms,
	      struct inj_seen *seen, char *err, size_t n);

#endif /* SROCE_INJECT_H */
