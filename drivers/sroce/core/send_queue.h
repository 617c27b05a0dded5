// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The send queue shared by the requester (requester.cc) and the completer
// (completer.cc): the outstanding-WQE ring in caller storage, the
// requester's cursor and the completer's acknowledgement point.
//
// Positions are free-running 32-bit ring indices, ordered
//   retire_ <= una_ <= sent_ <= prod_,  cur_.pos in [una_, sent_]:
//   [retire_, una_)  complete, waiting for sroce_comp_pull();
//   [una_, sent_)    started: PSNs assigned, not yet complete;
//   [sent_, prod_)   posted, not started.
// PSNs:
//   acked_psn_       newest PSN acknowledged; only moves forward;
//   next_psn_        the PSN the next new packet takes (never moves back);
//   cur_.psn         the PSN the requester sends next: next_psn_ or, after
//                    a go-back-N rewind, a PSN behind it.
// Every WQE in [una_, sent_) spans [first_psn, first_psn + npsn), and the
// spans are contiguous and end at next_psn_.
#ifndef SROCE_CORE_SEND_QUEUE_H
#define SROCE_CORE_SEND_QUEUE_H

#include "../../../include/sroce/sq_abi.h"
#include "../../../include/sroce/psn.h"
#include "ret.h"

namespace sroce {

using SqRet = sroce_sq_ret;

enum WqeState : uint8_t {
  kWqePosted = 0,   // not started
  kWqeStarted = 1,  // PSNs assigned, packets (partly) sent
  kWqeDone = 2,     // complete, status final
  kWqeLocalDone = 3,    // a local operation carried out: completes once it is the oldest
  kWqeFailed = 4,       // a local error: completes with its status once it is the oldest
  kWqeLocalPosted = 5,  // a local operation posted, not started
  // (One compare each: AckUpTo() takes the last three as kWqeLocalDone
  // and up, AtEndOfWork() the last two as kWqeFailed and up.)
};

// Where the requester is: a WQE, the PSN of its next packet and the byte
// offset of that packet in the message.
struct Cursor {
  uint32_t pos;
  uint32_t psn;
  uint32_t off;
};

// Everything sroce_req_next() may change, so sroce_req_unsend() can undo it.
struct ReqSnapshot {
  Cursor cur;
  uint32_t sent;
  uint32_t next_psn;
  uint32_t next_ssn;
  uint32_t rd_outstanding;
  uint32_t since_ackreq;
  uint32_t resp_due_psn;
  bool resp_due;
  bool resp_due_read;
  uint64_t packets;
  uint64_t retransmits;
  bool timer_running;
  uint32_t una;  // UD: the packet completed its WQE
};


inline SqRet Make(uint8_t action, uint8_t reason, uint8_t rule) {
  return MakeRet<SqRet>(action, reason, rule);
}

inline bool IsReadAtomic(uint8_t op) {
  return op == SROCE_WR_READ || op == SROCE_WR_CMP_SWAP || op == SROCE_WR_FETCH_ADD;
}

// Consumes a receive WQE at the responder: what credits count (9.7.7.2).
inline bool NeedsCredit(uint8_t op) {
  constexpr uint32_t kMask = 1u << SROCE_WR_SEND | 1u << SROCE_WR_SEND_IMM |
                             1u << SROCE_WR_WRITE_IMM | 1u << SROCE_WR_SEND_INV;
  return (kMask >> op) & 1;
}

// Carries 4 bytes after the payload header on its last packet: ImmDt, or
// the IETH of a SEND with Invalidate.
inline bool HasImmOrIeth(uint8_t op) {
  constexpr uint32_t kMask = 1u << SROCE_WR_SEND_IMM | 1u << SROCE_WR_WRITE_IMM |
                             1u << SROCE_WR_SEND_INV;
  return (kMask >> op) & 1;
}

// Carried out by the caller, with no packet: BIND_MW and LOCAL_INV.
// (The two last operations: one compare on the packet path.)
inline bool IsLocal(uint8_t op) { return op >= SROCE_WR_LOCAL_INV; }
static_assert(SROCE_WR_BIND_MW == SROCE_WR_LOCAL_INV + 1 && SROCE_WR_OP_COUNT == SROCE_WR_BIND_MW + 1,
              "the local operations are the last two");

class SendQueue {
 public:
  static SendQueue* From(sroce_sq_qp* q) { return reinterpret_cast<SendQueue*>(q); }
  static const SendQueue* From(const sroce_sq_qp* q) {
    return reinterpret_cast<const SendQueue*>(q);
  }

