// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device counters, read with `rdma statistic show link sroce0/1`:
 * packets, every receive drop under a named reason, and the responder
 * core's counters (responses by kind, NAKs by code, ACKs coalesced away,
 * duplicates by kind, sequence-error episodes, core drops by reason)
 * summed over the device's QPs.
 *
 * `rdma statistic show` sends every enabled counter in one netlink
 * message of NLMSG_DEFAULT_SIZE (about 3.7 KiB with 4 KiB pages): beyond
 * that it shows nothing at all.  Counters that are never or rarely of
 * use are optional and off by default (`rdma statistic set link
 * sroce0/1 optional-counters NAME,...` shows them); sroce_stats_nl_bytes()
 * is what the enabled ones take, checked by KUnit against the budget.
 * Enabling one needs the status of every counter (name, index, enabled),
 * which ib_core also sends in one message: sroce_stats_status_nl_bytes(),
 * checked likewise.  The core's blocked[SROCE_BLK_NONE] is never counted
 * and has no name: it is not shown.
 */
#include <kunit/visibility.h>
#include <net/netlink.h>

#include "sroce.h"

#define RX_DROP(r) (SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_##r)
#define RX_DROP_DESC(NAME, lname, f) \
	[RX_DROP(NAME)] = { .name = "rx_drop_" #lname, .flags = (f) },
#define COUNTER_DESC(NAME, lname) \
	[SROCE_CNT_##NAME] = { .name = #lname },
#define CORE(field) (SROCE_CNT_CORE_FIRST + \
		     offsetof(struct sroce_resp_stats, field) / sizeof(u64))
#define SQ_CORE(field) (SROCE_CNT_SQ_CORE_FIRST + \
			offsetof(struct sroce_sq_stats, field) / sizeof(u64))

