// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The InfiniBand path MTUs: 256, 512, 1024, 2048 or 4096 bytes.  Shared by the
// responder and the requester.
#ifndef SROCE_CORE_PMTU_H
#define SROCE_CORE_PMTU_H

#include "../../../include/sroce/types.h"

namespace sroce {

// @pmtu rounded down to the largest IBA path MTU that fits (and up to 256).
constexpr uint32_t ValidPmtu(uint32_t pmtu) {
  uint32_t m = 4096;
  while (m > 256 && m > pmtu) m >>= 1;
  return m;
}

static_assert(ValidPmtu(0) == 256 && ValidPmtu(1500) == 1024 && ValidPmtu(9000) == 4096,
              "path MTU rounding");

}  // namespace sroce

#endif  // SROCE_CORE_PMTU_H
