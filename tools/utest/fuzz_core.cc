// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libFuzzer target for the core's entry points.  The input is a program:
// its first byte picks the engine (responder, requester + completer, or
// the memory window decisions),
// then each byte picks an entry point and the following bytes its
// arguments, so any sequence of calls with any field values is reachable.
// ASan and UBSan catch memory and arithmetic errors; the checks below
// catch broken invariants that hold for every call sequence.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sroce/core_abi.h>
#include <sroce/mw_abi.h>
#include <sroce/psn.h>
#include <sroce/sq_abi.h>

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  uint32_t U32() {
    uint32_t v = 0;
    size_t k = n < 4 ? n : 4;
    memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
  uint8_t U8() { return static_cast<uint8_t>(U32() & 0xff); }
  // An address or length: small, near 2^64, or any, so that the range
  // checks' edges are reached.
  uint64_t Addr() {
    uint8_t k = U8();
    uint64_t v = (static_cast<uint64_t>(U32()) << 32) | U32();
    if (k % 3 == 0) return v & 0x3fff;
    if (k % 3 == 1) return ~0ull - (v & 0x3fff);
    return v;
  }
};

void Check(bool ok) {
  if (!ok) abort();
}

bool IsRequestOpcode(uint8_t op) {
  return op <= SROCE_OP_READ_REQUEST || op == SROCE_OP_CMP_SWAP || op == SROCE_OP_FETCH_ADD ||
         op == SROCE_OP_SEND_LAST_INV || op == SROCE_OP_SEND_ONLY_INV;
}

// A request opcode the transport may send: UC's are RC's SENDs and
// WRITEs with the UC transport bits, UD's the two SEND Only opcodes.
bool IsRequestOpcode(uint8_t op, uint8_t transport) {
  const uint8_t code = op & ((1u << SROCE_OP_TRANSPORT_SHIFT) - 1);
  const uint8_t tbits = static_cast<uint8_t>(op >> SROCE_OP_TRANSPORT_SHIFT);
  switch (transport) {
    case SROCE_TRANSPORT_UC:
      return tbits == SROCE_OP_TRANSPORT_UC && code <= SROCE_OP_WRITE_ONLY_IMM;
    case SROCE_TRANSPORT_UD:
      return op == SROCE_OP_UD_SEND_ONLY || op == SROCE_OP_UD_SEND_ONLY_IMM;
    default:
      return IsRequestOpcode(op);
  }
}

