#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""sroce_pyverbs: Debian's pyverbs, unchanged, against sroce.

    server:  sroce_pyverbs.py -d sroce0 -g GID_INDEX [-p TCP_PORT]
    client:  sroce_pyverbs.py -d rxe0 -g GID_INDEX [-p TCP_PORT] SERVER_IP

The server (sroce, the responder under test) drives; the client (stock
rxe, the requester) does what it is told over a TCP control channel of
JSON lines.  The server checks, through pyverbs alone:

  device        device, port, P_Key and GID attributes
  qp_states     illegal transitions refused, INIT queried back
  srq           create, query, resize (rxe's mmap-info quirk), bad limit
  connect       two RC QPs (own RQ, SRQ) to RTS, RTR attributes queried back
  solicited     SEND_WITH_IMM + solicited event on a completion channel
                armed solicited-only; then an unsolicited SEND with the
                channel armed for any completion
  write_imm     a multi-packet RDMA_WRITE_WITH_IMM: completion and bytes
  read          a multi-packet RDMA_READ of server memory (client checks)
  atomics       CMP_SWAP then FETCH_ADD: returned and final values
  srq_limit     SENDs drain the SRQ below its armed limit: one
                IBV_EVENT_SRQ_LIMIT_REACHED, the limit disarmed, completions
                in order on the SRQ's QP
  cq_resize     resize of the completion channel's CQ
  remote_inv    the client (the requester) invalidates a type 2 window of
                the server's with a SEND with Invalidate: a write through
                the window lands, the receive completes with the kernel's
                IB_WC_WITH_INVALIDATE (librxe passes ib_wc_flags up as
                they are, as with stock rxe) and the window's key, then a write through it fails
                REM_ACCESS_ERR (last: the QPs go to Error)

UD, on the server's own device (two UD QPs, AHs to its own GID):

  ud_loopback   a SEND_WITH_IMM datagram: byte_len 40 + payload, the GRH
                flag, the sender's QPN, the GRH (20 zero bytes, then an
                IPv4 header, UDP, the server's address both ways, with a
                valid checksum on sroce: stock rxe's is wrong on
                loopback), the payload after it
  ud_qkey       a datagram under a Q_Key that is not the receiver's is
                dropped (sroce: rx_drop_bad_qkey + 1); on sroce, one whose
                WR Q_Key has the high bit set carries the sender QP's own
                Q_Key and arrives (stock rxe sends the WR's as it is)
  ud_no_wqe     a datagram with no receive posted is dropped (sroce:
                rx_drop_no_wqe + 1), and the next one is delivered
  ud_qp_state   a datagram to a UD QP in INIT (no RTR yet) is dropped
                (sroce: rx_drop_qp_state + 1), its receive left posted;
                in RTR the next one lands in it
  ud_recv_short a datagram longer than the receive buffer after the GRH
                completes it LOC_LEN_ERR (sroce: ud_rx_errors + 1); the QP
                stays in RTS and takes the next one (stock rxe completes it
                LOC_QP_OP_ERR and moves the QP to Error)

  ud_port_mtu   a UD QP in RTS follows the port's MTU: with the netdev at
                MTU 9000 a 4096-byte datagram arrives whole; back at 1500,
                a 2048-byte one does not go (sroce: completes LOC_LEN_ERR,
                wc_loc_len_err + 1; stock rxe: completes it unsent)
  gsi_mads      CM MADs sent from a UD QP to QP1 (Q_Key 0x80010000): a
                DREQ for no connection is counted by ib_cm as a duplicate
                and answered with a DREP that QP1 sends back to itself
                (cm_rx_msgs/dreq, cm_rx_duplicates/dreq, cm_rx_msgs/drep
                + 1 each, cm_tx_msgs/drep + 2: ib_cm's count of a reply
                without a cm_id); a REP answering no REQ is taken
                and dropped unanswered; a MAD under a wrong Q_Key, one to
                QP0 and one of an unknown base version never reach ib_cm
                (sroce: rx_drop_bad_qkey and rx_drop_no_qp + 1)

On an sroce server only:

  ud_too_long   a send longer than the port's MTU completes LOC_LEN_ERR,
                unsent, and the QP goes to SQE; its next WR completes
                flushed, and SQE -> RTS makes it send again (stock rxe
                completes it successfully without sending, C10-93.1.1)
  ud_ah_destroyed  a WQE whose AH was destroyed before the requester
                took it completes LOC_QP_OP_ERR and the QP goes to SQE
  mw_errors     memory windows on a loopback RC pair: a type 2 bind
                completes BIND_MW; its MR refuses ibv_dereg_mr (EBUSY)
                while bound; a write inside the window lands, one past its
                end (inside the MR: stock rxe lets it through) fails
                REM_ACCESS_ERR; after LOCAL_INV a write fails
                REM_ACCESS_ERR; a bind naming a window by a key it no
                longer has fails MW_BIND_ERR; a SEND with Invalidate of a
                key that cannot be invalidated completes REM_INV_REQ_ERR on
                both sides; a window whose QP is destroyed goes free (its MR
                deregisters); invalidating a type 1 window fails
                LOC_QP_OP_ERR; a bind onto an MR without MW_BIND fails
                MW_BIND_ERR; after dealloc the MR deregisters
  mw_zero_based a zero-based type 2 window at offset 2048 of its MR: a
                write at remote address 4080, a READ at 0 and a FETCH_ADD
                at 8 reach the MR at 2048 plus that, and a 4096-byte
                WRITE and READ at 0 (four packets each); a write past its
                length, and one at the MR's own address (a window over the
                whole MR, where mr.buf is past its length), fail
                REM_ACCESS_ERR

On an sroce server only (stock rxe on Debian's 6.1 raises no Last WQE
Reached event at all):

  flush_solicited  receives posted in INIT, the QP moved to Error: the
                flush completions (WR_FLUSH_ERR, in order) fire a CQ armed
                for solicited events only, as unsuccessful completions
                must (IBA 11.4.2.2)
  srq_last_wqe  an SRQ's QP moved to Error raises
                IBV_EVENT_QP_LAST_WQE_REACHED (IBA 11.6.3.1), which
                ib_drain_qp() waits for on an SRQ's QP

The server prints a KTAP document (version 1, the kernel's ktap.rst;
tools/ktap.py counts it): "ok N <check>" or "not ok N <check> # <why>" per
check, and the plan "1..N" at the end; the exit status is 0 only if all
passed.  The client prints no result of its own.  Blocking waits (completion and async events) time out after
EVENT_TIMEOUT_S via SIGALRM.
"""
import argparse
import errno
import json
import random
import signal
import socket
import sys
import time

import pyverbs.enums as e
import subprocess

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

BUF = 65536
# Server buffer layout (offsets into its MR).
RECV_OFF, WRITE_OFF, READ_OFF, ATOMIC_OFF, SRQ_OFF = 0, 8192, 16384, 32768, 40960
IB_WC_WITH_INVALIDATE = 1 << 2  # include/rdma/ib_verbs.h, what librxe passes up
SRQ_SLOT = 512
MTU = e.IBV_MTU_1024
# The initiator and responder depths: not a power of two, so that a depth
# rounded up (as stock rxe does, 3 -> 4) shows in query_qp.
RD_ATOMIC = 3
EVENT_TIMEOUT_S = 30
POLL_TIMEOUT_S = 20
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
ATOMIC_INIT = 0x1122334455667788
ATOMIC_SWAP = 0x0badc0ffee0ddf00
ATOMIC_ADD = 0x5


def pattern(seed, n):
    return bytes((i * 131 + seed * 7 + (i >> 8)) & 0xff for i in range(n))


class Check(Exception):
    """A failed expectation of the current check."""


def expect(cond, why):
    if not cond:
        raise Check(why)


class Timeout(Exception):
    pass


def _alarm(_sig, _frame):
    raise Timeout(f"no event within {EVENT_TIMEOUT_S} s")


def within_timeout(fn):
    """fn(), a blocking wait for an event, bounded by EVENT_TIMEOUT_S."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(EVENT_TIMEOUT_S)
    try:
        return fn()
    finally:
        signal.alarm(0)


