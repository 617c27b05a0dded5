// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The extern "C" definitions of the requester and completer: thin
// wrappers from include/sroce/sq_abi.h onto sroce::SendQueue, and the
// timer encodings.
#include "../../../include/sroce/sq_abi.h"
#include "send_queue.h"
#include "enforce.h"

using sroce::SendQueue;

static_assert(sizeof(SendQueue) <= sizeof(sroce_sq_qp), "grow SROCE_SQ_QP_WORDS");
static_assert(alignof(SendQueue) <= alignof(sroce_sq_qp), "sroce_sq_qp alignment");
static_assert(__is_trivially_copyable(SendQueue), "SendQueue lives in C storage");
static_assert(__is_standard_layout(sroce_sq_wqe) && __is_standard_layout(sroce_req_pkt),
              "C layout");

namespace {

// IBA Table 45: RNR NAK timer field encoding, in units of 10 us; code 0
// is the longest, 655.36 ms.
constexpr uint32_t kRnrTimer10us[32] = {
    65536, 1,    2,    3,    4,    6,    8,     12,    16,    24,    32,
    48,    64,   96,   128,  192,  256,  384,   512,   768,   1024,  1536,
    2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

}  // namespace

extern "C" {

void sroce_sq_init(sroce_sq_qp* sq, const sroce_sq_params* p, sroce_sq_wqe* ring,
                   uint32_t nslots) {
  SendQueue::From(sq)->Init(*p, ring, nslots);
}

uint32_t sroce_sq_room(const sroce_sq_qp* sq) { return SendQueue::From(sq)->Room(); }
uint32_t sroce_sq_producer(const sroce_sq_qp* sq) { return SendQueue::From(sq)->Producer(); }
uint32_t sroce_req_post(sroce_sq_qp* sq, uint32_t n) { return SendQueue::From(sq)->Post(n); }

uint32_t sroce_req_post_error(sroce_sq_qp* sq, uint8_t status) {
  return SendQueue::From(sq)->PostError(status);
}

sroce_sq_ret sroce_req_next(sroce_sq_qp* sq, sroce_req_pkt* pkt) {
  return SendQueue::From(sq)->Next(pkt, 0);
}

sroce_sq_ret sroce_req_next_last(sroce_sq_qp* sq, sroce_req_pkt* pkt) {
  return SendQueue::From(sq)->Next(pkt, SROCE_REQ_HINT_YIELD);
}

sroce_sq_ret sroce_req_next_hint(sroce_sq_qp* sq, sroce_req_pkt* pkt, uint8_t hints) {
  return SendQueue::From(sq)->Next(pkt, hints);
}

void sroce_req_unsend(sroce_sq_qp* sq) { SendQueue::From(sq)->Unsend(); }

sroce_sq_ret sroce_req_held(sroce_sq_qp* sq) { return SendQueue::From(sq)->Held(); }

sroce_sq_ret sroce_req_wqe_error(sroce_sq_qp* sq, uint8_t status) {
  return SendQueue::From(sq)->WqeError(status);
}

sroce_sq_ret sroce_req_local_done(sroce_sq_qp* sq, uint8_t status) {
  return SendQueue::From(sq)->LocalDone(status);
}

void sroce_req_set_draining(sroce_sq_qp* sq, uint8_t on) {
  SendQueue::From(sq)->SetDraining(on != 0);
}

void sroce_req_set_port_mtu(sroce_sq_qp* sq, uint32_t pmtu) {
  SendQueue::From(sq)->SetPortMtu(pmtu);
}

sroce_sq_ret sroce_comp_rx(sroce_sq_qp* sq, const sroce_comp_pkt* resp, sroce_comp_place* place) {
  return SendQueue::From(sq)->Rx(*resp, place);
}

sroce_sq_ret sroce_comp_placed(sroce_sq_qp* sq, uint8_t status) {
  return SendQueue::From(sq)->Placed(status);
}

sroce_sq_ret sroce_comp_timeout(sroce_sq_qp* sq) { return SendQueue::From(sq)->Timeout(); }
sroce_sq_ret sroce_comp_rnr_expired(sroce_sq_qp* sq) { return SendQueue::From(sq)->RnrExpired(); }
void sroce_sq_flush(sroce_sq_qp* sq) { SendQueue::From(sq)->Flush(); }

int sroce_comp_pull(sroce_sq_qp* sq, sroce_sq_cqe* c) {
  return SendQueue::From(sq)->Pull(c) ? 1 : 0;
}

uint32_t sroce_sq_outstanding(const sroce_sq_qp* sq) { return SendQueue::From(sq)->Outstanding(); }
int sroce_sq_drained(const sroce_sq_qp* sq) { return SendQueue::From(sq)->Drained() ? 1 : 0; }
uint32_t sroce_sq_next_psn(const sroce_sq_qp* sq) { return SendQueue::From(sq)->NextPsn(); }
uint32_t sroce_sq_acked_psn(const sroce_sq_qp* sq) { return SendQueue::From(sq)->AckedPsn(); }

const sroce_sq_stats* sroce_sq_get_stats(const sroce_sq_qp* sq) {
  return &SendQueue::From(sq)->Stats();
}

// 9.7.6.1: 4.096 us * 2^code, in ns (code 0: no timeout).  Exact: 4096 * 2^code.
uint64_t sroce_timeout_ns(uint8_t code) {
  code &= 31;
  return code ? static_cast<uint64_t>(4096) << code : 0;
}

uint64_t sroce_rnr_timer_ns(uint8_t code) {
  return static_cast<uint64_t>(kRnrTimer10us[code & 31]) * 10000;
}

}  // extern "C"
