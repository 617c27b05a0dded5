/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcm.h - what the files of sroce_kcm.ko share (kcm_main.c describes the
 * module): its types, and the functions one file has of another.
 */
#ifndef SROCE_KCM_H
#define SROCE_KCM_H

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

/* kcm_main.c */
extern bool kcm_server;

/* kcm_verbs.c */
__printf(2, 3) bool kcm_fail(struct kcm *k, const char *fmt, ...);
bool kcm_report(struct kcm *k, const char *check, bool ok);
void kcm_fill(struct kcm *k, u32 off, u32 len, u8 seed);
bool kcm_verify(struct kcm *k, u32 off, u32 len, u8 seed, const char *what);
int kcm_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
void kcm_expect(struct kcm *k, enum rdma_cm_event_type want);
bool kcm_await_disconnect(struct kcm *k);
bool kcm_await(struct kcm *k, enum rdma_cm_event_type want, unsigned int secs);
const struct ib_wc *kcm_wait_recv(struct kcm *k, int slot, const char *what);
bool kcm_setup(struct kcm *k);
void kcm_teardown(struct kcm *k);
void kcm_unlisten(struct kcm *k);
bool kcm_post_recvs(struct kcm *k);
bool kcm_post_send(struct kcm *k, struct ib_send_wr *wr, u32 off, u32 len,
		   const char *what);

#endif /* SROCE_KCM_H */
