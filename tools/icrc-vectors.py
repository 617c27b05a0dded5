#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Known-answer vectors for the RoCEv2 ICRC, for kunit/icrc_kunit.c.

    tools/icrc-vectors.py          print the C table rows
    tools/icrc-vectors.py --check  only check this script against zlib

Written from the definition, not from the driver: the ICRC is the CRC-32
of IEEE 802.3 (polynomial 0x04C11DB7, reflected, initial value all-ones,
result inverted) over the packet from the start of the IP header to the
end of the pad, preceded by 64 bits of ones that stand for the LRH RoCEv2
lacks, with every variant field set to ones (IBA Annex A17.3.3): IPv4
type of service, time to live and header checksum; IPv6 traffic class,
flow label and hop limit; the UDP checksum; the BTH's FECN, BECN and
reserved bits (the byte before DestQP).  It goes on the wire least
significant byte first, as the Ethernet FCS does: the table holds the
value a little-endian load of the four trailer bytes gives.

The frames are built here field by field and printed whole, so the C
table needs no builder of its own.
"""
import ipaddress
import struct
import sys
import zlib


def crc32_ieee(data, crc=0xFFFFFFFF):
    """Bit by bit, LSB first (reflected 0x04C11DB7 is 0xEDB88320)."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc


def icrc(frame, ipv6):
    """The ICRC of @frame (IP header to pad, no trailer)."""
    f = bytearray(frame)
    if ipv6:
        # Version:4 TrafficClass:8 FlowLabel:20; HopLimit at byte 7.
        f[0] |= 0x0F
        f[1:4] = b"\xff\xff\xff"
        f[7] = 0xFF
        ip_len = 40
    else:
        ip_len = (f[0] & 0x0F) * 4
        f[1] = 0xFF            # type of service
        f[8] = 0xFF            # time to live
        f[10:12] = b"\xff\xff"  # header checksum
    f[ip_len + 6:ip_len + 8] = b"\xff\xff"  # UDP checksum
    bth = ip_len + 8
    f[bth + 4] = 0xFF          # FECN, BECN, resv6
    pseudo = b"\xff" * 8 + bytes(f)
    return crc32_ieee(pseudo) ^ 0xFFFFFFFF


def ip_csum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def bth(opcode, flags, pkey, fbr, qpn, ackreq, psn):
    return struct.pack("!BBHII", opcode, flags, pkey, fbr << 24 | qpn,
                       (0x80000000 if ackreq else 0) | psn)


def udp(sport, payload, csum=0):
    return struct.pack("!HHHH", sport, 4791, 8 + len(payload), csum) + payload


def ipv4(src, dst, payload, tos=0, ttl=64, ident=0x1234, csum=None):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), ident, 0x4000,
                      ttl, 17, 0, ipaddress.IPv4Address(src).packed,
                      ipaddress.IPv4Address(dst).packed)
    c = ip_csum(hdr) if csum is None else csum
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def ipv6(src, dst, payload, tclass=0, flow=0, hop=64):
    word = 6 << 28 | tclass << 20 | flow
    return struct.pack("!IHBB16s16s", word, len(payload), 17, hop,
                       ipaddress.IPv6Address(src).packed,
                       ipaddress.IPv6Address(dst).packed) + payload


PAYLOAD8 = bytes(range(0x10, 0x18))
PAYLOAD13 = bytes(range(0xa0, 0xad)) + b"\x00" * 3	# and a pad of 3
SEND = bth(0x04, 0x80, 0xFFFF, 0, 0x000011, True, 0x123456)

# (C name, IPv6, frame, where the payload starts (for the paged rows))
VECTORS = [
    ("v4_send", False, ipv4("192.168.7.1", "192.168.7.2",
                            udp(0xC123, SEND + PAYLOAD8)), 40),
    # Every variant field changed: the same ICRC.
    ("v4_send_variant", False,
     ipv4("192.168.7.1", "192.168.7.2",
          udp(0xC123, bth(0x04, 0x80, 0xFFFF, 0xC0 | 0x15, 0x000011, True, 0x123456) +
              PAYLOAD8, csum=0xBEEF), tos=0xB9, ttl=1, csum=0x5A5A), 40),
    # One payload bit flipped: another ICRC.
    ("v4_send_flipped", False,
     ipv4("192.168.7.1", "192.168.7.2",
          udp(0xC123, SEND + PAYLOAD8[:3] + bytes([PAYLOAD8[3] ^ 0x01]) + PAYLOAD8[4:])), 40),
    # An invariant header field changed (the IPv4 identification): another ICRC.
    ("v4_send_ident", False, ipv4("192.168.7.1", "192.168.7.2",
                                  udp(0xC123, SEND + PAYLOAD8), ident=0x1235), 40),
    ("v4_write_pad", False,
     ipv4("10.0.0.1", "10.0.0.2",
          udp(0xD000, bth(0x0A, 0x30, 0xFFFF, 0, 0x00ABCD, True, 0x000001) +
              struct.pack("!QII", 0x00007F0012345678, 0x0000ABCD, 13) + PAYLOAD13)), 56),
    ("v6_send", True, ipv6("2001:db8::1", "2001:db8::2",
                           udp(0xC123, SEND + PAYLOAD8)), 60),
    ("v6_send_variant", True,
     ipv6("2001:db8::1", "2001:db8::2",
          udp(0xC123, bth(0x04, 0x80, 0xFFFF, 0xFF, 0x000011, True, 0x123456) +
              PAYLOAD8, csum=0x1234), tclass=0xB8, flow=0xABCDE, hop=1), 60),
    ("v6_ud_pad", True,
     ipv6("2001:db8::10", "2001:db8::20",
          udp(0xE001, bth(0x64, 0x30, 0xFFFF, 0, 0x000001, False, 0x000042) +
              struct.pack("!II", 0x80010000, 0x000012) + b"\x5a\x00\x00\x00")), 68),
]


def check():
    for _, v6, frame, _ in VECTORS:
        f = bytearray(frame)
        assert crc32_ieee(b"\xff" * 8 + bytes(f)) ^ 0xFFFFFFFF == zlib.crc32(b"\xff" * 8 + f)
    got = {name: icrc(frame, v6) for name, v6, frame, _ in VECTORS}
    assert got["v4_send"] == got["v4_send_variant"]
    assert got["v6_send"] == got["v6_send_variant"]
    assert got["v4_send"] != got["v4_send_flipped"]
    assert got["v4_send"] != got["v4_send_ident"]


def main():
    check()
    if "--check" in sys.argv:
        return
    for name, v6, frame, paystart in VECTORS:
        print("static const u8 %s[] = {" % name)
        for i in range(0, len(frame), 12):
            print("\t" + " ".join("0x%02x," % b for b in frame[i:i + 12]))
        print("};\t/* %d bytes, payload from %d, ICRC 0x%08x */" %
              (len(frame), paystart, icrc(frame, v6)))
        print()


if __name__ == "__main__":
    main()
