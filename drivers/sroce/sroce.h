/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: internal interfaces of the driver (C side).
 *
 * One struct sroce_dev per `rdma link add ... type sroce`, bound to one
 * netdev.  The UDP 4791 tunnel sockets are global and live from module
 * load to unload.
 *
 * Locking: every lock is described beside the fields it guards, with the
 * contexts that take it.  The engines of a QP (today the responder) run
 * only in the QP's task (task.c); fields marked "owned by the QP task"
 * need no lock, because only a pass of the task touches them, or qp.c
 * while the task is stopped.  Lock order, outermost first:
 * qp->modify_lock, qp->state_lock, resp->rxq.lock, qp->task.lock.  The
 * CQ, SRQ and atomic locks are taken with no QP spinlock held.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "params.h"
#include "dma.h"
#include "task.h"
#include "sq.h"
#include <rdma/rdma_user_rxe.h>	/* the librxe ring/WQE/CQE ABI */

#include <sroce/core_abi.h>
#include <sroce/uc_abi.h>

#define SROCE_LINK_TYPE "sroce"
#define SROCE_UVERBS_ABI_VERSION 2

#include "lists.h"

#define SROCE_RX_DROP_ENUM(NAME, lname, flags) SROCE_RX_DROP_##NAME,
enum sroce_drop {
	SROCE_RX_DROP_LIST(SROCE_RX_DROP_ENUM)
	SROCE_RX_DROP_COUNT,
};

#undef SROCE_RX_DROP_ENUM

/* Per-device counters, exported through `rdma statistic`. */
enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_DROP_FIRST,
	SROCE_CNT_RX_DROP_LAST = SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_COUNT - 1,
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_ERRORS,
	SROCE_CNT_RX_BATCHES,		/* responder stage runs with requests (RX batches) */
	SROCE_CNT_RX_BATCH_PACKETS,	/* request packets they carried */
	SROCE_CNT_RX_PAGED,		/* requests with payload in skb frags (not linearized) */
	SROCE_CNT_SQ_PACKETS,		/* request packets sent */
	SROCE_CNT_SQ_RETRANSMITS,	/* of which retransmissions */
	SROCE_CNT_SQ_TIMEOUTS,		/* retransmit timer expiries that went back */
	SROCE_CNT_SQ_RNR_WAITS,		/* RNR NAK waits started */
	SROCE_CNT_SQ_TX_THROTTLED,	/* requester passes ended on packets not yet transmitted */
	SROCE_CNT_SQ_TIMER_GRACE,	/* retransmit expiries given a run-on (timers.c) */
	SROCE_CNT_UD_RX_ERRORS,		/* UD receives completed in error (too long, bad WQE) */
	/* The core's struct sroce_resp_stats, summed over QPs, field by field. */
	SROCE_CNT_CORE_FIRST,
	SROCE_CNT_CORE_LAST = SROCE_CNT_CORE_FIRST +
			      sizeof(struct sroce_resp_stats) / sizeof(u64) - 1,
	/* The requester and completer cores' struct sroce_sq_stats, likewise. */
	SROCE_CNT_SQ_CORE_FIRST,
	SROCE_CNT_SQ_CORE_LAST = SROCE_CNT_SQ_CORE_FIRST +
				 sizeof(struct sroce_sq_stats) / sizeof(u64) - 1,
	SROCE_CNT_COUNT,
};

struct sroce_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	/* Referenced by the core (ib_device_set_netdev) while registered. */
	struct net_device *ndev;
	struct ib_device_attr attr;
	enum ib_mtu active_mtu;
	struct xarray qp_xa;		/* QPN -> struct sroce_qp, RCU lookups */
	u32 qp_next;			/* cyclic QPN allocation hint (xa_lock) */
	struct xarray mr_xa;		/* key >> 8 -> struct sroce_mr or a window (mw.c), RCU */
	u32 mr_next;			/* (xa_lock of mr_xa) */
	struct xarray ah_xa;		/* AH number -> struct sroce_ah_av, RCU lookups (ah.c) */
	u32 ah_next;			/* (xa_lock of ah_xa) */
	/*
	 * Guards the 8 bytes of MR memory under an ATOMIC: its read, compare
	 * and write are one step against every other QP's (sroce_mr_atomic).
	 * Taken with BHs off, from QP tasks only.
	 */
	spinlock_t atomic_lock;
	/* Guards each MR's num_mw and dying (mw.c, mr.c); BHs off. */
	spinlock_t mw_lock;
	atomic64_t counters[SROCE_CNT_COUNT];
	struct list_head list;		/* in sroce_devs (device.c) while registered */
	/* Multicast groups (mcast.c): the list is RCU, mcg_lock its writers' mutex. */
	struct mutex mcg_lock;
	struct list_head mcg_list;
	u32 nmcg;
};

