// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Response generation for an RC responder: which response each request is
// owed, with which PSN, MSN and AETH, and when.  Rule tags refer to
// spec/response-generation.md.
#include "responder.h"

#include "../../../include/sroce/psn.h"
#include "aeth.h"
#include "ret.h"
#include "enforce.h"

namespace sroce {
namespace {

// Room an Rx()/Executed() call may need in the queue: a NAK and a QP error.
constexpr uint32_t kRoomPerRequest = 2;

Ret Make(uint8_t action, uint8_t rule) {
  return MakeRet<Ret>(action, 0, rule);
}

// An EXECUTE of a request with this opcode: the flags are a kOpTable column.
Ret Execute(const OpInfo& op) {
  Ret r = Make(SROCE_ACT_EXECUTE, SROCE_RULE_NONE);
  r.exec = op.exec;
  return r;
}

uint8_t NakCodeFor(uint8_t status) {
  switch (status) {
    case SROCE_EXEC_REM_ACCESS:
      return SROCE_NAK_REM_ACCESS_ERR;
    case SROCE_EXEC_INVALID:
      return SROCE_NAK_INVALID_REQ;
    default:
      return SROCE_NAK_REM_OP_ERR;
  }
}

}  // namespace

void Responder::Init(const sroce_resp_params& p, sroce_rd_res* res, uint32_t nres) {
  params_ = p;
  params_.epsn &= SROCE_PSN_MASK;
  params_.min_rnr_timer &= SROCE_AETH_VALUE_MASK;
  stats_ = sroce_resp_stats{};
  res_ = nres ? res : nullptr;
  nres_ = res ? nres : 0;
  for (uint32_t i = 0; i < nres_; i++) res_[i] = sroce_rd_res{};
  res_next_ = 0;
  pmtu_ = ValidPmtu(p.pmtu);
  epsn_ = params_.epsn;
  msn_ = 0;
  // Nothing completed yet: a duplicate is answered with the PSN just
  // before the first expected one (stock rxe sends 0xFFFFFF here, F5).
  done_psn_ = sroce_psn_add(epsn_, SROCE_PSN_MASK);
  acked_psn_ = done_psn_;
  credits_ = 0;
  last_ack_psn_ = 0;
  last_ack_msn_ = 0;
  last_ack_credits_ = 0;
  last_ack_valid_ = false;
  qp_error_ = false;
  latch_ = Latch::kNone;
  in_msg_ = kInNone;
  read_pulled_ = false;
  read_pulled_dup_ = false;
  read_pulled_popped_ = false;
  read_pulled_psn_ = 0;
  exec_req_ = sroce_resp_req{};
  exec_op_ = nullptr;
  policy_.Reset(p.ack_coalesce_max, p.ack_span_max);
  queue_.Reset();
}

uint8_t Responder::Classify(uint32_t psn) const {
  int32_t d = sroce_psn_diff(psn & SROCE_PSN_MASK, epsn_);
  if (d == 0) return SROCE_PSN_NEW;
  return d > 0 ? SROCE_PSN_AHEAD : SROCE_PSN_DUPLICATE;
}

Ret Responder::Drop(uint8_t reason, uint8_t rule) {
  stats_.drops[reason]++;
  Ret r = Make(SROCE_ACT_DROP, rule);
  r.reason = reason;
  return r;
}

uint8_t Responder::AckCredits() const {
  // C9-150.2.1: non-SRQ QPs generate credits; o9-95.2.2: SRQ sends 11111.
  return params_.srq ? SROCE_AETH_CREDITS_INVALID : CreditCode(credits_);
}

void Responder::QueueSimple(Item item, uint8_t syndrome, uint32_t psn, uint8_t rule) {
  QueuedResponse q = {};
  q.item = item;
  q.syndrome = syndrome;
  q.psn = psn;
  q.msn = msn_;  // C9-149: valid in every AETH, NAKs included
  q.rule = rule;
  queue_.Push(q);
}

// C9-95: the ACK carries the PSN of the newest new request it covers.
void Responder::QueueAck(uint8_t rule) {
  uint8_t credits = AckCredits();
  stats_.acks_coalesced += policy_.Clear(true);
  acked_psn_ = done_psn_;
  QueueSimple(Item::kAck, AckSyndrome(credits), done_psn_, rule);
  last_ack_psn_ = done_psn_;
  last_ack_msn_ = msn_;
  last_ack_credits_ = credits;
  last_ack_valid_ = true;
}

// A response for a newer PSN is being queued: it acknowledges everything
// the owed ACK would have (9.7.5.1.2), so that ACK is coalesced away.
void Responder::CoverOwedAck() {
  stats_.acks_coalesced += policy_.Clear(false);
  acked_psn_ = done_psn_;
}

uint32_t Responder::ReadPackets(uint32_t len) const {
  // A zero-length READ still gets one (Only) response packet.  pmtu_ is
  // a power of two (ValidPmtu()): a shift, not a division.
  return len == 0 ? 1 : ((len - 1) >> __builtin_ctz(pmtu_)) + 1;
}

void Responder::ReleaseResource(uint16_t idx) {
  if (idx < nres_ && res_[idx].pending) res_[idx].pending--;
}

// Payload and DMA lengths (C9-121 on failure).
bool Responder::LengthValid(const sroce_resp_req& req, const OpInfo& op) const {
  uint32_t len = req.payload_len;
  switch (op.cls) {
    case OpClass::kSend:
    case OpClass::kWrite:
      return SendWriteLengthValid(req, op);
    case OpClass::kRead:
      return len == 0 && req.dma_len <= kMaxMessage;
    case OpClass::kAtomic:
      return len == 0;
    case OpClass::kReserved:
    case OpClass::kNotForResponder:
      break;
  }
  return false;
}

// A NAK-class answer to a new request.  The NAK covers every earlier
// request, so the owed ACK goes with it; class A/C errors then move the
// QP to the error state, raising the event of the NAK's class (IBA
// 11.6.3.1): an access violation for a remote access error, else
// catastrophic.  A queued QP error keeps its event where a NAK keeps its
// syndrome.
Ret Responder::Refuse(Item item, uint8_t syndrome, uint32_t psn, uint8_t rule, bool qp_error) {
  CoverOwedAck();
  QueueSimple(item, syndrome, psn, rule);
  if (qp_error) {
    QueueSimple(Item::kQpError,
                syndrome == NakSyndrome(SROCE_NAK_REM_ACCESS_ERR) ? SROCE_QP_EVENT_ACCESS
                                                                  : SROCE_QP_EVENT_FATAL,
                psn, rule);
    qp_error_ = true;
  }
  return Make(SROCE_ACT_RESPOND, rule);
}

// The common case first: a request with the expected PSN on a QP with
// nothing pending.  RxChecked() would find its PSN valid and new and go
// on to NewRequest(), so that is where it goes, with a valid SEND/WRITE
// executed inline.  Everything else takes the full classification.
Ret Responder::Rx(const sroce_resp_req& req) {
  const OpInfo& op = LookupOp(req.opcode);
  if (req.psn == epsn_ && req.verdict == SROCE_PSN_NEW && !exec_op_ && !qp_error_ &&
      queue_.HasRoom(kRoomPerRequest)) {
    if (op.SendOrWrite() && SequenceValid(op) && SendWriteLengthValid(req, op)) {
      latch_ = Latch::kNone;  // C9-114: the expected PSN clears the latch
      exec_req_.psn = req.psn;
      exec_req_.ackreq = req.ackreq;
      exec_op_ = &op;
      return Execute(op);
    }
    if (op.cls != OpClass::kNotForResponder) return NewRequest(req, op);
  }
  return RxChecked(req, op);
}

Ret Responder::RxChecked(const sroce_resp_req& req, const OpInfo& op) {
  if (!sroce_psn_valid(req.psn)) return Drop(SROCE_DROP_BAD_PSN, SROCE_RULE_NONE);
  if (qp_error_) return Drop(SROCE_DROP_QP_ERROR, SROCE_RULE_NONE);
  if (exec_op_ || !queue_.HasRoom(kRoomPerRequest))
    return Drop(SROCE_DROP_BUSY, SROCE_RULE_NONE);
  if (op.cls == OpClass::kNotForResponder) return Drop(SROCE_DROP_BAD_OPCODE, SROCE_RULE_NONE);
  uint8_t verdict = Classify(req.psn);
  if (req.verdict != verdict) return Drop(SROCE_DROP_BAD_VERDICT, SROCE_RULE_NONE);

  if (verdict == SROCE_PSN_DUPLICATE) return Duplicate(req, op);

  if (verdict == SROCE_PSN_AHEAD) {
    // C9-114, C9-122: one sequence NAK per episode, then silence until
    // the expected PSN arrives.  An RNR NAK latches too: the packets in
    // flight behind the refused one must not draw a sequence NAK (F1).
    if (latch_ != Latch::kNone) return Drop(SROCE_DROP_NAK_LATCHED, SROCE_RULE_C9_114);
    latch_ = Latch::kSequence;
    stats_.seq_episodes++;
    // C9-111: the sequence NAK carries the expected PSN.  No receive WQE
    // is consumed: nothing is executed.
    Refuse(Item::kNak, NakSyndrome(SROCE_NAK_PSN_SEQ_ERR), epsn_, SROCE_RULE_C9_111, false);
    return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_114);
  }
  return NewRequest(req, op);
}

