// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters: the ACK and AckReq policy knobs.  Each is read
 * when a QP enters RTR or RTS (the cores take a copy), and each is
 * range-checked when set: a value out of range fails the module load
 * with -ERANGE instead of being clamped silently.
 */
#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include <sroce/psn.h>

#include "params.h"

struct sroce_params sroce_params = {
	/* The PSN window is at most half the PSN space (IBA 9.7.1). */
	.ackreq_every = { .val = 32, .min = 0, .max = SROCE_PSN_HALF - 1 },
	.req_window = { .val = 1024, .min = 1, .max = SROCE_PSN_HALF - 1 },
	.ack_coalesce_max = { .val = 16, .min = 1, .max = 65536 },
	/* Half of stock rxe's 128 unacknowledged PSNs (RXE_MAX_UNACKED_PSNS). */
	.ack_span_max = { .val = 64, .min = 0, .max = SROCE_PSN_HALF - 1 },
	.ackreq_hold = true,
};
EXPORT_SYMBOL_IF_KUNIT(sroce_params);

int sroce_param_uint_set(struct sroce_uint_param *p, const char *val)
{
	unsigned int v;
	int err;

	err = kstrtouint(val, 0, &v);
	if (err)
		return err;
	if (v < p->min || v > p->max)
		return -ERANGE;
	p->val = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_param_uint_set);

static int sroce_param_set(const char *val, const struct kernel_param *kp)
{
	return sroce_param_uint_set(kp->arg, val);
}

static int sroce_param_get(char *buf, const struct kernel_param *kp)
{
	const struct sroce_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", p->val);
}

static const struct kernel_param_ops sroce_uint_param_ops = {
	.set = sroce_param_set,
	.get = sroce_param_get,
};

module_param_cb(ackreq_every, &sroce_uint_param_ops, &sroce_params.ackreq_every, 0444);
__MODULE_PARM_TYPE(ackreq_every, "uint");
MODULE_PARM_DESC(ackreq_every,
		 "AckReq every N request packets, 0..8388607; 0: only at the end of the posted work (default 32)");
module_param_named(ackreq_hold, sroce_params.ackreq_hold, bool, 0444);
MODULE_PARM_DESC(ackreq_hold,
		 "Hold the last packet of the posted work while an ACK is due (default on)");
module_param_cb(req_window, &sroce_uint_param_ops, &sroce_params.req_window, 0444);
__MODULE_PARM_TYPE(req_window, "uint");
MODULE_PARM_DESC(req_window, "Request PSNs a QP may have outstanding, 1..8388607 (default 1024)");
module_param_cb(ack_coalesce_max, &sroce_uint_param_ops, &sroce_params.ack_coalesce_max, 0444);
__MODULE_PARM_TYPE(ack_coalesce_max, "uint");
MODULE_PARM_DESC(ack_coalesce_max,
		 "AckReq'd requests one ACK may cover, 1..65536; 1: an ACK per AckReq, like rxe (default 16)");
module_param_cb(ack_span_max, &sroce_uint_param_ops, &sroce_params.ack_span_max, 0444);
__MODULE_PARM_TYPE(ack_span_max, "uint");
MODULE_PARM_DESC(ack_span_max,
		 "PSNs an owed ACK may newly cover before it goes out mid-batch, 0..8388607; 0: no limit (default 64)");
