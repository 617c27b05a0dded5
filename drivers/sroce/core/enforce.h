// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Included last by every core .cc file: poisons what the freestanding
// subset forbids, so using it is a compile error rather than a review
// comment.  No exceptions, no RTTI, no standard library.
#ifndef SROCE_CORE_ENFORCE_H
#define SROCE_CORE_ENFORCE_H

#pragma GCC poison std throw typeid dynamic_cast thread_local
#pragma GCC poison float double

#endif  // SROCE_CORE_ENFORCE_H
