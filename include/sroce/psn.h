/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * 24-bit PSN and MSN arithmetic.  Every PSN comparison in sroce goes
 * through here: PSNs are serial numbers modulo 2^24 (IBA 9.7.1), so a
 * plain '<' is always a bug.
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include "types.h"

#define SROCE_PSN_MASK 0xffffffu
#define SROCE_PSN_HALF 0x800000u

/* @a + @n, wrapped to 24 bits. */
static inline uint32_t sroce_psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & SROCE_PSN_MASK;
}

/*
 * Signed distance from @b to @a in 24-bit serial arithmetic:
 * > 0 when @a is after @b, < 0 when before.  The result is in
 * [-2^23, 2^23 - 1]; a distance of exactly 2^23 counts as "before".
 */
static inline int32_t sroce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & SROCE_PSN_MASK;

	return d >= SROCE_PSN_HALF ? (int32_t)d - (int32_t)(SROCE_PSN_MASK + 1) : (int32_t)d;
}

static inline int sroce_psn_valid(uint32_t psn)
{
	return (psn & ~SROCE_PSN_MASK) == 0;
}

#endif /* SROCE_PSN_H */