// A request with the expected PSN.
Ret Responder::NewRequest(const sroce_resp_req& req, const OpInfo& op) {
  // The expected PSN clears the latch (C9-114).
  latch_ = Latch::kNone;
  // C9-121: an invalid request is NAKed with the expected PSN.
  if (!SequenceValid(op) || !LengthValid(req, op))
    return Refuse(Item::kNak, NakSyndrome(SROCE_NAK_INVALID_REQ), epsn_, SROCE_RULE_C9_121, true);
  if (op.cls == OpClass::kRead || op.cls == OpClass::kAtomic) {
    // No resources at all, or more READ/ATOMICs outstanding than
    // max_dest_rd_atomic: the slot to reuse still has responses queued.
    if (nres_ == 0 || res_[res_next_].pending)
      return Refuse(Item::kNak, NakSyndrome(SROCE_NAK_INVALID_REQ), epsn_, SROCE_RULE_C9_121,
                    true);
    exec_req_ = req;
  } else {
    exec_req_.psn = req.psn;
    exec_req_.ackreq = req.ackreq;
  }
  exec_op_ = &op;
  return Execute(op);
}

// C9-103: nothing here moves epsn_.
Ret Responder::Duplicate(const sroce_resp_req& req, const OpInfo& op) {
  if (op.SendOrWrite()) {
    // C9-105: not executed again; ACK with the PSN of the most recently
    // completed new request.  A go-back-N burst of duplicates is
    // answered by one ACK at the end of the batch, not one per packet.
    stats_.dup_send_write++;
    if (policy_.OnDuplicate()) {
      QueueAck(SROCE_RULE_C9_105);
      return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_105);
    }
    return Make(SROCE_ACT_HOLD, SROCE_RULE_C9_105);
  }
  switch (op.cls) {
    case OpClass::kRead:
      stats_.dup_read++;
      return DuplicateRead(req);
    case OpClass::kAtomic:
      stats_.dup_atomic++;
      return DuplicateAtomic(req);
    case OpClass::kSend:
    case OpClass::kWrite:  // above
    case OpClass::kReserved:
    case OpClass::kNotForResponder:
      break;
  }
  // C9-106: never NAK while answering a duplicate.
  return Drop(SROCE_DROP_DUP_ERROR, SROCE_RULE_C9_106);
}

