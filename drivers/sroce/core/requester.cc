// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The RC requester: which request packet goes next, with which opcode,
// PSN, headers and AckReq, and when none may go.  Rule tags are IBA Vol 1
// sections (enum sroce_sq_rule).
#include "send_queue.h"

#include "pmtu.h"

#include "enforce.h"

namespace sroce {
namespace {

constexpr uint32_t kMaxWindow = SROCE_PSN_HALF - 1;

// Opcodes of a message by position (9.7.2; Table 35).
struct Opcodes {
  uint8_t first, middle, last, only;
};

constexpr Opcodes kSend = {SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE, SROCE_OP_SEND_LAST,
                           SROCE_OP_SEND_ONLY};
constexpr Opcodes kSendImm = {SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE, SROCE_OP_SEND_LAST_IMM,
                              SROCE_OP_SEND_ONLY_IMM};
constexpr Opcodes kWrite = {SROCE_OP_WRITE_FIRST, SROCE_OP_WRITE_MIDDLE, SROCE_OP_WRITE_LAST,
                            SROCE_OP_WRITE_ONLY};
constexpr Opcodes kWriteImm = {SROCE_OP_WRITE_FIRST, SROCE_OP_WRITE_MIDDLE,
                               SROCE_OP_WRITE_LAST_IMM, SROCE_OP_WRITE_ONLY_IMM};
constexpr Opcodes kSendInv = {SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE, SROCE_OP_SEND_LAST_INV,
                              SROCE_OP_SEND_ONLY_INV};

// By operation (enum sroce_wr_op); READ, ATOMIC and the local operations
// never use theirs.  A table: one load on the packet path.
constexpr Opcodes kOpcodesOf[SROCE_WR_OP_COUNT] = {
    kSend, kSendImm, kWrite, kWriteImm, kSend, kSend, kSend, kSendInv, kSend, kSend,
};
static_assert(SROCE_WR_SEND == 0 && SROCE_WR_SEND_IMM == 1 && SROCE_WR_WRITE == 2 &&
                  SROCE_WR_WRITE_IMM == 3 && SROCE_WR_SEND_INV == 7,
              "kOpcodesOf follows enum sroce_wr_op");

}  // namespace

void SendQueue::Init(const sroce_sq_params& p, sroce_sq_wqe* ring, uint32_t nslots) {
  params_ = p;
  params_.psn &= SROCE_PSN_MASK;
  params_.retry_cnt &= 7;
  params_.rnr_retry &= 7;
  params_.timeout &= 31;
  params_.hold_tail = params_.hold_tail ? 1 : 0;
  if (params_.transport >= SROCE_TRANSPORT_COUNT) params_.transport = SROCE_TRANSPORT_RC;
  stats_ = sroce_sq_stats{};
  ring_ = ring;
  nslots_ = 1;
  while (nslots_ <= nslots / 2) nslots_ <<= 1;
  if (!ring) nslots_ = 0;
  mask_ = nslots_ ? nslots_ - 1 : 0;
  pmtu_ = ValidPmtu(p.pmtu);
  window_ = p.window == 0 ? 1 : p.window > kMaxWindow ? kMaxWindow : p.window;
  prod_ = retire_ = una_ = sent_ = 0;
  cur_ = Cursor{0, params_.psn, 0};
  next_psn_ = params_.psn;
  acked_psn_ = sroce_psn_add(params_.psn, SROCE_PSN_MASK);  // psn - 1
  rd_outstanding_ = 0;
  next_ssn_ = 1;
  lsn_ = 0;
  credits_unlimited_ = false;
  since_ackreq_ = 0;
  resp_due_psn_ = 0;
  resp_due_ = false;
  resp_due_read_ = false;
  retry_left_ = params_.retry_cnt;
  rnr_left_ = params_.rnr_retry;
  rnr_psn_ = 0;
  rnr_code_ = 0;
  rnr_wait_ = false;
  timer_running_ = false;
  progressed_ = false;
  retry_psn_ = 0;
  retry_valid_ = false;
  draining_ = false;
  probing_ = false;
  error_ = false;
  stopped_ = false;
  stop_pos_ = 0;
  placing_ = false;
  place_opcode_ = 0;
  place_pos_ = 0;
  place_psn_ = 0;
  undo_ = ReqSnapshot{};
  undo_valid_ = false;
  local_pending_ = false;
  local_pos_ = 0;
  local_done_ = 0;
}

uint32_t SendQueue::Post(uint32_t n) {
  uint32_t room = Room();
  if (n > room) n = room;
  for (uint32_t i = 0; i < n; i++) {
    sroce_sq_wqe& w = At(prod_ + i);
    w.state = IsLocal(w.op) ? kWqeLocalPosted : kWqePosted;
    w.status = SROCE_WC_SUCCESS;
    w.first_psn = 0;
    w.npsn = 0;
    w.ssn = 0;
    w.rule = SROCE_SQR_NONE;
    w.qp_error = 0;
  }
  prod_ += n;
  // 10.10.2: a WQE posted to a send queue in Error completes flushed.
  if (error_) Flush();
  return n;
}

// 10.10.2: a WQE refused when it was posted (a bad opcode, length or
// key) takes its slot and completes with @status in order, like a local
// error in a packet; the requester stops at it.
uint32_t SendQueue::PostError(uint8_t status) {
  if (!Post(1)) return 0;
  sroce_sq_wqe& w = At(prod_ - 1);
  if (w.state == kWqeDone) return 1;  // already flushed: the QP is in Error
  w.state = kWqeFailed;
  w.status = status ? status : static_cast<uint8_t>(SROCE_WC_LOC_QP_OP_ERR);
  return 1;
}

// The cursor reached a WQE refused at post time: it spans no PSN, stops
// the requester, and fails at once if nothing before it is outstanding.
void SendQueue::ReachFailed() {
  sroce_sq_wqe& w = At(sent_);
  w.first_psn = next_psn_;
  w.npsn = 0;
  stop_pos_ = sent_;
  sent_++;
  stopped_ = true;
  if (una_ == sent_ - 1) Fail(una_, w.status, w.rule ? w.rule : static_cast<uint8_t>(SROCE_SQR_LOCAL_ERR));
}

// A UD or UC WQE the requester reaches that cannot go fails with its
// local error, unsent, as a WQE refused at post time does:
//  - ud-op: on UD, an operation other than SEND;
//  - ud-length: on UD, a message longer than the port's MTU.  The IBA's
//    C10-93.1.1 would complete it successfully without sending it, as
//    stock rxe does; sroce reports it instead, so the sender learns why
//    nothing arrived;
//  - uc-op: on UC, a READ, an ATOMIC or a SEND with Invalidate (UC has
//    SEND and WRITE only; its local operations are carried out).
void SendQueue::Refuse() {
  sroce_sq_wqe& w = At(sent_);
  if (w.state != kWqePosted && w.state != kWqeLocalPosted) return;
  bool send = w.op == SROCE_WR_SEND || w.op == SROCE_WR_SEND_IMM;
  if (Uc()) {
    if (IsReadAtomic(w.op) || w.op == SROCE_WR_SEND_INV) {
      w.state = kWqeFailed;
      w.status = SROCE_WC_LOC_QP_OP_ERR;
      w.rule = SROCE_SQR_UC_OP;
    }
  } else if (!send) {
    w.state = kWqeFailed;
    w.status = SROCE_WC_LOC_QP_OP_ERR;
    w.rule = SROCE_SQR_UD_OP;
  } else if (w.length > pmtu_) {
    w.state = kWqeFailed;
    w.status = SROCE_WC_LOC_LEN_ERR;
    w.rule = SROCE_SQR_UD_LENGTH;
  }
}

// The block reason for the packet at @c, or SROCE_BLK_NONE if it may go.
uint8_t SendQueue::Gate(const Cursor& c) const {
  if (error_) return SROCE_BLK_ERROR;
  // Stopped at a failed WQE (or a local operation running): what is
  // before it may still be resent, so its acknowledgement can come and
  // the failure complete in order; nothing from it on goes.
  if (stopped_ && static_cast<int32_t>(c.pos - stop_pos_) >= 0) return SROCE_BLK_ERROR;
  if (rnr_wait_) return SROCE_BLK_RNR_WAIT;
  if (c.pos == prod_) return SROCE_BLK_NONE;  // nothing to send: not blocked
  const sroce_sq_wqe& w = At(c.pos);
  if (w.state == kWqeFailed) return SROCE_BLK_ERROR;
  if (sroce_psn_diff(c.psn, next_psn_) < 0)  // a retransmission
    return probing_ ? FlowGate(c) : static_cast<uint8_t>(SROCE_BLK_NONE);
  if (c.pos == sent_ && draining_) return SROCE_BLK_DRAINING;  // the WQE would start
  if (Unreliable()) return SROCE_BLK_NONE;  // no acknowledgement to wait for
  if (c.pos == sent_) {
    if (IsReadAtomic(w.op) && rd_outstanding_ >= params_.max_rd_atomic) return SROCE_BLK_ORD;
    if ((w.flags & SROCE_WF_FENCE) && rd_outstanding_) return SROCE_BLK_FENCE;
  }
  return FlowGate(c);
}

// The gates that only an acknowledgement opens: credits and the window.
// Neither closes again once open (lsn_ and acked_psn_ only move forward).
uint8_t SendQueue::FlowGate(const Cursor& c) const {
  const sroce_sq_wqe& w = At(c.pos);
  // 9.7.6.1: after a timeout, one packet until an acknowledgement.
  if (probing_ && sroce_psn_diff(c.psn, sroce_psn_add(acked_psn_, 1)) > 0)
    return SROCE_BLK_WINDOW;
  // 9.7.7.2: a WQE-consuming message starts only within the credits, plus
  // one beyond them that probes for more.
  if (c.pos == sent_ && NeedsCredit(w.op) && !credits_unlimited_ &&
      sroce_psn_diff(next_ssn_, sroce_psn_add(lsn_, 1)) > 0)
    return SROCE_BLK_CREDITS;
  // 9.7.1: the PSNs this packet takes must fit the window; a READ takes
  // all its response PSNs.  With nothing outstanding anything may go, so
  // a READ longer than the window still can.
  uint32_t take = w.op == SROCE_WR_READ ? PacketsFor(w.length - c.off) : 1;
  if (Outstanding(acked_psn_) &&
      sroce_psn_diff(sroce_psn_add(c.psn, take - 1), acked_psn_) > static_cast<int32_t>(window_))
    return SROCE_BLK_WINDOW;
  return SROCE_BLK_NONE;
}

// 9.7.1: a WQE's PSNs are assigned when its first packet is sent.
void SendQueue::Start(sroce_sq_wqe& w) {
  w.state = kWqeStarted;
  w.first_psn = next_psn_;
  w.npsn = IsReadAtomic(w.op) && w.op != SROCE_WR_READ ? 1 : PacketsFor(w.length);
  w.ssn = next_ssn_;
  next_ssn_ = sroce_psn_add(next_ssn_, 1);
  if (IsReadAtomic(w.op)) rd_outstanding_++;
  sent_++;
}

void SendQueue::Build(const Cursor& c, sroce_req_pkt* pkt) const {
  const sroce_sq_wqe& w = At(c.pos);
  *pkt = sroce_req_pkt{};
  pkt->wqe = c.pos;
  pkt->psn = c.psn;
  pkt->offset = c.off;
  pkt->rule = SROCE_SQR_SEGMENT;
  if (Ud()) {  // ud-send: the whole message in one packet, with a DETH
    pkt->rule = SROCE_SQR_UD_SEND;
    pkt->length = w.length;
    pkt->pad_count = static_cast<uint8_t>((4 - (w.length & 3)) & 3);
    pkt->opcode = w.op == SROCE_WR_SEND_IMM ? SROCE_OP_UD_SEND_ONLY_IMM : SROCE_OP_UD_SEND_ONLY;
    if (w.op == SROCE_WR_SEND_IMM) pkt->imm = w.imm;
    if (w.flags & SROCE_WF_SOLICITED) pkt->flags |= SROCE_PF_SOLICITED;
    return;
  }
  if (IsReadAtomic(w.op)) {
    pkt->rkey = w.rkey;
    if (w.op == SROCE_WR_READ) {
      // A READ resent from part-way asks for the rest only.
      pkt->opcode = SROCE_OP_READ_REQUEST;
      pkt->va = w.remote_va + c.off;
      pkt->dma_len = w.length - c.off;
    } else {
      pkt->opcode = w.op == SROCE_WR_CMP_SWAP ? SROCE_OP_CMP_SWAP : SROCE_OP_FETCH_ADD;
      pkt->va = w.remote_va;
      pkt->swap_add = w.swap_add;
      pkt->compare = w.compare;
    }
    return;
  }
  const Opcodes& ops = kOpcodesOf[w.op < SROCE_WR_OP_COUNT ? w.op : 0];
  bool first = c.off == 0;
  uint32_t left = w.length - c.off;
  bool last = left <= pmtu_;
  pkt->length = last ? left : pmtu_;
  pkt->opcode = first ? (last ? ops.only : ops.first) : (last ? ops.last : ops.middle);
  // uc-send: UC's opcodes are RC's with the UC transport bits (Table 35).
  if (Uc()) pkt->opcode |= SROCE_OP_TRANSPORT_UC << SROCE_OP_TRANSPORT_SHIFT;
  pkt->pad_count = static_cast<uint8_t>((4 - (pkt->length & 3)) & 3);
  if (first && (w.op == SROCE_WR_WRITE || w.op == SROCE_WR_WRITE_IMM)) {
    pkt->va = w.remote_va;
    pkt->rkey = w.rkey;
    pkt->dma_len = w.length;
  }
  if (last) {
    if (HasImmOrIeth(w.op)) pkt->imm = w.imm;
    if ((w.flags & SROCE_WF_SOLICITED) && w.op != SROCE_WR_WRITE) pkt->flags |= SROCE_PF_SOLICITED;
  }
}

// Move the cursor past @pkt.
void SendQueue::Advance(const sroce_req_pkt& pkt) {
  const sroce_sq_wqe& w = At(cur_.pos);
  uint32_t psns = 1;
  bool done;
  if (w.op == SROCE_WR_READ) {
    psns = PacketsFor(w.length - cur_.off);
    done = true;
  } else if (IsReadAtomic(w.op)) {
    done = true;
  } else {
    cur_.off += pkt.length;
    done = cur_.off >= w.length;
  }
  cur_.psn = sroce_psn_add(cur_.psn, psns);
  if (sroce_psn_diff(cur_.psn, next_psn_) > 0) next_psn_ = cur_.psn;
  if (done) {
    cur_.pos++;
    cur_.off = 0;
  }
}

// True when nothing is left to send after the cursor for now: the end of
// the work posted so far, a WQE that failed where the requester will stop,
// or a local operation, which sends nothing and may fail (the packet
// before it must then ask for the ACK that lets the failure complete).
bool SendQueue::AtEndOfWork(const Cursor& c) const {
  return c.pos == prod_ || At(c.pos).state >= kWqeFailed;
}

// 9.7.5.1.6-ackreq-hold: the last packet of the work posted so far waits
// while a response is due, instead of asking for another one: the ACK on
// its way lets it go with AckReq (ackreq-last), and work posted before
// then sends it without.  Small messages posted one at a time then draw
// about one ACK per round trip rather than one per catch-up of the
// requester.  Not a READ or ATOMIC (answered anyway), not a
// retransmission, not behind a READ's response (it lasts as long as the
// READ's transfer), and only while a timer can end the wait: an aged
// timer means the response is late and the packet goes at once, asking
// anew.
// Called for the last WQE posted only.
bool SendQueue::HoldTail(uint8_t hints) const {
  // UD and UC never get here holding: no response is ever due for them.
  if (!params_.hold_tail || !params_.timeout) return false;
  if ((hints & SROCE_REQ_HINT_TIMER_AGED) || sroce_psn_diff(cur_.psn, next_psn_) < 0) return false;
  const sroce_sq_wqe& w = At(cur_.pos);
  if (IsReadAtomic(w.op) || w.length - cur_.off > pmtu_) return false;
  return ResponseDue() && !resp_due_read_;
}

// 9.7.5.1.6: the AckReq policy, for SEND and WRITE packets (READ and
// ATOMIC requests always get a response; Next() does not ask here).
uint8_t SendQueue::AckReqRule(uint8_t hints) const {
  if (AtEndOfWork(cur_)) return SROCE_SQR_ACKREQ_LAST;
  // Every N packets, moved to the end of the message when that comes
  // within another N: a 64-packet message asks once, as stock rxe's does
  // (its last packet), rather than at 32 and 64, and the window still
  // moves at least every 2N.  Advance() has left the cursor at offset 0
  // exactly when this packet ended its message.
  if (params_.ackreq_every) {
    uint32_t n = since_ackreq_ + 1;
    if (n >= params_.ackreq_every &&
        (cur_.off == 0 || n - params_.ackreq_every >= params_.ackreq_every))
      return SROCE_SQR_ACKREQ_EVERY;
  }
  // Checked apart from the other gates: a WQE held by a fence now may
  // find the credits short later, and then only an ACK can open them.
  if (!error_ && FlowGate(cur_) != SROCE_BLK_NONE) return SROCE_SQR_ACKREQ_BLOCK;
  // The caller stops sending after this packet for as long as it takes to
  // come back (other QPs' turns, under TCG tens of ms): packets left
  // unrequested meanwhile would wait for the retransmit timer.
  if (hints & SROCE_REQ_HINT_YIELD) return SROCE_SQR_ACKREQ_YIELD;
  // 9.7.5.1.6-ackreq-aged: the timer has run half its period and
  // nothing sent asks for a response: without one the timer expires on
  // packets that arrived.
  if ((hints & SROCE_REQ_HINT_TIMER_AGED) && !ResponseDue()) return SROCE_SQR_ACKREQ_AGED;
  return SROCE_SQR_NONE;
}

// local-op: the requester reached a local operation (BIND_MW,
// LOCAL_INV): the caller carries it out now, in send queue order, behind
// the gates a new message has (fence, draining, a stopped requester).  It
// spans no PSN, and the requester goes on past it once the caller has
// reported (LocalDone()); it completes when everything before it has.
SqRet SendQueue::StartLocal(sroce_req_pkt* pkt) {
  if (!local_pending_) {
    sroce_sq_wqe& w = At(sent_);
    w.state = kWqeStarted;
    w.first_psn = next_psn_;
    w.npsn = 0;
    local_pos_ = sent_;
    local_pending_ = true;
    stopped_ = true;  // nothing from it on goes until it is reported (Gate())
    stop_pos_ = sent_;
    undo_valid_ = false;
    sent_++;
    cur_ = Cursor{sent_, next_psn_, 0};
  }
  *pkt = sroce_req_pkt{};
  pkt->wqe = local_pos_;
  pkt->psn = At(local_pos_).first_psn;
  pkt->rule = SROCE_SQR_LOCAL_OP;
  return Make(SROCE_SQ_LOCAL, SROCE_BLK_NONE, SROCE_SQR_LOCAL_OP);
}

// A go-back-N walks the WQEs again: a local operation, carried out once,
// spans no PSN and is passed over.  Called wherever the cursor moves onto
// a WQE already started other than by Next() starting it.
void SendQueue::SkipLocal() {
  while (cur_.pos != sent_ && IsLocal(At(cur_.pos).op) && At(cur_.pos).npsn == 0 &&
         !(local_pending_ && cur_.pos == local_pos_))
    cur_.pos++;
}

SqRet SendQueue::LocalDone(uint8_t status) {
  SqRet r = Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_LOCAL_OP);
  if (!local_pending_) return r;
  local_pending_ = false;
  sroce_sq_wqe& w = At(local_pos_);
  if (error_ || w.state != kWqeStarted) return r;  // flushed meanwhile
  if (status == SROCE_WC_SUCCESS) {
    stopped_ = false;
    if (local_pos_ == una_) {
      Complete(una_, SROCE_WC_SUCCESS, SROCE_SQR_LOCAL_OP);
      r.action = SROCE_SQ_ACCEPT;
    } else {  // una_ never rests on one: Complete() retires it with the WQE before
      w.state = kWqeLocalDone;
      local_done_++;
    }
    return r;
  }
  // 10.10.2: as a local error in a packet.
  if (status >= SROCE_WC_STATUS_COUNT) status = SROCE_WC_LOC_QP_OP_ERR;
  return Stop(local_pos_, status, SROCE_SQR_LOCAL_OP);
}

