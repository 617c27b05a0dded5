#!/usr/bin/env python3
"""The plan of the rc test (tools/testvm/rc-test.sh) as a table.

    rc_plan.py [--flavour F] [--pairs LIST] [--lossy] [--lossy-pairs LIST]
               [--quick] [--only REGEX] [--write DIR]

Prints the plan, one check a line as tools/testvm/rc-guest.sh reads it:
    ID ROUND PAIRING KIND TOOL SIZE ITERS TIMEOUT LABEL [OPTIONS...]
With --write DIR it writes DIR/rc-plan and DIR/rc-rounds instead and
prints, for rc-test.sh to eval, the shell variables it needs: two (the
two-VM pairings of any round), loops (the loopback pairings), rounds,
need_sroce and n (the number of checks).  A bad pairing: a message on
stderr and exit status 2.  The options mean what rc-test.sh's do.
"""
import argparse
import fnmatch
import os
import re
import shlex
import sys

# The rounds: name and netem options ("-": a clean link).
ROUNDS = (
    ("clean", "-"),
    ("loss1", "loss 1%"),
    ("mix", "loss 5% duplicate 1% delay 2ms reorder 10%"),
)
TWO_VM = ("rxe-rxe", "rxe-sroce", "sroce-rxe", "sroce-sroce")
LOOP = ("loop-rxe", "loop-sroce")