// A duplicate's answer @q from resource @i, queued in arrival order (C9-104).
Ret Responder::QueueDuplicate(QueuedResponse& q, uint32_t i, uint8_t rule) {
  q.res = static_cast<uint16_t>(i);
  q.dup = true;
  q.rule = rule;
  res_[i].pending++;
  queue_.Push(q);
  return Make(SROCE_ACT_RESPOND, rule);
}

// C9-107: a duplicate READ is executed again from its own PSN, within the
// PSN range and memory range the resource remembers.
Ret Responder::DuplicateRead(const sroce_resp_req& req) {
  for (uint32_t i = 0; i < nres_; i++) {
    const sroce_rd_res& r = res_[i];
    if (r.kind != kResRead) continue;
    int32_t off_pkts = sroce_psn_diff(req.psn, r.first_psn);
    if (off_pkts < 0 || sroce_psn_diff(r.last_psn, req.psn) < 0) continue;
    // Found.  Anything inconsistent with it is an error answering a
    // duplicate: drop it (C9-106).
    uint64_t off = static_cast<uint64_t>(off_pkts) * pmtu_;
    uint64_t end = req.va + req.dma_len;
    if (req.payload_len != 0 || req.rkey != r.rkey || req.va != r.va + off ||
        end < req.va || end > r.va + r.length)
      return Drop(SROCE_DROP_DUP_ERROR, SROCE_RULE_C9_106);
    if (sroce_psn_diff(sroce_psn_add(req.psn, ReadPackets(req.dma_len) - 1), r.last_psn) > 0)
      return Drop(SROCE_DROP_DUP_ERROR, SROCE_RULE_C9_106);
    QueuedResponse q = {};
    q.item = Item::kRead;
    q.psn = req.psn;
    q.va = req.va;
    q.remaining = req.dma_len;
    q.rkey = req.rkey;
    q.msn = msn_;  // a duplicate never moves the MSN (C9-149)
    q.msn_last = msn_;
    return QueueDuplicate(q, i, SROCE_RULE_C9_107);
  }
  return Drop(SROCE_DROP_DUP_NO_RESOURCE, SROCE_RULE_C9_106);
}