// 10.10.2: the started WQE at @pos failed locally: the requester stops,
// and the WQE completes with @status once it is the oldest (at once if it
// is: SROCE_SQ_ACCEPT), moving the QP to Error.
SqRet SendQueue::Stop(uint32_t pos, uint8_t status, uint8_t rule) {
  SqRet r = Make(SROCE_SQ_IDLE, SROCE_BLK_ERROR, rule);
  sroce_sq_wqe& w = At(pos);
  w.state = kWqeFailed;
  w.status = status;
  w.rule = rule;
  stopped_ = true;
  stop_pos_ = pos;
  if (pos == una_) {
    Fail(pos, status, rule);
    r.action = SROCE_SQ_ACCEPT;
    TimerAfter(&r);
  }
  return r;
}

// ud-length: a UD QP follows the port's MTU.  Refuse() measures each WQE
// as the requester reaches it, and builds its one packet in the same
// Next(), so no WQE is measured under one MTU and cut under another.
void SendQueue::SetPortMtu(uint32_t pmtu) {
  if (Ud()) pmtu_ = ValidPmtu(pmtu);
}

SqRet SendQueue::Next(sroce_req_pkt* pkt, uint8_t hints) {
  undo_valid_ = false;
  if (Unreliable() && !error_ && !stopped_ && cur_.pos == sent_ && sent_ != prod_ && !draining_)
    Refuse();
  if (!error_ && !stopped_ && cur_.pos == sent_ && sent_ != prod_ &&
      At(sent_).state == kWqeFailed) {
    uint8_t rule = At(sent_).rule ? At(sent_).rule : static_cast<uint8_t>(SROCE_SQR_LOCAL_ERR);
    ReachFailed();
    SqRet r = Make(SROCE_SQ_BLOCKED, SROCE_BLK_ERROR, rule);
    TimerAfter(&r);
    return r;
  }
  uint8_t blk = Gate(cur_);
  if (blk != SROCE_BLK_NONE) {
    // A local operation handed out and not reported yet (it stopped the
    // requester): hand it out again.
    if (local_pending_ && !error_) return StartLocal(pkt);
    stats_.blocked[blk]++;
    uint8_t rule = blk == SROCE_BLK_WINDOW    ? SROCE_SQR_WINDOW
                   : blk == SROCE_BLK_ORD     ? SROCE_SQR_ORD
                   : blk == SROCE_BLK_FENCE   ? SROCE_SQR_FENCE
                   : blk == SROCE_BLK_CREDITS ? SROCE_SQR_CREDITS
                   : blk == SROCE_BLK_RNR_WAIT ? SROCE_SQR_RNR_NAK
                                               : SROCE_SQR_NONE;
    return Make(SROCE_SQ_BLOCKED, blk, rule);
  }
  if (cur_.pos == prod_) return Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_NONE);
  if (cur_.pos + 1 == prod_ && HoldTail(hints)) {  // the last WQE posted
    stats_.blocked[SROCE_BLK_HOLD]++;
    return Make(SROCE_SQ_BLOCKED, SROCE_BLK_HOLD, SROCE_SQR_ACKREQ_HOLD);
  }

  undo_ = ReqSnapshot{cur_,           sent_,         next_psn_,
                      next_ssn_,      rd_outstanding_, since_ackreq_,
                      resp_due_psn_,  resp_due_,     resp_due_read_, stats_.packets,
                      stats_.retransmits, timer_running_, una_};
  undo_valid_ = true;
  bool retry = sroce_psn_diff(cur_.psn, next_psn_) < 0;
  if (cur_.pos == sent_) {
    // (A local operation last posted may have waited in HoldTail() for
    // the response due: harmless, it could not complete before that.)
    if (IsLocal(At(cur_.pos).op)) return StartLocal(pkt);
    Start(At(cur_.pos));
  }
  Build(cur_, pkt);
  Advance(*pkt);

  SqRet r = Make(SROCE_SQ_SEND, SROCE_BLK_NONE, SROCE_SQR_PSN);
  if (Unreliable()) {
    // ud-send, uc-send: nothing acknowledges UD or UC, and no timer runs:
    // a message is complete once its last packet went (a datagram is one;
    // a UC message's cursor moved past its WQE).  The caller pulls the
    // completion after the packet went.
    stats_.packets++;
    r.rule = Ud() ? SROCE_SQR_UD_SEND : SROCE_SQR_UC_SEND;
    if (cur_.pos != pkt->wqe) Complete(pkt->wqe, SROCE_WC_SUCCESS, r.rule);
    return r;
  }
  const sroce_sq_wqe& w = At(pkt->wqe);
  if (IsReadAtomic(w.op)) {  // always answered: a response is due
    since_ackreq_++;
    resp_due_psn_ = LastPsn(w);
    resp_due_ = true;
    resp_due_read_ = w.op == SROCE_WR_READ;
  } else if (uint8_t ack = AckReqRule(hints)) {
    pkt->flags |= SROCE_PF_ACKREQ;
    pkt->rule = ack;
    since_ackreq_ = 0;
    resp_due_psn_ = pkt->psn;
    resp_due_ = true;
    resp_due_read_ = false;
  } else {
    since_ackreq_++;
  }
  r.rule = pkt->rule;
  if (retry) {
    pkt->flags |= SROCE_PF_RETRY;
    stats_.retransmits++;
    // Walking started WQEs again: the cursor may have moved onto a local
    // operation (a new packet's cursor never does: one starts only there).
    SkipLocal();
  }
  stats_.packets++;
  // 9.7.6.1: the retransmit timer runs from the first unacknowledged packet.
  if (!timer_running_ && params_.timeout) {
    timer_running_ = true;
    r.timer = SROCE_TMR_ARM;
  }
  return r;
}