#define SROCE_MCAST_QPN 0xffffff	/* BTH DestQP of a multicast datagram */

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

/* --- queue.c: the librxe shared rings (struct rxe_queue_buf) ------------ */

/* A ring buffer's mmap entry; the buffer is freed when both the object
 * and every user mapping are gone (ops.mmap_free).
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;			/* vmalloc_user() */
	size_t size;
};

/*
 * One ring.  The header in buf is user-writable: the kernel keeps its own
 * copies of the geometry and of its own index, and masks every index it
 * reads from the header.  FROM_CLIENT rings (SQ, RQ, SRQ): the kernel is
 * the consumer; TO_CLIENT rings (CQ): the kernel is the producer.
 */
struct sroce_queue {
	struct rxe_queue_buf *buf;
	struct sroce_mmap_entry *mmap;
	u32 log2_elem_size;
	u32 index_mask;
	u32 index;			/* kernel's own index (consumer or producer) */
};

/* --- cq.c -------------------------------------------------------------- */

struct sroce_cq {
	struct ib_cq ibcq;
	/*
	 * lock guards queue (its producer index, and the ring itself, which
	 * resize replaces) and notify.  Taken with interrupts saved: CQEs are
	 * posted by QP tasks and by modify_qp's flush, resize_cq and
	 * req_notify_cq take it in process context.  Never held across
	 * comp_handler or event_handler.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u8 notify;			/* 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED */
	/*
	 * Fixed at create: a kernel CQ's slots hold a struct ib_wc, which
	 * poll_cq copies out under lock; a user CQ's a struct ib_uverbs_wc.
	 */
	bool is_kernel;
	u32 cqe_size;
};

/* --- ah.c --------------------------------------------------------------- */

/*
 * What a UD send takes from an address handle: its path, copied into
 * each WQE when the requester fetches it (wqe.c), looked up by number
 * under RCU.  Separate from the struct ib_ah, which ib_core frees as soon
 * as destroy_ah returns, so a lookup racing the destroy reads memory that
 * an RCU grace period keeps.
 */
struct sroce_ah_av {
	struct sroce_av av;
	const struct sroce_pd *pd;	/* compared only: a WQE's AH must be its QP's PD's */
	struct rcu_head rcu;
};

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_ah_av *av;
	u32 ah_num;			/* 1..SROCE_MAX_AH: librxe's WQEs name the AH by it */
};

/* --- mr.c --------------------------------------------------------------- */

struct sroce_pd {
	struct ib_pd ibpd;
};

/*
 * USER: pinned user pages.  DMA (get_dma_mr): the kernel's own memory,
 * addressed by the kernel virtual addresses that virtual DMA hands out
 * (ib_dma_map_*()); every address is checked against the direct map.
 */
enum sroce_mr_kind {
	SROCE_MR_USER,
	SROCE_MR_DMA,
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_dev *sdev;
	enum sroce_mr_kind kind;
	struct ib_umem *umem;
	struct page **pages;		/* the umem's pages, in order */
	unsigned long npages;
	unsigned int first_offset;	/* iova's offset in pages[0] */
	u64 iova;
	u64 length;
	int access;			/* IB_ACCESS_* */
	refcount_t refs;		/* lookups from the QP tasks */
	u32 num_mw;			/* windows bound onto it (sdev->mw_lock) */
	bool dying;			/* being deregistered: no window binds (mw_lock) */
	struct completion released;	/* refs reached zero */
	struct rcu_head rcu;
};

/* --- resp.c: the responder shim around the core -------------------------- */

/* A receive WQE copied out of the RQ/SRQ ring and validated. */
struct sroce_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;			/* sum of the SGE lengths */
	struct rxe_sge sge[SROCE_MAX_SGE];
};

/*
 * The responder.  rxq is the only part that other contexts touch; the
 * rest is owned by the QP task.
 */