// o9-66: the saved original value goes back, the ATOMIC is not executed
// again; o9-67: no saved result for this PSN, drop.
Ret Responder::DuplicateAtomic(const sroce_resp_req& req) {
  for (uint32_t i = 0; i < nres_; i++) {
    const sroce_rd_res& r = res_[i];
    if (r.kind != kResAtomic || !r.has_result || r.first_psn != req.psn) continue;
    QueuedResponse q = {};
    q.item = Item::kAtomicAck;
    q.psn = req.psn;
    q.msn = msn_;
    q.atomic_orig = r.atomic_orig;
    q.syndrome = AckSyndrome(AckCredits());
    return QueueDuplicate(q, i, SROCE_RULE_O9_66);
  }
  return Drop(SROCE_DROP_DUP_NO_RESOURCE, SROCE_RULE_O9_67);
}

Ret Responder::Executed(const sroce_exec& ex) {
  if (!exec_op_) return Drop(SROCE_DROP_NOT_EXPECTED, SROCE_RULE_NONE);
  const OpInfo& op = *exec_op_;
  exec_op_ = nullptr;
  if (ex.status == SROCE_EXEC_OK && op.SendOrWrite()) return SendWriteDone(op);
  switch (ex.status) {
    case SROCE_EXEC_OK:
      return ExecutedOk(op, ex);
    case SROCE_EXEC_RNR:
      if (op.needs_wqe) {
        // C9-113: RNR NAK with the refused request's PSN.  The expected
        // PSN stays, and the latch keeps the in-flight packets behind it
        // from drawing a sequence NAK (C9-114; stock rxe's F1).
        latch_ = Latch::kRnr;
        return Refuse(Item::kRnrNak, RnrSyndrome(params_.min_rnr_timer), exec_req_.psn,
                      SROCE_RULE_C9_113, false);
      }
      break;  // nothing to be "not ready" for: a remote operational error
    case SROCE_EXEC_REM_ACCESS:
      // C9-124: the offending request's PSN.
      return Refuse(Item::kNak, NakSyndrome(SROCE_NAK_REM_ACCESS_ERR), exec_req_.psn,
                    SROCE_RULE_C9_124, true);
    case SROCE_EXEC_INVALID:
      // C9-121: the expected PSN, which is this request's.
      return Refuse(Item::kNak, NakSyndrome(SROCE_NAK_INVALID_REQ), epsn_, SROCE_RULE_C9_121,
                    true);
    default:
      break;
  }
  // C9-125: remote operational error, expected PSN.
  return Refuse(Item::kNak, NakSyndrome(NakCodeFor(ex.status)), epsn_, SROCE_RULE_C9_125, true);
}

