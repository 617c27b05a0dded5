// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The decision records the cores hand back (sroce_resp_ret, sroce_sq_ret,
// sroce_ud_ret, sroce_uc_ret): each has an action, a drop reason and the
// rule behind the decision, the rest zero unless the decision says more.
#ifndef SROCE_CORE_RET_H
#define SROCE_CORE_RET_H

#include "../../../include/sroce/types.h"

namespace sroce {

// A record of type @R: zero but for @action, @reason and @rule.
template <typename R>
inline R MakeRet(uint8_t action, uint8_t reason, uint8_t rule) {
  R r = {};
  r.action = action;
  r.reason = reason;
  r.rule = rule;
  return r;
}

}  // namespace sroce

#endif  // SROCE_CORE_RET_H