/* By counter; an optional one is off until asked for. */
static const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_COUNT] = {
	SROCE_COUNTER_LIST(COUNTER_DESC)
	SROCE_RX_DROP_LIST(RX_DROP_DESC)
	[CORE(sent[SROCE_RESP_ACK])].name = "resp_ack",
	[CORE(sent[SROCE_RESP_NAK])].name = "resp_nak",
	[CORE(sent[SROCE_RESP_RNR_NAK])].name = "resp_rnr_nak",
	[CORE(sent[SROCE_RESP_READ_FIRST])].name = "resp_read_first",
	[CORE(sent[SROCE_RESP_READ_MIDDLE])].name = "resp_read_middle",
	[CORE(sent[SROCE_RESP_READ_LAST])].name = "resp_read_last",
	[CORE(sent[SROCE_RESP_READ_ONLY])].name = "resp_read_only",
	[CORE(sent[SROCE_RESP_ATOMIC_ACK])].name = "resp_atomic_ack",
	[CORE(sent[SROCE_RESP_QP_ERROR])].name = "resp_qp_error",
	[CORE(naks[SROCE_NAK_PSN_SEQ_ERR])].name = "nak_psn_seq_err",
	[CORE(naks[SROCE_NAK_INVALID_REQ])].name = "nak_invalid_req",
	[CORE(naks[SROCE_NAK_REM_ACCESS_ERR])].name = "nak_rem_access_err",
	[CORE(naks[SROCE_NAK_REM_OP_ERR])].name = "nak_rem_op_err",
	[CORE(acks_coalesced)].name = "acks_coalesced",
	[CORE(unsolicited_acks)].name = "unsolicited_acks",
	[CORE(dup_send_write)].name = "dup_send_write",
	[CORE(dup_read)].name = "dup_read",
	[CORE(dup_atomic)].name = "dup_atomic",
	[CORE(seq_episodes)].name = "seq_err_episodes",
	[CORE(drops[SROCE_DROP_NONE])] = {
		.name = "core_drop_none", .flags = IB_STAT_FLAG_OPTIONAL },
	[CORE(drops[SROCE_DROP_BAD_PSN])].name = "core_drop_bad_psn",
	[CORE(drops[SROCE_DROP_BAD_OPCODE])].name = "core_drop_bad_opcode",
	[CORE(drops[SROCE_DROP_BAD_VERDICT])].name = "core_drop_bad_verdict",
	[CORE(drops[SROCE_DROP_NAK_LATCHED])].name = "core_drop_nak_latched",
	[CORE(drops[SROCE_DROP_QP_ERROR])].name = "core_drop_qp_error",
	[CORE(drops[SROCE_DROP_DUP_NO_RESOURCE])].name = "core_drop_dup_no_resource",
	[CORE(drops[SROCE_DROP_DUP_ERROR])].name = "core_drop_dup_error",
	[CORE(drops[SROCE_DROP_BUSY])].name = "core_drop_busy",
	[CORE(drops[SROCE_DROP_NOT_EXPECTED])].name = "core_drop_not_expected",
	[SQ_CORE(packets)] = { .name = "req_core_packets", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(retransmits)] = { .name = "req_core_retransmits", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(timeouts)].name = "comp_timeouts",
	[SQ_CORE(rnr_waits)].name = "comp_rnr_waits",
	[SQ_CORE(seq_naks)].name = "comp_nak_psn_seq_err",
	[SQ_CORE(rnr_naks)].name = "comp_rnr_nak",
	[SQ_CORE(fatal_naks[SROCE_NAK_PSN_SEQ_ERR])] = {
		.name = "comp_fatal_nak_none", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(fatal_naks[SROCE_NAK_INVALID_REQ])].name = "comp_nak_invalid_req",
	[SQ_CORE(fatal_naks[SROCE_NAK_REM_ACCESS_ERR])].name = "comp_nak_rem_access_err",
	[SQ_CORE(fatal_naks[SROCE_NAK_REM_OP_ERR])].name = "comp_nak_rem_op_err",
	[SQ_CORE(implied_naks)].name = "comp_implied_nak",
	[SQ_CORE(acks)].name = "comp_acks",
	[SQ_CORE(drops[SROCE_CDROP_NONE])] = {
		.name = "comp_drop_none", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(drops[SROCE_CDROP_GHOST])].name = "comp_drop_ghost",
	[SQ_CORE(drops[SROCE_CDROP_DUPLICATE])].name = "comp_drop_duplicate",
	[SQ_CORE(drops[SROCE_CDROP_STALE_NAK])].name = "comp_drop_stale_nak",
	[SQ_CORE(drops[SROCE_CDROP_BAD_OPCODE])].name = "comp_drop_bad_opcode",
	[SQ_CORE(drops[SROCE_CDROP_BAD_LENGTH])] = {
		.name = "comp_drop_bad_length", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(drops[SROCE_CDROP_RESERVED])] = {
		.name = "comp_drop_reserved", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(drops[SROCE_CDROP_READ_GAP])].name = "comp_drop_read_gap",
	[SQ_CORE(drops[SROCE_CDROP_QP_ERROR])].name = "comp_drop_qp_error",
	[SQ_CORE(completions[SROCE_WC_SUCCESS])].name = "wc_success",
	[SQ_CORE(completions[SROCE_WC_LOC_LEN_ERR])].name = "wc_loc_len_err",
	[SQ_CORE(completions[SROCE_WC_LOC_QP_OP_ERR])].name = "wc_loc_qp_op_err",
	[SQ_CORE(completions[SROCE_WC_LOC_PROT_ERR])].name = "wc_loc_prot_err",
	[SQ_CORE(completions[SROCE_WC_WR_FLUSH_ERR])].name = "wc_wr_flush_err",
	[SQ_CORE(completions[SROCE_WC_BAD_RESP_ERR])].name = "wc_bad_resp_err",
	[SQ_CORE(completions[SROCE_WC_REM_INV_REQ_ERR])].name = "wc_rem_inv_req_err",
	[SQ_CORE(completions[SROCE_WC_REM_ACCESS_ERR])].name = "wc_rem_access_err",
	[SQ_CORE(completions[SROCE_WC_REM_OP_ERR])].name = "wc_rem_op_err",
	[SQ_CORE(completions[SROCE_WC_RETRY_EXC_ERR])].name = "wc_retry_exc_err",
	[SQ_CORE(completions[SROCE_WC_RNR_RETRY_EXC_ERR])].name = "wc_rnr_retry_exc_err",
	[SQ_CORE(completions[SROCE_WC_MW_BIND_ERR])] = {
		.name = "wc_mw_bind_err", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(blocked[SROCE_BLK_WINDOW])].name = "req_blocked_window",
	[SQ_CORE(blocked[SROCE_BLK_ORD])] = {
		.name = "req_blocked_ord", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(blocked[SROCE_BLK_FENCE])] = {
		.name = "req_blocked_fence", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(blocked[SROCE_BLK_CREDITS])].name = "req_blocked_credits",
	[SQ_CORE(blocked[SROCE_BLK_RNR_WAIT])].name = "req_blocked_rnr_wait",
	[SQ_CORE(blocked[SROCE_BLK_DRAINING])] = {
		.name = "req_blocked_draining", .flags = IB_STAT_FLAG_OPTIONAL },
	[SQ_CORE(blocked[SROCE_BLK_ERROR])].name = "req_blocked_error",
	[SQ_CORE(blocked[SROCE_BLK_HOLD])].name = "req_blocked_hold",
};

