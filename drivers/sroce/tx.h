/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tx.c: the transmit path: route, IP/UDP headers, ICRC, loopback.
 */
#ifndef SROCE_TX_H
#define SROCE_TX_H

#include <linux/skbuff.h>
#include <sroce/core_abi.h>
#include "av.h"

struct dst_entry;
struct socket;
struct sroce_qp;
struct sroce_mr;
struct sroce_hdrs;

/*
 * tx.c: build and send packets.  sroce_tx_alloc() makes an skb with the
 * transport headers of @h and room for @len payload bytes (and the pad),
 * at *payload; the caller fills it, then sroce_tx_send() (which consumes
 * the skb) or sroce_tx_abort().
 */
struct sroce_hdrs;
struct sroce_tx {
	struct dst_entry *dst;
	struct socket *sock;
	unsigned int ip_len;
	unsigned int tlen;		/* transport headers + payload + pad + ICRC */
	bool ipv6;
};

int sroce_tx_qp_init(struct sroce_qp *qp);
void sroce_tx_qp_cleanup(struct sroce_qp *qp);
bool sroce_tx_full(const struct sroce_qp *qp);
void sroce_tx_exit(void);
struct sk_buff *sroce_tx_alloc(struct sroce_qp *qp, const struct sroce_av *av,
			       const struct sroce_hdrs *h, u32 len, u8 **payload,
			       struct sroce_tx *tx);
int sroce_tx_send(struct sroce_qp *qp, const struct sroce_av *av, struct sk_buff *skb,
		  struct sroce_tx *tx);
void sroce_tx_abort(struct sk_buff *skb, struct sroce_tx *tx);
int sroce_tx_response(struct sroce_qp *qp, const struct sroce_resp_desc *d,
		      struct sroce_mr *mr, u64 mr_va);

#endif /* SROCE_TX_H */
