// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Per-opcode facts for RC requests, in one table indexed by BTH opcode.
#ifndef SROCE_CORE_OPCODE_TABLE_H
#define SROCE_CORE_OPCODE_TABLE_H

#include "../../../include/sroce/ib_wire.h"

namespace sroce {

enum class OpClass : uint8_t {
  kNotForResponder,  // responses, or not an RC opcode at all: drop
  kReserved,         // reserved RC request opcode: invalid request
  kSend,
  kWrite,
  kRead,
  kAtomic,
};

// Where a QP stands between packets: outside a message, or inside a
// multi-packet SEND or WRITE.
enum InMessage : uint8_t { kInNone = 0, kInSend = 1, kInWrite = 2 };

struct OpInfo {
  uint8_t opcode;
  OpClass cls;
  bool first;      // starts a message (First or Only)
  bool last;       // ends a message (Last or Only)
  bool needs_wqe;  // consumes a receive WQE (RNR possible, C9-113)
  uint8_t seq_ok;  // bit n set: valid while InMessage n (C9-121 otherwise)
  InMessage after; // InMessage once it executed
  bool sw;         // SEND or WRITE: the fast path
};

// Derived columns, so the table rows state only facts about the opcode.
constexpr OpInfo Row(uint8_t opcode, OpClass cls, bool first, bool last, bool needs_wqe) {
  uint8_t seq_ok = 0;
  InMessage after = kInNone;
  if (first) {
    seq_ok = 1u << kInNone;
  } else if (cls == OpClass::kSend) {
    seq_ok = 1u << kInSend;
  } else if (cls == OpClass::kWrite) {
    seq_ok = 1u << kInWrite;
  }
  if (!last && cls == OpClass::kSend) after = kInSend;
  if (!last && cls == OpClass::kWrite) after = kInWrite;
  bool sw = cls == OpClass::kSend || cls == OpClass::kWrite;
  return OpInfo{opcode, cls, first, last, needs_wqe, seq_ok, after, sw};
}

constexpr OpInfo kOpTable[SROCE_OP_RC_COUNT] = {
    Row(SROCE_OP_SEND_FIRST, OpClass::kSend, true, false, true),
    Row(SROCE_OP_SEND_MIDDLE, OpClass::kSend, false, false, false),
    Row(SROCE_OP_SEND_LAST, OpClass::kSend, false, true, false),
    Row(SROCE_OP_SEND_LAST_IMM, OpClass::kSend, false, true, false),
    Row(SROCE_OP_SEND_ONLY, OpClass::kSend, true, true, true),
    Row(SROCE_OP_SEND_ONLY_IMM, OpClass::kSend, true, true, true),
    Row(SROCE_OP_WRITE_FIRST, OpClass::kWrite, true, false, false),
    Row(SROCE_OP_WRITE_MIDDLE, OpClass::kWrite, false, false, false),
    Row(SROCE_OP_WRITE_LAST, OpClass::kWrite, false, true, false),
    Row(SROCE_OP_WRITE_LAST_IMM, OpClass::kWrite, false, true, true),
    Row(SROCE_OP_WRITE_ONLY, OpClass::kWrite, true, true, false),
    Row(SROCE_OP_WRITE_ONLY_IMM, OpClass::kWrite, true, true, true),
    Row(SROCE_OP_READ_REQUEST, OpClass::kRead, true, true, false),
    Row(SROCE_OP_READ_RESP_FIRST, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_READ_RESP_MIDDLE, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_READ_RESP_LAST, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_READ_RESP_ONLY, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_ACKNOWLEDGE, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_ATOMIC_ACKNOWLEDGE, OpClass::kNotForResponder, false, false, false),
    Row(SROCE_OP_CMP_SWAP, OpClass::kAtomic, true, true, false),
    Row(SROCE_OP_FETCH_ADD, OpClass::kAtomic, true, true, false),
    Row(0x15, OpClass::kReserved, true, true, false),
    Row(SROCE_OP_SEND_LAST_INV, OpClass::kSend, false, true, false),
    Row(SROCE_OP_SEND_ONLY_INV, OpClass::kSend, true, true, true),
};

constexpr bool OpTableInOrder() {
  for (unsigned i = 0; i < SROCE_OP_RC_COUNT; i++)
    if (kOpTable[i].opcode != i) return false;
  return true;
}
static_assert(OpTableInOrder(), "kOpTable rows must be in opcode order");

constexpr OpInfo kNotRc = Row(0xff, OpClass::kNotForResponder, false, false, false);

inline const OpInfo& LookupOp(uint8_t opcode) {
  return opcode < SROCE_OP_RC_COUNT ? kOpTable[opcode] : kNotRc;
}

}  // namespace sroce

#endif  // SROCE_CORE_OPCODE_TABLE_H
