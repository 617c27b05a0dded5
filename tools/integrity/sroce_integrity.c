// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_integrity - byte-exact data-integrity test for one RC QP pair
 * (or, with -m uc, a UC QP pair on a lossy link).
 *
 *   server:  sroce_integrity -d DEV -g GID_INDEX [-p TCP_PORT] [-m MODE] [-R]
 *   client:  sroce_integrity -d DEV -g GID_INDEX [-p TCP_PORT] [-m MODE] [-R] SERVER_IP
 *
 * The two sides exchange QPN, PSN, GID, MTU and the rkey/address of a
 * registered buffer over a plain TCP socket, connect an RC QP pair with a
 * RoCEv2 GRH and run a fixed, deterministic sequence of operations
 * (client -> server):
 *
 *   1. SEND / SEND_WITH_IMM      multi-SGE gather -> multi-SGE scatter
 *   2. RDMA_WRITE[_WITH_IMM]     multi-SGE gather -> server memory
 *   3. RDMA_READ                 server memory -> multi-SGE scatter
 *   4. CMP_SWAP / FETCH_ADD      64-bit atomics on server memory
 *
 * Every byte that is transferred is checked against a pattern derived from
 * (test id, item, byte index), and every byte next to it (gaps between
 * SGEs, unused receive capacity, guard bytes around remote ranges) must be
 * untouched.  Both buffers start filled with a position-dependent guard
 * pattern, so a stray write anywhere in a checked region is caught.
 *
 * The TCP connection is also the control channel: every phase starts and
 * ends with a handshake in which both sides say whether their QP is still
 * usable, so after a transport failure (error completion, timeout) both
 * sides skip the remaining phases instead of hanging.
 *
 * Output: "INTEGRITY <name> PASS" or "INTEGRITY <name> FAIL <reason>" per
 * sub-test of this side, "INTEGRITY-PEER PASS|FAIL ..." (informational,
 * what the peer reported) and "INTEGRITY RESULT PASS|FAIL".  The exit
 * status is 0 only if every sub-test of this side passed.
 *
 * -m MODE picks an error-path scenario instead of the integrity sequence
 * (both sides must use the same mode): rnr, bad_rkey, oob_write, oob_read,
 * destroy_qp, misaligned_atomic, malformed (these two send hand-built
 * packets through a raw socket, inject.c), or idle (connect, then wait
 * until killed).  Each prints
 * "INTEGRITY <mode> PASS|FAIL <reason>" between the setup and teardown
 * lines; see the "Error-path modes" section below.
 *
 * -m uc connects a UC QP pair instead (meant for a lossy link: netem loss,
 * duplication, reordering) and runs two phases of UC_N multi-packet
 * messages, SEND[_WITH_IMM] and RDMA_WRITE_WITH_IMM into one server slot
 * each.  Lost messages are expected (UC never retransmits); every message
 * that completes must be whole, in place and in order, and nothing else
 * may be written.  It prints "INTEGRITY uc_send|uc_write PASS|FAIL ...
 * received R/N"; see the "UC mode" section below.
 *
 * -R (--rdma-cm) connects the RC QP pair through rdma_cm (librdmacm, so
 * the Makefile links -lrdmacm) instead of the INIT/RTR/RTS transitions
 * above: the server listens on any address at RDMA port TCP_PORT + 1, the
 * client resolves SERVER_IP (the address its TCP connection reached) and
 * connects, and rdma_cm chooses the PSNs, the path MTU and the source GID.
 * The QP is created with rdma_create_qp() on the connection's cm_id, with
 * the PD, CQs and MR of this tool allocated on that cm_id's device context
 * (which must be the -d device).  The TCP channel is used as without -R;
 * see "Connecting through rdma_cm" below.  Only the integrity sequence
 * runs this way: -R with -m or -P is a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_user_rxe.h>

#include "inject.h"

#define DEFAULT_TCP_PORT	18800
#define MAX_SEG			4		/* SGEs per work request */
#define BUF_SIZE		(2u << 20)	/* registered buffer, each side */
#define QUEUE_DEPTH		64		/* max_send_wr / max_recv_wr */
#define CQ_DEPTH		256
#define RD_ATOMIC		16		/* max_rd_atomic / max_dest_rd_atomic */
#define PROTO_MAGIC		0x53524f4345494e54ull	/* "SROCEINT" */
#define PROTO_VERSION		1
#define GUARD_SEED		0x6a09e667f3bcc908ull
#define MAX_DETAIL		8		/* detail lines per sub-test */
#define TCP_IO_TIMEOUT_S	120
#define ACCEPT_TIMEOUT_S	300
#define CONNECT_RETRY_S		180	/* the server may still be checking its last mode (TCG debug kernel) */
#define CM_RESOLVE_MS		5000	/* -R: rdma_resolve_addr / rdma_resolve_route */
#define CM_CONNECT_MS		10000	/* -R: connection request, ESTABLISHED (client: 2x) */
#define CM_DISCONNECT_MS	2000	/* -R: DISCONNECTED after rdma_disconnect */

static unsigned poll_timeout_ms = 20000;

/* -m MODE: the default integrity sequence or one error-path scenario. */
enum mode {
	M_INTEGRITY, M_RNR, M_BAD_RKEY, M_OOB_WRITE, M_OOB_READ, M_DESTROY_QP,
	M_MISALIGNED_ATOMIC, M_MALFORMED, M_RESIZE_CQ, M_HOSTILE, M_MR_ACCESS, M_IDLE,
	/* The client's requester under test (tools/testvm/req-errors-test.sh). */
	M_RETRY_EXC, M_RNR_TIMER, M_RNR_EXC, M_BAD_LKEY, M_READ_MR_RANGE,
	M_READ_NO_LWRITE, M_ATOMIC_SHORT, M_ATOMIC_UNALIGNED, M_SQ_NUM_SGE,
	M_SQ_OPCODE, M_SQ_LENGTH, M_SQ_LKEY, M_SQ_INLINE, M_SQ_PROD,
	M_DESTROY_ARMED, M_ARMED,
	/* A UC QP pair on a lossy link (not an error path). */
	M_UC,
	M_COUNT
};

static const char *const mode_names[M_COUNT] = {
	[M_INTEGRITY]	= "integrity",
	[M_RNR]		= "rnr",
	[M_BAD_RKEY]	= "bad_rkey",
	[M_OOB_WRITE]	= "oob_write",
	[M_OOB_READ]	= "oob_read",
	[M_DESTROY_QP]	= "destroy_qp",
	[M_MISALIGNED_ATOMIC] = "misaligned_atomic",
	[M_MALFORMED]	= "malformed",
	[M_RESIZE_CQ]	= "resize_cq",
	[M_HOSTILE]	= "hostile",
	[M_MR_ACCESS]	= "mr_access",
	[M_IDLE]	= "idle",
	[M_RETRY_EXC]	= "retry_exc",
	[M_RNR_TIMER]	= "rnr_timer",
	[M_RNR_EXC]	= "rnr_exc",
	[M_BAD_LKEY]	= "bad_lkey",
	[M_READ_MR_RANGE] = "read_mr_range",
	[M_READ_NO_LWRITE] = "read_no_lwrite",
	[M_ATOMIC_SHORT] = "atomic_short",
	[M_ATOMIC_UNALIGNED] = "atomic_unaligned",
	[M_SQ_NUM_SGE]	= "sq_num_sge",
	[M_SQ_OPCODE]	= "sq_opcode",
	[M_SQ_LENGTH]	= "sq_length",
	[M_SQ_LKEY]	= "sq_lkey",
	[M_SQ_INLINE]	= "sq_inline",
	[M_SQ_PROD]	= "sq_prod",
	[M_DESTROY_ARMED] = "destroy_armed",
	[M_ARMED]	= "armed",
	[M_UC]		= "uc",
};

/* ------------------------------------------------------------------ */
/* Sub-test bookkeeping                                                */
/* ------------------------------------------------------------------ */

enum side { CLI = 1, SRV = 2 };

enum subtest_id {
	ST_SETUP, ST_SEND, ST_SEND_IMM, ST_WRITE, ST_WRITE_IMM, ST_READ,
	ST_CAS, ST_FADD, ST_ATOMIC_FINAL, ST_MODE, ST_UC_SEND, ST_UC_WRITE,
	ST_TEARDOWN, ST_COUNT
};

struct subtest {
	const char *name;
	unsigned sides;		/* which side reports it */
	bool reported;
	unsigned nfail;
	char reason[256];	/* first failure */
};

static struct subtest subtests[ST_COUNT] = {
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

static unsigned my_side;

/* Appended to a sub-test's INTEGRITY line if set (e.g. "received 290/300"). */
static char st_note[ST_COUNT][96];

static void fail(int st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record a failure of sub-test st; the first one becomes its reason. */
static void fail(int st, const char *fmt, ...)
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

/* Print the INTEGRITY line of sub-test st (once). */
static void report(int st)
{
	struct subtest *t = &subtests[st];
	const char *note = st_note[st];

	if (t->reported || !(t->sides & my_side))
		return;
	t->reported = true;
	if (t->nfail == 0)
		printf("INTEGRITY %s PASS%s%s\n", t->name, *note ? " " : "", note);
	else if (t->nfail == 1)
		printf("INTEGRITY %s FAIL %s%s%s\n", t->name, t->reason,
		       *note ? "; " : "", note);
	else
		printf("INTEGRITY %s FAIL %s (+%u more)%s%s\n", t->name, t->reason,
		       t->nfail - 1, *note ? "; " : "", note);
}

/* Fail and report every sub-test of this side not reported yet. */
static void report_rest(const char *why)
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

static unsigned failed_subtests(void)
{
	unsigned n = 0;

	for (int st = 0; st < ST_COUNT; st++)
		if ((subtests[st].sides & my_side) && subtests[st].nfail)
			n++;
	return n;
}

/* ------------------------------------------------------------------ */
/* Data patterns                                                       */
/* ------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Byte i of the data stream with the given seed. */
static inline uint8_t pat_byte(uint64_t seed, uint64_t i)
{
	return (uint8_t)mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ull);
}

/* Guard byte at buffer offset off: depends on the position only. */
static inline uint8_t guard_byte(uint64_t off)
{
	return pat_byte(GUARD_SEED, off);
}

/* Seed of item idx of test test_id. */
static uint64_t seed_for(unsigned test_id, unsigned idx)
{
	return mix64(((uint64_t)test_id << 32) | idx);
}

/* Deterministic generator for the layouts (splitmix64). */
static uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

/* ------------------------------------------------------------------ */
/* Buffer layouts                                                      */
/* ------------------------------------------------------------------ */

/*
 * A region of a registered buffer: n SGEs (off[i], len[i]) at unaligned
 * offsets with small gaps between them, inside [rstart, rend), which also
 * holds 16+ guard bytes before the first and 16 after the last SGE.  The
 * "stream" of a seglist is the concatenation of its SGEs.
 */
struct seglist {
	unsigned n;
	uint64_t off[MAX_SEG];
	uint32_t len[MAX_SEG];
	uint64_t rstart, rend;
};

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

static void fill_guard(uint8_t *buf, uint64_t start, uint64_t end)
{
	for (uint64_t o = start; o < end; o++)
		buf[o] = guard_byte(o);
}

/* Guard-fill the region, then write stream bytes [0, valid) of seed. */
static void fill_region(uint8_t *buf, const struct seglist *s, uint64_t seed,
			uint64_t valid)
{
	uint64_t p = 0;

	fill_guard(buf, s->rstart, s->rend);
	for (unsigned i = 0; i < s->n; i++)
		for (uint32_t j = 0; j < s->len[i] && p < valid; j++, p++)
			buf[s->off[i] + j] = pat_byte(seed, p);
}

/*
 * Check every byte of region s: stream byte p must equal pat_byte(seed, p)
 * for p < valid and the guard pattern beyond; every byte of the region
 * outside the SGEs must still be guard.  Returns the number of wrong bytes
 * and describes the first one in why.
 */
static uint64_t verify_region(const uint8_t *buf, const struct seglist *s,
			      uint64_t seed, uint64_t valid, char *why,
			      size_t whylen)
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

/* ------------------------------------------------------------------ */
/* The deterministic test plan (identical on both sides)               */
/* ------------------------------------------------------------------ */

enum { T_SEND = 1, T_WRITE = 2, T_READ = 3 };

struct item {
	int st;				/* sub-test it belongs to */
	enum ibv_wr_opcode op;
	uint32_t len;
	uint64_t seed;
	uint32_t imm;
	struct seglist cli;		/* client gather / scatter list */
	struct seglist srv;		/* server scatter list or remote range */
	struct seglist rcv;		/* WRITE_WITH_IMM: server receive buffer */
};

struct atomic_op {
	enum ibv_wr_opcode op;
	unsigned slot;			/* server slot */
	uint64_t arg;			/* compare value or addend */
	uint64_t swap;
	const char *what;
	uint64_t expect;		/* original value (computed) */
};

#define N_SEND		18
#define N_WRITE		12
#define N_READ		4
#define N_SLOTS		6
#define N_ATOMIC	12

static const uint64_t slot_init[N_SLOTS] = {
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

struct plan {
	uint32_t mtu;
	struct item send[N_SEND], write[N_WRITE], read[N_READ];
	struct atomic_op atomic[N_ATOMIC];
	uint64_t slot_final[N_SLOTS];
	struct seglist srv_atomic;	/* server slots: rstart + 8 + 16 * i */
	struct seglist cli_atomic;	/* client result slots, same scheme */
	uint64_t cli_size, srv_size;
	bool overflow;
};

static uint64_t slot_off(const struct seglist *area, unsigned i)
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

static void build_plan(struct plan *p, uint32_t mtu)
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

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

struct peer_info {
	uint32_t qpn, psn, rkey;
	uint64_t addr, len;
	enum ibv_mtu mtu;
	uint16_t lid;
	union ibv_gid gid;
};

struct ctx {
	bool server;
	enum mode mode;
	const char *dev_name;
	const char *server_host;
	int gid_idx;
	uint8_t ib_port;
	int tcp_port;
	bool psn_given;
	uint32_t psn;
	bool use_cm;			/* -R: connect through rdma_cm */

	struct ibv_context *dev;	/* with -R: the cm_id's (librdmacm owns it) */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint8_t rd_atomic, rd_atomic_dest;
	enum ibv_mtu hello_mtu;		/* the MTU this side offers in HELLO */

	/* -R: the event channel (non-blocking), the server's listening id and
	 * the connection's id (the client's own, the server's from the
	 * connection request); what rdma_cm programmed into the QP. */
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *cm_listen, *cm_id;
	bool cm_connected;
	uint32_t cm_dqpn, cm_rq_psn;

	int sock;
	struct peer_info peer;
	enum ibv_mtu path_mtu;
	uint32_t mtu_bytes;

	/* The QP can no longer be trusted (error completion, timeout, post
	 * failure, or the peer said so): remaining phases are skipped. */
	bool broken;
	struct plan plan;

	/* Error-path modes: times in ms since the MODE-START handshake. */
	uint64_t destroy_ms;		/* server: when it destroyed its QP */
	uint64_t error_ms;		/* client: first error completion */
};

static char abort_reason[256] = "control connection failed";

static const char *wr_op_name(enum ibv_wr_opcode op)
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

static const char *wc_op_name(enum ibv_wc_opcode op)
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------ */
/* TCP control channel                                                 */
/* ------------------------------------------------------------------ */

/* Fixed-size control message; integers travel big-endian. */
struct wire {
	char tag[16];
	uint8_t gid[16];
	uint64_t v[8];
};

static int tcp_io(int fd, void *p, size_t n, bool tx)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = tx ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "control connection %s failed: %s",
				 tx ? "send" : "receive",
				 errno == EAGAIN ? "timed out" : strerror(errno));
			return -1;
		}
		if (r == 0) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "peer closed the control connection");
			return -1;
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static int msg_send(struct ctx *c, const char *tag, const uint64_t *v,
		    unsigned nv, const uint8_t *gid)
{
	struct wire w;

	memset(&w, 0, sizeof(w));
	snprintf(w.tag, sizeof(w.tag), "%s", tag);
	if (gid)
		memcpy(w.gid, gid, sizeof(w.gid));
	for (unsigned i = 0; i < nv && i < 8; i++)
		w.v[i] = htobe64(v[i]);
	return tcp_io(c->sock, &w, sizeof(w), true);
}

/* Receive one message; its tag must be tag (else protocol error). */
static int msg_recv(struct ctx *c, const char *tag, uint64_t *v, unsigned nv,
		    uint8_t *gid)
{
	struct wire w;

	if (tcp_io(c->sock, &w, sizeof(w), false))
		return -1;
	w.tag[sizeof(w.tag) - 1] = '\0';
	if (strcmp(w.tag, tag)) {
		/* Only a side with -R sends CM-CONNECT (before HELLO). */
		bool cm = !strcmp(tag, "CM-CONNECT") || !strcmp(w.tag, "CM-CONNECT");

		snprintf(abort_reason, sizeof(abort_reason),
			 "protocol error: expected message %s, got '%s'%s",
			 tag, w.tag,
			 cm ? " (-R must be given on both sides or on neither)" : "");
		return -1;
	}
	if (gid)
		memcpy(gid, w.gid, sizeof(w.gid));
	for (unsigned i = 0; i < nv && i < 8; i++)
		v[i] = be64toh(w.v[i]);
	return 0;
}

static void set_sock_opts(int fd)
{
	struct timeval tv = { .tv_sec = TCP_IO_TIMEOUT_S };
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int tcp_server(struct ctx *c)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	socklen_t sl;
	int one = 1, zero = 0, lfd, fd, r;
	char host[INET6_ADDRSTRLEN] = "?";

	/* Dual-stack IPv6 socket; plain IPv4 if IPv6 is unavailable. */
	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd >= 0) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
					   .sin6_port = htons((uint16_t)c->tcp_port),
					   .sin6_addr = IN6ADDR_ANY_INIT };

		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(lfd, (struct sockaddr *)&a6, sizeof(a6))) {
			close(lfd);
			lfd = -1;
		}
	}
	if (lfd < 0) {
		struct sockaddr_in a4 = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)c->tcp_port),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };

		lfd = socket(AF_INET, SOCK_STREAM, 0);
		if (lfd < 0) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "socket: %s", strerror(errno));
			return -1;
		}
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, (struct sockaddr *)&a4, sizeof(a4))) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "bind to TCP port %d: %s", c->tcp_port,
				 strerror(errno));
			close(lfd);
			return -1;
		}
	}
	if (listen(lfd, 1)) {
		snprintf(abort_reason, sizeof(abort_reason), "listen: %s",
			 strerror(errno));
		close(lfd);
		return -1;
	}
	printf("# server: waiting for the client on TCP port %d\n", c->tcp_port);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	do
		r = poll(&pfd, 1, ACCEPT_TIMEOUT_S * 1000);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		snprintf(abort_reason, sizeof(abort_reason),
			 "no client connected within %d s", ACCEPT_TIMEOUT_S);
		close(lfd);
		return -1;
	}
	sl = sizeof(ss);
	fd = accept(lfd, (struct sockaddr *)&ss, &sl);
	close(lfd);
	if (fd < 0) {
		snprintf(abort_reason, sizeof(abort_reason), "accept: %s",
			 strerror(errno));
		return -1;
	}
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), NULL, 0,
		    NI_NUMERICHOST);
	printf("# server: client connected from %s\n", host);
	set_sock_opts(fd);
	c->sock = fd;
	return 0;
}

static int tcp_client(struct ctx *c)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	uint64_t deadline = now_ms() + CONNECT_RETRY_S * 1000;
	char port[16];
	int r, err = 0;

	snprintf(port, sizeof(port), "%d", c->tcp_port);
	r = getaddrinfo(c->server_host, port, &hints, &res);
	if (r) {
		snprintf(abort_reason, sizeof(abort_reason), "%s: %s",
			 c->server_host, gai_strerror(r));
		return -1;
	}
	/* The server may not be listening yet: retry for a while. */
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype,
					ai->ai_protocol);

			if (fd < 0) {
				err = errno;
				continue;
			}
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
				freeaddrinfo(res);
				set_sock_opts(fd);
				c->sock = fd;
				printf("# client: connected to %s:%d\n",
				       c->server_host, c->tcp_port);
				return 0;
			}
			err = errno;
			close(fd);
		}
		if (now_ms() > deadline)
			break;
		sleep(1);
	}
	freeaddrinfo(res);
	snprintf(abort_reason, sizeof(abort_reason),
		 "cannot connect to %s:%d within %d s: %s", c->server_host,
		 c->tcp_port, CONNECT_RETRY_S, strerror(err));
	return -1;
}

/*
 * Phase handshake: both sides say whether their QP is still usable.
 * Returns 1 if the phase may run, 0 if it must be skipped (on both sides,
 * since both see both flags), -1 if the control connection failed.
 */
static int phase_sync(struct ctx *c, const char *tag)
{
	uint64_t mine = c->broken, peer;

	if (msg_send(c, tag, &mine, 1, NULL) || msg_recv(c, tag, &peer, 1, NULL))
		return -1;
	if (peer && !c->broken)
		printf("# %s: peer reports its QP unusable\n", tag);
	if (peer)
		c->broken = true;
	return !c->broken;
}

static void skip_subtests(const int *sts, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (subtests[sts[i]].sides & my_side)
			fail(sts[i], "skipped: QP unusable after an earlier failure (this side or peer)");
}

/* Fail, once each, the sub-tests of items[from..n) (unverified items). */
static void fail_rest(const struct item *items, unsigned from, unsigned n,
		      const char *why)
{
	bool seen[ST_COUNT] = { false };

	for (unsigned k = from; k < n; k++) {
		if (seen[items[k].st])
			continue;
		seen[items[k].st] = true;
		fail(items[k].st, "%s #%u and later not verified: %s",
		     wr_op_name(items[k].op), k, why);
	}
}

/* ------------------------------------------------------------------ */
/* Verbs helpers: posting and polling                                  */
/* ------------------------------------------------------------------ */

static void to_sges(const struct ctx *c, const struct seglist *s,
		    struct ibv_sge *sge)
{
	for (unsigned i = 0; i < s->n; i++) {
		sge[i].addr = (uintptr_t)(c->buf + s->off[i]);
		sge[i].length = s->len[i];
		sge[i].lkey = c->mr->lkey;
	}
}

/* Post a receive scattering into the first nsge SGEs of s. */
static int post_recv(struct ctx *c, int st, uint64_t wr_id,
		     const struct seglist *s, unsigned nsge)
{
	struct ibv_sge sge[MAX_SEG];
	struct ibv_recv_wr wr, *bad = NULL;
	int r;

	memset(&wr, 0, sizeof(wr));
	to_sges(c, s, sge);
	wr.wr_id = wr_id;
	wr.sg_list = nsge ? sge : NULL;
	wr.num_sge = (int)nsge;
	r = ibv_post_recv(c->qp, &wr, &bad);
	if (r) {
		fail(st, "ibv_post_recv (wr_id %" PRIu64 "): %s", wr_id,
		     strerror(r));
		c->broken = true;
		return -1;
	}
	return 0;
}

