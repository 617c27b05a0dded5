// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The only extern "C" definitions of the core: thin wrappers from
// include/sroce/core_abi.h onto sroce::Responder.
#include "../../../include/sroce/core_abi.h"
#include "aeth.h"
#include "responder.h"
#include "enforce.h"

using sroce::Responder;

static_assert(sizeof(Responder) <= sizeof(sroce_resp_qp), "grow SROCE_RESP_QP_WORDS");
static_assert(alignof(Responder) <= alignof(sroce_resp_qp), "sroce_resp_qp alignment");
static_assert(__is_trivially_copyable(Responder), "Responder lives in C storage");
static_assert(__is_standard_layout(sroce_resp_desc), "C layout");
static_assert(sizeof(sroce_resp_desc) == 40 && __builtin_offsetof(sroce_resp_desc, kind) == 32,
              "desc layout");
static_assert(sizeof(sroce_resp_req) == 32 && sizeof(sroce_rd_res) == 40, "req/res layout");

extern "C" {

void sroce_resp_init(sroce_resp_qp* qp, const sroce_resp_params* p, sroce_rd_res* res,
                     uint32_t nres) {
  Responder::From(qp)->Init(*p, res, nres);
}

uint8_t sroce_resp_classify(const sroce_resp_qp* qp, uint32_t psn) {
  return Responder::From(qp)->Classify(psn);
}

sroce_resp_ret sroce_resp_rx(sroce_resp_qp* qp, const sroce_resp_req* req) {
  return Responder::From(qp)->Rx(*req);
}

sroce_resp_ret sroce_resp_executed(sroce_resp_qp* qp, const sroce_exec* ex) {
  return Responder::From(qp)->Executed(*ex);
}

sroce_resp_ret sroce_resp_read_failed(sroce_resp_qp* qp, uint8_t status) {
  return Responder::From(qp)->ReadFailed(status);
}

void sroce_resp_batch_begin(sroce_resp_qp* qp) { Responder::From(qp)->BatchBegin(); }

sroce_resp_ret sroce_resp_batch_end(sroce_resp_qp* qp) { return Responder::From(qp)->BatchEnd(); }

sroce_resp_ret sroce_resp_set_credits(sroce_resp_qp* qp, uint32_t posted) {
  return Responder::From(qp)->SetCredits(posted);
}

void sroce_resp_set_pmtu(sroce_resp_qp* qp, uint32_t pmtu) { Responder::From(qp)->SetPmtu(pmtu); }

int sroce_resp_pull(sroce_resp_qp* qp, sroce_resp_desc* d) {
  return Responder::From(qp)->Pull(d) ? 1 : 0;
}

uint32_t sroce_resp_expected_psn(const sroce_resp_qp* qp) {
  return Responder::From(qp)->ExpectedPsn();
}

uint32_t sroce_resp_msn(const sroce_resp_qp* qp) { return Responder::From(qp)->Msn(); }

const sroce_resp_stats* sroce_resp_get_stats(const sroce_resp_qp* qp) {
  return &Responder::From(qp)->Stats();
}

uint8_t sroce_aeth_credit_code(uint32_t posted) { return sroce::CreditCode(posted); }

uint32_t sroce_aeth_credit_count(uint8_t code) {
  return code < 31 ? sroce::kCreditTable[code] : 0;
}

}  // extern "C"
