#!/usr/bin/env python3
"""Unit tests of pcapslice.py on made-up captures: the barrier SYNs it
finds and the slices it writes, against what they must hold (and, where
tshark is installed, against tshark's reading of the same files).

    python3 tools/testvm/pcapslice_test.py
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapslice as P  # noqa: E402

A, B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
BASE = 19700


def ipv4_tcp(src, dst, dport, flags, payload=b""):
    """An Ethernet frame with an IPv4 TCP segment (checksums left 0)."""
    tcp = struct.pack(">HHIIBBHHH", 40000, dport, 1, 0, 5 << 4, flags, 65535, 0, 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, P.TCP, 0, src, dst)
    return b"\x52\x54\x00\x00\x00\x02" + b"\x52\x54\x00\x00\x00\x01" + b"\x08\x00" + ip + tcp


def udp(n):
    """A frame that is not TCP (an RDMA packet stands in), tagged n."""
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + 4, 0, 0, 64, 17, 0, A, B)
    return b"\x00" * 12 + b"\x08\x00" + ip + struct.pack(">HHHH", 50000, 4791, 12, 0) + \
        struct.pack(">I", n)


def write_pcap(path, frames, endian="<", nano=False):
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    with open(path, "wb") as f:
        f.write(struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack(endian + "IIII", 1000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def frames_of(path):
    with open(path, "rb") as f:
        _, it = P.records(f)
        return [d for _, _, d in it]


class Slices(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        syn = P.SYN
        # Frames: noise, run 00's barrier (a retried SYN: the last one
        # counts), its traffic, a SYN+ACK from B (not a barrier), run 01's
        # barrier, its traffic, a SYN from B to run 02's port (not VM A's),
        # run 02's barrier, its traffic.
        self.frames = [udp(0),
                       ipv4_tcp(A, B, BASE + 0, syn), udp(1), ipv4_tcp(A, B, BASE + 0, syn),
                       udp(2), ipv4_tcp(B, A, BASE + 0, syn | P.ACK), udp(3),
                       ipv4_tcp(A, B, BASE + 1, syn), udp(4),
                       ipv4_tcp(B, A, BASE + 2, syn), udp(5),
                       ipv4_tcp(A, B, BASE + 2, syn), udp(6), udp(7)]
        self.pcap = os.path.join(self.tmp, "link.pcap")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def dests(self, *nns):
        return {nn: os.path.join(self.tmp, f"{nn}.pcap") for nn in nns}

    def check_split(self, endian="<", nano=False):
        write_pcap(self.pcap, self.frames, endian, nano)
        d = self.dests("00", "01", "02")
        self.assertEqual(P.split(self.pcap, "10.0.0.1", BASE, d), ["00", "01", "02"])
        f = self.frames
        self.assertEqual(frames_of(d["00"]), f[3:7])   # from the last SYN, B's SYN+ACK kept
        self.assertEqual(frames_of(d["01"]), f[7:11])  # B's SYN to 02's port stays in 01
        self.assertEqual(frames_of(d["02"]), f[11:])   # the last run: to the end
        return d

    def test_slices_little_endian(self):
        self.check_split()

    def test_slices_big_endian_and_nanoseconds(self):
        self.check_split(">", True)

    def test_a_run_without_barrier_gets_no_file_and_its_frames_stay_with_the_run_before(self):
        del self.frames[7]  # run 01's SYN lost
        write_pcap(self.pcap, self.frames)
        d = self.dests("00", "01", "02")
        self.assertEqual(P.split(self.pcap, "10.0.0.1", BASE, d), ["00", "02"])
        self.assertFalse(os.path.exists(d["01"]))
        self.assertEqual(frames_of(d["00"]), self.frames[3:10])

    def test_a_cut_short_capture_keeps_its_whole_records(self):
        write_pcap(self.pcap, self.frames)
        with open(self.pcap, "r+b") as f:
            f.truncate(os.path.getsize(self.pcap) - 3)  # the last record cut
        d = self.dests("00", "01", "02")
        P.split(self.pcap, "10.0.0.1", BASE, d)
        self.assertEqual(frames_of(d["02"]), self.frames[11:-1])

    def test_a_corrupt_record_length_is_refused(self):
        write_pcap(self.pcap, self.frames)
        with open(self.pcap, "r+b") as f:
            f.seek(24 + 8)  # the first record's incl_len
            f.write(struct.pack("<I", 1 << 30))
        with self.assertRaises(P.PcapError):
            P.split(self.pcap, "10.0.0.1", BASE, self.dests("00"))

    def test_not_a_pcap_is_refused(self):
        with open(self.pcap, "wb") as f:
            f.write(b"\x0a\x0d\x0d\x0a" + b"\0" * 40)  # pcapng
        with self.assertRaises(P.PcapError):
            P.split(self.pcap, "10.0.0.1", BASE, self.dests("00"))

    def test_syn_to_reads_only_vm_a_syns(self):
        self.assertEqual(P.syn_to(ipv4_tcp(A, B, 19701, P.SYN), A), 19701)
        self.assertIsNone(P.syn_to(ipv4_tcp(A, B, 19701, P.SYN | P.ACK), A))
        self.assertIsNone(P.syn_to(ipv4_tcp(B, A, 19701, P.SYN), A))
        self.assertIsNone(P.syn_to(ipv4_tcp(A, B, 19701, P.ACK), A))
        self.assertIsNone(P.syn_to(udp(1), A))
        self.assertIsNone(P.syn_to(b"\0" * 20, A))

    @unittest.skipUnless(shutil.which("tshark"), "tshark is not installed")
    def test_tshark_reads_the_slices_as_the_frames_written(self):
        # The files written are captures tshark reads, with the same frames.
        d = self.check_split()
        for nn, want in (("00", 4), ("01", 4), ("02", 3)):
            r = subprocess.run(["tshark", "-r", d[nn], "-n", "-T", "fields", "-e", "frame.len"],
                               capture_output=True, text=True, check=True)
            self.assertEqual(len(r.stdout.split()), want, nn)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import ktap  # noqa: E402
    sys.exit(ktap.run_unittests(sys.modules[__name__], "pcapslice-check"))