// The requester and completer: whatever responses and timer events come,
// packets stay inside their WQE and the path MTU, the acknowledged PSN
// never moves back, and every posted WQE is retired exactly once, in order.
int FuzzSendQueue(Reader& in) {
  constexpr uint32_t kSlots = 16;
  static sroce_sq_qp sq;
  static sroce_sq_wqe ring[kSlots];
  sroce_sq_params p{};
  p.psn = in.U32();
  p.pmtu = 256u << (in.U8() % 5);
  p.window = in.U8();
  p.ackreq_every = in.U8() % 8;
  p.max_rd_atomic = in.U8() % 5;
  p.timeout = in.U8();
  p.retry_cnt = in.U8();
  p.rnr_retry = in.U8();
  p.hold_tail = in.U8() & 1;
  p.transport = in.U8() % SROCE_TRANSPORT_COUNT;
  sroce_sq_init(&sq, &p, ring, kSlots);
  uint32_t pmtu = 256;
  while (pmtu < 4096 && pmtu < p.pmtu) pmtu <<= 1;
  uint32_t posted = 0, retired = 0;
  uint32_t acked = sroce_sq_acked_psn(&sq);
  uint32_t lengths[kSlots] = {};
  while (in.n) {
    sroce_sq_ret r{};
    const uint8_t op = in.U8() % 11;
    switch (op) {
      case 0: {
        if (!sroce_sq_room(&sq)) break;
        uint32_t pos = sroce_sq_producer(&sq);
        sroce_sq_wqe& w = ring[pos % kSlots];
        w = sroce_sq_wqe{};
        w.op = in.U8() % SROCE_WR_OP_COUNT;
        w.flags = in.U8() & 7;
        w.length = w.op >= SROCE_WR_CMP_SWAP ? 8 : in.U32() % 20000;
        w.remote_va = in.U32();
        lengths[pos % kSlots] = w.length;
        Check(sroce_req_post(&sq, 1) == 1);
        posted++;
        break;
      }
      case 1:
      case 2: {
        sroce_req_pkt pkt;
        // Some passes run with the retransmit timer aged, as the driver's may.
        uint8_t hints = in.U8() & SROCE_REQ_HINT_TIMER_AGED;
        for (int i = 0; i < 32; i++) {
          // Op 2 ends its pass as the driver's budget does.
          uint8_t h = hints | (op == 2 && i == 31 ? SROCE_REQ_HINT_YIELD : 0);
          r = sroce_req_next_hint(&sq, &pkt, h);
          // A hold waits for a response due: never once the timer aged,
          // and only with something outstanding to answer.
          if (r.action == SROCE_SQ_BLOCKED && r.reason == SROCE_BLK_HOLD) {
            Check(!(h & SROCE_REQ_HINT_TIMER_AGED));
            Check(sroce_sq_next_psn(&sq) != sroce_psn_add(sroce_sq_acked_psn(&sq), 1));
          }
          if (r.action == SROCE_SQ_LOCAL) {
            // A local operation: it names a WQE outstanding, and it is
            // reported as carried out or failed (or, now and then, not
            // yet: it must then come back).
            Check(pkt.wqe - retired < posted - retired);
            uint8_t st = in.U8();
            if (st < 200) r = sroce_req_local_done(&sq, st < 150 ? 0 : st % SROCE_WC_STATUS_COUNT);
            else if (st < 210) r = sroce_req_local_done(&sq, st);  // out of range
            else break;
            continue;
          }
          if (r.action != SROCE_SQ_SEND) break;
          Check(pkt.wqe - retired < posted - retired);
          Check(sroce_psn_valid(pkt.psn) && IsRequestOpcode(pkt.opcode, p.transport));
          Check(pkt.length <= pmtu && pkt.offset + pkt.length <= lengths[pkt.wqe % kSlots]);
          Check(pkt.pad_count == ((4 - (pkt.length & 3)) & 3));
        }
        break;
      }
      case 3:
        sroce_req_unsend(&sq);
        break;
      case 4:
        r = sroce_req_wqe_error(&sq, in.U8() % SROCE_WC_STATUS_COUNT);
        break;
      case 5:
      case 6: {
        sroce_comp_pkt c{};
        c.opcode = static_cast<uint8_t>(SROCE_OP_READ_RESP_FIRST + in.U8() % 7);
        uint8_t near = in.U8();
        c.psn = near < 200 ? sroce_psn_add(acked, near % 8) : in.U32() & SROCE_PSN_MASK;
        c.msn = in.U32();
        c.syndrome = in.U8();
        c.payload_len = in.U8() < 128 ? pmtu : in.U32() % 5000;
        c.atomic_orig = in.U32();
        sroce_comp_place pl;
        r = sroce_comp_rx(&sq, &c, &pl);
        if (r.action == SROCE_SQ_PLACE) {
          Check(pl.wqe - retired < posted - retired);
          Check(pl.atomic ? pl.length == 8
                          : pl.offset + pl.length <= lengths[pl.wqe % kSlots]);
          if (in.U8() < 230) r = sroce_comp_placed(&sq, in.U8() < 200 ? 0 : in.U8() % 11);
        }
        break;
      }
      case 7:
        r = sroce_comp_timeout(&sq);
        break;
      case 8:
        r = sroce_comp_rnr_expired(&sq);
        break;
      case 9:
        if (in.U8() < 16) {
          sroce_sq_flush(&sq);
        } else if (in.U8() < 64) {
          // The port's MTU changes: a UD datagram is measured against
          // the new one (RC and UC keep their path MTU).
          uint32_t m = 256u << (in.U8() % 5);
          sroce_req_set_port_mtu(&sq, m);
          if (p.transport == SROCE_TRANSPORT_UD) pmtu = m;
        } else {
          sroce_req_set_draining(&sq, in.U8() & 1);
        }
        break;
      default:
        r = sroce_comp_placed(&sq, 0);  // without a placement: must be refused
        break;
    }
    Check(r.action < SROCE_SQ_ACTION_COUNT && r.rule < SROCE_SQR_COUNT &&
          r.timer < SROCE_TMR_OP_COUNT);
    uint32_t now = sroce_sq_acked_psn(&sq);
    Check(sroce_psn_diff(now, acked) >= 0);
    acked = now;
    sroce_sq_cqe cqe;
    while (sroce_comp_pull(&sq, &cqe)) {
      Check(cqe.wqe == retired && retired != posted);
      Check(cqe.status < SROCE_WC_STATUS_COUNT);
      retired++;
    }
    Check(sroce_sq_outstanding(&sq) == posted - retired && posted - retired <= kSlots);
  }
  return 0;
}

