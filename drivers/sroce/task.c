// SPDX-License-Identifier: GPL-2.0
/*
 * The QP task: the one serialized execution context of a QP.
 *
 * The receive path, timers and verbs never run an engine themselves: they
 * queue their work (a packet on a per-QP queue) and call
 * sroce_task_schedule().  A pass of the task runs on sroce_wq and calls
 * every stage below in order; each does a bounded amount of work and says
 * whether it left some, and then the pass is queued again behind the
 * other QPs' passes rather than looping (fairness).
 *
 * The guarantees, all from t->state under t->lock:
 * - passes of one task never overlap: a pass starts only from QUEUED,
 *   and QUEUED is entered only with no pass running or by the pass that
 *   is ending, which queues the next one;
 * - a schedule while a pass runs makes exactly one more pass (RERUN),
 *   however many schedules there were;
 * - sroce_task_stop() returns with no pass running and none to come:
 *   schedules find STOPPED and do nothing, the queued pass is cancelled,
 *   a running one is waited for and does not queue another;
 * - the engines' state needs no lock while a pass or the stopper owns it
 *   (sroce_task_assert_owned()).
 */
#include <linux/workqueue.h>

#include "sroce.h"
#include "task.h"

/* The stages of a pass, in their order: completer, requester, responder. */
static bool (*const sroce_task_stages[])(struct sroce_qp *qp) = {
	sroce_comp_run,
	sroce_req_run,
	sroce_resp_run,
};

static struct workqueue_struct *sroce_wq;

/*
 * Normal priority, not WQ_HIGHPRI: once softirqs are deferred to
 * ksoftirqd (nice 0), a nice -20 worker that keeps requeueing passes
 * leaves it ~1% of the CPU, so the receive path, and with it the ACKs and
 * NAKs a sending QP waits for, stalled for hundreds of ms on a busy vCPU
 * (a NAK acted on 220 ms late under TCG).
 */
int sroce_task_wq_init(void)
{
	sroce_wq = alloc_workqueue("sroce", WQ_MEM_RECLAIM, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

/* Every task is stopped: the QPs are gone. */
void sroce_task_wq_exit(void)
{
	destroy_workqueue(sroce_wq);
}

static void sroce_task_queue(struct sroce_task *t)
{
	lockdep_assert_held(&t->lock);
	t->state = SROCE_TASK_QUEUED;
	queue_work(sroce_wq, &t->work);
}

static void sroce_task_pass(struct work_struct *work)
{
	struct sroce_task *t = container_of(work, struct sroce_task, work);
	struct sroce_qp *qp = container_of(t, struct sroce_qp, task);
	unsigned long flags;
	bool more = false;
	unsigned int i;

	spin_lock_irqsave(&t->lock, flags);
	if (t->state != SROCE_TASK_QUEUED) {
		/* Stopped after it was queued: sroce_task_stop() waits for this. */
		spin_unlock_irqrestore(&t->lock, flags);
		return;
	}
	t->state = SROCE_TASK_RUNNING;
	t->runner = current;
	spin_unlock_irqrestore(&t->lock, flags);

	sroce_qp_snapshot(qp);
	for (i = 0; i < ARRAY_SIZE(sroce_task_stages); i++)
		more |= sroce_task_stages[i](qp);

	spin_lock_irqsave(&t->lock, flags);
	t->runner = NULL;
	if (t->state == SROCE_TASK_RERUN || (t->state == SROCE_TASK_RUNNING && more))
		sroce_task_queue(t);
	else if (t->state == SROCE_TASK_RUNNING)
		t->state = SROCE_TASK_IDLE;
	/* else STOPPED: the stopper is waiting for this pass to end. */
	spin_unlock_irqrestore(&t->lock, flags);
}

/* A task starts stopped. */
void sroce_task_init(struct sroce_task *t)
{
	INIT_WORK(&t->work, sroce_task_pass);
	spin_lock_init(&t->lock);
	t->state = SROCE_TASK_STOPPED;
	t->runner = NULL;
}

/**
 * sroce_task_start() - let schedules run passes again
 * @t: a stopped task
 *
 * Should be called after the engines' state was (re)initialised, before
 * anything can queue work for them.
 */
void sroce_task_start(struct sroce_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	WARN_ON_ONCE(t->state != SROCE_TASK_STOPPED);
	t->state = SROCE_TASK_IDLE;
	spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * sroce_task_schedule() - have the task run a pass soon
 * @t: the task
 *
 * Should be called after queueing work for one of its stages.
 * Context: any; does not sleep.
 */
void sroce_task_schedule(struct sroce_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	switch (t->state) {
	case SROCE_TASK_IDLE:
		sroce_task_queue(t);
		break;
	case SROCE_TASK_RUNNING:
		t->state = SROCE_TASK_RERUN;
		break;
	case SROCE_TASK_STOPPED:
	case SROCE_TASK_QUEUED:
	case SROCE_TASK_RERUN:
		break;
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * sroce_task_stop() - stop the task: no pass runs when this returns, and
 * none will until sroce_task_start()
 * @t: the task, stopped or not
 *
 * For modify_qp to RESET or ERR and for destroy: the caller then owns
 * everything the task owns.  Work queued for the stages stays queued.
 * Context: process, may sleep; never from a pass of @t.
 */
void sroce_task_stop(struct sroce_task *t)
{
	unsigned long flags;

	if (WARN_ON_ONCE(READ_ONCE(t->runner) == current))
		return;
	spin_lock_irqsave(&t->lock, flags);
	t->state = SROCE_TASK_STOPPED;
	spin_unlock_irqrestore(&t->lock, flags);
	/* Cancels a queued pass, waits for a running one (it cannot requeue). */
	cancel_work_sync(&t->work);
}

/**
 * sroce_task_queue_skb() - queue a packet for a stage of the task, schedule it
 * @t: the QP's task
 * @q: the stage's packet queue
 * @max: packets it may hold
 * @skb: the packet
 *
 * Return: 0 when @skb is queued, -ENOBUFS when @q is full (the caller
 * still owns @skb).
 */
int sroce_task_queue_skb(struct sroce_task *t, struct sk_buff_head *q, u32 max,
			 struct sk_buff *skb)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&q->lock, flags);
	if (skb_queue_len(q) < max)
		__skb_queue_tail(q, skb);
	else
		err = -ENOBUFS;
	spin_unlock_irqrestore(&q->lock, flags);
	if (!err)
		sroce_task_schedule(t);
	return err;
}
