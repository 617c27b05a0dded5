/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixed-width types for headers shared by the C driver, the freestanding
 * C++ core and userspace tests.  Kernel C gets them from <linux/types.h>;
 * the core in the kernel may include no header at all, so it takes them
 * from the compiler; userspace uses <stdint.h>.
 */
#ifndef SROCE_TYPES_H
#define SROCE_TYPES_H

#if defined(__KERNEL__) && !defined(__cplusplus)
#include <linux/types.h>
#elif defined(__KERNEL__)
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT32_TYPE__ int32_t;
#else
#include <stdint.h>
#endif

#ifdef __cplusplus
#define SROCE_STATIC_ASSERT(e, msg) static_assert(e, msg)
#define SROCE_EXTERN_C_BEGIN extern "C" {
#define SROCE_EXTERN_C_END }
#else
#define SROCE_STATIC_ASSERT(e, msg) _Static_assert(e, msg)
#define SROCE_EXTERN_C_BEGIN
#define SROCE_EXTERN_C_END
#endif

/*
 * Name lists.  An enum that has names is one X-macro list, SROCE_FOO_LIST(X):
 * one X(id, name) per enumerator, in value order from 0, and the enum, its
 * name table (the core's names.cc) and the tracepoints' symbols are all
 * generated from it.  A list whose values the ABI fixes spells each one,
 * X(id, value, name), still in order from 0.  Names are the strings logs,
 * tests and tools read: they never change.
 */
#define SROCE_ENUM_ENTRY(id, name) id,
#define SROCE_ENUM_ENTRY_VALUE(id, value, name) id = value,

#endif /* SROCE_TYPES_H */
