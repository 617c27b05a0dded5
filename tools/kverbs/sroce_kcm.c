// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kcm: a kernel consumer that connects through rdma_cm, across two
 * hosts, and checks a provider (sroce, or stock rdma_rxe) at either end.
 *
 *	insmod sroce_kcm.ko server=1 [v6=1] [port=N]	listen, serve one client
 *	insmod sroce_kcm.ko peer=ADDR [port=N]		connect to ADDR (IPv4 or IPv6)
 *
 * Two connections, one after the other:
 *   RC (RDMA_PS_TCP, port N): the client SENDs 4000 bytes and the server
 *     checks them; the client WRITEs 16 KiB into the server's buffer (its
 *     address and rkey come in the accept's private data) and SENDs with
 *     immediate data behind it, and the server checks the WRITE's bytes
 *     and the immediate; the client READs 16 KiB the server laid out and
 *     checks them; the client disconnects.
 *   UD (RDMA_PS_UDP, port N + 1, a SIDR exchange over QP1): the client
 *     makes an AH from the reply's path and sends KCM_DATAGRAMS datagrams
 *     under the reply's QPN and Q_Key; the server checks each one's GRH
 *     flag, source QPN (the client's, from the request's private data),
 *     length and bytes.
 * Every byte is checked.  The module prints a KTAP document (version 1,
 * the kernel's ktap.rst; tools/ktap.py counts it), at pr_info:
 *	KTAP version 1
 *	ok N <role> <check>	or	not ok N <role> <check> # <why>
 * one line per check, and the plan "1..N" at the end (the count of checks
 * depends on how far the run gets).
 * The load succeeds once the run is over (the log is the verdict), and
 * everything is freed before init returns.  No wait is longer than
 * KCM_TIMEOUT_S, but the server's for its client (KCM_ACCEPT_S).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static bool kcm_server;
module_param_named(server, kcm_server, bool, 0444);
MODULE_PARM_DESC(server, "listen and serve one client (default: be the client)");
static char *kcm_peer = "";
module_param_named(peer, kcm_peer, charp, 0444);
MODULE_PARM_DESC(peer, "the server's IPv4 or IPv6 address (client)");
static bool kcm_v6;
module_param_named(v6, kcm_v6, bool, 0444);
MODULE_PARM_DESC(v6, "listen on IPv6 (server)");
static ushort kcm_port = 18600;
module_param_named(port, kcm_port, ushort, 0444);
MODULE_PARM_DESC(port, "the RC port; UD takes the next one (default 18600)");

enum {
	KCM_TIMEOUT_S = 30,
	KCM_ACCEPT_S = 300,		/* the server, for its client to come */
	KCM_CONNECT_TRIES = 120,	/* the client's, 0.5 s apart, while the server starts */
	KCM_BUF = 128 * 1024,
	KCM_SEND_LEN = 4000,
	KCM_RDMA_LEN = 16 * 1024,
	KCM_SEND_OFF = 0,		/* the client's SEND source */
	KCM_WRITE_OFF = 16 * 1024,	/* where the client WRITEs from and into */
	KCM_READ_OFF = 32 * 1024,	/* where the server lays out what the client READs */
	KCM_MSG_OFF = 64 * 1024,	/* receive buffers, KCM_MSG_LEN each */
	KCM_MSG_LEN = 4096 + 40,	/* room for a datagram's GRH */
	KCM_RECVS = 8,
	KCM_DATAGRAMS = 8,
	KCM_UD_LEN = 1000,
	KCM_IMM = 0x5a5aa5a5,
};

/* The server's buffer, in the RC accept's private data. */
struct kcm_remote {
	__be64 addr;
	__be32 rkey;
} __packed;

struct kcm {
	const char *role;
	unsigned int pass, fail;
	char why[160];
	bool ud;			/* the UD connection, not the RC one */
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;		/* the connection's */
	/* The CM event awaited (ev_want) and the one that came (ev_got). */
	struct completion ev_done;
	int ev_want;
	int ev_got;
	struct completion disconnected;	/* the connection's DISCONNECTED came */
	struct kcm_remote remote;	/* RC client: from the accept */
	u32 peer_qpn;			/* UD server: the client's, from its request */
	u32 ud_qpn;			/* UD client: the reply's */
	u32 ud_qkey;
	struct ib_ah *ah;		/* UD client: made from the reply's path */
	int ah_err;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	u64 dma;
	bool mapped;
	struct ib_cqe send_cqe;
	struct completion send_done;
	struct ib_wc send_wc;
	struct ib_cqe recv_cqe[KCM_RECVS];
	struct completion recv_done;
	struct ib_wc recv_wc[KCM_RECVS];
};

static __printf(2, 3) bool kcm_fail(struct kcm *k, const char *fmt, ...)
{
	va_list ap;

	if (k->why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
	return false;
}

static bool kcm_report(struct kcm *k, const char *check, bool ok)
{
	if (ok) {
		k->pass++;
		pr_info("ok %u %s %s\n", k->pass + k->fail, k->role, check);
	} else {
		k->fail++;
		pr_info("not ok %u %s %s # %s\n", k->pass + k->fail, k->role, check,
			k->why[0] ? k->why : "(no detail)");
	}
	k->why[0] = '\0';
	return ok;
}

static u8 kcm_pat(u8 seed, u32 i)
{
	return (u8)(i * 131 + seed * 7 + (i >> 8));
}

static void kcm_fill(struct kcm *k, u32 off, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		k->buf[off + i] = kcm_pat(seed, i);
	ib_dma_sync_single_for_device(k->pd->device, k->dma, KCM_BUF, DMA_BIDIRECTIONAL);
}

static bool kcm_verify(struct kcm *k, u32 off, u32 len, u8 seed, const char *what)
{
	u32 i;

	ib_dma_sync_single_for_cpu(k->pd->device, k->dma, KCM_BUF, DMA_BIDIRECTIONAL);
	for (i = 0; i < len; i++)
		if (k->buf[off + i] != kcm_pat(seed, i))
			return kcm_fail(k, "%s: byte %u is %#x, expected %#x", what, i,
					k->buf[off + i], kcm_pat(seed, i));
	return true;
}

/* CM events */

static bool kcm_ev_error(enum rdma_cm_event_type e)
{
	return e == RDMA_CM_EVENT_ADDR_ERROR || e == RDMA_CM_EVENT_ROUTE_ERROR ||
	       e == RDMA_CM_EVENT_CONNECT_ERROR || e == RDMA_CM_EVENT_UNREACHABLE ||
	       e == RDMA_CM_EVENT_REJECTED || e == RDMA_CM_EVENT_DEVICE_REMOVAL;
}

/*
 * rdma_cm's handler (its work queue; it may sleep).  What an awaited event
 * carries is taken here: it is valid only during the call.
 */
static int kcm_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kcm *k = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (k->id)
			return 1;	/* one client only: rdma_cm destroys this id */
		k->id = id;
		if (k->ud && ev->param.ud.private_data_len >= sizeof(__be32))
			k->peer_qpn = be32_to_cpup(ev->param.ud.private_data);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (k->ud) {
			k->ud_qpn = ev->param.ud.qp_num;
			k->ud_qkey = ev->param.ud.qkey;
			k->ah = rdma_create_ah(k->pd, &ev->param.ud.ah_attr,
					       RDMA_CREATE_AH_SLEEPABLE);
			if (IS_ERR(k->ah)) {
				k->ah_err = PTR_ERR(k->ah);
				k->ah = NULL;
			}
		} else if (!kcm_server &&
			   ev->param.conn.private_data_len >= sizeof(k->remote)) {
			memcpy(&k->remote, ev->param.conn.private_data, sizeof(k->remote));
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		complete(&k->disconnected);
		break;
	default:
		break;
	}
	if (ev->event == READ_ONCE(k->ev_want) || kcm_ev_error(ev->event)) {
		WRITE_ONCE(k->ev_got, ev->event);
		complete(&k->ev_done);
	}
	return 0;
}

/* Before the call that brings event @want: it may come at once. */
static void kcm_expect(struct kcm *k, enum rdma_cm_event_type want)
{
	reinit_completion(&k->ev_done);
	WRITE_ONCE(k->ev_got, -1);
	WRITE_ONCE(k->ev_want, want);
}

static bool kcm_await_disconnect(struct kcm *k)
{
	return wait_for_completion_timeout(&k->disconnected, KCM_TIMEOUT_S * HZ) ||
	       kcm_fail(k, "no %s within %u s", rdma_event_msg(RDMA_CM_EVENT_DISCONNECTED),
			KCM_TIMEOUT_S);
}

static bool kcm_await(struct kcm *k, enum rdma_cm_event_type want, unsigned int secs)
{
	if (!wait_for_completion_timeout(&k->ev_done, secs * HZ))
		return kcm_fail(k, "no %s within %u s", rdma_event_msg(want), secs);
	if (READ_ONCE(k->ev_got) != want)
		return kcm_fail(k, "%s, waiting for %s", rdma_event_msg(READ_ONCE(k->ev_got)),
				rdma_event_msg(want));
	return true;
}

/* Completions */

static void kcm_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kcm *k = cq->cq_context;

	k->send_wc = *wc;
	complete(&k->send_done);
}

