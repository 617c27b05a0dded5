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
 * Output: a KTAP document (version 1, as the kernel's ktap.rst, counted by
 * tools/ktap.py): "ok N <name>" or "not ok N <name> # <reason>" per
 * sub-test of this side, "# peer: ..." (informational, what the peer
 * reported), and the plan "1..N" at the end.  The exit status is 0 only if
 * every sub-test of this side passed.
 *
 * -m MODE picks an error-path scenario instead of the integrity sequence
 * (both sides must use the same mode): rnr, bad_rkey, oob_write, oob_read,
 * destroy_qp, misaligned_atomic, malformed (these two send hand-built
 * packets through a raw socket, inject.c), resize_cq, hostile, mr_access,
 * the requester error modes (retry_exc ... armed), or idle (connect, then
 * wait until killed).  Each prints the result of sub-test <mode>
 * between the setup and teardown lines; see modes.c (the table),
 * mode_resp.c, mode_resp_res.c, mode_wire.c, mode_req.c and mode_sq.c.
 *
 * -m uc connects a UC QP pair instead (meant for a lossy link: netem loss,
 * duplication, reordering) and runs two phases of UC_N multi-packet
 * messages, SEND[_WITH_IMM] and RDMA_WRITE_WITH_IMM into one server slot
 * each.  Lost messages are expected (UC never retransmits); every message
 * that completes must be whole, in place and in order, and nothing else
 * may be written.  It prints the results of uc_send and uc_write, "...
 * # received R/N"; see mode_uc.c.
 *
 * -R (--rdma-cm) connects the RC QP pair through rdma_cm (librdmacm, so
 * the Makefile links -lrdmacm) instead of the INIT/RTR/RTS transitions
 * above: the server listens on any address at RDMA port TCP_PORT + 1, the
 * client resolves SERVER_IP (the address its TCP connection reached) and
 * connects, and rdma_cm chooses the PSNs, the path MTU and the source GID.
 * The QP is created with rdma_create_qp() on the connection's cm_id, with
 * the PD, CQs and MR of this tool allocated on that cm_id's device context
 * (which must be the -d device).  The TCP channel is used as without -R;
 * see cm.c.  Only the integrity sequence runs this way: -R with -m or -P
 * is a usage error.
 *
 * The files by concern are listed in integrity.h; the modes are the rows
 * of one table, modes[] in modes.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrity.h"

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
		"  -m MODE       scenario, the same on both sides (default integrity):\n",
		prog, DEFAULT_TCP_PORT);
	print_mode_help(f);
	fprintf(f,
		"  -R, --rdma-cm connect the RC QP pair through rdma_cm (librdmacm) instead\n"
		"                of exchanging QPN/PSN/GID over TCP: the server listens on\n"
		"                any address at port TCP_PORT + 1, the client connects to\n"
		"                SERVER_IP there; rdma_cm must pick the -d device and -i\n"
		"                port, and chooses PSNs, path MTU and source GID itself.\n"
		"                Both sides need -R; default integrity sequence only\n"
		"                (not with -m or -P)\n"
		"  -h, --help    this text\n"
		"\n"
		"Prints KTAP: 'ok N <name>' or 'not ok N <name> # <reason>' per\n"
		"sub-test, then the plan '1..N'; exit status 0 only if all passed.\n");
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
			c->mode = find_mode(optarg);
			if (!c->mode) {
				fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], optarg);
				return 2;
			}
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

		if (!c->mode->rdma_cm && c->mode->uc)
			why = "-m uc needs a UC QP pair, and rdma_cm (RDMA_PS_TCP) connects RC only";
		else if (!c->mode->rdma_cm)
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

/*
 * The sub-tests this side reports: setup, what the mode's row names (or
 * the one named after the mode), teardown.
 */
static void select_subtests(const struct mode *m)
{
	unsigned reports = m->reports ? m->reports : ST_BIT(ST_MODE);

	for (int st = ST_SETUP + 1; st < ST_TEARDOWN; st++) {
		if (!(reports & ST_BIT(st)))
			subtests[st].sides = 0;
		else if (!subtests[st].sides)
			subtests[st].sides = CLI | SRV;
	}
	if (reports & ST_BIT(ST_MODE))
		subtests[ST_MODE].name = m->name;
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
	c->mode = &modes[0];	/* integrity */
	r = parse_args(c, argc, argv);
	if (r >= 0)
		return r;
	printf("KTAP version 1\n");
	my_side = c->server ? SRV : CLI;
	select_subtests(c->mode);
	printf("# sroce_integrity %s: device %s, GID index %d%s%s%s\n",
	       c->server ? "server" : "client", c->dev_name, c->gid_idx,
	       c->mode != &modes[0] ? ", mode " : "",
	       c->mode != &modes[0] ? c->mode->name : "",
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
			   (c->mode->layout && c->mode->layout(c)) ||
			   (!c->use_cm && connect_qp(c))))
		c->broken = true;
	r = phase_sync(c, "CONNECTED");
	if (r < 0)
		goto aborted;
	report(ST_SETUP);

	r = c->mode->run ? c->mode->run(c) : run_scenario(c);
	if (r < 0)
		goto aborted;
	if (r > 0)
		goto done;	/* idle: the peer is gone */

	/* Exchange the overall results (informational for this side). */
	nfail = failed_subtests();
	if (msg_send(c, "RESULT", (uint64_t[]){ nfail }, 1, NULL) ||
	    msg_recv(c, "RESULT", &peer_fail, 1, NULL))
		goto aborted;
	if (peer_fail)
		printf("# peer: reported %" PRIu64 " failed sub-tests\n", peer_fail);
	else
		printf("# peer: all passed\n");
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
	printf("1..%u\n", reported_subtests());
	return nfail ? 1 : 0;
}
