// SPDX-License-Identifier: GPL-2.0
/*
 * sroce: an alternate soft-RoCE provider whose RC responder decisions come
 * from a freestanding C++ core (drivers/sroce/core/).  Module init and
 * exit only.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "wire.h"

static int __init sroce_init(void)
{
	int err;

	sroce_wire_init();
	sroce_stats_init();
	err = sroce_task_wq_init();
	if (err)
		return err;
	err = sroce_net_init();
	if (err)
		goto err_net;
	err = register_netdevice_notifier(&sroce_netdev_notifier);
	if (err)
		goto err_notifier;
	rdma_link_register(&sroce_link_ops);
	return 0;

err_notifier:
	sroce_net_exit();
err_net:
	sroce_task_wq_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	unregister_netdevice_notifier(&sroce_netdev_notifier);
	sroce_unregister_all();
	sroce_tx_exit();
	sroce_net_exit();
	sroce_task_wq_exit();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("Soft RoCE provider with a spec-exact RC responder core");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
