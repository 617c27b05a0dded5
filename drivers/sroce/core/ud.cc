// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The UD receive decisions (ud_abi.h): admission by opcode and Q_Key,
// then what the receive WQE taken for the datagram gets.  Stateless: a
// datagram's fate depends on it and the QP's Q_Key only.
#include "../../../include/sroce/ud_abi.h"
#include "ret.h"
#include "enforce.h"

namespace {

sroce_ud_ret Ret(uint8_t action, uint8_t reason, uint8_t rule) {
  return sroce::MakeRet<sroce_ud_ret>(action, reason, rule);
}

}  // namespace

extern "C" {

sroce_ud_ret sroce_ud_admit(uint32_t qp_qkey, const sroce_ud_req* req) {
  // ud-opcode: a UD QP answers nothing and takes only datagrams.
  if (req->opcode != SROCE_OP_UD_SEND_ONLY && req->opcode != SROCE_OP_UD_SEND_ONLY_IMM)
    return Ret(SROCE_UD_DROP, SROCE_UDROP_OPCODE, SROCE_UDR_OPCODE);
  // ud-qkey: a datagram whose Q_Key is not the QP's is dropped silently;
  // no receive WQE is touched and the QP's state does not change.
  if (req->deth_qkey != qp_qkey) return Ret(SROCE_UD_DROP, SROCE_UDROP_QKEY, SROCE_UDR_QKEY);
  return Ret(SROCE_UD_TAKE_WQE, SROCE_UDROP_NONE, SROCE_UDR_NONE);
}

sroce_ud_ret sroce_ud_place(const sroce_ud_req* req, uint8_t wqe, uint32_t wqe_len) {
  // ud-no-wqe: unlike RC there is no RNR NAK and no retry.
  if (wqe == SROCE_UD_WQE_NONE) return Ret(SROCE_UD_DROP, SROCE_UDROP_NO_WQE, SROCE_UDR_NO_WQE);
  sroce_ud_ret r;
  if (wqe != SROCE_UD_WQE_OK) {
    r = Ret(SROCE_UD_COMPLETE_ERROR, SROCE_UDROP_NONE, SROCE_UDR_BAD_WQE);
    r.status = SROCE_WC_LOC_QP_OP_ERR;
    return r;
  }
  // ud-recv-length: the buffer holds the GRH and the payload, or the WQE
  // completes in error with nothing placed; the QP carries on.
  if (wqe_len < SROCE_UD_GRH_LEN || wqe_len - SROCE_UD_GRH_LEN < req->payload_len) {
    r = Ret(SROCE_UD_COMPLETE_ERROR, SROCE_UDROP_NONE, SROCE_UDR_RECV_LENGTH);
    r.status = SROCE_WC_LOC_LEN_ERR;
    return r;
  }
  // ud-grh: the first 40 bytes take the GRH, the payload follows them.
  r = Ret(SROCE_UD_DELIVER, SROCE_UDROP_NONE, SROCE_UDR_GRH);
  r.data_off = SROCE_UD_GRH_LEN;
  r.byte_len = SROCE_UD_GRH_LEN + req->payload_len;
  return r;
}

uint32_t sroce_ud_deth_qkey(uint32_t wr_qkey, uint32_t qp_qkey) {
  return (wr_qkey & SROCE_QKEY_PRIVILEGED) ? qp_qkey : wr_qkey;
}

}  // extern "C"
