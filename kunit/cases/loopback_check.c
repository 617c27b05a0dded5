// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loopback stream test's checks (see loopback.h): each goes to the
 * caller's struct sroce_case_checker, its step the round; and, once the
 * stream is over, the check that every byte is where it belongs.  No
 * library, only the compiler's builtins.
 */
#include "loopback_int.h"

int sroce_loop_check_eq(struct sroce_loop_ws *ws, const char *what, uint64_t expected,
			uint64_t actual)
{
	ws->checks++;
	if (expected != actual)
		ws->failures++;
	ws->chk->check(ws->chk->ctx, what, ws->round, expected, actual);
	return expected == actual;
}

/* @cond must hold; reported as 1 (expected) against @cond. */
int sroce_loop_check_true(struct sroce_loop_ws *ws, const char *what, int cond)
{
	return sroce_loop_check_eq(ws, what, 1, cond ? 1 : 0);
}

/* @actual <= @limit: reported as itself when it holds, against @limit when not. */
int sroce_loop_check_le(struct sroce_loop_ws *ws, const char *what, uint64_t limit,
			uint64_t actual)
{
	sroce_loop_check_eq(ws, what, actual <= limit ? actual : limit, actual);
	return actual <= limit;
}

/*
 * PSN @actual is @bound or after it (24-bit serial order), reported like
 * sroce_loop_check_le().
 */
int sroce_loop_check_psn_ge(struct sroce_loop_ws *ws, const char *what, uint32_t bound,
			    uint32_t actual)
{
	int ok = sroce_psn_diff(actual, bound) >= 0;

	sroce_loop_check_eq(ws, what, ok ? actual : bound, actual);
	return ok;
}

/* At the end: every byte where it belongs. */

/* Index of the first byte of @a that differs from @b, or @n. */
static uint32_t first_diff(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

void sroce_loop_check_data(struct sroce_loop_ws *ws)
{
	const struct sroce_loop_work *k;
	uint64_t fetch_adds = 0, counter;
	uint32_t i, j, imms = 0;

	for (i = 0; i < ws->nwork; i++) {
		k = &ws->work[i];
		switch (k->w.op) {
		case SROCE_WR_WRITE:
		case SROCE_WR_WRITE_IMM:
			if (k->w.op == SROCE_WR_WRITE_IMM)
				imms++;
			sroce_loop_check_eq(ws, "WRITE region (first differing byte)",
					    k->w.length,
					    first_diff(&ws->remote[k->w.remote_va], k->local,
						       k->w.length));
			break;
		case SROCE_WR_READ:
			for (j = 0; j < k->w.length; j++)
				if (k->local[j] != sroce_loop_pattern(k->w.remote_va + j))
					break;
			sroce_loop_check_eq(ws, "READ bytes (first differing byte)",
					    k->w.length, j);
			break;
		case SROCE_WR_FETCH_ADD:
			sroce_loop_check_eq(ws, "FETCH_ADD executed exactly once each (result)",
					    fetch_adds, k->result);
			fetch_adds++;
			break;
		case SROCE_WR_CMP_SWAP:
			sroce_loop_check_eq(ws, "CMP_SWAP executed once, in order (result)",
					    k->w.compare, k->result);
			break;
		default:
			break;
		}
	}
	sroce_loop_check_eq(ws, "SEND messages delivered (no extra, none missing)", ws->nsends,
			    ws->nreceived);
	sroce_loop_check_eq(ws, "WRITE with immediate executed once each", imms, ws->imms);
	loop_copy(&counter, &ws->remote[SROCE_LOOP_COUNTER_VA], 8);
	sroce_loop_check_eq(ws, "FETCH_ADD counter", fetch_adds, counter);
}
