/* SPDX-License-Identifier: GPL-2.0 */
/*
 * integrity.h - what the files of sroce_integrity share: the limits, the
 * sub-test bookkeeping, the data patterns and buffer layouts, the test
 * plan, the context of one side, the mode table's row, and the functions
 * that more than one file calls.  main.c describes the program.
 *
 *   common.c         sub-test results and output, names, clocks
 *   plan.c           patterns, layouts, the integrity sequence's plan
 *   verify.c         checking regions against their patterns
 *   ctl.c            the TCP control channel, HELLO, phase handshakes
 *   verbs.c          device, resources, QP connection, posting, polling
 *   cm.c             connecting through rdma_cm (-R)
 *   modes.c          the mode table and the scenario frame
 *   mode_integrity.c the default integrity sequence
 *   mode_resp.c      error modes around a responder (and rnr_timer)
 *   mode_resp_res.c  error modes on a responder's CQ, receive ring, MRs
 *   mode_wire.c      hand-built packets: misaligned_atomic, malformed
 *   mode_req.c       requester error modes (the client's device under test)
 *   mode_sq.c        the hostile send ring (sq_*) and the witness pair
 *   mode_uc.c        -m uc, a UC QP pair on a lossy link
 *   main.c           command line and main()
 */
#ifndef SROCE_INTEGRITY_H
#define SROCE_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

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

/* Error-path modes (-m MODE): shared by the scenario frame and the modes. */
#define MODE_OFF	(4096 + 3)	/* unaligned data offset, both sides */
#define MODE_SRC_LEN	65536		/* client: pattern bytes at MODE_OFF */

/* Requester error modes: the QP timers of their table rows. */
#define RQ_TIMEOUT	14	/* retry_exc: 4.096 us * 2^14 = 67.1 ms */
#define RQ_RETRY_CNT	3
#define RNR_TIMER_CODE	26	/* rnr_timer, rnr_exc: 81.92 ms (IBA table 45) */
#define RNR_TIMER_MS	81.92
#define RNR_EXC_RETRY	1

/* -m uc: what its table row and usage line need. */
#define UC_N		300	/* messages per phase */
#define UC_RQ_DEPTH	(2 * UC_N)	/* uc_send leftovers + uc_write's receives */
#define UC_BUF_SIZE	(8u << 20)	/* both areas at a 4096-byte MTU */

/* completion timeout (-t) */
extern unsigned poll_timeout_ms;

/* ------------------------------------------------------------------ */
/* Sub-test bookkeeping (common.c)                                     */
/* ------------------------------------------------------------------ */

enum side { CLI = 1, SRV = 2 };

enum subtest_id {
	ST_SETUP, ST_SEND, ST_SEND_IMM, ST_WRITE, ST_WRITE_IMM, ST_READ,
	ST_CAS, ST_FADD, ST_ATOMIC_FINAL, ST_MODE, ST_UC_SEND, ST_UC_WRITE,
	ST_TEARDOWN, ST_COUNT
};

#define ST_BIT(st)	(1u << (st))

struct subtest {
	const char *name;
	unsigned sides;		/* which side reports it */
	bool reported;
	unsigned nfail;
	char reason[256];	/* first failure */
};

extern struct subtest subtests[ST_COUNT];
extern unsigned my_side;
/* Appended to a sub-test's result line if set (e.g. "received 290/300"). */
extern char st_note[ST_COUNT][96];
/* Why the control connection (or the run) was given up. */
extern char abort_reason[256];