// Takes the next resource slot for a new READ/ATOMIC (Rx() checked it is
// not still answering an older request), cleared.
sroce_rd_res& Responder::TakeResource(uint16_t* idx) {
  uint32_t i = res_next_;  // < nres_
  res_next_ = i + 1 == nres_ ? 0 : i + 1;
  *idx = static_cast<uint16_t>(i);
  sroce_rd_res& r = res_[i];
  r = sroce_rd_res{};
  return r;
}

Ret Responder::ExecutedOk(const OpInfo& op, const sroce_exec& ex) {
  // Copies: res_ is caller storage, and every store to it would reload
  // exec_req_.
  const uint32_t psn = exec_req_.psn;
  const uint64_t va = exec_req_.va;
  const uint32_t rkey = exec_req_.rkey;
  QueuedResponse q = {};
  q.psn = psn;

  switch (op.cls) {
    case OpClass::kRead: {
      const uint32_t len = exec_req_.dma_len;
      const uint32_t last_psn = sroce_psn_add(psn, ReadPackets(len) - 1);
      uint16_t idx;
      sroce_rd_res& r = TakeResource(&idx);
      r.kind = kResRead;
      r.va = va;
      r.rkey = rkey;
      r.length = len;
      r.first_psn = psn;
      r.last_psn = last_psn;
      r.pending = 1;
      // The requester reserved one PSN per response packet (C9-96).
      epsn_ = sroce_psn_add(last_psn, 1);
      done_psn_ = last_psn;
      // C9-97: First/Only acknowledges every earlier SEND/WRITE.
      CoverOwedAck();
      q.item = Item::kRead;
      q.va = va;
      q.remaining = len;
      q.rkey = rkey;
      q.res = idx;
      q.rule = SROCE_RULE_C9_96;
      // C9-148: the MSN counts the READ once its data is out (Last/Only
      // carries it), or already on First when read_msn_at_first is set.
      uint32_t msn = msn_;
      msn_ = sroce_psn_add(msn, 1);
      q.msn_last = msn_;
      q.msn = params_.read_msn_at_first ? msn_ : msn;
      queue_.Push(q);
      return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_96);
    }
    case OpClass::kAtomic: {
      uint16_t idx;
      sroce_rd_res& r = TakeResource(&idx);
      r.kind = kResAtomic;
      r.va = va;
      r.rkey = rkey;
      r.first_psn = psn;
      r.last_psn = psn;
      r.atomic_orig = ex.atomic_orig;  // saved for o9-66
      r.has_result = 1;
      r.pending = 1;
      epsn_ = sroce_psn_add(psn, 1);
      done_psn_ = psn;
      msn_ = sroce_psn_add(msn_, 1);
      // The ATOMIC ACK acknowledges every earlier SEND/WRITE too.
      CoverOwedAck();
      // o9-58: an ATOMIC ACK carries the request's PSN.
      q.item = Item::kAtomicAck;
      q.msn = msn_;
      q.atomic_orig = ex.atomic_orig;
      q.syndrome = AckSyndrome(AckCredits());
      q.res = idx;
      q.rule = SROCE_RULE_O9_58;
      queue_.Push(q);
      return Make(SROCE_ACT_RESPOND, SROCE_RULE_O9_58);
    }
    case OpClass::kSend:
    case OpClass::kWrite:
      return SendWriteDone(op);
    case OpClass::kReserved:
    case OpClass::kNotForResponder:
      break;
  }
  return Make(SROCE_ACT_HOLD, SROCE_RULE_NONE);  // Rx() never executes these
}