// 9.7.6.1: the retransmit timer runs while requests are outstanding, also
// while the caller holds back the retransmission a timeout asked for (its
// transmit path full).  Not during an RNR wait, whose own timer runs, and
// never for UC or UD, which have none.  With nothing outstanding no timer
// could end a hold (the caller's path may be full of responses): one
// packet goes, and arms it.
SqRet SendQueue::Held() {
  undo_valid_ = false;
  SqRet r = Make(SROCE_SQ_IDLE, SROCE_BLK_NONE, SROCE_SQR_TIMER);
  if (Unreliable() || error_ || rnr_wait_ || !params_.timeout) return r;
  if (!Outstanding(acked_psn_)) {
    r.action = SROCE_SQ_ACCEPT;
    return r;
  }
  if (!timer_running_) {
    timer_running_ = true;
    r.timer = SROCE_TMR_ARM;
  }
  return r;
}

void SendQueue::Unsend() {
  if (!undo_valid_) return;
  const ReqSnapshot& s = undo_;
  // A WQE this packet started goes back to not started.
  if (s.sent != sent_) {
    sroce_sq_wqe& w = At(s.sent);
    w.state = kWqePosted;
    w.first_psn = w.npsn = w.ssn = 0;
  }
  // A datagram completed by the packet is not complete after all.
  if (s.una != una_) {
    sroce_sq_wqe& w = At(s.una);
    if (stats_.completions[w.status]) stats_.completions[w.status]--;
    w.state = kWqePosted;
    w.status = SROCE_WC_SUCCESS;
    w.rule = SROCE_SQR_NONE;
    una_ = s.una;
  }
  cur_ = s.cur;
  sent_ = s.sent;
  next_psn_ = s.next_psn;
  next_ssn_ = s.next_ssn;
  rd_outstanding_ = s.rd_outstanding;
  since_ackreq_ = s.since_ackreq;
  resp_due_psn_ = s.resp_due_psn;
  resp_due_ = s.resp_due;
  resp_due_read_ = s.resp_due_read;
  stats_.packets = s.packets;
  stats_.retransmits = s.retransmits;
  timer_running_ = s.timer_running;
  undo_valid_ = false;
}

// 10.10.2: a local error (the payload could not be gathered) fails the WQE
// of the packet last handed out; it completes in order, then the QP is in
// Error and everything after it is flushed.
SqRet SendQueue::WqeError(uint8_t status) {
  SqRet r = Make(SROCE_SQ_IDLE, SROCE_BLK_ERROR, SROCE_SQR_LOCAL_ERR);
  if (!undo_valid_ || error_) return r;
  uint32_t pos = undo_.cur.pos;
  Unsend();
  sroce_sq_wqe& w = At(pos);
  if (pos == sent_) {  // never started: it spans no PSN
    w.first_psn = next_psn_;
    w.npsn = 0;
    sent_++;
  } else if (IsReadAtomic(w.op) && rd_outstanding_) {
    rd_outstanding_--;
  }
  return Stop(pos, status ? status : static_cast<uint8_t>(SROCE_WC_LOC_PROT_ERR),
              SROCE_SQR_LOCAL_ERR);
}

}  // namespace sroce