struct sroce_resp {
	/*
	 * Request packets waiting for the QP task, each holding a QP
	 * reference.  rxq.lock guards the list: recv.c appends under
	 * qp->state_lock in softirq; the task's responder stage takes a batch
	 * off with BHs off; qp.c purges it with the task stopped.
	 */
	struct sk_buff_head rxq;
	/* Owned by the QP task from here on. */
	struct sroce_resp_qp core;	/* the C++ core's state */
	struct sroce_rd_res *res;	/* max_dest_rd_atomic entries */
	u32 nres;
	struct sroce_resp_stats seen;	/* core counters already added to the device */
	/* The message being received (multi-packet SEND or WRITE). */
	bool have_wqe;
	struct sroce_recv_wqe wqe;
	struct sroce_cursor place;	/* over wqe.sge, while have_wqe */
	u32 recv_offset;		/* bytes of the message placed so far */
	u64 write_va;			/* next WRITE address */
	u32 write_rkey;
	u32 write_resid;
	struct sroce_uc_state uc;	/* a UC QP's receive state (uc.c) */
};

/* --- qp.c --------------------------------------------------------------- */

struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_pd *pd;
	/*
	 * lock guards queue (its consumer index, and the ring itself, which
	 * resize replaces) and limit.  Taken with interrupts saved, by the
	 * responder stages of every QP using the SRQ and by modify/query_srq.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u32 limit;
	u32 max_sge;			/* fixed at create, as srq_num */
	u32 srq_num;
	/*
	 * Fixed at create: a kernel SRQ's ring is a kernel ring that
	 * post_srq_recv fills under lock (kverbs.c).
	 */
	bool is_kernel;
};

/*
 * The attributes a pass of the QP task works with, copied from the QP's
 * under state_lock when the pass starts (sroce_qp_snapshot()), so that
 * transmit and access checks take no lock per packet.
 */
struct sroce_qp_view {
	struct sroce_av av;
	u32 dest_qpn;
	int access_flags;
	u32 qkey;
};

