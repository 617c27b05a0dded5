// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - the data patterns, the buffer layouts and the deterministic
 * plan of the integrity sequence (identical on both sides).
 */
#define _GNU_SOURCE
#include <string.h>

#include "integrity.h"

/* ------------------------------------------------------------------ */
/* Data patterns                                                       */
/* ------------------------------------------------------------------ */

/* Seed of item idx of test test_id. */
uint64_t seed_for(unsigned test_id, unsigned idx)
{
	return mix64(((uint64_t)test_id << 32) | idx);
}

/* Deterministic generator for the layouts (splitmix64). */
uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

/* ------------------------------------------------------------------ */
/* Buffer layouts                                                      */
/* ------------------------------------------------------------------ */

struct arena {
	uint64_t pos, size;
	bool overflow;
};

/* Carve a region of capacity cap split into nseg unaligned SGEs. */
static void layout(struct arena *a, uint64_t *rng, uint32_t cap, unsigned nseg,
		   struct seglist *s)
{
	uint32_t remaining = cap;
	uint64_t cur;

	if (nseg > cap)
		nseg = cap;
	if (nseg == 0)
		nseg = 1;
	memset(s, 0, sizeof(*s));
	s->n = nseg;
	s->rstart = (a->pos + 63) & ~63ull;
	cur = s->rstart + 16 + 1 + 2 * (rng_next(rng) % 4);	/* odd offset */
	for (unsigned i = 0; i < nseg; i++) {
		uint32_t l = remaining;

		if (i != nseg - 1) {
			uint32_t maxl = remaining - (nseg - 1 - i);
			uint32_t span = 2 * (remaining / (nseg - i));

			if (span > maxl)
				span = maxl;
			if (span == 0)
				span = 1;
			l = 1 + (uint32_t)(rng_next(rng) % span);
		}
		s->off[i] = cur;
		s->len[i] = l;
		remaining -= l;
		cur += l;
		if (i != nseg - 1)
			cur += 1 + rng_next(rng) % 11;	/* guard gap */
	}
	s->rend = cur + 16;
	a->pos = s->rend;
	if (a->pos > a->size)
		a->overflow = true;
}

void fill_guard(uint8_t *buf, uint64_t start, uint64_t end)
{
	for (uint64_t o = start; o < end; o++)
		buf[o] = guard_byte(o);
}

/* Guard-fill the region, then write stream bytes [0, valid) of seed. */
void fill_region(uint8_t *buf, const struct seglist *s, uint64_t seed,
		 uint64_t valid)
{
	uint64_t p = 0;

	fill_guard(buf, s->rstart, s->rend);
	for (unsigned i = 0; i < s->n; i++)
		for (uint32_t j = 0; j < s->len[i] && p < valid; j++, p++)
			buf[s->off[i] + j] = pat_byte(seed, p);
}

/* A region of one SGE at off with capacity cap and 16 guard bytes around. */
void one_seg(struct seglist *s, uint64_t off, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	s->n = 1;
	s->off[0] = off;
	s->len[0] = cap;
	s->rstart = off - 16;
	s->rend = off + cap + 16;
}

/* ------------------------------------------------------------------ */
/* The deterministic test plan (identical on both sides)               */
/* ------------------------------------------------------------------ */

const uint64_t slot_init[N_SLOTS] = {
	0x0123456789abcdefull, 0x8000000000000001ull, 0xfffffffffffffff0ull,
	0x00000000ffffffffull, 0x7fffffffffffffffull,
	0x5555aaaa5555aaaaull,	/* never targeted: must stay unchanged */
};

static const struct atomic_op atomic_seq[N_ATOMIC] = {
	{ IBV_WR_ATOMIC_CMP_AND_SWP, 0, 0x0123456789abcdefull, 0xfedcba9876543210ull, "hit", 0 },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, 0, 0x0123456789abcdefull, 0x1111111111111111ull, "miss (stale compare)", 0 },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0x0000000000000001ull, 0, "miss (low 32 bits match)", 0 },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0x8000000000000000ull, 0, "miss (high 32 bits match)", 0 },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0x8000000000000001ull, 0x7ffffffffffffffeull, "hit", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0x10, 0, "64-bit wrap to 0", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0x25, 0, "add", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 2, ~0ull, 0, "add -1", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 3, 1, 0, "carry bit 31 -> 32", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 3, 0xffffffff00000000ull, 0, "high-half wrap to 0", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 4, 1, 0, "signed overflow", 0 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, 4, 0, 0, "fetch (add 0)", 0 },
};

