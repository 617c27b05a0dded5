/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QP task: one serialized execution context per QP (task.c).
 *
 * Anything may schedule it; its passes never overlap, and each runs the
 * engine stages in a fixed order.  State marked "owned by the QP task"
 * (qp.h, resp.h, sq.h) is touched only by a pass, or by qp_state.c between
 * sroce_task_stop() and sroce_task_start(), when no pass can run.
 */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

enum sroce_task_state {
	SROCE_TASK_STOPPED,	/* no pass runs, none is queued; schedules are ignored */
	SROCE_TASK_IDLE,	/* started, nothing queued */
	SROCE_TASK_QUEUED,	/* one pass queued on the workqueue */
	SROCE_TASK_RUNNING,	/* a pass runs */
	SROCE_TASK_RERUN,	/* a pass runs and was scheduled meanwhile: one more follows */
};

struct sroce_task {
	/* What a pass runs, fixed at init: true if it left work behind. */
	bool (*func)(void *arg);
	void *arg;
	struct work_struct work;
	/* Guards state, runner and the setting of inline_running; any context, irqs saved. */
	spinlock_t lock;
	enum sroce_task_state state;
	struct task_struct *runner;	/* the thread running a pass, else NULL */
	/* An inline pass (sroce_task_run()) runs; cleared after its last access to the task. */
	bool inline_running;
};

int sroce_task_wq_init(void);
void sroce_task_wq_exit(void);

void sroce_task_init(struct sroce_task *t, bool (*func)(void *arg), void *arg);
void sroce_task_start(struct sroce_task *t);
void sroce_task_schedule(struct sroce_task *t);
void sroce_task_run(struct sroce_task *t);
bool sroce_task_others_queued(void);
void sroce_task_stop(struct sroce_task *t);
struct sk_buff;
struct sk_buff_head;
int sroce_task_queue_skb(struct sroce_task *t, struct sk_buff_head *q, u32 max,
			 struct sk_buff *skb);

/* The caller may touch state owned by the QP task: it runs a pass, or the task is stopped. */
static inline bool sroce_task_owned(const struct sroce_task *t)
{
	return READ_ONCE(t->runner) == current || READ_ONCE(t->state) == SROCE_TASK_STOPPED;
}

#define sroce_task_assert_owned(t) \
	WARN_ON_ONCE(IS_ENABLED(CONFIG_PROVE_LOCKING) && !sroce_task_owned(t))

#endif /* SROCE_TASK_H */
