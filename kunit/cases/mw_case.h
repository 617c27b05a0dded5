/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Table-driven memory window cases (include/sroce/mw_abi.h), shared by
 * KUnit and the GoogleTest runner: one decision each, every field of the
 * verdict compared.
 */
#ifndef SROCE_MW_CASE_H
#define SROCE_MW_CASE_H

#include <sroce/mw_abi.h>
#include "case.h"

enum sroce_mw_case_kind { MW_BIND = 0, MW_INV = 1, MW_ACCESS = 2 };

struct sroce_mw_case {
	const char *name;	/* behaviour, with its rule tag */
	const char *rules;
	uint8_t kind;
	struct sroce_mw_bind_in bind;
	struct sroce_mw_inv_in inv;
	struct sroce_mw_access_in access;
	struct sroce_mw_verdict want;
};

SROCE_EXTERN_C_BEGIN
void sroce_mw_case_run(const struct sroce_mw_case *c, const struct sroce_case_checker *chk);
SROCE_EXTERN_C_END

#define A_LW SROCE_MWA_LOCAL_WRITE
#define A_RW SROCE_MWA_REMOTE_WRITE
#define A_RR SROCE_MWA_REMOTE_READ
#define A_RA SROCE_MWA_REMOTE_ATOMIC
#define A_BIND SROCE_MWA_MW_BIND
#define A_ZB SROCE_MWA_ZERO_BASED
#define W_ACC (A_RW | A_RR)		/* the window's rights in most cases */
#define MR_ACC (A_LW | A_BIND | A_RR)	/* its MR's */

/*
 * A bind of a type t_ window in state st_ (key 0x4242, asked 0x..43) at
 * [addr_, +len_) with rights acc_, onto an MR at 0x1000 + 0x1000 with
 * rights macc_; key_ names the window; found_, qppd_, mrpd_ as the fields.
 */
#define BIND_IN(t_, st_, addr_, len_, acc_, macc_, key_, found_, qppd_, mrpd_) \
	.kind = MW_BIND, \
	.bind = { .addr = (addr_), .length = (len_), .mr_iova = 0x1000, .mr_length = 0x1000, \
		  .cur_rkey = 0x4242, .wr_mw_rkey = (key_), .wr_rkey = 0x1243, \
		  .access = (acc_), .mr_access = (macc_), .type = (t_), \
		  .state = SROCE_MW_##st_, .mr_found = (found_), .qp_pd_match = (qppd_), \
		  .mr_pd_match = (mrpd_) }
/* ... one that may go: window 0x1100 + 0x100, remote read and write. */
#define BIND_RANGE(t_, st_, addr_, len_) \
	BIND_IN(t_, st_, addr_, len_, W_ACC, MR_ACC, 0x4242, 1, 1, 1)
#define BIND_RIGHTS(t_, st_, acc_, macc_) \
	BIND_IN(t_, st_, 0x1100, 0x100, acc_, macc_, 0x4242, 1, 1, 1)
#define BIND_OK(t_, st_) BIND_RANGE(t_, st_, 0x1100, 0x100)
/*
 * An access to [va_, +len_) wanting want_ through key rkey_ of a type t_
 * window (key 0x4243) at [addr_, +wlen_) granting acc_, in state st_.
 */
#define ACCESS_IN(t_, st_, va_, len_, addr_, wlen_, rkey_, acc_, want_, pd_, qp_) \
	.kind = MW_ACCESS, \
	.access = { .va = (va_), .len = (len_), .addr = (addr_), .length = (wlen_), \
		    .cur_rkey = 0x4243, .rkey = (rkey_), .access = (acc_), .want = (want_), \
		    .type = (t_), .state = SROCE_MW_##st_, .pd_match = (pd_), .qp_match = (qp_) }
#define ACCESS_RANGE(t_, va_, len_) \
	ACCESS_IN(t_, VALID, va_, len_, 0x1100, 0x100, 0x4243, A_RW | A_RR, A_RW, 1, 1)
#define ACCESS_OK(t_) ACCESS_RANGE(t_, 0x1100, 0x100)
/* ... through a zero-based type 2 window, remote read and write. */
#define ACCESS_ZB(va_, len_, want_) \
	ACCESS_IN(2, VALID, va_, len_, 0x1100, 0x100, 0x4243, A_RW | A_RR | A_ZB, want_, 1, 1)
/* An invalidation of key rkey_ of a type t_ window (key 0x4243) in state st_. */
#define INV_IN(t_, st_, rkey_, qp_) \
	.kind = MW_INV, \
	.inv = { .cur_rkey = 0x4243, .rkey = (rkey_), .type = (t_), .state = SROCE_MW_##st_, \
		 .qp_match = (qp_) }
#define INV_OK(t_) INV_IN(t_, VALID, 0x4243, 1)
#define MW_WANT(st_, state_, rkey_, rule_) MW_WANT_VA(st_, state_, rkey_, rule_, 0)
/* ... and an access that may go starts at va_ in the MR. */
#define MW_WANT_VA(st_, state_, rkey_, rule_, va_) \
	.want = { .status = SROCE_WC_##st_, .state = SROCE_MW_##state_, .rkey = (rkey_), \
		  .rule = SROCE_MWR_##rule_, .va = (va_) }

#endif /* SROCE_MW_CASE_H */