struct sroce_qp {
	struct ib_qp ibqp;
	/* Fixed from create to destroy. */
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_srq *srq;
	struct sroce_queue sq;
	u32 sq_max_sge;
	u32 sq_max_inline;
	u32 rq_max_sge;
	enum ib_sig_type sq_sig_type;
	/*
	 * A kernel QP (created with no udata): its rings are kernel rings
	 * (queue.c) that post_send and post_recv fill under sq_lock and
	 * rq_lock, taken with interrupts saved, from any context.  A post only
	 * queues and schedules the task (kverbs.c).
	 */
	bool is_kernel;
	spinlock_t sq_lock;		/* a kernel SQ's client (producer) side */
	spinlock_t rq_lock;		/* a kernel RQ's client (producer) side */
	/* Owned by the QP task: the RQ's consumer index (unused with an SRQ). */
	struct sroce_queue rq;
	/*
	 * Serialises modify_qp calls (process context), so a transition is
	 * checked against the state it is applied to.  Held across the task
	 * stop and start and the engine hooks between them.
	 */
	struct mutex modify_lock;
	/*
	 * state_lock guards state and every attribute from state to
	 * max_dest_rd_atomic.  Writers (qp.c only): modify_qp and destroy, in
	 * process context with interrupts saved, and sroce_qp_error() in the
	 * QP task with BHs off.  Readers: recv.c in softirq (state and av,
	 * held across queueing the packet), query_qp, sroce_qp_snapshot() at
	 * the start of a pass.  Under modify_lock, modify_qp and the engine
	 * hooks it calls may read the attributes without state_lock: only
	 * modify_qp writes them.
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct sroce_av av;
	u32 dest_qpn;
	u32 path_mtu;			/* bytes */
	u32 rq_psn;
	u32 sq_psn;
	int access_flags;		/* IB_ACCESS_REMOTE_* */
	u32 qkey;			/* UD: IB_QP_QKEY */
	u8 min_rnr_timer;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	/*
	 * The initiator and responder depths exactly as modify_qp set them,
	 * as query_qp reports them.  The requester keeps to max_rd_atomic
	 * (IBA 9.7.6.1, SROCE_SQR_ORD; stock rxe rounds it up to a power of
	 * two: set to 3, it has 4 READs on the wire); the responder's
	 * resources are rounded up (resp.c).
	 * 0 acts as 1, as in rxe (sroce_rd_atomic_use()).
	 */
	u32 max_rd_atomic;
	u32 max_dest_rd_atomic;
	/* Owned by the QP task, refreshed at the start of each pass. */
	struct sroce_qp_view view;
	/*
	 * The route of view.av.  Per CPU: used by the QP task with BHs off
	 * (tx.c); modify_qp invalidates it with dst_cache_reset(), which is
	 * safe against a concurrent user.
	 */
	struct dst_cache dst_cache;
	struct sroce_task task;		/* its lock: see task.h */
	struct sroce_resp resp;
	struct sroce_sqs sqs;		/* requester and completer; rxq and timers see sq.h */
	refcount_t refs;		/* lookups from the receive path (atomic) */
	struct completion released;
	/*
	 * Packets handed to the IP stack and not yet freed by it (each holds
	 * a reference): the requester stops at SROCE_TX_INFLIGHT_HIGH rather
	 * than overrun the qdisc, and is scheduled again at ..._LOW.
	 */
	atomic_t tx_inflight;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/* A UD QP (GSI is one too): datagrams, no connection. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline bool sroce_qp_is_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

/*
 * UD and UC: nothing is acknowledged, and a local send error moves the
 * QP to SQE, not Error (IBA 10.3.1).
 */
static inline bool sroce_qp_unreliable(const struct sroce_qp *qp)
{
	return sroce_qp_is_ud(qp) || sroce_qp_is_uc(qp);
}

/* An initiator or responder depth as the engines use it: 0 acts as 1. */
static inline u32 sroce_rd_atomic_use(u32 depth)
{
	return max_t(u32, depth, 1);
}

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

/* --- recv.c / tx.c / icrc.c: the wire ------------------------------------ */

#define SROCE_ICRC_SIZE 4		/* RoCEv2 ICRC trailer */

/*
 * A received packet, parsed and validated by recv.c, in skb->cb.  Offsets
 * are from skb->data, which recv.c leaves pointing at the BTH.
 */
struct sroce_pkt {
	struct sroce_qp *qp;		/* referenced; the consumer puts it */
	u32 psn;
	u8 opcode;
	u8 ackreq;
	u8 se;				/* solicited event */
	u8 has_imm;			/* ImmDt present (imm_data valid) */
	u8 has_inv;			/* IETH present (imm_data is the rkey) */
	u8 pad_;
	u16 atmeth_off;			/* AtomicETH offset, 0 if none */
	__be32 imm_data;		/* ImmDt or IETH, as received */
	u32 payload_off;		/* payload starts here */
	u32 payload_len;		/* pad and ICRC excluded */
	union {
		struct {
			u64 reth_va;		/* RETH or AtomicETH address */
			u32 reth_rkey;
			u32 reth_len;		/* RETH DMA length */
		};
		struct {			/* UD: the DETH (no RETH) */
			u32 deth_qkey;
			u32 deth_src_qpn;
		};
	};
};

static inline struct sroce_pkt *sroce_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_pkt) > sizeof(skb->cb));
	return (struct sroce_pkt *)skb->cb;
}

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

/* device.c */
extern struct rdma_link_ops sroce_link_ops;
extern struct notifier_block sroce_netdev_notifier;
struct sroce_dev *sroce_get_dev_from_net(struct net_device *ndev);
void sroce_unregister_all(void);
void sroce_set_mtu(struct sroce_dev *sdev, unsigned int ndev_mtu);

/* net.c */
int sroce_net_init(void);
void sroce_net_exit(void);
struct socket *sroce_net_sock(bool ipv6);

/* queue.c */
int sroce_queue_init(struct ib_ucontext *uctx, struct sroce_queue *q, u32 *num_elem,
		     size_t elem_size, struct mminfo *mi);
void sroce_queue_cleanup(struct sroce_queue *q);
u32 sroce_queue_count(const struct sroce_queue *q);	/* FROM_CLIENT: slots ready */
void *sroce_queue_head(struct sroce_queue *q);		/* FROM_CLIENT: next slot or NULL */
void sroce_queue_pop(struct sroce_queue *q);		/* FROM_CLIENT: release head */
void *sroce_queue_peek(struct sroce_queue *q, u32 n);	/* FROM_CLIENT: n after head, or NULL */
u32 sroce_queue_slots(const struct sroce_queue *q);
void *sroce_queue_tail(struct sroce_queue *q);		/* TO_CLIENT: free slot or NULL */
void sroce_queue_push(struct sroce_queue *q);		/* TO_CLIENT: publish tail */
int sroce_queue_init_kernel(struct sroce_queue *q, u32 *num_elem, size_t elem_size);
void *sroce_queue_client_tail(struct sroce_queue *q);	/* kernel FROM_CLIENT: free slot */
void sroce_queue_client_push(struct sroce_queue *q);	/* kernel FROM_CLIENT: publish it */
void *sroce_queue_client_head(struct sroce_queue *q);	/* kernel TO_CLIENT: next slot */
void sroce_queue_client_pop(struct sroce_queue *q);	/* kernel TO_CLIENT: release it */
void sroce_queue_client_reset(struct sroce_queue *q);	/* kernel: empty the ring */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

