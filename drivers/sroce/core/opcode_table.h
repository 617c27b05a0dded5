// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Per-opcode facts for RC requests, in one table indexed by BTH opcode.
#ifndef SROCE_CORE_OPCODE_TABLE_H
#define SROCE_CORE_OPCODE_TABLE_H

#include "../../../include/sroce/core_abi.h"

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
  OpClass cls;
  bool first;      // starts a message (First or Only)
  bool last;       // ends a message (Last or Only)
  bool needs_wqe;  // consumes a receive WQE (RNR possible, C9-113)
  uint8_t seq_ok;  // bit n set: valid while InMessage n (C9-121 otherwise)
  InMessage after; // InMessage once it executed
  uint8_t exec;    // sroce_exec_flags of its EXECUTE (sroce_resp_ret.exec)
  bool reth_len;   // WRITE First/Only: the RETH DMA length is checked too

  // SEND or WRITE: the fast path.
  bool SendOrWrite() const { return exec & (SROCE_XF_SEND | SROCE_XF_WRITE); }
};

// What an EXECUTE asks of the caller: the class bit and the message facts.
// Reserved and non-responder opcodes are never executed; they get no class bit.
constexpr uint8_t ExecFlags(OpClass cls, bool first, bool last, bool needs_wqe) {
  uint8_t f = 0;
  switch (cls) {
    case OpClass::kSend: f = SROCE_XF_SEND; break;
    case OpClass::kWrite: f = SROCE_XF_WRITE; break;
    case OpClass::kRead: f = SROCE_XF_READ; break;
    case OpClass::kAtomic: f = SROCE_XF_ATOMIC; break;
    case OpClass::kReserved:
    case OpClass::kNotForResponder: break;
  }
  return static_cast<uint8_t>(f | (first ? SROCE_XF_FIRST : 0) | (last ? SROCE_XF_LAST : 0) |
                              (needs_wqe ? SROCE_XF_WQE : 0));
}

// Derived columns, so the table rows state only facts about the opcode.
constexpr OpInfo Row(OpClass cls, bool first, bool last, bool needs_wqe) {
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
  bool reth_len = cls == OpClass::kWrite && first;
  return OpInfo{cls, first, last, needs_wqe, seq_ok, after, ExecFlags(cls, first, last, needs_wqe),
                reth_len};
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
// (SROCE_RC_OPCODES in include/sroce/ib_wire.h), which is in opcode order.
#define SROCE_OP_ROW(op, kind, first, last, wqe, hdrs) \
  Row(ClassOf(SROCE_OPK_##kind), first, last, wqe),
constexpr OpInfo kOpTable[SROCE_OP_RC_COUNT] = {SROCE_RC_OPCODES(SROCE_OP_ROW)};
#undef SROCE_OP_ROW

#define SROCE_OP_CODE(op, kind, first, last, wqe, hdrs) SROCE_OP_##op,
constexpr uint8_t kOpTableOpcodes[SROCE_OP_RC_COUNT] = {SROCE_RC_OPCODES(SROCE_OP_CODE)};
#undef SROCE_OP_CODE

constexpr bool OpTableInOrder() {
  for (unsigned i = 0; i < SROCE_OP_RC_COUNT; i++)
    if (kOpTableOpcodes[i] != i) return false;
  return true;
}
static_assert(OpTableInOrder(), "kOpTable rows must be in opcode order");

constexpr OpInfo kNotRc = Row(OpClass::kNotForResponder, false, false, false);

// Every BTH opcode has a row, kNotRc past the RC opcodes: LookupOp() is a
// single scaled index, no range check.
struct OpLookup {
  OpInfo row[256];
};
constexpr OpLookup MakeOpLookup() {
  OpLookup t = {};
  for (unsigned i = 0; i < 256; i++) t.row[i] = i < SROCE_OP_RC_COUNT ? kOpTable[i] : kNotRc;
  return t;
}
constexpr OpLookup kOpLookup = MakeOpLookup();
static_assert(sizeof(OpInfo) == 8, "8-byte rows: LookupOp() indexes with one scaled load");

inline const OpInfo& LookupOp(uint8_t opcode) { return kOpLookup.row[opcode]; }

}  // namespace sroce

#endif  // SROCE_CORE_OPCODE_TABLE_H