# The checks, in the order they run within a round and pairing.
#   ROUNDS: "clean", or the lossy rounds it runs in (comma-separated);
#   PAIRING: a glob on the pairing ("*-sroce": where sroce receives);
#   KIND, TOOL, SIZE: as rc-guest.sh reads them ("-": the tool's default);
#   FULL, QUICK: the iterations of the full and of the --quick set ("-":
#   the tool's default, "no": not in that set);
#   then the label (--only matches it) and the tool's options, if any
#   ("@ipv6": the IPv6 RoCEv2 GIDs, or the peer's IPv6 address).
# The clean round's rows hold for the loopback pairings too.
TABLE = """
# rounds    pairing kind tool             size    full quick label / options
# Verified data: ibv_rc_pingpong (16 B goes inline), the integrity tool.
clean       *       pp   ibv_rc_pingpong  16      200  100   ibv_rc_pingpong/16/inline
clean       *       pp   ibv_rc_pingpong  4096    100  no    ibv_rc_pingpong/4096
clean       *       pp   ibv_rc_pingpong  65536   20   5     ibv_rc_pingpong/65536
clean       *       it   sroce_integrity  -       -    -     sroce_integrity/all
clean       *       pp   ibv_rc_pingpong  4096    50   20    ibv_rc_pingpong/4096/ipv6 @ipv6
clean       *       pt   ib_send_bw       64      200  100   ib_send_bw/64
clean       *       pt   ib_send_bw       4096    100  no    ib_send_bw/4096
clean       *       pt   ib_send_bw       65536   20   5     ib_send_bw/65536
clean       *       pt   ib_send_bw       262144  5    5     ib_send_bw/262144
clean       *       pt   ib_write_bw      64      200  100   ib_write_bw/64
clean       *       pt   ib_write_bw      4096    100  no    ib_write_bw/4096
clean       *       pt   ib_write_bw      65536   20   5     ib_write_bw/65536
clean       *       pt   ib_write_bw      262144  5    5     ib_write_bw/262144
clean       *       pt   ib_read_bw       64      200  100   ib_read_bw/64
clean       *       pt   ib_read_bw       4096    100  no    ib_read_bw/4096
clean       *       pt   ib_read_bw       65536   20   5     ib_read_bw/65536
clean       *       pt   ib_read_bw       262144  5    5     ib_read_bw/262144
clean       *       pt   ib_atomic_bw     -       200  100   ib_atomic_bw/8
# IBA 9.7.6.1: the initiator depth as set (perftest -o: max_rd_atomic and
# max_dest_rd_atomic 3, not a power of two): the capture counts the READs
# outstanding at once; with sroce as the requester exactly 3.
clean       *       pt   ib_read_bw       64      200  100   ib_read_bw/64/o3 -o 3
clean       *       pt   ib_send_lat      64      100  50    ib_send_lat/64
clean       *       pt   ib_send_lat      4096    100  no    ib_send_lat/4096
clean       *       pt   ib_write_lat     64      100  50    ib_write_lat/64
clean       *       pt   ib_write_lat     4096    100  no    ib_write_lat/4096
clean       *       pt   ib_read_lat      64      100  50    ib_read_lat/64
clean       *       pt   ib_read_lat      4096    100  no    ib_read_lat/4096
clean       *       pt   ib_atomic_lat    -       100  50    ib_atomic_lat/8
clean       *       pt   ib_write_bw      4096    50   20    ib_write_bw/4096/q4 -q 4
clean       *       pt   ib_send_bw       4096    50   20    ib_send_bw/4096/ipv6 @ipv6
clean       *       pt   ib_send_bw       64      200  100   ib_send_bw/64/srq --use-srq
clean       *       it   sroce_integrity  -       -    no    sroce_integrity/all/psn-wrap -P 0xffff00
# UD: datagrams of the port's MTU (1024 at the link's 1500), each way;
# ibv_ud_pingpong -c checks every byte after the GRH.
clean       *       pp   ibv_ud_pingpong  1024    200  100   ibv_ud_pingpong/1024
clean       *       pp   ibv_ud_pingpong  512     100  50    ibv_ud_pingpong/512/ipv6 @ipv6
clean       *       pt   ib_send_bw       1024    200  100   ib_send_bw/1024/ud -c UD
clean       *       pt   ib_send_lat      64      100  no    ib_send_lat/64/ud -c UD
# UC: RC's packets with no ACK: ibv_uc_pingpong -c at 4 KiB (four packets
# a message at its 1024 path MTU), and over IPv6; perftest's UC WRITE and
# SEND bandwidth.
clean       *       pp   ibv_uc_pingpong  4096    100  50    ibv_uc_pingpong/4096
clean       *       pp   ibv_uc_pingpong  1024    50   no    ibv_uc_pingpong/1024/ipv6 @ipv6
clean       *       pt   ib_write_bw      65536   20   10    ib_write_bw/65536/uc -c UC
clean       *       pt   ib_send_bw       4096    50   20    ib_send_bw/4096/uc -c UC
# The connection manager (rdma_cm over ib_cm over ib_mad on QP1): rping
# with its data verified, ucmatose (two RC connections), udaddy (UD,
# SIDR) and rdma_server/rdma_client, each over IPv4 and IPv6; mckey (UD
# multicast; rdma_cm refuses IPv6 multicast on RoCEv2); the integrity tool
# connecting through rdma_cm (-R) over IPv4 and IPv6, and perftest (-R)
# over IPv4: perftest 4.5-0.17 resolves its server's name as IPv4 only
# ("Address family for hostname not supported", stock rxe too).
clean       *       cm   rping            -       50   20    cm/rping
clean       *       cm   rping            -       20   20    cm/rping/ipv6 @ipv6
clean       *       cm   ucmatose         -       10   10    cm/ucmatose
clean       *       cm   ucmatose         -       4    4     cm/ucmatose/ipv6 @ipv6
clean       *       cm   udaddy           -       10   10    cm/udaddy
clean       *       cm   udaddy           -       4    4     cm/udaddy/ipv6 @ipv6
clean       *       cm   mckey            -       10   10    cm/mckey
clean       *       cm   rdma_server      -       -    -     cm/rdma_server
clean       *       cm   rdma_server      -       -    -     cm/rdma_server/ipv6 @ipv6
clean       *       it   sroce_integrity  -       -    -     cm/sroce_integrity -R
clean       *       it   sroce_integrity  -       -    -     cm/sroce_integrity/ipv6 -R @ipv6
clean       *       pt   ib_send_bw       4096    50   20    cm/ib_send_bw/4096 -R
clean       *       pt   ib_write_bw      4096    50   no    cm/ib_write_bw/4096 -R
# The lossy rounds.  Not ibv_rc_pingpong: its client exits once it has the
# last pong, and if the ACK of that pong is lost its server retransmits to
# a QP that is gone (RETRY_EXC_ERR, or a hang with stock rxe as the
# server): a race of the tool's teardown, not of the link.  The integrity
# tool verifies every byte and every completion and ends over TCP.
loss1,mix   *       it   sroce_integrity  -       -    -     sroce_integrity/all
# UC through the loss: messages are lost, never delivered damaged, spliced
# or out of order (-m uc); with sroce receiving.  Stock rxe as the UC
# receiver drops every RDMA WRITE after one that lost a packet (1% loss: 7
# of 300 arrived, SENDs 284): its class D1 path (do_class_d1e_error)
# forgets the aborted message's opcode only when a receive WQE is in hand,
# so each later WRITE First is out of sequence.
loss1,mix   *-sroce it   sroce_integrity  -       -    -     sroce_integrity/uc -m uc
# One-way bulk traffic for the loss-episode counts (not where netem
# reorders: every reordered frame is a NAK and a go-back-N of the window,
# ~20 copies of each packet).
loss1       *       pt   ib_write_bw      65536   20   10    ib_write_bw/65536
"""