void fail(int st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report(int st);
void report_rest(const char *why);
unsigned failed_subtests(void);
unsigned reported_subtests(void);

const char *wr_op_name(enum ibv_wr_opcode op);
const char *wc_op_name(enum ibv_wc_opcode op);
uint64_t now_ms(void);
void sleep_ms(unsigned ms);

/* ------------------------------------------------------------------ */
/* Data patterns and buffer layouts (plan.c)                           */
/* ------------------------------------------------------------------ */

static inline uint64_t mix64(uint64_t x)
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

uint64_t seed_for(unsigned test_id, unsigned idx);
uint64_t rng_next(uint64_t *s);

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

void fill_guard(uint8_t *buf, uint64_t start, uint64_t end);
void fill_region(uint8_t *buf, const struct seglist *s, uint64_t seed,
		 uint64_t valid);
void one_seg(struct seglist *s, uint64_t off, uint32_t cap);

/* ------------------------------------------------------------------ */
/* The deterministic test plan (plan.c; identical on both sides)       */
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

extern const uint64_t slot_init[N_SLOTS];

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

uint64_t slot_off(const struct seglist *area, unsigned i);
void build_plan(struct plan *p, uint32_t mtu);

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

struct mode;

struct ctx {
	bool server;
	const struct mode *mode;	/* -m: its row of modes[] */
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
	uint64_t start_ms;		/* now_ms() at the MODE-START handshake */
	uint64_t destroy_ms;		/* server: when it destroyed its QP */
	uint64_t error_ms;		/* client: first error completion */
};

/* ------------------------------------------------------------------ */
/* The mode table (modes.c)                                            */
/* ------------------------------------------------------------------ */

/* The QP timers of a mode (both sides; min_rnr_timer is the responder's). */
struct conn_params {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

/*
 * One row of modes[], everything that is particular to a mode.  A field
 * left out (0, false or NULL) takes the default given here.  modes[0] is
 * the default mode (no -m).  The row's index goes over the wire (HELLO,
 * and the seed of the scenario's data, mode_seed()): rows are only ever
 * appended.
 */
struct mode {
	const char *name;		/* -m NAME */
	/* Usage: the description ('\n' between its lines); NULL lists the
	 * name among the requester modes instead. */
	const char *help;

	/*
	 * What runs after the CONNECTED handshake.  run, if set, is the
	 * whole mode (returns as run_scenario() does).  Otherwise the
	 * scenario frame runs: MODE-START, this side's function (NULL: the
	 * side only takes part in the handshakes), MODE-END, the checks
	 * below, and the sub-test named after the mode is reported.
	 */
	int (*run)(struct ctx *c);
	void (*client)(struct ctx *c);
	void (*server)(struct ctx *c);
	/* Around the side's function: a second QP pair (the witness) is
	 * connected first and must still carry a SEND and a WRITE after. */
	bool witness;

	/* Checks after MODE-END, when the scenario ran. */
	bool post_untouched;		/* server: whole buffer unchanged, QP state shown */
	const char *post_qp_error;	/* server: QP in Error after this (message) */
	/* client: a check against the server's report (its destroy time) */
	void (*post_client)(struct ctx *c, uint64_t peer_destroy_ms);

	/* QP timers; NULL: CONN_DEFAULT. */
	const struct conn_params *conn;
	bool uc;			/* a UC QP pair instead of RC */
	int rq_depth;			/* receive queue; 0: QUEUE_DEPTH */
	int cq_depth;			/* each CQ; 0: CQ_DEPTH */
	size_t buf_len;			/* registered buffer; 0: BUF_SIZE */
	bool rdma_cm;			/* -R may be given */
	/* After HELLO, before CONNECTED: does the layout fit (NULL: no check)? */
	int (*layout)(struct ctx *c);
	/* ST_BIT()s of the sub-tests reported between setup and teardown;
	 * 0: ST_MODE, named after the mode. */
	unsigned reports;
};

#define CONN_DEFAULT	{ .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12 }

extern const struct mode modes[];
extern const unsigned n_modes;

unsigned mode_id(const struct ctx *c);
uint64_t mode_seed(const struct ctx *c, unsigned idx);
const struct mode *find_mode(const char *name);
void print_mode_help(FILE *f);
int run_scenario(struct ctx *c);

/* ------------------------------------------------------------------ */
/* Checking (verify.c)                                                 */
/* ------------------------------------------------------------------ */

uint64_t verify_region(const uint8_t *buf, const struct seglist *s,
		       uint64_t seed, uint64_t valid, char *why, size_t whylen);
void check_region(struct ctx *c, const struct item *it, const char *what,
		  const struct seglist *s, uint64_t valid);
void check_untouched(struct ctx *c, const char *what);

/* ------------------------------------------------------------------ */
/* TCP control channel (ctl.c)                                         */
/* ------------------------------------------------------------------ */

int msg_send(struct ctx *c, const char *tag, const uint64_t *v, unsigned nv,
	     const uint8_t *gid);
int msg_recv(struct ctx *c, const char *tag, uint64_t *v, unsigned nv,
	     uint8_t *gid);
int tcp_server(struct ctx *c);
int tcp_client(struct ctx *c);
int phase_sync(struct ctx *c, const char *tag);
int exchange_info(struct ctx *c);

/* ------------------------------------------------------------------ */
/* Verbs (verbs.c)                                                     */
/* ------------------------------------------------------------------ */

struct conn_params conn_params(const struct ctx *c);
int recv_depth(const struct ctx *c);
int cq_depth(const struct ctx *c);

int open_device(struct ctx *c);
int query_device(struct ctx *c);
int create_resources(struct ctx *c);
int qp_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn,
	       uint32_t rq_psn, uint32_t sq_psn);
int connect_qp(struct ctx *c);
void teardown(struct ctx *c);

void to_sges(const struct ctx *c, const struct seglist *s, struct ibv_sge *sge);
int post_recv(struct ctx *c, int st, uint64_t wr_id, const struct seglist *s,
	      unsigned nsge);
int post_recv_qp(struct ctx *c, struct ibv_qp *qp, uint64_t wr_id,
		 const struct seglist *s);
int post_send(struct ctx *c, int st, struct ibv_send_wr *wr);
int post_wr(struct ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
	    uint64_t wr_id, const void *laddr, uint32_t len, uint32_t lkey,
	    uint64_t raddr, uint32_t rkey);
int post_one(struct ctx *c, enum ibv_wr_opcode op, uint64_t wr_id,
	     uint64_t off, uint32_t len, uint64_t raddr, uint32_t rkey);
int poll_one(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
	     struct ibv_wc *wc);
int expect_wc(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
	      uint64_t wr_id, enum ibv_wc_opcode op, struct ibv_wc *wc);
void expect_completion(struct ctx *c, struct ibv_cq *cq, const char *what,
		       uint64_t wr_id, enum ibv_wc_status want);
void expect_status(struct ctx *c, const char *what, uint64_t wr_id,
		   enum ibv_wc_status want);

const char *qp_state_name(int state);
void print_qp_state(struct ctx *c);
void expect_qp_error(struct ctx *c, const char *what);

/* ------------------------------------------------------------------ */
/* rdma_cm (cm.c)                                                      */
/* ------------------------------------------------------------------ */

int cm_listen(struct ctx *c);
int cm_connect(struct ctx *c);
int cm_check_peer(struct ctx *c);
void cm_disconnect(struct ctx *c);
void cm_close(struct ctx *c);

/* ------------------------------------------------------------------ */
/* The modes' functions (the mode_*.c files), named in modes[]         */
/* ------------------------------------------------------------------ */

/* mode_integrity.c */
int integrity_run(struct ctx *c);
int check_plan(struct ctx *c);

/* mode_resp.c */
void rnr_client(struct ctx *c);
void rnr_server(struct ctx *c);
void rnr_timer_client(struct ctx *c);
void rnr_timer_server(struct ctx *c);
void bad_rkey_client(struct ctx *c);
void oob_write_client(struct ctx *c);
void oob_read_client(struct ctx *c);
void destroy_client(struct ctx *c);
void destroy_server(struct ctx *c);
void destroy_post_client(struct ctx *c, uint64_t peer_destroy_ms);
int idle_wait(struct ctx *c);

/* mode_resp_res.c */
void resize_client(struct ctx *c);
void resize_server(struct ctx *c);
void hostile_client(struct ctx *c);
void hostile_server(struct ctx *c);
void mr_access_client(struct ctx *c);
void mr_access_server(struct ctx *c);

/* mode_wire.c */
void misaligned_client(struct ctx *c);
void malformed_client(struct ctx *c);
void malformed_server(struct ctx *c);

/* mode_req.c */
void silent_server(struct ctx *c);
void retry_exc_client(struct ctx *c);
void rnr_exc_client(struct ctx *c);
void bad_lkey_client(struct ctx *c);
void read_mr_range_client(struct ctx *c);
void read_no_lwrite_client(struct ctx *c);
void atomic_short_client(struct ctx *c);
void atomic_unaligned_client(struct ctx *c);
void destroy_armed_client(struct ctx *c);
int armed_run(struct ctx *c);
void wedged_client(struct ctx *c);

/* mode_sq.c */
int ring_atomic(struct ctx *c, uint8_t *dst, uint32_t len, uint64_t raddr);
void witness_run(struct ctx *c, void (*side)(struct ctx *c));
void sq_num_sge_client(struct ctx *c);
void sq_opcode_client(struct ctx *c);
void sq_length_client(struct ctx *c);
void sq_lkey_client(struct ctx *c);
void sq_inline_client(struct ctx *c);
void sq_prod_client(struct ctx *c);
void sq_server(struct ctx *c);
void sq_length_server(struct ctx *c);

/* mode_uc.c */
int uc_run(struct ctx *c);
int uc_check_layout(struct ctx *c);

#endif /* SROCE_INTEGRITY_H */
