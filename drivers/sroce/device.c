// SPDX-License-Identifier: GPL-2.0
/*
 * The sroce ib_device: `rdma link add NAME type sroce netdev DEV`
 * creates one, `rdma link delete` or the netdev's unregistration removes
 * it.  Device and port queries, the user context, and the netdev
 * notifier that keeps the port state and MTU current.
 *
 * driver_id is RDMA_DRIVER_RXE (librxe attaches by it), which stock rxe
 * uses too: every lookup by netdev checks that the device is ours.
 */
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"

static void sroce_dealloc_driver(struct ib_device *ibdev);

/*
 * Every sroce device from its registration to its dealloc_driver: module
 * exit unregisters these and nothing else (ib_unregister_driver() would
 * take stock rxe's devices too: they share RDMA_DRIVER_RXE).
 */
static LIST_HEAD(sroce_devs);
static DEFINE_MUTEX(sroce_devs_lock);		/* guards sroce_devs */
static DECLARE_WAIT_QUEUE_HEAD(sroce_devs_gone);	/* sroce_devs became empty */

static bool sroce_is_ours(const struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == sroce_dealloc_driver;
}

/*
 * The sroce device bound to @ndev, with a reference (ib_device_put()), or
 * NULL.  Safe against a stock rxe device on the netdev.
 */
struct sroce_dev *sroce_get_dev_from_net(struct net_device *ndev)
{
	struct ib_device *ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);

	if (!ibdev)
		return NULL;
	if (!sroce_is_ours(ibdev)) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_sdev(ibdev);
}

/* The largest IB MTU that fits the netdev MTU with RoCEv2 headers. */
void sroce_set_mtu(struct sroce_dev *sdev, unsigned int ndev_mtu)
{
	enum ib_mtu mtu = IB_MTU_256;

	if (ndev_mtu >= SROCE_MAX_HDR_LENGTH)
		mtu = ib_mtu_int_to_enum(ndev_mtu - SROCE_MAX_HDR_LENGTH);
	/* Read locklessly by the requester of UD QPs and by kernel posts. */
	WRITE_ONCE(sdev->active_mtu, min_t(enum ib_mtu, mtu, IB_MTU_4096));
}

static void sroce_init_attr(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct ib_device_attr *a = &sdev->attr;

	a->vendor_id = SROCE_VENDOR_ID;
	a->vendor_part_id = 0;
	a->hw_ver = 0;
	a->fw_ver = 0;
	a->max_mr_size = ~0ull;
	a->page_size_cap = 0xfffff000;
	a->max_qp = SROCE_MAX_QP;
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE;
	a->max_cq = SROCE_MAX_CQ;
	a->max_cqe = SROCE_MAX_CQE;
	a->max_mr = SROCE_MAX_MR;
	a->max_mw = SROCE_MAX_MW;
	a->max_pd = SROCE_MAX_PD;
	a->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_srq = SROCE_MAX_SRQ;
	a->max_ah = SROCE_MAX_AH;
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP * SROCE_MAX_MCAST_QP_ATTACH;
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_pkeys = SROCE_MAX_PKEYS;
	a->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	/* Memory windows of both types (mw.c). */
	a->device_cap_flags = IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	addrconf_addr_eui48((unsigned char *)&a->sys_image_guid, ndev->dev_addr);
}

static int sroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_sdev(ibdev)->attr;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port, struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	bool up = netif_running(sdev->ndev) && netif_carrier_ok(sdev->ndev);

	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(sdev->active_mtu);
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed, &attr->active_width);
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err = ib_query_port(ibdev, port, &attr);

	if (err)
		return err;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* Every QP and MR is gone before the device is deallocated. */
	WARN_ON(!xa_empty(&sdev->qp_xa));
	WARN_ON(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	WARN_ON(!xa_empty(&sdev->ah_xa));
	xa_destroy(&sdev->ah_xa);
	sroce_mcast_cleanup(sdev);
	mutex_lock(&sroce_devs_lock);
	if (!list_empty(&sdev->list)) {
		list_del_init(&sdev->list);
		if (list_empty(&sroce_devs))
			wake_up_all(&sroce_devs_gone);
	}
	mutex_unlock(&sroce_devs_lock);
}

