// SPDX-License-Identifier: GPL-2.0
/*
 * modes.c - the table of -m modes, and the scenario frame that runs the
 * error-path modes.
 *
 * Adding a mode: write its functions (a mode_*.c file of its family,
 * prototypes in integrity.h) and append one row to modes[].  Both sides
 * must run the same binary: a row's index goes over the wire, in HELLO
 * (the peers' modes must match) and in the seed of the scenario's data
 * (mode_seed()), so rows are only ever appended, never reordered.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "integrity.h"

#define STR_(x)		#x
#define STR(x)		STR_(x)

/* A row's QP timers, where they differ from CONN_DEFAULT. */
#define CONN(t, retry, rnr, min_rnr)					\
	(&(const struct conn_params){ .timeout = (t), .retry_cnt = (retry),	\
				      .rnr_retry = (rnr),		\
				      .min_rnr_timer = (min_rnr) })

/* The sub-tests of the integrity sequence. */
#define SEQUENCE	(ST_BIT(ST_SEND) | ST_BIT(ST_SEND_IMM) | ST_BIT(ST_WRITE) | \
			 ST_BIT(ST_WRITE_IMM) | ST_BIT(ST_READ) | ST_BIT(ST_CAS) | \
			 ST_BIT(ST_FADD) | ST_BIT(ST_ATOMIC_FINAL))

const struct mode modes[] = {
	{
		.name = "integrity",
		.help = "the data-integrity sequence above",
		.run = integrity_run,
		.layout = check_plan,
		.rdma_cm = true,
		.reports = SEQUENCE,
	},

	/* The server's responder under test (tools/testvm/errors-guest.sh). */
	{
		.name = "rnr",
		.help = "SEND before the receive is posted (RNR NAK)",
		.client = rnr_client, .server = rnr_server,
	}, {
		.name = "bad_rkey",
		.help = "RDMA_WRITE with a wrong rkey",
		.client = bad_rkey_client,
		.post_untouched = true,
	}, {
		.name = "oob_write",
		.help = "RDMA_WRITE past the end of the server's MR",
		.client = oob_write_client,
		.post_untouched = true,
	}, {
		.name = "oob_read",
		.help = "RDMA_READ past the end of the server's MR",
		.client = oob_read_client,
		.post_untouched = true,
	}, {
		.name = "destroy_qp",
		.help = "the server destroys its QP under a WRITE stream",
		.client = destroy_client, .server = destroy_server,
		.post_client = destroy_post_client,
		/* give up soon after the peer QP is gone: 3 x ~268 ms */
		.conn = CONN(16, 2, 7, 12),
	}, {
		.name = "misaligned_atomic",
		.help = "a hand-built FETCH_ADD at an unaligned VA",
		.client = misaligned_client,
		.post_untouched = true,
		/* C9-121: the invalid request took the responder's QP to Error. */
		.post_qp_error = "the C9-121 Invalid Request NAK",
	}, {
		.name = "malformed",
		.help = "hand-built malformed packets, then an RDMA_READ",
		.client = malformed_client, .server = malformed_server,
		.post_untouched = true,
	}, {
		.name = "resize_cq",
		.help = "the server resizes its receive CQ with CQEs in it",
		.client = resize_client, .server = resize_server,
	}, {
		.name = "hostile",
		.help = "the server rings the send doorbell and rewrites\n"
			"a posted receive WQE in the mapped ring",
		.client = hostile_client, .server = hostile_server,
	}, {
		.name = "mr_access",
		.help = "READ and WRITE to a server MR without remote write",
		.client = mr_access_client, .server = mr_access_server,
	}, {
		.name = "idle",
		.help = "connect, then wait until the peer goes away",
		.run = idle_wait,
	},

	/* The client's requester under test (tools/testvm/req-errors-test.sh). */
	{
		.name = "retry_exc",
		.client = retry_exc_client, .server = silent_server,
		.conn = CONN(RQ_TIMEOUT, RQ_RETRY_CNT, 7, 12),
	}, {
		.name = "rnr_timer",
		.client = rnr_timer_client, .server = rnr_timer_server,
		.conn = CONN(14, 7, 7, RNR_TIMER_CODE),
	}, {
		.name = "rnr_exc",
		.client = rnr_exc_client,
		.post_untouched = true,
		.conn = CONN(14, 7, RNR_EXC_RETRY, RNR_TIMER_CODE),
	}, {
		.name = "bad_lkey",
		.client = bad_lkey_client,
		.post_untouched = true,
	}, {
		.name = "read_mr_range",
		.client = read_mr_range_client,
		.post_untouched = true,
	}, {
		.name = "read_no_lwrite",
		.client = read_no_lwrite_client,
		.post_untouched = true,
	}, {
		.name = "atomic_short",
		.client = atomic_short_client,
		.post_untouched = true,
	}, {
		.name = "atomic_unaligned",
		.client = atomic_unaligned_client,
		.post_untouched = true,
	}, {
		.name = "sq_num_sge",
		.client = sq_num_sge_client, .server = sq_server,
		.witness = true,
	}, {
		.name = "sq_opcode",
		.client = sq_opcode_client, .server = sq_server,
		.witness = true,
	}, {
		.name = "sq_length",
		.client = sq_length_client, .server = sq_length_server,
		.witness = true,
	}, {
		.name = "sq_lkey",
		.client = sq_lkey_client, .server = sq_server,
		.witness = true,
	}, {
		.name = "sq_inline",
		.client = sq_inline_client, .server = sq_server,
		.witness = true,
	}, {
		.name = "sq_prod",
		.client = sq_prod_client, .server = sq_server,
		.witness = true,
	}, {
		.name = "destroy_armed",
		.client = destroy_armed_client, .server = silent_server,
		.conn = CONN(16, 7, 7, 12),	/* 8 x 268 ms */
	}, {
		.name = "wedged",
		.client = wedged_client,
		/* 8 x 268 ms; the slow link queues 64 packets for 80 ms */
		.conn = CONN(16, 7, 7, 12),
	}, {
		.name = "armed",
		.run = armed_run,
		/* 8 x 1.07 s: still retrying when killed */
		.conn = CONN(18, 7, 7, 12),
	},

	/* A UC QP pair on a lossy link (not an error path). */
	{
		.name = "uc",
		.help = "a UC QP pair (for a lossy link): " STR(UC_N) " multi-packet\n"
			"SEND[_WITH_IMM]s, then " STR(UC_N) " RDMA_WRITE_WITH_IMMs\n"
			"into one server slot each; lost messages are\n"
			"fine, every completed one must be intact and\n"
			"in order, at least half must arrive",
		.run = uc_run,
		.layout = uc_check_layout,
		.uc = true,
		.rq_depth = UC_RQ_DEPTH,
		.cq_depth = UC_RQ_DEPTH,
		.buf_len = UC_BUF_SIZE,
		.reports = ST_BIT(ST_UC_SEND) | ST_BIT(ST_UC_WRITE),
	},
};