  void Init(const sroce_sq_params& p, sroce_sq_wqe* ring, uint32_t nslots);
  uint32_t Room() const { return nslots_ - (prod_ - retire_); }
  uint32_t Producer() const { return prod_; }
  uint32_t Post(uint32_t n);
  uint32_t PostError(uint8_t status);
  void Flush();
  bool Pull(sroce_sq_cqe* c);
  uint32_t Outstanding() const { return prod_ - retire_; }
  bool Drained() const { return draining_ && una_ == sent_ && cur_.pos == sent_; }
  uint32_t NextPsn() const { return next_psn_; }
  uint32_t AckedPsn() const { return acked_psn_; }
  const sroce_sq_stats& Stats() const { return stats_; }

  // Requester (requester.cc).
  SqRet Next(sroce_req_pkt* pkt, uint8_t hints);
  void Unsend();
  SqRet Held();
  SqRet WqeError(uint8_t status);
  SqRet LocalDone(uint8_t status);
  void SetDraining(bool on) { draining_ = on; }
  void SetPortMtu(uint32_t pmtu);

  // Completer (completer.cc).
  SqRet Rx(const sroce_comp_pkt& r, sroce_comp_place* place);
  SqRet Placed(uint8_t status);
  SqRet Timeout();
  SqRet RnrExpired();

 private:
  sroce_sq_wqe& At(uint32_t pos) { return ring_[pos & mask_]; }
  const sroce_sq_wqe& At(uint32_t pos) const { return ring_[pos & mask_]; }
  uint32_t PacketsFor(uint32_t len) const { return len ? (len + pmtu_ - 1) / pmtu_ : 1; }
  uint32_t LastPsn(const sroce_sq_wqe& w) const { return sroce_psn_add(w.first_psn, w.npsn - 1); }
  bool Contains(const sroce_sq_wqe& w, uint32_t psn) const {
    return sroce_psn_diff(psn, w.first_psn) >= 0 &&
           sroce_psn_diff(psn, w.first_psn) < static_cast<int32_t>(w.npsn);
  }
  bool Outstanding(uint32_t psn_after) const {
    return sroce_psn_diff(next_psn_, sroce_psn_add(psn_after, 1)) > 0;
  }

  // requester.cc
  uint8_t Gate(const Cursor& c) const;
  uint8_t FlowGate(const Cursor& c) const;
  void Start(sroce_sq_wqe& w);
  void Build(const Cursor& c, sroce_req_pkt* pkt) const;
  void Advance(const sroce_req_pkt& pkt);
  uint8_t AckReqRule(uint8_t hints) const;
  bool ResponseDue() const {
    return resp_due_ && sroce_psn_diff(resp_due_psn_, acked_psn_) > 0;
  }
  bool AtEndOfWork(const Cursor& c) const;
  bool HoldTail(uint8_t hints) const;
  void ReachFailed();
  SqRet StartLocal(sroce_req_pkt* pkt);
  SqRet Stop(uint32_t pos, uint8_t status, uint8_t rule);
  void SkipLocal();
  bool Ud() const { return params_.transport == SROCE_TRANSPORT_UD; }
  bool Uc() const { return params_.transport == SROCE_TRANSPORT_UC; }
  // UD and UC: nothing is acknowledged, retried or flow-controlled
  // (Init() leaves transport a valid value: one compare on RC's path).
  bool Unreliable() const { return params_.transport != SROCE_TRANSPORT_RC; }
  void Refuse();

