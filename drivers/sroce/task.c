// SPDX-License-Identifier: GPL-2.0
/*
 * The QP task: the one serialized execution context of a QP.
 *
 * The receive path, timers and verbs never run an engine themselves: they
 * queue their work (a packet on a per-QP queue) and call
 * sroce_task_schedule().  A pass of the task runs on sroce_wq and calls
 * the task's function once (qp_state.c's: the QP's stages in order); it does a
 * bounded amount of work and says whether it left some, and then the
 * pass is queued again behind the other QPs' passes rather than looping
 * (fairness).  The task knows nothing of what it runs.
 *
 * The guarantees, all from t->state under t->lock:
 * - passes of one task never overlap: a pass starts only from QUEUED
 *   (or from IDLE or QUEUED inline in a doorbell, sroce_task_run()), and
 *   QUEUED is entered only with no pass running or by the pass that is
 *   ending, which queues the next one;
 * - a schedule while a pass runs makes exactly one more pass (RERUN),
 *   however many schedules there were;
 * - sroce_task_stop() returns with no pass running and none to come:
 *   schedules find STOPPED and do nothing, the queued pass is cancelled,
 *   a running one (on the workqueue or inline, sroce_task_run()) is
 *   waited for and does not queue another;
 * - the engines' state needs no lock while a pass or the stopper owns it
 *   (sroce_task_assert_owned()).
 */
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <linux/skbuff.h>

#include "task.h"

static struct workqueue_struct *sroce_wq;

/*
 * Passes queued on sroce_wq and not started, over all QPs: a requester
 * that ends its pass on its budget while others wait will not be back
 * before they have run (sroce_task_others_queued()).
 */
static atomic_t sroce_passes_queued = ATOMIC_INIT(0);

/* Every change of t->state goes through here, under t->lock. */
static void sroce_task_set(struct sroce_task *t, enum sroce_task_state state)
{
	lockdep_assert_held(&t->lock);
	if (t->state == SROCE_TASK_QUEUED && state != SROCE_TASK_QUEUED)
		atomic_dec(&sroce_passes_queued);
	else if (t->state != SROCE_TASK_QUEUED && state == SROCE_TASK_QUEUED)
		atomic_inc(&sroce_passes_queued);
	t->state = state;
}

/**
 * sroce_task_others_queued() - passes of other tasks wait to run
 *
 * For a pass asking whether, once it yields, it comes back only after
 * them.  Its own task is running, so not counted.
 */
bool sroce_task_others_queued(void)
{
	return atomic_read(&sroce_passes_queued) > 0;
}

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
	sroce_task_set(t, SROCE_TASK_QUEUED);
	queue_work(sroce_wq, &t->work);
}

/*
 * A pass and its end; the caller made itself the runner (@inline_pass: in
 * sroce_task_run()).
 */
static void sroce_task_pass_run(struct sroce_task *t, bool inline_pass)
{
	unsigned long flags;
	bool more;

	more = t->func(t->arg);

	spin_lock_irqsave(&t->lock, flags);
	WRITE_ONCE(t->runner, NULL);
	if (t->state == SROCE_TASK_RERUN || (t->state == SROCE_TASK_RUNNING && more))
		sroce_task_queue(t);
	else if (t->state == SROCE_TASK_RUNNING)
		sroce_task_set(t, SROCE_TASK_IDLE);
	/* else STOPPED: the stopper is waiting for this pass to end. */
	spin_unlock_irqrestore(&t->lock, flags);
	if (!inline_pass)
		return;
	/*
	 * The last access to t: a stopper waiting for this (sroce_task_stop())
	 * may free it as soon as it sees false.  wake_up_var() only hashes the
	 * address to find its wait queue.
	 */
	smp_store_release(&t->inline_running, false);
	/* The store before wake_up_var()'s check for waiters (see wait_var_event()). */
	smp_mb();
	wake_up_var(&t->inline_running);
}

static void sroce_task_pass(struct work_struct *work)
{
	struct sroce_task *t = container_of(work, struct sroce_task, work);
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->state != SROCE_TASK_QUEUED) {
		/* Stopped after it was queued, or an inline pass took it. */
		spin_unlock_irqrestore(&t->lock, flags);
		return;
	}
	sroce_task_set(t, SROCE_TASK_RUNNING);
	WRITE_ONCE(t->runner, current);
	spin_unlock_irqrestore(&t->lock, flags);
	sroce_task_pass_run(t, false);
}

/* A task starts stopped. */
void sroce_task_init(struct sroce_task *t, bool (*func)(void *arg), void *arg)
{
	t->func = func;
	t->arg = arg;
	INIT_WORK(&t->work, sroce_task_pass);
	spin_lock_init(&t->lock);
	t->state = SROCE_TASK_STOPPED;
	WRITE_ONCE(t->runner, NULL);
	t->inline_running = false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_task_init);

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
	sroce_task_set(t, SROCE_TASK_IDLE);
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
		sroce_task_set(t, SROCE_TASK_RERUN);
		break;
	case SROCE_TASK_STOPPED:
	case SROCE_TASK_QUEUED:
	case SROCE_TASK_RERUN:
		break;
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/**
 * sroce_task_run() - run a pass now, in the caller's context
 * @t: the task
 *
 * For the post_send doorbell: the pass that sends the new WQEs runs in the
 * poster's thread rather than after a wakeup of a worker (under TCG that
 * hop cost ~200 us of each ib_read_lat round trip).  An idle task runs
 * here; otherwise this is sroce_task_schedule(), and a queued pass may be
 * taken over (its work item then finds it gone).  Passes still never
 * overlap: the caller becomes the runner under t->lock.
 * Context: process, may sleep; no lock held that a pass takes.
 */
void sroce_task_run(struct sroce_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->state != SROCE_TASK_IDLE && t->state != SROCE_TASK_QUEUED) {
		if (t->state == SROCE_TASK_RUNNING)
			sroce_task_set(t, SROCE_TASK_RERUN);
		spin_unlock_irqrestore(&t->lock, flags);
		return;
	}
	sroce_task_set(t, SROCE_TASK_RUNNING);
	WRITE_ONCE(t->runner, current);
	t->inline_running = true;
	spin_unlock_irqrestore(&t->lock, flags);
	sroce_task_pass_run(t, true);
}

/**
 * sroce_task_stop() - stop the task: no pass runs when this returns, and
 * none will until sroce_task_start()
 * @t: the task, stopped or not
 *
 * For modify_qp (every move of the state) and destroy: the caller then owns
 * everything the task owns.  Work queued for the stages stays queued.
 * Context: process, may sleep; never from a pass of @t.
 */
void sroce_task_stop(struct sroce_task *t)
{
	unsigned long flags;

	if (WARN_ON_ONCE(READ_ONCE(t->runner) == current))
		return;
	spin_lock_irqsave(&t->lock, flags);
	sroce_task_set(t, SROCE_TASK_STOPPED);
	spin_unlock_irqrestore(&t->lock, flags);
	/* Cancels a queued pass, waits for a running one (it cannot requeue). */
	cancel_work_sync(&t->work);
	/* And for an inline pass (sroce_task_run()), which cannot requeue either. */
	wait_var_event(&t->inline_running, !smp_load_acquire(&t->inline_running));
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