static int post_send(struct ctx *c, int st, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int r;

	wr->send_flags |= IBV_SEND_SIGNALED;
	r = ibv_post_send(c->qp, wr, &bad);
	if (r) {
		fail(st, "ibv_post_send %s (wr_id %" PRIu64 "): %s",
		     wr_op_name(wr->opcode), wr->wr_id, strerror(r));
		c->broken = true;
		return -1;
	}
	return 0;
}

/* Wait up to poll_timeout_ms for one completion on cq. */
static int poll_one(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
		    struct ibv_wc *wc)
{
	uint64_t deadline = now_ms() + poll_timeout_ms;
	unsigned spins = 0;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0) {
			fail(st, "ibv_poll_cq failed (%d) waiting for %s", n, what);
			c->broken = true;
			return -1;
		}
		if (n == 1)
			return 0;
		if (now_ms() > deadline) {
			fail(st, "timeout: no completion for %s within %u ms",
			     what, poll_timeout_ms);
			c->broken = true;
			return -1;
		}
		if (++spins > 1000) {	/* soft RoCE needs the CPU too */
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * Poll one completion and check status, wr_id and opcode.  Returns 0 if
 * all match, 1 on a wrong opcode (recorded), -1 on a transport failure
 * (timeout, error status or wrong wr_id: the QP is marked broken).
 */
static int expect_wc(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
		     uint64_t wr_id, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	int ret = 0;

	if (poll_one(c, cq, st, what, wc))
		return -1;
	if (wc->status != IBV_WC_SUCCESS) {
		fail(st, "%s: completion status %s (%d), vendor_err 0x%x, wr_id %" PRIu64,
		     what, ibv_wc_status_str(wc->status), wc->status,
		     wc->vendor_err, wc->wr_id);
		c->broken = true;
		return -1;
	}
	if (wc->wr_id != wr_id) {
		/* RC completes in posting order: a wrong wr_id means a lost or
		 * duplicated completion, so nothing after it can be trusted. */
		fail(st, "%s: got the completion of wr_id %" PRIu64
		     " instead (lost, duplicate or reordered completion)",
		     what, wc->wr_id);
		c->broken = true;
		return -1;
	}
	if (wc->opcode != op) {
		fail(st, "%s: completion opcode %s (%d), expected %s", what,
		     wc_op_name(wc->opcode), wc->opcode, wc_op_name(op));
		ret = 1;
	}
	return ret;
}

static void item_name(const struct item *it, unsigned k, char *b, size_t n)
{
	snprintf(b, n, "%s #%u (len %u)", wr_op_name(it->op), k, it->len);
}

/* Receive-side checks shared by SEND_WITH_IMM and WRITE_WITH_IMM. */
static void check_recv_wc(struct ctx *c, const struct item *it, const char *what,
			  const struct ibv_wc *wc, bool with_imm)
{
	bool has_imm = wc->wc_flags & IBV_WC_WITH_IMM;

	if (wc->qp_num != c->qp->qp_num)
		fail(it->st, "%s: wc.qp_num 0x%x, expected 0x%x", what,
		     wc->qp_num, c->qp->qp_num);
	if (wc->byte_len != it->len)
		fail(it->st, "%s: byte_len %u, expected %u", what, wc->byte_len,
		     it->len);
	if (has_imm != with_imm)
		fail(it->st, "%s: IBV_WC_WITH_IMM flag %s", what,
		     has_imm ? "set unexpectedly" : "missing");
	if (has_imm && with_imm && ntohl(wc->imm_data) != it->imm)
		fail(it->st, "%s: imm_data 0x%08x, expected 0x%08x", what,
		     ntohl(wc->imm_data), it->imm);
}

/* Verify an item's region; records a failure if any byte is wrong. */
static void check_region(struct ctx *c, const struct item *it, const char *what,
			 const struct seglist *s, uint64_t valid)
{
	char why[200];
	uint64_t bad = verify_region(c->buf, s, it->seed, valid, why, sizeof(why));

	if (bad)
		fail(it->st, "%s: %" PRIu64 " wrong bytes; first: %s", what, bad, why);
}

/* ------------------------------------------------------------------ */
/* Test 1: SEND / SEND_WITH_IMM                                        */
/* ------------------------------------------------------------------ */

/*
 * Proves: a message gathered from up to 4 unaligned client SGEs arrives
 * byte for byte in up to 4 unaligned server SGEs, across packet (MTU)
 * boundaries and SGE boundaries that do not line up with each other;
 * byte_len is the message length (not the posted capacity); IBV_WC_RECV
 * is the opcode; IBV_WC_WITH_IMM and imm_data appear exactly for
 * SEND_WITH_IMM; receives complete in posting order; nothing outside the
 * received bytes (gaps between SGEs, unused capacity, guards) is written.
 */
static void send_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_SEND; k++) {
		struct item *it = &p->send[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = it->op;
		if (it->op == IBV_WR_SEND_WITH_IMM)
			wr.imm_data = htonl(it->imm);
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		item_name(&p->send[k], k, what, sizeof(what));
		if (expect_wc(c, c->scq, p->send[k].st, what, k, IBV_WC_SEND, &wc) < 0)
			break;
	}
	if (k < N_SEND)
		fail_rest(p->send, k, N_SEND, "no successful send completion");
}

static void send_server(struct ctx *c)
{
	struct plan *p = &c->plan;
	struct ibv_wc wc;
	char what[64];
	unsigned k;

	for (k = 0; k < N_SEND; k++) {
		struct item *it = &p->send[k];
		int r;

		item_name(it, k, what, sizeof(what));
		r = expect_wc(c, c->rcq, it->st, what, k, IBV_WC_RECV, &wc);
		if (r < 0)
			break;
		check_recv_wc(c, it, what, &wc, it->op == IBV_WR_SEND_WITH_IMM);
		check_region(c, it, what, &it->srv, it->len);
	}
	if (k < N_SEND)
		fail_rest(p->send, k, N_SEND, "receive did not complete");
}

static int test_send(struct ctx *c)
{
	static const int sts[] = { ST_SEND, ST_SEND_IMM };
	struct plan *p = &c->plan;
	int r;

	/* Prepare before the handshake: receives must be posted before the
	 * client sends (no RNR retries in the data path). */
	for (unsigned k = 0; k < N_SEND && !c->broken; k++) {
		struct item *it = &p->send[k];

		if (c->server) {
			fill_guard(c->buf, it->srv.rstart, it->srv.rend);
			post_recv(c, it->st, k, &it->srv, it->srv.n);
		} else {
			fill_region(c->buf, &it->cli, it->seed, it->len);
		}
	}
	r = phase_sync(c, "SEND-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 2);
	else if (c->server)
		send_server(c);
	else
		send_client(c);
	if (phase_sync(c, "SEND-END") < 0)
		return -1;
	report(ST_SEND);
	report(ST_SEND_IMM);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 2: RDMA_WRITE / RDMA_WRITE_WITH_IMM                            */
/* ------------------------------------------------------------------ */

/*
 * Proves: a write gathered from up to 4 unaligned client SGEs lands byte
 * for byte at an unaligned server address, for single-byte, sub-MTU and
 * multi-MTU lengths, without touching the bytes around the target range;
 * WRITE_WITH_IMM consumes exactly one posted receive (alternately with 0
 * and 1 SGE) and completes it as IBV_WC_RECV_RDMA_WITH_IMM with
 * byte_len = write length, IBV_WC_WITH_IMM and the immediate, without
 * writing into the receive buffer, and its data is in place when the
 * receive completes.  Plain writes are verified once the client has its
 * completions and tells the server (over TCP) which ranges to check.
 */
static void write_client(struct ctx *c, bool *ok)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_WRITE; k++) {
		struct item *it = &p->write[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = it->op;
		if (it->op == IBV_WR_RDMA_WRITE_WITH_IMM)
			wr.imm_data = htonl(it->imm);
		wr.wr.rdma.remote_addr = c->peer.addr + it->srv.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		item_name(&p->write[k], k, what, sizeof(what));
		if (expect_wc(c, c->scq, p->write[k].st, what, k,
			      IBV_WC_RDMA_WRITE, &wc) < 0)
			break;
		ok[k] = true;
	}
	if (k < N_WRITE)
		fail_rest(p->write, k, N_WRITE, "no successful write completion");
}

static void write_server_imm(struct ctx *c)
{
	struct plan *p = &c->plan;
	struct ibv_wc wc;
	char what[64], why[200];
	unsigned k;

	for (k = 1; k < N_WRITE; k += 2) {
		struct item *it = &p->write[k];

		item_name(it, k, what, sizeof(what));
		if (expect_wc(c, c->rcq, it->st, what, k,
			      IBV_WC_RECV_RDMA_WITH_IMM, &wc) < 0)
			break;
		check_recv_wc(c, it, what, &wc, true);
		check_region(c, it, what, &it->srv, it->len);
		if (verify_region(c->buf, &it->rcv, 0, 0, why, sizeof(why)))
			fail(it->st, "%s: receive buffer was written: %s", what, why);
	}
	if (k < N_WRITE)
		fail(ST_WRITE_IMM, "RDMA_WRITE_WITH_IMM #%u and later not verified: receive did not complete",
		     k);
}

/* Server: read the client's descriptors and verify the plain writes. */
static int write_server_plain(struct ctx *c)
{
	struct plan *p = &c->plan;
	char what[64];

	for (unsigned k = 0; k < N_WRITE; k++) {
		struct item *it = &p->write[k];
		uint64_t v[5];

		if (msg_recv(c, "WRITE-DESC", v, 5, NULL))
			return -1;
		if (it->st != ST_WRITE)
			continue;	/* WRITE_WITH_IMM: checked on its completion */
		item_name(it, k, what, sizeof(what));
		if (v[0] != k || v[1] != it->srv.off[0] || v[2] != it->len ||
		    v[3] != it->seed) {
			fail(it->st, "%s: client's descriptor (off %" PRIu64 " len %" PRIu64
			     ") does not match the plan (protocol mismatch)",
			     what, v[1], v[2]);
			continue;
		}
		if (!v[4]) {
			fail(it->st, "%s: not verifiable, the client's write did not complete",
			     what);
			continue;
		}
		check_region(c, it, what, &it->srv, it->len);
	}
	return 0;
}

static int test_write(struct ctx *c)
{
	static const int sts[] = { ST_WRITE, ST_WRITE_IMM };
	struct plan *p = &c->plan;
	bool ok[N_WRITE] = { false };
	int r;

	for (unsigned k = 0; k < N_WRITE && !c->broken; k++) {
		struct item *it = &p->write[k];

		if (c->server) {
			fill_guard(c->buf, it->srv.rstart, it->srv.rend);
			if (it->st == ST_WRITE_IMM) {
				/* Alternately 0 and 1 SGEs: neither may be written. */
				fill_guard(c->buf, it->rcv.rstart, it->rcv.rend);
				post_recv(c, it->st, k, &it->rcv, (k / 2) % 2);
			}
		} else {
			fill_region(c->buf, &it->cli, it->seed, it->len);
		}
	}
	r = phase_sync(c, "WRITE-START");
	if (r < 0)
		return -1;
	if (r == 0) {
		skip_subtests(sts, 2);
	} else if (c->server) {
		write_server_imm(c);
		if (write_server_plain(c))
			return -1;
	} else {
		write_client(c, ok);
		/* Tell the server which ranges were written (and completed). */
		for (unsigned k = 0; k < N_WRITE; k++) {
			const struct item *it = &p->write[k];
			uint64_t v[5] = { k, it->srv.off[0], it->len, it->seed, ok[k] };

			if (msg_send(c, "WRITE-DESC", v, 5, NULL))
				return -1;
		}
	}
	if (phase_sync(c, "WRITE-END") < 0)
		return -1;
	report(ST_WRITE);
	report(ST_WRITE_IMM);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 3: RDMA_READ                                                   */
/* ------------------------------------------------------------------ */

/*
 * Proves: a read of an unaligned server range (1 byte to 16+ MTUs, 4 reads
 * outstanding at once) scatters byte for byte into up to 4 unaligned
 * client SGEs, writes nothing outside them, and (checked on the server)
 * leaves the source memory unchanged.
 */
static void read_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[64];

	for (k = 0; k < N_READ; k++) {
		struct item *it = &p->read[k];
		struct ibv_sge sge[MAX_SEG];
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		to_sges(c, &it->cli, sge);
		wr.wr_id = k;
		wr.sg_list = sge;
		wr.num_sge = (int)it->cli.n;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = c->peer.addr + it->srv.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		if (post_send(c, it->st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		struct item *it = &p->read[k];

		item_name(it, k, what, sizeof(what));
		if (expect_wc(c, c->scq, it->st, what, k, IBV_WC_RDMA_READ, &wc) < 0)
			break;
		check_region(c, it, what, &it->cli, it->len);
	}
	if (k < N_READ)
		fail_rest(p->read, k, N_READ, "no successful read completion");
}

static int test_read(struct ctx *c)
{
	static const int sts[] = { ST_READ };
	struct plan *p = &c->plan;
	char what[64];
	int r;

	for (unsigned k = 0; k < N_READ && !c->broken; k++) {
		struct item *it = &p->read[k];

		if (c->server)
			fill_region(c->buf, &it->srv, it->seed, it->len);
		else
			fill_guard(c->buf, it->cli.rstart, it->cli.rend);
	}
	r = phase_sync(c, "READ-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 1);
	else if (!c->server)
		read_client(c);
	if (phase_sync(c, "READ-END") < 0)
		return -1;
	/* Server: after the client is done, the sources must be intact. */
	if (r == 1 && c->server) {
		for (unsigned k = 0; k < N_READ; k++) {
			item_name(&p->read[k], k, what, sizeof(what));
			check_region(c, &p->read[k], what, &p->read[k].srv,
				     p->read[k].len);
		}
	}
	report(ST_READ);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test 4: atomics                                                     */
/* ------------------------------------------------------------------ */

/*
 * Proves: CMP_SWAP compares all 64 bits (hits swap, misses - including
 * half-matching compare values - do not) and FETCH_ADD is a full 64-bit
 * add (carry across bit 31, wraparound at 2^64, signed overflow); every
 * returned original value is right, in posting order on the same slot,
 * and lands in exactly 8 bytes of the client's result buffer.  The server
 * then checks the final value of every slot (including one never
 * targeted) and that the bytes between the slots are untouched.
 */
static void atomic_client(struct ctx *c)
{
	struct plan *p = &c->plan;
	const struct seglist *res = &p->cli_atomic;
	unsigned posted = 0, k;
	struct ibv_wc wc;
	char what[80];

	if (c->dattr.atomic_cap == IBV_ATOMIC_NONE) {
		fail(ST_CAS, "device reports atomic_cap IBV_ATOMIC_NONE");
		fail(ST_FADD, "device reports atomic_cap IBV_ATOMIC_NONE");
		return;
	}
	for (k = 0; k < N_ATOMIC; k++) {
		const struct atomic_op *a = &p->atomic[k];
		int st = a->op == IBV_WR_ATOMIC_CMP_AND_SWP ? ST_CAS : ST_FADD;
		struct ibv_sge sge = {
			.addr = (uintptr_t)(c->buf + slot_off(res, k)),
			.length = 8,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = a->op;
		wr.wr.atomic.remote_addr = c->peer.addr + slot_off(&p->srv_atomic, a->slot);
		wr.wr.atomic.rkey = c->peer.rkey;
		wr.wr.atomic.compare_add = a->arg;
		wr.wr.atomic.swap = a->swap;
		if (post_send(c, st, &wr))
			break;
		posted++;
	}
	for (k = 0; k < posted; k++) {
		const struct atomic_op *a = &p->atomic[k];
		bool cas = a->op == IBV_WR_ATOMIC_CMP_AND_SWP;
		int st = cas ? ST_CAS : ST_FADD;
		uint64_t got, o = slot_off(res, k);

		snprintf(what, sizeof(what), "%s #%u slot %u (%s)",
			 wr_op_name(a->op), k, a->slot, a->what);
		if (expect_wc(c, c->scq, st, what, k,
			      cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, &wc) < 0)
			break;
		memcpy(&got, c->buf + o, 8);
		if (got != a->expect)
			fail(st, "%s: returned 0x%016" PRIx64 ", expected 0x%016" PRIx64,
			     what, got, a->expect);
		/* The 8 guard bytes after the result (and before slot 0). */
		for (uint64_t g = (k ? o + 8 : res->rstart); g < o + 16; g++) {
			if (g >= o && g < o + 8)
				continue;
			if (c->buf[g] != guard_byte(g)) {
				fail(st, "%s: byte at buffer offset %" PRIu64
				     " next to the result was written", what, g);
				break;
			}
		}
	}
	if (k < N_ATOMIC) {
		for (; k < N_ATOMIC; k++) {
			int st = p->atomic[k].op == IBV_WR_ATOMIC_CMP_AND_SWP ?
				 ST_CAS : ST_FADD;

			if (!subtests[st].nfail)
				fail(st, "atomic #%u and later not verified", k);
		}
	}
}

static void atomic_server_final(struct ctx *c)
{
	const struct plan *p = &c->plan;
	const struct seglist *a = &p->srv_atomic;

	for (unsigned i = 0; i < N_SLOTS; i++) {
		uint64_t got;

		memcpy(&got, c->buf + slot_off(a, i), 8);
		if (got != p->slot_final[i])
			fail(ST_ATOMIC_FINAL, "slot %u: final value 0x%016" PRIx64
			     ", expected 0x%016" PRIx64 " (initial 0x%016" PRIx64 ")",
			     i, got, p->slot_final[i], slot_init[i]);
	}
	for (uint64_t o = a->rstart; o < a->rend; o++) {
		if ((o - a->rstart) % 16 >= 8)
			continue;	/* inside a slot */
		if (c->buf[o] != guard_byte(o)) {
			fail(ST_ATOMIC_FINAL, "byte at buffer offset %" PRIu64
			     " between the slots was written", o);
			break;
		}
	}
}

static int test_atomic(struct ctx *c)
{
	static const int sts[] = { ST_CAS, ST_FADD, ST_ATOMIC_FINAL };
	struct plan *p = &c->plan;
	int r, re;

	if (c->broken) {
		/* nothing to prepare: the phase is skipped */
	} else if (c->server) {
		fill_guard(c->buf, p->srv_atomic.rstart, p->srv_atomic.rend);
		for (unsigned i = 0; i < N_SLOTS; i++)
			memcpy(c->buf + slot_off(&p->srv_atomic, i), &slot_init[i], 8);
	} else {
		fill_guard(c->buf, p->cli_atomic.rstart, p->cli_atomic.rend);
	}
	r = phase_sync(c, "ATOMIC-START");
	if (r < 0)
		return -1;
	if (r == 0)
		skip_subtests(sts, 3);
	else if (!c->server)
		atomic_client(c);
	re = phase_sync(c, "ATOMIC-END");
	if (re < 0)
		return -1;
	if (r == 1 && c->server) {
		if (re == 1)
			atomic_server_final(c);
		else
			fail(ST_ATOMIC_FINAL, "not verified: the atomic sequence did not complete");
	}
	report(ST_CAS);
	report(ST_FADD);
	report(ST_ATOMIC_FINAL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Error-path modes (-m MODE)                                          */
/* ------------------------------------------------------------------ */

/*
 * Each mode runs one scenario between the MODE-START and MODE-END
 * handshakes and reports it as the sub-test named after the mode.  The
 * server's registered buffer stays guard-filled unless the scenario is
 * meant to write it, so a write that should have been refused is caught.
 * The responder's counters are checked by the caller
 * (tools/testvm/errors-guest.sh).
 */
#define MODE_OFF	(4096 + 3)	/* unaligned data offset, both sides */
#define STREAM_LEN	4096		/* destroy_qp: bytes per RDMA WRITE */
#define STREAM_SIGNAL	16		/* destroy_qp: signal every 16th */
#define STREAM_MAX_MS	30000		/* destroy_qp: give up after this */
#define DESTROY_AFTER_MS 500		/* destroy_qp: server's delay */
#define RNR_DELAY_MS	1000		/* rnr: server posts its receive late */
#define IDLE_MAX_S	600		/* idle: longest wait for the peer */
#define MODE_SRC_LEN	65536		/* client: pattern bytes at MODE_OFF */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A region of one SGE at off with capacity cap and 16 guard bytes around. */
static void one_seg(struct seglist *s, uint64_t off, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	s->n = 1;
	s->off[0] = off;
	s->len[0] = cap;
	s->rstart = off - 16;
	s->rend = off + cap + 16;
}

/* Check that the whole registered buffer still holds the guard pattern. */
static void check_untouched(struct ctx *c, const char *what)
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

static const char *qp_state_name(int state)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"
	};

	return state >= 0 && state < 7 ? names[state] : "?";
}

/* The QP state as the provider reports it; -1 (and errno) if the query fails. */
static int query_qp_state(struct ctx *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(c->qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Informational: the QP state as the provider reports it. */
static void print_qp_state(struct ctx *c)
{
	int state = query_qp_state(c);

	if (state < 0)
		printf("# ibv_query_qp: %s\n", strerror(errno));
	else
		printf("# local QP state now %s\n", qp_state_name(state));
}

/* The local QP must be in the error state now (after @what). */
static void expect_qp_error(struct ctx *c, const char *what)
{
	int state = query_qp_state(c);

	if (state < 0)
		fail(ST_MODE, "ibv_query_qp: %s", strerror(errno));
	else if (state != IBV_QPS_ERR)
		fail(ST_MODE, "QP state %s after %s, expected ERR", qp_state_name(state), what);
	else
		printf("# QP in ERR after %s, as expected\n", what);
}

/* Post one signaled WR with one SGE at c->buf + off (sroce_integrity's MR). */
static int post_wr(struct ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		   uint64_t wr_id, const void *laddr, uint32_t len, uint32_t lkey,
		   uint64_t raddr, uint32_t rkey);

static int post_one(struct ctx *c, enum ibv_wr_opcode op, uint64_t wr_id,
		    uint64_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	return post_wr(c, c->qp, op, wr_id, c->buf + off, len, c->mr->lkey, raddr, rkey);
}

/* Wait for the next completion on @cq: wr_id and status must be as given. */
static void expect_completion(struct ctx *c, struct ibv_cq *cq, const char *what,
			      uint64_t wr_id, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	if (poll_one(c, cq, ST_MODE, what, &wc))
		return;
	if (wc.wr_id != wr_id)
		fail(ST_MODE, "%s: completion of wr_id %" PRIu64 ", expected %" PRIu64,
		     what, wc.wr_id, wr_id);
	if (wc.status != want)
		fail(ST_MODE, "%s: completion status %s (%d), expected %s (%d)",
		     what, ibv_wc_status_str(wc.status), wc.status,
		     ibv_wc_status_str(want), want);
	else
		printf("# %s: completion status %s, as expected\n", what,
		       ibv_wc_status_str(wc.status));
}

/* Wait for the send completion of wr_id; its status must be want. */
static void expect_status(struct ctx *c, const char *what, uint64_t wr_id,
			  enum ibv_wc_status want)
{
	expect_completion(c, c->scq, what, wr_id, want);
}

/*
 * rnr: one multi-packet SEND reaches the server before it has posted a
 * receive.  The responder must answer with RNR NAKs (and nothing else:
 * no sequence NAK for the packets that follow the refused first one);
 * the requester (rnr_retry 7 = unlimited, min_rnr_timer 12 from the
 * server's RTR) retries until the receive is posted ~1 s later.  The send
 * must then complete successfully and the bytes arrive intact.
 */
static uint32_t rnr_len(const struct ctx *c)
{
	/* rnr_timer: one packet, so that only RNR NAKs answer it (a stock rxe
	 * responder also answers the later packets of a message with one
	 * PSN-sequence NAK per round). */
	return c->mode == M_RNR_TIMER ? 200 : 3 * c->mtu_bytes + 5;
}

static void rnr_client(struct ctx *c)
{
	uint32_t len = rnr_len(c);
	uint64_t t0 = now_ms();
	struct ibv_wc wc;

	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, len, 0, 0))
		return;
	if (expect_wc(c, c->scq, ST_MODE, "SEND before the receive is posted",
		      1, IBV_WC_SEND, &wc) == 0)
		printf("# rnr: SEND of %u bytes completed after %" PRIu64 " ms\n",
		       len, now_ms() - t0);
}

static void rnr_server(struct ctx *c)
{
	uint32_t len = rnr_len(c);
	struct seglist s;
	struct ibv_wc wc;
	char why[200];
	uint64_t bad;

	one_seg(&s, MODE_OFF, len + 64);
	s.rstart = 0;			/* check the whole buffer */
	s.rend = c->buf_len;
	sleep_ms(RNR_DELAY_MS);
	printf("# rnr: posting the receive now (%u ms after the start)\n",
	       RNR_DELAY_MS);
	if (post_recv(c, ST_MODE, 7, &s, 1))
		return;
	if (expect_wc(c, c->rcq, ST_MODE, "receive posted late", 7,
		      IBV_WC_RECV, &wc) < 0)
		return;
	if (wc.byte_len != len)
		fail(ST_MODE, "receive: byte_len %u, expected %u", wc.byte_len, len);
	if (wc.wc_flags & IBV_WC_WITH_IMM)
		fail(ST_MODE, "receive: IBV_WC_WITH_IMM set for a plain SEND");
	bad = verify_region(c->buf, &s, seed_for(0x100 + c->mode, 0), len, why,
			    sizeof(why));
	if (bad)
		fail(ST_MODE, "receive: %" PRIu64 " wrong bytes; first: %s", bad, why);
}

/*
 * bad_rkey / oob_write / oob_read: one request the responder must refuse
 * with a Remote Access Error NAK, so the client's completion is
 * IBV_WC_REM_ACCESS_ERR, and nothing of the server's buffer (nor, for the
 * read, of the client's destination) may be written.  The out-of-bounds
 * ones start 2 MTUs before the end of the server's MR and run 64 bytes past
 * it, so a responder that checks only each packet (not the whole RETH
 * range at the first one) writes the first two packets and is caught.
 */
static void access_client(struct ctx *c)
{
	uint32_t oob_len = 2 * c->mtu_bytes + 64;
	uint64_t oob_addr = c->peer.addr + c->peer.len - 2 * c->mtu_bytes;
	struct seglist s;
	char why[200];

	switch (c->mode) {
	case M_BAD_RKEY:
		printf("# bad_rkey: RDMA_WRITE of 64 bytes with rkey 0x%x (the server's is 0x%x)\n",
		       c->peer.rkey ^ 0xff00, c->peer.rkey);
		if (!post_one(c, IBV_WR_RDMA_WRITE, 1, MODE_OFF, 64,
			      c->peer.addr + MODE_OFF, c->peer.rkey ^ 0xff00))
			expect_status(c, "RDMA_WRITE with a wrong rkey", 1,
				      IBV_WC_REM_ACCESS_ERR);
		break;
	case M_OOB_WRITE:
		printf("# oob_write: RDMA_WRITE of %u bytes at MR end - %u\n",
		       oob_len, 2 * c->mtu_bytes);
		if (!post_one(c, IBV_WR_RDMA_WRITE, 1, MODE_OFF, oob_len,
			      oob_addr, c->peer.rkey))
			expect_status(c, "RDMA_WRITE past the end of the MR", 1,
				      IBV_WC_REM_ACCESS_ERR);
		break;
	case M_OOB_READ:
		printf("# oob_read: RDMA_READ of %u bytes at MR end - %u\n",
		       oob_len, 2 * c->mtu_bytes);
		one_seg(&s, MODE_OFF, oob_len);
		fill_guard(c->buf, s.rstart, s.rend);
		if (!post_one(c, IBV_WR_RDMA_READ, 1, MODE_OFF, oob_len,
			      oob_addr, c->peer.rkey))
			expect_status(c, "RDMA_READ past the end of the MR", 1,
				      IBV_WC_REM_ACCESS_ERR);
		if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
			fail(ST_MODE, "the refused read wrote the local buffer: %s",
			     why);
		break;
	default:
		break;
	}
	print_qp_state(c);
}

/*
 * destroy_qp: the client streams 4 KiB RDMA WRITEs (64 outstanding, every
 * 16th signaled) until it gets an error completion; ~0.5 s after the start
 * the server destroys its QP, MR, CQs and PD under that stream.  The
 * client's QP (timeout 16, retry_cnt 2) must then fail the oldest write
 * with IBV_WC_RETRY_EXC_ERR, after the destroy (checked with the server's
 * destroy time at MODE-END), and the server must survive.
 */
static void destroy_client(struct ctx *c)
{
	uint64_t start = now_ms(), posted = 0, done = 0, flushed = 0, other = 0;
	uint64_t nslots = c->peer.len / STREAM_LEN, err_wr = 0, quiet;
	enum ibv_wc_status err = IBV_WC_SUCCESS;
	bool post_failed = false;
	unsigned spins = 0;
	struct ibv_wc wc[16];
	int n;

	while (err == IBV_WC_SUCCESS) {
		if (now_ms() - start > STREAM_MAX_MS) {
			fail(ST_MODE, "no error completion within %u ms (%" PRIu64
			     " writes completed, server destroyed its QP after ~%u ms)",
			     STREAM_MAX_MS, done, DESTROY_AFTER_MS);
			return;
		}
		while (!post_failed && posted - done < QUEUE_DEPTH) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)(c->buf + MODE_OFF),
				.length = STREAM_LEN,
				.lkey = c->mr->lkey,
			};
			struct ibv_send_wr wr, *bad = NULL;
			int r;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = c->peer.addr +
						 (posted % nslots) * STREAM_LEN;
			wr.wr.rdma.rkey = c->peer.rkey;
			if (posted % STREAM_SIGNAL == STREAM_SIGNAL - 1)
				wr.send_flags = IBV_SEND_SIGNALED;
			r = ibv_post_send(c->qp, &wr, &bad);
			if (r) {
				/* The QP may be in error already: keep polling. */
				printf("# destroy_qp: ibv_post_send of write #%" PRIu64
				       " failed: %s\n", posted, strerror(r));
				post_failed = true;
				break;
			}
			posted++;
		}
		n = ibv_poll_cq(c->scq, 16, wc);
		if (n < 0) {
			fail(ST_MODE, "ibv_poll_cq failed (%d)", n);
			return;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				err = wc[i].status;
				err_wr = wc[i].wr_id;
				break;
			}
			done = wc[i].wr_id + 1;
		}
		if (n == 0 && ++spins > 1000) {	/* soft RoCE needs the CPU too */
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	c->error_ms = now_ms() - start;
	/* Drain the flushed rest until the CQ stays quiet for 1 s. */
	quiet = now_ms();
	while (now_ms() - quiet < 1000) {
		n = ibv_poll_cq(c->scq, 16, wc);
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				flushed++;
			else
				other++;
		}
		if (n > 0)
			quiet = now_ms();
		else
			sleep_ms(1);
	}
	printf("# destroy_qp: %" PRIu64 " writes posted, %" PRIu64
	       " completed; first error %s (%d) on write #%" PRIu64 " after %"
	       PRIu64 " ms; then %" PRIu64 " flushed, %" PRIu64 " other\n",
	       posted, done, ibv_wc_status_str(err), err, err_wr, c->error_ms,
	       flushed, other);
	if (err != IBV_WC_RETRY_EXC_ERR)
		fail(ST_MODE, "first error completion %s (%d), expected %s",
		     ibv_wc_status_str(err), err,
		     ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	if (done == 0)
		fail(ST_MODE, "no write completed before the error: the stream never ran");
	print_qp_state(c);
}

static void destroy_server(struct ctx *c, uint64_t start)
{
	int r;

	sleep_ms(DESTROY_AFTER_MS);
	c->destroy_ms = now_ms() - start;
	printf("# destroy_qp: destroying QP 0x%06x under the client's stream (%"
	       PRIu64 " ms after the start)\n", c->qp->qp_num, c->destroy_ms);
	r = ibv_destroy_qp(c->qp);
	c->qp = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	r = ibv_dereg_mr(c->mr);
	c->mr = NULL;
	if (r)
		fail(ST_MODE, "ibv_dereg_mr: %s", strerror(r));
	r = ibv_destroy_cq(c->rcq);
	c->rcq = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_cq (recv): %s", strerror(r));
	r = ibv_destroy_cq(c->scq);
	c->scq = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_cq (send): %s", strerror(r));
	r = ibv_dealloc_pd(c->pd);
	c->pd = NULL;
	if (r)
		fail(ST_MODE, "ibv_dealloc_pd: %s", strerror(r));
	printf("# destroy_qp: QP, MR, CQs and PD destroyed after %" PRIu64 " ms\n",
	       now_ms() - start);
}

/*
 * idle: after the connection, wait until the peer closes the control
 * connection (or this process is killed).  Used to tear the device down
 * while a user context and a connected QP exist.  Returns 1 (no result
 * exchange: the peer is gone) or 0 if the setup failed.
 */
static int idle_wait(struct ctx *c)
{
	uint64_t deadline = now_ms() + IDLE_MAX_S * 1000ull;

	if (c->broken) {
		fail(ST_MODE, "not run: setup failed (this side or peer)");
		report(ST_MODE);
		return 0;
	}
	printf("# idle: connected; waiting until the peer closes the control connection or this process is killed\n");
	fflush(stdout);
	for (;;) {
		char b;
		ssize_t n = recv(c->sock, &b, 1, 0);

		if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE))) {
			printf("# idle: the peer closed the control connection\n");
			break;
		}
		if (n > 0) {
			fail(ST_MODE, "unexpected data on the control connection");
			break;
		}
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
			fail(ST_MODE, "control connection: %s", strerror(errno));
			break;
		}
		if (now_ms() > deadline) {
			fail(ST_MODE, "the peer did not go away within %d s", IDLE_MAX_S);
			break;
		}
	}
	report(ST_MODE);
	return 1;
}

