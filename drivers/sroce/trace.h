/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce tracepoints: one event per response the core decided and the
 * shim sent, with the spec rule that drove it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <sroce/core_abi.h>

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
		  __entry->qpn, sroce_resp_kind_name(__entry->kind), __entry->psn,
		  __entry->msn, __entry->syndrome, sroce_rule_name(__entry->rule))
);

#endif /* _SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
