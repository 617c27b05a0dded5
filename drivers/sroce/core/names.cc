// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Name tables for the ABI enums, for logs, tests and tracepoints.  Each
// table is sized by its enum's count sentinel.
#include "../../../include/sroce/core_abi.h"
#include "enforce.h"

namespace {

constexpr const char* kKindNames[] = {
    "ack", "nak", "rnr_nak", "read_first", "read_middle", "read_last", "read_only",
    "atomic_ack", "qp_error",
};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) == SROCE_RESP_KIND_COUNT, "kinds");

constexpr const char* kRuleNames[] = {
    "none",   "C9-95",  "C9-96",  "o9-58",  "C9-97",  "C9-98",  "C9-100",
    "C9-101", "C9-103", "C9-104", "C9-105", "C9-106", "C9-107", "o9-66",
    "o9-67",  "C9-111", "C9-113", "C9-114", "C9-116", "C9-121", "C9-124",
    "C9-125", "C9-148", "C9-149", "C9-150.2.1", "o9-95.2.2",
};
static_assert(sizeof(kRuleNames) / sizeof(kRuleNames[0]) == SROCE_RULE_COUNT, "rules");

constexpr const char* kDropNames[] = {
    "none",        "bad_psn",   "bad_opcode", "bad_verdict",   "nak_latched",
    "qp_error",    "dup_no_resource", "dup_error", "busy", "not_expected",
};
static_assert(sizeof(kDropNames) / sizeof(kDropNames[0]) == SROCE_DROP_REASON_COUNT, "drops");

constexpr const char* kActionNames[] = {"hold", "execute", "respond", "drop"};
static_assert(sizeof(kActionNames) / sizeof(kActionNames[0]) == SROCE_ACT_COUNT, "actions");

template <unsigned N>
const char* Lookup(const char* const (&tbl)[N], uint8_t i) {
  return i < N ? tbl[i] : "invalid";
}

}  // namespace

extern "C" {

const char* sroce_resp_kind_name(uint8_t kind) { return Lookup(kKindNames, kind); }
const char* sroce_rule_name(uint8_t rule) { return Lookup(kRuleNames, rule); }
const char* sroce_drop_reason_name(uint8_t reason) { return Lookup(kDropNames, reason); }
const char* sroce_action_name(uint8_t action) { return Lookup(kActionNames, action); }

}  // extern "C"