/*
 * Run the scenario of c->mode.  Returns 0 when done (results are then
 * exchanged as in the integrity mode), 1 when done without a peer to
 * exchange results with, -1 if the control connection failed.
 */
/*
 * Hand-built packets (inject.c), sent by the client from a raw IPv4 socket
 * with the QPN and PSN of the connected pair; the client's own QP never
 * sends a request in these modes until the final READ of malformed.
 * Both need IPv4-mapped GIDs.
 */
#define INJ_SNIFF_MS	5000	/* longest wait for an expected response */
#define INJ_QUIET_MS	1000	/* silence expected after a dropped packet */

struct inj_ctx {
	int tx, rx;
	struct in_addr me, peer;
	char err[200];
};

static int inj_setup(struct ctx *c, struct inj_ctx *ic)
{
	ic->tx = ic->rx = -1;
	if (!inj_gid_ipv4(c->gid.raw, &ic->me) ||
	    !inj_gid_ipv4(c->peer.gid.raw, &ic->peer)) {
		fail(ST_MODE, "hand-built packets need IPv4-mapped GIDs on both sides");
		return -1;
	}
	ic->rx = inj_open_sniffer(ic->err, sizeof(ic->err));
	if (ic->rx >= 0)
		ic->tx = inj_open_sender(ic->err, sizeof(ic->err));
	if (ic->tx < 0) {
		fail(ST_MODE, "%s", ic->err);
		return -1;
	}
	return 0;
}

static void inj_close(struct inj_ctx *ic)
{
	if (ic->tx >= 0)
		close(ic->tx);
	if (ic->rx >= 0)
		close(ic->rx);
}

/* A request to the server's QP at the server's next expected PSN. */
static void inj_base(const struct ctx *c, const struct inj_ctx *ic,
		     struct inj_pkt *p, uint8_t opcode)
{
	memset(p, 0, sizeof(*p));
	p->src = ic->me;
	p->dst = ic->peer;
	p->udp_sport = (uint16_t)(0xc000 | (c->qp->qp_num & 0x3fff));
	p->opcode = opcode;
	p->pkey = 0xffff;
	p->qpn = c->peer.qpn;
	p->psn = c->psn;
	p->ackreq = true;
}

/* Expect no packet at all from the server for INJ_QUIET_MS. */
static void inj_expect_silence(struct inj_ctx *ic, const char *what)
{
	struct inj_seen s;
	int r = inj_sniff(ic->rx, ic->peer, INJ_QUIET_MS, &s, ic->err, sizeof(ic->err));

	if (r < 0)
		fail(ST_MODE, "%s: %s", what, ic->err);
	else if (r > 0)
		fail(ST_MODE, "%s: the server answered (opcode 0x%02x PSN 0x%06x syndrome 0x%02x); it must drop it silently",
		     what, s.opcode, s.psn, s.syndrome);
	else
		printf("# %s: no answer in %u ms, as expected\n", what, INJ_QUIET_MS);
}

/*
 * misaligned_atomic: a FETCH_ADD to the server's MR at an address that is
 * not 8-byte aligned, at the server's expected PSN.  The responder must
 * answer NAK Invalid Request (AETH syndrome 0x61) carrying its expected
 * PSN and MSN 0 (C9-121), with a valid ICRC, touch no memory, move its QP
 * to the error state, and then drop the same packet sent again.
 */
static void misaligned_client(struct ctx *c)
{
	uint64_t va = c->peer.addr + MODE_OFF;	/* MODE_OFF is odd */
	uint8_t eth[INJ_ATMETH_LEN];
	struct inj_ctx ic;
	struct inj_pkt p;
	struct inj_seen s;
	int r;

	if (inj_setup(c, &ic))
		goto out;
	inj_base(c, &ic, &p, INJ_OP_FETCH_ADD);
	p.ext = eth;
	p.ext_len = inj_put_atmeth(eth, va, c->peer.rkey, 1, 0);
	printf("# misaligned_atomic: FETCH_ADD at VA 0x%" PRIx64 " (VA %% 8 = %u), PSN 0x%06x, to QP 0x%06x\n",
	       va, (unsigned)(va % 8), p.psn, p.qpn);
	if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
		fail(ST_MODE, "%s", ic.err);
		goto out;
	}
	r = inj_sniff(ic.rx, ic.peer, INJ_SNIFF_MS, &s, ic.err, sizeof(ic.err));
	if (r <= 0) {
		fail(ST_MODE, "no response from the server: %s",
		     r ? ic.err : "timeout");
		goto out;
	}
	printf("# response: opcode 0x%02x to QP 0x%06x PSN 0x%06x syndrome 0x%02x MSN %u ICRC %s\n",
	       s.opcode, s.qpn, s.psn, s.syndrome, s.msn, s.icrc_ok ? "ok" : "BAD");
	if (s.opcode != INJ_OP_ACKNOWLEDGE || !s.has_aeth)
		fail(ST_MODE, "response opcode 0x%02x, expected Acknowledge 0x11", s.opcode);
	if (s.syndrome != 0x61)
		fail(ST_MODE, "AETH syndrome 0x%02x, expected 0x61 (NAK invalid request)",
		     s.syndrome);
	if (s.psn != c->psn)
		fail(ST_MODE, "NAK PSN 0x%06x, expected the request's 0x%06x", s.psn, c->psn);
	if (s.msn != 0)
		fail(ST_MODE, "NAK MSN %u, expected 0 (no message completed)", s.msn);
	if (s.qpn != c->qp->qp_num)
		fail(ST_MODE, "NAK to QP 0x%06x, expected 0x%06x", s.qpn, c->qp->qp_num);
	if (!s.icrc_ok)
		fail(ST_MODE, "the NAK's ICRC is wrong");
	if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
		fail(ST_MODE, "%s", ic.err);
		goto out;
	}
	inj_expect_silence(&ic, "the same FETCH_ADD to the QP in error");
out:
	inj_close(&ic);
}

/* One malformed packet: what is wrong with it, and the drop it must get. */
enum malformed_kind {
	MF_TOO_SHORT, MF_TVER, MF_PKEY, MF_OPCODE, MF_RESPONSE, MF_PAD, MF_ICRC,
	MF_NO_QP, MF_QP_STATE, MF_SRC_ADDR, MF_COUNT
};

static const char *const malformed_names[MF_COUNT] = {
	[MF_TOO_SHORT]	= "UDP payload of 8 bytes (rx_drop_too_short)",
	[MF_TVER]	= "BTH TVer 1 (rx_drop_bad_tver)",
	[MF_PKEY]	= "P_Key 0x0001 (rx_drop_bad_pkey)",
	[MF_OPCODE]	= "reserved RC opcode 0x1f (rx_drop_bad_opcode)",
	[MF_RESPONSE]	= "an Acknowledge that answers nothing the QP sent (comp_drop_ghost or _duplicate)",
	[MF_PAD]	= "PadCnt 3 with no payload (rx_drop_bad_pad)",
	[MF_ICRC]	= "one ICRC bit flipped (rx_drop_bad_icrc)",
	[MF_NO_QP]	= "a destination QP that does not exist (rx_drop_no_qp)",
	[MF_QP_STATE]	= "a destination QP in INIT (rx_drop_qp_state)",
	[MF_SRC_ADDR]	= "a source IP that is not the QP's peer (rx_drop_bad_addr)",
};

/*
 * malformed: a valid 16-byte RDMA WRITE at the server's expected PSN, sent
 * once per kind above with one thing wrong.  Each must be dropped without
 * an answer and without touching memory (the guest script checks that each
 * named drop counter moved by exactly one); afterwards the QP must still
 * serve an RDMA READ at that same PSN.  The server also creates a second
 * QP, left in INIT, as the target of MF_QP_STATE.
 */
static void malformed_client(struct ctx *c, uint32_t init_qpn)
{
	uint8_t reth[INJ_RETH_LEN], aeth[INJ_AETH_LEN] = { 0 };
	uint8_t data[16] = "sroce-malformed";
	struct seglist s;
	struct inj_ctx ic;
	char why[200];

	if (inj_setup(c, &ic))
		goto out;
	for (int k = 0; k < MF_COUNT; k++) {
		struct inj_pkt p;

		inj_base(c, &ic, &p, INJ_OP_RDMA_WRITE_ONLY);
		p.ext = reth;
		p.ext_len = inj_put_reth(reth, c->peer.addr + MODE_OFF, c->peer.rkey,
					 sizeof(data));
		p.payload = data;
		p.payload_len = sizeof(data);
		switch (k) {
		case MF_TOO_SHORT:
			p.truncate = 8;
			break;
		case MF_TVER:
			p.flags = INJ_BTH_TVER(1);
			break;
		case MF_PKEY:
			p.pkey = 0x0001;
			break;
		case MF_OPCODE:
			p.opcode = INJ_OP_RESERVED_RC;
			p.ext_len = 0;
			break;
		case MF_RESPONSE:
			p.opcode = INJ_OP_ACKNOWLEDGE;
			p.ext = aeth;
			p.ext_len = sizeof(aeth);
			p.payload_len = 0;
			break;
		case MF_PAD:
			p.flags = INJ_BTH_PAD(3);
			p.ext_len = inj_put_reth(reth, c->peer.addr + MODE_OFF,
						 c->peer.rkey, 0);
			p.payload_len = 0;
			break;
		case MF_ICRC:
			p.bad_icrc = true;
			break;
		case MF_NO_QP:
			p.qpn = c->peer.qpn ^ 0x400000;
			break;
		case MF_QP_STATE:
			p.qpn = init_qpn;
			break;
		case MF_SRC_ADDR:
			p.src.s_addr = htonl(ntohl(ic.me.s_addr) ^ 0x80);
			break;
		}
		printf("# malformed %d: %s\n", k, malformed_names[k]);
		if (inj_send(ic.tx, &p, ic.err, sizeof(ic.err))) {
			fail(ST_MODE, "%s: %s", malformed_names[k], ic.err);
			goto out;
		}
	}
	inj_expect_silence(&ic, "all malformed packets");

	/* The QP still works, from the PSN none of them consumed. */
	one_seg(&s, MODE_OFF, 64);
	fill_guard(c->buf, s.rstart, s.rend);
	if (!post_one(c, IBV_WR_RDMA_READ, 1, MODE_OFF, 64, c->peer.addr + MODE_OFF,
		      c->peer.rkey))
		expect_status(c, "RDMA_READ after the malformed packets", 1,
			      IBV_WC_SUCCESS);
	/* The server's bytes there are still its guard pattern. */
	for (unsigned i = 0; i < 64; i++) {
		if (c->buf[MODE_OFF + i] != guard_byte(MODE_OFF + i)) {
			snprintf(why, sizeof(why), "byte %u read back 0x%02x, the server's guard is 0x%02x",
				 i, c->buf[MODE_OFF + i], guard_byte(MODE_OFF + i));
			fail(ST_MODE, "RDMA_READ data: %s", why);
			break;
		}
	}
out:
	inj_close(&ic);
}

/* malformed, server side: the INIT-state QP that MF_QP_STATE targets. */
static void malformed_server(struct ctx *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	uint64_t v[1] = { 0 };
	int r;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(c->pd, &ia);
	if (!qp) {
		fail(ST_MODE, "ibv_create_qp (second QP): %s", strerror(errno));
	} else {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = c->ib_port;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		r = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (r)
			fail(ST_MODE, "ibv_modify_qp (second QP) to INIT: %s", strerror(r));
		else
			v[0] = qp->qp_num;
	}
	printf("# malformed: second QP 0x%06" PRIx64 " in INIT\n", v[0]);
	if (msg_send(c, "INIT-QP", v, 1, NULL) || msg_recv(c, "INJECTED", v, 1, NULL))
		c->broken = true;
	if (qp && (r = ibv_destroy_qp(qp)))
		fail(ST_MODE, "ibv_destroy_qp (second QP): %s", strerror(r));
}

