// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The ordered queue of responses a QP owes but has not handed to TX yet.
// Order is the wire order: an ACK queued behind a READ response cannot
// overtake it (C9-101), and duplicates are answered in arrival order
// (C9-104, C9-110).  A READ response is one entry that yields one packet
// per pull.  Fixed capacity, no allocation.
#ifndef SROCE_CORE_RESPONSE_QUEUE_H
#define SROCE_CORE_RESPONSE_QUEUE_H

#include "../../../include/sroce/core_abi.h"

namespace sroce {

enum class Item : uint8_t { kAck, kNak, kRnrNak, kRead, kAtomicAck, kQpError };

struct QueuedResponse {
  uint64_t va;           // READ: next payload address
  uint64_t atomic_orig;  // ATOMIC ACK value
  uint32_t psn;          // next PSN to send
  uint32_t msn;          // MSN on this response (READ: on First)
  uint32_t msn_last;     // READ: MSN on Last/Only
  uint32_t remaining;    // READ: bytes still to send
  uint32_t rkey;
  uint16_t res;          // READ/ATOMIC: resource index
  Item item;
  uint8_t syndrome;
  uint8_t rule;
  bool dup;              // answers a duplicate (C9-106 on error)
  bool started;          // READ: First already sent
  uint8_t pad;
};

class ResponseQueue {
 public:
  void Reset() {
    head_ = 0;
    count_ = 0;
  }
  uint32_t Count() const { return count_; }
  uint32_t Room() const { return kLen - count_; }
  // Room() >= @n (at most kLen), as one compare: count_ never exceeds kLen.
  bool HasRoom(uint32_t n) const { return count_ <= kLen - n; }
  bool Empty() const { return count_ == 0; }
  // Callers check Room() first; a full queue ignores the push.
  void Push(const QueuedResponse& r) {
    if (count_ == kLen) return;
    slots_[(head_ + count_) % kLen] = r;
    count_++;
  }
  QueuedResponse& Front() { return slots_[head_]; }
  void Pop() {
    if (count_ == 0) return;
    head_ = (head_ + 1) % kLen;
    count_--;
  }
  // Visit every queued READ/ATOMIC entry (to drop resource references).
  template <typename F>
  void ForEach(F f) {
    for (uint32_t i = 0; i < count_; i++) f(slots_[(head_ + i) % kLen]);
  }

 private:
  static constexpr uint32_t kLen = SROCE_RESP_QUEUE_LEN;
  QueuedResponse slots_[kLen];
  uint32_t head_;
  uint32_t count_;
};

}  // namespace sroce

#endif  // SROCE_CORE_RESPONSE_QUEUE_H
