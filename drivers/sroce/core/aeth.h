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

// Largest code whose count does not exceed @posted.  From code 2 on the
// counts are 2^k (code 2k) and 3 * 2^(k-1) (code 2k+1), so for posted >= 2
// the code is twice the index k of the top bit plus the bit below it.
// Called for every ACK: no search.
constexpr uint8_t CreditCode(uint32_t posted) {
  if (posted >= kCreditTable[30]) return 30;
  if (posted < 2) return static_cast<uint8_t>(posted);
  uint32_t k = 31u - static_cast<uint32_t>(__builtin_clz(posted));
  return static_cast<uint8_t>(2 * k + ((posted >> (k - 1)) & 1));
}

// CreditCode() against Table 44 itself: each code at its own count and
// one below the next, and the values past the table.
constexpr bool CreditCodeMatchesTable() {
  for (uint8_t c = 0; c < 31; c++) {
    if (CreditCode(kCreditTable[c]) != c) return false;
    if (c < 30 && CreditCode(kCreditTable[c + 1] - 1) != c) return false;
    if (c > 1 && CreditCode(kCreditTable[c] - 1) != c - 1) return false;
  }
  return CreditCode(kCreditTable[30] + 1) == 30 && CreditCode(49152) == 30 &&
         CreditCode(65535) == 30 && CreditCode(0xffffffffu) == 30;
}
static_assert(CreditCodeMatchesTable(), "CreditCode() disagrees with IBA Table 44");

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