/* Client side of the INIT-QP / INJECTED exchange around malformed_client. */
static void malformed_run(struct ctx *c)
{
	uint64_t v[1];

	if (msg_recv(c, "INIT-QP", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!v[0])
		fail(ST_MODE, "the server has no second QP in INIT");
	else
		malformed_client(c, (uint32_t)v[0]);
	if (msg_send(c, "INJECTED", v, 1, NULL))
		c->broken = true;
}

/*
 * resize_cq: the server's receive CQ is resized while it holds unpolled
 * completions.  8 SENDs land first (CQEs in the original 256-entry ring);
 * a resize below that count must fail and change nothing; resizes to 512
 * and then to 16 must keep the 8 CQEs; 8 more SENDs land in the resized
 * ring.  Then all 16 completions must come out in order, with the right
 * lengths and bytes, and an empty CQ must shrink to 1 entry.
 */
#define RS_BATCH	8
#define RS_SLOT		512	/* receive buffer stride on the server */

static uint32_t rs_len(unsigned k)
{
	return 100 + 13 * k;
}

static void resize_client(struct ctx *c)
{
	uint64_t v[1] = { 0 };

	for (unsigned round = 0; round < 2 && !c->broken; round++) {
		if (msg_recv(c, round ? "RESIZED" : "POSTED", v, 1, NULL)) {
			c->broken = true;
			return;
		}
		for (unsigned k = round * RS_BATCH; k < (round + 1) * RS_BATCH; k++) {
			if (post_one(c, IBV_WR_SEND, k, MODE_OFF, rs_len(k), 0, 0))
				break;
			expect_status(c, "SEND", k, IBV_WC_SUCCESS);
		}
		if (msg_send(c, "SENT", v, 1, NULL))
			c->broken = true;
	}
}

static int rs_resize(struct ctx *c, int cqe, bool must_work)
{
	int r = ibv_resize_cq(c->rcq, cqe);

	printf("# resize_cq to %d: %s (cq->cqe now %d)\n", cqe,
	       r ? strerror(r) : "ok", c->rcq->cqe);
	if (must_work && r)
		fail(ST_MODE, "ibv_resize_cq(%d) with %d CQEs queued: %s", cqe,
		     RS_BATCH, strerror(r));
	if (!must_work && !r)
		fail(ST_MODE, "ibv_resize_cq(%d) succeeded with %d CQEs queued",
		     cqe, RS_BATCH);
	if (!r && c->rcq->cqe < cqe)
		fail(ST_MODE, "ibv_resize_cq(%d): cq->cqe %d is smaller", cqe,
		     c->rcq->cqe);
	return r;
}

static void resize_server(struct ctx *c)
{
	uint64_t seed = seed_for(0x100 + M_RESIZE_CQ, 0);
	struct seglist s[2 * RS_BATCH];
	uint64_t v[1] = { 0 };
	struct ibv_wc wc;
	char why[200];
	int before;

	for (unsigned k = 0; k < 2 * RS_BATCH; k++)
		one_seg(&s[k], MODE_OFF + (uint64_t)k * RS_SLOT, RS_SLOT - 64);
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned k = round * RS_BATCH; k < (round + 1) * RS_BATCH; k++)
			if (post_recv(c, ST_MODE, k, &s[k], 1))
				return;
		if (msg_send(c, round ? "RESIZED" : "POSTED", v, 1, NULL) ||
		    msg_recv(c, "SENT", v, 1, NULL)) {
			c->broken = true;
			return;
		}
		if (round)
			break;
		before = c->rcq->cqe;
		if (rs_resize(c, RS_BATCH / 2, false) && c->rcq->cqe != before)
			fail(ST_MODE, "the refused resize changed cq->cqe from %d to %d",
			     before, c->rcq->cqe);
		rs_resize(c, 512, true);
		rs_resize(c, 2 * RS_BATCH, true);
	}
	for (unsigned k = 0; k < 2 * RS_BATCH; k++) {
		char what[64];

		snprintf(what, sizeof(what), "receive %u", k);
		if (expect_wc(c, c->rcq, ST_MODE, what, k, IBV_WC_RECV, &wc) < 0)
			return;
		if (wc.byte_len != rs_len(k))
			fail(ST_MODE, "%s: byte_len %u, expected %u", what,
			     wc.byte_len, rs_len(k));
		if (verify_region(c->buf, &s[k], seed, rs_len(k), why, sizeof(why)))
			fail(ST_MODE, "%s: %s", what, why);
	}
	if (ibv_poll_cq(c->rcq, 1, &wc) != 0)
		fail(ST_MODE, "a 17th completion (wr_id %" PRIu64 ")", wc.wr_id);
	rs_resize(c, 1, true);
}

/*
 * hostile: the user side of sroce's shared rings misbehaves (server).
 *  1. A SEND from the client lands intact in a posted receive.  (The
 *     send ring is the requester's, tested on its own.)
 *  2. A posted receive WQE is rewritten in the mapped ring (num_sge
 *     0x7fffffff) before the client's SEND reaches it.  The responder must
 *     validate its copy: that WQE completes with IBV_WC_LOC_QP_OP_ERR and
 *     the one posted after it with IBV_WC_WR_FLUSH_ERR (the QP is in
 *     Error, and says so), the client gets IBV_WC_REM_OP_ERR, and no byte
 *     of the server's buffer changes but the first SEND's.
 */
#define HOSTILE_WR	UINT64_C(0x5eed0000c0ffee00)

/* The slot of the receive WQE with this wr_id in a mapped uverbs ring. */
static uint8_t *find_ring_wqe(uint64_t wr_id, unsigned *hits)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uint8_t *found = NULL;
	char line[512];

	*hits = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[8];

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r' ||
		    perm[1] != 'w')
			continue;
		for (unsigned long a = lo; a + sizeof(struct rxe_recv_wqe) <= hi; a += 8) {
			uint64_t v;

			memcpy(&v, (void *)a, sizeof(v));
			if (v == wr_id) {
				found = (uint8_t *)a;
				(*hits)++;
			}
		}
	}
	fclose(f);
	return found;
}

