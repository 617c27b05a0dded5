#!/usr/bin/env python3
"""Split a shared boot's link capture into its runs' slices, in two
sequential passes over the file and no dissector.

A shared boot (group.py) captures every run on one link.  Each run starts
with a barrier: VM A connects to TCP port BASE+NN of VM B (run NN).  The
run's slice is every frame from VM A's last SYN to its barrier port up
to, not including, the next run's.  tshark with a display filter per run
reads the whole capture once a run, dissecting every frame (a make
compare capture is ~400 MB: 15 runs took 10 minutes); here the barrier
SYNs are found by reading the Ethernet, IPv4 and TCP headers directly,
and one more pass writes each frame to its slice.

Classic pcap only (QEMU's filter-dump writes it): either byte order,
microsecond or nanosecond timestamps.

    pcapslice.py PCAP SRC_IP BASE_PORT NN=OUT.pcap...
"""
import ipaddress
import struct
import sys

MAGICS = {
    b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",  # microseconds
    b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">",  # nanoseconds
}
GLOBAL_LEN = 24
RECORD_LEN = 16
ETH_IPV4 = 0x0800
TCP = 6
SYN, ACK = 0x02, 0x10


class PcapError(Exception):
    pass


def records(f):
    """(global header bytes, iterator of (frame number, record header,
    frame bytes)) of an open classic pcap file."""
    head = f.read(GLOBAL_LEN)
    if len(head) < GLOBAL_LEN or head[:4] not in MAGICS:
        raise PcapError("not a classic pcap file")
    rec = struct.Struct(MAGICS[head[:4]] + "IIII")
    snaplen = struct.unpack_from(MAGICS[head[:4]] + "I", head, 16)[0]

    def it():
        n = 0
        while True:
            h = f.read(RECORD_LEN)
            if len(h) < RECORD_LEN:
                return  # the end (a record cut short by a killed capture too)
            incl = rec.unpack(h)[2]
            if incl > max(snaplen, 65535):
                # A corrupt record header: what follows cannot be framed.
                raise PcapError(f"record {n + 1}: {incl} bytes, more than the snapshot "
                                f"length {snaplen}")
            data = f.read(incl)
            if len(data) < incl:
                return
            n += 1
            yield n, h, data
    return head, it()


def syn_to(frame, src):
    """The destination port of a TCP SYN (not SYN+ACK) from IPv4 address
    SRC (4 bytes) in an untagged Ethernet frame, else None."""
    if len(frame) < 14 + 20 + 20 or struct.unpack_from(">H", frame, 12)[0] != ETH_IPV4:
        return None
    ihl = (frame[14] & 0x0F) * 4
    if frame[14] >> 4 != 4 or ihl < 20 or frame[14 + 9] != TCP or frame[26:30] != src:
        return None
    tcp = 14 + ihl
    if len(frame) < tcp + 14:
        return None
    flags = frame[tcp + 13]
    if not flags & SYN or flags & ACK:
        return None
    return struct.unpack_from(">H", frame, tcp + 2)[0]


def barriers(path, src_ip, ports):
    """{port: the frame number of the last SYN from SRC_IP to it}, for
    the ports asked for."""
    src = ipaddress.IPv4Address(src_ip).packed
    want = set(ports)
    found = {}
    with open(path, "rb") as f:
        _, it = records(f)
        for n, _, data in it:
            p = syn_to(data, src)
            if p in want:
                found[p] = n  # the last one wins: a barrier retries its connect
    return found


def write_slices(path, starts, dests):
    """Write frames [starts[k], next start) to dests[k], in one pass.
    starts: {key: first frame number}; dests: {key: output path}.  Keys
    with no start get no file."""
    order = sorted((first, k) for k, first in starts.items())
    bounds = [(first, order[i + 1][0] if i + 1 < len(order) else None, k)
              for i, (first, k) in enumerate(order)]
    with open(path, "rb") as f:
        head, it = records(f)
        outs = {k: open(dests[k], "wb") for _, _, k in bounds}
        try:
            for o in outs.values():
                o.write(head)
            b = 0
            for n, h, data in it:
                while b < len(bounds) and bounds[b][1] is not None and n >= bounds[b][1]:
                    b += 1
                if b < len(bounds) and n >= bounds[b][0]:
                    o = outs[bounds[b][2]]
                    o.write(h)
                    o.write(data)
        finally:
            for o in outs.values():
                o.close()


def split(path, src_ip, base_port, dests):
    """dests: {run number NN: output path}.  Returns the runs whose
    barrier was found (the others get no file)."""
    ports = {base_port + int(nn): nn for nn in dests}
    found = barriers(path, src_ip, ports)
    starts = {ports[p]: n for p, n in found.items()}
    write_slices(path, starts, dests)
    return sorted(starts)


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    dests = {}
    for a in argv[3:]:
        nn, _, out = a.partition("=")
        dests[nn] = out
    try:
        got = split(argv[0], argv[1], int(argv[2]), dests)
    except (OSError, PcapError) as e:
        print(f"pcapslice: {e}", file=sys.stderr)
        return 1
    print(" ".join(got))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
