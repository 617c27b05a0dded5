/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shape of the UD receive cases (ud.h), shared by KUnit and the
 * GoogleTest runner, and their runner (ud_runner.c).
 */
#ifndef SROCE_UD_CASE_H
#define SROCE_UD_CASE_H

#include <sroce/ud_abi.h>
#include "case.h"

struct sroce_ud_case {
	const char *name;	/* behaviour, with its rule tag */
	const char *rules;
	uint32_t qp_qkey;
	struct sroce_ud_req req;
	uint8_t wqe;		/* enum sroce_ud_wqe, if admitted */
	uint32_t wqe_len;
	/* expected from sroce_ud_admit() */
	uint8_t admit_action;
	uint8_t admit_reason;
	uint8_t admit_rule;
	/* expected from sroce_ud_place(), when admitted */
	struct sroce_ud_ret place;
};

struct sroce_ud_qkey_case {
	const char *name;
	uint32_t wr_qkey;
	uint32_t qp_qkey;
	uint32_t deth_qkey;
};

SROCE_EXTERN_C_BEGIN
void sroce_ud_case_run(const struct sroce_ud_case *c, const struct sroce_case_checker *chk);
void sroce_ud_qkey_case_run(const struct sroce_ud_qkey_case *c,
			    const struct sroce_case_checker *chk);
SROCE_EXTERN_C_END

#define UD_REQ(op_, qkey_, len_) \
	.req = { .opcode = SROCE_OP_##op_, .deth_qkey = (qkey_), .payload_len = (len_) }
#define UD_ADMIT .admit_action = SROCE_UD_TAKE_WQE
#define UD_REFUSE(why_, rule_) .admit_action = SROCE_UD_DROP, .admit_reason = SROCE_UDROP_##why_, \
			       .admit_rule = SROCE_UDR_##rule_
#define UD_WQE(kind_, len_) .wqe = SROCE_UD_WQE_##kind_, .wqe_len = (len_)
#define UD_DELIVER(bytes_) \
	.place = { .action = SROCE_UD_DELIVER, .rule = SROCE_UDR_GRH, .byte_len = (bytes_), \
		   .data_off = SROCE_UD_GRH_LEN }
#define UD_ERROR(st_, rule_) \
	.place = { .action = SROCE_UD_COMPLETE_ERROR, .status = SROCE_WC_##st_, \
		   .rule = SROCE_UDR_##rule_ }
#define UD_DROP_AT_PLACE(why_, rule_) \
	.place = { .action = SROCE_UD_DROP, .reason = SROCE_UDROP_##why_, \
		   .rule = SROCE_UDR_##rule_ }

#endif /* SROCE_UD_CASE_H */