uint64_t slot_off(const struct seglist *area, unsigned i)
{
	return area->rstart + 8 + 16 * (uint64_t)i;
}

static void layout_slots(struct arena *a, unsigned n, struct seglist *s)
{
	memset(s, 0, sizeof(*s));
	s->rstart = (a->pos + 63) & ~63ull;
	s->rend = s->rstart + 8 + 16 * (uint64_t)n;
	a->pos = s->rend;
	if (a->pos > a->size)
		a->overflow = true;
}

void build_plan(struct plan *p, uint32_t mtu)
{
	const uint32_t send_len[N_SEND / 2] = {
		1, 7, 63, 1000, 1025, 4095, 4096 + 13, 3 * mtu + 5, 65536 + 3
	};
	const uint32_t write_len[N_WRITE / 2] = {
		1, 13, mtu + 1, 3 * mtu + 5, 16384 + 17, 65536 + 11
	};
	const uint32_t read_len[N_READ] = { 1, 4096 + 7, 3 * mtu + 1, 65536 + 5 };
	const unsigned read_nseg[N_READ] = { 1, 4, 3, 2 };
	struct arena ca = { 0, BUF_SIZE, false }, sa = { 0, BUF_SIZE, false };
	uint64_t rng = 0x5eed0001;
	uint64_t val[N_SLOTS];

	memset(p, 0, sizeof(*p));
	p->mtu = mtu;

	for (unsigned k = 0; k < N_SEND; k++) {
		struct item *it = &p->send[k];
		bool imm = k & 1;
		uint32_t extra = (k % 3 == 0) ? 0 : 1 + (k * 37) % 200;

		it->st = imm ? ST_SEND_IMM : ST_SEND;
		it->op = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		it->len = send_len[k / 2];
		it->seed = seed_for(T_SEND, k);
		it->imm = imm ? 0xa1b2c300u + k : 0;
		layout(&ca, &rng, it->len, 1 + (k * 3) % 4, &it->cli);
		layout(&sa, &rng, it->len + extra, 1 + (k + 1) % 4, &it->srv);
	}

	for (unsigned k = 0; k < N_WRITE; k++) {
		struct item *it = &p->write[k];
		bool imm = k & 1;

		it->st = imm ? ST_WRITE_IMM : ST_WRITE;
		it->op = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		it->len = write_len[k / 2];
		it->seed = seed_for(T_WRITE, k);
		it->imm = imm ? 0x1e2d3c00u + k : 0;
		layout(&ca, &rng, it->len, 1 + (k * 3 + 1) % 4, &it->cli);
		layout(&sa, &rng, it->len, 1, &it->srv);
		if (imm)
			layout(&sa, &rng, 16, 1, &it->rcv);
	}

	for (unsigned k = 0; k < N_READ; k++) {
		struct item *it = &p->read[k];

		it->st = ST_READ;
		it->op = IBV_WR_RDMA_READ;
		it->len = read_len[k];
		it->seed = seed_for(T_READ, k);
		layout(&sa, &rng, it->len, 1, &it->srv);
		layout(&ca, &rng, it->len, read_nseg[k], &it->cli);
	}

	/* Atomics: simulate the sequence to get originals and final values. */
	memcpy(val, slot_init, sizeof(val));
	for (unsigned i = 0; i < N_ATOMIC; i++) {
		struct atomic_op *a = &p->atomic[i];

		*a = atomic_seq[i];
		a->expect = val[a->slot];
		if (a->op == IBV_WR_ATOMIC_CMP_AND_SWP) {
			if (val[a->slot] == a->arg)
				val[a->slot] = a->swap;
		} else {
			val[a->slot] += a->arg;
		}
	}
	memcpy(p->slot_final, val, sizeof(val));
	layout_slots(&sa, N_SLOTS, &p->srv_atomic);
	layout_slots(&ca, N_ATOMIC, &p->cli_atomic);

	p->cli_size = ca.pos;
	p->srv_size = sa.pos;
	p->overflow = ca.overflow || sa.overflow;
}
