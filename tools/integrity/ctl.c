// SPDX-License-Identifier: GPL-2.0
/*
 * ctl.c - the TCP control channel: connecting it, fixed-size tagged
 * messages, the HELLO exchange and the phase handshakes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "integrity.h"

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

int msg_send(struct ctx *c, const char *tag, const uint64_t *v, unsigned nv,
	     const uint8_t *gid)
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
int msg_recv(struct ctx *c, const char *tag, uint64_t *v, unsigned nv,
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

int tcp_server(struct ctx *c)
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

int tcp_client(struct ctx *c)
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
int phase_sync(struct ctx *c, const char *tag)
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

/*
 * Exchange QP information: magic, version, setup status, QPN, PSN, rkey,
 * buffer address and length, active MTU and LID, plus the GID.  Sent even
 * if the local setup failed, so that the peer fails fast.
 */
int exchange_info(struct ctx *c)
{
	uint64_t v[8] = {
		PROTO_MAGIC,
		(uint64_t)PROTO_VERSION << 32 | (uint64_t)mode_id(c) << 8 |
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
	if (((pv[1] >> 8) & 0xff) != mode_id(c)) {
		unsigned pm = (pv[1] >> 8) & 0xff;

		snprintf(abort_reason, sizeof(abort_reason),
			 "peer runs mode %s, this side %s (-m must match)",
			 pm < n_modes ? modes[pm].name : "?", c->mode->name);
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