// The memory window decisions: a granted bind keeps the window's index and
// lies inside its MR; a granted access lies inside the window and lands
// inside it in the MR (from 0 for a zero-based window); a refusal changes
// nothing.
int FuzzWindows(Reader& in) {
  while (in.n) {
    switch (in.U8() % 3) {
      case 0: {
        sroce_mw_bind_in b{};
        b.addr = in.Addr();
        b.length = in.Addr();
        b.mr_iova = in.Addr();
        b.mr_length = in.Addr();
        b.cur_rkey = in.U32();
        b.wr_mw_rkey = in.U8() & 1 ? b.cur_rkey : in.U32();
        b.wr_rkey = in.U32();
        b.access = in.U8();
        b.mr_access = in.U8();
        b.type = 1 + (in.U8() & 1);
        b.state = in.U8() % SROCE_MW_STATE_COUNT;
        uint8_t f = in.U8();
        b.mr_found = f & 1;
        b.qp_pd_match = (f >> 1) & 1;
        b.mr_pd_match = (f >> 2) & 1;
        sroce_mw_verdict v = sroce_mw_bind(&b);
        Check(v.rule < SROCE_MWR_COUNT && v.va == 0);
        if (v.status != SROCE_WC_SUCCESS) {
          Check(v.status == SROCE_WC_MW_BIND_ERR && v.state == b.state && v.rkey == b.cur_rkey);
          break;
        }
        Check(v.state == SROCE_MW_VALID && (v.rkey >> 8) == (b.cur_rkey >> 8) &&
              (v.rkey & 0xff) == (b.wr_rkey & 0xff) && b.wr_mw_rkey == b.cur_rkey);
        Check(!(b.access & ~(SROCE_MWA_WINDOW | SROCE_MWA_LOCAL_WRITE | SROCE_MWA_ZERO_BASED)));
        Check(b.type == 2 || !(b.access & SROCE_MWA_ZERO_BASED));
        if (b.length) {
          Check(b.mr_found && (b.mr_access & SROCE_MWA_MW_BIND));
          Check(b.addr >= b.mr_iova && b.length <= b.mr_length &&
                b.addr - b.mr_iova <= b.mr_length - b.length);
        }
        break;
      }
      case 1: {
        sroce_mw_access_in a{};
        a.va = in.Addr();
        a.len = in.Addr();
        a.addr = in.Addr();
        a.length = in.Addr();
        a.cur_rkey = in.U32();
        a.rkey = in.U8() & 1 ? a.cur_rkey : in.U32();
        a.access = in.U8();
        a.want = in.U8();
        a.type = 1 + (in.U8() & 1);
        a.state = in.U8() % SROCE_MW_STATE_COUNT;
        uint8_t f = in.U8();
        a.pd_match = f & 1;
        a.qp_match = (f >> 1) & 1;
        sroce_mw_verdict v = sroce_mw_access(&a);
        Check(v.rule == SROCE_MWR_ACCESS && v.state == a.state && v.rkey == a.cur_rkey);
        if (v.status != SROCE_WC_SUCCESS) {
          Check(v.status == SROCE_WC_REM_ACCESS_ERR && v.va == 0);
          break;
        }
        Check(a.rkey == a.cur_rkey && a.state == SROCE_MW_VALID && a.pd_match &&
              (a.type == 1 || a.qp_match) && a.want && !(a.want & ~SROCE_MWA_WINDOW) &&
              (a.access & a.want) == a.want);
        // Where it lands in the MR: inside the window, without wrapping.
        Check(v.va >= a.addr && a.len <= a.length && v.va - a.addr <= a.length - a.len);
        Check(v.va == ((a.access & SROCE_MWA_ZERO_BASED) ? a.addr + a.va : a.va));
        break;
      }
      default: {
        sroce_mw_inv_in i{};
        i.cur_rkey = in.U32();
        i.rkey = in.U8() & 1 ? i.cur_rkey : in.U32();
        i.type = 1 + (in.U8() & 1);
        i.state = in.U8() % SROCE_MW_STATE_COUNT;
        i.qp_match = in.U8() & 1;
        sroce_mw_verdict v = sroce_mw_invalidate(&i);
        Check(v.rule < SROCE_MWR_COUNT && v.rkey == i.cur_rkey && v.va == 0);
        if (v.status == SROCE_WC_SUCCESS)
          Check(i.type == 2 && i.rkey == i.cur_rkey && i.state == SROCE_MW_VALID && i.qp_match &&
                v.state == SROCE_MW_FREE);
        else
          Check(v.status == SROCE_WC_LOC_QP_OP_ERR && v.state == i.state);
        break;
      }
    }
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
  const uint8_t engine = in.U8() % 3;
  if (engine == 1) return FuzzSendQueue(in);
  if (engine == 2) return FuzzWindows(in);
  static sroce_resp_qp qp;
  static sroce_rd_res res[8];
  sroce_resp_params p{};
  p.epsn = in.U32();
  p.pmtu = in.U32();
  p.ack_coalesce_max = in.U8();
  p.ack_span_max = in.U8();
  p.srq = in.U8() & 1;
  p.min_rnr_timer = in.U8();
  p.read_msn_at_first = in.U8() & 1;
  uint32_t nres = in.U8() % 9;
  sroce_resp_init(&qp, &p, res, nres);

  bool have_ack = false;
  uint32_t last_ack = 0, last_msn = sroce_resp_msn(&qp);
  while (in.n) {
    uint8_t op = in.U8() % 8;
    sroce_resp_ret r{};
    switch (op) {
      case 0: {
        sroce_resp_req q{};
        q.opcode = in.U8();
        q.psn = in.U32() & (in.U8() & 1 ? 0xffffffffu : SROCE_PSN_MASK);
        q.ackreq = in.U8() & 1;
        q.payload_len = in.U32();
        q.dma_len = in.U32();
        q.va = in.U32();
        q.rkey = in.U32() & 3;
        uint8_t v = in.U8();
        q.verdict = v < 200 ? sroce_resp_classify(&qp, q.psn) : v % 4;
        uint32_t before = sroce_resp_expected_psn(&qp);
        r = sroce_resp_rx(&qp, &q);
        // C9-103/C9-114: only executing requests move the expected PSN.
        Check(sroce_resp_expected_psn(&qp) == before);
        break;
      }
      case 1: {
        sroce_exec e{};
        e.status = in.U8() % 6;
        e.atomic_orig = in.U32();
        r = sroce_resp_executed(&qp, &e);
        break;
      }
      case 2:
        r = sroce_resp_read_failed(&qp, in.U8());
        break;
      case 3:
        sroce_resp_batch_begin(&qp);
        break;
      case 4:
        r = sroce_resp_batch_end(&qp);
        break;
      case 5:
        r = sroce_resp_set_credits(&qp, in.U32());
        break;
      case 6:
        sroce_resp_set_pmtu(&qp, in.U32());
        break;
      default:
        break;
    }
    Check(r.action < SROCE_ACT_COUNT && r.reason < SROCE_DROP_REASON_COUNT &&
          r.rule < SROCE_RULE_COUNT);
    // C9-149: the MSN never goes down.
    Check(sroce_psn_diff(sroce_resp_msn(&qp), last_msn) >= 0);
    last_msn = sroce_resp_msn(&qp);
    sroce_resp_desc d;
    for (int i = 0; i < 64 && sroce_resp_pull(&qp, &d); i++) {
      Check(d.kind < SROCE_RESP_KIND_COUNT && sroce_psn_valid(d.psn) && d.msn <= SROCE_PSN_MASK);
      Check(d.length <= 4096 && (d.syndrome & 0x80) == 0);
      if (d.kind == SROCE_RESP_ACK) {
        // ACK PSNs never move backwards.
        Check(!have_ack || sroce_psn_diff(d.psn, last_ack) >= 0);
        have_ack = true;
        last_ack = d.psn;
      }
    }
  }
  return 0;
}
