// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Name tables for the ABI enums, for logs, tests and tracepoints.  Each
// table is sized by its enum's count sentinel.
#include "../../../include/sroce/core_abi.h"
#include "../../../include/sroce/sq_abi.h"
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

constexpr const char* kSqRuleNames[] = {
    "none",          "9.7.1-psn",         "9.7.2-segment",     "9.7.5.1.6-ackreq-last",
    "9.7.5.1.6-ackreq-every", "9.7.5.1.6-ackreq-block", "9.7.5.1.6-ackreq-yield",
    "9.7.5.1.6-ackreq-aged", "9.7.5.1.6-ackreq-hold", "9.7.1-window",   "9.7.6.1-ord",
    "10.8.3.3-fence", "9.7.7.2-credits",  "9.7.5.1.2-ack",     "9.7.5.1.2-implied-nak",
    "9.7.5.1.3-read-resp", "9.7.5.1.3-atomic-ack", "9.7.5.1.5-seq-nak", "9.7.5.1.5-rnr-nak",
    "9.7.5.2-fatal-nak", "9.7.6.1-timeout", "9.7.6.1-retry-cnt", "9.7.6.1-rnr-retry",
    "9.7.6.1-timer", "9.7.6.1-ghost",     "10.10.2-local-err", "10.10.2-flush",
    "ud-send",       "ud-length",         "ud-op",             "uc-send",
    "uc-op",         "local-op",
};
static_assert(sizeof(kSqRuleNames) / sizeof(kSqRuleNames[0]) == SROCE_SQR_COUNT, "sq rules");

constexpr const char* kBlockNames[] = {
    "none", "window", "ord", "fence", "credits", "rnr_wait", "draining", "error", "hold",
};
static_assert(sizeof(kBlockNames) / sizeof(kBlockNames[0]) == SROCE_BLK_REASON_COUNT, "blocks");

constexpr const char* kCompDropNames[] = {
    "none", "ghost", "duplicate", "stale_nak", "bad_opcode", "bad_length", "reserved",
    "read_gap", "qp_error",
};
static_assert(sizeof(kCompDropNames) / sizeof(kCompDropNames[0]) == SROCE_CDROP_REASON_COUNT,
              "completer drops");

constexpr const char* kWcStatusNames[] = {
    "success", "loc_len_err", "loc_qp_op_err", "loc_prot_err", "wr_flush_err", "bad_resp_err",
    "rem_inv_req_err", "rem_access_err", "rem_op_err", "retry_exc_err", "rnr_retry_exc_err",
    "mw_bind_err",
};
static_assert(sizeof(kWcStatusNames) / sizeof(kWcStatusNames[0]) == SROCE_WC_STATUS_COUNT,
              "wc status");

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

}  // extern "C"
