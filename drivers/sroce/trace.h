/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce tracepoints: one event per response the core decided and the
 * shim sent, per request packet the requester core built, per
 * response the completer core interpreted, and per timer expiry it acted
 * on, each with the rule that drove it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <sroce/core_abi.h>
#include <sroce/sq_abi.h>

/*
 * Names the events print, from the ABI's name lists (types.h).  Each
 * enumerator is TRACE_DEFINE_ENUM'd, so that the format file gives user
 * space (perf, trace-cmd) numbers.  A list's last symbol is its count,
 * "invalid" as the cores' name functions say: every entry of a list ends
 * in a comma, and __print_symbolic() needs a last one that does not.
 */
#define SROCE_TRACE_ENUM(id, name) TRACE_DEFINE_ENUM(id);
#define SROCE_TRACE_SYMBOL(id, name) { id, name },
#define SROCE_TRACE_SYMBOL_VALUE(id, value, name) { value, name },
#define sroce_show_symbolic(v, list, entry, count) \
	__print_symbolic(v, list(entry) { count, "invalid" })

SROCE_RULE_LIST(SROCE_TRACE_ENUM)
SROCE_SQ_RULE_LIST(SROCE_TRACE_ENUM)
SROCE_COMP_DROP_LIST(SROCE_TRACE_ENUM)
TRACE_DEFINE_ENUM(SROCE_RULE_COUNT);
TRACE_DEFINE_ENUM(SROCE_SQR_COUNT);
TRACE_DEFINE_ENUM(SROCE_CDROP_REASON_COUNT);
TRACE_DEFINE_ENUM(SROCE_RESP_KIND_COUNT);

#define sroce_show_kind(v) \
	sroce_show_symbolic(v, SROCE_RESP_KIND_LIST, SROCE_TRACE_SYMBOL_VALUE, \
			    SROCE_RESP_KIND_COUNT)
#define sroce_show_rule(v) \
	sroce_show_symbolic(v, SROCE_RULE_LIST, SROCE_TRACE_SYMBOL, SROCE_RULE_COUNT)
#define sroce_show_sq_rule(v) \
	sroce_show_symbolic(v, SROCE_SQ_RULE_LIST, SROCE_TRACE_SYMBOL, SROCE_SQR_COUNT)
#define sroce_show_comp_drop(v) \
	sroce_show_symbolic(v, SROCE_COMP_DROP_LIST, SROCE_TRACE_SYMBOL, \
			    SROCE_CDROP_REASON_COUNT)

TRACE_EVENT(sroce_response,
	TP_PROTO(u32 qpn, const struct sroce_resp_desc *d),
	TP_ARGS(qpn, d),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, msn)
		__field(u8, kind)
		__field(u8, syndrome)
		__field(u8, rule)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = d->psn;
		__entry->msn = d->msn;
		__entry->kind = d->kind;
		__entry->syndrome = d->syndrome;
		__entry->rule = d->rule;
	),
	TP_printk("qpn=%#x %s psn=%#x msn=%u syndrome=%#x rule=%s",
		  __entry->qpn, sroce_show_kind(__entry->kind), __entry->psn,
		  __entry->msn, __entry->syndrome, sroce_show_rule(__entry->rule))
);

TRACE_EVENT(sroce_req_packet,
	TP_PROTO(u32 qpn, const struct sroce_req_pkt *p),
	TP_ARGS(qpn, p),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, wqe)
		__field(u32, length)
		__field(u8, opcode)
		__field(u8, flags)
		__field(u8, rule)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = p->psn;
		__entry->wqe = p->wqe;
		__entry->length = p->length;
		__entry->opcode = p->opcode;
		__entry->flags = p->flags;
		__entry->rule = p->rule;
	),
	TP_printk("qpn=%#x opcode=%#x psn=%#x wqe=%u len=%u ackreq=%u retry=%u rule=%s",
		  __entry->qpn, __entry->opcode, __entry->psn, __entry->wqe, __entry->length,
		  !!(__entry->flags & SROCE_PF_ACKREQ), !!(__entry->flags & SROCE_PF_RETRY),
		  sroce_show_sq_rule(__entry->rule))
);

TRACE_EVENT(sroce_comp_decision,
	TP_PROTO(u32 qpn, const struct sroce_comp_pkt *c, const struct sroce_sq_ret *r),
	TP_ARGS(qpn, c, r),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, opcode)
		__field(u8, syndrome)
		__field(u8, action)
		__field(u8, reason)
		__field(u8, rule)
		__field(u8, timer)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = c->psn;
		__entry->opcode = c->opcode;
		__entry->syndrome = c->syndrome;
		__entry->action = r->action;
		__entry->reason = r->reason;
		__entry->rule = r->rule;
		__entry->timer = r->timer;
	),
	TP_printk("qpn=%#x opcode=%#x psn=%#x syndrome=%#x action=%u drop=%s timer=%u rule=%s",
		  __entry->qpn, __entry->opcode, __entry->psn, __entry->syndrome,
		  __entry->action, sroce_show_comp_drop(__entry->reason), __entry->timer,
		  sroce_show_sq_rule(__entry->rule))
);

/*
 * A timer expiry the completer core acted on: the retransmit timer (go back
 * to acked + 1, or RETRY_EXC_ERR) or the RNR timer (resume).
 */
TRACE_EVENT(sroce_comp_timer,
	TP_PROTO(u32 qpn, bool rnr, u32 acked_psn, const struct sroce_sq_ret *r),
	TP_ARGS(qpn, rnr, acked_psn, r),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, acked_psn)
		__field(bool, rnr)
		__field(u8, action)
		__field(u8, rule)
		__field(u8, timer)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->acked_psn = acked_psn;
		__entry->rnr = rnr;
		__entry->action = r->action;
		__entry->rule = r->rule;
		__entry->timer = r->timer;
	),
	TP_printk("qpn=%#x %s acked=%#x action=%u timer=%u rule=%s",
		  __entry->qpn, __entry->rnr ? "rnr" : "retransmit", __entry->acked_psn,
		  __entry->action, __entry->timer, sroce_show_sq_rule(__entry->rule))
);

#endif /* _SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