/* cq.c */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_ctx *ctx);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
u8 sroce_cq_arm(u8 notify, enum ib_cq_notify_flags flags);
bool sroce_cq_fires(u8 *notify, bool solicited, bool error);
int sroce_cq_post_hdr(struct sroce_cq *cq, struct sroce_qp *qp, const struct ib_uverbs_wc *wc,
		      bool solicited, u8 network_hdr_type);
/* A CQE with no network header type (all but UD receives). */
static inline int sroce_cq_post(struct sroce_cq *cq, struct sroce_qp *qp,
				const struct ib_uverbs_wc *wc, bool solicited)
{
	return sroce_cq_post_hdr(cq, qp, wc, solicited, 0);
}

int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);

/* mr.c */
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				int access, SROCE_REG_MR_DMAH_PARAM struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);

/* mw.c: an ib_mw; what lookups read is in its key, freed after RCU. */
struct sroce_mw_key;
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_mw_key *key;
};

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
u8 sroce_mw_local_op(struct sroce_qp *qp, u32 pos);
u8 sroce_mw_invalidate_rkey(struct sroce_qp *qp, u32 rkey);
void sroce_mw_qp_gone(struct sroce_qp *qp);
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, int access, u64 iova, u64 len,
				u64 *mr_va);

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len);
struct sroce_mr *sroce_mr_ref(struct sroce_mr *mr, struct sroce_pd *pd, u32 key,
			      int access, u64 iova, u64 len);
void sroce_mr_put(struct sroce_mr *mr);
enum sroce_copy_dir {
	SROCE_COPY_TO_MR,	/* skb -> MR */
	SROCE_COPY_FROM_MR,	/* MR -> skb */
};

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, struct sk_buff *skb, unsigned int skb_off,
		  u32 len, enum sroce_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, u8 opcode, u64 compare_add, u64 swap,
		    u64 *orig);

/* ah.c */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init, struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_ah_lookup(struct sroce_dev *sdev, u32 ah_num, const struct sroce_pd *pd,
		    struct sroce_av *av);

/* qp.c */
int sroce_av_from_attr(const struct rdma_ah_attr *ah, struct sroce_av *av);
void sroce_av_to_attr(struct sroce_dev *sdev, const struct sroce_av *av,
		      struct rdma_ah_attr *ah);
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
/* sroce_qp_error() without an affiliated event: an error completion says it. */
#define SROCE_EVENT_NONE ((enum ib_event_type)-1)
void sroce_qp_error(struct sroce_qp *qp, enum ib_event_type event);
bool sroce_qp_enter_error(struct sroce_qp *qp);
void sroce_qp_error_flush(struct sroce_qp *qp, enum ib_event_type event);
void sroce_qp_snapshot(struct sroce_qp *qp);
void sroce_qp_put(struct sroce_qp *qp);
void sroce_qp_sq_drained(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
bool sroce_qp_enter_sqe(struct sroce_qp *qp);

/* kverbs.c: the work queue front end of kernel QPs */
int sroce_post_send_kernel(struct sroce_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* srq.c */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type);

/* recv.c: called by the UDP tunnel for every datagram (owns the skb) */
void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);

/* icrc.c */
u32 sroce_icrc(struct sk_buff *skb, unsigned int bth_off, unsigned int len);

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
struct sk_buff *sroce_tx_alloc(struct sroce_qp *qp, const struct sroce_av *av,
			       const struct sroce_hdrs *h, u32 len, u8 **payload,
			       struct sroce_tx *tx);
int sroce_tx_send(struct sroce_qp *qp, const struct sroce_av *av, struct sk_buff *skb,
		  struct sroce_tx *tx);
