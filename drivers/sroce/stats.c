// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device counters, read with `rdma statistic show link sroce0/1`.
 * Every dropped packet is counted under a named reason.
 */
#include "sroce.h"

static const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_COUNT] = {
	[SROCE_CNT_RX_PACKETS].name = "rx_packets",
	[SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_NO_DEVICE].name = "rx_drop_no_device",
	[SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_TOO_SHORT].name = "rx_drop_too_short",
	[SROCE_CNT_RX_DROP_FIRST + SROCE_RX_DROP_NO_QP].name = "rx_drop_no_qp",
};

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs, SROCE_CNT_COUNT,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
		       int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < SROCE_CNT_COUNT; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SROCE_CNT_COUNT;
}
