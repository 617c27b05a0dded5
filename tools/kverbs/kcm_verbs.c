// SPDX-License-Identifier: GPL-2.0
/*
 * kcm_verbs.c - what the server and the client of sroce_kcm.ko share
 * (kcm_main.c describes the module): reporting, the data's pattern, the CM
 * events, completions, and the PD, CQ, buffer and QP of a connection.
 */
#include "kcm.h"

__printf(2, 3) bool kcm_fail(struct kcm *k, const char *fmt, ...)
{
	va_list ap;

	if (k->why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
	return false;
}

bool kcm_report(struct kcm *k, const char *check, bool ok)
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

void kcm_fill(struct kcm *k, u32 off, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		k->buf[off + i] = kcm_pat(seed, i);
	ib_dma_sync_single_for_device(k->pd->device, k->dma, KCM_BUF, DMA_BIDIRECTIONAL);
}

bool kcm_verify(struct kcm *k, u32 off, u32 len, u8 seed, const char *what)
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
int kcm_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
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
void kcm_expect(struct kcm *k, enum rdma_cm_event_type want)
{
	reinit_completion(&k->ev_done);
	WRITE_ONCE(k->ev_got, -1);
	WRITE_ONCE(k->ev_want, want);
}

bool kcm_await_disconnect(struct kcm *k)
{
	return wait_for_completion_timeout(&k->disconnected, KCM_TIMEOUT_S * HZ) ||
	       kcm_fail(k, "no %s within %u s", rdma_event_msg(RDMA_CM_EVENT_DISCONNECTED),
			KCM_TIMEOUT_S);
}

bool kcm_await(struct kcm *k, enum rdma_cm_event_type want, unsigned int secs)
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

const struct ib_wc *kcm_wait_recv(struct kcm *k, int slot, const char *what)
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
bool kcm_setup(struct kcm *k)
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
void kcm_teardown(struct kcm *k)
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
void kcm_unlisten(struct kcm *k)
{
	if (k->listen_id)
		rdma_destroy_id(k->listen_id);
	k->listen_id = NULL;
}

bool kcm_post_recvs(struct kcm *k)
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
bool kcm_post_send(struct kcm *k, struct ib_send_wr *wr, u32 off, u32 len,
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