void sroce_tx_abort(struct sk_buff *skb, struct sroce_tx *tx);
int sroce_tx_response(struct sroce_qp *qp, const struct sroce_resp_desc *d,
		      struct sroce_mr *mr, u64 mr_va);

/*
 * resp.c: the responder shim.  sroce_resp_run() is the QP task's
 * responder stage; qp.c calls ready and stop with the task stopped, and
 * flush_rq either so or from the task (sroce_qp_error()).
 */
void sroce_resp_create(struct sroce_qp *qp);
/* Responder resources, allocated before the QP enters RTR. */
struct sroce_resp_res {
	struct sroce_rd_res *res;
	u32 n;
};

int sroce_resp_alloc(struct sroce_resp_res *r, u32 depth);
/* The QP enters RTR: (re)initialise the core, taking @r's resources. */
void sroce_resp_ready(struct sroce_qp *qp, struct sroce_resp_res *r);
void sroce_resp_stop(struct sroce_qp *qp, bool flush);	/* RESET/ERR/destroy: purge [, flush] */
void sroce_resp_flush_rq(struct sroce_qp *qp);
void sroce_resp_destroy(struct sroce_qp *qp);
int sroce_resp_enqueue(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_resp_run(struct sroce_qp *qp);
bool sroce_resp_take_batch(struct sroce_qp *qp, struct sk_buff_head *batch);
void sroce_resp_put_batch(struct sk_buff_head *batch, bool dropped);
int sroce_resp_fetch_wqe(struct sroce_qp *qp, struct sroce_recv_wqe *w);
void sroce_resp_release_wqe(struct sroce_qp *qp);

/* ud.c: the UD responder stage (datagrams in) and the GRH */
bool sroce_ud_resp_run(struct sroce_qp *qp);
int sroce_resp_send_data(struct sroce_qp *qp, struct sk_buff *skb, u8 xf);
void sroce_resp_recv_cqe(struct sroce_qp *qp, enum ib_wc_status status, u32 opcode,
			 u32 byte_len, const struct sroce_pkt *pkt);
int sroce_resp_exec_write(struct sroce_qp *qp, struct sk_buff *skb, u8 xf);

/* mcast.c */
void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_cleanup(struct sroce_dev *sdev);
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sroce_mcast_qp_gone(struct sroce_qp *qp);
u32 sroce_mcast_members(struct sroce_dev *sdev, const union ib_gid *mgid,
			struct sroce_qp **qps);

/* uc.c */
bool sroce_uc_resp_run(struct sroce_qp *qp);

/*
 * req.c, comp.c, timers.c: the requester and completer shims, stages of
 * the QP task (completer first).  qp.c calls the sroce_sq_* hooks with
 * the task stopped.
 */
bool sroce_req_run(struct sroce_qp *qp);
bool sroce_comp_run(struct sroce_qp *qp);
void sroce_comp_retire(struct sroce_qp *qp);
int sroce_comp_enqueue(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_sq_ready(struct sroce_qp *qp);	/* the QP enters RTS: (re)initialise the cores */
void sroce_sq_stop(struct sroce_qp *qp);	/* RESET/ERR/destroy: purge, timers off */
void sroce_sq_reset(struct sroce_qp *qp);	/* RESET: the WQEs taken are discarded */
void sroce_sq_set_draining(struct sroce_qp *qp, bool on);	/* SQD */
void sroce_sq_error_flush(struct sroce_qp *qp);	/* Error: every WQE flushed, CQEs posted */
void sroce_sq_fold_stats(struct sroce_qp *qp);
void sroce_sq_timers_init(struct sroce_qp *qp);
void sroce_sq_timers_stop(struct sroce_qp *qp);
void sroce_sq_timer_apply(struct sroce_qp *qp, const struct sroce_sq_ret *r);
bool sroce_sq_timer_events(struct sroce_qp *qp);
bool sroce_sq_timer_aged(struct sroce_qp *qp);
bool sroce_sq_timer_hold(struct sroce_qp *qp);

/* stats.c */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
		       int index);
int sroce_modify_hw_stat(struct ib_device *ibdev, u32 port, unsigned int index, bool enable);
size_t sroce_stats_nl_bytes(void);
bool sroce_stats_optional_last(void);
bool sroce_stats_all_named(void);
size_t sroce_stats_status_nl_bytes(void);
void sroce_stats_init(void);

#endif /* SROCE_H */