static void kcm_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kcm *k = cq->cq_context;
	int slot = wc->wr_cqe - k->recv_cqe;

	k->recv_wc[slot] = *wc;
	complete(&k->recv_done);
}

static bool kcm_wait_send(struct kcm *k, const char *what)
{
	if (!wait_for_completion_timeout(&k->send_done, KCM_TIMEOUT_S * HZ))
		return kcm_fail(k, "%s: no send completion", what);
	if (k->send_wc.status != IB_WC_SUCCESS)
		return kcm_fail(k, "%s: %s", what, ib_wc_status_msg(k->send_wc.status));
	return true;
}

static const struct ib_wc *kcm_wait_recv(struct kcm *k, int slot, const char *what)
{
	if (!wait_for_completion_timeout(&k->recv_done, KCM_TIMEOUT_S * HZ)) {
		kcm_fail(k, "%s: no receive completion", what);
		return NULL;
	}
	if (k->recv_wc[slot].status != IB_WC_SUCCESS) {
		kcm_fail(k, "%s: %s", what, ib_wc_status_msg(k->recv_wc[slot].status));
		return NULL;
	}
	return &k->recv_wc[slot];
}

/* Resources */

/* PD, CQ, buffer and QP on the id's device; @k->ud picks the QP type. */
static bool kcm_setup(struct kcm *k)
{
	struct ib_device *dev = k->id->device;
	struct ib_qp_init_attr qa = {
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = KCM_RECVS,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = k->ud ? IB_QPT_UD : IB_QPT_RC,
	};
	int ret, i;

	k->pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(k->pd)) {
		ret = PTR_ERR(k->pd);
		k->pd = NULL;
		return kcm_fail(k, "ib_alloc_pd: %d", ret);
	}
	k->cq = ib_alloc_cq(dev, k, 2 * KCM_RECVS + 16, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(k->cq)) {
		ret = PTR_ERR(k->cq);
		k->cq = NULL;
		return kcm_fail(k, "ib_alloc_cq: %d", ret);
	}
	k->buf = kzalloc(KCM_BUF, GFP_KERNEL);
	if (!k->buf)
		return kcm_fail(k, "no memory");
	k->dma = ib_dma_map_single(dev, k->buf, KCM_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, k->dma))
		return kcm_fail(k, "ib_dma_map_single failed");
	k->mapped = true;
	qa.send_cq = k->cq;
	qa.recv_cq = k->cq;
	ret = rdma_create_qp(k->id, k->pd, &qa);
	if (ret)
		return kcm_fail(k, "rdma_create_qp: %d", ret);
	k->send_cqe.done = kcm_send_done;
	for (i = 0; i < KCM_RECVS; i++)
		k->recv_cqe[i].done = kcm_recv_done;
	init_completion(&k->send_done);
	init_completion(&k->recv_done);
	return true;
}