static void hostile_client(struct ctx *c)
{
	uint64_t v[1] = { 0 };

	if (msg_recv(c, "STEP1", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0))
		expect_status(c, "SEND into the posted receive", 1, IBV_WC_SUCCESS);
	if (msg_send(c, "SENT", v, 1, NULL) || msg_recv(c, "STEP2", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (!post_one(c, IBV_WR_SEND, 2, MODE_OFF, 64, 0, 0))
		expect_status(c, "SEND into the rewritten receive WQE", 2, IBV_WC_REM_OP_ERR);
	if (msg_send(c, "SENT", v, 1, NULL))
		c->broken = true;
}

static void hostile_server(struct ctx *c)
{
	uint64_t v[1] = { 0 };
	struct seglist s[3];
	unsigned hits;
	uint8_t *slot;
	uint32_t evil = 0x7fffffff;
	char why[200];

	for (unsigned k = 0; k < 3; k++)
		one_seg(&s[k], MODE_OFF + 4096 * (uint64_t)k, 256);
	if (post_recv(c, ST_MODE, HOSTILE_WR, &s[0], 1))
		return;
	if (msg_send(c, "STEP1", v, 1, NULL) || msg_recv(c, "SENT", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	expect_completion(c, c->rcq, "receive of the first SEND", HOSTILE_WR,
			  IBV_WC_SUCCESS);
	if (verify_region(c->buf, &s[0], seed_for(0x100 + M_HOSTILE, 0), 100, why, sizeof(why)))
		fail(ST_MODE, "the SEND after the doorbell: %s", why);

	if (post_recv(c, ST_MODE, HOSTILE_WR + 1, &s[1], 1) ||
	    post_recv(c, ST_MODE, HOSTILE_WR + 2, &s[2], 1))
		return;
	slot = find_ring_wqe(HOSTILE_WR + 1, &hits);
	if (!slot || hits != 1) {
		fail(ST_MODE, "receive WQE 0x%" PRIx64 " found %u times in the mapped rings",
		     HOSTILE_WR + 1, hits);
		c->broken = true;
	} else {
		memcpy(slot + offsetof(struct rxe_recv_wqe, dma.num_sge), &evil, sizeof(evil));
		printf("# rewrote num_sge of the posted receive WQE to 0x%x\n", evil);
	}
	if (msg_send(c, "STEP2", v, 1, NULL) || msg_recv(c, "SENT", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	expect_completion(c, c->rcq, "the rewritten receive WQE", HOSTILE_WR + 1,
			  IBV_WC_LOC_QP_OP_ERR);
	expect_completion(c, c->rcq, "the receive behind it", HOSTILE_WR + 2, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "the bad WQE");
	/* Only the first SEND's 100 bytes may have changed. */
	fill_guard(c->buf, MODE_OFF, MODE_OFF + 100);
	check_untouched(c, "after the rewritten WQE");
}

/*
 * mr_access: the server registers a second MR with LOCAL_WRITE and
 * REMOTE_READ only.  An RDMA_READ of it must work (and return its bytes);
 * an RDMA_WRITE to it must fail with IBV_WC_REM_ACCESS_ERR, writing
 * nothing: MR access flags are enforced, not only the QP's.
 */
#define MR2_LEN		4096

static void mr_access_client(struct ctx *c)
{
	uint64_t v[2];
	struct seglist s;
	char why[200];

	if (msg_recv(c, "MR2", v, 2, NULL)) {
		c->broken = true;
		return;
	}
	one_seg(&s, 2 * MODE_SRC_LEN, 64);
	fill_guard(c->buf, s.rstart, s.rend);
	if (!post_one(c, IBV_WR_RDMA_READ, 1, 2 * MODE_SRC_LEN, 64, v[0], (uint32_t)v[1]))
		expect_status(c, "RDMA_READ of the read-only MR", 1, IBV_WC_SUCCESS);
	if (verify_region(c->buf, &s, seed_for(0x100 + M_MR_ACCESS, 1), 64, why, sizeof(why)))
		fail(ST_MODE, "RDMA_READ of the read-only MR: %s", why);
	if (!post_one(c, IBV_WR_RDMA_WRITE, 2, MODE_OFF, 64, v[0] + 128, (uint32_t)v[1]))
		expect_status(c, "RDMA_WRITE to the read-only MR", 2, IBV_WC_REM_ACCESS_ERR);
	if (msg_send(c, "DONE", v, 1, NULL))
		c->broken = true;
}

static void mr_access_server(struct ctx *c)
{
	uint64_t seed = seed_for(0x100 + M_MR_ACCESS, 1);
	uint8_t *buf = aligned_alloc(4096, MR2_LEN);
	struct ibv_mr *mr = NULL;
	uint64_t v[2] = { 0, 0 };
	int r;

	if (buf) {
		for (unsigned i = 0; i < MR2_LEN; i++)
			buf[i] = i < 64 ? pat_byte(seed, i) : guard_byte(i);
		mr = ibv_reg_mr(c->pd, buf, MR2_LEN,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	}
	if (!mr)
		fail(ST_MODE, "ibv_reg_mr (read-only, %d bytes): %s", MR2_LEN, strerror(errno));
	else
		v[0] = (uintptr_t)buf, v[1] = mr->rkey;
	if (msg_send(c, "MR2", v, 2, NULL) || msg_recv(c, "DONE", v, 1, NULL))
		c->broken = true;
	for (unsigned i = 64; buf && i < MR2_LEN; i++) {
		if (buf[i] != guard_byte(i)) {
			fail(ST_MODE, "byte %u of the read-only MR was written", i);
			break;
		}
	}
	if (mr && (r = ibv_dereg_mr(mr)))
		fail(ST_MODE, "ibv_dereg_mr (read-only): %s", strerror(r));
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Requester error modes: the client's requester is the one under test */
/* ------------------------------------------------------------------ */

/*
 * In these modes the device under test is the client's (its requester and
 * completer); the server is any RC responder (stock rxe or sroce).  Each
 * mode ends the client's QP in Error, so each is one process pair.  The
 * client's counters and trace events are checked by the caller
 * (tools/testvm/req-errors-guest.sh).
 *
 *   retry_exc        the server destroys its QP (a silent peer); SEND,
 *                    WRITE, SEND posted: RETRY_EXC_ERR after about
 *                    4.096 us * 2^timeout * (retry_cnt + 1), the rest
 *                    WR_FLUSH_ERR, and a WR posted after that, to the QP in
 *                    Error, WR_FLUSH_ERR too
 *   rnr_timer        as rnr, with the server's min_rnr_timer 26 (81.92 ms):
 *                    the caller checks the gaps NAK -> retry in the trace
 *   rnr_exc          rnr_retry 1, no receive ever posted: RNR_RETRY_EXC_ERR
 *                    after at least one RNR wait, the next WR flushed
 *   bad_lkey         SEND with a wrong lkey: LOC_PROT_ERR, nothing sent
 *   read_mr_range    READ whose local SGE runs 32 bytes past the end of its
 *                    MR (the "too small READ buffer" verbs can express: the
 *                    requested length is the SGE sum, so the response always
 *                    fits the SGEs; what can be too small is the MR under
 *                    them): LOC_PROT_ERR, nothing sent or written
 *   read_no_lwrite   READ into an MR without IBV_ACCESS_LOCAL_WRITE:
 *                    LOC_PROT_ERR, nothing written
 *   atomic_short     FETCH_ADD whose local SGE is 4 bytes (the 8-byte
 *                    result does not fit): LOC_LEN_ERR, nothing sent
 *   atomic_unaligned FETCH_ADD at a remote VA that is not 8-byte aligned:
 *                    the responder NAKs it (Invalid Request, C9-121):
 *                    REM_INV_REQ_ERR, the server's buffer unchanged
 *                    (librxe refuses both atomics at post time, so they are
 *                    written into the SQ ring by hand: ring_atomic())
 *   sq_num_sge, sq_opcode, sq_length, sq_lkey, sq_inline, sq_prod
 *                    hostile userspace on the send ring, see sq_client()
 *   destroy_armed    the server destroys its QP; the client posts WRITEs
 *                    (timeout 16, retry_cnt 7), waits until retransmits
 *                    have happened and the timer is armed again, then
 *                    destroys its QP: must return promptly
 *   armed            as destroy_armed up to "# armed: sends in flight", then
 *                    the client waits to be killed (the caller then deletes
 *                    the device and unloads the module)
 */
#define RQ_TIMEOUT	14	/* retry_exc: 4.096 us * 2^14 = 67.1 ms */
#define RQ_RETRY_CNT	3
#define RNR_TIMER_CODE	26	/* rnr_timer, rnr_exc: 81.92 ms (IBA table 45) */
#define RNR_TIMER_MS	81.92
#define RNR_EXC_RETRY	1
#define ARMED_WRITES	8	/* destroy_armed, armed: WRITEs in flight */
#define ARMED_WAIT_MS	700

struct conn_params {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

/* The QP timers of this mode (both sides; min_rnr_timer is the responder's). */
static struct conn_params conn_params(const struct ctx *c)
{
	struct conn_params p = { .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				 .min_rnr_timer = 12 };

	switch (c->mode) {
	case M_DESTROY_QP:	/* give up soon after the peer QP is gone: 3 x ~268 ms */
		p.timeout = 16;
		p.retry_cnt = 2;
		break;
	case M_RETRY_EXC:
		p.timeout = RQ_TIMEOUT;
		p.retry_cnt = RQ_RETRY_CNT;
		break;
	case M_RNR_TIMER:
		p.min_rnr_timer = RNR_TIMER_CODE;
		break;
	case M_RNR_EXC:
		p.min_rnr_timer = RNR_TIMER_CODE;
		p.rnr_retry = RNR_EXC_RETRY;
		break;
	case M_DESTROY_ARMED:	/* 8 x 268 ms */
		p.timeout = 16;
		break;
	case M_ARMED:		/* 8 x 1.07 s: still retrying when killed */
		p.timeout = 18;
		break;
	default:
		break;
	}
	return p;
}

static int qp_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn,
		      uint32_t rq_psn, uint32_t sq_psn);

/* Post one signaled WR with one SGE (laddr, len, lkey) on @qp. */
static int post_wr(struct ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
		   uint64_t wr_id, const void *laddr, uint32_t len, uint32_t lkey,
		   uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad = NULL;
	int r;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	r = ibv_post_send(qp, &wr, &bad);
	if (r) {
		fail(ST_MODE, "ibv_post_send %s (wr_id %" PRIu64 "): %s",
		     wr_op_name(op), wr_id, strerror(r));
		c->broken = true;
	}
	return r ? -1 : 0;
}

/* The server side of the silent peer: its QP is destroyed, then "GONE". */
static void silent_server(struct ctx *c)
{
	int r = ibv_destroy_qp(c->qp);

	c->qp = NULL;
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	else
		printf("# %s: server QP destroyed; the client's requests go unanswered\n",
		       mode_names[c->mode]);
	if (msg_send(c, "GONE", (uint64_t[]){ 0 }, 1, NULL))
		c->broken = true;
}

static int wait_gone(struct ctx *c)
{
	uint64_t v;

	if (msg_recv(c, "GONE", &v, 1, NULL)) {
		c->broken = true;
		return -1;
	}
	return 0;
}

static void retry_exc_client(struct ctx *c)
{
	struct conn_params p = conn_params(c);
	double want = 4.096e-3 * (double)(1u << p.timeout) * (p.retry_cnt + 1);
	uint64_t t0, dt;
	struct ibv_wc wc;

	if (wait_gone(c))
		return;
	t0 = now_ms();
	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0) ||
	    post_one(c, IBV_WR_RDMA_WRITE, 2, MODE_OFF, 3000, c->peer.addr + MODE_OFF,
		     c->peer.rkey) ||
	    post_one(c, IBV_WR_SEND, 3, MODE_OFF, 10, 0, 0))
		return;
	if (poll_one(c, c->scq, ST_MODE, "SEND to the silent peer", &wc))
		return;
	dt = now_ms() - t0;
	printf("# retry_exc: first completion after %" PRIu64 " ms: wr_id %" PRIu64
	       " status %s; expected ~%.0f ms (timeout %u, retry_cnt %u)\n",
	       dt, wc.wr_id, ibv_wc_status_str(wc.status), want, p.timeout, p.retry_cnt);
	if (wc.wr_id != 1 || wc.status != IBV_WC_RETRY_EXC_ERR)
		fail(ST_MODE, "first completion wr_id %" PRIu64 " status %s, expected wr_id 1 %s",
		     wc.wr_id, ibv_wc_status_str(wc.status),
		     ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	else
		printf("RETRY-EXC elapsed_ms=%" PRIu64 " expected_ms=%.0f\n", dt, want);
	/* Timers may fire late under TCG, never early. */
	if (dt + 5 < want * 0.9 || dt > want * 4 + 2000)
		fail(ST_MODE, "RETRY_EXC_ERR after %" PRIu64 " ms, expected %.0f ms (0.9x..4x+2s)",
		     dt, want);
	expect_status(c, "WRITE behind the failed SEND", 2, IBV_WC_WR_FLUSH_ERR);
	expect_status(c, "SEND behind it", 3, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "retry exhaustion");
	if (!post_one(c, IBV_WR_SEND, 4, MODE_OFF, 10, 0, 0))
		expect_status(c, "SEND posted to the QP in Error", 4, IBV_WC_WR_FLUSH_ERR);
}

static void rnr_exc_client(struct ctx *c)
{
	uint64_t t0 = now_ms(), dt;

	if (post_one(c, IBV_WR_SEND, 1, MODE_OFF, 100, 0, 0) ||
	    post_one(c, IBV_WR_SEND, 2, MODE_OFF, 10, 0, 0))
		return;
	expect_status(c, "SEND that never finds a receive", 1, IBV_WC_RNR_RETRY_EXC_ERR);
	dt = now_ms() - t0;
	printf("# rnr_exc: RNR_RETRY_EXC_ERR after %" PRIu64 " ms (rnr_retry %u, RNR timer %.2f ms)\n",
	       dt, RNR_EXC_RETRY, RNR_TIMER_MS);
	if (dt + 5 < RNR_EXC_RETRY * RNR_TIMER_MS)
		fail(ST_MODE, "RNR_RETRY_EXC_ERR after %" PRIu64 " ms, before %u RNR wait(s) of %.2f ms",
		     dt, RNR_EXC_RETRY, RNR_TIMER_MS);
	expect_status(c, "SEND behind it", 2, IBV_WC_WR_FLUSH_ERR);
	expect_qp_error(c, "RNR retry exhaustion");
}

/*
 * Hostile userspace on the send ring (client).  A marker SEND goes through
 * librxe; its slot tells where the SQ ring (struct rxe_queue_buf: three
 * 128-byte header lines, then the slots) is mapped.  Then the client
 * writes a WQE into the next slot itself, rewritten as the mode says,
 * moves the producer index, and lets librxe post one good SEND behind it
 * (whose doorbell makes the kernel fetch both):
 *   sq_num_sge  dma.num_sge 0x7fffffff             -> LOC_QP_OP_ERR
 *   sq_opcode   wr.opcode 0x7f                     -> LOC_QP_OP_ERR
 *   sq_length   first a WQE whose dma.length is 0xffffffff (ignored: the
 *               length is the SGE sum; it must arrive, 64 bytes), then one
 *               whose two SGE lengths, 0x80000000 + 0x80000040, sum past
 *               2^32 (0x40 if summed in 32 bits)   -> LOC_LEN_ERR
 *   sq_lkey     sge[0].lkey changed                -> LOC_PROT_ERR
 *   sq_inline   IBV_SEND_INLINE, dma.length 0x7fffffff -> LOC_QP_OP_ERR
 *   sq_prod     SQ_JUMP slots of random bytes (wr_id SQ_JUMP_BASE + k,
 *               opcode >= 0x10) and a producer index of (prod + SQ_JUMP)
 *               with every bit above the index mask set, rung with a raw
 *               doorbell (write() of POST_SEND with no WR, as librxe
 *               does): the first completes LOC_QP_OP_ERR, the rest
 *               WR_FLUSH_ERR, in order
 * Every WQE behind the bad one completes WR_FLUSH_ERR and the QP is in
 * Error.  Then a second QP pair of the same devices (the witness) must
 * still carry a SEND and an RDMA WRITE byte for byte.
 */
#define SQ_MARK		UINT64_C(0x5eed00005a5a0000)
#define SQ_LEN_OK	(SQ_MARK + 1)
#define SQ_HOSTILE	(SQ_MARK + 2)
#define SQ_FOLLOW	(SQ_MARK + 3)
#define SQ_JUMP_BASE	(SQ_MARK + 0x1000)
#define SQ_JUMP		40
#define RING_HDR	384
#define W_RECV_OFF	(MODE_OFF + 3 * 4096)
#define W_WRITE_OFF	(MODE_OFF + 5 * 4096)
#define W_SEND_LEN	200
#define W_WRITE_LEN	300

struct sq_ring {
	uint8_t *base;
	uint32_t mask, elem;
};

static uint32_t *ring_prod(const struct sq_ring *r)
{
	return (uint32_t *)(r->base + 128);
}

static uint8_t *ring_slot(const struct sq_ring *r, uint32_t i)
{
	return r->base + RING_HDR + (size_t)(i & r->mask) * r->elem;
}

/* Find the mapped SQ ring holding the send WQE wr_id (a 1-SGE op). */
static int find_sq_ring(struct ctx *c, uint64_t wr_id, enum ibv_wr_opcode op,
			struct sq_ring *ring)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned hits = 0;
	char line[512];

	if (!f) {
		fail(ST_MODE, "/proc/self/maps: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		uint32_t log2, mask;
		char perm[8];

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r' ||
		    perm[1] != 'w' || hi - lo < RING_HDR + 64)
			continue;
		memcpy(&log2, (void *)lo, 4);
		memcpy(&mask, (void *)(lo + 4), 4);
		if (log2 < 6 || log2 > 16 || mask == 0 || (mask & (mask + 1)) ||
		    RING_HDR + ((uint64_t)mask + 1) * (1u << log2) > hi - lo ||
		    (1u << log2) < sizeof(struct rxe_send_wqe) + MAX_SEG * sizeof(struct rxe_sge))
			continue;
		for (uint32_t i = 0; i <= mask; i++) {
			struct rxe_send_wqe *w = (void *)(lo + RING_HDR + ((size_t)i << log2));

			if (w->wr.wr_id == wr_id && w->wr.opcode == op &&
			    w->dma.num_sge == 1 && w->dma.sge[0].lkey == c->mr->lkey) {
				ring->base = (uint8_t *)lo;
				ring->mask = mask;
				ring->elem = 1u << log2;
				hits++;
			}
		}
	}
	fclose(f);
	if (hits != 1) {
		fail(ST_MODE, "send WQE 0x%" PRIx64 " found %u times in the mapped rings",
		     wr_id, hits);
		return -1;
	}
	printf("# SQ ring at %p: %u slots of %u bytes, producer %u, consumer %u\n",
	       (void *)ring->base, ring->mask + 1, ring->elem,
	       __atomic_load_n(ring_prod(ring), __ATOMIC_ACQUIRE),
	       __atomic_load_n((uint32_t *)(ring->base + 256), __ATOMIC_ACQUIRE));
	return 0;
}

/* Write @w into the slot at the producer index and publish it. */
static void ring_push(const struct sq_ring *r, const void *w)
{
	uint32_t prod = __atomic_load_n(ring_prod(r), __ATOMIC_RELAXED);

	memcpy(ring_slot(r, prod), w, r->elem);
	__atomic_store_n(ring_prod(r), (prod + 1) & r->mask, __ATOMIC_RELEASE);
}

/* librxe's doorbell: POST_SEND with no WR through the command fd. */
static int raw_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} m;
	struct ib_uverbs_post_send_resp resp;

	memset(&m, 0, sizeof(m));
	memset(&resp, 0, sizeof(resp));
	m.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	m.hdr.in_words = sizeof(m) / 4;
	m.hdr.out_words = sizeof(resp) / 4;
	m.cmd.response = (uintptr_t)&resp;
	m.cmd.qp_handle = qp->handle;
	m.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return errno ? errno : EIO;
	return 0;
}

/* Post a one-SGE receive for the region s on @qp. */
static int post_recv_qp(struct ctx *c, struct ibv_qp *qp, uint64_t wr_id,
			const struct seglist *s)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(c->buf + s->off[0]),
			       .length = s->len[0], .lkey = c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	int r = ibv_post_recv(qp, &wr, &bad);

	if (r) {
		fail(ST_MODE, "ibv_post_recv (wr_id %" PRIu64 "): %s", wr_id, strerror(r));
		c->broken = true;
	}
	return r ? -1 : 0;
}

struct witness {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* A second connected QP pair on the same devices, PD and MR. */
static int witness_setup(struct ctx *c, struct witness *w)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	uint64_t mine[3], peer[3];
	uint32_t psn = (c->psn + 0x4000) & 0xffffff;
	int r;

	memset(w, 0, sizeof(*w));
	w->cq = ibv_create_cq(c->dev, 16, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = w->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	w->qp = w->cq ? ibv_create_qp(c->pd, &ia) : NULL;
	if (!w->qp) {
		fail(ST_MODE, "witness QP: ibv_create_%s: %s", w->cq ? "qp" : "cq",
		     strerror(errno));
		c->broken = true;
	} else {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = c->ib_port;
		a.qp_access_flags = c->server ?
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0;
		r = ibv_modify_qp(w->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (r) {
			fail(ST_MODE, "witness QP to INIT: %s", strerror(r));
			c->broken = true;
		}
	}
	mine[0] = w->qp ? w->qp->qp_num : 0;
	mine[1] = c->broken;
	mine[2] = psn;
	if (msg_send(c, "WITNESS", mine, 3, NULL) || msg_recv(c, "WITNESS", peer, 3, NULL))
		return -1;
	if (c->broken || peer[1]) {
		c->broken = true;
		return 0;
	}
	if (qp_connect(c, w->qp, (uint32_t)peer[0], (uint32_t)peer[2], psn)) {
		fail(ST_MODE, "witness QP: cannot connect");
		c->broken = true;
	} else {
		printf("# witness QP 0x%06x <-> 0x%06x connected\n", w->qp->qp_num,
		       (uint32_t)peer[0]);
	}
	return 0;
}

/* The witness pair still works: a SEND and a WRITE, checked by the server. */
static void witness_check(struct ctx *c, struct witness *w)
{
	uint64_t seed = seed_for(0x100 + c->mode, 0), v[1] = { 0 };
	struct ibv_wc wc;
	struct seglist s;
	char why[200];

	if (c->broken)
		return;
	if (!c->server) {
		if (msg_recv(c, "WREADY", v, 1, NULL))
			goto broken;
		if (!post_wr(c, w->qp, IBV_WR_SEND, 100, c->buf + MODE_OFF, W_SEND_LEN,
			     c->mr->lkey, 0, 0))
			expect_completion(c, w->cq, "witness SEND", 100, IBV_WC_SUCCESS);
		if (!post_wr(c, w->qp, IBV_WR_RDMA_WRITE, 101, c->buf + MODE_OFF, W_WRITE_LEN,
			     c->mr->lkey, c->peer.addr + W_WRITE_OFF, c->peer.rkey))
			expect_completion(c, w->cq, "witness RDMA_WRITE", 101, IBV_WC_SUCCESS);
		if (msg_send(c, "WSENT", v, 1, NULL))
			goto broken;
		return;
	}
	one_seg(&s, W_RECV_OFF, 256);
	if (post_recv_qp(c, w->qp, 100, &s))
		return;
	if (msg_send(c, "WREADY", v, 1, NULL) || msg_recv(c, "WSENT", v, 1, NULL))
		goto broken;
	if (expect_wc(c, w->cq, ST_MODE, "witness receive", 100, IBV_WC_RECV, &wc) == 0) {
		if (wc.byte_len != W_SEND_LEN)
			fail(ST_MODE, "witness receive: byte_len %u, expected %u", wc.byte_len,
			     W_SEND_LEN);
		if (verify_region(c->buf, &s, seed, W_SEND_LEN, why, sizeof(why)))
			fail(ST_MODE, "witness SEND: %s", why);
	}
	one_seg(&s, W_WRITE_OFF, W_WRITE_LEN);
	if (verify_region(c->buf, &s, seed, W_WRITE_LEN, why, sizeof(why)))
		fail(ST_MODE, "witness RDMA_WRITE: %s", why);
	else
		printf("# witness QP pair: SEND and RDMA_WRITE arrived intact\n");
	return;
broken:
	c->broken = true;
}

static void witness_destroy(struct witness *w)
{
	int r;

	if (w->qp && (r = ibv_destroy_qp(w->qp)))
		fail(ST_MODE, "witness ibv_destroy_qp: %s", strerror(r));
	if (w->cq && (r = ibv_destroy_cq(w->cq)))
		fail(ST_MODE, "witness ibv_destroy_cq: %s", strerror(r));
}

static void sq_client(struct ctx *c)
{
	enum ibv_wc_status want = IBV_WC_LOC_QP_OP_ERR;
	struct rxe_send_wqe *t = NULL;
	uint64_t v[1] = { 0 }, rng = 0x243f6a8885a308d3ull;
	struct sq_ring ring;
	uint32_t prod;
	struct ibv_wc wc;
	int r;

	if (msg_recv(c, "STEP1", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (post_one(c, IBV_WR_SEND, SQ_MARK, MODE_OFF, 64, 0, 0))
		return;
	expect_status(c, "marker SEND through librxe", SQ_MARK, IBV_WC_SUCCESS);
	if (find_sq_ring(c, SQ_MARK, IBV_WR_SEND, &ring))
		goto out;
	t = malloc(ring.elem);
	if (!t) {
		fail(ST_MODE, "out of memory");
		goto out;
	}
	memcpy(t, ring_slot(&ring, __atomic_load_n(ring_prod(&ring), __ATOMIC_ACQUIRE) - 1),
	       ring.elem);
	if (t->wr.wr_id != SQ_MARK) {
		fail(ST_MODE, "the slot before the producer index is not the marker WQE");
		goto out;
	}
	t->wr.wr_id = SQ_HOSTILE;
	switch (c->mode) {
	case M_SQ_NUM_SGE:
		t->dma.num_sge = 0x7fffffff;
		break;
	case M_SQ_OPCODE:
		t->wr.opcode = 0x7f;
		break;
	case M_SQ_LENGTH:
		t->wr.wr_id = SQ_LEN_OK;
		t->dma.length = 0xffffffff;
		ring_push(&ring, t);
		t->wr.wr_id = SQ_HOSTILE;
		t->dma.length = 64;
		t->dma.num_sge = 2;
		t->dma.sge[0].length = 0x80000000u;
		t->dma.sge[1] = t->dma.sge[0];
		t->dma.sge[1].length = 0x80000040u;
		want = IBV_WC_LOC_LEN_ERR;
		break;
	case M_SQ_LKEY:
		t->dma.sge[0].lkey ^= 0x5a5a00;
		want = IBV_WC_LOC_PROT_ERR;
		break;
	case M_SQ_INLINE:
		t->wr.send_flags |= IBV_SEND_INLINE;
		t->dma.length = 0x7fffffff;
		break;
	default:
		break;
	}
	if (c->mode != M_SQ_PROD) {
		ring_push(&ring, t);
		printf("# %s: hostile WQE written at slot %u, then a good SEND through librxe\n",
		       mode_names[c->mode], __atomic_load_n(ring_prod(&ring), __ATOMIC_RELAXED) - 1);
		r = post_one(c, IBV_WR_SEND, SQ_FOLLOW, MODE_OFF, 32, 0, 0);
		if (c->mode == M_SQ_LENGTH)
			expect_status(c, "WQE with dma.length 0xffffffff (ignored)", SQ_LEN_OK,
				      IBV_WC_SUCCESS);
		expect_status(c, "the rewritten WQE", SQ_HOSTILE, want);
		if (!r)
			expect_status(c, "the good SEND behind it", SQ_FOLLOW, IBV_WC_WR_FLUSH_ERR);
	} else {
		prod = __atomic_load_n(ring_prod(&ring), __ATOMIC_RELAXED);
		for (uint32_t k = 0; k < SQ_JUMP; k++) {
			uint8_t *slot = ring_slot(&ring, prod + k);
			struct rxe_send_wqe *w = (void *)slot;

			for (uint32_t i = 0; i < ring.elem; i += 8) {
				uint64_t x = rng_next(&rng);

				memcpy(slot + i, &x, 8);
			}
			w->wr.wr_id = SQ_JUMP_BASE + k;
			w->wr.opcode = 0x10 + (uint32_t)(rng_next(&rng) % 0xfffff0u);
		}
		__atomic_store_n(ring_prod(&ring), (prod + SQ_JUMP) | ~ring.mask,
				 __ATOMIC_RELEASE);
		printf("# sq_prod: producer index %u -> 0x%x (%u slots of random bytes), raw doorbell\n",
		       prod, (prod + SQ_JUMP) | ~ring.mask, SQ_JUMP);
		r = raw_doorbell(c->qp);
		if (r) {
			fail(ST_MODE, "raw doorbell: %s", strerror(r));
		} else {
			for (uint32_t k = 0; k < SQ_JUMP; k++) {
				if (poll_one(c, c->scq, ST_MODE, "a jumped-over slot", &wc))
					break;
				want = k ? IBV_WC_WR_FLUSH_ERR : IBV_WC_LOC_QP_OP_ERR;
				if (wc.wr_id != SQ_JUMP_BASE + k || wc.status != want) {
					fail(ST_MODE, "jumped slot %u: completion wr_id 0x%" PRIx64
					     " status %s, expected wr_id 0x%" PRIx64 " %s", k,
					     wc.wr_id, ibv_wc_status_str(wc.status),
					     SQ_JUMP_BASE + k, ibv_wc_status_str(want));
					break;
				}
			}
			printf("# sq_prod: the %u jumped-over slots completed\n", SQ_JUMP);
		}
		/* Put the producer index back in range for librxe. */
		__atomic_store_n(ring_prod(&ring), (prod + SQ_JUMP) & ring.mask, __ATOMIC_RELEASE);
	}
	expect_qp_error(c, "the hostile WQE");
	if (ibv_poll_cq(c->scq, 1, &wc) > 0)
		fail(ST_MODE, "an extra completion: wr_id 0x%" PRIx64 " status %s", wc.wr_id,
		     ibv_wc_status_str(wc.status));
out:
	free(t);
	if (msg_send(c, "DONE", v, 1, NULL))
		c->broken = true;
}

static void sq_server(struct ctx *c)
{
	uint64_t seed = seed_for(0x100 + c->mode, 0), v[1] = { 0 };
	struct seglist s[2];
	struct ibv_wc wc;
	char why[200];

	one_seg(&s[0], MODE_OFF, 256);
	one_seg(&s[1], MODE_OFF + 4096, 256);
	if (post_recv(c, ST_MODE, SQ_MARK, &s[0], 1) ||
	    post_recv(c, ST_MODE, SQ_LEN_OK, &s[1], 1))
		return;
	if (msg_send(c, "STEP1", v, 1, NULL) || msg_recv(c, "DONE", v, 1, NULL)) {
		c->broken = true;
		return;
	}
	if (expect_wc(c, c->rcq, ST_MODE, "the marker SEND", SQ_MARK, IBV_WC_RECV, &wc) == 0 &&
	    (wc.byte_len != 64 || verify_region(c->buf, &s[0], seed, 64, why, sizeof(why))))
		fail(ST_MODE, "the marker SEND: byte_len %u or its bytes wrong", wc.byte_len);
	if (c->mode == M_SQ_LENGTH &&
	    expect_wc(c, c->rcq, ST_MODE, "the SEND with dma.length 0xffffffff", SQ_LEN_OK,
		      IBV_WC_RECV, &wc) == 0 &&
	    (wc.byte_len != 64 || verify_region(c->buf, &s[1], seed, 64, why, sizeof(why))))
		fail(ST_MODE, "the SEND with dma.length 0xffffffff: byte_len %u (expected 64) or its bytes wrong",
		     wc.byte_len);
	if (ibv_poll_cq(c->rcq, 1, &wc) > 0)
		fail(ST_MODE, "an unexpected receive completion: wr_id 0x%" PRIx64 " status %s",
		     wc.wr_id, ibv_wc_status_str(wc.status));
}

static void sq_run(struct ctx *c)
{
	struct witness w;

	if (witness_setup(c, &w)) {
		c->broken = true;
		return;
	}
	if (!c->broken)
		c->server ? sq_server(c) : sq_client(c);
	witness_check(c, &w);
	witness_destroy(&w);
}

/*
 * librxe refuses to post an ATOMIC whose local length is below 8 or whose
 * remote VA is unaligned, so those go into the ring by hand: a READ
 * marker through librxe finds the ring; the ATOMIC (wr_id 1) is written
 * into the next slot; the caller's next post rings the doorbell.
 */
static int ring_atomic(struct ctx *c, uint8_t *dst, uint32_t len, uint64_t raddr)
{
	struct rxe_send_wqe *t;
	struct sq_ring ring;

	if (post_wr(c, c->qp, IBV_WR_RDMA_READ, SQ_MARK, c->buf + 3 * MODE_SRC_LEN, 8,
		    c->mr->lkey, c->peer.addr + 8192, c->peer.rkey))
		return -1;
	expect_status(c, "marker READ through librxe", SQ_MARK, IBV_WC_SUCCESS);
	if (find_sq_ring(c, SQ_MARK, IBV_WR_RDMA_READ, &ring))
		return -1;
	t = calloc(1, ring.elem);
	if (!t) {
		fail(ST_MODE, "out of memory");
		return -1;
	}
	memcpy(t, ring_slot(&ring, __atomic_load_n(ring_prod(&ring), __ATOMIC_ACQUIRE) - 1),
	       ring.elem);
	t->wr.wr_id = 1;
	t->wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	t->wr.send_flags = IBV_SEND_SIGNALED;
	memset(&t->wr.wr, 0, sizeof(t->wr.wr));
	t->wr.wr.atomic.remote_addr = raddr;
	t->wr.wr.atomic.compare_add = 1;
	t->wr.wr.atomic.rkey = c->peer.rkey;
	t->dma.length = len;
	t->dma.resid = len;
	t->dma.num_sge = 1;
	t->dma.sge[0].addr = (uintptr_t)dst;
	t->dma.sge[0].length = len;
	t->dma.sge[0].lkey = c->mr->lkey;
	ring_push(&ring, t);
	free(t);
	printf("# FETCH_ADD (local length %u, remote VA 0x%" PRIx64 ") written into the SQ ring\n",
	       len, raddr);
	return 0;
}

/* The local errors: nothing may leave the client, nothing be written. */
static void local_err_client(struct ctx *c)
{
	uint8_t *dst = c->buf + 2 * MODE_SRC_LEN;	/* guard-filled */
	struct ibv_mr *mr2 = NULL;
	uint8_t *buf2 = NULL;
	enum ibv_wc_status want = IBV_WC_LOC_PROT_ERR;
	enum ibv_wr_opcode fop = IBV_WR_SEND;
	const char *what = "?";
	struct seglist s;
	char why[200];
	int r = -1;

	switch (c->mode) {
	case M_BAD_LKEY:
		what = "SEND with a wrong lkey";
		printf("# bad_lkey: SEND of 64 bytes with lkey 0x%x (the MR's is 0x%x)\n",
		       c->mr->lkey ^ 0x5a00, c->mr->lkey);
		r = post_wr(c, c->qp, IBV_WR_SEND, 1, c->buf + MODE_OFF, 64,
			    c->mr->lkey ^ 0x5a00, 0, 0);
		break;
	case M_READ_MR_RANGE:
		what = "READ into an SGE running past its MR";
		fop = IBV_WR_RDMA_READ;
		printf("# read_mr_range: RDMA_READ of 64 bytes into the last 32 bytes of the local MR and 32 past it\n");
		r = post_wr(c, c->qp, IBV_WR_RDMA_READ, 1, c->buf + c->buf_len - 32, 64,
			    c->mr->lkey, c->peer.addr + MODE_OFF, c->peer.rkey);
		break;
	case M_READ_NO_LWRITE:
		what = "READ into an MR without local write";
		fop = IBV_WR_RDMA_READ;
		buf2 = aligned_alloc(4096, 4096);
		if (buf2) {
			fill_guard(buf2, 0, 4096);
			mr2 = ibv_reg_mr(c->pd, buf2, 4096, 0);
		}
		if (!mr2) {
			fail(ST_MODE, "ibv_reg_mr (4096 bytes, no access flags): %s", strerror(errno));
			break;
		}
		printf("# read_no_lwrite: RDMA_READ of 64 bytes into MR lkey 0x%x (access 0)\n",
		       mr2->lkey);
		r = post_wr(c, c->qp, IBV_WR_RDMA_READ, 1, buf2 + 64, 64, mr2->lkey,
			    c->peer.addr + MODE_OFF, c->peer.rkey);
		break;
	case M_ATOMIC_SHORT:
		what = "FETCH_ADD with a 4-byte local SGE";
		want = IBV_WC_LOC_LEN_ERR;
		fop = IBV_WR_ATOMIC_FETCH_AND_ADD;
		printf("# atomic_short: FETCH_ADD whose result SGE is 4 bytes\n");
		r = ring_atomic(c, dst, 4, c->peer.addr + 8192);
		break;
	case M_ATOMIC_UNALIGNED:
		what = "FETCH_ADD at an unaligned remote VA";
		want = IBV_WC_REM_INV_REQ_ERR;
		fop = IBV_WR_ATOMIC_FETCH_AND_ADD;
		printf("# atomic_unaligned: FETCH_ADD at server VA 0x%" PRIx64 " (VA %% 8 = %u)\n",
		       c->peer.addr + MODE_OFF, (unsigned)((c->peer.addr + MODE_OFF) & 7));
		r = ring_atomic(c, dst, 8, c->peer.addr + MODE_OFF);
		break;
	default:
		break;
	}
	if (!r) {
		/* A good WR behind the bad one: flushed. */
		if (fop == IBV_WR_SEND)
			r = post_wr(c, c->qp, fop, 2, c->buf + MODE_OFF, 16, c->mr->lkey, 0, 0);
		else	/* a READ: librxe refuses bad atomics itself */
			r = post_wr(c, c->qp, IBV_WR_RDMA_READ, 2, dst + 64, 8, c->mr->lkey,
				    c->peer.addr + 8192, c->peer.rkey);
		expect_status(c, what, 1, want);
		if (!r)
			expect_status(c, "the good WR behind it", 2, IBV_WC_WR_FLUSH_ERR);
		expect_qp_error(c, what);
	}
	/* Nothing landed anywhere locally. */
	one_seg(&s, 2 * MODE_SRC_LEN, 128);
	if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
		fail(ST_MODE, "the refused WR wrote the local buffer: %s", why);
	one_seg(&s, c->buf_len - 64, 48);
	if (verify_region(c->buf, &s, 0, 0, why, sizeof(why)))
		fail(ST_MODE, "the refused READ wrote the end of the local MR: %s", why);
	if (buf2) {
		one_seg(&s, 64, 64);
		if (verify_region(buf2, &s, 0, 0, why, sizeof(why)))
			fail(ST_MODE, "the refused READ wrote the MR without local write: %s", why);
	}
	if (mr2 && (r = ibv_dereg_mr(mr2)))
		fail(ST_MODE, "ibv_dereg_mr: %s", strerror(r));
	free(buf2);
}

/* destroy_armed (client): destroy the QP with WRITEs in flight, timer armed. */
static void destroy_armed_client(struct ctx *c)
{
	uint64_t t0;
	int r;

	if (wait_gone(c))
		return;
	for (unsigned k = 0; k < ARMED_WRITES; k++)
		if (post_one(c, IBV_WR_RDMA_WRITE, k + 1, MODE_OFF, 4096,
			     c->peer.addr + MODE_OFF, c->peer.rkey))
			return;
	sleep_ms(ARMED_WAIT_MS);
	print_qp_state(c);
	t0 = now_ms();
	r = ibv_destroy_qp(c->qp);
	if (!r)
		c->qp = NULL;
	printf("# destroy_armed: ibv_destroy_qp with %u WRITEs in flight took %" PRIu64 " ms\n",
	       ARMED_WRITES, now_ms() - t0);
	if (r)
		fail(ST_MODE, "ibv_destroy_qp: %s", strerror(r));
	else if (now_ms() - t0 > 5000)
		fail(ST_MODE, "ibv_destroy_qp took %" PRIu64 " ms", now_ms() - t0);
}

/* armed: before MODE-START; ends like idle (the client is killed). */
static int armed_run(struct ctx *c)
{
	if (c->broken)
		return idle_wait(c);
	if (c->server) {
		silent_server(c);
	} else if (!wait_gone(c)) {
		for (unsigned k = 0; k < ARMED_WRITES; k++)
			if (post_one(c, IBV_WR_RDMA_WRITE, k + 1, MODE_OFF, 4096,
				     c->peer.addr + MODE_OFF, c->peer.rkey))
				break;
		sleep_ms(ARMED_WAIT_MS);
		if (!c->broken)
			printf("# armed: sends in flight, retransmit timer armed\n");
		fflush(stdout);
	}
	return idle_wait(c);
}

/* ------------------------------------------------------------------ */
/* UC mode (-m uc)                                                     */
/* ------------------------------------------------------------------ */

/*
 * A UC QP pair, meant for a link that loses, duplicates and reorders
 * packets (netem).  UC never retransmits: a message with a lost or
 * out-of-sequence packet is dropped by the responder, which completes no
 * receive for it.  What must never happen is a message completed with
 * wrong, partial or misplaced data, one message spliced into another, a
 * duplicate, or whole messages out of order.  Two phases, each of UC_N
 * messages of uc_len() = 3 * MTU + 100 bytes (four packets), client ->
 * server, at most UC_WINDOW sends outstanding (all signaled; a UC send
 * completes once it is transmitted):
 *
 *   uc_send   SEND (even sequence numbers) and SEND_WITH_IMM (odd, imm =
 *             sequence number) into UC_N pre-posted receives of capacity
 *             uc_len() + UC_SPARE, each in its own guard-filled slot.
 *             Every completion: SUCCESS, IBV_WC_RECV, byte_len, the
 *             sequence number in the message's first 8 bytes, every byte
 *             of that message's pattern, unused capacity and guards
 *             untouched, IBV_WC_WITH_IMM exactly for odd ones with imm =
 *             sequence number, sequence numbers and wr_ids strictly
 *             increasing.
 *   uc_write  RDMA_WRITE_WITH_IMM of message k into server slot k, imm =
 *             k; UC_N receives (no SGE) pre-posted for the immediates.
 *             Every completion: IBV_WC_RECV_RDMA_WITH_IMM, byte_len, slot
 *             imm holds exactly that message, imm strictly increasing.
 *             A slot without a completion may hold any part of its own
 *             message (a write whose later packets were lost), but each
 *             of its bytes must be either the guard or the message's byte
 *             at that position.
 *
 * Message k's bytes: k big-endian in bytes 0-7, then pat_byte() of
 * seed_for(phase, k).  The client tells the server over TCP when it is
 * done; the server drains its CQ until UC_GRACE_MS pass without a new
 * completion, then re-checks every slot (so a late stray write is caught
 * too) and sends its count back.  A phase passes with no error and at
 * least a tenth of the messages received (so it cannot pass on nothing:
 * with 5% loss, duplication and reordering about 40% of four-packet
 * messages arrive whole, with 1% loss about 96%); both sides print
 * "received R/N".
 */
#define UC_N		300	/* messages per phase */
#define UC_WINDOW	8	/* client: sends outstanding at most */
#define UC_SPARE	64	/* uc_send: receive capacity beyond the message */
#define UC_DOFF		17	/* data offset in a slot (unaligned) */
#define UC_GRACE_MS	2000	/* server: drain until this long without a CQE */
#define UC_RQ_DEPTH	(2 * UC_N)	/* uc_send leftovers + uc_write's receives */
#define UC_BUF_SIZE	(8u << 20)	/* both areas at a 4096-byte MTU */
#define UC_NONE		UINT32_MAX
#define UC_POLL_BATCH	16

enum { T_UC_SEND = 0x20, T_UC_WRITE = 0x21 };

/* The receive queue and CQ sizes: UC pre-posts a receive per message. */
static int recv_depth(const struct ctx *c)
{
	return c->mode == M_UC ? UC_RQ_DEPTH : QUEUE_DEPTH;
}

static int cq_depth(const struct ctx *c)
{
	return c->mode == M_UC ? UC_RQ_DEPTH : CQ_DEPTH;
}

static uint32_t uc_len(const struct ctx *c)
{
	return 3 * c->mtu_bytes + 100;
}

/* Message seq's byte i: seq in bytes 0-7 (big-endian), then the pattern. */
static inline uint8_t uc_byte(uint64_t seed, uint32_t seq, uint32_t i)
{
	return i < 8 ? (uint8_t)((uint64_t)seq >> (56 - 8 * i)) : pat_byte(seed, i);
}

static uint64_t uc_header(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/*
 * Slot areas: the client's source slots (UC_WINDOW, reused round robin),
 * the server's receive buffers (uc_send) and, after them, its write
 * targets (uc_write).  A slot is one SGE at UC_DOFF; every other byte of
 * it up to the next slot is guard.
 */
enum uc_area { UC_SRC, UC_RECV, UC_WRITE };

static uint32_t uc_cap(const struct ctx *c, enum uc_area area)
{
	return uc_len(c) + (area == UC_RECV ? UC_SPARE : 0);
}

static uint64_t uc_stride(const struct ctx *c, enum uc_area area)
{
	return ((uint64_t)UC_DOFF + uc_cap(c, area) + 16 + 63) & ~63ull;
}

static uint64_t uc_base(const struct ctx *c, enum uc_area area)
{
	if (area != UC_WRITE)
		return 0;
	return (UC_N * uc_stride(c, UC_RECV) + 4095) & ~4095ull;
}

static void uc_slot(const struct ctx *c, enum uc_area area, unsigned k,
		    struct seglist *s)
{
	memset(s, 0, sizeof(*s));
	s->n = 1;
	s->rstart = uc_base(c, area) + k * uc_stride(c, area);
	s->rend = s->rstart + uc_stride(c, area);
	s->off[0] = s->rstart + UC_DOFF;
	s->len[0] = uc_cap(c, area);
}

/* After the MTU is known: both areas must fit the buffers (and the MR). */
static int uc_check_layout(struct ctx *c)
{
	uint64_t srv = uc_base(c, UC_WRITE) + UC_N * uc_stride(c, UC_WRITE);
	uint64_t cli = UC_WINDOW * uc_stride(c, UC_SRC);
	uint64_t need = c->server ? srv : cli;

	if (need > c->buf_len) {
		fail(ST_SETUP, "internal: UC layout (%" PRIu64
		     " bytes) exceeds the %zu-byte buffer", need, c->buf_len);
		return -1;
	}
	if (!c->server && c->peer.len < srv) {
		fail(ST_SETUP, "server buffer too small (%" PRIu64 " < %" PRIu64 ")",
		     c->peer.len, srv);
		return -1;
	}
	return 0;
}

enum uc_data {
	UC_EXACT,	/* the whole message */
	UC_PARTIAL,	/* each byte the message's or the guard */
	UC_ANY,		/* not checked (an uncompleted receive buffer) */
};

/*
 * Check slot s, whose first len SGE bytes are the data area of message
 * seq of phase test (as mode says); every other byte of the slot must be
 * guard.  Returns the number of wrong bytes and describes the first in
 * why; *hits / *guards count data bytes equal to the message / guard.
 */
static uint64_t uc_check_slot(const uint8_t *buf, const struct seglist *s,
			      uint32_t len, unsigned test, uint32_t seq,
			      enum uc_data mode, uint64_t *hits, uint64_t *guards,
			      char *why, size_t whylen)
{
	uint64_t seed = seed_for(test, seq), bad = 0, nhit = 0, nguard = 0;
	uint64_t d0 = s->off[0], d1 = s->off[0] + len;

	why[0] = '\0';
	for (uint64_t pos = s->rstart; pos < s->rend; pos++) {
		uint8_t g = guard_byte(pos), m;

		if (pos < d0 || pos >= d1) {
			if (buf[pos] == g)
				continue;
			if (!bad++)
				snprintf(why, whylen,
					 "%s byte at buffer offset %" PRIu64
					 " overwritten (0x%02x, guard 0x%02x)",
					 pos >= d1 && pos < d0 + s->len[0] ?
					 "unused-capacity" : "guard",
					 pos, buf[pos], g);
			continue;
		}
		if (mode == UC_ANY)
			continue;
		m = uc_byte(seed, seq, (uint32_t)(pos - d0));
		nhit += buf[pos] == m;
		nguard += buf[pos] == g;
		if (buf[pos] == m || (mode == UC_PARTIAL && buf[pos] == g))
			continue;
		if (!bad++) {
			if (mode == UC_PARTIAL)
				snprintf(why, whylen,
					 "data byte %" PRIu64 " = 0x%02x, neither the message's 0x%02x nor the guard 0x%02x",
					 pos - d0, buf[pos], m, g);
			else
				snprintf(why, whylen,
					 "data byte %" PRIu64 " = 0x%02x, expected 0x%02x",
					 pos - d0, buf[pos], m);
		}
	}
	if (hits)
		*hits = nhit;
	if (guards)
		*guards = nguard;
	return bad;
}

/* Server: what the receive CQ reported in one phase. */
struct uc_rx {
	int st;
	bool write;
	uint32_t len;
	unsigned received;		/* successful completions */
	bool have_seq;
	uint32_t last_seq;
	uint32_t seq[UC_N];		/* uc_send: message in receive k */
	bool done[UC_N];		/* uc_write: slot k reported */
	bool bad[UC_N];			/* slot k failed: not checked again */
	/* Kept across both phases (one receive queue). */
	bool have_wr;
	uint64_t last_wr;
};

static void uc_rx_start(struct ctx *c, struct uc_rx *rx, bool write)
{
	rx->st = write ? ST_UC_WRITE : ST_UC_SEND;
	rx->write = write;
	rx->len = uc_len(c);
	rx->received = 0;
	rx->have_seq = false;
	rx->last_seq = 0;
	for (unsigned k = 0; k < UC_N; k++) {
		rx->seq[k] = UC_NONE;
		rx->done[k] = false;
		rx->bad[k] = false;
	}
}

/* Server: check one receive completion of the current phase. */
static void uc_rx_wc(struct ctx *c, struct uc_rx *rx, const struct ibv_wc *wc)
{
	enum ibv_wc_opcode op = rx->write ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	bool has_imm = wc->wc_flags & IBV_WC_WITH_IMM;
	uint32_t imm = ntohl(wc->imm_data);
	uint64_t wr_id = wc->wr_id, hdr, bad;
	int st = rx->st;
	struct seglist s;
	char why[200];
	unsigned slot;
	uint32_t seq;

	if (wc->status != IBV_WC_SUCCESS) {
		fail(st, "receive wr_id %" PRIu64 ": completion status %s (%d), vendor_err 0x%x",
		     wr_id, ibv_wc_status_str(wc->status), wc->status,
		     wc->vendor_err);
		c->broken = true;
		return;
	}
	rx->received++;
	/* The receive queue is consumed in posting order. */
	if (rx->have_wr && wr_id <= rx->last_wr)
		fail(st, "receive wr_id %" PRIu64 " completed after wr_id %" PRIu64
		     " (out of posting order or twice)", wr_id, rx->last_wr);
	rx->have_wr = true;
	rx->last_wr = wr_id;
	if (wc->opcode != op)
		fail(st, "receive wr_id %" PRIu64 ": opcode %s (%d), expected %s",
		     wr_id, wc_op_name(wc->opcode), wc->opcode, wc_op_name(op));
	if (wc->qp_num != c->qp->qp_num)
		fail(st, "receive wr_id %" PRIu64 ": wc.qp_num 0x%x, expected 0x%x",
		     wr_id, wc->qp_num, c->qp->qp_num);

	if (!rx->write) {
		if (wr_id >= UC_N) {
			fail(st, "completion of unknown receive wr_id %" PRIu64, wr_id);
			return;
		}
		slot = (unsigned)wr_id;
		uc_slot(c, UC_RECV, slot, &s);
		if (wc->byte_len != rx->len) {
			fail(st, "receive wr_id %" PRIu64 ": byte_len %u, expected %u",
			     wr_id, wc->byte_len, rx->len);
			rx->bad[slot] = true;
			return;
		}
		hdr = uc_header(c->buf + s.off[0]);
		if (hdr >= UC_N) {
			fail(st, "receive wr_id %" PRIu64 ": sequence number %" PRIu64
			     " in the header is out of range (corrupt message)",
			     wr_id, hdr);
			rx->bad[slot] = true;
			return;
		}
		seq = (uint32_t)hdr;
		rx->seq[slot] = seq;
		if (has_imm != (seq & 1))
			fail(st, "message %u: IBV_WC_WITH_IMM flag %s", seq,
			     has_imm ? "set for a SEND" : "missing for a SEND_WITH_IMM");
		else if (has_imm && imm != seq)
			fail(st, "message %u: imm_data %u, expected the sequence number",
			     seq, imm);
	} else {
		if (wc->byte_len != rx->len)
			fail(st, "receive wr_id %" PRIu64 ": byte_len %u, expected %u",
			     wr_id, wc->byte_len, rx->len);
		if (!has_imm) {
			fail(st, "receive wr_id %" PRIu64 ": IBV_WC_WITH_IMM missing",
			     wr_id);
			return;
		}
		if (imm >= UC_N) {
			fail(st, "receive wr_id %" PRIu64 ": imm_data %u out of range",
			     wr_id, imm);
			return;
		}
		seq = imm;
		slot = seq;
		if (rx->done[slot])
			fail(st, "message %u: reported twice", seq);
		rx->done[slot] = true;
		uc_slot(c, UC_WRITE, slot, &s);
	}
	if (rx->have_seq && seq <= rx->last_seq)
		fail(st, "message %u completed after message %u (duplicate or reordered)",
		     seq, rx->last_seq);
	rx->have_seq = true;
	rx->last_seq = seq;
	bad = uc_check_slot(c->buf, &s, rx->len, rx->write ? T_UC_WRITE : T_UC_SEND,
			    seq, UC_EXACT, NULL, NULL, why, sizeof(why));
	if (bad) {
		fail(st, "message %u (receive wr_id %" PRIu64 ", %s slot %u): %" PRIu64
		     " wrong bytes; first: %s", seq, wr_id,
		     rx->write ? "write" : "receive", slot, bad, why);
		rx->bad[slot] = true;
	}
}

/*
 * Server: poll the receive CQ while the client sends, until the client
 * says (message tag) that it is done and UC_GRACE_MS pass without a new
 * completion.  *sent: the client's count.  -1 if the control connection
 * failed or stayed silent for TCP_IO_TIMEOUT_S without any completion.
 */
static int uc_collect(struct ctx *c, struct uc_rx *rx, const char *tag,
		      uint64_t *sent)
{
	uint64_t last = now_ms();
	bool done = false, cq_ok = true;

	for (;;) {
		struct ibv_wc wc[UC_POLL_BATCH];
		struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
		uint64_t v[2];
		int n = 0, r;

		if (cq_ok) {
			n = ibv_poll_cq(c->rcq, UC_POLL_BATCH, wc);
			if (n < 0) {
				fail(rx->st, "ibv_poll_cq failed (%d)", n);
				c->broken = true;
				cq_ok = false;
				n = 0;
			}
		}
		for (int i = 0; i < n; i++)
			uc_rx_wc(c, rx, &wc[i]);
		if (n > 0) {
			last = now_ms();
			continue;
		}
		if (done) {
			if (!cq_ok || now_ms() - last >= UC_GRACE_MS)
				return 0;
			sleep_ms(1);
			continue;
		}
		r = poll(&pfd, 1, cq_ok ? 1 : 1000);
		if (r < 0 && errno != EINTR) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "poll on the control connection: %s", strerror(errno));
			return -1;
		}
		if (r > 0) {
			if (msg_recv(c, tag, v, 2, NULL))
				return -1;
			*sent = v[0];
			done = true;
			last = now_ms();
			continue;
		}
		if (now_ms() - last > TCP_IO_TIMEOUT_S * 1000ull) {
			snprintf(abort_reason, sizeof(abort_reason),
				 "neither a completion nor %s from the client within %d s",
				 tag, TCP_IO_TIMEOUT_S);
			return -1;
		}
	}
}

/* Server, after the grace period: re-check every slot of the phase. */
static void uc_rx_final(struct ctx *c, struct uc_rx *rx)
{
	unsigned untouched = 0, full = 0, part = 0, missing = 0;
	uint64_t bad, hits, guards;
	struct seglist s;
	char why[200];

	for (unsigned k = 0; k < UC_N; k++) {
		if (rx->bad[k])
			continue;
		if (!rx->write) {
			uint32_t seq = rx->seq[k];

			uc_slot(c, UC_RECV, k, &s);
			bad = uc_check_slot(c->buf, &s, rx->len, T_UC_SEND,
					    seq == UC_NONE ? 0 : seq,
					    seq == UC_NONE ? UC_ANY : UC_EXACT,
					    NULL, NULL, why, sizeof(why));
			if (bad && seq != UC_NONE)
				fail(rx->st, "receive buffer %u (message %u) changed after its completion: %" PRIu64
				     " wrong bytes; first: %s", k, seq, bad, why);
			else if (bad)
				fail(rx->st, "receive buffer %u (no completion): %" PRIu64
				     " wrong bytes; first: %s", k, bad, why);
			continue;
		}
		uc_slot(c, UC_WRITE, k, &s);
		missing += !rx->done[k];
		bad = uc_check_slot(c->buf, &s, rx->len, T_UC_WRITE, k,
				    rx->done[k] ? UC_EXACT : UC_PARTIAL,
				    &hits, &guards, why, sizeof(why));
		if (bad && rx->done[k])
			fail(rx->st, "write slot %u changed after its completion: %" PRIu64
			     " wrong bytes; first: %s", k, bad, why);
		else if (bad)
			fail(rx->st, "write slot %u (no completion): %" PRIu64
			     " wrong bytes; first: %s", k, bad, why);
		else if (rx->done[k])
			continue;
		else if (guards == rx->len)
			untouched++;
		else if (hits == rx->len)
			full++;
		else
			part++;
	}
	if (rx->write)
		printf("# uc_write: of the %u writes without a completion, %u left no trace, %u landed in full, %u in part\n",
		       missing, untouched, full, part);
}

/* Client: post message seq of the phase from source slot seq % UC_WINDOW. */
static int uc_post(struct ctx *c, bool write, uint32_t seq)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	uint64_t seed = seed_for(write ? T_UC_WRITE : T_UC_SEND, seq);
	uint32_t len = uc_len(c);
	struct ibv_send_wr wr;
	struct seglist s, d;
	struct ibv_sge sge;

	uc_slot(c, UC_SRC, seq % UC_WINDOW, &s);
	for (uint32_t i = 0; i < len; i++)
		c->buf[s.off[0] + i] = uc_byte(seed, seq, i);
	to_sges(c, &s, &sge);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = seq;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (write) {
		uc_slot(c, UC_WRITE, seq, &d);
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.wr.rdma.remote_addr = c->peer.addr + d.off[0];
		wr.wr.rdma.rkey = c->peer.rkey;
		wr.imm_data = htonl(seq);
	} else if (seq & 1) {
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(seq);
	} else {
		wr.opcode = IBV_WR_SEND;
	}
	return post_send(c, st, &wr);
}

/*
 * Client: send the phase's UC_N messages, at most UC_WINDOW outstanding
 * (a source slot is refilled only after its send completed).  Returns the
 * number of sends that completed successfully.
 */
static unsigned uc_send_all(struct ctx *c, bool write)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	enum ibv_wc_opcode op = write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;
	unsigned posted = 0, done = 0;
	struct ibv_wc wc;
	char what[64];

	while (done < posted || (posted < UC_N && !c->broken)) {
		if (posted < UC_N && !c->broken && posted - done < UC_WINDOW) {
			if (uc_post(c, write, posted) == 0)
				posted++;
			continue;
		}
		snprintf(what, sizeof(what), "%s #%u",
			 write ? "RDMA_WRITE_WITH_IMM" :
			 done & 1 ? "SEND_WITH_IMM" : "SEND", done);
		if (expect_wc(c, c->scq, st, what, done, op, &wc) < 0)
			break;
		done++;
	}
	return done;
}

static void uc_client(struct ctx *c, bool write, bool *ctl_failed)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	unsigned sent = uc_send_all(c, write);
	uint64_t v[2] = { sent, subtests[st].nfail };

	printf("# %s: %u of %d messages sent\n", subtests[st].name, sent, UC_N);
	if (msg_send(c, write ? "UC-WRITTEN" : "UC-SENT", v, 2, NULL) ||
	    msg_recv(c, "UC-RECEIVED", v, 2, NULL)) {
		*ctl_failed = true;
		return;
	}
	snprintf(st_note[st], sizeof(st_note[st]), "received %" PRIu64 "/%d, sent %u/%d",
		 v[0], UC_N, sent, UC_N);
	if (v[1])
		printf("# %s: the server reports %" PRIu64 " failures\n",
		       subtests[st].name, v[1]);
}

static void uc_server(struct ctx *c, struct uc_rx *rx, bool write,
		      bool *ctl_failed)
{
	int st = rx->st;
	uint64_t sent = 0, v[2];

	if (uc_collect(c, rx, write ? "UC-WRITTEN" : "UC-SENT", &sent)) {
		*ctl_failed = true;
		return;
	}
	uc_rx_final(c, rx);
	printf("# %s: %u of %d messages received, %d lost; the client sent %" PRIu64 "\n",
	       subtests[st].name, rx->received, UC_N, UC_N - (int)rx->received, sent);
	if (10 * rx->received < UC_N)
		fail(st, "only %u of %d messages arrived (fewer than a tenth)",
		     rx->received, UC_N);
	snprintf(st_note[st], sizeof(st_note[st]), "received %u/%d",
		 rx->received, UC_N);
	v[0] = rx->received;
	v[1] = subtests[st].nfail;
	if (msg_send(c, "UC-RECEIVED", v, 2, NULL))
		*ctl_failed = true;
}

/* One UC phase between its START and END handshakes. */
static int uc_phase(struct ctx *c, struct uc_rx *rx, bool write)
{
	int st = write ? ST_UC_WRITE : ST_UC_SEND;
	bool ctl_failed = false;
	struct seglist s;
	int r;

	/* Server: guard-fill the area and post the receives first. */
	if (c->server && !c->broken) {
		enum uc_area area = write ? UC_WRITE : UC_RECV;

		uc_rx_start(c, rx, write);
		fill_guard(c->buf, uc_base(c, area),
			   uc_base(c, area) + UC_N * uc_stride(c, area));
		for (unsigned k = 0; k < UC_N && !c->broken; k++) {
			uc_slot(c, area, k, &s);
			if (write)	/* for the immediate only: no SGE */
				post_recv(c, st, UC_N + k, &s, 0);
			else
				post_recv(c, st, k, &s, 1);
		}
	}
	r = phase_sync(c, write ? "UC-WRITE-START" : "UC-SEND-START");
	if (r < 0)
		return -1;
	if (r == 0)
		fail(st, "skipped: QP unusable after an earlier failure (this side or peer)");
	else if (c->server)
		uc_server(c, rx, write, &ctl_failed);
	else
		uc_client(c, write, &ctl_failed);
	if (ctl_failed)
		return -1;
	if (phase_sync(c, write ? "UC-WRITE-END" : "UC-SEND-END") < 0)
		return -1;
	report(st);
	return 0;
}

/* -m uc: both phases; 0 when done (results are then exchanged), -1 on a
 * control connection failure. */
static int uc_run(struct ctx *c)
{
	static struct uc_rx rx;

	rx.have_wr = false;
	if (uc_phase(c, &rx, false) || uc_phase(c, &rx, true))
		return -1;
	return 0;
}

static int run_mode(struct ctx *c)
{
	uint64_t mine[2], peer[2], start;
	struct seglist s;
	int r;

	if (c->mode == M_IDLE)
		return idle_wait(c);
	if (c->mode == M_ARMED)
		return armed_run(c);
	if (c->mode == M_UC)
		return uc_run(c);
	/* Client: the source bytes of SEND / WRITE (the read's destination
	 * and everything else stay guard). */
	if (!c->broken && !c->server) {
		one_seg(&s, MODE_OFF, MODE_SRC_LEN);
		fill_region(c->buf, &s, seed_for(0x100 + c->mode, 0), s.len[0]);
	}
	r = phase_sync(c, "MODE-START");
	if (r < 0)
		return -1;
	start = now_ms();
	if (r == 0)
		fail(ST_MODE, "skipped: setup failed (this side or peer)");
	else if (c->mode == M_RNR || c->mode == M_RNR_TIMER)
		c->server ? rnr_server(c) : rnr_client(c);
	else if (c->mode == M_RETRY_EXC)
		c->server ? silent_server(c) : retry_exc_client(c);
	else if (c->mode == M_DESTROY_ARMED)
		c->server ? silent_server(c) : destroy_armed_client(c);
	else if (c->mode == M_RNR_EXC)
		c->server ? (void)0 : rnr_exc_client(c);
	else if (c->mode >= M_BAD_LKEY && c->mode <= M_ATOMIC_UNALIGNED)
		c->server ? (void)0 : local_err_client(c);
	else if (c->mode >= M_SQ_NUM_SGE && c->mode <= M_SQ_PROD)
		sq_run(c);
	else if (c->mode == M_DESTROY_QP)
		c->server ? destroy_server(c, start) : destroy_client(c);
	else if (c->mode == M_MALFORMED)
		c->server ? malformed_server(c) : malformed_run(c);
	else if (c->mode == M_RESIZE_CQ)
		c->server ? resize_server(c) : resize_client(c);
	else if (c->mode == M_HOSTILE)
		c->server ? hostile_server(c) : hostile_client(c);
	else if (c->mode == M_MR_ACCESS)
		c->server ? mr_access_server(c) : mr_access_client(c);
	else if (c->mode == M_MISALIGNED_ATOMIC && !c->server)
		misaligned_client(c);
	else if (!c->server)
		access_client(c);

	mine[0] = subtests[ST_MODE].nfail;
	mine[1] = c->destroy_ms;
	if (msg_send(c, "MODE-END", mine, 2, NULL) ||
	    msg_recv(c, "MODE-END", peer, 2, NULL))
		return -1;
	if (r == 1 && c->server &&
	    (c->mode == M_BAD_RKEY || c->mode == M_OOB_WRITE ||
	     c->mode == M_OOB_READ || c->mode == M_MISALIGNED_ATOMIC ||
	     c->mode == M_MALFORMED || c->mode == M_RNR_EXC ||
	     (c->mode >= M_BAD_LKEY && c->mode <= M_ATOMIC_UNALIGNED))) {
		check_untouched(c, "after the refused request");
		print_qp_state(c);
	}
	/* C9-121: the invalid request took the responder's QP to Error. */
	if (r == 1 && c->server && c->mode == M_MISALIGNED_ATOMIC)
		expect_qp_error(c, "the C9-121 Invalid Request NAK");
	if (r == 1 && !c->server && c->mode == M_DESTROY_QP &&
	    c->error_ms + 100 < peer[1])
		fail(ST_MODE, "the error completion came %" PRIu64
		     " ms after the start, before the server destroyed its QP (%"
		     PRIu64 " ms): spurious retry exhaustion?", c->error_ms, peer[1]);
	if (peer[0])
		printf("# %s: the peer reports a failure of its side\n",
		       mode_names[c->mode]);
	report(ST_MODE);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setup and teardown                                                  */
/* ------------------------------------------------------------------ */

static int query_device(struct ctx *c);

/* Without -R: open the -d device, then query_device(). */
static int open_device(struct ctx *c)
{
	struct ibv_device **list;
	char names[256] = "";
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		fail(ST_SETUP, "ibv_get_device_list: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (!strcmp(name, c->dev_name))
			break;
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", *names ? " " : "", name);
	}
	if (i == n) {
		fail(ST_SETUP, "RDMA device %s not found (available: %s)",
		     c->dev_name, *names ? names : "none");
		ibv_free_device_list(list);
		return -1;
	}
	c->dev = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!c->dev) {
		fail(ST_SETUP, "ibv_open_device %s: %s", c->dev_name, strerror(errno));
		return -1;
	}
	return query_device(c);
}

/* Check the port, the GID and the limits of the open device c->dev. */
static int query_device(struct ctx *c)
{
	int r;

	r = ibv_query_device(c->dev, &c->dattr);
	if (r) {
		fail(ST_SETUP, "ibv_query_device: %s", strerror(r));
		return -1;
	}
	r = ibv_query_port(c->dev, c->ib_port, &c->pattr);
	if (r) {
		fail(ST_SETUP, "ibv_query_port %u: %s", c->ib_port, strerror(r));
		return -1;
	}
	if (c->pattr.state != IBV_PORT_ACTIVE) {
		fail(ST_SETUP, "port %u is %s, not ACTIVE", c->ib_port,
		     ibv_port_state_str(c->pattr.state));
		return -1;
	}
	if (c->pattr.link_layer != IBV_LINK_LAYER_ETHERNET)
		printf("# note: port %u link layer is not Ethernet\n", c->ib_port);
	c->hello_mtu = c->pattr.active_mtu;
	if (c->gid_idx >= c->pattr.gid_tbl_len) {
		fail(ST_SETUP, "GID index %d out of range (table has %d entries)",
		     c->gid_idx, c->pattr.gid_tbl_len);
		return -1;
	}
	r = ibv_query_gid(c->dev, c->ib_port, c->gid_idx, &c->gid);
	if (r) {
		fail(ST_SETUP, "ibv_query_gid %d: %s", c->gid_idx,
		     strerror(r < 0 ? errno : r));
		return -1;
	}
	if (!c->gid.global.subnet_prefix && !c->gid.global.interface_id) {
		fail(ST_SETUP, "GID index %d is empty", c->gid_idx);
		return -1;
	}
	if (c->dattr.max_sge < MAX_SEG || c->dattr.max_sge_rd < MAX_SEG ||
	    c->dattr.max_qp_wr < recv_depth(c) || c->dattr.max_cqe < cq_depth(c)) {
		fail(ST_SETUP, "device limits too small: max_sge %d max_sge_rd %d max_qp_wr %d max_cqe %d (need %d/%d/%d/%d)",
		     c->dattr.max_sge, c->dattr.max_sge_rd, c->dattr.max_qp_wr,
		     c->dattr.max_cqe, MAX_SEG, MAX_SEG, recv_depth(c), cq_depth(c));
		return -1;
	}
	c->rd_atomic = RD_ATOMIC;
	c->rd_atomic_dest = RD_ATOMIC;
	if (c->dattr.max_qp_init_rd_atom < RD_ATOMIC ||
	    c->dattr.max_qp_rd_atom < RD_ATOMIC) {
		if (c->dattr.max_qp_init_rd_atom < RD_ATOMIC)
			c->rd_atomic = (uint8_t)c->dattr.max_qp_init_rd_atom;
		if (c->dattr.max_qp_rd_atom < RD_ATOMIC)
			c->rd_atomic_dest = (uint8_t)c->dattr.max_qp_rd_atom;
		printf("# note: device limits max_rd_atomic to %u, max_dest_rd_atomic to %u\n",
		       c->rd_atomic, c->rd_atomic_dest);
	}
	return 0;
}

/*
 * Create the QP on c->pd: with -R through rdma_create_qp() on c->cm_id,
 * which leaves it in INIT (rdma_cm moves it on when connecting); without,
 * with ibv_create_qp() and the INIT transition here.  Both use the same
 * capabilities.
 */
static int create_qp(struct ctx *c)
{
	enum ibv_qp_type qpt = c->mode == M_UC ? IBV_QPT_UC : IBV_QPT_RC;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int r;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ia.qp_type = qpt;
	ia.sq_sig_all = 0;
	ia.cap.max_send_wr = QUEUE_DEPTH;
	ia.cap.max_recv_wr = (uint32_t)recv_depth(c);
	ia.cap.max_send_sge = MAX_SEG;
	ia.cap.max_recv_sge = MAX_SEG;
	ia.cap.max_inline_data = 0;
	if (c->use_cm) {
		if (rdma_create_qp(c->cm_id, c->pd, &ia)) {
			fail(ST_SETUP, "rdma_create_qp (RC, %d/%d WRs, %d SGEs): %s",
			     QUEUE_DEPTH, recv_depth(c), MAX_SEG, strerror(errno));
			return -1;
		}
		c->qp = c->cm_id->qp;
		return 0;
	}
	c->qp = ibv_create_qp(c->pd, &ia);
	if (!c->qp) {
		fail(ST_SETUP, "ibv_create_qp (%s, %d/%d WRs, %d SGEs): %s",
		     qpt == IBV_QPT_UC ? "UC" : "RC", QUEUE_DEPTH,
		     recv_depth(c), MAX_SEG, strerror(errno));
		return -1;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = c->ib_port;
	if (qpt == IBV_QPT_UC)	/* UC has no remote read or atomics */
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	else
		a.qp_access_flags = c->server ?
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC : 0;
	r = ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (r) {
		fail(ST_SETUP, "ibv_modify_qp to INIT: %s", strerror(r));
		return -1;
	}
	return 0;
}

/*
 * PD, buffer, MR, CQs and QP on the already open device context c->dev
 * (open_device()'s own, or with -R the cm_id's).
 */
static int create_resources(struct ctx *c)
{
	int mr_access = c->server ?
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC :
		IBV_ACCESS_LOCAL_WRITE;	/* read / atomic results land here */

	c->pd = ibv_alloc_pd(c->dev);
	if (!c->pd) {
		fail(ST_SETUP, "ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	c->buf_len = c->mode == M_UC ? UC_BUF_SIZE : BUF_SIZE;
	c->buf = aligned_alloc(4096, c->buf_len);
	if (!c->buf) {
		fail(ST_SETUP, "cannot allocate %zu bytes", c->buf_len);
		return -1;
	}
	fill_guard(c->buf, 0, c->buf_len);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->buf_len, mr_access);
	if (!c->mr) {
		fail(ST_SETUP, "ibv_reg_mr (%zu bytes, access 0x%x): %s",
		     c->buf_len, (unsigned)mr_access, strerror(errno));
		return -1;
	}
	c->scq = ibv_create_cq(c->dev, cq_depth(c), NULL, NULL, 0);
	c->rcq = c->scq ? ibv_create_cq(c->dev, cq_depth(c), NULL, NULL, 0) : NULL;
	if (!c->rcq) {
		fail(ST_SETUP, "ibv_create_cq (%d entries): %s", cq_depth(c),
		     strerror(errno));
		return -1;
	}
	if (create_qp(c))
		return -1;
	/* With -R, rdma_cm's PSN replaces this once connected. */
	if (!c->psn_given) {
		srand48((long)(now_ms() ^ ((uint64_t)getpid() << 16)));
		c->psn = (uint32_t)lrand48() & 0xffffff;
	}
	return 0;
}

/*
 * Exchange QP information: magic, version, setup status, QPN, PSN, rkey,
 * buffer address and length, active MTU and LID, plus the GID.  Sent even
 * if the local setup failed, so that the peer fails fast.
 */
static int exchange_info(struct ctx *c)
{
	uint64_t v[8] = {
		PROTO_MAGIC,
		(uint64_t)PROTO_VERSION << 32 | (uint64_t)c->mode << 8 |
			(c->broken ? 1 : 0),
		c->qp ? c->qp->qp_num : 0,
		c->psn,
		c->mr ? c->mr->rkey : 0,
		(uintptr_t)c->buf,
		c->buf_len,
		(uint64_t)c->hello_mtu | (uint64_t)c->pattr.lid << 8,
	};
	uint64_t pv[8];
	char g[INET6_ADDRSTRLEN];

	if (msg_send(c, "HELLO", v, 8, c->gid.raw) ||
	    msg_recv(c, "HELLO", pv, 8, c->peer.gid.raw))
		return -1;
	if (pv[0] != PROTO_MAGIC || pv[1] >> 32 != PROTO_VERSION) {
		snprintf(abort_reason, sizeof(abort_reason),
			 "peer is not a compatible sroce_integrity (magic/version mismatch)");
		return -1;
	}
	if (((pv[1] >> 8) & 0xff) != c->mode) {
		unsigned pm = (pv[1] >> 8) & 0xff;

		snprintf(abort_reason, sizeof(abort_reason),
			 "peer runs mode %s, this side %s (-m must match)",
			 pm < M_COUNT ? mode_names[pm] : "?", mode_names[c->mode]);
		return -1;
	}
	if (pv[1] & 1) {
		printf("# peer reports that its setup failed\n");
		c->broken = true;
	}
	c->peer.qpn = (uint32_t)pv[2];
	c->peer.psn = (uint32_t)pv[3];
	c->peer.rkey = (uint32_t)pv[4];
	c->peer.addr = pv[5];
	c->peer.len = pv[6];
	c->peer.mtu = (enum ibv_mtu)(pv[7] & 0xff);
	c->peer.lid = (uint16_t)(pv[7] >> 8);
	if (c->broken)
		return 0;

	/* Both sides use the smaller active MTU (normally they are equal);
	 * with -R, hello_mtu is also at most rdma_cm's path MTU. */
	c->path_mtu = c->hello_mtu;
	if (c->peer.mtu >= IBV_MTU_256 && c->peer.mtu < c->path_mtu)
		c->path_mtu = c->peer.mtu;
	c->mtu_bytes = 128u << c->path_mtu;
	inet_ntop(AF_INET6, c->gid.raw, g, sizeof(g));
	printf("# local:  dev %s port %u gid[%d] %s qpn 0x%06x psn 0x%06x active_mtu %u\n",
	       c->dev_name, c->ib_port, c->gid_idx, g, c->qp->qp_num, c->psn,
	       128u << c->pattr.active_mtu);
	inet_ntop(AF_INET6, c->peer.gid.raw, g, sizeof(g));
	printf("# remote: gid %s qpn 0x%06x psn 0x%06x active_mtu %u; path MTU %u\n",
	       g, c->peer.qpn, c->peer.psn, 128u << c->peer.mtu, c->mtu_bytes);
	return 0;
}

/*
 * Connect @qp (INIT) to the peer's QP @dqpn: RTR with @rq_psn, RTS with
 * @sq_psn, and (RC) the timers of this mode (conn_params()).  A UC QP
 * takes neither timers nor RDMA READ / atomic resources: ib_core refuses
 * those attributes for UC, so its masks are the required ones only.
 */
static int qp_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn,
		      uint32_t rq_psn, uint32_t sq_psn)
{
	struct conn_params p = conn_params(c);
	bool rc = qp->qp_type == IBV_QPT_RC;
	int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	int rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	struct ibv_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->path_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	if (rc) {
		a.max_dest_rd_atomic = c->rd_atomic_dest;
		a.min_rnr_timer = p.min_rnr_timer;
		rtr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = c->peer.gid;
	a.ah_attr.grh.sgid_index = (uint8_t)c->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.traffic_class = 0;
	a.ah_attr.grh.flow_label = 0;
	a.ah_attr.dlid = c->peer.lid;	/* 0 on Ethernet */
	a.ah_attr.sl = 0;
	a.ah_attr.src_path_bits = 0;
	a.ah_attr.port_num = c->ib_port;
	r = ibv_modify_qp(qp, &a, rtr_mask);
	if (r) {
		fail(ST_SETUP, "ibv_modify_qp to RTR: %s", strerror(r));
		return -1;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (rc) {
		a.timeout = p.timeout;
		a.retry_cnt = p.retry_cnt;
		a.rnr_retry = p.rnr_retry;
		a.max_rd_atomic = c->rd_atomic;
		rts_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_MAX_QP_RD_ATOMIC;
	}
	r = ibv_modify_qp(qp, &a, rts_mask);
	if (r) {
		fail(ST_SETUP, "ibv_modify_qp to RTS: %s", strerror(r));
		return -1;
	}
	return 0;
}

static int connect_qp(struct ctx *c)
{
	return qp_connect(c, c->qp, c->peer.qpn, c->peer.psn, c->psn);
}

/* Build the plan and check that both buffers can hold it. */
static int check_plan(struct ctx *c)
{
	struct plan *p = &c->plan;

	build_plan(p, c->mtu_bytes);
	if (p->overflow || p->cli_size > c->buf_len || p->srv_size > c->buf_len) {
		fail(ST_SETUP, "internal: test layout (%" PRIu64 "/%" PRIu64
		     " bytes) exceeds the %zu-byte buffer", p->cli_size,
		     p->srv_size, c->buf_len);
		return -1;
	}
	if (!c->server && c->peer.len < p->srv_size) {
		fail(ST_SETUP, "server buffer too small (%" PRIu64 " < %" PRIu64 ")",
		     c->peer.len, p->srv_size);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connecting through rdma_cm (-R)                                     */
/* ------------------------------------------------------------------ */

/*
 * With -R the TCP control connection still comes first, and HELLO and
 * everything after it are unchanged.  In between:
 *
 *   server                                client
 *   (before TCP) event channel, id,
 *   bind any address at TCP_PORT + 1,
 *   listen
 *                                         id; resolve the address its TCP
 *                                         connection reached (port + 1),
 *                                         then the route; the id is now on
 *                                         a device: it must be -d; PD,
 *                                         buffer, MR, CQs on the id's
 *                                         context, rdma_create_qp (INIT)
 *   -------- "CM-CONNECT" handshake over TCP: is each side ready? --------
 *   wait for the connection request       rdma_connect
 *   (its new id: the same checks and
 *   allocations), rdma_accept (RTR, RTS)
 *   wait for ESTABLISHED                  wait for ESTABLISHED (RTR, RTS)
 *
 * then each side reads back what rdma_cm programmed (state, PSNs, path
 * MTU) and, after HELLO, checks that its QP is connected to the QP the TCP
 * peer reports.  Receives are posted later, in each phase before its START
 * handshake, exactly as without -R.  A local failure marks the QP broken,
 * which CM-CONNECT or HELLO tells the peer; every wait is bounded.
 *
 * responder_resources / initiator_depth are rd_atomic_dest / rd_atomic
 * (RD_ATOMIC, or the device's limit); the server lowers them to the
 * client's values from the request, so that neither side is asked for
 * more than its device allows.  retry_count and rnr_retry_count are 7, and
 * the ACK timeout is set to the one the verbs path uses.
 */

static void cm_fail_event(const char *what, const struct rdma_cm_event *ev,
			  enum rdma_cm_event_type want)
{
	if (ev->status < 0)
		fail(ST_SETUP, "%s: %s (status %d: %s) instead of %s", what,
		     rdma_event_str(ev->event), ev->status, strerror(-ev->status),
		     rdma_event_str(want));
	else
		fail(ST_SETUP, "%s: %s (status %d) instead of %s", what,
		     rdma_event_str(ev->event), ev->status, rdma_event_str(want));
}

/*
 * The next event on the channel, waiting until deadline (ms, now_ms()).
 * A connection request that arrives once this side has its connection (a
 * second client) is rejected and skipped.  The event is copied to *ev and
 * acked at once (its private data is not used), so that no id's destroy
 * can wait for an unacked event.  Returns 0, 1 on timeout, -1 on error.
 */
static int cm_next_event(struct ctx *c, uint64_t deadline,
			 struct rdma_cm_event *ev)
{
	for (;;) {
		struct pollfd pfd = { .fd = c->cm_ch->fd, .events = POLLIN };
		struct rdma_cm_event *e;
		uint64_t now;

		if (!rdma_get_cm_event(c->cm_ch, &e)) {
			*ev = *e;
			rdma_ack_cm_event(e);
			ev->param.conn.private_data = NULL;
			ev->param.conn.private_data_len = 0;
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && c->cm_id) {
				printf("# rdma_cm: rejecting a second connection request\n");
				rdma_reject(ev->id, NULL, 0);
				rdma_destroy_id(ev->id);
				continue;
			}
			return 0;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		now = now_ms();
		if (now >= deadline)
			return 1;
		if (poll(&pfd, 1, (int)(deadline - now)) < 0 && errno != EINTR)
			return -1;
	}
}

/* Wait up to ms for event want; anything else is a setup failure. */
static int cm_expect(struct ctx *c, enum rdma_cm_event_type want, unsigned ms,
		     const char *what, struct rdma_cm_event *ev)
{
	int r = cm_next_event(c, now_ms() + ms, ev);

	if (r > 0) {
		fail(ST_SETUP, "%s: no %s within %u ms", what,
		     rdma_event_str(want), ms);
		return -1;
	}
	if (r < 0) {
		fail(ST_SETUP, "%s: rdma_get_cm_event: %s", what, strerror(errno));
		return -1;
	}
	if (ev->event != want || ev->status) {
		cm_fail_event(what, ev, want);
		return -1;
	}
	return 0;
}

/* The event channel, non-blocking so that every wait can time out. */
static int cm_open_channel(struct ctx *c)
{
	int fl;

	c->cm_ch = rdma_create_event_channel();
	if (!c->cm_ch) {
		fail(ST_SETUP, "rdma_create_event_channel: %s (rdma_ucm loaded?)",
		     strerror(errno));
		return -1;
	}
	fl = fcntl(c->cm_ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->cm_ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		fail(ST_SETUP, "fcntl O_NONBLOCK on the rdma_cm channel: %s",
		     strerror(errno));
		return -1;
	}
	return 0;
}

/* Server, before the TCP accept: listen on any address at TCP_PORT + 1. */
static int cm_listen(struct ctx *c)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons((uint16_t)(c->tcp_port + 1)),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)(c->tcp_port + 1)),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int zero = 0, e6;

	if (cm_open_channel(c))
		return -1;
	if (rdma_create_id(c->cm_ch, &c->cm_listen, c, RDMA_PS_TCP)) {
		fail(ST_SETUP, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	/* Dual stack like the TCP socket; plain IPv4 if IPv6 is unavailable. */
	rdma_set_option(c->cm_listen, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
			&zero, sizeof(zero));
	if (rdma_bind_addr(c->cm_listen, (struct sockaddr *)&a6)) {
		e6 = errno;
		rdma_destroy_id(c->cm_listen);
		c->cm_listen = NULL;
		if (rdma_create_id(c->cm_ch, &c->cm_listen, c, RDMA_PS_TCP)) {
			fail(ST_SETUP, "rdma_create_id: %s", strerror(errno));
			return -1;
		}
		if (rdma_bind_addr(c->cm_listen, (struct sockaddr *)&a4)) {
			fail(ST_SETUP, "rdma_bind_addr to port %d: %s (IPv6: %s)",
			     c->tcp_port + 1, strerror(errno), strerror(e6));
			return -1;
		}
	}
	if (rdma_listen(c->cm_listen, 1)) {
		fail(ST_SETUP, "rdma_listen: %s", strerror(errno));
		return -1;
	}
	printf("# server: rdma_cm listening on port %d\n", c->tcp_port + 1);
	return 0;
}

/*
 * c->cm_id is on a device now (route resolved, or a connection request):
 * it must be the -d device and port; query it and create this side's
 * resources on the cm_id's context (librdmacm's, not closed here).
 */
static int cm_attach(struct ctx *c)
{
	struct rdma_cm_id *id = c->cm_id;
	const char *name = id->verbs ? ibv_get_device_name(id->verbs->device) : NULL;

	if (!name || strcmp(name, c->dev_name)) {
		fail(ST_SETUP, "rdma_cm put the connection on device %s port %u, not on %s (-d)",
		     name ? name : "(none)", id->port_num, c->dev_name);
		return -1;
	}
	if (id->port_num != c->ib_port) {
		fail(ST_SETUP, "rdma_cm put the connection on port %u of %s, not on port %u (-i)",
		     id->port_num, name, c->ib_port);
		return -1;
	}
	c->dev = id->verbs;
	if (query_device(c))
		return -1;
	if (!c->rd_atomic || !c->rd_atomic_dest) {
		fail(ST_SETUP, "device %s allows no RDMA READ / atomic (max_qp_init_rd_atom %d, max_qp_rd_atom %d)",
		     name, c->dattr.max_qp_init_rd_atom, c->dattr.max_qp_rd_atom);
		return -1;
	}
	return create_resources(c);
}

/* Connection parameters (and the ACK timeout option) of c->cm_id. */
static void cm_params(struct ctx *c, struct rdma_conn_param *p,
		      uint8_t responder_resources, uint8_t initiator_depth)
{
	struct conn_params cp = conn_params(c);	/* retry 7, rnr_retry 7 */
	uint8_t timeout = cp.timeout;

	memset(p, 0, sizeof(*p));
	p->responder_resources = responder_resources;
	p->initiator_depth = initiator_depth;
	p->retry_count = cp.retry_cnt;
	p->rnr_retry_count = cp.rnr_retry;
	if (rdma_set_option(c->cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			    &timeout, sizeof(timeout)))
		printf("# note: rdma_cm ACK timeout %u not set: %s\n", timeout,
		       strerror(errno));
}

/*
 * Client: resolve the address the TCP connection reached, at port + 1,
 * and the route; then attach to the device and create the QP.
 */
static int cm_resolve(struct ctx *c)
{
	struct sockaddr_storage ss;
	struct rdma_cm_event ev;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	uint16_t port = htons((uint16_t)(c->tcp_port + 1));

	if (cm_open_channel(c))
		return -1;
	if (rdma_create_id(c->cm_ch, &c->cm_id, c, RDMA_PS_TCP)) {
		fail(ST_SETUP, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (getpeername(c->sock, (struct sockaddr *)&ss, &sl)) {
		fail(ST_SETUP, "getpeername of the control connection: %s",
		     strerror(errno));
		return -1;
	}
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

		if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
			struct sockaddr_in a4 = { .sin_family = AF_INET };

			memcpy(&a4.sin_addr, &a6->sin6_addr.s6_addr[12], 4);
			memset(&ss, 0, sizeof(ss));
			memcpy(&ss, &a4, sizeof(a4));
		}
	}
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = port;
	else if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = port;
	getnameinfo((struct sockaddr *)&ss, sizeof(ss), host, sizeof(host),
		    NULL, 0, NI_NUMERICHOST);
	if (rdma_resolve_addr(c->cm_id, NULL, (struct sockaddr *)&ss, CM_RESOLVE_MS)) {
		fail(ST_SETUP, "rdma_resolve_addr %s: %s", host, strerror(errno));
		return -1;
	}
	if (cm_expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, CM_RESOLVE_MS + 2000,
		      "rdma_resolve_addr", &ev))
		return -1;
	if (rdma_resolve_route(c->cm_id, CM_RESOLVE_MS)) {
		fail(ST_SETUP, "rdma_resolve_route %s: %s", host, strerror(errno));
		return -1;
	}
	if (cm_expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, CM_RESOLVE_MS + 2000,
		      "rdma_resolve_route", &ev))
		return -1;
	printf("# client: rdma_cm resolved %s port %d on %s\n", host,
	       c->tcp_port + 1, c->cm_id->verbs ?
	       ibv_get_device_name(c->cm_id->verbs->device) : "(no device)");
	return cm_attach(c);
}

static int cm_client_connect(struct ctx *c)
{
	struct rdma_conn_param p;
	struct rdma_cm_event ev;

	cm_params(c, &p, c->rd_atomic_dest, c->rd_atomic);
	if (rdma_connect(c->cm_id, &p)) {
		fail(ST_SETUP, "rdma_connect: %s", strerror(errno));
		return -1;
	}
	/* This wait also covers the server's set-up after the request. */
	if (cm_expect(c, RDMA_CM_EVENT_ESTABLISHED, 2 * CM_CONNECT_MS,
		      "rdma_connect", &ev))
		return -1;
	c->cm_connected = true;
	return 0;
}

static int cm_server_accept(struct ctx *c)
{
	struct rdma_conn_param p;
	struct rdma_cm_event ev;
	uint8_t resp, init;

	if (cm_expect(c, RDMA_CM_EVENT_CONNECT_REQUEST, CM_CONNECT_MS,
		      "rdma_listen", &ev))
		return -1;
	c->cm_id = ev.id;	/* destroyed in teardown, after the resources */
	if (cm_attach(c)) {
		rdma_reject(c->cm_id, NULL, 0);
		return -1;
	}
	/* The request's values are the client's, seen from this side: its
	 * initiator_depth (ours to serve) and responder_resources (ours to
	 * use at most). */
	resp = ev.param.conn.responder_resources < c->rd_atomic_dest ?
		ev.param.conn.responder_resources : c->rd_atomic_dest;
	init = ev.param.conn.initiator_depth < c->rd_atomic ?
		ev.param.conn.initiator_depth : c->rd_atomic;
	cm_params(c, &p, resp, init);
	if (rdma_accept(c->cm_id, &p)) {
		fail(ST_SETUP, "rdma_accept (responder_resources %u, initiator_depth %u): %s",
		     resp, init, strerror(errno));
		rdma_reject(c->cm_id, NULL, 0);
		return -1;
	}
	if (cm_expect(c, RDMA_CM_EVENT_ESTABLISHED, CM_CONNECT_MS,
		      "rdma_accept", &ev))
		return -1;
	c->cm_connected = true;
	return 0;
}

/*
 * Connected: read back what rdma_cm programmed.  The QP must be in RTS
 * and able to do what the sequence needs (READs and atomics from the
 * client); its send PSN goes to HELLO as without -R, and the MTU offered
 * there is at most rdma_cm's path MTU.
 */
static int cm_established(struct ctx *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int r;

	r = ibv_query_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU |
			 IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_DEST_QPN |
			 IBV_QP_AV | IBV_QP_MAX_QP_RD_ATOMIC |
			 IBV_QP_MAX_DEST_RD_ATOMIC, &ia);
	if (r) {
		fail(ST_SETUP, "ibv_query_qp after rdma_cm connected: %s", strerror(r));
		return -1;
	}
	if (a.qp_state != IBV_QPS_RTS) {
		fail(ST_SETUP, "rdma_cm left the QP in %s, not RTS",
		     qp_state_name(a.qp_state));
		return -1;
	}
	if (c->server ? !a.max_dest_rd_atomic : !a.max_rd_atomic) {
		fail(ST_SETUP, "rdma_cm set max_rd_atomic %u, max_dest_rd_atomic %u: no RDMA READ or atomics",
		     a.max_rd_atomic, a.max_dest_rd_atomic);
		return -1;
	}
	c->psn = a.sq_psn;
	c->cm_rq_psn = a.rq_psn;
	c->cm_dqpn = a.dest_qp_num;
	if (a.path_mtu >= IBV_MTU_256 && a.path_mtu < c->hello_mtu)
		c->hello_mtu = a.path_mtu;
	if (a.ah_attr.grh.sgid_index != c->gid_idx)
		printf("# note: rdma_cm uses GID index %u, not %d (-g)\n",
		       a.ah_attr.grh.sgid_index, c->gid_idx);
	printf("# connected through rdma_cm\n");
	return 0;
}

/*
 * -R, once the TCP connection is up: connect the QP (see above).  Local
 * failures mark the QP broken; -1 only if the control connection failed.
 */
static int cm_connect(struct ctx *c)
{
	int r;

	if (!c->server && !c->broken && cm_resolve(c))
		c->broken = true;
	r = phase_sync(c, "CM-CONNECT");
	if (r <= 0)
		return r;
	if (c->server ? cm_server_accept(c) : cm_client_connect(c))
		c->broken = true;
	else if (cm_established(c))
		c->broken = true;
	return 0;
}

/* After HELLO: rdma_cm's peer QP must be the one the TCP peer reports. */
static int cm_check_peer(struct ctx *c)
{
	if (c->peer.qpn == c->cm_dqpn && c->peer.psn == c->cm_rq_psn)
		return 0;
	fail(ST_SETUP, "rdma_cm connected this QP to QPN 0x%06x (receive PSN 0x%06x), but the TCP peer's QP is 0x%06x (send PSN 0x%06x)",
	     c->cm_dqpn, c->cm_rq_psn, c->peer.qpn, c->peer.psn);
	return -1;
}

/* Teardown, step 1: disconnect (bounded wait) and destroy the QP. */
static void cm_disconnect(struct ctx *c)
{
	uint64_t deadline = now_ms() + CM_DISCONNECT_MS;
	struct rdma_cm_event ev;

	if (c->cm_connected) {
		if (rdma_disconnect(c->cm_id))
			printf("# rdma_disconnect: %s\n", strerror(errno));
		/* Skip anything else (TIMEWAIT_EXIT ...) until DISCONNECTED. */
		for (;;) {
			int r = cm_next_event(c, deadline, &ev);

			if (r)
				printf("# rdma_cm: %s waiting for RDMA_CM_EVENT_DISCONNECTED\n",
				       r > 0 ? "timeout" : strerror(errno));
			if (r || (ev.event == RDMA_CM_EVENT_DISCONNECTED &&
				  ev.id == c->cm_id))
				break;
		}
		c->cm_connected = false;
	}
	if (c->qp) {
		rdma_destroy_qp(c->cm_id);
		c->qp = NULL;
	}
}

/* Teardown, last step (the verbs resources are gone): ids, channel. */
static void cm_close(struct ctx *c)
{
	if (c->cm_id && rdma_destroy_id(c->cm_id))
		fail(ST_TEARDOWN, "rdma_destroy_id: %s", strerror(errno));
	c->cm_id = NULL;
	if (c->cm_listen && rdma_destroy_id(c->cm_listen))
		fail(ST_TEARDOWN, "rdma_destroy_id (listen): %s", strerror(errno));
	c->cm_listen = NULL;
	if (c->cm_ch)
		rdma_destroy_event_channel(c->cm_ch);
	c->cm_ch = NULL;
}

static void teardown(struct ctx *c)
{
	int r;

	if (c->use_cm)
		cm_disconnect(c);	/* and rdma_destroy_qp() */
	if (c->qp && (r = ibv_destroy_qp(c->qp)))
		fail(ST_TEARDOWN, "ibv_destroy_qp: %s", strerror(r));
	if (c->rcq && (r = ibv_destroy_cq(c->rcq)))
		fail(ST_TEARDOWN, "ibv_destroy_cq (recv): %s", strerror(r));
	if (c->scq && (r = ibv_destroy_cq(c->scq)))
		fail(ST_TEARDOWN, "ibv_destroy_cq (send): %s", strerror(r));
	if (c->mr && (r = ibv_dereg_mr(c->mr)))
		fail(ST_TEARDOWN, "ibv_dereg_mr: %s", strerror(r));
	if (c->pd && (r = ibv_dealloc_pd(c->pd)))
		fail(ST_TEARDOWN, "ibv_dealloc_pd: %s", strerror(r));
	/* With -R, c->dev is the cm_id's context: librdmacm closes it. */
	if (c->dev && !c->use_cm && (r = ibv_close_device(c->dev)))
		fail(ST_TEARDOWN, "ibv_close_device: %s", strerror(r));
	free(c->buf);
	if (c->use_cm)
		cm_close(c);
	if (c->sock >= 0)
		close(c->sock);
}

/* ------------------------------------------------------------------ */
/* Command line and main                                               */
/* ------------------------------------------------------------------ */

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s -d DEV -g GID_INDEX [-p TCP_PORT] [-i IB_PORT] [-P PSN] [-t SECONDS]\n"
		"       [-m MODE | -R] [SERVER_IP]\n"
		"\n"
		"RC data-integrity test: SEND/SEND_WITH_IMM, RDMA_WRITE[_WITH_IMM],\n"
		"RDMA_READ, CMP_SWAP and FETCH_ADD, every byte verified.\n"
		"Without SERVER_IP: server mode, waits for the client on TCP_PORT.\n"
		"\n"
		"  -d DEV        RDMA device name (e.g. rxe0)\n"
		"  -g GID_INDEX  local GID index (RoCEv2 GID)\n"
		"  -p TCP_PORT   TCP port of the control connection (default %d)\n"
		"  -i IB_PORT    device port number (default 1)\n"
		"  -P PSN        initial send PSN of this side (default random;\n"
		"                e.g. 0xffff00 makes the PSN wrap during the test)\n"
		"  -t SECONDS    completion timeout (default 20)\n"
		"  -m MODE       scenario, the same on both sides (default integrity):\n"
		"                integrity   the data-integrity sequence above\n"
		"                rnr         SEND before the receive is posted (RNR NAK)\n"
		"                bad_rkey    RDMA_WRITE with a wrong rkey\n"
		"                oob_write   RDMA_WRITE past the end of the server's MR\n"
		"                oob_read    RDMA_READ past the end of the server's MR\n"
		"                destroy_qp  the server destroys its QP under a WRITE stream\n"
		"                misaligned_atomic  a hand-built FETCH_ADD at an unaligned VA\n"
		"                malformed   hand-built malformed packets, then an RDMA_READ\n"
		"                resize_cq   the server resizes its receive CQ with CQEs in it\n"
		"                hostile     the server rings the send doorbell and rewrites\n"
		"                            a posted receive WQE in the mapped ring\n"
		"                mr_access   READ and WRITE to a server MR without remote write\n"
		"                idle        connect, then wait until the peer goes away\n"
		"                uc          a UC QP pair (for a lossy link): %d multi-packet\n"
		"                            SEND[_WITH_IMM]s, then %d RDMA_WRITE_WITH_IMMs\n"
		"                            into one server slot each; lost messages are\n"
		"                            fine, every completed one must be intact and\n"
		"                            in order, at least half must arrive\n"
		"              the client's requester under test (see the source):\n"
		"                retry_exc rnr_timer rnr_exc bad_lkey read_mr_range\n"
		"                read_no_lwrite atomic_short atomic_unaligned sq_num_sge\n"
		"                sq_opcode sq_length sq_lkey sq_inline sq_prod\n"
		"                destroy_armed armed\n"
		"  -R, --rdma-cm connect the RC QP pair through rdma_cm (librdmacm) instead\n"
		"                of exchanging QPN/PSN/GID over TCP: the server listens on\n"
		"                any address at port TCP_PORT + 1, the client connects to\n"
		"                SERVER_IP there; rdma_cm must pick the -d device and -i\n"
		"                port, and chooses PSNs, path MTU and source GID itself.\n"
		"                Both sides need -R; default integrity sequence only\n"
		"                (not with -m or -P)\n"
		"  -h, --help    this text\n"
		"\n"
		"Prints 'INTEGRITY <name> PASS|FAIL <reason>' per sub-test, then\n"
		"'INTEGRITY RESULT PASS|FAIL'; exit status 0 only if all passed.\n",
		prog, DEFAULT_TCP_PORT, UC_N, UC_N);
}

static bool parse_num(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_args(struct ctx *c, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "rdma-cm", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_gid = false;
	long v;
	int o;

	while ((o = getopt_long(argc, argv, "d:g:p:i:P:t:m:Rh", lopts, NULL)) != -1) {
		switch (o) {
		case 'd':
			c->dev_name = optarg;
			break;
		case 'g':
			if (!parse_num(optarg, 0, 255, &v)) {
				fprintf(stderr, "%s: invalid GID index '%s'\n", argv[0], optarg);
				return 2;
			}
			c->gid_idx = (int)v;
			have_gid = true;
			break;
		case 'p':
			if (!parse_num(optarg, 1, 65535, &v)) {
				fprintf(stderr, "%s: invalid TCP port '%s'\n", argv[0], optarg);
				return 2;
			}
			c->tcp_port = (int)v;
			break;
		case 'i':
			if (!parse_num(optarg, 1, 255, &v)) {
				fprintf(stderr, "%s: invalid IB port '%s'\n", argv[0], optarg);
				return 2;
			}
			c->ib_port = (uint8_t)v;
			break;
		case 'P':
			if (!parse_num(optarg, 0, 0xffffff, &v)) {
				fprintf(stderr, "%s: invalid PSN '%s' (0..0xffffff)\n", argv[0], optarg);
				return 2;
			}
			c->psn = (uint32_t)v;
			c->psn_given = true;
			break;
		case 't':
			if (!parse_num(optarg, 1, 3600, &v)) {
				fprintf(stderr, "%s: invalid timeout '%s'\n", argv[0], optarg);
				return 2;
			}
			poll_timeout_ms = (unsigned)v * 1000;
			break;
		case 'm':
			for (v = 0; v < M_COUNT; v++)
				if (!strcmp(optarg, mode_names[v]))
					break;
			if (v == M_COUNT) {
				fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], optarg);
				return 2;
			}
			c->mode = (enum mode)v;
			break;
		case 'R':
			c->use_cm = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (!c->dev_name || !have_gid) {
		fprintf(stderr, "%s: -d DEV and -g GID_INDEX are required\n", argv[0]);
		usage(stderr, argv[0]);
		return 2;
	}
	if (argc - optind > 1) {
		fprintf(stderr, "%s: too many arguments\n", argv[0]);
		usage(stderr, argv[0]);
		return 2;
	}
	if (c->use_cm) {
		const char *why = NULL;

		if (c->mode == M_UC)
			why = "-m uc needs a UC QP pair, and rdma_cm (RDMA_PS_TCP) connects RC only";
		else if (c->mode != M_INTEGRITY)
			why = "the error-path modes (-m) set up their QPs themselves; -R runs the integrity sequence only";
		else if (c->psn_given)
			why = "rdma_cm chooses the PSNs: -P cannot be used";
		else if (c->tcp_port == 65535)
			why = "the rdma_cm port is TCP_PORT + 1: -p must be below 65535";
		if (why) {
			fprintf(stderr, "%s: -R: %s\n", argv[0], why);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		c->server_host = argv[optind];
	c->server = !c->server_host;
	return -1;
}

int main(int argc, char **argv)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	uint64_t peer_fail;
	unsigned nfail;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	c->tcp_port = DEFAULT_TCP_PORT;
	c->ib_port = 1;
	c->sock = -1;
	r = parse_args(c, argc, argv);
	if (r >= 0)
		return r;
	my_side = c->server ? SRV : CLI;
	if (c->mode == M_UC) {
		/* Setup, the two UC phases and teardown are reported. */
		for (int st = ST_SEND; st <= ST_ATOMIC_FINAL; st++)
			subtests[st].sides = 0;
		subtests[ST_UC_SEND].sides = CLI | SRV;
		subtests[ST_UC_WRITE].sides = CLI | SRV;
	} else if (c->mode != M_INTEGRITY) {
		/* Only setup, the scenario and teardown are reported. */
		for (int st = ST_SEND; st <= ST_ATOMIC_FINAL; st++)
			subtests[st].sides = 0;
		subtests[ST_MODE].name = mode_names[c->mode];
		subtests[ST_MODE].sides = CLI | SRV;
	}
	printf("# sroce_integrity %s: device %s, GID index %d%s%s%s\n",
	       c->server ? "server" : "client", c->dev_name, c->gid_idx,
	       c->mode != M_INTEGRITY ? ", mode " : "",
	       c->mode != M_INTEGRITY ? mode_names[c->mode] : "",
	       c->use_cm ? ", rdma_cm" : "");

	/* Local verbs set-up; on failure still tell the peer, then stop.
	 * With -R the device context comes from rdma_cm (cm_connect()), so
	 * only the server's listening id is set up before the TCP accept. */
	if (c->use_cm ? (c->server && cm_listen(c)) :
	    (open_device(c) || create_resources(c)))
		c->broken = true;
	if (c->server ? tcp_server(c) : tcp_client(c))
		goto aborted;
	if (c->use_cm && cm_connect(c))
		goto aborted;
	if (exchange_info(c))
		goto aborted;
	if (!c->broken && ((c->use_cm && cm_check_peer(c)) ||
			   (c->mode == M_INTEGRITY && check_plan(c)) ||
			   (c->mode == M_UC && uc_check_layout(c)) ||
			   (!c->use_cm && connect_qp(c))))
		c->broken = true;
	r = phase_sync(c, "CONNECTED");
	if (r < 0)
		goto aborted;
	report(ST_SETUP);

	if (c->mode == M_INTEGRITY) {
		if (test_send(c) || test_write(c) || test_read(c) || test_atomic(c))
			goto aborted;
	} else {
		r = run_mode(c);
		if (r < 0)
			goto aborted;
		if (r > 0)
			goto done;	/* idle: the peer is gone */
	}

	/* Exchange the overall results (informational for this side). */
	nfail = failed_subtests();
	if (msg_send(c, "RESULT", (uint64_t[]){ nfail }, 1, NULL) ||
	    msg_recv(c, "RESULT", &peer_fail, 1, NULL))
		goto aborted;
	if (peer_fail)
		printf("INTEGRITY-PEER FAIL peer reported %" PRIu64 " failed sub-tests\n",
		       peer_fail);
	else
		printf("INTEGRITY-PEER PASS\n");
done:
	teardown(c);
	report(ST_TEARDOWN);
	goto out;

aborted:
	printf("# aborted: %s\n", abort_reason);
	teardown(c);
	report(ST_TEARDOWN);
out:
	report_rest(abort_reason);
	nfail = failed_subtests();
	printf("INTEGRITY RESULT %s\n", nfail ? "FAIL" : "PASS");
	return nfail ? 1 : 0;
}
