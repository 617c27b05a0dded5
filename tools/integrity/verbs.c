// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the verbs side of sroce_integrity: the device, this side's
 * resources, connecting a QP, teardown, and the helpers that post work
 * requests and wait for their completions.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "integrity.h"

/* ------------------------------------------------------------------ */
/* What the mode's table row asks of the QP                            */
/* ------------------------------------------------------------------ */

/* The QP timers of this mode (both sides; min_rnr_timer is the responder's). */
struct conn_params conn_params(const struct ctx *c)
{
	static const struct conn_params def = CONN_DEFAULT;

	return c->mode->conn ? *c->mode->conn : def;
}

/* The receive queue and CQ sizes (UC pre-posts a receive per message). */
int recv_depth(const struct ctx *c)
{
	return c->mode->rq_depth ? c->mode->rq_depth : QUEUE_DEPTH;
}

int cq_depth(const struct ctx *c)
{
	return c->mode->cq_depth ? c->mode->cq_depth : CQ_DEPTH;
}

/* ------------------------------------------------------------------ */
/* Setup and teardown                                                  */
/* ------------------------------------------------------------------ */

/* Without -R: open the -d device, then query_device(). */
int open_device(struct ctx *c)
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
int query_device(struct ctx *c)
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
	enum ibv_qp_type qpt = c->mode->uc ? IBV_QPT_UC : IBV_QPT_RC;
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
int create_resources(struct ctx *c)
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
	c->buf_len = c->mode->buf_len ? c->mode->buf_len : BUF_SIZE;
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
 * Connect @qp (INIT) to the peer's QP @dqpn: RTR with @rq_psn, RTS with
 * @sq_psn, and (RC) the timers of this mode (conn_params()).  A UC QP
 * takes neither timers nor RDMA READ / atomic resources: ib_core refuses
 * those attributes for UC, so its masks are the required ones only.
 */
int qp_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn,
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

int connect_qp(struct ctx *c)
{
	return qp_connect(c, c->qp, c->peer.qpn, c->peer.psn, c->psn);
}

/* Release everything this side holds: QP, CQs, MR, PD, device, socket. */
void teardown(struct ctx *c)
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
/* Verbs helpers: posting and polling                                  */
/* ------------------------------------------------------------------ */

void to_sges(const struct ctx *c, const struct seglist *s,
	     struct ibv_sge *sge)
{
	for (unsigned i = 0; i < s->n; i++) {
		sge[i].addr = (uintptr_t)(c->buf + s->off[i]);
		sge[i].length = s->len[i];
		sge[i].lkey = c->mr->lkey;
	}
}

/* Post a receive scattering into the first nsge SGEs of s. */
int post_recv(struct ctx *c, int st, uint64_t wr_id,
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

int post_send(struct ctx *c, int st, struct ibv_send_wr *wr)
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
int poll_one(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
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
int expect_wc(struct ctx *c, struct ibv_cq *cq, int st, const char *what,
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

const char *qp_state_name(int state)
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
void print_qp_state(struct ctx *c)
{
	int state = query_qp_state(c);

	if (state < 0)
		printf("# ibv_query_qp: %s\n", strerror(errno));
	else
		printf("# local QP state now %s\n", qp_state_name(state));
}

/* The local QP must be in the error state now (after @what). */
void expect_qp_error(struct ctx *c, const char *what)
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
int post_one(struct ctx *c, enum ibv_wr_opcode op, uint64_t wr_id,
	     uint64_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	return post_wr(c, c->qp, op, wr_id, c->buf + off, len, c->mr->lkey, raddr, rkey);
}

/* Wait for the next completion on @cq: wr_id and status must be as given. */
void expect_completion(struct ctx *c, struct ibv_cq *cq, const char *what,
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
void expect_status(struct ctx *c, const char *what, uint64_t wr_id,
		   enum ibv_wc_status want)
{
	expect_completion(c, c->scq, what, wr_id, want);
}

/* Post one signaled WR with one SGE (laddr, len, lkey) on @qp. */
int post_wr(struct ctx *c, struct ibv_qp *qp, enum ibv_wr_opcode op,
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

/* Post a one-SGE receive for the region s on @qp. */
int post_recv_qp(struct ctx *c, struct ibv_qp *qp, uint64_t wr_id,
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
