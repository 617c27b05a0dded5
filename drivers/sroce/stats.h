/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.c: the per-device counters of `rdma statistic`.
 */
#ifndef SROCE_STATS_H
#define SROCE_STATS_H

#include <rdma/ib_verbs.h>

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
		       int index);
int sroce_modify_hw_stat(struct ib_device *ibdev, u32 port, unsigned int index, bool enable);
size_t sroce_stats_nl_bytes(void);
bool sroce_stats_optional_last(void);
bool sroce_stats_all_named(void);
size_t sroce_stats_status_nl_bytes(void);
void sroce_stats_init(void);

#endif /* SROCE_STATS_H */