class Channel:
    """JSON lines over TCP."""

    def __init__(self, sock):
        self.sock = sock
        self.rx = b""

    def send(self, **msg):
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def recv(self):
        while b"\n" not in self.rx:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("control connection closed")
            self.rx += chunk
        line, self.rx = self.rx.split(b"\n", 1)
        return json.loads(line)


class Side:
    """Verbs resources of one side: PD, MR, a CQ on a completion channel,
    an SRQ (server) and two RC QPs, qps[0] with its own RQ and qps[1] on
    the SRQ (server) or both plain (client)."""

    def __init__(self, args, server):
        self.args = args
        self.ctx = Context(name=args.dev)
        self.pd = PD(self.ctx)
        self.mr = MR(self.pd, BUF, ACCESS)
        self.mr.write(bytes(BUF), BUF, 0)
        self.chan = CompChannel(self.ctx)
        self.cq = CQ(self.ctx, 256, None, self.chan, 0)
        self.scq = CQ(self.ctx, 256, None, None, 0)
        self.srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1))) if server else None
        self.gid = str(self.ctx.query_gid(1, args.gid))
        self.qps = [self.make_qp(None), self.make_qp(self.srq)]
        self.psns = [random.randrange(1 << 24) for _ in self.qps]

    def make_qp(self, srq):
        cap = QPCap(max_send_wr=16, max_recv_wr=0 if srq else 16, max_send_sge=1,
                    max_recv_sge=0 if srq else 1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.scq, rcq=self.cq, srq=srq, cap=cap,
                          sq_sig_all=0)
        return QP(self.pd, init)

    def info(self):
        return {"gid": self.gid, "qpn": [q.qp_num for q in self.qps], "psn": self.psns,
                "rkey": self.mr.rkey, "addr": self.mr.buf}

    def to_init(self, qp):
        a = QPAttr(qp_state=e.IBV_QPS_INIT)
        a.pkey_index = 0
        a.port_num = 1
        a.qp_access_flags = ACCESS
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                  e.IBV_QP_ACCESS_FLAGS)

    def rtr_attr(self, peer, i):
        a = QPAttr(qp_state=e.IBV_QPS_RTR)
        a.path_mtu = MTU
        a.dest_qp_num = peer["qpn"][i]
        a.rq_psn = peer["psn"][i]
        a.max_dest_rd_atomic = RD_ATOMIC
        a.min_rnr_timer = 12
        gr = GlobalRoute(dgid=GID(peer["gid"]), sgid_index=self.args.gid, hop_limit=64)
        a.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
        return a

    RTR_MASK = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)

    def connect(self, peer):
        for i, qp in enumerate(self.qps):
            self.to_init(qp)
            qp.modify(self.rtr_attr(peer, i), self.RTR_MASK)
            a = QPAttr(qp_state=e.IBV_QPS_RTS)
            a.timeout = 14
            a.retry_cnt = 7
            a.rnr_retry = 7
            a.sq_psn = self.psns[i]
            a.max_rd_atomic = RD_ATOMIC
            qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                      e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)

    def poll(self, cq, what):
        end = time.monotonic() + POLL_TIMEOUT_S
        while time.monotonic() < end:
            n, wcs = cq.poll(1)
            if n:
                return wcs[0]
            time.sleep(0.001)
        raise Check(f"no completion for {what} within {POLL_TIMEOUT_S} s")

    def post_recv(self, wr_id, off, length, srq=False):
        wr = RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(self.mr.buf + off, length, self.mr.lkey)])
        (self.srq if srq else self.qps[0]).post_recv(wr)


# ---------------------------------------------------------------- client

def client(args):
    side = Side(args, server=False)
    sock = None
    end = time.monotonic() + 300  # the server checks its device first
    while sock is None:
        try:
            sock = socket.create_connection((args.server, args.port), timeout=5)
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.5)
    sock.settimeout(300)
    ch = Channel(sock)
    ch.send(**side.info())
    peer = ch.recv()
    side.connect(peer)
    ch.send(ok=True)
    while True:
        op = ch.recv()
        if op["do"] == "quit":
            break
        try:
            result = client_op(side, peer, op)
            ch.send(ok=True, result=result)
        except (Check, PyverbsError) as ex:
            ch.send(ok=False, why=str(ex))
    print("pyverbs: client done (the server reports the checks)")
    return 0


def client_op(side, peer, op):
    """One requester operation; returns what the server needs to check."""
    qp = side.qps[op.get("qp", 0)]
    n = op.get("len", 0)
    if op["do"] in ("send", "write_imm", "write", "send_inv"):
        side.mr.write(pattern(op["seed"], n), n, 0)
    sge = SGE(side.mr.buf + op.get("loff", 0), n or 8, side.mr.lkey)
    opcode = {"send": e.IBV_WR_SEND_WITH_IMM if "imm" in op else e.IBV_WR_SEND,
              "write_imm": e.IBV_WR_RDMA_WRITE_WITH_IMM, "read": e.IBV_WR_RDMA_READ,
              "write": e.IBV_WR_RDMA_WRITE, "send_inv": e.IBV_WR_SEND_WITH_INV,
              "cmp_swap": e.IBV_WR_ATOMIC_CMP_AND_SWP,
              "fetch_add": e.IBV_WR_ATOMIC_FETCH_AND_ADD}[op["do"]]
    flags = e.IBV_SEND_SIGNALED | (e.IBV_SEND_SOLICITED if op.get("solicited") else 0)
    wr = SendWR(wr_id=op.get("wr_id", 1), opcode=opcode, num_sge=1, sg=[sge],
                send_flags=flags, imm_data=op.get("imm", 0))
    if op["do"] == "send_inv":
        wr.imm_data = op["inv_rkey"]  # the union's invalidate_rkey, as it is
    # A window's key and address, or the server's MR's.
    raddr = op.get("raddr", peer["addr"] + op.get("roff", 0))
    if op["do"] in ("write_imm", "read", "write"):
        wr.set_wr_rdma(op.get("rkey", peer["rkey"]), raddr)
    elif op["do"] == "cmp_swap":
        wr.set_wr_atomic(peer["rkey"], raddr, op["compare"], op["swap"])
    elif op["do"] == "fetch_add":
        wr.set_wr_atomic(peer["rkey"], raddr, op["add"], 0)
    qp.post_send(wr)
    wc = side.poll(side.scq, op["do"])
    want = op.get("status", e.IBV_WC_SUCCESS)
    expect(wc.status == want, f"{op['do']}: completion status {wc.status}, expected {want}")
    if op["do"] == "read":
        got = side.mr.read(n, op["loff"])
        expect(got == pattern(op["seed"], n), "read: the data differs from the server's")
    if op["do"] in ("cmp_swap", "fetch_add"):
        return int.from_bytes(side.mr.read(8, op["loff"]), "little")
    return None


# ---------------------------------------------------------------- server

