// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The RC completer: what each response packet means for the send queue
// (acknowledgements, implied NAKs, READ data, ATOMIC results, NAKs), the
// go-back-N restart point, retry accounting and the retransmit timer.
// Rule tags are IBA Vol 1 sections (enum sroce_sq_rule).
//
// Invariants:
//   - acked_psn_ only moves forward, so no WQE completes twice;
//   - WQEs complete in send queue order;
//   - a restart point is never behind acked_psn_ + 1, and one episode
//     (one restart point without progress) restarts the requester once,
//     however many NAKs or broken READ responses announce it.
#include "send_queue.h"

#include "aeth.h"
#include "enforce.h"

namespace sroce {
namespace {

uint8_t StatusForNak(uint8_t code) {
  switch (code) {
    case SROCE_NAK_INVALID_REQ:
      return SROCE_WC_REM_INV_REQ_ERR;
    case SROCE_NAK_REM_ACCESS_ERR:
      return SROCE_WC_REM_ACCESS_ERR;
    default:
      return SROCE_WC_REM_OP_ERR;
  }
}

uint32_t ByteLen(const sroce_sq_wqe& w) {
  return w.op == SROCE_WR_CMP_SWAP || w.op == SROCE_WR_FETCH_ADD ? 8 : w.length;
}

}  // namespace

SqRet SendQueue::Drop(uint8_t reason, uint8_t rule) {
  stats_.drops[reason]++;
  return Make(SROCE_SQ_DROP, reason, rule);
}

SqRet SendQueue::Accept(uint8_t rule) { return Make(SROCE_SQ_ACCEPT, SROCE_CDROP_NONE, rule); }

// The started WQE whose PSN span holds @psn, or sent_ if none does.
uint32_t SendQueue::Find(uint32_t psn) const {
  for (uint32_t pos = una_; pos != sent_; pos++)
    if (Contains(At(pos), psn)) return pos;
  return sent_;
}

// The WQE at una_ completes with @status.
inline __attribute__((always_inline)) void SendQueue::Retire(uint32_t pos, uint8_t status, uint8_t rule) {
  sroce_sq_wqe& w = At(pos);
  if (IsReadAtomic(w.op) && w.state == kWqeStarted && rd_outstanding_) rd_outstanding_--;
  w.state = kWqeDone;
  w.status = status;
  w.rule = rule;
  stats_.completions[status]++;
  una_ = pos + 1;
  if (cur_.pos == pos) {
    cur_ = Cursor{una_, una_ == sent_ ? next_psn_ : At(una_).first_psn, 0};
    SkipLocal();
  }
}

// local-op: the local operations carried out behind the WQE that just
// completed complete too, in order, once everything before them has.
__attribute__((noinline, cold)) void SendQueue::RetireLocals(uint8_t status) {
  if (status != SROCE_WC_SUCCESS) return;  // Fail() flushes them
  while (una_ != sent_ && At(una_).state == kWqeLocalDone) {
    local_done_--;
    Retire(una_, SROCE_WC_SUCCESS, SROCE_SQR_LOCAL_OP);
  }
}

void SendQueue::Complete(uint32_t pos, uint8_t status, uint8_t rule) {
  Retire(pos, status, rule);
  if (local_done_) RetireLocals(status);
}

// 10.10.2: the WQE at @pos (the oldest incomplete one) fails; the QP goes
// to Error and every later WQE is flushed.
void SendQueue::Fail(uint32_t pos, uint8_t status, uint8_t rule) {
  Complete(pos, status, rule);
  At(pos).qp_error = 1;
  error_ = true;
  Flush();
}

// 10.10.2: in Error every WQE not complete completes WR_FLUSH_ERR, posted
// or in flight, and the timers stop mattering.
void SendQueue::Flush() {
  error_ = true;
  probing_ = false;
  undo_valid_ = false;
  placing_ = false;
  rnr_wait_ = false;
  local_pending_ = false;
  local_done_ = 0;
  for (uint32_t pos = una_; pos != prod_; pos++) {
    sroce_sq_wqe& w = At(pos);
    w.state = kWqeDone;
    w.status = SROCE_WC_WR_FLUSH_ERR;
    w.rule = SROCE_SQR_FLUSH;
    w.qp_error = 0;
    stats_.completions[SROCE_WC_WR_FLUSH_ERR]++;
  }
  una_ = sent_ = prod_;
  cur_ = Cursor{prod_, next_psn_, 0};
  rd_outstanding_ = 0;
}

bool SendQueue::Pull(sroce_sq_cqe* c) {
  if (retire_ == una_) return false;
  const sroce_sq_wqe& w = At(retire_);
  *c = sroce_sq_cqe{};
  c->wqe = retire_;
  c->status = w.status;
  c->op = w.op;
  c->byte_len = w.status == SROCE_WC_SUCCESS ? ByteLen(w) : 0;
  c->signaled = w.status != SROCE_WC_SUCCESS || (w.flags & SROCE_WF_SIGNALED);
  c->qp_error = w.qp_error;
  c->rule = w.rule;
  retire_++;
  // A completion pulled is final: the packet that completed a UC or UD
  // WQE on its way out can no longer be taken back (Unsend()).
  undo_valid_ = false;
  return true;
}

// 9.7.5.1.2: acknowledge every PSN up to @psn.  SEND and WRITE WQEs it
// covers complete.  A READ or ATOMIC it reaches whose response has not
// come is an implied NAK: acknowledgement stops before its unanswered
// part, *implied is set to it and false is returned.
bool SendQueue::AckUpTo(uint32_t psn, uint8_t rule, uint32_t* implied) {
  bool moved = false;
  while (una_ != sent_) {
    sroce_sq_wqe& w = At(una_);
    if (w.state >= kWqeLocalDone) {  // one compare, off the common path
      if (w.state != kWqeLocalDone) break;  // failed: Progress() fails it
      // local-op: carried out, and everything before it is complete.
      local_done_--;
      Retire(una_, SROCE_WC_SUCCESS, SROCE_SQR_LOCAL_OP);
      continue;
    }
    if (sroce_psn_diff(psn, w.first_psn) < 0) break;
    if (IsReadAtomic(w.op)) {
      *implied = sroce_psn_add(acked_psn_, 1);
      if (sroce_psn_diff(*implied, w.first_psn) < 0) {
        acked_psn_ = sroce_psn_add(w.first_psn, SROCE_PSN_MASK);
        *implied = w.first_psn;
        moved = true;
      }
      if (moved) Progress();
      return false;
    }
    uint32_t last = LastPsn(w);
    if (sroce_psn_diff(psn, last) < 0) {  // part of a multi-packet message
      if (sroce_psn_diff(psn, acked_psn_) > 0) {
        acked_psn_ = psn;
        moved = true;
      }
      break;
    }
    if (sroce_psn_diff(last, acked_psn_) > 0) acked_psn_ = last;
    moved = true;
    Retire(una_, SROCE_WC_SUCCESS, rule);
  }
  if (moved) Progress();
  return true;
}

// Progress: the retry counters start over (9.7.6.1), the episode is over,
// and a WQE that failed locally completes once it is the oldest.
void SendQueue::Progress() {
  stats_.acks++;
  progressed_ = true;
  probing_ = false;
  retry_left_ = params_.retry_cnt;
  rnr_left_ = params_.rnr_retry;
  retry_valid_ = false;
  if (una_ != sent_ && At(una_).state == kWqeFailed) {
    // Its rule: the local error, or the operation, that failed it.
    Fail(una_, At(una_).status, At(una_).rule ? At(una_).rule : static_cast<uint8_t>(SROCE_SQR_LOCAL_ERR));
    return;
  }
  // A requester rewound behind what is now acknowledged resumes after it.
  if (una_ != sent_ && sroce_psn_diff(cur_.psn, sroce_psn_add(acked_psn_, 1)) < 0)
    Rewind(sroce_psn_add(acked_psn_, 1));
}

// 9.7.7.2: an ACK's credits let WQE-consuming messages go up to SSN
// MSN + credits (one more may always go, as a probe).
void SendQueue::UpdateCredits(const sroce_comp_pkt& r) {
  if (sroce_aeth_kind_of(r.syndrome) != SROCE_AETH_ACK) return;
  uint8_t code = r.syndrome & SROCE_AETH_VALUE_MASK;
  if (code == SROCE_AETH_CREDITS_INVALID) {
    credits_unlimited_ = true;
    return;
  }
  credits_unlimited_ = false;
  uint32_t lsn = sroce_psn_add(r.msn & SROCE_PSN_MASK, kCreditTable[code]);
  if (sroce_psn_diff(lsn, lsn_) > 0) lsn_ = lsn;
}

// Point the requester at @psn: the WQE that holds it and the offset of
// that packet.  A READ is asked for again from there.  False if @psn is
// not in a started WQE.
bool SendQueue::Rewind(uint32_t psn) {
  uint32_t pos = Find(psn);
  resp_due_ = false;  // what was asked for may be lost: the resend asks again
  if (pos == sent_) {
    if (psn != next_psn_) return false;
    cur_ = Cursor{sent_, next_psn_, 0};
    return true;
  }
  const sroce_sq_wqe& w = At(pos);
  uint32_t k = static_cast<uint32_t>(sroce_psn_diff(psn, w.first_psn));
  cur_ = Cursor{pos, psn, IsReadAtomic(w.op) && w.op != SROCE_WR_READ ? 0 : k * pmtu_};
  return true;
}

// Go-back-N from @psn, once per episode.
SqRet SendQueue::GoBack(uint32_t psn, uint8_t rule, bool count_retry) {
  if (retry_valid_ && retry_psn_ == psn) return Drop(SROCE_CDROP_STALE_NAK, rule);
  if (count_retry) {
    if (retry_left_ == 0) {  // 9.7.6.1: retries exhausted
      Fail(una_, SROCE_WC_RETRY_EXC_ERR, SROCE_SQR_RETRY_CNT);
      return Accept(SROCE_SQR_RETRY_CNT);
    }
    retry_left_--;
  }
  if (!Rewind(psn)) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
  retry_psn_ = psn;
  retry_valid_ = true;
  progressed_ = true;  // a retransmission starts now
  return Accept(rule);
}

SqRet SendQueue::RxAck(const sroce_comp_pkt& r) {
  if (sroce_psn_diff(r.psn, acked_psn_) <= 0) {
    // Already applied; it may still carry new credits (an unsolicited ACK).
    uint32_t lsn = lsn_;
    bool unl = credits_unlimited_;
    UpdateCredits(r);
    if (lsn != lsn_ || unl != credits_unlimited_) return Accept(SROCE_SQR_CREDITS);
    return Drop(SROCE_CDROP_DUPLICATE, SROCE_SQR_ACK);
  }
  // 9.7.6.1: an ACK for a PSN never sent answers nothing.
  if (sroce_psn_diff(r.psn, next_psn_) >= 0) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
  UpdateCredits(r);
  uint32_t implied = 0;
  if (!AckUpTo(r.psn, SROCE_SQR_ACK, &implied)) {
    // 9.7.5.1.2 rule 1: an ACK beyond an unanswered READ/ATOMIC is a NAK for it.
    stats_.implied_naks++;
    return GoBack(implied, SROCE_SQR_IMPLIED_NAK, true);
  }
  return Accept(SROCE_SQR_ACK);
}

SqRet SendQueue::RxNak(const sroce_comp_pkt& r) {
  uint8_t kind = sroce_aeth_kind_of(r.syndrome);
  uint8_t code = r.syndrome & SROCE_AETH_VALUE_MASK;
  if (kind == SROCE_AETH_NAK && code >= SROCE_NAK_CODE_COUNT)
    return Drop(SROCE_CDROP_RESERVED, SROCE_SQR_FATAL_NAK);
  // A NAK names the first PSN not done; it acknowledges everything before.
  if (sroce_psn_diff(r.psn, acked_psn_) <= 0 || sroce_psn_diff(r.psn, next_psn_) >= 0 ||
      una_ == sent_)
    return Drop(sroce_psn_diff(r.psn, acked_psn_) <= 0 ? SROCE_CDROP_STALE_NAK : SROCE_CDROP_GHOST,
                SROCE_SQR_GHOST);
  uint32_t implied = 0;
  uint32_t before = sroce_psn_add(r.psn, SROCE_PSN_MASK);
  bool whole = sroce_psn_diff(before, acked_psn_) <= 0 || AckUpTo(before, SROCE_SQR_ACK, &implied);
  // Its implied ACK may have reached a WQE that failed locally behind the
  // ones it acknowledged (10.10.2: the ACK completes them, then that one
  // fails and the QP flushes): nothing is left to resend or fail, and
  // failing the WQE at una_ would complete one never posted.
  if (error_ || una_ == sent_) return Accept(SROCE_SQR_ACK);
  if (kind == SROCE_AETH_RNR_NAK) {
    // 9.7.5.1.5: wait the NAK's timer, then resend from its PSN (9.7.6.1:
    // rnr_retry times, 7 forever).
    stats_.rnr_naks++;
    uint32_t at = whole ? r.psn : implied;
    if (params_.rnr_retry != 7) {
      if (rnr_left_ == 0) {
        Fail(una_, SROCE_WC_RNR_RETRY_EXC_ERR, SROCE_SQR_RNR_RETRY);
        return Accept(SROCE_SQR_RNR_RETRY);
      }
      rnr_left_--;
    }
    if (!Rewind(at)) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
    stats_.rnr_waits++;
    rnr_wait_ = true;
    rnr_psn_ = at;
    rnr_code_ = code;
    retry_valid_ = false;
    SqRet ret = Accept(SROCE_SQR_RNR_NAK);
    ret.timer = SROCE_TMR_RNR;
    ret.rnr_code = code;
    timer_running_ = false;
    return ret;
  }
  if (code == SROCE_NAK_PSN_SEQ_ERR) {
    stats_.seq_naks++;
    // A responder that refused a packet with an RNR NAK may NAK the rest of
    // the message for that PSN (stock rxe does): the RNR wait already
    // resends from there.
    if (rnr_wait_ && whole && r.psn == rnr_psn_)
      return Drop(SROCE_CDROP_STALE_NAK, SROCE_SQR_SEQ_NAK);
    if (!whole) {
      stats_.implied_naks++;
      return GoBack(implied, SROCE_SQR_IMPLIED_NAK, true);
    }
    return GoBack(r.psn, SROCE_SQR_SEQ_NAK, true);
  }
  // 9.7.5.2: invalid request, remote access and remote operational errors
  // complete the WQE they name with the matching status.
  stats_.fatal_naks[code]++;
  uint32_t pos = Find(r.psn);
  if (!whole || pos != una_) pos = una_;
  Fail(pos, StatusForNak(code), SROCE_SQR_FATAL_NAK);
  return Accept(SROCE_SQR_FATAL_NAK);
}

// READ response packets and ATOMIC ACKs (9.7.5.1.3).
SqRet SendQueue::RxData(const sroce_comp_pkt& r, sroce_comp_place* place) {
  if (sroce_psn_diff(r.psn, acked_psn_) <= 0)
    return Drop(SROCE_CDROP_DUPLICATE, SROCE_SQR_READ_RESP);
  uint32_t pos = Find(r.psn);
  if (pos == sent_) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
  const sroce_sq_wqe& w = At(pos);
  bool atomic_ack = r.opcode == SROCE_OP_ATOMIC_ACKNOWLEDGE;
  bool read = w.op == SROCE_WR_READ;
  if (atomic_ack ? w.op != SROCE_WR_CMP_SWAP && w.op != SROCE_WR_FETCH_ADD : !read)
    return Drop(SROCE_CDROP_BAD_OPCODE, SROCE_SQR_READ_RESP);
  bool has_aeth = r.opcode != SROCE_OP_READ_RESP_MIDDLE;
  if (has_aeth && sroce_aeth_kind_of(r.syndrome) != SROCE_AETH_ACK)
    return Drop(SROCE_CDROP_RESERVED, SROCE_SQR_READ_RESP);
  bool starts = r.opcode == SROCE_OP_READ_RESP_FIRST || r.opcode == SROCE_OP_READ_RESP_ONLY ||
                atomic_ack;
  uint32_t next = sroce_psn_add(acked_psn_, 1);
  if (r.psn != next) {
    // Only a response that starts its WQE's answer may skip ahead: it
    // implies an ACK for the SEND/WRITEs before it.  Anything else means
    // response packets were lost: go back to the first one missing.
    bool implied_ok = starts && r.psn == w.first_psn;
    for (uint32_t p = una_; implied_ok && p != pos; p++) implied_ok = !IsReadAtomic(At(p).op);
    if (!implied_ok) {
      // The packet is dropped either way; the first one of an episode
      // also restarts the requester at the first missing PSN.
      if (retry_valid_ && retry_psn_ == next) return Drop(SROCE_CDROP_READ_GAP, SROCE_SQR_READ_RESP);
      stats_.drops[SROCE_CDROP_READ_GAP]++;
      SqRet g = GoBack(next, SROCE_SQR_READ_RESP, true);
      g.reason = SROCE_CDROP_READ_GAP;
      TimerAfter(&g);
      return g;
    }
  }
  uint32_t k = static_cast<uint32_t>(sroce_psn_diff(r.psn, w.first_psn));
  uint32_t off = k * pmtu_;
  if (read) {
    uint32_t left = w.length - (off < w.length ? off : w.length);
    bool ends = r.opcode == SROCE_OP_READ_RESP_LAST || r.opcode == SROCE_OP_READ_RESP_ONLY;
    bool fits = ends ? r.payload_len == left && left <= pmtu_
                     : r.payload_len == pmtu_ && left > pmtu_;
    if (r.psn == w.first_psn && !starts) fits = false;
    if (!fits) return Drop(SROCE_CDROP_BAD_LENGTH, SROCE_SQR_READ_RESP);
  }
  if (has_aeth) UpdateCredits(r);
  placing_ = true;
  place_opcode_ = r.opcode;
  place_pos_ = pos;
  place_psn_ = r.psn;
  *place = sroce_comp_place{};
  place->wqe = pos;
  place->offset = read ? off : 0;
  place->length = read ? r.payload_len : 8;
  place->atomic = atomic_ack;
  place->atomic_orig = r.atomic_orig;
  return Make(SROCE_SQ_PLACE, SROCE_CDROP_NONE,
              atomic_ack ? SROCE_SQR_ATOMIC_ACK : SROCE_SQR_READ_RESP);
}

SqRet SendQueue::Placed(uint8_t status) {
  if (!placing_) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
  placing_ = false;
  SqRet r;
  uint32_t implied = 0;
  uint32_t before = sroce_psn_add(place_psn_, SROCE_PSN_MASK);
  uint8_t rule = place_opcode_ == SROCE_OP_ATOMIC_ACKNOWLEDGE ? SROCE_SQR_ATOMIC_ACK
                                                              : SROCE_SQR_READ_RESP;
  progressed_ = false;
  // The response acknowledges everything before it (a READ First/Only or
  // an ATOMIC ACK implies the ACKs of earlier SEND/WRITEs).
  if (sroce_psn_diff(before, acked_psn_) > 0) AckUpTo(before, rule, &implied);
  if (una_ != place_pos_) return Drop(SROCE_CDROP_GHOST, SROCE_SQR_GHOST);
  if (status != SROCE_WC_SUCCESS) {
    Fail(place_pos_, status, SROCE_SQR_LOCAL_ERR);
    r = Accept(SROCE_SQR_LOCAL_ERR);
    TimerAfter(&r);
    return r;
  }
  acked_psn_ = place_psn_;
  bool ends = place_opcode_ == SROCE_OP_READ_RESP_LAST ||
              place_opcode_ == SROCE_OP_READ_RESP_ONLY ||
              place_opcode_ == SROCE_OP_ATOMIC_ACKNOWLEDGE;
  const sroce_sq_wqe& w = At(place_pos_);
  if (ends) {
    acked_psn_ = LastPsn(w);
    Complete(place_pos_, SROCE_WC_SUCCESS, rule);
  }
  Progress();
  r = Accept(rule);
  TimerAfter(&r);
  return r;
}

// 9.7.6.1: the retransmit timer stops once nothing is outstanding, and
// restarts on progress (something newly acknowledged, or a go-back-N
// retransmission starting); a credit update or a dropped response leaves
// it alone.
void SendQueue::TimerAfter(SqRet* r) {
  bool progressed = progressed_;
  progressed_ = false;
  if (r->timer != SROCE_TMR_KEEP || !params_.timeout) return;
  if (error_ || !Outstanding(acked_psn_)) {
    if (timer_running_) r->timer = SROCE_TMR_CANCEL;
    timer_running_ = false;
    return;
  }
  if (timer_running_ && progressed) r->timer = SROCE_TMR_RESTART;
}

SqRet SendQueue::Rx(const sroce_comp_pkt& r, sroce_comp_place* place) {
  progressed_ = false;
  undo_valid_ = false;  // the cursor may move: sroce_req_unsend() no longer applies
  if (error_) return Drop(SROCE_CDROP_QP_ERROR, SROCE_SQR_FLUSH);
  // ud-send, uc-send: UD and UC are never answered; nothing here takes a
  // response.
  if (Unreliable())
    return Drop(SROCE_CDROP_BAD_OPCODE, Ud() ? SROCE_SQR_UD_SEND : SROCE_SQR_UC_SEND);
  if (placing_) placing_ = false;  // the caller never reported: forget it
  SqRet ret;
  switch (r.opcode) {
    case SROCE_OP_ACKNOWLEDGE:
      switch (sroce_aeth_kind_of(r.syndrome)) {
        case SROCE_AETH_ACK:
          ret = RxAck(r);
          break;
        case SROCE_AETH_RESERVED:
          ret = Drop(SROCE_CDROP_RESERVED, SROCE_SQR_FATAL_NAK);
          break;
        default:
          ret = RxNak(r);
          break;
      }
      break;
    case SROCE_OP_READ_RESP_FIRST:
    case SROCE_OP_READ_RESP_MIDDLE:
    case SROCE_OP_READ_RESP_LAST:
    case SROCE_OP_READ_RESP_ONLY:
    case SROCE_OP_ATOMIC_ACKNOWLEDGE:
      return RxData(r, place);
    default:
      return Drop(SROCE_CDROP_BAD_OPCODE, SROCE_SQR_NONE);
  }
  TimerAfter(&ret);
  return ret;
}

// 9.7.6.1: the local ACK timeout.  Go back to the oldest unacknowledged
// PSN, retry_cnt times; then the oldest WQE fails with RETRY_EXC_ERR.
SqRet SendQueue::Timeout() {
  undo_valid_ = false;
  if (!timer_running_ || error_) return Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_TIMER);
  timer_running_ = false;
  if (!Outstanding(acked_psn_) || una_ == sent_)
    return Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_TIMER);
  stats_.timeouts++;
  retry_valid_ = false;  // a timeout always restarts
  SqRet r = GoBack(sroce_psn_add(acked_psn_, 1), SROCE_SQR_TIMEOUT, true);
  progressed_ = false;  // the retransmission arms the timer again
  probing_ = !error_;
  return r;
}

SqRet SendQueue::RnrExpired() {
  undo_valid_ = false;
  if (!rnr_wait_ || error_) return Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_RNR_NAK);
  rnr_wait_ = false;
  return Accept(SROCE_SQR_RNR_NAK);
}

}  // namespace sroce
