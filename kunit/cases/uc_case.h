/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shape of the UC receive cases (uc.h), shared by KUnit and the
 * GoogleTest runner, and their runner (uc_runner.c).  A case is a QP's
 * starting state and a run of packets; each step gives what
 * sroce_uc_rx() must answer, what the caller reports if told to execute,
 * what sroce_uc_executed() must answer then, and the PSN expected after.
 */
#ifndef SROCE_UC_CASE_H
#define SROCE_UC_CASE_H

#include <sroce/uc_abi.h>
#include "case.h"

struct sroce_uc_step {
	struct sroce_uc_req req;
	struct sroce_uc_ret rx;		/* expected from sroce_uc_rx() */
	uint8_t exec_status;		/* reported if rx.action is EXECUTE */
	struct sroce_uc_ret done;	/* expected from sroce_uc_executed() */
	uint32_t epsn;			/* expected PSN afterwards */
};

struct sroce_uc_case {
	const char *name;	/* behaviour, with its rule tag */
	const char *rules;
	uint32_t epsn;
	uint32_t pmtu;
	uint8_t srq;
	uint32_t nsteps;
	const struct sroce_uc_step *steps;
};

SROCE_EXTERN_C_BEGIN
void sroce_uc_case_run(const struct sroce_uc_case *c, const struct sroce_case_checker *chk);
SROCE_EXTERN_C_END

#define UC_STEPS(...) .nsteps = SROCE_COUNT(struct sroce_uc_step, __VA_ARGS__), \
		      .steps = SROCE_ARRAY(struct sroce_uc_step, __VA_ARGS__)
/* A packet: UC opcode without SROCE_OP_UC_, PSN, payload, RETH length. */
#define UC_PKT(op_, psn_, len_, dma_) \
	.req = { .opcode = SROCE_OP_UC_##op_, .psn = (psn_), .payload_len = (len_), \
		 .dma_len = (dma_) }
#define UC_RAW(op_, psn_, len_) \
	.req = { .opcode = SROCE_OP_##op_, .psn = (psn_), .payload_len = (len_) }
/* Expected answers. */
#define UC_X(flags_) (SROCE_XF_##flags_)
#define UC_EXEC(xf_, rule_, ...) \
	.rx = { .action = SROCE_UC_EXECUTE, .exec = (xf_), .rule = SROCE_UCR_##rule_, __VA_ARGS__ }
#define UC_DROP(why_, rule_, ...) \
	.rx = { .action = SROCE_UC_DROP, .reason = SROCE_UCDROP_##why_, .rule = SROCE_UCR_##rule_, \
		__VA_ARGS__ }
#define UC_OK .exec_status = SROCE_EXEC_OK, \
	      .done = { .action = SROCE_UC_DONE, .rule = SROCE_UCR_PLACE }
#define UC_FAILS(st_, why_, ...) \
	.exec_status = SROCE_EXEC_##st_, \
	.done = { .action = SROCE_UC_DROP, .reason = SROCE_UCDROP_##why_, \
		  .rule = SROCE_UCR_EXEC, __VA_ARGS__ }
#define UC_REWIND .abort = SROCE_UC_ABORT_REWIND
#define UC_FAIL_WQE .abort = SROCE_UC_ABORT_FAIL, .status = SROCE_WC_REM_INV_REQ_ERR
#define UC_EPSN(p_) .epsn = (p_)

#endif /* SROCE_UC_CASE_H */
