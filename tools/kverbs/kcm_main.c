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
#include "kcm.h"

bool kcm_server;
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
