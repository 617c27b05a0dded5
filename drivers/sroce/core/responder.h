// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The RC responder's response-generation engine: per-QP state and the
// decisions of spec/response-generation.md.  It owns the expected PSN,
// the MSN, the PSN of the most recently completed new request, the NAK
// latch, the READ/ATOMIC resources (caller storage), the credit count,
// the ACK policy and the queue of responses owed.
//
// Invariants:
//   - epsn_ moves only for new requests that executed (never for
//     duplicates, C9-103, nor for refused requests, C9-114);
//   - msn_ moves by one per completed new message (C9-149);
//   - done_psn_ only moves forward, so ACK PSNs never move backwards;
//   - every response enters queue_ in wire order.
#ifndef SROCE_CORE_RESPONDER_H
#define SROCE_CORE_RESPONDER_H

#include "../../../include/sroce/core_abi.h"
#include "ack_policy.h"
#include "opcode_table.h"
#include "pmtu.h"
#include "response_queue.h"

namespace sroce {

enum class Latch : uint8_t { kNone, kSequence, kRnr };

enum ResKind : uint8_t { kResFree = 0, kResRead = 1, kResAtomic = 2 };

using Ret = sroce_resp_ret;

constexpr uint32_t kMaxMessage = 0x80000000u;  // 2^31 bytes (IBA 9.4.3)

class Responder {
 public:
  static Responder* From(sroce_resp_qp* qp) { return reinterpret_cast<Responder*>(qp); }
  static const Responder* From(const sroce_resp_qp* qp) {
    return reinterpret_cast<const Responder*>(qp);
  }

  void Init(const sroce_resp_params& p, sroce_rd_res* res, uint32_t nres);
  uint8_t Classify(uint32_t psn) const;
  Ret Rx(const sroce_resp_req& req);
  Ret Executed(const sroce_exec& ex);
  Ret ReadFailed(uint8_t status);
  void BatchBegin() { policy_.OnBatchBegin(); }
  Ret BatchEnd();
  Ret SetCredits(uint32_t posted);
  void SetPmtu(uint32_t pmtu) { pmtu_ = ValidPmtu(pmtu); }
  bool Pull(sroce_resp_desc* d);

  uint32_t ExpectedPsn() const { return epsn_; }
  uint32_t Msn() const { return msn_; }
  const sroce_resp_stats& Stats() const { return stats_; }

 private:
  Ret Drop(uint8_t reason, uint8_t rule);
  Ret RxChecked(const sroce_resp_req& req, const OpInfo& op);
  Ret NewRequest(const sroce_resp_req& req, const OpInfo& op);
  Ret SendWriteDone(const OpInfo& op);
  Ret Duplicate(const sroce_resp_req& req, const OpInfo& op);
  Ret DuplicateRead(const sroce_resp_req& req);
  Ret DuplicateAtomic(const sroce_resp_req& req);
  Ret QueueDuplicate(QueuedResponse& q, uint32_t i, uint8_t rule);
  Ret ExecutedOk(const OpInfo& op, const sroce_exec& ex);
  sroce_rd_res& TakeResource(uint16_t* idx);
  Ret Refuse(Item item, uint8_t syndrome, uint32_t psn, uint8_t rule, bool qp_error);
  bool LengthValid(const sroce_resp_req& req, const OpInfo& op) const;
  // SEND/WRITE payload: First/Middle exactly one path MTU, Last/Only at
  // most one; a single-packet WRITE places exactly its RETH length.
  bool SendWriteLengthValid(const sroce_resp_req& req, const OpInfo& op) const {
    uint32_t len = req.payload_len;
    if (op.last ? len > pmtu_ : len != pmtu_) return false;
    if (!op.reth_len) return true;
    return op.last ? req.dma_len == len : req.dma_len > len && req.dma_len < kMaxMessage;
  }
  bool SequenceValid(const OpInfo& op) const { return (op.seq_ok >> in_msg_) & 1; }
  uint8_t AckCredits() const;
  void QueueAck(uint8_t rule);
  void CoverOwedAck();
  void QueueSimple(Item item, uint8_t syndrome, uint32_t psn, uint8_t rule);
  uint32_t ReadPackets(uint32_t len) const;
  void ReleaseResource(uint16_t idx);

  sroce_resp_params params_;
  sroce_resp_stats stats_;
  sroce_rd_res* res_;
  uint32_t nres_;
  uint32_t res_next_;    // ring slot the next READ/ATOMIC takes
  uint32_t pmtu_;
  uint32_t epsn_;        // expected PSN
  uint32_t msn_;         // C9-149
  uint32_t done_psn_;    // last PSN of the most recently completed new request
  uint32_t acked_psn_;   // done_psn_ as of the last response that acknowledged it
  uint32_t credits_;     // posted receive WQEs (non-SRQ)
  uint32_t last_ack_psn_;  // most recent positive ACK, for unsolicited ACKs
  uint32_t last_ack_msn_;
  uint8_t last_ack_credits_;
  bool last_ack_valid_;
  bool qp_error_;
  Latch latch_;
  InMessage in_msg_;
  // The READ packet pulled last, for sroce_resp_read_failed().
  bool read_pulled_;
  bool read_pulled_dup_;
  bool read_pulled_popped_;
  uint8_t read_pulled_kind_;  // its sroce_resp_kind: not sent after all
  uint32_t read_pulled_psn_;
  sroce_resp_req exec_req_;     // the request being executed
  const OpInfo* exec_op_;  // its kOpTable row while sroce_resp_executed() is owed, else null
  AckPolicy policy_;
  ResponseQueue queue_;
};

}  // namespace sroce

#endif  // SROCE_CORE_RESPONDER_H