class Server:
    def __init__(self, args):
        self.args = args
        self.results = []

    def run(self, name, fn):
        try:
            fn()
            print(f"ok {len(self.results) + 1} {name}", flush=True)
            self.results.append(True)
        except (Check, PyverbsError, Timeout, ConnectionError, OSError,
                subprocess.SubprocessError) as ex:
            why = f"{type(ex).__name__}: {ex}".replace("\n", " ").replace("#", "_")
            print(f"not ok {len(self.results) + 1} {name} # {why}", flush=True)
            self.results.append(False)
        finally:
            signal.alarm(0)

    def op(self, **msg):
        self.ch.send(**msg)
        r = self.ch.recv()
        expect(r["ok"], f"client {msg['do']}: {r.get('why')}")
        return r.get("result")

    def main(self):
        print("KTAP version 1", flush=True)
        s = Side(self.args, server=True)
        self.s = s
        self.run("device", self.device)
        self.run("qp_states", self.qp_states)
        self.run("srq", self.srq)
        for name in ("ud_loopback", "ud_qkey", "ud_no_wqe", "ud_recv_short", "ud_qp_state",
                     "ud_port_mtu", "gsi_mads"):
            self.run(name, getattr(self, name))
        if self.args.dev.startswith("sroce"):
            self.run("flush_solicited", self.flush_solicited)
            self.run("srq_last_wqe", self.srq_last_wqe)
            self.run("ud_too_long", self.ud_too_long)
            self.run("ud_ah_destroyed", self.ud_ah_destroyed)
            self.run("mw_errors", self.mw_errors)
            self.run("mw_zero_based", self.mw_zero_based)
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(("0.0.0.0", self.args.port))
        lsock.listen(1)
        lsock.settimeout(300)
        conn, _ = lsock.accept()
        conn.settimeout(300)
        self.ch = Channel(conn)
        self.run("connect", self.connect)
        connected = self.results[-1]
        if connected:
            for name in ("solicited", "write_imm", "read", "atomics", "srq_limit"):
                self.run(name, getattr(self, name))
        self.run("cq_resize", self.cq_resize)
        if connected:  # last: it leaves the connected QPs in Error
            self.run("remote_inv", self.remote_inv)
        try:
            self.ch.send(do="quit")
        except OSError:
            pass
        ok = all(self.results)
        print(f"1..{len(self.results)}", flush=True)
        return 0 if ok else 1

    def device(self):
        ctx = self.s.ctx
        d = ctx.query_device()
        expect(d.vendor_id == 0xFFFFFF, f"vendor_id {d.vendor_id:#x}")
        expect(d.vendor_part_id == 0, f"vendor_part_id {d.vendor_part_id}")
        expect(d.max_qp_rd_atom == 128, f"max_qp_rd_atom {d.max_qp_rd_atom}")
        expect(d.phys_port_cnt == 1, f"phys_port_cnt {d.phys_port_cnt}")
        p = ctx.query_port(1)
        expect(p.state == e.IBV_PORT_ACTIVE, f"port state {p.state}")
        expect(p.link_layer == e.IBV_LINK_LAYER_ETHERNET, f"link_layer {p.link_layer}")
        expect(p.active_mtu == MTU, f"active_mtu {p.active_mtu} (netdev MTU 1500)")
        expect(ctx.query_pkey(1, 0) == 0xFFFF, "P_Key 0 is not 0xffff")
        expect(self.s.gid.startswith("0000:0000:0000:0000:0000:ffff:"),
               f"GID {self.args.gid} {self.s.gid} is not IPv4-mapped")

    def qp_states(self):
        s = self.s
        qp = s.make_qp(None)
        peer = {"gid": s.gid, "qpn": [qp.qp_num], "psn": [1]}
        try:
            qp.modify(s.rtr_attr(peer, 0), Side.RTR_MASK)
            raise Check("RESET -> RTR was accepted")
        except PyverbsRDMAError as ex:
            expect(ex.error_code == 22, f"RESET -> RTR: errno {ex.error_code}, expected EINVAL")
        s.to_init(qp)
        a, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS)
        expect(a.qp_state == e.IBV_QPS_INIT, f"state {a.qp_state} after INIT")
        expect(a.port_num == 1, f"port_num {a.port_num}")
        expect(a.qp_access_flags == ACCESS, f"qp_access_flags {a.qp_access_flags:#x}, "
               f"expected {ACCESS:#x}")
        a = QPAttr(qp_state=e.IBV_QPS_RTS)
        a.sq_psn = 0
        try:
            qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)
            raise Check("INIT -> RTS was accepted")
        except PyverbsRDMAError as ex:
            expect(ex.error_code == 22, f"INIT -> RTS: errno {ex.error_code}, expected EINVAL")
        qp.close()

    def srq(self):
        srq = self.s.srq
        a = srq.query()
        expect(a.max_wr >= 16 and a.max_sge == 1, f"max_wr {a.max_wr} max_sge {a.max_sge}")
        expect(a.srq_limit == 0, f"srq_limit {a.srq_limit} at creation")
        srq.modify(SrqAttr(max_wr=64), e.IBV_SRQ_MAX_WR)
        a = srq.query()
        expect(a.max_wr >= 64, f"max_wr {a.max_wr} after resizing to 64")
        try:
            srq.modify(SrqAttr(srq_limit=a.max_wr + 1), e.IBV_SRQ_LIMIT)
            raise Check("a limit above max_wr was accepted")
        except PyverbsRDMAError as ex:
            expect(ex.error_code == 22, f"limit > max_wr: errno {ex.error_code}")

    # ------------------------------------------------------------ UD

    def sroce(self):
        return self.args.dev.startswith("sroce")

    def counters(self):
        """The device's counters (sroce's named ones), {} on stock rxe."""
        if not self.sroce():
            return {}
        out = subprocess.run(["rdma", "statistic", "show", "link", f"{self.args.dev}/1"],
                             capture_output=True, text=True, check=True).stdout.split()
        return {out[i]: int(out[i + 1]) for i in range(2, len(out) - 1, 2)}

    def expect_delta(self, before, name, delta):
        if not self.sroce():
            return
        got = self.counters().get(name, 0) - before.get(name, 0)
        expect(got == delta, f"counter {name} changed by {got}, expected {delta}")

    def ud_pair(self, qkey_a=0x1234, qkey_b=0x1234):
        """Two UD QPs in RTS on one CQ each, and an AH to the server's own GID."""
        s = self.s
        qps = []
        for qkey in (qkey_a, qkey_b):
            cq = CQ(s.ctx, 16, None, None, 0)
            cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
            qp = QP(s.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap,
                                     sq_sig_all=1))
            a = QPAttr(qp_state=e.IBV_QPS_INIT)
            a.pkey_index = 0
            a.port_num = 1
            a.qkey = qkey
            qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY)
            qp.modify(QPAttr(qp_state=e.IBV_QPS_RTR), e.IBV_QP_STATE)
            a = QPAttr(qp_state=e.IBV_QPS_RTS)
            a.sq_psn = 0x123
            qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)
            qps.append((qp, cq))
        return qps

    def ud_ah(self):
        gr = GlobalRoute(dgid=GID(self.s.gid), sgid_index=self.args.gid, hop_limit=64)
        return AH(self.s.pd, attr=AHAttr(gr=gr, is_global=1, port_num=1))

    def ud_send(self, qp, ah, rqpn, qkey, n, seed, off=RECV_OFF + 4096, imm=None):
        s = self.s
        s.mr.write(pattern(seed, n), n, off)
        wr = SendWR(wr_id=seed, opcode=e.IBV_WR_SEND_WITH_IMM if imm is not None else
                    e.IBV_WR_SEND, num_sge=1, sg=[SGE(s.mr.buf + off, n, s.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED, imm_data=imm or 0)
        wr.set_wr_ud(ah, rqpn, qkey)
        qp.post_send(wr)

    def ud_recv(self, qp, wr_id, length):
        s = self.s
        s.mr.write(bytes(length), length, RECV_OFF)
        qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(s.mr.buf + RECV_OFF, length,
                                                              s.mr.lkey)]))

    def ud_poll(self, cq, what, status=e.IBV_WC_SUCCESS):
        wc = self.s.poll(cq, what)
        expect(wc.status == status, f"{what}: status {wc.status}, expected {status}")
        return wc

    def ud_nothing(self, cq, what):
        time.sleep(1)
        n, _ = cq.poll(1)
        expect(n == 0, f"{what}: a completion arrived")

    def ud_close(self, qps, ah):
        for qp, cq in qps:
            qp.close()
            cq.close()
        ah.close()

    def ud_loopback(self):
        s = self.s
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            self.ud_recv(b, 71, 40 + 1024)
            self.ud_send(a, ah, b.qp_num, 0x1234, 1000, 71, imm=0x0a0b0c0d)
            wc = self.ud_poll(acq, "UD send")
            expect(wc.opcode == e.IBV_WC_SEND, f"send opcode {wc.opcode}")
            wc = self.ud_poll(bcq, "UD receive")
            expect(wc.opcode == e.IBV_WC_RECV, f"receive opcode {wc.opcode}")
            expect(wc.byte_len == 1040, f"byte_len {wc.byte_len}, expected 40 + 1000")
            expect(wc.src_qp == a.qp_num, f"src_qp {wc.src_qp:#x}, expected {a.qp_num:#x}")
            expect(wc.wc_flags & e.IBV_WC_GRH, "IBV_WC_GRH not set")
            expect(wc.wc_flags & e.IBV_WC_WITH_IMM, "IBV_WC_WITH_IMM not set")
            expect(wc.imm_data == 0x0a0b0c0d, f"imm_data {wc.imm_data:#x}")
            grh = s.mr.read(40, RECV_OFF)
            expect(grh[:20] == bytes(20), "GRH: the first 20 bytes are not zero (IPv4)")
            ip = grh[20:40]
            expect(ip[0] == 0x45 and ip[9] == 17, f"GRH: not an IPv4/UDP header: {ip.hex()}")
            csum = sum((ip[i] << 8) | ip[i + 1] for i in range(0, 20, 2))
            csum = (csum & 0xffff) + (csum >> 16)
            csum = (csum & 0xffff) + (csum >> 16)
            # Stock rxe leaves a wrong checksum in a loopback datagram's GRH,
            # which ib_core then reads as IPv6 (ib_get_rdma_header_version()).
            expect(csum == 0xffff or not self.sroce(),
                   f"GRH: the IPv4 header checksum does not hold: {ip.hex()}")
            mine = b"".join(int(g, 16).to_bytes(2, "big") for g in s.gid.split(":")[-2:])
            expect(ip[12:16] == mine and ip[16:20] == mine,
                   f"GRH: addresses {ip[12:16].hex()} -> {ip[16:20].hex()}, expected {mine.hex()}")
            got = s.mr.read(1000, RECV_OFF + 40)
            expect(got == pattern(71, 1000), "UD payload differs")
        finally:
            self.ud_close(qps, ah)

    def ud_qkey(self):
        qps = self.ud_pair(qkey_a=0x1234, qkey_b=0x1234)
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            before = self.counters()
            self.ud_recv(b, 72, 40 + 256)
            self.ud_send(a, ah, b.qp_num, 0x4321, 100, 72)
            self.ud_poll(acq, "UD send under the wrong Q_Key")
            self.ud_nothing(bcq, "wrong Q_Key")
            self.expect_delta(before, "rx_drop_bad_qkey", 1)
            if not self.sroce():
                return  # stock rxe puts the WR's privileged Q_Key in the DETH as it is
            # High bit set: the sender QP's own Q_Key (0x1234) goes in the DETH.
            self.ud_send(a, ah, b.qp_num, 0x80000000, 100, 73)
            self.ud_poll(acq, "UD send under a privileged WR Q_Key")
            wc = self.ud_poll(bcq, "UD receive under the QP's own Q_Key")
            expect(wc.byte_len == 140, f"byte_len {wc.byte_len}")
            expect(self.s.mr.read(100, RECV_OFF + 40) == pattern(73, 100), "payload differs")
        finally:
            self.ud_close(qps, ah)

    def ud_no_wqe(self):
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            before = self.counters()
            self.ud_send(a, ah, b.qp_num, 0x1234, 64, 74)
            self.ud_poll(acq, "UD send with no receive posted")
            self.ud_nothing(bcq, "no receive posted")
            self.expect_delta(before, "rx_drop_no_wqe", 1)
            self.ud_recv(b, 75, 40 + 64)
            self.ud_send(a, ah, b.qp_num, 0x1234, 64, 75)
            self.ud_poll(acq, "UD send")
            wc = self.ud_poll(bcq, "UD receive after the drop")
            expect(wc.wr_id == 75, f"wr_id {wc.wr_id}")
        finally:
            self.ud_close(qps, ah)

    def ud_recv_short(self):
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            before = self.counters()
            self.ud_recv(b, 76, 40 + 50)
            self.ud_send(a, ah, b.qp_num, 0x1234, 51, 76)
            self.ud_poll(acq, "UD send")
            # Stock rxe completes it LOC_QP_OP_ERR.
            wc = self.ud_poll(bcq, "UD receive too short",
                              e.IBV_WC_LOC_LEN_ERR if self.sroce() else e.IBV_WC_LOC_QP_OP_ERR)
            expect(wc.wr_id == 76, f"wr_id {wc.wr_id}")
            self.expect_delta(before, "ud_rx_errors", 1)
            if not self.sroce():
                return  # stock rxe moves the QP to Error
            st = b.query(e.IBV_QP_STATE)[0].qp_state
            expect(st == e.IBV_QPS_RTS, f"receiver state {st} after the error, expected RTS")
            self.ud_recv(b, 77, 40 + 50)
            self.ud_send(a, ah, b.qp_num, 0x1234, 50, 77)
            self.ud_poll(acq, "UD send")
            wc = self.ud_poll(bcq, "UD receive after the error")
            expect(wc.wr_id == 77 and wc.byte_len == 90, f"wr_id {wc.wr_id} len {wc.byte_len}")
        finally:
            self.ud_close(qps, ah)

    def ud_qp_state(self):
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            # The receiver back to INIT: a QP that takes no datagrams yet.
            b.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
            init = QPAttr(qp_state=e.IBV_QPS_INIT)
            init.pkey_index, init.port_num, init.qkey = 0, 1, 0x1234
            b.modify(init, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY)
            self.ud_recv(b, 90, 40 + 64)
            before = self.counters()
            self.ud_send(a, ah, b.qp_num, 0x1234, 64, 90)
            self.ud_poll(acq, "UD send to a QP in INIT")
            self.ud_nothing(bcq, "a datagram to a QP in INIT")
            self.expect_delta(before, "rx_drop_qp_state", 1)
            b.modify(QPAttr(qp_state=e.IBV_QPS_RTR), e.IBV_QP_STATE)
            self.ud_send(a, ah, b.qp_num, 0x1234, 64, 91)
            self.ud_poll(acq, "UD send to the QP in RTR")
            wc = self.ud_poll(bcq, "UD receive in RTR")
            expect(wc.wr_id == 90 and wc.byte_len == 104, f"wr_id {wc.wr_id} len {wc.byte_len}")
            expect(self.s.mr.read(64, RECV_OFF + 40) == pattern(91, 64), "payload differs")
        finally:
            self.ud_close(qps, ah)

    # IBA 16.7 (CM MADs): class 0x07, version 2, method SEND; attribute IDs.
    CM_REP, CM_DREQ, CM_DREP = 0x0013, 0x0015, 0x0016
    QP1_QKEY = 0x80010000

    @staticmethod
    def cm_mad(attr_id, local_id, remote_id, base_version=1):
        """A 256-byte CM MAD: the common header, then two comm IDs."""
        hdr = bytes([base_version, 0x07, 2, 0x03, 0, 0, 0, 0]) + \
            random.getrandbits(64).to_bytes(8, "big") + \
            attr_id.to_bytes(2, "big") + bytes(6)
        return (hdr + local_id.to_bytes(4, "big") + remote_id.to_bytes(4, "big")).ljust(256, b"\0")

    def cm_counters(self):
        base = f"/sys/class/infiniband/{self.args.dev}/ports/1"
        out = {}
        for group in ("cm_rx_msgs", "cm_rx_duplicates", "cm_tx_msgs"):
            for name in ("rep", "dreq", "drep"):
                with open(f"{base}/{group}/{name}") as f:
                    out[f"{group}/{name}"] = int(f.read())
        return out

    def mad_send(self, qp, cq, ah, qpn, qkey, mad):
        s = self.s
        off = RECV_OFF + 4096
        s.mr.write(mad, len(mad), off)
        wr = SendWR(wr_id=0x4d4144, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(s.mr.buf + off, len(mad), s.mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, qpn, qkey)
        qp.post_send(wr)
        self.ud_poll(cq, f"MAD send to QPN {qpn}")

    def gsi_mads(self):
        """MADs through the GSI QP that ib_cm or the provider must refuse."""
        qps = self.ud_pair(qkey_a=self.QP1_QKEY)
        (a, acq), _ = qps
        ah = self.ud_ah()
        unknown = 0x5eed0000 | random.getrandbits(16)

        def cm_delta(before, name, want, what):
            got = self.cm_counters()[name] - before[name]
            expect(got == want, f"{what}: {name} changed by {got}, expected {want}")

        def settle(before, name, delta=1):
            """Wait up to 10 s for ib_cm's counter @name to move by @delta."""
            for _ in range(100):
                if self.cm_counters()[name] - before[name] >= delta:
                    return
                time.sleep(0.1)

        try:
            # A DREQ for a connection that does not exist (ib_cm's state
            # machine has no cm_id in a state to take it): counted as a
            # duplicate and answered with a DREP, which QP1 sends from an
            # AH built from this datagram's GRH back to QP1 of our own GID.
            cm = self.cm_counters()
            before = self.counters()
            self.mad_send(a, acq, ah, 1, self.QP1_QKEY, self.cm_mad(self.CM_DREQ, unknown, unknown + 1))
            settle(cm, "cm_tx_msgs/drep", 2)  # its send completion, and
            settle(cm, "cm_rx_msgs/drep")  # the DREP back at QP1
            cm_delta(cm, "cm_rx_msgs/dreq", 1, "stray DREQ")
            cm_delta(cm, "cm_rx_duplicates/dreq", 1, "stray DREQ")
            # ib_cm counts a message sent without a cm_id as sent twice
            # (cm_send_handler() gives it one retry); one DREP arrives.
            cm_delta(cm, "cm_tx_msgs/drep", 2, "stray DREQ")
            cm_delta(cm, "cm_rx_msgs/drep", 1, "the DREP QP1 sent to itself")
            # A REP answering no REQ: taken in, dropped, not answered.
            cm = self.cm_counters()
            self.mad_send(a, acq, ah, 1, self.QP1_QKEY, self.cm_mad(self.CM_REP, unknown, unknown + 2))
            settle(cm, "cm_rx_msgs/rep")
            time.sleep(0.5)  # an answer, were there one, would follow at once
            cm_delta(cm, "cm_rx_msgs/rep", 1, "stray REP")
            cm_delta(cm, "cm_rx_duplicates/rep", 0, "stray REP")
            for name in ("cm_tx_msgs/drep", "cm_rx_msgs/dreq"):
                cm_delta(cm, name, 0, "stray REP")
            # Refused below ib_mad, by the provider, never seen by ib_cm:
            # QP1 under a Q_Key that is not 0x80010000, a MAD to QP0
            # (RoCE has none), and (ib_mad's own check) an unknown base
            # version.
            cm = self.cm_counters()
            self.mad_send(a, acq, ah, 1, 0x1234, self.cm_mad(self.CM_DREQ, unknown, unknown + 3))
            self.mad_send(a, acq, ah, 0, self.QP1_QKEY, self.cm_mad(self.CM_DREQ, unknown, unknown + 4))
            self.mad_send(a, acq, ah, 1, self.QP1_QKEY,
                          self.cm_mad(self.CM_DREQ, unknown, unknown + 5, base_version=0x7f))
            # Then a good stray DREQ on the same path: once its DREP is
            # back, the three before it were handled, and only it counts.
            self.mad_send(a, acq, ah, 1, self.QP1_QKEY, self.cm_mad(self.CM_DREQ, unknown, unknown + 6))
            settle(cm, "cm_rx_msgs/drep")
            for name in ("cm_rx_msgs/dreq", "cm_rx_duplicates/dreq", "cm_rx_msgs/drep"):
                cm_delta(cm, name, 1, "three refused MADs, then a stray DREQ")
            self.expect_delta(before, "rx_drop_bad_qkey", 1)
            self.expect_delta(before, "rx_drop_no_qp", 1)
        finally:
            self.ud_close(qps, ah)

    def ud_too_long(self):
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            before = self.counters()
            self.ud_recv(b, 78, 40 + 2048)
            self.ud_send(a, ah, b.qp_num, 0x1234, 1025, 78)
            self.ud_poll(acq, "UD send over the MTU", e.IBV_WC_LOC_LEN_ERR)
            self.expect_delta(before, "wc_loc_len_err", 1)
            st = a.query(e.IBV_QP_STATE)[0].qp_state
            expect(st == e.IBV_QPS_SQE, f"sender state {st}, expected SQE")
            self.ud_send(a, ah, b.qp_num, 0x1234, 8, 79)
            self.ud_poll(acq, "UD send in SQE", e.IBV_WC_WR_FLUSH_ERR)
            self.ud_nothing(bcq, "a send over the MTU")
            a.modify(QPAttr(qp_state=e.IBV_QPS_RTS), e.IBV_QP_STATE)
            self.ud_send(a, ah, b.qp_num, 0x1234, 1024, 80)
            self.ud_poll(acq, "UD send after SQE -> RTS")
            wc = self.ud_poll(bcq, "UD receive after SQE -> RTS")
            expect(wc.wr_id == 78 and wc.byte_len == 1064, f"wr_id {wc.wr_id} len {wc.byte_len}")
            expect(self.s.mr.read(1024, RECV_OFF + 40) == pattern(80, 1024), "payload differs")
        finally:
            self.ud_close(qps, ah)

    def netdev(self):
        with open(f"/sys/class/infiniband/{self.args.dev}/ports/1/gid_attrs/ndevs/0") as f:
            return f.read().strip()

    def set_netdev_mtu(self, mtu, active):
        """The device's netdev to MTU @mtu; wait for the port's active_mtu @active."""
        subprocess.run(["ip", "link", "set", "dev", self.netdev(), "mtu", str(mtu)], check=True)
        for _ in range(50):
            if self.s.ctx.query_port(1).active_mtu == active:
                return
            time.sleep(0.1)
        raise Check(f"active_mtu not {active} 5 s after the netdev MTU became {mtu}")

    def ud_port_mtu(self):
        """A UD QP in RTS follows the port's MTU as the netdev's changes."""
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        with open(f"/sys/class/net/{self.netdev()}/mtu") as f:
            mtu0 = int(f.read())
        try:
            self.set_netdev_mtu(9000, e.IBV_MTU_4096)
            self.ud_recv(b, 82, 40 + 4096)
            self.ud_send(a, ah, b.qp_num, 0x1234, 4096, 82)
            self.ud_poll(acq, "UD send of 4096 B at MTU 4096")
            wc = self.ud_poll(bcq, "UD receive of 4096 B")
            expect(wc.byte_len == 40 + 4096, f"byte_len {wc.byte_len}")
            expect(self.s.mr.read(4096, RECV_OFF + 40) == pattern(82, 4096), "payload differs")
            self.set_netdev_mtu(1500, e.IBV_MTU_1024)
            self.ud_recv(b, 83, 40 + 4096)
            before = self.counters()
            self.ud_send(a, ah, b.qp_num, 0x1234, 2048, 83)
            if self.sroce():
                self.ud_poll(acq, "UD send of 2048 B back at MTU 1024", e.IBV_WC_LOC_LEN_ERR)
                self.expect_delta(before, "wc_loc_len_err", 1)
            else:  # C10-93.1.1: stock rxe completes it unsent
                self.ud_poll(acq, "UD send of 2048 B back at MTU 1024")
            self.ud_nothing(bcq, "a send over the MTU")
        finally:
            subprocess.run(["ip", "link", "set", "dev", self.netdev(), "mtu", str(mtu0)])
            self.ud_close(qps, ah)

    def ud_ah_destroyed(self):
        qps = self.ud_pair()
        (a, acq), (b, bcq) = qps
        ah = self.ud_ah()
        try:
            # A QP in RTR takes no sends: librxe leaves the WQE in its ring
            # and the doorbell fails; the AH goes before the QP reaches RTS.
            a.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
            a.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
            init = QPAttr(qp_state=e.IBV_QPS_INIT)
            init.pkey_index, init.port_num, init.qkey = 0, 1, 0x1234
            a.modify(init, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY)
            a.modify(QPAttr(qp_state=e.IBV_QPS_RTR), e.IBV_QP_STATE)
            gone = self.ud_ah()
            try:
                self.ud_send(a, gone, b.qp_num, 0x1234, 8, 81)
                raise Check("a send in RTR was accepted")
            except PyverbsRDMAError:
                pass
            gone.close()
            rts = QPAttr(qp_state=e.IBV_QPS_RTS)
            rts.sq_psn = 1
            a.modify(rts, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)
            self.ud_send(a, ah, b.qp_num, 0x1234, 8, 82)
            wc = self.ud_poll(acq, "the WQE of the destroyed AH", e.IBV_WC_LOC_QP_OP_ERR)
            expect(wc.wr_id == 81, f"wr_id {wc.wr_id}, expected 81")
            wc = self.ud_poll(acq, "the WQE behind it", e.IBV_WC_WR_FLUSH_ERR)
            expect(wc.wr_id == 82, f"wr_id {wc.wr_id}, expected 82")
            st = a.query(e.IBV_QP_STATE)[0].qp_state
            expect(st == e.IBV_QPS_SQE, f"sender state {st}, expected SQE")
            self.ud_nothing(bcq, "the destroyed AH")
        finally:
            self.ud_close(qps, ah)

    def rc_pair(self):
        """Two RC QPs in RTS on the server's device, connected to each
        other, one CQ each, every WR signaled."""
        s = self.s
        qps = []
        for _ in range(2):
            cq = CQ(s.ctx, 16, None, None, 0)
            cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
            qp = QP(s.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                                     sq_sig_all=1))
            s.to_init(qp)
            qps.append((qp, cq))
        me = {"gid": s.gid, "qpn": [qps[1][0].qp_num, qps[0][0].qp_num], "psn": [5, 5]}
        for i, (qp, _) in enumerate(qps):
            qp.modify(s.rtr_attr(me, i), Side.RTR_MASK)
            a = QPAttr(qp_state=e.IBV_QPS_RTS)
            a.timeout, a.retry_cnt, a.rnr_retry, a.sq_psn = 14, 1, 1, 5
            a.max_rd_atomic = RD_ATOMIC
            qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                      e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)
        return qps

    def mw_write(self, qp, cq, rkey, addr, status, what):
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(self.s.mr.buf, 16, self.s.mr.lkey)])
        wr.set_wr_rdma(rkey, addr)
        qp.post_send(wr)
        self.ud_poll(cq, what, status)

    def mw_bind2(self, qp, cq, mw, mr, off, length, status, what,
                 access=e.IBV_ACCESS_REMOTE_WRITE):
        wr = SendWR(wr_id=2, opcode=e.IBV_WR_BIND_MW)
        wr.set_bind_wr(mw, MWBindInfo(mr, mr.buf + off, length, access))
        qp.post_send(wr)
        wc = self.ud_poll(cq, what, status)
        if status == e.IBV_WC_SUCCESS:
            expect(wc.opcode == e.IBV_WC_BIND_MW, f"bind completion opcode {wc.opcode}")
        return wr.rkey

    def mw_errors(self):
        s = self.s
        mr = MR(s.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
        plain = MR(s.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
        mw, mw2 = MW(s.pd, e.IBV_MW_TYPE_2), MW(s.pd, e.IBV_MW_TYPE_2)
        mw1 = MW(s.pd, e.IBV_MW_TYPE_1)
        pairs = []
        try:
            # A window of 4096 bytes at offset 2048 of the 8192-byte MR, on b.
            pairs.append(self.rc_pair())
            (a, acq), (b, bcq) = pairs[-1]
            rkey = self.mw_bind2(b, bcq, mw, mr, 2048, 4096, e.IBV_WC_SUCCESS, "BIND_MW")
            try:
                mr.close()
                raise Check("ibv_dereg_mr of an MR under a bound window succeeded")
            except PyverbsRDMAError as ex:
                expect(ex.error_code == errno.EBUSY, f"dereg errno {ex.error_code}, not EBUSY")
            s.mr.write(bytes(range(16)), 16, 0)
            self.mw_write(a, acq, rkey, mr.buf + 2048 + 4080, e.IBV_WC_SUCCESS,
                          "a write at the window's end")
            expect(mr.read(16, 2048 + 4080) == bytes(range(16)), "the write did not land")
            inv = SendWR(wr_id=3, opcode=e.IBV_WR_LOCAL_INV)
            inv.imm_data = rkey
            b.post_send(inv)
            wc = self.ud_poll(bcq, "LOCAL_INV of the window")
            expect(wc.opcode == e.IBV_WC_LOCAL_INV, f"LOCAL_INV completion opcode {wc.opcode}")
            self.mw_write(a, acq, rkey, mr.buf + 2048, e.IBV_WC_REM_ACCESS_ERR,
                          "a write through an invalidated window")
            # The QP was in Error before its error completion was posted.
            st = a.query(e.IBV_QP_STATE)[0].qp_state
            expect(st == e.IBV_QPS_ERR, f"requester state {st} after its error completion")
            # A second window, on a second pair: the range is the window's.
            pairs.append(self.rc_pair())
            (a, acq), (b, bcq) = pairs[-1]
            rkey = self.mw_bind2(b, bcq, mw2, mr, 2048, 4096, e.IBV_WC_SUCCESS, "BIND_MW")
            self.mw_write(a, acq, rkey, mr.buf + 2048 + 4088, e.IBV_WC_REM_ACCESS_ERR,
                          "a write past the window's end, inside its MR")
            # pyverbs names a type 2 window by the key it was allocated with
            # (ibv_mw's rkey, which a type 2 bind leaves alone): once bound,
            # the window no longer has that key (mw-key).
            pairs.append(self.rc_pair())
            (a, acq), (b, bcq) = pairs[-1]
            self.mw_bind2(b, bcq, mw2, mr, 0, 4096, e.IBV_WC_MW_BIND_ERR,
                          "a bind naming the window by a key it no longer has")
            # A type 1 window cannot be invalidated (o10-37.2.26), nor bound
            # onto an MR registered without MW_BIND (C10-73).
            pairs.append(self.rc_pair())
            (a, acq), (b, bcq) = pairs[-1]
            inv = SendWR(wr_id=4, opcode=e.IBV_WR_LOCAL_INV)
            inv.imm_data = mw1.rkey
            a.post_send(inv)
            self.ud_poll(acq, "LOCAL_INV of a type 1 window", e.IBV_WC_LOC_QP_OP_ERR)
            b.bind_mw(mw1, MWBind(MWBindInfo(plain, plain.buf, 64, e.IBV_ACCESS_REMOTE_WRITE),
                                  e.IBV_SEND_SIGNALED))
            self.ud_poll(bcq, "a bind onto an MR without MW_BIND", e.IBV_WC_MW_BIND_ERR)
            # A SEND with Invalidate naming a key the receiver cannot
            # invalidate (a type 1 window): its receive completes
            # REM_INV_REQ_ERR, the sender gets an Invalid Request NAK.
            pairs.append(self.rc_pair())
            (a, acq), (b, bcq) = pairs[-1]
            b.post_recv(RecvWR(wr_id=5, num_sge=1, sg=[SGE(s.mr.buf + RECV_OFF, 64, s.mr.lkey)]))
            send = SendWR(wr_id=6, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                          sg=[SGE(s.mr.buf, 16, s.mr.lkey)])
            send.imm_data = mw1.rkey
            a.post_send(send)
            self.ud_poll(bcq, "the receive of a SEND with an invalid key to invalidate",
                         e.IBV_WC_REM_INV_REQ_ERR)
            self.ud_poll(acq, "a SEND with an invalid key to invalidate", e.IBV_WC_REM_INV_REQ_ERR)
            # A type 2 window goes free with the QP it is bound to: its MR
            # then deregisters while the window lives on.
            mr3 = MR(s.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
            mw3 = MW(s.pd, e.IBV_MW_TYPE_2)
            (a, acq), (b, bcq) = self.rc_pair()
            self.mw_bind2(b, bcq, mw3, mr3, 0, 4096, e.IBV_WC_SUCCESS, "BIND_MW")
            for qp, cq in ((a, acq), (b, bcq)):
                qp.close()
                cq.close()
            mr3.close()
            mw3.close()
        finally:
            for qps in pairs:
                for qp, cq in qps:
                    qp.close()
                    cq.close()
            mw.close()
            mw2.close()
            mw1.close()
            mr.close()  # the window is gone: the MR deregisters
            plain.close()

    def mw_zero_based(self):
        """A zero-based type 2 window (bound with IBV_WR_BIND_MW, as librxe
        allows; its ibv_bind_mw refuses zero-based type 1 windows): the
        remote end addresses it from 0."""
        s = self.s
        zb = getattr(e, "IBV_ACCESS_ZERO_BASED", 1 << 5)
        remote = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC

        def through_window(off, length, what, fn):
            """fn(a, acq, rkey, mr) on a fresh pair, b having bound a
            zero-based window at [off, off + length) of a new 8 KiB MR."""
            mr = MR(s.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
            mw = MW(s.pd, e.IBV_MW_TYPE_2)
            qps = []
            try:
                qps = self.rc_pair()
                (a, acq), (b, bcq) = qps
                rkey = self.mw_bind2(b, bcq, mw, mr, off, length, e.IBV_WC_SUCCESS, what,
                                     remote | zb)
                fn(a, acq, rkey, mr)
            finally:
                for qp, cq in qps:
                    qp.close()
                    cq.close()
                mw.close()
                mr.close()

        def inside(a, acq, rkey, mr):
            mr.write(bytes(8192), 8192, 0)
            s.mr.write(bytes(range(16)), 16, 0)
            self.mw_write(a, acq, rkey, 4080, e.IBV_WC_SUCCESS,
                          "a write at remote address 4080 of the window")
            expect(mr.read(16, 2048 + 4080) == bytes(range(16)),
                   "the write did not land at the window's offset 4080 in its MR")
            expect(mr.read(2048 + 4080, 0) == bytes(2048 + 4080),
                   "the write touched the MR before the window's offset")
            # A READ from remote address 0: the window's first bytes.
            mr.write(bytes(range(100, 116)), 16, 2048)
            rd = SendWR(wr_id=7, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                        sg=[SGE(s.mr.buf + 64, 16, s.mr.lkey)])
            rd.set_wr_rdma(rkey, 0)
            a.post_send(rd)
            self.ud_poll(acq, "a READ at remote address 0 of the window")
            expect(s.mr.read(16, 64) == bytes(range(100, 116)),
                   "the READ did not return the window's first bytes")
            # An atomic at remote address 8: the MR's 2056.
            mr.write((41).to_bytes(8, "little"), 8, 2048 + 8)
            fa = SendWR(wr_id=8, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                        sg=[SGE(s.mr.buf + 128, 8, s.mr.lkey)])
            fa.set_wr_atomic(rkey, 8, 1, 0)
            a.post_send(fa)
            self.ud_poll(acq, "a FETCH_ADD at remote address 8 of the window")
            got = int.from_bytes(s.mr.read(8, 128), "little")
            now = int.from_bytes(mr.read(8, 2048 + 8), "little")
            expect(got == 41 and now == 42, f"FETCH_ADD returned {got}, left {now}")
            # All of it, in four packets each way (path MTU 1024): every
            # packet lands at its own place in the window.
            s.mr.write(pattern(93, 4096), 4096, WRITE_OFF)
            wr = SendWR(wr_id=9, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(s.mr.buf + WRITE_OFF, 4096, s.mr.lkey)])
            wr.set_wr_rdma(rkey, 0)
            a.post_send(wr)
            self.ud_poll(acq, "a 4096-byte WRITE at remote address 0 of the window")
            expect(mr.read(4096, 2048) == pattern(93, 4096),
                   "the 4096-byte WRITE did not land whole at the window's place")
            mr.write(pattern(94, 4096), 4096, 2048)
            rd = SendWR(wr_id=10, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                        sg=[SGE(s.mr.buf + READ_OFF, 4096, s.mr.lkey)])
            rd.set_wr_rdma(rkey, 0)
            a.post_send(rd)
            self.ud_poll(acq, "a 4096-byte READ at remote address 0 of the window")
            expect(s.mr.read(4096, READ_OFF) == pattern(94, 4096),
                   "the 4096-byte READ did not return the window whole")
            # Past its length, inside the MR: refused (the pair goes to
            # Error, so last).
            self.mw_write(a, acq, rkey, 4088, e.IBV_WC_REM_ACCESS_ERR,
                          "a write past the zero-based window's length, inside its MR")

        def mr_address(a, acq, rkey, mr):
            # The MR's own addresses are not the window's.
            self.mw_write(a, acq, rkey, mr.buf, e.IBV_WC_REM_ACCESS_ERR,
                          "a write at the MR's own address through a zero-based window")

        through_window(2048, 4096, "BIND_MW of a zero-based window", inside)
        through_window(0, 8192, "BIND_MW of a zero-based window over all its MR", mr_address)

    def flush_solicited(self):
        s = self.s
        cq = CQ(s.ctx, 16, None, s.chan, 0)
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
        qp = QP(s.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=s.scq, rcq=cq, cap=cap))
        try:
            s.to_init(qp)
            for k in range(3):
                qp.post_recv(RecvWR(wr_id=200 + k, num_sge=1,
                                    sg=[SGE(s.mr.buf + RECV_OFF, 64, s.mr.lkey)]))
            cq.req_notify(True)
            qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
            # pyverbs raises if the event is for another CQ.
            within_timeout(lambda: s.chan.get_cq_event(cq))
            cq.ack_events(1)
            for k in range(3):
                wc = s.poll(cq, f"flushed receive {k}")
                expect(wc.status == e.IBV_WC_WR_FLUSH_ERR,
                       f"flushed receive {k}: status {wc.status}")
                expect(wc.wr_id == 200 + k, f"flushed receive {k}: wr_id {wc.wr_id}")
            n, _ = cq.poll(1)
            expect(n == 0, "a completion beyond the three receives")
        finally:
            qp.close()
            cq.close()

    def srq_last_wqe(self):
        s = self.s
        qp = s.make_qp(s.srq)
        try:
            s.to_init(qp)
            qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
            ev = within_timeout(s.ctx.get_async_event)
            etype = ev.event_type
            ev.ack()
            expect(etype == e.IBV_EVENT_QP_LAST_WQE_REACHED, f"async event {etype}, expected "
                   f"IBV_EVENT_QP_LAST_WQE_REACHED ({e.IBV_EVENT_QP_LAST_WQE_REACHED})")
        finally:
            qp.close()

    def connect(self):
        s = self.s
        peer = self.ch.recv()
        self.ch.send(**s.info())
        s.connect(peer)
        # sroce keeps and reports both depths as set; stock rxe rounds them
        # up to a power of two.
        depth = RD_ATOMIC if self.sroce() else 1 << (RD_ATOMIC - 1).bit_length()
        for i, qp in enumerate(s.qps):
            a, _ = qp.query(Side.RTR_MASK | e.IBV_QP_MAX_QP_RD_ATOMIC)
            expect(a.max_rd_atomic == depth, f"qp {i}: max_rd_atomic {a.max_rd_atomic}, "
                   f"expected {depth}")
            expect(a.qp_state == e.IBV_QPS_RTS, f"qp {i}: state {a.qp_state}")
            expect(a.path_mtu == MTU, f"qp {i}: path_mtu {a.path_mtu}")
            expect(a.dest_qp_num == peer["qpn"][i], f"qp {i}: dest_qp_num {a.dest_qp_num}")
            expect(a.rq_psn == peer["psn"][i], f"qp {i}: rq_psn {a.rq_psn:#x}")
            expect(a.max_dest_rd_atomic == depth, f"qp {i}: max_dest_rd_atomic "
                   f"{a.max_dest_rd_atomic}, expected {depth}")
            expect(a.min_rnr_timer == 12, f"qp {i}: min_rnr_timer {a.min_rnr_timer}")
            ah = a.ah_attr
            expect(ah.is_global == 1 and ah.dgid == peer["gid"], f"qp {i}: dgid {ah.dgid}")
            expect(ah.sgid_index == self.args.gid, f"qp {i}: sgid_index {ah.sgid_index}")
            expect(ah.hop_limit == 64, f"qp {i}: hop_limit {ah.hop_limit}")
        r = self.ch.recv()
        expect(r.get("ok"), "the client could not connect")

    def wait_event(self):
        within_timeout(lambda: self.s.chan.get_cq_event(self.s.cq))
        self.s.cq.ack_events(1)

    def check_recv(self, wc, wr_id, opcode, length, imm):
        expect(wc.status == e.IBV_WC_SUCCESS, f"receive status {wc.status}")
        expect(wc.wr_id == wr_id, f"receive wr_id {wc.wr_id}, expected {wr_id}")
        expect(wc.opcode == opcode, f"receive opcode {wc.opcode}, expected {opcode}")
        expect(wc.byte_len == length, f"byte_len {wc.byte_len}, expected {length}")
        if imm is not None:
            expect(wc.wc_flags & e.IBV_WC_WITH_IMM, "IBV_WC_WITH_IMM not set")
            expect(wc.imm_data == imm, f"imm_data {wc.imm_data:#x}, expected {imm:#x}")

    def solicited(self):
        s = self.s
        s.post_recv(11, RECV_OFF, 4096)
        s.cq.req_notify(True)
        self.op(do="send", len=1000, seed=11, imm=0x5a5a1234, solicited=True)
        self.wait_event()
        wc = s.poll(s.cq, "solicited SEND_WITH_IMM")
        self.check_recv(wc, 11, e.IBV_WC_RECV, 1000, 0x5a5a1234)
        expect(s.mr.read(1000, RECV_OFF) == pattern(11, 1000), "SEND data differs")
        s.post_recv(12, RECV_OFF, 4096)
        s.cq.req_notify(False)
        self.op(do="send", len=3000, seed=12)
        self.wait_event()
        wc = s.poll(s.cq, "unsolicited SEND")
        self.check_recv(wc, 12, e.IBV_WC_RECV, 3000, None)
        expect(not wc.wc_flags & e.IBV_WC_WITH_IMM, "IBV_WC_WITH_IMM set on a plain SEND")
        expect(s.mr.read(3000, RECV_OFF) == pattern(12, 3000), "SEND data differs")

    def write_imm(self):
        s = self.s
        s.post_recv(21, RECV_OFF, 16)
        self.op(do="write_imm", len=5000, seed=21, roff=WRITE_OFF, imm=0x0077ee00)
        wc = s.poll(s.cq, "RDMA_WRITE_WITH_IMM")
        self.check_recv(wc, 21, e.IBV_WC_RECV_RDMA_WITH_IMM, 5000, 0x0077ee00)
        expect(s.mr.read(5000, WRITE_OFF) == pattern(21, 5000), "written data differs")
        expect(s.mr.read(16, WRITE_OFF + 5000) == bytes(16), "bytes after the WRITE changed")

    def read(self):
        self.s.mr.write(pattern(31, 7000), 7000, READ_OFF)
        self.op(do="read", len=7000, seed=31, roff=READ_OFF, loff=8192)

    def atomics(self):
        s = self.s
        s.mr.write(ATOMIC_INIT.to_bytes(8, "little"), 8, ATOMIC_OFF)
        got = self.op(do="cmp_swap", roff=ATOMIC_OFF, loff=0, compare=ATOMIC_INIT,
                      swap=ATOMIC_SWAP)
        expect(got == ATOMIC_INIT, f"CMP_SWAP returned {got:#x}, expected {ATOMIC_INIT:#x}")
        got = self.op(do="fetch_add", roff=ATOMIC_OFF, loff=0, add=ATOMIC_ADD)
        expect(got == ATOMIC_SWAP, f"FETCH_ADD returned {got:#x}, expected {ATOMIC_SWAP:#x}")
        final = int.from_bytes(s.mr.read(8, ATOMIC_OFF), "little")
        expect(final == ATOMIC_SWAP + ATOMIC_ADD, f"final value {final:#x}")

    def remote_inv(self):
        """The peer invalidates a window of ours with a SEND with Invalidate."""
        s = self.s
        mr = MR(s.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
        mw = MW(s.pd, e.IBV_MW_TYPE_2)
        try:
            rkey = self.mw_bind2(s.qps[0], s.scq, mw, mr, 1024, 4096, e.IBV_WC_SUCCESS,
                                 "BIND_MW on the connected QP")
            self.op(do="write", len=4096, seed=51, rkey=rkey, raddr=mr.buf + 1024)
            expect(mr.read(4096, 1024) == pattern(51, 4096), "the write through the window differs")
            s.post_recv(52, RECV_OFF, 64)
            self.op(do="send_inv", len=32, seed=52, inv_rkey=rkey)
            wc = s.poll(s.cq, "the SEND with Invalidate")
            expect(wc.wr_id == 52, f"receive wr_id {wc.wr_id}, expected 52")
            expect(wc.status == e.IBV_WC_SUCCESS, f"receive status {wc.status}")
            expect(wc.opcode == e.IBV_WC_RECV, f"receive opcode {wc.opcode}")
            # librxe hands the kernel's ib_wc_flags through as they are:
            # IB_WC_WITH_INVALIDATE is 1 << 2 there (libibverbs' bit for
            # IBV_WC_IP_CSUM_OK), as stock rxe reports it too.
            expect(wc.wc_flags & IB_WC_WITH_INVALIDATE,
                   f"IB_WC_WITH_INVALIDATE not set ({wc.wc_flags:#x})")
            expect(wc.imm_data == rkey, f"invalidated_rkey {wc.imm_data:#x}, expected {rkey:#x}")
            expect(s.mr.read(32, RECV_OFF) == pattern(52, 32), "the SEND's payload differs")
            # The window is free: a write through its key fails (and moves
            # both QPs to Error, so this check runs last).
            self.op(do="write", len=16, seed=53, rkey=rkey, raddr=mr.buf + 1024,
                    status=e.IBV_WC_REM_ACCESS_ERR)
            expect(mr.read(16, 1024) == pattern(51, 16), "a write through the freed window landed")
        finally:
            mw.close()
            mr.close()

    def srq_limit(self):
        s = self.s
        for k in range(8):
            s.post_recv(100 + k, SRQ_OFF + k * SRQ_SLOT, SRQ_SLOT, srq=True)
        s.srq.modify(SrqAttr(srq_limit=6), e.IBV_SRQ_LIMIT)
        expect(s.srq.query().srq_limit == 6, "srq_limit not armed")
        for k in range(3):
            self.op(do="send", qp=1, len=100 + k, seed=40 + k, wr_id=k)
        ev = within_timeout(s.ctx.get_async_event)
        etype = ev.event_type
        ev.ack()
        expect(etype == e.IBV_EVENT_SRQ_LIMIT_REACHED, f"async event {etype}, expected "
               f"IBV_EVENT_SRQ_LIMIT_REACHED ({e.IBV_EVENT_SRQ_LIMIT_REACHED})")
        expect(s.srq.query().srq_limit == 0, "the limit is still armed after the event")
        for k in range(3):
            wc = s.poll(s.cq, f"SRQ receive {k}")
            self.check_recv(wc, 100 + k, e.IBV_WC_RECV, 100 + k, None)
            expect(wc.qp_num == s.qps[1].qp_num, f"wc.qp_num {wc.qp_num:#x}")
            got = s.mr.read(100 + k, SRQ_OFF + k * SRQ_SLOT)
            expect(got == pattern(40 + k, 100 + k), f"SRQ receive {k}: data differs")

    def cq_resize(self):
        cq = self.s.cq
        cq.resize(1000)
        expect(cq.cqe >= 1000, f"cqe {cq.cqe} after resizing to 1000")
        cq.resize(10)
        expect(10 <= cq.cqe < 1000, f"cqe {cq.cqe} after resizing to 10")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-d", dest="dev", required=True)
    ap.add_argument("-g", dest="gid", type=int, required=True)
    ap.add_argument("-p", dest="port", type=int, default=18900)
    ap.add_argument("server", nargs="?")
    args = ap.parse_args()
    random.seed()
    if args.server:
        return client(args)
    return Server(args).main()


if __name__ == "__main__":
    sys.exit(main())
