/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UC receive cases (include/sroce/uc_abi.h), shared by KUnit and the
 * GoogleTest runner: runs of packets at a UC QP with a 256-byte path
 * MTU, what each earns, and the PSN expected after it.
 */
#include "uc_case.h"

#define XS_FIRST UC_X(SEND) | UC_X(FIRST) | UC_X(WQE)
#define XS_MIDDLE UC_X(SEND)
#define XS_LAST UC_X(SEND) | UC_X(LAST)
#define XS_ONLY UC_X(SEND) | UC_X(FIRST) | UC_X(LAST) | UC_X(WQE)
#define XW_FIRST UC_X(WRITE) | UC_X(FIRST)
#define XW_MIDDLE UC_X(WRITE)
#define XW_LAST UC_X(WRITE) | UC_X(LAST)
#define XW_ONLY UC_X(WRITE) | UC_X(FIRST) | UC_X(LAST)
#define XW_ONLY_IMM UC_X(WRITE) | UC_X(FIRST) | UC_X(LAST) | UC_X(WQE)

static const struct sroce_uc_case sroce_uc_cases[] = {
	{
		.name = "uc-place a send and a write at the expected psns are carried out",
		.rules = "uc-place", .epsn = 10, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 10, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(11) },
		{ UC_PKT(SEND_MIDDLE, 11, 256, 0), UC_EXEC(XS_MIDDLE, PLACE), UC_OK, UC_EPSN(12) },
		{ UC_PKT(SEND_LAST_IMM, 12, 100, 0), UC_EXEC(XS_LAST, PLACE), UC_OK, UC_EPSN(13) },
		{ UC_PKT(WRITE_FIRST, 13, 256, 600), UC_EXEC(XW_FIRST, PLACE), UC_OK, UC_EPSN(14) },
		{ UC_PKT(WRITE_MIDDLE, 14, 256, 0), UC_EXEC(XW_MIDDLE, PLACE), UC_OK, UC_EPSN(15) },
		{ UC_PKT(WRITE_LAST, 15, 88, 0), UC_EXEC(XW_LAST, PLACE), UC_OK, UC_EPSN(16) },
		{ UC_PKT(WRITE_ONLY_IMM, 16, 8, 8), UC_EXEC(XW_ONLY_IMM, PLACE), UC_OK,
		  UC_EPSN(17) }),
	},
	{
		.name = "uc-place the psn wraps at 2^24",
		.rules = "uc-place", .epsn = 0xffffff, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0xffffff, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK,
		  UC_EPSN(0) },
		{ UC_PKT(SEND_LAST, 0, 1, 0), UC_EXEC(XS_LAST, PLACE), UC_OK, UC_EPSN(1) }),
	},
	{
		.name = "uc-psn a lost middle drops the rest of the send; the rq wqe is rewound",
		.rules = "uc-psn uc-abort", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(SEND_MIDDLE, 2, 256, 0), UC_DROP(PSN, PSN, UC_REWIND), UC_EPSN(1) },
		{ UC_PKT(SEND_LAST, 3, 10, 0), UC_DROP(REST, PSN), UC_EPSN(1) },
		{ UC_PKT(SEND_ONLY, 4, 10, 0), UC_EXEC(XS_ONLY, RESYNC), UC_OK, UC_EPSN(5) }),
	},
	{
		.name = "uc-psn a lost packet of a write drops the write; no wqe is involved",
		.rules = "uc-psn", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(WRITE_FIRST, 0, 256, 600), UC_EXEC(XW_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(WRITE_LAST_IMM, 2, 88, 0), UC_DROP(PSN, PSN), UC_EPSN(1) },
		{ UC_PKT(WRITE_MIDDLE, 1, 256, 0), UC_DROP(REST, PSN), UC_EPSN(1) }),
	},
	{
		.name = "uc-abort with an srq the dropped send's wqe completes rem_inv_req_err",
		.rules = "uc-abort uc-psn", .epsn = 0, .pmtu = 256, .srq = 1,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(SEND_LAST, 2, 10, 0), UC_DROP(PSN, PSN, UC_FAIL_WQE), UC_EPSN(1) }),
	},
	{
		.name = "uc-sequence a first inside a send abandons it and starts anew",
		.rules = "uc-sequence uc-abort", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(SEND_FIRST, 1, 256, 0), UC_EXEC(XS_FIRST, SEQUENCE, UC_REWIND), UC_OK,
		  UC_EPSN(2) },
		{ UC_PKT(SEND_LAST, 2, 5, 0), UC_EXEC(XS_LAST, PLACE), UC_OK, UC_EPSN(3) }),
	},
	{
		.name = "uc-sequence a write only inside a write abandons it, no wqe to give up",
		.rules = "uc-sequence", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(WRITE_FIRST, 0, 256, 512), UC_EXEC(XW_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(WRITE_ONLY, 7, 4, 4), UC_EXEC(XW_ONLY, SEQUENCE), UC_OK, UC_EPSN(8) }),
	},
	{
		.name = "uc-sequence a middle or last with no message in progress is dropped",
		.rules = "uc-sequence uc-resync", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_MIDDLE, 0, 256, 0), UC_DROP(SEQUENCE, SEQUENCE), UC_EPSN(0) },
		{ UC_PKT(SEND_LAST, 1, 4, 0), UC_DROP(REST, PSN), UC_EPSN(0) },
		{ UC_PKT(WRITE_ONLY, 1, 4, 4), UC_EXEC(XW_ONLY, RESYNC), UC_OK, UC_EPSN(2) },
		{ UC_PKT(WRITE_LAST, 2, 4, 0), UC_DROP(SEQUENCE, SEQUENCE), UC_EPSN(2) }),
	},
	{
		.name = "uc-sequence a write middle inside a send is out of sequence",
		.rules = "uc-sequence uc-abort", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(WRITE_MIDDLE, 1, 256, 0), UC_DROP(SEQUENCE, SEQUENCE, UC_REWIND),
		  UC_EPSN(1) }),
	},
	{
		.name = "uc-resync a first or only starts at its own psn, even an old one",
		.rules = "uc-resync", .epsn = 100, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_ONLY, 50, 8, 0), UC_EXEC(XS_ONLY, RESYNC), UC_OK, UC_EPSN(51) },
		{ UC_PKT(SEND_ONLY, 51, 8, 0), UC_EXEC(XS_ONLY, PLACE), UC_OK, UC_EPSN(52) },
		{ UC_PKT(WRITE_FIRST, 9, 256, 257), UC_EXEC(XW_FIRST, RESYNC), UC_OK,
		  UC_EPSN(10) }),
	},
	{
		.name = "uc-length first and middle carry one mtu, last and only at most one",
		.rules = "uc-length", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 255, 0), UC_DROP(LENGTH, LENGTH), UC_EPSN(0) },
		{ UC_PKT(SEND_MIDDLE, 1, 256, 0), UC_DROP(REST, PSN), UC_EPSN(0) },
		{ UC_PKT(SEND_ONLY, 1, 257, 0), UC_DROP(LENGTH, LENGTH), UC_EPSN(0) },
		{ UC_PKT(SEND_ONLY, 1, 256, 0), UC_EXEC(XS_ONLY, RESYNC), UC_OK, UC_EPSN(2) }),
	},
	{
		.name = "uc-length a middle too short inside a send abandons it",
		.rules = "uc-length uc-abort", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(SEND_MIDDLE, 1, 100, 0), UC_DROP(LENGTH, LENGTH, UC_REWIND), UC_EPSN(1) },
		{ UC_PKT(SEND_LAST, 2, 1, 0), UC_DROP(REST, PSN), UC_EPSN(1) }),
	},
	{
		.name = "uc-length a write's reth length fits its packets, below 2^31",
		.rules = "uc-length", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(WRITE_ONLY, 0, 8, 9), UC_DROP(LENGTH, LENGTH), UC_EPSN(0) },
		{ UC_PKT(WRITE_FIRST, 0, 256, 256), UC_DROP(LENGTH, LENGTH), UC_EPSN(0) },
		{ UC_PKT(WRITE_FIRST, 0, 256, 0x80000000), UC_DROP(LENGTH, LENGTH), UC_EPSN(0) },
		{ UC_PKT(WRITE_FIRST, 0, 256, 300), UC_EXEC(XW_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_PKT(WRITE_LAST, 1, 44, 0), UC_EXEC(XW_LAST, PLACE), UC_OK, UC_EPSN(2) }),
	},
	{
		.name = "uc-exec no receive wqe: the send is dropped to its end, no rnr",
		.rules = "uc-exec", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE),
		  UC_FAILS(RNR, NO_WQE, UC_REWIND), UC_EPSN(0) },
		{ UC_PKT(SEND_LAST, 1, 4, 0), UC_DROP(REST, PSN), UC_EPSN(0) },
		{ UC_PKT(SEND_ONLY, 2, 4, 0), UC_EXEC(XS_ONLY, RESYNC), UC_OK, UC_EPSN(3) }),
	},
	{
		.name = "uc-exec a write refused for access or rkey is dropped silently",
		.rules = "uc-exec uc-abort", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(WRITE_FIRST, 0, 256, 512), UC_EXEC(XW_FIRST, PLACE),
		  UC_FAILS(REM_ACCESS, EXEC), UC_EPSN(0) },
		{ UC_PKT(WRITE_LAST, 1, 256, 0), UC_DROP(REST, PSN), UC_EPSN(0) },
		{ UC_PKT(WRITE_ONLY_IMM, 2, 4, 4), UC_EXEC(XW_ONLY_IMM, RESYNC),
		  UC_FAILS(REM_ACCESS, EXEC, UC_REWIND), UC_EPSN(0) },
		{ UC_PKT(SEND_ONLY, 3, 1, 0), UC_EXEC(XS_ONLY, RESYNC), UC_OK, UC_EPSN(4) }),
	},
	{
		.name = "uc-exec with an srq a send too long for its wqe completes rem_inv_req_err",
		.rules = "uc-exec uc-abort", .epsn = 0, .pmtu = 256, .srq = 1,
		UC_STEPS(
		{ UC_PKT(SEND_ONLY, 0, 100, 0), UC_EXEC(XS_ONLY, PLACE),
		  UC_FAILS(INVALID, EXEC, UC_FAIL_WQE), UC_EPSN(0) }),
	},
	{
		.name = "uc-opcode rc, ud and unassigned opcodes are dropped; the message goes on",
		.rules = "uc-opcode", .epsn = 0, .pmtu = 256,
		UC_STEPS(
		{ UC_PKT(SEND_FIRST, 0, 256, 0), UC_EXEC(XS_FIRST, PLACE), UC_OK, UC_EPSN(1) },
		{ UC_RAW(SEND_LAST, 1, 4), UC_DROP(OPCODE, OPCODE), UC_EPSN(1) },
		{ UC_RAW(READ_REQUEST, 1, 0), UC_DROP(OPCODE, OPCODE), UC_EPSN(1) },
		{ UC_RAW(ACKNOWLEDGE, 1, 0), UC_DROP(OPCODE, OPCODE), UC_EPSN(1) },
		{ UC_RAW(UD_SEND_ONLY, 1, 4), UC_DROP(OPCODE, OPCODE), UC_EPSN(1) },
		{ UC_RAW(UC_END, 1, 4), UC_DROP(OPCODE, OPCODE), UC_EPSN(1) },
		{ UC_PKT(SEND_LAST, 1, 4, 0), UC_EXEC(XS_LAST, PLACE), UC_OK, UC_EPSN(2) }),
	},
};

#undef XS_FIRST
#undef XS_MIDDLE
#undef XS_LAST
#undef XS_ONLY
#undef XW_FIRST
#undef XW_MIDDLE
#undef XW_LAST
#undef XW_ONLY
#undef XW_ONLY_IMM
