// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's timers, as event hooks: the cores decide when the
 * retransmit timer is armed, restarted or cancelled and when an RNR NAK
 * is waited out (struct sroce_sq_ret.timer); this file carries that out.
 * An expiry only records its event and schedules the QP task, whose
 * completer stage then asks the core (sroce_sq_timer_events()).
 *
 * The retransmit period is 4.096 us * 2^timeout (sroce_timeout_ns());
 * the RNR wait is the NAK's timer code (IBA Table 45); both are rounded
 * up to jiffies, never down.
 *
 * A retransmit expiry is acted on only once the timer has run on for an
 * eighth of the period more (sroce_rexmit_grace()): the pass that saw it
 * ends first, so that responses already received but not yet handed over
 * reach the completer before the requester goes back.  On Debian's 6.1
 * the NET_RX softirq waits for ksoftirqd while that thread is runnable,
 * and the QP task can hold the only vCPU past the period; a go-back then
 * resends what the responder had acknowledged, or leaves a loss episode
 * its NAK announced to the timer.  IBA 9.7.6.1.3 lets the timer run up to
 * four times the period.
 */
#include <linux/jiffies.h>
#include <linux/timer.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sq.h"
#include "trace.h"

static void sroce_rexmit_expired(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, sqs.rexmit);

	set_bit(SROCE_SQ_EV_TIMEOUT, &qp->sqs.events);
	sroce_task_schedule(&qp->task);
}

static void sroce_rnr_expired(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, sqs.rnr);

	set_bit(SROCE_SQ_EV_RNR, &qp->sqs.events);
	sroce_task_schedule(&qp->task);
}

/* The retransmit timer starts over: no run-on, no early expiry for a hold. */
static void sroce_rexmit_reset(struct sroce_sqs *s)
{
	s->rexmit_grace = false;
	s->rexmit_early = false;
}

void sroce_sq_timers_init(struct sroce_qp *qp)
{
	timer_setup(&qp->sqs.rexmit, sroce_rexmit_expired, 0);
	timer_setup(&qp->sqs.rnr, sroce_rnr_expired, 0);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timers_init);

/* Both timers stopped, none to fire again; the task must be stopped first. */
void sroce_sq_timers_stop(struct sroce_qp *qp)
{
	timer_delete_sync(&qp->sqs.rexmit);
	timer_delete_sync(&qp->sqs.rnr);
	sroce_rexmit_reset(&qp->sqs);
	clear_bit(SROCE_SQ_EV_TIMEOUT, &qp->sqs.events);
	clear_bit(SROCE_SQ_EV_RNR, &qp->sqs.events);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timers_stop);

/*
 * At least @ns: rounded up to whole ticks, plus one, since a timer due in
 * n jiffies may fire just after the next tick starts.
 */
static unsigned long sroce_ns_to_jiffies(u64 ns)
{
	return (unsigned long)DIV_ROUND_UP_ULL(ns, TICK_NSEC) + 1;
}

/*
 * The retransmit timer has run half its period since it was last
 * (re)started: the requester's hint SROCE_REQ_HINT_TIMER_AGED.
 */
bool sroce_sq_timer_aged(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;

	return timer_pending(&s->rexmit) && time_after_eq(jiffies, s->rexmit_aged_at);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timer_aged);

/*
 * The requester holds its last packet while a response is due
 * (SROCE_BLK_HOLD): the timer fires early, once it has aged, so that the
 * requester runs again with SROCE_REQ_HINT_TIMER_AGED and lets the packet
 * go asking for an ACK.  A lost response then costs half the
 * period, not a timeout and a go-back.  sroce_sq_timer_events() sets the
 * timer back to its deadline.  Returns true if the timer aged meanwhile:
 * the caller asks the core again, now with the hint.
 */
