// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c - checking a region of a buffer against its pattern: the data
 * bytes, and the guard bytes around and between them.
 */
#define _GNU_SOURCE
#include <inttypes.h>

#include "integrity.h"

/*
 * Check every byte of region s: stream byte p must equal pat_byte(seed, p)
 * for p < valid and the guard pattern beyond; every byte of the region
 * outside the SGEs must still be guard.  Returns the number of wrong bytes
 * and describes the first one in why.
 */
uint64_t verify_region(const uint8_t *buf, const struct seglist *s,
		       uint64_t seed, uint64_t valid, char *why, size_t whylen)
{
	uint64_t bad = 0, pos = s->rstart, p = 0;

	why[0] = '\0';
	for (unsigned i = 0; i <= s->n; i++) {
		uint64_t gap_end = i < s->n ? s->off[i] : s->rend;

		for (; pos < gap_end; pos++) {
			if (buf[pos] == guard_byte(pos))
				continue;
			if (!bad++)
				snprintf(why, whylen,
					 "guard byte at buffer offset %" PRIu64
					 " overwritten (0x%02x, guard 0x%02x)",
					 pos, buf[pos], guard_byte(pos));
		}
		if (i == s->n)
			break;
		for (uint32_t j = 0; j < s->len[i]; j++, pos++, p++) {
			bool data = p < valid;
			uint8_t want = data ? pat_byte(seed, p) : guard_byte(pos);

			if (buf[pos] == want)
				continue;
			if (!bad++)
				snprintf(why, whylen,
					 "%s byte %" PRIu64 " (sge %u +%u) = 0x%02x, expected 0x%02x",
					 data ? "data" : "unused-capacity",
					 p, i, j, buf[pos], want);
		}
	}
	return bad;
}

/* Verify an item's region; records a failure if any byte is wrong. */
void check_region(struct ctx *c, const struct item *it, const char *what,
		  const struct seglist *s, uint64_t valid)
{
	char why[200];
	uint64_t bad = verify_region(c->buf, s, it->seed, valid, why, sizeof(why));

	if (bad)
		fail(it->st, "%s: %" PRIu64 " wrong bytes; first: %s", what, bad, why);
}

/* Check that the whole registered buffer still holds the guard pattern. */
void check_untouched(struct ctx *c, const char *what)
{
	struct seglist all = { .n = 0, .rstart = 0, .rend = c->buf_len };
	char why[200];
	uint64_t bad = verify_region(c->buf, &all, 0, 0, why, sizeof(why));

	if (bad)
		fail(ST_MODE, "%s: %" PRIu64 " bytes of the registered buffer changed (buffer length %zu); first: %s",
		     what, bad, c->buf_len, why);
	else
		printf("# %s: all %zu bytes of the registered buffer unchanged\n",
		       what, c->buf_len);
}
