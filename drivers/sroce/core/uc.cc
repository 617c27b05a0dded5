// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The UC receive decisions (uc_abi.h).  A UC packet either continues the
// message in progress at the expected PSN, or starts one (First/Only, at
// any PSN); anything else means a packet was lost, and the message it
// belonged to is dropped to its end.  Nothing is ever answered.  The
// packets' facts come from the RC opcode table: UC's opcodes are RC's
// with the UC transport bits.
#include "../../../include/sroce/uc_abi.h"
#include "../../../include/sroce/psn.h"
#include "opcode_table.h"
#include "pmtu.h"
#include "ret.h"

#include "enforce.h"

namespace {

using sroce::InMessage;
using sroce::OpInfo;

sroce_uc_ret Ret(uint8_t action, uint8_t reason, uint8_t rule) {
  return sroce::MakeRet<sroce_uc_ret>(action, reason, rule);
}

bool IsUcRequest(uint8_t opcode) {
  return opcode >= SROCE_OP_UC_SEND_FIRST && opcode < SROCE_OP_UC_END;
}

const OpInfo& RowOf(uint8_t opcode) {
  constexpr uint8_t kTransportBits = SROCE_OP_TRANSPORT_UC << SROCE_OP_TRANSPORT_SHIFT;
  return sroce::LookupOp(static_cast<uint8_t>(opcode & ~kTransportBits));
}

// uc-abort: the receive WQE a dropped SEND message holds.  An RQ's goes
// back to the head of its queue untouched (the next SEND takes it from
// its start); an SRQ's cannot go back and completes in error.
uint8_t AbortKind(const sroce_uc_state& st) {
  return static_cast<uint8_t>(st.srq ? SROCE_UC_ABORT_FAIL : SROCE_UC_ABORT_REWIND);
}

// The message in progress is lost: drop it to its end.  Returns what
// becomes of its WQE (a SEND's; a WRITE holds none until its last packet).
uint8_t Abandon(sroce_uc_state* st) {
  uint8_t abort = st->in_msg == sroce::kInSend ? AbortKind(*st) : static_cast<uint8_t>(SROCE_UC_ABORT_NONE);
  st->in_msg = sroce::kInNone;
  st->dropping = 1;
  return abort;
}

sroce_uc_ret WithAbort(sroce_uc_ret r, uint8_t abort) {
  r.abort = abort;
  if (abort == SROCE_UC_ABORT_FAIL) r.status = SROCE_WC_REM_INV_REQ_ERR;
  return r;
}

// uc-length: as RC's (9.7.2): First and Middle carry exactly one path MTU,
// Last and Only at most one; a WRITE's RETH length is its Only packet's
// payload, or more than its First's and below 2^31.
bool LengthValid(const sroce_uc_state& st, const sroce_uc_req& req, const OpInfo& op) {
  uint32_t len = req.payload_len;
  if (op.last ? len > st.pmtu : len != st.pmtu) return false;
  if (!op.reth_len) return true;
  return op.last ? req.dma_len == len : req.dma_len > len && req.dma_len < 0x80000000u;
}

}  // namespace

extern "C" {

void sroce_uc_init(sroce_uc_state* st, uint32_t epsn, uint32_t pmtu, int srq) {
  *st = sroce_uc_state{};
  st->epsn = epsn & SROCE_PSN_MASK;
  st->pmtu = sroce::ValidPmtu(pmtu);
  st->srq = srq ? 1 : 0;
}

sroce_uc_ret sroce_uc_rx(sroce_uc_state* st, const sroce_uc_req* req) {
  st->pending = 0;
  // uc-opcode: no READ, ATOMIC, acknowledgement or other transport.
  if (!IsUcRequest(req->opcode)) return Ret(SROCE_UC_DROP, SROCE_UCDROP_OPCODE, SROCE_UCR_OPCODE);
  const OpInfo& op = RowOf(req->opcode);
  uint32_t psn = req->psn & SROCE_PSN_MASK;
  uint8_t abort = SROCE_UC_ABORT_NONE;
  uint8_t rule = SROCE_UCR_PLACE;
  if (op.first) {
    // uc-sequence: a new message while one is in progress: the rest of
    // that one was lost, and it is abandoned; this one starts.
    if (st->in_msg != sroce::kInNone) {
      abort = Abandon(st);
      rule = SROCE_UCR_SEQUENCE;
    } else if (psn != st->epsn) {
      // uc-resync: a First or Only starts at its own PSN.
      rule = SROCE_UCR_RESYNC;
    }
    st->dropping = 0;
  } else {
    // The rest of a message already given up is dropped to its end.
    if (st->dropping) return Ret(SROCE_UC_DROP, SROCE_UCDROP_REST, SROCE_UCR_PSN);
    // uc-psn: a gap means a lost packet; this message is dropped.
    if (psn != st->epsn)
      return WithAbort(Ret(SROCE_UC_DROP, SROCE_UCDROP_PSN, SROCE_UCR_PSN), Abandon(st));
    // uc-sequence: a Middle or Last with no message of its kind in progress.
    if (!((op.seq_ok >> st->in_msg) & 1))
      return WithAbort(Ret(SROCE_UC_DROP, SROCE_UCDROP_SEQUENCE, SROCE_UCR_SEQUENCE),
                       Abandon(st));
  }
  if (!LengthValid(*st, *req, op)) {
    // A First that is refused has taken no WQE yet: only an abort owed
    // for the message before it stands.
    uint8_t own = Abandon(st);
    return WithAbort(Ret(SROCE_UC_DROP, SROCE_UCDROP_LENGTH, SROCE_UCR_LENGTH),
                     abort ? abort : own);
  }
  st->pending = 1;
  st->pending_psn = psn;
  st->pending_op = req->opcode;
  sroce_uc_ret r = WithAbort(Ret(SROCE_UC_EXECUTE, SROCE_UCDROP_NONE, rule), abort);
  r.exec = op.exec;
  return r;
}

sroce_uc_ret sroce_uc_executed(sroce_uc_state* st, uint8_t status) {
  if (!st->pending) return Ret(SROCE_UC_DROP, SROCE_UCDROP_NONE, SROCE_UCR_NONE);
  st->pending = 0;
  const OpInfo& op = RowOf(st->pending_op);
  if (status == SROCE_EXEC_OK) {
    // uc-place: the PSN moves on; the message goes on or ends.
    st->epsn = sroce_psn_add(st->pending_psn, 1);
    st->in_msg = op.after;
    return Ret(SROCE_UC_DONE, SROCE_UCDROP_NONE, SROCE_UCR_PLACE);
  }
  // uc-exec: no WQE (UC has no RNR), no rights, a bad rkey or a buffer too
  // short: the message is dropped, silently, and the QP carries on.  A
  // SEND's WQE, or the one a WRITE with immediate took, is given up.
  st->in_msg = op.exec & SROCE_XF_SEND ? static_cast<uint8_t>(sroce::kInSend) : st->in_msg;
  bool held = (op.exec & SROCE_XF_SEND) || op.needs_wqe;
  Abandon(st);
  uint8_t reason = status == SROCE_EXEC_RNR ? SROCE_UCDROP_NO_WQE : SROCE_UCDROP_EXEC;
  return WithAbort(Ret(SROCE_UC_DROP, reason, SROCE_UCR_EXEC),
                   held ? AbortKind(*st) : static_cast<uint8_t>(SROCE_UC_ABORT_NONE));
}

}  // extern "C"