bool sroce_sq_timer_hold(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;

	if (!timer_pending(&s->rexmit) || s->rexmit_grace || s->rexmit_early)
		return false;
	/* Aged since the requester's hint was taken: ask again at once. */
	if (!time_before(jiffies, s->rexmit_aged_at))
		return true;
	s->rexmit_early = true;
	mod_timer(&s->rexmit, s->rexmit_aged_at);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timer_hold);

/* The run-on after a retransmit expiry: an eighth of the period, at least a tick. */
static unsigned long sroce_rexmit_grace(const struct sroce_qp *qp)
{
	return sroce_ns_to_jiffies(sroce_timeout_ns(qp->timeout) / 8);
}

/* Carry out a core's timer command. */
void sroce_sq_timer_apply(struct sroce_qp *qp, const struct sroce_sq_ret *r)
{
	struct sroce_sqs *s = &qp->sqs;
	unsigned long deadline, period;

	switch (r->timer) {
	case SROCE_TMR_ARM:
	case SROCE_TMR_RESTART:
		period = sroce_ns_to_jiffies(sroce_timeout_ns(qp->timeout));
		deadline = jiffies + period;
		s->rexmit_deadline = deadline;
		s->rexmit_aged_at = jiffies + period / SROCE_REQ_AGED_DIVISOR;
		sroce_rexmit_reset(s);
		mod_timer(&s->rexmit, deadline);
		break;
	case SROCE_TMR_CANCEL:
		timer_delete(&s->rexmit);
		clear_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
		sroce_rexmit_reset(s);
		break;
	case SROCE_TMR_RNR:
		timer_delete(&s->rexmit);
		clear_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
		sroce_rexmit_reset(s);
		mod_timer(&s->rnr, jiffies + sroce_ns_to_jiffies(sroce_rnr_timer_ns(r->rnr_code)));
		sroce_count(qp->sdev, SROCE_CNT_SQ_RNR_WAITS);
		break;
	default:
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timer_apply);

/*
 * The timer events that are due, through the core.  A retransmit expiry
 * that a restart overtook (the deadline moved on since) is ignored; the
 * timer runs again for the new deadline.  Returns true if one was handled.
 */
bool sroce_sq_timer_events(struct sroce_qp *qp)
{
	struct sroce_sqs *s = &qp->sqs;
	struct sroce_sq_ret r;
	bool did = false;

	if (test_and_clear_bit(SROCE_SQ_EV_RNR, &s->events)) {
		r = sroce_comp_rnr_expired(&s->core);
		trace_sroce_comp_timer(qp->ibqp.qp_num, true,
				       sroce_sq_acked_psn(&s->core), &r);
		sroce_sq_timer_apply(qp, &r);
		did = true;
	}
	if (s->rexmit_early && !timer_pending(&s->rexmit)) {
		/* The early expiry of a hold has run: back to the deadline. */
		s->rexmit_early = false;
		if (time_before(jiffies, s->rexmit_deadline)) {
			clear_bit(SROCE_SQ_EV_TIMEOUT, &s->events);
			mod_timer(&s->rexmit, s->rexmit_deadline);
		}
	}
	if (test_and_clear_bit(SROCE_SQ_EV_TIMEOUT, &s->events) &&
	    time_after_eq(jiffies, s->rexmit_deadline)) {
		if (!s->rexmit_grace) {
			s->rexmit_grace = true;
			s->rexmit_deadline = jiffies + sroce_rexmit_grace(qp);
			mod_timer(&s->rexmit, s->rexmit_deadline);
			sroce_count(qp->sdev, SROCE_CNT_SQ_TIMER_GRACE);
			return did;
		}
		r = sroce_comp_timeout(&s->core);
		trace_sroce_comp_timer(qp->ibqp.qp_num, false,
				       sroce_sq_acked_psn(&s->core), &r);
		if (r.action == SROCE_SQ_ACCEPT)
			sroce_count(qp->sdev, SROCE_CNT_SQ_TIMEOUTS);
		sroce_sq_timer_apply(qp, &r);
		did = true;
	}
	return did;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sq_timer_events);
