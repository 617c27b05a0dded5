// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loopback stream test's link (see loopback.h): the link profiles,
 * the run's seeded generator (the same seed, the same run), and the two
 * channels, requests forward and responses back, that lose, duplicate
 * and reorder packets with the chances a profile gives.  No library,
 * only the compiler's builtins.
 */
#include "loopback_int.h"

#define SROCE_LOOP_PROFILE(name_, fd, fu, fr, bd, bu, br, rate, win, rd, every, hold)	\
	[SROCE_LOOP_P_##name_] = {							\
		.name = #name_,								\
		.fwd = { .drop = (fd), .dup = (fu), .reorder = (fr) },			\
		.back = { .drop = (bd), .dup = (bu), .reorder = (br) },			\
		.recv_rate = (rate), .window = (win), .rd_atomic = (rd),		\
		.ackreq_every = (every), .hold_tail = (hold), .coalesce = 16,		\
		.wqes = SROCE_LOOP_WQES,						\
	},

const struct sroce_loop_profile sroce_loop_profiles[SROCE_LOOP_NPROFILES] = {
	SROCE_LOOP_PROFILE_LIST
};

#undef SROCE_LOOP_PROFILE

/* splitmix64: a deterministic generator, seeded per run. */
uint64_t sroce_loop_rng_next(struct sroce_loop_ws *ws)
{
	uint64_t z = (ws->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n), @n > 0. */
uint32_t sroce_loop_rng_below(struct sroce_loop_ws *ws, uint32_t n)
{
	return (uint32_t)(((sroce_loop_rng_next(ws) >> 32) * n) >> 32);
}

/* True with a chance of @bp basis points. */
static int chance(struct sroce_loop_ws *ws, uint32_t bp)
{
	return sroce_loop_rng_below(ws, 10000) < bp;
}

/* Channels. */

static struct sroce_loop_pkt *chan_slot(struct sroce_loop_chan *c, uint32_t i)
{
	return &c->q[(c->head + i) % c->cap];
}

static void chan_push(struct sroce_loop_ws *ws, struct sroce_loop_chan *c,
		      const struct sroce_loop_pkt *p)
{
	if (!sroce_loop_check_le(ws, "channel capacity (packets queued)", c->cap - 1,
				 c->count)) {
		sroce_loop_fatal(ws);
		return;
	}
	loop_copy(chan_slot(c, c->count), p, sizeof(*p));
	c->count++;
}

void sroce_loop_chan_send(struct sroce_loop_ws *ws, struct sroce_loop_chan *c,
			  const struct sroce_loop_pkt *p)
{
	struct sroce_loop_pkt *a, *b;

	if (chance(ws, c->link.drop)) {
		TRACE(ws, "  channel lost a packet\n");
		return;
	}
	chan_push(ws, c, p);
	if (chance(ws, c->link.dup))
		chan_push(ws, c, p);
	if (c->count >= 2 && chance(ws, c->link.reorder)) {
		a = chan_slot(c, c->count - 1);
		b = chan_slot(c, c->count - 2);
		loop_copy(&ws->swap, a, sizeof(*a));
		loop_copy(a, b, sizeof(*a));
		loop_copy(b, &ws->swap, sizeof(*b));
	}
}

/* The oldest packet, valid until the channel is sent to again; 0 when empty. */
const struct sroce_loop_pkt *sroce_loop_chan_take(struct sroce_loop_chan *c)
{
	const struct sroce_loop_pkt *p;

	if (!c->count)
		return 0;
	p = chan_slot(c, 0);
	c->head = (c->head + 1) % c->cap;
	c->count--;
	return p;
}

void sroce_loop_chan_init(struct sroce_loop_chan *c, const struct sroce_loop_link *l,
			  struct sroce_loop_pkt *q, uint32_t cap)
{
	c->link = *l;
	c->q = q;
	c->cap = cap;
	c->head = 0;
	c->count = 0;
}
