// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Memory windows: whether a bind, an invalidation or an access through a
// window may go.  Rule tags are IBA Vol 1 compliance statements, or named
// (enum sroce_mw_rule).
#include "../../../include/sroce/mw_abi.h"

#include "enforce.h"

namespace {

sroce_mw_verdict Verdict(uint8_t status, uint8_t state, uint32_t rkey, uint8_t rule,
                         uint64_t va = 0) {
  sroce_mw_verdict v = {};
  v.va = va;
  v.status = status;
  v.state = state;
  v.rkey = rkey;
  v.rule = rule;
  return v;
}

// [va, va + len) inside [base, base + size), without overflow.
bool Inside(uint64_t va, uint64_t len, uint64_t base, uint64_t size) {
  return va >= base && len <= size && va - base <= size - len;
}

sroce_mw_verdict BindError(const sroce_mw_bind_in& in, uint8_t rule) {
  return Verdict(SROCE_WC_MW_BIND_ERR, in.state, in.cur_rkey, rule);
}

}  // namespace

extern "C" {

sroce_mw_verdict sroce_mw_bind(const sroce_mw_bind_in* in_p) {
  const sroce_mw_bind_in in = *in_p;
  // mw-key: the window is named by the key it has now.
  if (in.wr_mw_rkey != in.cur_rkey) return BindError(in, SROCE_MWR_KEY);
  // mw-rights: a window grants remote rights.  Local write, which verbs
  // users pass along (rdma-core's tests do), means nothing on a window and
  // is accepted, as stock rxe accepts it; MW_BIND and unknown bits fail.
  if (in.access & ~(SROCE_MWA_WINDOW | SROCE_MWA_LOCAL_WRITE | SROCE_MWA_ZERO_BASED))
    return BindError(in, SROCE_MWR_RIGHTS);
  if (in.type == 1) {
    if (in.access & SROCE_MWA_ZERO_BASED) return BindError(in, SROCE_MWR_O10_36_2_2);
    // C10-72 as for type 2: stock rxe lets a QP of any PD bind a type 1
    // window; sroce does not.
    if (!in.qp_pd_match) return BindError(in, SROCE_MWR_C10_72);
  } else {
    if (in.state != SROCE_MW_FREE) return BindError(in, SROCE_MWR_O10_37_2_30);
    if (!in.qp_pd_match) return BindError(in, SROCE_MWR_C10_72);
    if (in.length == 0) return BindError(in, SROCE_MWR_O10_37_2_40);
    // A type 2 window may be zero-based, as on stock rxe: it still lies at
    // [addr, addr + length) of the MR (C10-75 below), and remote
    // addresses through it count from 0 (sroce_mw_access()).
  }
  uint32_t rkey = (in.cur_rkey & ~0xffu) | (in.wr_rkey & 0xffu);
  if (in.length == 0)  // type 1 unbind: valid, covering nothing
    return Verdict(SROCE_WC_SUCCESS, SROCE_MW_VALID, rkey, SROCE_MWR_BIND);
  if (!in.mr_found || !in.mr_pd_match) return BindError(in, SROCE_MWR_KEY);
  if (!(in.mr_access & SROCE_MWA_MW_BIND)) return BindError(in, SROCE_MWR_C10_73);
  if ((in.access & (SROCE_MWA_REMOTE_WRITE | SROCE_MWA_REMOTE_ATOMIC)) &&
      !(in.mr_access & SROCE_MWA_LOCAL_WRITE))
    return BindError(in, SROCE_MWR_C10_74);
  // Inside the MR, and not past 2^64 (an MR registered at an iova near
  // it may run past; a window never does).
  if (!Inside(in.addr, in.length, in.mr_iova, in.mr_length) || in.length > ~0ull - in.addr)
    return BindError(in, SROCE_MWR_C10_75);
  return Verdict(SROCE_WC_SUCCESS, SROCE_MW_VALID, rkey, SROCE_MWR_BIND);
}

sroce_mw_verdict sroce_mw_invalidate(const sroce_mw_inv_in* in_p) {
  const sroce_mw_inv_in in = *in_p;
  if (in.type == 1) return Verdict(SROCE_WC_LOC_QP_OP_ERR, in.state, in.cur_rkey, SROCE_MWR_O10_37_2_26);
  if (in.rkey != in.cur_rkey || in.state != SROCE_MW_VALID || !in.qp_match)
    return Verdict(SROCE_WC_LOC_QP_OP_ERR, in.state, in.cur_rkey, SROCE_MWR_INVALIDATE);
  return Verdict(SROCE_WC_SUCCESS, SROCE_MW_FREE, in.cur_rkey, SROCE_MWR_INVALIDATE);
}

sroce_mw_verdict sroce_mw_access(const sroce_mw_access_in* in_p) {
  const sroce_mw_access_in in = *in_p;
  // A zero-based window is [0, length) to the remote end, [addr, addr +
  // length) in its MR.  The window's rights never include MW_BIND or
  // LOCAL_WRITE as a want: want is remote rights only.
  const bool zero_based = in.access & SROCE_MWA_ZERO_BASED;
  const uint64_t base = zero_based ? 0 : in.addr;
  bool ok = in.rkey == in.cur_rkey && in.state == SROCE_MW_VALID && in.pd_match &&
            (in.type == 1 || in.qp_match) && in.want && !(in.want & ~SROCE_MWA_WINDOW) &&
            (in.access & in.want) == in.want && Inside(in.va, in.len, base, in.length) &&
            (!zero_based || in.length <= ~0ull - in.addr);  // addr + va never wraps
  if (!ok) return Verdict(SROCE_WC_REM_ACCESS_ERR, in.state, in.cur_rkey, SROCE_MWR_ACCESS);
  return Verdict(SROCE_WC_SUCCESS, in.state, in.cur_rkey, SROCE_MWR_ACCESS,
                 zero_based ? in.addr + in.va : in.va);
}

}  // extern "C"
