// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - sub-test bookkeeping and its KTAP result lines, opcode names
 * and clocks, for every part of sroce_integrity.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "integrity.h"

unsigned poll_timeout_ms = 20000;

struct subtest subtests[ST_COUNT] = {
	[ST_SETUP]		= { "setup",		CLI | SRV, false, 0, "" },
	[ST_SEND]		= { "send",		CLI | SRV, false, 0, "" },
	[ST_SEND_IMM]		= { "send_imm",		CLI | SRV, false, 0, "" },
	[ST_WRITE]		= { "write",		CLI | SRV, false, 0, "" },
	[ST_WRITE_IMM]		= { "write_imm",	CLI | SRV, false, 0, "" },
	[ST_READ]		= { "read",		CLI | SRV, false, 0, "" },
	[ST_CAS]		= { "atomic_cmp_swap",	CLI,       false, 0, "" },
	[ST_FADD]		= { "atomic_fetch_add",	CLI,       false, 0, "" },
	[ST_ATOMIC_FINAL]	= { "atomic_final",	SRV,       false, 0, "" },
	/* The scenario of an error-path mode (-m); named after the mode. */
	[ST_MODE]		= { "mode",		0,         false, 0, "" },
	/* -m uc only. */
	[ST_UC_SEND]		= { "uc_send",		0,         false, 0, "" },
	[ST_UC_WRITE]		= { "uc_write",		0,         false, 0, "" },
	[ST_TEARDOWN]		= { "teardown",		CLI | SRV, false, 0, "" },
};

unsigned my_side;

/* Appended to a sub-test's result line if set (e.g. "received 290/300"). */
char st_note[ST_COUNT][96];

/* Record a failure of sub-test st; the first one becomes its reason. */
void fail(int st, const char *fmt, ...)
{
	struct subtest *t = &subtests[st];
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->nfail == 0)
		snprintf(t->reason, sizeof(t->reason), "%s", msg);
	if (t->nfail < MAX_DETAIL)
		printf("# %s: %s\n", t->name, msg);
	else if (t->nfail == MAX_DETAIL)
		printf("# %s: further failures not shown\n", t->name);
	t->nfail++;
}

/* KTAP results printed so far: the number of the next one less one. */
static unsigned ktap_results;

/*
 * Print the KTAP result line of sub-test st (once): "ok N name", with its
 * note as diagnostic data after a '#', or "not ok N name # reason".
 */
void report(int st)
{
	struct subtest *t = &subtests[st];
	const char *note = st_note[st];

	if (t->reported || !(t->sides & my_side))
		return;
	t->reported = true;
	ktap_results++;
	if (t->nfail == 0)
		printf("ok %u %s%s%s\n", ktap_results, t->name, *note ? " # " : "", note);
	else if (t->nfail == 1)
		printf("not ok %u %s # %s%s%s\n", ktap_results, t->name, t->reason,
		       *note ? "; " : "", note);
	else
		printf("not ok %u %s # %s (+%u more)%s%s\n", ktap_results, t->name,
		       t->reason, t->nfail - 1, *note ? "; " : "", note);
}

/* The KTAP results printed, for the plan at the end. */
unsigned reported_subtests(void)
{
	return ktap_results;
}

/* Fail and report every sub-test of this side not reported yet. */
void report_rest(const char *why)
{
	for (int st = 0; st < ST_COUNT; st++) {
		struct subtest *t = &subtests[st];

		if (t->reported || !(t->sides & my_side))
			continue;
		if (t->nfail == 0)
			fail(st, "not run: %s", why);
		report(st);
	}
}

unsigned failed_subtests(void)
{
	unsigned n = 0;

	for (int st = 0; st < ST_COUNT; st++)
		if ((subtests[st].sides & my_side) && subtests[st].nfail)
			n++;
	return n;
}

char abort_reason[256] = "control connection failed";

const char *wr_op_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:			return "SEND";
	case IBV_WR_SEND_WITH_IMM:		return "SEND_WITH_IMM";
	case IBV_WR_RDMA_WRITE:			return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM:	return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ:			return "RDMA_READ";
	case IBV_WR_ATOMIC_CMP_AND_SWP:		return "CMP_SWAP";
	case IBV_WR_ATOMIC_FETCH_AND_ADD:	return "FETCH_ADD";
	default:				return "?";
	}
}

const char *wc_op_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND:		return "IBV_WC_SEND";
	case IBV_WC_RDMA_WRITE:		return "IBV_WC_RDMA_WRITE";
	case IBV_WC_RDMA_READ:		return "IBV_WC_RDMA_READ";
	case IBV_WC_COMP_SWAP:		return "IBV_WC_COMP_SWAP";
	case IBV_WC_FETCH_ADD:		return "IBV_WC_FETCH_ADD";
	case IBV_WC_RECV:		return "IBV_WC_RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:	return "IBV_WC_RECV_RDMA_WITH_IMM";
	default:			return "unknown";
	}
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleep ms milliseconds, also across signals. */
void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
