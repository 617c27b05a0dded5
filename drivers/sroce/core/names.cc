// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Name tables for the ABI enums, for logs, tests and tracepoints.  Each is
// generated from its enum's list (SROCE_FOO_LIST in the ABI headers), so a
// name cannot drift from its value.
#include "../../../include/sroce/core_abi.h"
#include "../../../include/sroce/sq_abi.h"
#include "../../../include/sroce/uc_abi.h"
#include "../../../include/sroce/ud_abi.h"
#include "../../../include/sroce/mw_abi.h"
#include "enforce.h"

namespace {

#define NAME(id, name) name,
#define NAME_OF_VALUE(id, value, name) name,
#define VALUE(id, value, name) value,

// A list that spells its values must still count from 0 in order: the
// table is indexed by value.
template <unsigned N>
constexpr bool FromZero(const int (&values)[N]) {
  for (unsigned i = 0; i < N; i++)
    if (values[i] != static_cast<int>(i)) return false;
  return true;
}

constexpr int kKindValues[] = {SROCE_RESP_KIND_LIST(VALUE)};
static_assert(FromZero(kKindValues), "SROCE_RESP_KIND_LIST: values 0, 1, 2 ...");
constexpr int kActionValues[] = {SROCE_ACTION_LIST(VALUE)};
static_assert(FromZero(kActionValues), "SROCE_ACTION_LIST: values 0, 1, 2 ...");
constexpr int kWcStatusValues[] = {SROCE_WC_STATUS_LIST(VALUE)};
static_assert(FromZero(kWcStatusValues), "SROCE_WC_STATUS_LIST: values 0, 1, 2 ...");

constexpr const char* kKindNames[] = {SROCE_RESP_KIND_LIST(NAME_OF_VALUE)};
constexpr const char* kActionNames[] = {SROCE_ACTION_LIST(NAME_OF_VALUE)};
constexpr const char* kWcStatusNames[] = {SROCE_WC_STATUS_LIST(NAME_OF_VALUE)};
constexpr const char* kRuleNames[] = {SROCE_RULE_LIST(NAME)};
constexpr const char* kDropNames[] = {SROCE_DROP_REASON_LIST(NAME)};
constexpr const char* kSqRuleNames[] = {SROCE_SQ_RULE_LIST(NAME)};
constexpr const char* kBlockNames[] = {SROCE_BLOCK_REASON_LIST(NAME)};
constexpr const char* kCompDropNames[] = {SROCE_COMP_DROP_LIST(NAME)};
constexpr const char* kUcRuleNames[] = {SROCE_UC_RULE_LIST(NAME)};
constexpr const char* kUcDropNames[] = {SROCE_UC_DROP_LIST(NAME)};
constexpr const char* kUdRuleNames[] = {SROCE_UD_RULE_LIST(NAME)};
constexpr const char* kUdDropNames[] = {SROCE_UD_DROP_LIST(NAME)};
constexpr const char* kMwRuleNames[] = {SROCE_MW_RULE_LIST(NAME)};

#undef NAME
#undef NAME_OF_VALUE
#undef VALUE

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
const char* sroce_sq_rule_name(uint8_t rule) { return Lookup(kSqRuleNames, rule); }
const char* sroce_block_reason_name(uint8_t reason) { return Lookup(kBlockNames, reason); }
const char* sroce_comp_drop_name(uint8_t reason) { return Lookup(kCompDropNames, reason); }
const char* sroce_wc_status_name(uint8_t status) { return Lookup(kWcStatusNames, status); }
const char* sroce_uc_rule_name(uint8_t rule) { return Lookup(kUcRuleNames, rule); }
const char* sroce_uc_drop_name(uint8_t reason) { return Lookup(kUcDropNames, reason); }
const char* sroce_ud_rule_name(uint8_t rule) { return Lookup(kUdRuleNames, rule); }
const char* sroce_ud_drop_name(uint8_t reason) { return Lookup(kUdDropNames, reason); }
const char* sroce_mw_rule_name(uint8_t rule) { return Lookup(kMwRuleNames, rule); }

}  // extern "C"
