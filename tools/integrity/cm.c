// SPDX-License-Identifier: GPL-2.0
/*
 * cm.c - connecting the RC QP pair through rdma_cm (-R).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "integrity.h"

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
int cm_listen(struct ctx *c)
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
int cm_connect(struct ctx *c)
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
int cm_check_peer(struct ctx *c)
{
	if (c->peer.qpn == c->cm_dqpn && c->peer.psn == c->cm_rq_psn)
		return 0;
	fail(ST_SETUP, "rdma_cm connected this QP to QPN 0x%06x (receive PSN 0x%06x), but the TCP peer's QP is 0x%06x (send PSN 0x%06x)",
	     c->cm_dqpn, c->cm_rq_psn, c->peer.qpn, c->peer.psn);
	return -1;
}

/* Teardown, step 1: disconnect (bounded wait) and destroy the QP. */
void cm_disconnect(struct ctx *c)
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
void cm_close(struct ctx *c)
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
