// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libFuzzer target for the core's entry points.  The input is a program:
// each byte picks an entry point (rx, executed, read_failed, batch
// begin/end, credits, pmtu, pull) and the following bytes its arguments,
// so any sequence of calls with any field values is reachable.  ASan and
// UBSan catch memory and arithmetic errors; the checks below catch broken
// invariants that hold for every call sequence.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sroce/core_abi.h>
#include <sroce/psn.h>

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
};

void Check(bool ok) {
  if (!ok) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
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
        sroce_req q{};
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
