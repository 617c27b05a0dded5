/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of the loopback stream test share (loopback.h describes
 * the test): loopback.c runs the requester and completer ends and the
 * stream, loopback_resp.c the responder end, loopback_link.c the seeded
 * generator and the lossy channels, loopback_check.c the checks and the
 * final data check.  Private to them; like them it uses no library, only
 * the compiler's builtins.
 */
#ifndef SROCE_LOOPBACK_INT_H
#define SROCE_LOOPBACK_INT_H

#include "loopback.h"
#include <sroce/psn.h>

#define loop_copy(d, s, n) __builtin_memcpy((d), (s), (n))
#define loop_zero(d, n) __builtin_memset((d), 0, (n))

#define TRACE(ws, ...)								\
	do {									\
		const struct sroce_loop_tracer *tr_ = (ws)->tr;			\
										\
		if (tr_ && tr_->trace)						\
			tr_->trace(tr_->ctx, __VA_ARGS__);			\
	} while (0)

/* The READ pattern: remote byte @va below SROCE_LOOP_WRITE_BASE. */
static inline uint8_t sroce_loop_pattern(uint64_t va)
{
	return (uint8_t)(va * 7 + 3);
}

/* A check after which the stream cannot go on. */
static inline void sroce_loop_fatal(struct sroce_loop_ws *ws)
{
	ws->stop = 1;
}

/*
 * loopback_check.c: checks.  Each is reported; a failed one also counts,
 * and ends the stream at the end of its round (one the stream cannot go
 * on after, at once: sroce_loop_fatal()).  Each returns whether it held.
 */
int sroce_loop_check_eq(struct sroce_loop_ws *ws, const char *what, uint64_t expected,
			uint64_t actual);
int sroce_loop_check_true(struct sroce_loop_ws *ws, const char *what, int cond);
int sroce_loop_check_le(struct sroce_loop_ws *ws, const char *what, uint64_t limit,
			uint64_t actual);
int sroce_loop_check_psn_ge(struct sroce_loop_ws *ws, const char *what, uint32_t bound,
			    uint32_t actual);
void sroce_loop_check_data(struct sroce_loop_ws *ws);

/* loopback_link.c: the run's generator and the two channels. */
uint64_t sroce_loop_rng_next(struct sroce_loop_ws *ws);
uint32_t sroce_loop_rng_below(struct sroce_loop_ws *ws, uint32_t n);
void sroce_loop_chan_init(struct sroce_loop_chan *c, const struct sroce_loop_link *l,
			  struct sroce_loop_pkt *q, uint32_t cap);
void sroce_loop_chan_send(struct sroce_loop_ws *ws, struct sroce_loop_chan *c,
			  const struct sroce_loop_pkt *p);
const struct sroce_loop_pkt *sroce_loop_chan_take(struct sroce_loop_chan *c);

/* loopback_resp.c: the responder end. */
void sroce_loop_pull_responses(struct sroce_loop_ws *ws);
void sroce_loop_responder(struct sroce_loop_ws *ws);

#endif /* SROCE_LOOPBACK_INT_H */
