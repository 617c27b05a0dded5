// SPDX-License-Identifier: GPL-2.0
/*
 * SROCE_HAVE_LINUX_UNALIGNED_H: the get/put_unaligned helpers come from
 * <linux/unaligned.h>.  Moved from <asm/unaligned.h> in v6.12 (5f60d5f6bbc1,
 * "move asm/unaligned.h to linux/unaligned.h"); the old header is gone.
 */
#include <linux/unaligned.h>

u32 sroce_probe_unaligned(const void *p);
u32 sroce_probe_unaligned(const void *p)
{
	return get_unaligned_be32(p);
}
