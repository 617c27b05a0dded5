/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions of the packet path that are static in a normal build and
 * visible to sroce_kunit.ko on a KUnit kernel (VISIBLE_IF_KUNIT, and
 * EXPORT_SYMBOL_IF_KUNIT beside each definition): the receive parse
 * (recv.c) and the MR range check (mr.c).
 */
#ifndef SROCE_KUNIT_EXPORTS_H
#define SROCE_KUNIT_EXPORTS_H

#include <linux/types.h>
#include <kunit/visibility.h>

struct sk_buff;
struct sroce_mr;
struct sroce_opinfo;

#if IS_ENABLED(CONFIG_KUNIT)
void sroce_parse(struct sk_buff *skb, const struct sroce_opinfo *info, unsigned int pad);
bool sroce_mr_covers(const struct sroce_mr *mr, u64 iova, u64 len);
#endif

#endif /* SROCE_KUNIT_EXPORTS_H */
