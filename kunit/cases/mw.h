/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory window decisions: binding (type 1 through ibv_bind_mw, type 2
 * through a BIND_MW work request), invalidation (LOCAL_INV, SEND with
 * Invalidate) and remote access through a window's R_Key.
 */
static const struct sroce_mw_case sroce_mw_cases[] = {
	{
		.name = "mw-bind a type 1 bind re-keys the window with the low byte asked for",
		.rules = "mw-bind",
		BIND_OK(1, VALID),
		MW_WANT(SUCCESS, VALID, 0x4243, BIND),
	},
	{
		.name = "mw-bind a type 2 bind of a free window makes it valid",
		.rules = "mw-bind",
		BIND_OK(2, FREE),
		MW_WANT(SUCCESS, VALID, 0x4243, BIND),
	},
	{
		.name = "mw-bind a window as large as its mr, at its start, may be bound",
		.rules = "mw-bind C10-75",
		BIND_RANGE(2, FREE, 0x1000, 0x1000),
		MW_WANT(SUCCESS, VALID, 0x4243, BIND),
	},
	{
		.name = "mw-bind a zero-length type 1 bind unbinds: valid, covering nothing",
		.rules = "mw-bind",
		BIND_IN(1, VALID, 0x1100, 0, A_RW | A_RR, 0, 0x4242, 0, 1, 1),
		MW_WANT(SUCCESS, VALID, 0x4243, BIND),
	},
	{
		.name = "mw-key a bind naming the window by a key it no longer has fails",
		.rules = "mw-key",
		BIND_IN(1, VALID, 0x1100, 0x100, W_ACC, MR_ACC, 0x4241, 1, 1, 1),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, KEY),
	},
	{
		.name = "mw-key a bind naming no live mr fails",
		.rules = "mw-key",
		BIND_IN(2, FREE, 0x1100, 0x100, W_ACC, MR_ACC, 0x4242, 0, 1, 1),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, KEY),
	},
	{
		.name = "mw-key a bind onto an mr of another pd fails",
		.rules = "mw-key",
		BIND_IN(1, VALID, 0x1100, 0x100, W_ACC, MR_ACC, 0x4242, 1, 1, 0),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, KEY),
	},
	{
		.name = "mw-rights a window granting local write fails",
		.rules = "mw-rights",
		BIND_RIGHTS(1, VALID, A_RR | A_LW, MR_ACC),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, RIGHTS),
	},
	{
		.name = "mw-rights a zero-based type 2 window is refused",
		.rules = "mw-rights",
		BIND_RIGHTS(2, FREE, A_RR | A_ZB, MR_ACC),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, RIGHTS),
	},
	{
		.name = "o10-36.2.2 a type 1 window is never zero-based",
		.rules = "o10-36.2.2",
		BIND_RIGHTS(1, VALID, A_RR | A_ZB, MR_ACC),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, O10_36_2_2),
	},
	{
		.name = "o10-37.2.30 a type 2 window already bound cannot be bound again",
		.rules = "o10-37.2.30",
		BIND_OK(2, VALID),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, O10_37_2_30),
	},
	{
		.name = "C10-72 a type 2 window is bound only on a qp of its pd",
		.rules = "C10-72",
		BIND_IN(2, FREE, 0x1100, 0x100, W_ACC, MR_ACC, 0x4242, 1, 0, 1),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, C10_72),
	},
	{
		.name = "o10-37.2.40 a zero-length type 2 bind fails",
		.rules = "o10-37.2.40",
		BIND_RANGE(2, FREE, 0x1100, 0),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, O10_37_2_40),
	},
	{
		.name = "C10-73 the mr must have been registered with mw_bind",
		.rules = "C10-73",
		BIND_RIGHTS(1, VALID, A_RW | A_RR, A_LW | A_RR),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, C10_73),
	},
	{
		.name = "C10-74 a window granting remote write needs local write on its mr",
		.rules = "C10-74",
		BIND_RIGHTS(2, FREE, A_RW | A_RR, A_BIND | A_RR),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, C10_74),
	},
	{
		.name = "C10-74 a window granting remote atomic needs local write on its mr",
		.rules = "C10-74",
		BIND_RIGHTS(1, VALID, A_RA, A_BIND),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, C10_74),
	},
	{
		.name = "C10-74 a read-only window needs no local write",
		.rules = "C10-74",
		BIND_RIGHTS(1, VALID, A_RR, A_BIND),
		MW_WANT(SUCCESS, VALID, 0x4243, BIND),
	},
	{
		.name = "C10-75 a window starting before its mr fails",
		.rules = "C10-75",
		BIND_RANGE(2, FREE, 0xfff, 0x100),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, C10_75),
	},
	{
		.name = "C10-75 a window ending past its mr fails",
		.rules = "C10-75",
		BIND_RANGE(1, VALID, 0x1f01, 0x100),
		MW_WANT(MW_BIND_ERR, VALID, 0x4242, C10_75),
	},
	{
		.name = "C10-75 a window whose end wraps around fails",
		.rules = "C10-75",
		BIND_RANGE(2, FREE, 0x1100, 0xffffffffffffff00ull),
		MW_WANT(MW_BIND_ERR, FREE, 0x4242, C10_75),
	},
	{
		.name = "mw-invalidate a type 2 window bound to the qp goes free",
		.rules = "mw-invalidate",
		INV_OK(2),
		MW_WANT(SUCCESS, FREE, 0x4243, INVALIDATE),
	},
	{
		.name = "mw-invalidate the wrong key leaves the window bound",
		.rules = "mw-invalidate",
		INV_IN(2, VALID, 0x4244, 1),
		MW_WANT(LOC_QP_OP_ERR, VALID, 0x4243, INVALIDATE),
	},
	{
		.name = "mw-invalidate from a qp the window is not bound to fails",
		.rules = "mw-invalidate",
		INV_IN(2, VALID, 0x4243, 0),
		MW_WANT(LOC_QP_OP_ERR, VALID, 0x4243, INVALIDATE),
	},
	{
		.name = "mw-invalidate a free window cannot be invalidated again",
		.rules = "mw-invalidate",
		INV_IN(2, FREE, 0x4243, 1),
		MW_WANT(LOC_QP_OP_ERR, FREE, 0x4243, INVALIDATE),
	},
	{
		.name = "o10-37.2.26 a type 1 window cannot be invalidated",
		.rules = "o10-37.2.26",
		INV_OK(1),
		MW_WANT(LOC_QP_OP_ERR, VALID, 0x4243, O10_37_2_26),
	},
	{
		.name = "mw-access a write inside a bound window with its rights may go",
		.rules = "mw-access",
		ACCESS_OK(2),
		MW_WANT(SUCCESS, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a type 1 window serves any qp of its pd",
		.rules = "mw-access",
		ACCESS_IN(1, VALID, 0x11ff, 1, 0x1100, 0x100, 0x4243, A_RW | A_RR, A_RR, 1, 0),
		MW_WANT(SUCCESS, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a type 2 window serves only the qp it is bound to",
		.rules = "mw-access",
		ACCESS_IN(2, VALID, 0x1100, 0x100, 0x1100, 0x100, 0x4243, A_RW | A_RR, A_RW, 1, 0),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a key the window no longer has is refused",
		.rules = "mw-access",
		ACCESS_IN(1, VALID, 0x1100, 0x100, 0x1100, 0x100, 0x4242, A_RW | A_RR, A_RW, 1, 1),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access an invalidated (free) window is refused",
		.rules = "mw-access",
		ACCESS_IN(2, FREE, 0x1100, 0x100, 0x1100, 0x100, 0x4243, A_RW | A_RR, A_RW, 1, 1),
		MW_WANT(REM_ACCESS_ERR, FREE, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a qp of another pd is refused",
		.rules = "mw-access",
		ACCESS_IN(1, VALID, 0x1100, 0x100, 0x1100, 0x100, 0x4243, A_RW | A_RR, A_RW, 0, 1),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a right the window does not grant is refused",
		.rules = "mw-access",
		ACCESS_IN(2, VALID, 0x1100, 0x100, 0x1100, 0x100, 0x4243, A_RR, A_RW, 1, 1),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a range past the window's end is refused, inside its mr or not",
		.rules = "mw-access",
		ACCESS_RANGE(2, 0x1101, 0x100),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access a range before the window's start is refused",
		.rules = "mw-access",
		ACCESS_RANGE(1, 0x10ff, 2),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
	{
		.name = "mw-access an unbound type 1 window (length 0) grants nothing",
		.rules = "mw-access",
		ACCESS_IN(1, VALID, 0, 1, 0, 0, 0x4243, 0, A_RR, 1, 1),
		MW_WANT(REM_ACCESS_ERR, VALID, 0x4243, ACCESS),
	},
};