/*
 * The connection's id goes first, after its QP: rdma_destroy_id() waits
 * for its handler, so no late event (a SIDR reply after a timeout) can
 * make an AH on the PD freed below.
 */
static void kcm_teardown(struct kcm *k)
{
	if (k->id && k->id->qp)
		rdma_destroy_qp(k->id);
	if (k->id)
		rdma_destroy_id(k->id);
	k->id = NULL;
	if (k->ah)
		rdma_destroy_ah(k->ah, RDMA_DESTROY_AH_SLEEPABLE);
	k->ah = NULL;
	if (k->mapped)
		ib_dma_unmap_single(k->pd->device, k->dma, KCM_BUF, DMA_BIDIRECTIONAL);
	k->mapped = false;
	kfree(k->buf);
	k->buf = NULL;
	if (k->cq)
		ib_free_cq(k->cq);
	k->cq = NULL;
	if (k->pd)
		ib_dealloc_pd(k->pd);
	k->pd = NULL;
}

/* The server's listening id goes before its connection: no client comes after. */
static void kcm_unlisten(struct kcm *k)
{
	if (k->listen_id)
		rdma_destroy_id(k->listen_id);
	k->listen_id = NULL;
}

static bool kcm_post_recvs(struct kcm *k)
{
	int i, ret;

	for (i = 0; i < KCM_RECVS; i++) {
		struct ib_sge sge = {
			.addr = k->dma + KCM_MSG_OFF + i * KCM_MSG_LEN,
			.length = KCM_MSG_LEN,
			.lkey = k->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_cqe = &k->recv_cqe[i],
			.sg_list = &sge,
			.num_sge = 1,
		};

		ret = ib_post_recv(k->id->qp, &wr, NULL);
		if (ret)
			return kcm_fail(k, "ib_post_recv: %d", ret);
	}
	return true;
}