/*
 * Unregister every sroce device, for module exit, after rdma_link_unregister()
 * and the netdev notifier's removal: no device can be added any more.  A
 * device whose unregistration is already under way (queued by
 * NETDEV_UNREGISTER, or `rdma link delete`) has no references to take; it
 * leaves the list from its dealloc_driver, which is waited for.
 */
void sroce_unregister_all(void)
{
	struct sroce_dev *sdev, *found;

	for (;;) {
		found = NULL;
		mutex_lock(&sroce_devs_lock);
		list_for_each_entry(sdev, &sroce_devs, list) {
			if (ib_device_try_get(&sdev->ibdev)) {
				found = sdev;
				break;
			}
		}
		mutex_unlock(&sroce_devs_lock);
		if (!found)
			break;
		ib_unregister_device_and_put(&found->ibdev);
	}
	wait_event(sroce_devs_gone, list_empty_careful(&sroce_devs));
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.alloc_mw = sroce_alloc_mw,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dealloc_mw = sroce_dealloc_mw,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.get_hw_stats = sroce_get_hw_stats,
	.get_dma_mr = sroce_get_dma_mr,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_hw_stat = sroce_modify_hw_stat,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_ah = sroce_query_ah,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_user_mr = sroce_reg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

static void sroce_port_event(struct sroce_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	if (is_vlan_dev(ndev)) {
		pr_err("sroce: %s is a VLAN device; use the real device\n", ndev->name);
		return -EPERM;
	}
	sdev = sroce_get_dev_from_net(ndev);
	if (sdev) {
		ib_device_put(&sdev->ibdev);
		pr_err("sroce: %s already has an sroce device\n", ndev->name);
		return -EEXIST;
	}

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	sdev->ndev = ndev;
	INIT_LIST_HEAD(&sdev->list);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1);
	spin_lock_init(&sdev->atomic_lock);
	spin_lock_init(&sdev->mw_lock);
	sroce_mcast_init(sdev);
	sroce_init_attr(sdev, ndev);
	sroce_set_mtu(sdev, ndev->mtu);
	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = 1;
	sdev->ibdev.num_comp_vectors = num_possible_cpus();
	sdev->ibdev.local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&sdev->ibdev.node_guid, ndev->dev_addr);
	strscpy(sdev->ibdev.node_desc, "sroce", sizeof(sdev->ibdev.node_desc));
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ) |
				       BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	ib_set_device_ops(&sdev->ibdev, &sroce_dev_ops);

	err = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;
	/*
	 * On the list before it is registered: once registered, the device
	 * can be unregistered (and reach dealloc_driver) at any time.  On
	 * failure, ib_dealloc_device() takes it off (dealloc_driver).
	 */
	mutex_lock(&sroce_devs_lock);
	list_add_tail(&sdev->list, &sroce_devs);
	mutex_unlock(&sroce_devs_lock);
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err)
		goto err_dealloc;
	if (netif_running(ndev) && netif_carrier_ok(ndev))
		sroce_port_event(sdev, IB_EVENT_PORT_ACTIVE);
	return 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event, void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct sroce_dev *sdev = sroce_get_dev_from_net(ndev);

	if (!sdev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
		sroce_port_event(sdev, IB_EVENT_PORT_ACTIVE);
		break;
	case NETDEV_DOWN:
		sroce_port_event(sdev, IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGE:
		sroce_port_event(sdev, netif_running(ndev) && netif_carrier_ok(ndev) ?
				 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEMTU:
		sroce_set_mtu(sdev, ndev->mtu);
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};
