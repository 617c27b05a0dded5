/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UD receive cases (include/sroce/ud_abi.h), shared by KUnit and the
 * GoogleTest runner: what a datagram earns at a UD QP, and the Q_Key a UD
 * send puts in its DETH.
 */
#include "ud_case.h"

static const struct sroce_ud_case sroce_ud_cases[] = {
	{
		.name = "ud-grh the grh takes the first 40 bytes, the payload follows",
		.rules = "ud-grh", .qp_qkey = 0x11111111,
		UD_REQ(UD_SEND_ONLY, 0x11111111, 100), UD_ADMIT, UD_WQE(OK, 140), UD_DELIVER(140),
	},
	{
		.name = "ud-grh with immediate, zero-length payload: byte_len is the grh alone",
		.rules = "ud-grh", .qp_qkey = 7,
		UD_REQ(UD_SEND_ONLY_IMM, 7, 0), UD_ADMIT, UD_WQE(OK, 40), UD_DELIVER(40),
	},
	{
		.name = "ud-qkey a q_key not the qp's is dropped, no wqe taken",
		.rules = "ud-qkey", .qp_qkey = 0x11111111,
		UD_REQ(UD_SEND_ONLY, 0x11111112, 8), UD_REFUSE(QKEY, QKEY),
	},
	{
		.name = "ud-qkey a privileged q_key must match in full too",
		.rules = "ud-qkey", .qp_qkey = 0x80010000,
		UD_REQ(UD_SEND_ONLY, 0x80000000, 8), UD_REFUSE(QKEY, QKEY),
	},
	{
		.name = "ud-qkey the gsi q_key 0x80010000 admits a mad",
		.rules = "ud-qkey", .qp_qkey = 0x80010000,
		UD_REQ(UD_SEND_ONLY, 0x80010000, 256), UD_ADMIT, UD_WQE(OK, 296), UD_DELIVER(296),
	},
	{
		.name = "ud-opcode an rc send reaching a ud qp is dropped",
		.rules = "ud-opcode", .qp_qkey = 1,
		UD_REQ(SEND_ONLY, 1, 8), UD_REFUSE(OPCODE, OPCODE),
	},
	{
		.name = "ud-opcode an ack reaching a ud qp is dropped",
		.rules = "ud-opcode", .qp_qkey = 1,
		UD_REQ(ACKNOWLEDGE, 1, 0), UD_REFUSE(OPCODE, OPCODE),
	},
	{
		.name = "ud-no-wqe no receive posted: dropped, no rnr",
		.rules = "ud-no-wqe", .qp_qkey = 3,
		UD_REQ(UD_SEND_ONLY, 3, 8),
		UD_ADMIT, UD_WQE(NONE, 0), UD_DROP_AT_PLACE(NO_WQE, NO_WQE),
	},
	{
		.name = "ud-recv-length payload a byte over the buffer after the grh: loc_len_err",
		.rules = "ud-recv-length", .qp_qkey = 3,
		UD_REQ(UD_SEND_ONLY, 3, 101),
		UD_ADMIT, UD_WQE(OK, 140), UD_ERROR(LOC_LEN_ERR, RECV_LENGTH),
	},
	{
		.name = "ud-recv-length a buffer with no room for the grh: loc_len_err",
		.rules = "ud-recv-length", .qp_qkey = 3,
		UD_REQ(UD_SEND_ONLY, 3, 0),
		UD_ADMIT, UD_WQE(OK, 39), UD_ERROR(LOC_LEN_ERR, RECV_LENGTH),
	},
	{
		.name = "ud-bad-wqe a malformed receive wqe completes loc_qp_op_err",
		.rules = "ud-bad-wqe", .qp_qkey = 3,
		UD_REQ(UD_SEND_ONLY, 3, 8),
		UD_ADMIT, UD_WQE(BAD, 4096), UD_ERROR(LOC_QP_OP_ERR, BAD_WQE),
	},
};

static const struct sroce_ud_qkey_case sroce_ud_qkey_cases[] = {
	{ "ud-qkey-privileged high bit clear: the wr's q_key", 0x01234567, 0x80010000, 0x01234567 },
	{ "ud-qkey-privileged high bit set: the qp's q_key (ib_mad)", 0x80000000, 0x80010000,
	  0x80010000 },
	{ "ud-qkey-privileged any high-bit q_key means the qp's", 0xffffffff, 0x42, 0x42 },
	{ "ud-qkey-privileged 0x7fffffff is the wr's own", 0x7fffffff, 0x42, 0x7fffffff },
};