/* One signaled WR of @len bytes of the buffer at @off; waits for it. */
static bool kcm_post_send(struct kcm *k, struct ib_send_wr *wr, u32 off, u32 len,
			  const char *what)
{
	struct ib_sge sge = {
		.addr = k->dma + off,
		.length = len,
		.lkey = k->pd->local_dma_lkey,
	};
	int ret;

	reinit_completion(&k->send_done);
	wr->wr_cqe = &k->send_cqe;
	wr->sg_list = len ? &sge : NULL;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(k->id->qp, wr, NULL);
	if (ret)
		return kcm_fail(k, "%s: ib_post_send: %d", what, ret);
	return kcm_wait_send(k, what);
}

/* Server */

static bool kcm_listen(struct kcm *k, enum rdma_ucm_port_space ps, u16 port)
{
	struct sockaddr_storage ss = {};
	int ret;

	if (kcm_v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
	}
	k->listen_id = rdma_create_id(&init_net, kcm_cm_handler, k, ps,
				      k->ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(k->listen_id)) {
		ret = PTR_ERR(k->listen_id);
		k->listen_id = NULL;
		return kcm_fail(k, "rdma_create_id: %d", ret);
	}
	ret = rdma_bind_addr(k->listen_id, (struct sockaddr *)&ss);
	if (!ret) {
		kcm_expect(k, RDMA_CM_EVENT_CONNECT_REQUEST);
		ret = rdma_listen(k->listen_id, 1);
	}
	if (ret)
		return kcm_fail(k, "bind/listen on port %u: %d", port, ret);
	pr_info("# %s listening on port %u\n", k->role, port);
	return kcm_await(k, RDMA_CM_EVENT_CONNECT_REQUEST, KCM_ACCEPT_S);
}

static bool kcm_accept(struct kcm *k, const void *pdata, u8 plen)
{
	struct rdma_conn_param p = {
		.private_data = pdata,
		.private_data_len = plen,
		.responder_resources = 4,
		.initiator_depth = 4,
		.rnr_retry_count = 7,
	};
	int ret;

	if (k->ud)
		p.qp_num = k->id->qp->qp_num;
	else
		kcm_expect(k, RDMA_CM_EVENT_ESTABLISHED);
	/* Outside its event handler, rdma_accept() wants the handler lock held. */
	rdma_lock_handler(k->id);
	ret = rdma_accept(k->id, &p);
	rdma_unlock_handler(k->id);
	if (ret)
		return kcm_fail(k, "rdma_accept: %d", ret);
	return k->ud || kcm_await(k, RDMA_CM_EVENT_ESTABLISHED, KCM_TIMEOUT_S);
}

static void kcm_server_rc(struct kcm *k)
{
	struct kcm_remote me;
	const struct ib_wc *wc;
	bool ok;

	ok = kcm_listen(k, RDMA_PS_TCP, kcm_port) && kcm_setup(k) && kcm_post_recvs(k);
	if (ok) {
		kcm_fill(k, KCM_READ_OFF, KCM_RDMA_LEN, 3);
		me.addr = cpu_to_be64(k->dma);
		me.rkey = cpu_to_be32(k->pd->unsafe_global_rkey);
		ok = kcm_accept(k, &me, sizeof(me));
	}
	if (!kcm_report(k, "rc_accept", ok))
		goto out;

	wc = kcm_wait_recv(k, 0, "SEND");
	ok = wc && (wc->byte_len == KCM_SEND_LEN ||
		    kcm_fail(k, "byte_len %u, expected %u", wc->byte_len, KCM_SEND_LEN)) &&
	     kcm_verify(k, KCM_MSG_OFF, KCM_SEND_LEN, 1, "SEND");
	kcm_report(k, "rc_send", ok);

	wc = kcm_wait_recv(k, 1, "SEND with immediate behind the WRITE");
	ok = wc && (((wc->wc_flags & IB_WC_WITH_IMM) &&
		     be32_to_cpu(wc->ex.imm_data) == KCM_IMM) ||
		    kcm_fail(k, "immediate missing or wrong")) &&
	     kcm_verify(k, KCM_WRITE_OFF, KCM_RDMA_LEN, 2, "WRITE");
	kcm_report(k, "rc_write", ok);

	kcm_report(k, "rc_disconnect", kcm_await_disconnect(k));
out:
	kcm_unlisten(k);
	kcm_teardown(k);
}