const unsigned n_modes = sizeof(modes) / sizeof(modes[0]);

/* HELLO carries the index in 8 bits. */
_Static_assert(sizeof(modes) / sizeof(modes[0]) <= 256, "too many modes");

/* The index of this side's mode: what HELLO carries. */
unsigned mode_id(const struct ctx *c)
{
	return (unsigned)(c->mode - modes);
}

/* Seed idx of the scenario's data (the client's source bytes: idx 0). */
uint64_t mode_seed(const struct ctx *c, unsigned idx)
{
	return seed_for(0x100 + mode_id(c), idx);
}

const struct mode *find_mode(const char *name)
{
	for (unsigned i = 0; i < n_modes; i++)
		if (!strcmp(name, modes[i].name))
			return &modes[i];
	return NULL;
}

#define HELP_INDENT	16	/* where a mode's name starts */
#define HELP_NAME	12	/* its column, before the description */
#define HELP_WIDTH	72	/* the requester modes' names wrap here */

/*
 * The -m part of the usage: each mode with a description, one a line (a
 * longer name pushes its description two spaces on), then the names of
 * the requester modes, wrapped.
 */
void print_mode_help(FILE *f)
{
	unsigned col = 0;

	for (unsigned i = 0; i < n_modes; i++) {
		const char *h = modes[i].help;
		int pad = HELP_NAME - (int)strlen(modes[i].name);

		if (!h)
			continue;
		fprintf(f, "%*s%s%*s", HELP_INDENT, "", modes[i].name,
			pad > 0 ? pad : 2, "");
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h,
				HELP_INDENT + HELP_NAME, "");
		fprintf(f, "%s\n", h);
	}
	fprintf(f, "%*sthe client's requester under test (see the source):\n",
		HELP_INDENT - 2, "");
	for (unsigned i = 0; i < n_modes; i++) {
		unsigned len = (unsigned)strlen(modes[i].name);

		if (modes[i].help)
			continue;
		if (col && col + 1 + len > HELP_WIDTH) {
			fputc('\n', f);
			col = 0;
		}
		if (col)
			col += (unsigned)fprintf(f, " %s", modes[i].name);
		else
			col = (unsigned)fprintf(f, "%*s%s", HELP_INDENT, "",
						modes[i].name);
	}
	if (col)
		fputc('\n', f);
}

/*
 * The scenario frame, for a mode without a run function: the client
 * fills its source bytes, both sides shake hands (MODE-START), run their
 * side of the scenario (with the witness pair around it if the row says
 * so), shake hands again (MODE-END, with the failure count and the
 * server's destroy time), run the row's checks and report the sub-test
 * named after the mode.  Returns 0 when done (results are then exchanged
 * as in the integrity mode), -1 if the control connection failed.  (A run
 * function may also return 1: done without a peer to exchange results
 * with.)
 */
int run_scenario(struct ctx *c)
{
	const struct mode *m = c->mode;
	void (*side)(struct ctx *c) = c->server ? m->server : m->client;
	uint64_t mine[2], peer[2];
	struct seglist s;
	int r;

	/* Client: the source bytes of SEND / WRITE (the read's destination
	 * and everything else stay guard). */
	if (!c->broken && !c->server) {
		one_seg(&s, MODE_OFF, MODE_SRC_LEN);
		fill_region(c->buf, &s, mode_seed(c, 0), s.len[0]);
	}
	r = phase_sync(c, "MODE-START");
	if (r < 0)
		return -1;
	c->start_ms = now_ms();
	if (r == 0)
		fail(ST_MODE, "skipped: setup failed (this side or peer)");
	else if (m->witness)
		witness_run(c, side);
	else if (side)
		side(c);

	mine[0] = subtests[ST_MODE].nfail;
	mine[1] = c->destroy_ms;
	if (msg_send(c, "MODE-END", mine, 2, NULL) ||
	    msg_recv(c, "MODE-END", peer, 2, NULL))
		return -1;
	if (r == 1 && c->server && m->post_untouched) {
		check_untouched(c, "after the refused request");
		print_qp_state(c);
	}
	if (r == 1 && c->server && m->post_qp_error)
		expect_qp_error(c, m->post_qp_error);
	if (r == 1 && !c->server && m->post_client)
		m->post_client(c, peer[1]);
	if (peer[0])
		printf("# %s: the peer reports a failure of its side\n", m->name);
	report(ST_MODE);
	return 0;
}
