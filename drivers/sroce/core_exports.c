// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of the core ABI: layout checks against the C compiler's view
 * of include/sroce/core_abi.h and sq_abi.h (the C++ side checks its own), and the
 * symbol exports the KUnit module links against.  EXPORT_SYMBOL stays in
 * C; the core itself is C++.
 */
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/stddef.h>
#include <kunit/visibility.h>

#include <sroce/core_abi.h>
#include <sroce/sq_abi.h>
#include <sroce/ud_abi.h>
#include <sroce/uc_abi.h>
#include <sroce/mw_abi.h>

static_assert(offsetof(struct sroce_resp_desc, psn) == 16);
static_assert(offsetof(struct sroce_resp_desc, kind) == 32);
static_assert(offsetof(struct sroce_resp_req, opcode) == 24);
static_assert(offsetof(struct sroce_rd_res, kind) == 32);
static_assert(sizeof(struct sroce_resp_stats) ==
	      8 * (SROCE_RESP_KIND_COUNT + SROCE_NAK_CODE_COUNT + 6 + SROCE_DROP_REASON_COUNT));
static_assert(offsetof(struct sroce_sq_wqe, first_psn) == 40);
static_assert(offsetof(struct sroce_sq_wqe, qp_error) == 55);
static_assert(offsetof(struct sroce_req_pkt, opcode) == 52);
static_assert(offsetof(struct sroce_comp_pkt, opcode) == 20);
static_assert(offsetof(struct sroce_sq_cqe, status) == 8);
static_assert(offsetof(struct sroce_ud_ret, action) == 8);
static_assert(offsetof(struct sroce_uc_state, pending_psn) == 12);
static_assert(offsetof(struct sroce_uc_req, opcode) == 12);
static_assert(offsetof(struct sroce_uc_ret, status) == 5);
static_assert(offsetof(struct sroce_mw_bind_in, type) == 52);
static_assert(offsetof(struct sroce_mw_access_in, type) == 48);
static_assert(offsetof(struct sroce_mw_verdict, rule) == 14);
static_assert(offsetof(struct sroce_sq_params, transport) == 21);
static_assert(sizeof(struct sroce_sq_stats) ==
	      8 * (8 + SROCE_NAK_CODE_COUNT + SROCE_CDROP_REASON_COUNT + SROCE_WC_STATUS_COUNT +
		   SROCE_BLK_REASON_COUNT));

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

EXPORT_SYMBOL_IF_KUNIT(sroce_sq_init);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_room);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_producer);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_post);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_post_error);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_next);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_next_last);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_next_hint);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_unsend);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_held);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_wqe_error);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_local_done);
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_bind);
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_invalidate);
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_access);
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_rule_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_set_draining);
EXPORT_SYMBOL_IF_KUNIT(sroce_req_set_port_mtu);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_rx);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_placed);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_timeout);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_rnr_expired);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_flush);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_pull);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_outstanding);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_drained);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_next_psn);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_acked_psn);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_get_stats);
EXPORT_SYMBOL_IF_KUNIT(sroce_timeout_ns);
EXPORT_SYMBOL_IF_KUNIT(sroce_rnr_timer_ns);
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_rule_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_block_reason_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_comp_drop_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_wc_status_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_ud_admit);
EXPORT_SYMBOL_IF_KUNIT(sroce_ud_place);
EXPORT_SYMBOL_IF_KUNIT(sroce_ud_deth_qkey);
EXPORT_SYMBOL_IF_KUNIT(sroce_ud_rule_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_ud_drop_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_uc_init);
EXPORT_SYMBOL_IF_KUNIT(sroce_uc_rx);
EXPORT_SYMBOL_IF_KUNIT(sroce_uc_executed);
EXPORT_SYMBOL_IF_KUNIT(sroce_uc_rule_name);
EXPORT_SYMBOL_IF_KUNIT(sroce_uc_drop_name);
