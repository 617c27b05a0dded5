// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The C ABI header as strict C: its layout asserts are checked by the C
 * compiler here and by the C++ compiler in the core.
 */
#include <stddef.h>

#include <sroce/core_abi.h>
#include <sroce/psn.h>

_Static_assert(offsetof(struct sroce_resp_desc, psn) == 16, "desc layout");
_Static_assert(offsetof(struct sroce_resp_desc, kind) == 32, "desc layout");
_Static_assert(offsetof(struct sroce_resp_req, opcode) == 24, "req layout");
_Static_assert(offsetof(struct sroce_rd_res, kind) == 32, "res layout");

int sroce_abi_c_compiles(void);
int sroce_abi_c_compiles(void)
{
	return (int)sizeof(struct sroce_resp_qp);
}