static void kcm_server_ud(struct kcm *k)
{
	const struct ib_wc *wc;
	char name[32];
	bool ok;
	int i;

	ok = kcm_listen(k, RDMA_PS_UDP, kcm_port + 1) && kcm_setup(k) && kcm_post_recvs(k) &&
	     kcm_accept(k, NULL, 0);
	if (!kcm_report(k, "ud_accept", ok))
		goto out;
	for (i = 0; i < KCM_DATAGRAMS; i++) {
		snprintf(name, sizeof(name), "ud_recv_%d", i);
		wc = kcm_wait_recv(k, i, name);
		ok = wc &&
		     ((wc->wc_flags & IB_WC_GRH) || kcm_fail(k, "IB_WC_GRH not set")) &&
		     (wc->src_qp == k->peer_qpn ||
		      kcm_fail(k, "src_qp %#x, expected %#x", wc->src_qp, k->peer_qpn)) &&
		     (wc->byte_len == 40 + KCM_UD_LEN ||
		      kcm_fail(k, "byte_len %u, expected 40 + %u", wc->byte_len, KCM_UD_LEN)) &&
		     kcm_verify(k, KCM_MSG_OFF + i * KCM_MSG_LEN + 40, KCM_UD_LEN, 10 + i, name);
		kcm_report(k, name, ok);
	}
out:
	kcm_unlisten(k);
	kcm_teardown(k);
}

/* Client */

/* Resolve, set up and connect; retried while the server is not listening. */
static bool kcm_connect(struct kcm *k, enum rdma_ucm_port_space ps, u16 port)
{
	struct sockaddr_storage dst = {};
	__be32 qpn;
	int ret, tries;

	if (in4_pton(kcm_peer, -1, (u8 *)&((struct sockaddr_in *)&dst)->sin_addr, -1, NULL)) {
		((struct sockaddr_in *)&dst)->sin_family = AF_INET;
		((struct sockaddr_in *)&dst)->sin_port = htons(port);
	} else if (in6_pton(kcm_peer, -1, (u8 *)&((struct sockaddr_in6 *)&dst)->sin6_addr, -1,
			    NULL)) {
		((struct sockaddr_in6 *)&dst)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&dst)->sin6_port = htons(port);
	} else {
		return kcm_fail(k, "peer '%s' is not an address", kcm_peer);
	}
	for (tries = 0; tries < KCM_CONNECT_TRIES; tries++) {
		struct rdma_conn_param p = {
			.responder_resources = 4,
			.initiator_depth = 4,
			.retry_count = 7,
			.rnr_retry_count = 7,
		};

		k->why[0] = '\0';
		k->id = rdma_create_id(&init_net, kcm_cm_handler, k, ps,
				       k->ud ? IB_QPT_UD : IB_QPT_RC);
		if (IS_ERR(k->id)) {
			ret = PTR_ERR(k->id);
			k->id = NULL;
			return kcm_fail(k, "rdma_create_id: %d", ret);
		}
		kcm_expect(k, RDMA_CM_EVENT_ADDR_RESOLVED);
		ret = rdma_resolve_addr(k->id, NULL, (struct sockaddr *)&dst, 2000);
		if (ret || !kcm_await(k, RDMA_CM_EVENT_ADDR_RESOLVED, KCM_TIMEOUT_S))
			goto fail;
		kcm_expect(k, RDMA_CM_EVENT_ROUTE_RESOLVED);
		ret = rdma_resolve_route(k->id, 2000);
		if (ret || !kcm_await(k, RDMA_CM_EVENT_ROUTE_RESOLVED, KCM_TIMEOUT_S))
			goto fail;
		if (!kcm_setup(k))
			goto fail;
		if (k->ud) {
			qpn = cpu_to_be32(k->id->qp->qp_num);
			p.private_data = &qpn;
			p.private_data_len = sizeof(qpn);
		}
		kcm_expect(k, RDMA_CM_EVENT_ESTABLISHED);
		ret = rdma_connect(k->id, &p);
		if (!ret && kcm_await(k, RDMA_CM_EVENT_ESTABLISHED, KCM_TIMEOUT_S))
			return true;
		if (ret)
			kcm_fail(k, "rdma_connect: %d", ret);
fail:
		if (ret && !k->why[0])
			kcm_fail(k, "rdma_cm call failed: %d", ret);
		kcm_teardown(k);
		/* Only a server not listening yet is waited for. */
		if (READ_ONCE(k->ev_got) != RDMA_CM_EVENT_REJECTED &&
		    READ_ONCE(k->ev_got) != RDMA_CM_EVENT_UNREACHABLE)
			return false;
		msleep(500);
	}
	return false;
}

