// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 UDP tunnel: UDP port 4791 sockets for IPv4 and IPv6 in
 * init_net, bound at module load so that sroce and rdma_rxe exclude each
 * other, and the receive entry point.
 *
 * A datagram is matched to its sroce device by the receiving netdev and
 * handed to recv.c; without a device it is dropped and counted here.
 */
#include <linux/debugfs.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/udp_tunnel.h>

#include <sroce/ib_wire.h>
#include "sroce.h"

static struct socket *sroce_sk4;
static struct socket *sroce_sk6;
/* Datagrams that no device can count: no sroce device on the netdev. */
static atomic64_t sroce_drops_no_device;
static struct dentry *sroce_debugfs;

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev = sroce_get_dev_from_net(skb->dev);

	if (!sdev) {
		atomic64_inc(&sroce_drops_no_device);
		kfree_skb(skb);
		return 0;
	}
	sroce_rcv(sdev, skb);
	ib_device_put(&sdev->ibdev);
	return 0;
}

static struct socket *sroce_udp_tunnel(bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(SROCE_ROCE_V2_PORT),
	};
	struct socket *sock;
	int one = 1;
	int err;

	err = udp_sock_create(&init_net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tnl);
	/*
	 * setup_udp_tunnel_sock() turns IPv4 multicast loopback off; a UD
	 * datagram to a group has members on this host too (another QP of
	 * this device), which get their copy through ip_mc_output()'s
	 * loopback, as over stock rxe's own sockets.  IPv6's stays on.
	 */
	if (!ipv6) {
		err = ip_setsockopt(sock->sk, SOL_IP, IP_MULTICAST_LOOP, KERNEL_SOCKPTR(&one),
				    sizeof(one));
		if (err) {
			udp_tunnel_sock_release(sock);
			return ERR_PTR(err);
		}
	}
	return sock;
}

struct socket *sroce_net_sock(bool ipv6)
{
	return ipv6 ? sroce_sk6 : sroce_sk4;
}

static int sroce_drops_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "rx_drop_no_device %lld\n",
		   atomic64_read(&sroce_drops_no_device));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_drops);

int sroce_net_init(void)
{
	int err;

	sroce_sk4 = sroce_udp_tunnel(false);
	if (IS_ERR(sroce_sk4)) {
		err = PTR_ERR(sroce_sk4);
		pr_err("sroce: cannot bind UDP %d over IPv4 (is rdma_rxe loaded?): %d\n",
		       SROCE_ROCE_V2_PORT, err);
		goto err_sk4;
	}
	if (IS_ENABLED(CONFIG_IPV6)) {
		sroce_sk6 = sroce_udp_tunnel(true);
		if (IS_ERR(sroce_sk6)) {
			err = PTR_ERR(sroce_sk6);
			pr_err("sroce: cannot bind UDP %d over IPv6: %d\n",
			       SROCE_ROCE_V2_PORT, err);
			goto err_sk6;
		}
	}
	sroce_debugfs = debugfs_create_dir("sroce", NULL);
	debugfs_create_file("global_drops", 0444, sroce_debugfs, NULL, &sroce_drops_fops);
	return 0;

err_sk6:
	sroce_sk6 = NULL;
	udp_tunnel_sock_release(sroce_sk4);
err_sk4:
	sroce_sk4 = NULL;
	return err;
}

void sroce_net_exit(void)
{
	debugfs_remove_recursive(sroce_debugfs);
	if (sroce_sk6)
		udp_tunnel_sock_release(sroce_sk6);
	udp_tunnel_sock_release(sroce_sk4);
}