// A SEND or WRITE packet was placed.
inline Ret Responder::SendWriteDone(const OpInfo& op) {
  uint32_t psn = exec_req_.psn;
  epsn_ = sroce_psn_add(psn, 1);
  done_psn_ = psn;
  credits_ -= op.needs_wqe && credits_;
  msn_ = sroce_psn_add(msn_, op.last);  // C9-149: one per completed message
  in_msg_ = op.after;
  if (!exec_req_.ackreq) return Make(SROCE_ACT_HOLD, SROCE_RULE_C9_116);
  // C9-116: scheduled now, or at the end of this RX batch.
  if (policy_.OnAckReqCompleted(psn, acked_psn_)) {
    QueueAck(SROCE_RULE_C9_95);
    return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_95);
  }
  return Make(SROCE_ACT_HOLD, SROCE_RULE_C9_116);
}

Ret Responder::BatchEnd() {
  if (!policy_.OnBatchEnd()) return Make(SROCE_ACT_HOLD, SROCE_RULE_NONE);
  if (qp_error_) {
    policy_.Clear(false);
    return Make(SROCE_ACT_HOLD, SROCE_RULE_NONE);
  }
  if (queue_.Room() == 0) return Drop(SROCE_DROP_BUSY, SROCE_RULE_C9_116);
  // C9-116: every AckReq'd request of this batch is covered now.  Queued
  // behind any READ response still going out (C9-101).
  QueueAck(SROCE_RULE_C9_116);
  return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_116);
}

// Unsolicited ACK (9.7.7.2): re-send the most recent positive ACK with the
// new credit count when the requester was told it had none.  Never made
// from a NAK: not during a NAK episode, not in the error state.
Ret Responder::SetCredits(uint32_t posted) {
  credits_ = posted;
  if (params_.srq || qp_error_ || !last_ack_valid_ || latch_ != Latch::kNone ||
      policy_.Owed() || !queue_.Empty() || last_ack_credits_ != 0)
    return Make(SROCE_ACT_HOLD, SROCE_RULE_NONE);
  uint8_t code = CreditCode(posted);
  if (code == 0) return Make(SROCE_ACT_HOLD, SROCE_RULE_NONE);
  QueueSimple(Item::kAck, AckSyndrome(code), last_ack_psn_, SROCE_RULE_C9_150_2_1);
  queue_.Front().msn = last_ack_msn_;
  last_ack_credits_ = code;
  stats_.unsolicited_acks++;
  return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_150_2_1);
}

