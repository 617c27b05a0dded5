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

namespace sroce {

class AckPolicy {
 public:
  void Reset(uint32_t coalesce_max, uint32_t span_max) {
    max_ = coalesce_max ? coalesce_max : 1;
    span_max_ = span_max;
    ackreqs_ = 0;
    dups_ = 0;
    in_batch_ = false;
  }
  bool Owed() const { return ackreqs_ != 0 || dups_ != 0; }
  // Requests (AckReq'd or duplicate) one ACK will answer.
  uint32_t Covered() const { return ackreqs_ + dups_; }

  // Should be called after a new request with AckReq completed; the ACK
  // would acknowledge @span PSNs that no earlier response did.  Returns
  // true when the ACK must be queued now.
  bool OnAckReqCompleted(uint32_t span) {
    ackreqs_++;
    return !in_batch_ || ackreqs_ >= max_ || (span_max_ && span >= span_max_);
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
  uint32_t span_max_;
  uint32_t ackreqs_;
  uint32_t dups_;
  bool in_batch_;
};

}  // namespace sroce

#endif  // SROCE_CORE_ACK_POLICY_H