/* Every counter has a name: a new enum value without one fails here. */
static_assert(CORE(drops[SROCE_DROP_REASON_COUNT - 1]) == SROCE_CNT_CORE_LAST);
static_assert(SQ_CORE(blocked[SROCE_BLK_REASON_COUNT - 1]) == SROCE_CNT_SQ_CORE_LAST);
static_assert(RX_DROP(NO_MEMORY) == SROCE_CNT_RX_DROP_LAST);

/*
 * The order ib_core sees them in: ib_core wants the optional counters
 * after all the others (its sysfs setup WARNs otherwise), so
 * sroce_stats_init() lays them out that way and keeps each one's counter.
 */
static struct rdma_stat_desc sroce_stat_descs[SROCE_CNT_COUNT] __ro_after_init;
static u16 sroce_stat_counter[SROCE_CNT_COUNT] __ro_after_init;
static int sroce_stat_count __ro_after_init;	/* shown: the named ones */

void __init sroce_stats_init(void)
{
	int pass, i, n = 0;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < SROCE_CNT_COUNT; i++) {
			int optional = !!(sroce_counter_descs[i].flags & IB_STAT_FLAG_OPTIONAL);

			if (optional != pass)	/* the others first, then the optional ones */
				continue;
			if (!sroce_counter_descs[i].name)	/* never counted: not shown */
				continue;
			sroce_stat_descs[n] = sroce_counter_descs[i];
			sroce_stat_counter[n++] = i;
		}
	}
	sroce_stat_count = n;
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(sroce_stat_descs, sroce_stat_count,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	for (i = 0; i < sroce_stat_count; i++)
		if (sroce_stat_descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			set_bit(i, stats->is_disabled);
	return stats;
}

/*
 * `rdma statistic set link sroce0/1 optional-counters NAME,...`: every
 * counter is always counted, so enabling or disabling one only changes
 * what ib_core shows (its is_disabled bit).
 */
int sroce_modify_hw_stat(struct ib_device *ibdev, u32 port, unsigned int index, bool enable)
{
	return index < sroce_stat_count ? 0 : -EINVAL;
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
		       int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < sroce_stat_count; i++)
		stats->value[i] = atomic64_read(&sdev->counters[sroce_stat_counter[i]]);
	return sroce_stat_count;
}

/*
 * The netlink bytes the counters enabled by default take in `rdma
 * statistic show` (rdma_nl_stat_hwcounter_entry(): a nest, the name, the
 * 64-bit value).
 */
size_t sroce_stats_nl_bytes(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < sroce_stat_count; i++) {
		if (sroce_stat_descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			continue;
		n += nla_total_size(0) + nla_total_size(strlen(sroce_stat_descs[i].name) + 1) +
		     nla_total_size_64bit(sizeof(u64));
	}
	return n;
}

/* Every counter has a name (a new enum entry without one would be NULL). */
bool sroce_stats_all_named(void)
{
	int i;

	for (i = 0; i < SROCE_CNT_COUNT; i++)
		if (!sroce_counter_descs[i].name && i != SQ_CORE(blocked[SROCE_BLK_NONE]))
			return false;
	return sroce_stat_count == SROCE_CNT_COUNT - 1;
}

/*
 * The netlink bytes of the counters' status, which `rdma statistic set
 * ... optional-counters` reads first (nldev's STAT_GET_STATUS): for every
 * counter shown, a nest with its name, its index and, for an optional
 * one, whether it is enabled.
 */
size_t sroce_stats_status_nl_bytes(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < sroce_stat_count; i++) {
		n += nla_total_size(0) + nla_total_size(strlen(sroce_stat_descs[i].name) + 1) +
		     nla_total_size(sizeof(u32));
		if (sroce_stat_descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			n += nla_total_size(sizeof(u8));
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_stats_status_nl_bytes);
EXPORT_SYMBOL_IF_KUNIT(sroce_stats_all_named);

/* The optional counters come last (KUnit checks what ib_core relies on). */
bool sroce_stats_optional_last(void)
{
	bool seen = false;
	int i;

	for (i = 0; i < sroce_stat_count; i++) {
		bool optional = sroce_stat_descs[i].flags & IB_STAT_FLAG_OPTIONAL;

		if (seen && !optional)
			return false;
		seen |= optional;
	}
	return seen;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_stats_optional_last);
EXPORT_SYMBOL_IF_KUNIT(sroce_stats_nl_bytes);