bool Responder::Pull(sroce_resp_desc* d) {
  *d = sroce_resp_desc{};
  read_pulled_ = false;
  if (queue_.Empty()) return false;
  QueuedResponse& q = queue_.Front();
  d->psn = q.psn;
  d->msn = q.msn;
  d->rule = q.rule;
  d->syndrome = q.syndrome;
  d->has_aeth = 1;
  d->opcode = SROCE_OP_ACKNOWLEDGE;  // C9-113: every NAK is an Acknowledge
  switch (q.item) {
    case Item::kAck:
      d->kind = SROCE_RESP_ACK;
      break;
    case Item::kNak:
      d->kind = SROCE_RESP_NAK;
      if ((q.syndrome & SROCE_AETH_VALUE_MASK) < SROCE_NAK_CODE_COUNT)
        stats_.naks[q.syndrome & SROCE_AETH_VALUE_MASK]++;
      break;
    case Item::kRnrNak:
      d->kind = SROCE_RESP_RNR_NAK;
      break;
    case Item::kQpError:
      d->kind = SROCE_RESP_QP_ERROR;
      d->opcode = 0;
      d->has_aeth = 0;
      d->qp_event = q.syndrome;
      d->syndrome = 0;
      break;
    case Item::kAtomicAck:
      d->kind = SROCE_RESP_ATOMIC_ACK;
      d->opcode = SROCE_OP_ATOMIC_ACKNOWLEDGE;
      d->atomic_orig = q.atomic_orig;
      ReleaseResource(q.res);
      break;
    case Item::kRead: {
      // C9-96: request PSN, +1 per packet; C9-97/98: AETH on First and
      // Last/Only, none on Middle.
      bool first = !q.started;
      bool last = q.remaining <= pmtu_;
      uint32_t len = last ? q.remaining : pmtu_;
      d->va = q.va;
      d->rkey = q.rkey;
      d->length = len;
      d->has_aeth = first || last;
      d->syndrome = d->has_aeth ? AckSyndrome(AckCredits()) : 0;
      d->msn = last ? q.msn_last : (first ? q.msn : 0);
      if (first && last) {
        d->kind = SROCE_RESP_READ_ONLY;
        d->opcode = SROCE_OP_READ_RESP_ONLY;
      } else if (first) {
        d->kind = SROCE_RESP_READ_FIRST;
        d->opcode = SROCE_OP_READ_RESP_FIRST;
      } else if (last) {
        d->kind = SROCE_RESP_READ_LAST;
        d->opcode = SROCE_OP_READ_RESP_LAST;
      } else {
        d->kind = SROCE_RESP_READ_MIDDLE;
        d->opcode = SROCE_OP_READ_RESP_MIDDLE;
      }
      if (!q.dup) d->rule = first ? SROCE_RULE_C9_97 : (last ? SROCE_RULE_C9_98 : SROCE_RULE_C9_96);
      read_pulled_ = true;
      read_pulled_dup_ = q.dup;
      read_pulled_popped_ = last;
      read_pulled_psn_ = q.psn;
      read_pulled_kind_ = d->kind;
      q.started = true;
      q.psn = sroce_psn_add(q.psn, 1);
      q.va += len;
      q.remaining -= len;
      stats_.sent[d->kind]++;
      if (!last) return true;
      ReleaseResource(q.res);
      break;
    }
  }
  if (q.item != Item::kRead) stats_.sent[d->kind]++;
  queue_.Pop();
  return true;
}

// C9-100, C9-112: a READ that fails part-way sends none of the bad data;
// the packet that would have carried it becomes a NAK with its own PSN.
Ret Responder::ReadFailed(uint8_t status) {
  if (!read_pulled_) return Drop(SROCE_DROP_NOT_EXPECTED, SROCE_RULE_NONE);
  read_pulled_ = false;
  // A response is counted when it is sent: this one never was.
  stats_.sent[read_pulled_kind_]--;
  if (!read_pulled_popped_) {
    ReleaseResource(queue_.Front().res);
    queue_.Pop();
  }
  // C9-106, C9-115: an error answering a duplicate is never NAKed.
  if (read_pulled_dup_) return Drop(SROCE_DROP_DUP_ERROR, SROCE_RULE_C9_106);
  // The QP goes to the error state: nothing queued behind the READ may
  // still go out.
  queue_.ForEach([this](QueuedResponse& q) {
    if (q.item == Item::kRead || q.item == Item::kAtomicAck) ReleaseResource(q.res);
  });
  queue_.Reset();
  policy_.Clear(false);
  uint8_t code = status == SROCE_EXEC_REM_ACCESS ? SROCE_NAK_REM_ACCESS_ERR : SROCE_NAK_REM_OP_ERR;
  QueueSimple(Item::kNak, NakSyndrome(code), read_pulled_psn_, SROCE_RULE_C9_100);
  // The READ's memory can no longer be read: an access violation.
  QueueSimple(Item::kQpError, SROCE_QP_EVENT_ACCESS, read_pulled_psn_, SROCE_RULE_C9_100);
  qp_error_ = true;
  return Make(SROCE_ACT_RESPOND, SROCE_RULE_C9_100);
}

}  // namespace sroce