static void kcm_client_rc(struct kcm *k)
{
	struct ib_rdma_wr rw = {};
	struct ib_send_wr wr = {};
	bool ok;

	if (!kcm_report(k, "rc_connect", kcm_connect(k, RDMA_PS_TCP, kcm_port)))
		goto out;

	kcm_fill(k, KCM_SEND_OFF, KCM_SEND_LEN, 1);
	wr.opcode = IB_WR_SEND;
	kcm_report(k, "rc_send", kcm_post_send(k, &wr, KCM_SEND_OFF, KCM_SEND_LEN, "SEND"));

	kcm_fill(k, KCM_WRITE_OFF, KCM_RDMA_LEN, 2);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.remote_addr = be64_to_cpu(k->remote.addr) + KCM_WRITE_OFF;
	rw.rkey = be32_to_cpu(k->remote.rkey);
	ok = kcm_post_send(k, &rw.wr, KCM_WRITE_OFF, KCM_RDMA_LEN, "WRITE");
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(KCM_IMM);
	ok = ok && kcm_post_send(k, &wr, 0, 0, "SEND with immediate");
	kcm_report(k, "rc_write", ok);

	memset(&rw, 0, sizeof(rw));
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.remote_addr = be64_to_cpu(k->remote.addr) + KCM_READ_OFF;
	rw.rkey = be32_to_cpu(k->remote.rkey);
	ok = kcm_post_send(k, &rw.wr, KCM_READ_OFF, KCM_RDMA_LEN, "READ") &&
	     kcm_verify(k, KCM_READ_OFF, KCM_RDMA_LEN, 3, "READ");
	kcm_report(k, "rc_read", ok);

	ok = !rdma_disconnect(k->id) || kcm_fail(k, "rdma_disconnect failed");
	kcm_report(k, "rc_disconnect", ok && kcm_await_disconnect(k));
out:
	kcm_teardown(k);
}

static void kcm_client_ud(struct kcm *k)
{
	struct ib_ud_wr uw;
	char name[32];
	bool ok;
	int i;

	ok = kcm_connect(k, RDMA_PS_UDP, kcm_port + 1) &&
	     (k->ah || kcm_fail(k, "rdma_create_ah from the reply: %d", k->ah_err));
	if (!kcm_report(k, "ud_connect", ok))
		goto out;
	for (i = 0; i < KCM_DATAGRAMS; i++) {
		snprintf(name, sizeof(name), "ud_send_%d", i);
		kcm_fill(k, KCM_SEND_OFF, KCM_UD_LEN, 10 + i);
		memset(&uw, 0, sizeof(uw));
		uw.wr.opcode = IB_WR_SEND;
		uw.ah = k->ah;
		uw.remote_qpn = k->ud_qpn;
		uw.remote_qkey = k->ud_qkey;
		kcm_report(k, name, kcm_post_send(k, &uw.wr, KCM_SEND_OFF, KCM_UD_LEN, name));
	}
out:
	kcm_teardown(k);
}

static int __init kcm_init(void)
{
	struct kcm *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return -ENOMEM;
	k->role = kcm_server ? "server" : "client";
	pr_info("KTAP version 1\n");
	init_completion(&k->ev_done);
	init_completion(&k->disconnected);
	if (kcm_server) {
		kcm_server_rc(k);
		k->ud = true;
		kcm_server_ud(k);
	} else {
		kcm_client_rc(k);
		k->ud = true;
		kcm_client_ud(k);
	}
	pr_info("# %s: %u passed, %u failed\n", k->role, k->pass, k->fail);
	pr_info("1..%u\n", k->pass + k->fail);
	kfree(k);
	return 0;
}

static void __exit kcm_exit(void)
{
}

module_init(kcm_init);
module_exit(kcm_exit);

MODULE_DESCRIPTION("Kernel rdma_cm consumer that tests a soft-RoCE provider (sroce, rdma_rxe)");
MODULE_LICENSE("GPL");
