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

constexpr OpClass ClassOf(sroce_op_kind kind) {
  switch (kind) {
    case SROCE_OPK_SEND: return OpClass::kSend;
    case SROCE_OPK_WRITE: return OpClass::kWrite;
    case SROCE_OPK_READ: return OpClass::kRead;
    case SROCE_OPK_ATOMIC: return OpClass::kAtomic;
    case SROCE_OPK_RESERVED: return OpClass::kReserved;
    case SROCE_OPK_RESPONSE: break;
  }
  return OpClass::kNotForResponder;
}

// The rows come from the opcode list the receive path uses too
// (SROCE_RC_OPCODES in include/sroce/ib_wire.h).
#define SROCE_OP_ROW(op, kind, first, last, wqe, hdrs) \
  Row(SROCE_OP_##op, ClassOf(SROCE_OPK_##kind), first, last, wqe),
constexpr OpInfo kOpTable[SROCE_OP_RC_COUNT] = {SROCE_RC_OPCODES(SROCE_OP_ROW)};
#undef SROCE_OP_ROW

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
