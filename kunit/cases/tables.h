/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every table of suites.h, for the two that expand all of them
 * (tools/utest/cases.c, tools/case-manifest.c).  The tables are static:
 * include this in one file of a program.
 */
#ifndef SROCE_CASES_TABLES_H
#define SROCE_CASES_TABLES_H

#include "case.h"
#include "walk.h"
#include "coalesce.h"
#include "duplicates.h"
#include "nak_latch.h"
#include "read.h"
#include "credits.h"
#include "encoding.h"
#include "sq_case.h"
#include "sq_requester.h"
#include "sq_completer.h"
#include "sq_ud.h"
#include "sq_uc.h"
#include "sq_local.h"
#include "ud.h"
#include "uc.h"
#include "mw_case.h"
#include "mw.h"
#include "suites.h"

#endif