  // completer.cc
  SqRet Drop(uint8_t reason, uint8_t rule);
  SqRet Accept(uint8_t rule);
  uint32_t Find(uint32_t psn) const;
  void Complete(uint32_t pos, uint8_t status, uint8_t rule);
  void Retire(uint32_t pos, uint8_t status, uint8_t rule);
  void RetireLocals(uint8_t status);
  void Fail(uint32_t pos, uint8_t status, uint8_t rule);
  bool AckUpTo(uint32_t psn, uint8_t rule, uint32_t* implied);
  void Progress();
  void UpdateCredits(const sroce_comp_pkt& r);
  bool Rewind(uint32_t psn);
  SqRet GoBack(uint32_t psn, uint8_t rule, bool count_retry);
  SqRet RxAck(const sroce_comp_pkt& r);
  SqRet RxNak(const sroce_comp_pkt& r);
  SqRet RxData(const sroce_comp_pkt& r, sroce_comp_place* place);
  void TimerAfter(SqRet* r);

  sroce_sq_params params_;
  sroce_sq_stats stats_;
  sroce_sq_wqe* ring_;
  uint32_t nslots_;
  uint32_t mask_;
  uint32_t pmtu_;
  uint32_t window_;
  // Ring positions, see the top of this file.
  uint32_t prod_;
  uint32_t retire_;
  uint32_t una_;
  uint32_t sent_;
  Cursor cur_;
  uint32_t next_psn_;
  uint32_t acked_psn_;
  // READ/ATOMIC WQEs started and not complete (ORD and fences).
  uint32_t rd_outstanding_;
  // End-to-end credits (9.7.7.2): WQEs are numbered by SSN from 1; one
  // needing a receive WQE may start while ssn <= lsn_ + 1.
  uint32_t next_ssn_;
  uint32_t lsn_;
  bool credits_unlimited_;
  uint32_t since_ackreq_;  // packets sent since the last AckReq
  // The newest packet sent that draws a response (AckReq'd, READ, ATOMIC):
  // while it is unacknowledged an ACK is on its way.  A go-back clears it.
  uint32_t resp_due_psn_;
  bool resp_due_;
  bool resp_due_read_;  // and it is a READ's: its response can take the whole transfer
  uint32_t retry_left_;
  uint32_t rnr_left_;
  uint32_t rnr_psn_;
  uint8_t rnr_code_;
  bool rnr_wait_;
  bool timer_running_;
  bool progressed_;  // this call acknowledged something or restarted the requester
  // The last go-back-N restart point, so a duplicate NAK or the rest of a
  // broken READ response does not restart the same episode again.
  uint32_t retry_psn_;
  bool retry_valid_;
  bool draining_;
  // After a timeout only one packet goes until something is acknowledged:
  // the retransmission probes where the responder is, rather than
  // resending the whole window into a responder that may just be slow.
  bool probing_;
  bool error_;        // a WQE failed: everything later is flushed
  bool stopped_;      // a local error is pending: nothing at or after stop_pos_ goes
  uint32_t stop_pos_; // the WQE that stopped the requester (failed, or a local op running)
  // The READ/ATOMIC response being placed (between Rx and Placed).
  bool placing_;
  uint8_t place_opcode_;
  uint32_t place_pos_;
  uint32_t place_psn_;
  ReqSnapshot undo_;
  bool undo_valid_;
  // A local operation handed out (SROCE_SQ_LOCAL), its outcome not yet
  // reported by sroce_req_local_done().
  bool local_pending_;
  uint32_t local_pos_;
  // Local operations carried out and waiting to complete in order
  // (kWqeLocalDone): zero on the fast path, so Complete() looks no further.
  uint32_t local_done_;
};

}  // namespace sroce

#endif  // SROCE_CORE_SEND_QUEUE_H
