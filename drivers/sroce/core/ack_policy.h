// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// ACK coalescing policy (C9-116, 9.7.5.1.2).
//
// An ACK is "owed" once a new request with AckReq completes, or a
// duplicate SEND/WRITE arrives (C9-105).  An owed ACK goes out:
//   - at once, when no RX batch is open, when it already covers
//     ack_coalesce_max AckReq'd requests, or when it newly acknowledges
//     ack_span_max PSNs or more: a requester's window of unacknowledged
//     PSNs is finite (stock rxe stops at 128), and holding an ACK that
//     large to the end of the batch would stall it;
//   - otherwise at the end of the RX batch that made it owed.
// It is dropped as "covered" when a newer response is queued whose PSN
// implicitly acknowledges the same requests: a READ response First, an
// ATOMIC ACK or a NAK for a later PSN.  No timer: an owed ACK never waits
// longer than its batch.
#ifndef SROCE_CORE_ACK_POLICY_H
#define SROCE_CORE_ACK_POLICY_H

#include "../../../include/sroce/core_abi.h"
#include "../../../include/sroce/psn.h"

namespace sroce {

// The span rule is "span_max != 0 and (uint32_t)sroce_psn_diff(psn, acked)
// >= span_max".  With d = (psn - acked) mod 2^24 the cast diff is d when
// d < 2^23 and d + 0xff000000 (at least 0xff800000) when d >= 2^23, so the
// rule is d >= SpanLimit(span_max): one subtraction, mask and compare per
// AckReq'd request.
constexpr uint32_t SpanLimit(uint32_t span_max) {
  if (span_max == 0) return SROCE_PSN_MASK + 1;  // never: d < 2^24
  if (span_max <= SROCE_PSN_HALF) return span_max;
  if (span_max <= 0xff800000u) return SROCE_PSN_HALF;  // behind only
  return span_max - 0xff000000u;
}

// SpanLimit() against the rule as written, around every edge.
constexpr bool SpanRule(uint32_t span_max, uint32_t d) {
  uint32_t diff = d >= SROCE_PSN_HALF ? d + 0xff000000u : d;  // (uint32_t)sroce_psn_diff()
  return span_max != 0 && diff >= span_max;
}
constexpr bool SpanLimitMatchesRule() {
  constexpr uint32_t maxes[] = {0, 1, 2, 63, 64, 65, 0x7fffff, 0x800000, 0x800001, 0xffffff,
                                0x1000000, 0x1000001, 0xff7fffff, 0xff800000, 0xff800001,
                                0xff800002, 0xffc00000, 0xfffffffe, 0xffffffff};
  constexpr uint32_t ds[] = {0, 1, 2, 62, 63, 64, 65, 66, 0x7ffffe, 0x7fffff, 0x800000,
                             0x800001, 0x800002, 0xbfffff, 0xc00000, 0xc00001, 0xfffffe,
                             0xffffff};
  for (uint32_t m : maxes) {
    for (uint32_t d : ds)
      if ((d >= SpanLimit(m)) != SpanRule(m, d)) return false;
    // d next to the limit itself, either side of the wrap
    const uint32_t near[] = {m - 1, m, m + 1, m - 0xff000001u, m - 0xff000000u, m - 0xfeffffffu};
    for (uint32_t e : near) {
      uint32_t d = e & SROCE_PSN_MASK;
      if ((d >= SpanLimit(m)) != SpanRule(m, d)) return false;
    }
  }
  return true;
}
static_assert(SpanLimitMatchesRule(), "SpanLimit() disagrees with the span rule");

class AckPolicy {
 public:
  void Reset(uint32_t coalesce_max, uint32_t span_max) {
    max_ = coalesce_max ? coalesce_max : 1;
    span_limit_ = SpanLimit(span_max);
    ackreqs_ = 0;
    dups_ = 0;
    in_batch_ = false;
  }
  bool Owed() const { return ackreqs_ != 0 || dups_ != 0; }
  // Requests (AckReq'd or duplicate) one ACK will answer.
  uint32_t Covered() const { return ackreqs_ + dups_; }

  // Should be called after a new request with AckReq completed; the ACK
  // would acknowledge the PSNs from @acked_psn (exclusive) to @psn that no
  // earlier response did.  Returns true when the ACK must be queued now.
  bool OnAckReqCompleted(uint32_t psn, uint32_t acked_psn) {
    ackreqs_++;
    return !in_batch_ || ackreqs_ >= max_ || ((psn - acked_psn) & SROCE_PSN_MASK) >= span_limit_;
  }
  // Should be called after a duplicate SEND/WRITE: one ACK per burst.
  bool OnDuplicate() {
    dups_++;
    return !in_batch_;
  }
  void OnBatchBegin() { in_batch_ = true; }
  // Returns true when an owed ACK must be queued now.
  bool OnBatchEnd() {
    in_batch_ = false;
    return Owed();
  }
  // The owed ACK was queued or covered: returns how many would-be ACKs
  // this one response saved compared with one ACK per request.
  uint32_t Clear(bool sent) {
    uint32_t n = Covered();
    ackreqs_ = 0;
    dups_ = 0;
    if (sent && n) n--;
    return n;
  }

 private:
  uint32_t max_;
  uint32_t span_limit_;  // SpanLimit(ack_span_max)
  uint32_t ackreqs_;
  uint32_t dups_;
  bool in_batch_;
};

}  // namespace sroce

#endif  // SROCE_CORE_ACK_POLICY_H
