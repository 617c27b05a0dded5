/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcast.c: UD multicast groups and their members.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;

void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_cleanup(struct sroce_dev *sdev);
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sroce_mcast_qp_gone(struct sroce_qp *qp);
u32 sroce_mcast_members(struct sroce_dev *sdev, const union ib_gid *mgid,
			struct sroce_qp **qps);

#endif /* SROCE_MCAST_H */