def rows():
    """The table's checks: dicts of rounds, pairing, kind, tool, size, full,
    quick and label (with its options)."""
    out = []
    for ln in TABLE.splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.split()
        out.append({"rounds": f[0].split(","), "pairing": f[1], "kind": f[2], "tool": f[3],
                    "size": f[4], "full": f[5], "quick": f[6], "label": " ".join(f[7:])})
    return out


class PlanError(Exception):
    pass


def pairings(text):
    """A --pairs or --lossy-pairs value: its pairings, in order."""
    return [p for p in re.split(r"[,\s]+", text) if p]


def setup(pairs="rxe-rxe", lossy=False, lossy_pairs="", quick=False, only="", flavour="debug"):
    """The plan for rc-test.sh's options: {"checks": [plan lines], "two": [...],
    "loops": [...], "rounds": [...], "need_sroce": bool}."""
    two, loops = [], []
    need_sroce = False
    for p in pairings(pairs):
        if p in TWO_VM:
            two.append(p)
        elif p in LOOP:
            loops.append(p)
        else:
            raise PlanError(f"rc-test: unknown pairing '{p}'")
        need_sroce |= "sroce" in p
    lossy_two, lossy_only = list(two), []
    if lossy_pairs:
        lossy = True
        lossy_two = []
        for p in pairings(lossy_pairs):
            if p not in TWO_VM:
                raise PlanError(f"rc-test: '{p}' cannot be a lossy pairing")
            need_sroce |= "sroce" in p
            lossy_two.append(p)
            if p not in two:
                lossy_only.append(p)
    if not two and not loops:
        raise PlanError("rc-test: no pairing")
    rounds = ["clean"] + (["loss1", "mix"] if lossy else [])
    # Timeouts per check (s): TCG, and the debug kernel is slower again;
    # the integrity tool gets longer.
    tp, ti = (240, 600) if flavour == "debug" else (120, 300)
    only_re = re.compile(only) if only else None
    table = rows()
    checks = []

    def add(rnd, pair):
        for r in table:
            iters = r["quick"] if quick else r["full"]
            if rnd not in r["rounds"] or iters == "no" or not fnmatch.fnmatchcase(pair, r["pairing"]):
                continue
            if only_re and not only_re.search(r["label"].split()[0]):
                continue
            t = ti if r["kind"] == "it" else tp
            checks.append(f"{len(checks)} {rnd} {pair} {r['kind']} {r['tool']} {r['size']} "
                          f"{iters} {t} {r['label']}")

    for rnd in rounds:
        for pair in (two if rnd == "clean" else lossy_two):
            add(rnd, pair)
    for pair in loops:
        add("clean", pair)
    return {"checks": checks, "two": two + lossy_only, "loops": loops, "rounds": rounds,
            "need_sroce": need_sroce}


def rounds_file():
    return "".join(f"{name} {netem}\n" for name, netem in ROUNDS)


def main(argv):
    ap = argparse.ArgumentParser(description="The rc test's plan.")
    ap.add_argument("--flavour", default="debug")
    ap.add_argument("--pairs", default="rxe-rxe")
    ap.add_argument("--lossy", action="store_true")
    ap.add_argument("--lossy-pairs", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--write", metavar="DIR")
    a = ap.parse_args(argv)
    try:
        s = setup(a.pairs, a.lossy, a.lossy_pairs, a.quick, a.only, a.flavour)
    except (PlanError, re.error) as e:
        print(e, file=sys.stderr)
        return 2
    plan = "".join(c + "\n" for c in s["checks"])
    if not a.write:
        sys.stdout.write(plan)
        return 0
    with open(os.path.join(a.write, "rc-plan"), "w") as f:
        f.write(plan)
    with open(os.path.join(a.write, "rc-rounds"), "w") as f:
        f.write(rounds_file())
    for k in ("two", "loops", "rounds"):
        print(f"{k}=({' '.join(shlex.quote(p) for p in s[k])})")
    print(f"need_sroce={int(s['need_sroce'])} n={len(s['checks'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
