// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// AETH syndrome encoding (IBA 9.7.5.2, C9-119..C9-126) and the
// end-to-end credit table (IBA Table 44, C9-150.2.1).
#ifndef SROCE_CORE_AETH_H
#define SROCE_CORE_AETH_H

#include "../../../include/sroce/ib_wire.h"

namespace sroce {

// Receive WQE counts for credit codes 0..30; code 31 is "invalid".
constexpr uint32_t kCreditTable[31] = {
    0,    1,    2,    3,    4,    6,     8,     12,    16,    24,   32,
    48,   64,   96,   128,  192,  256,   384,   512,   768,   1024, 1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

// Largest code whose count does not exceed @posted.
inline uint8_t CreditCode(uint32_t posted) {
  uint8_t lo = 0, hi = 30;
  while (lo < hi) {
    uint8_t mid = static_cast<uint8_t>((lo + hi + 1) / 2);
    if (kCreditTable[mid] <= posted)
      lo = mid;
    else
      hi = static_cast<uint8_t>(mid - 1);
  }
  return lo;
}

constexpr uint8_t AckSyndrome(uint8_t credit_code) {
  return static_cast<uint8_t>((SROCE_AETH_ACK << SROCE_AETH_KIND_SHIFT) |
                              (credit_code & SROCE_AETH_VALUE_MASK));
}

constexpr uint8_t RnrSyndrome(uint8_t timer) {
  return static_cast<uint8_t>((SROCE_AETH_RNR_NAK << SROCE_AETH_KIND_SHIFT) |
                              (timer & SROCE_AETH_VALUE_MASK));
}

constexpr uint8_t NakSyndrome(uint8_t code) {
  return static_cast<uint8_t>((SROCE_AETH_NAK << SROCE_AETH_KIND_SHIFT) |
                              (code & SROCE_AETH_VALUE_MASK));
}

}  // namespace sroce

#endif  // SROCE_CORE_AETH_H
