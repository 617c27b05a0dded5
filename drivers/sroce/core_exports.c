// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of the core ABI: layout checks against the C compiler's view
 * of include/sroce/core_abi.h (the C++ side checks its own), and the
 * symbol exports the KUnit module links against.  EXPORT_SYMBOL stays in
 * C; the core itself is C++.
 */
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/stddef.h>
#include <kunit/visibility.h>

#include <sroce/core_abi.h>

static_assert(offsetof(struct sroce_resp_desc, psn) == 16);
static_assert(offsetof(struct sroce_resp_desc, kind) == 32);
static_assert(offsetof(struct sroce_req, opcode) == 24);
static_assert(offsetof(struct sroce_rd_res, kind) == 32);
static_assert(sizeof(struct sroce_resp_stats) ==
	      8 * (SROCE_RESP_KIND_COUNT + SROCE_NAK_CODE_COUNT + 6 + SROCE_DROP_REASON_COUNT));

EXPORT_SYMBOL_IF_KUNIT(sroce_resp_init);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_classify);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_rx);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_executed);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_read_failed);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_batch_begin);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_batch_end);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_set_credits);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_set_pmtu);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_pull);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_expected_psn);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_msn);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_get_stats);
EXPORT_SYMBOL_IF_KUNIT(sroce_aeth_credit_code);
EXPORT_SYMBOL_IF_KUNIT(sroce_aeth_credit_count);
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_kind_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_rule_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_drop_reason_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_action_name);
