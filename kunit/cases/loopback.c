// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loopback stream test (see loopback.h): requester core -> lossy
 * channel -> responder core executing against simulated remote memory
 * and a receive queue -> lossy channel -> completer core.  Shared by
 * KUnit and the userspace GoogleTest runner; it uses no library, only
 * the compiler's builtins.  Here: the run, its work, its timers and the
 * requester and completer ends; the responder end is loopback_resp.c,
 * the generator and the channels loopback_link.c, the checks
 * loopback_check.c.
 */
#include "loopback_int.h"

static void init(struct sroce_loop_ws *ws, const struct sroce_loop_profile *p, uint32_t seed,
		 uint32_t wqes, const struct sroce_case_checker *chk,
		 const struct sroce_loop_tracer *tr)
{
	struct sroce_sq_params sp = { 0 };
	struct sroce_resp_params rp = { 0 };
	uint32_t i, psn;

	loop_zero(ws, sizeof(*ws));
	ws->p = p;
	ws->chk = chk;
	ws->tr = tr;
	ws->rng = seed;
	ws->wqes = wqes ? wqes : p->wqes;
	if (ws->wqes > SROCE_LOOP_MAX_WQES)
		ws->wqes = SROCE_LOOP_MAX_WQES;
	sroce_loop_chan_init(&ws->fwd, &p->fwd, ws->fwd_q, SROCE_LOOP_FWD_LEN);
	sroce_loop_chan_init(&ws->back, &p->back, ws->back_q, SROCE_LOOP_BACK_LEN);
	for (i = 0; i < SROCE_LOOP_WRITE_BASE; i++)
		ws->remote[i] = sroce_loop_pattern(i);

	psn = (uint32_t)sroce_loop_rng_next(ws) & SROCE_PSN_MASK;
	sp.psn = psn;
	sp.pmtu = SROCE_LOOP_PMTU;
	sp.window = p->window;
	sp.ackreq_every = p->ackreq_every;
	sp.hold_tail = (uint8_t)p->hold_tail;
	sp.max_rd_atomic = (uint8_t)p->rd_atomic;
	sp.timeout = 14;
	sp.retry_cnt = 7;
	sp.rnr_retry = 7;
	sroce_sq_init(&ws->sq, &sp, ws->ring, SROCE_LOOP_SLOTS);
	rp.epsn = psn;
	rp.pmtu = SROCE_LOOP_PMTU;
	rp.ack_coalesce_max = p->coalesce;
	rp.min_rnr_timer = 1;
	sroce_resp_init(&ws->rq, &rp, ws->res,
			p->rd_atomic < SROCE_LOOP_MAX_RES ? p->rd_atomic : SROCE_LOOP_MAX_RES);
	ws->acked = sroce_sq_acked_psn(&ws->sq);
}

/* Timers, in rounds. */

static void apply_timer(struct sroce_loop_ws *ws, struct sroce_sq_ret r)
{
	switch (r.timer) {
	case SROCE_TMR_ARM:
		sroce_loop_check_eq(ws, "timer ARM only when stopped (running)", 0, ws->timer_on);
		ws->timer_on = 1;
		ws->deadline = ws->round + SROCE_LOOP_TIMEOUT;
		break;
	case SROCE_TMR_RESTART:
		sroce_loop_check_eq(ws, "timer RESTART only when running (running)", 1,
				    ws->timer_on);
		ws->deadline = ws->round + SROCE_LOOP_TIMEOUT;
		break;
	case SROCE_TMR_CANCEL:
		ws->timer_on = 0;
		break;
	case SROCE_TMR_RNR:
		ws->timer_on = 0;
		ws->rnr_on = 1;
		ws->rnr_deadline = ws->round + SROCE_LOOP_RNR_WAIT;
		break;
	default:
		break;
	}
}

/* Work. */

static void post_wqe(struct sroce_loop_ws *ws)
{
	uint32_t n = ws->nwork;
	struct sroce_loop_work *k = &ws->work[n];
	struct sroce_sq_wqe *w = &k->w;
	uint32_t kind = sroce_loop_rng_below(ws, 10);
	uint32_t len = sroce_loop_rng_below(ws, 5) == 0 ? 0 :
		       1 + sroce_loop_rng_below(ws, SROCE_LOOP_MAX_MSG);
	uint32_t i, pos;

	loop_zero(k, sizeof(*k));
	w->flags = sroce_loop_rng_below(ws, 3) == 0 ? SROCE_WF_SIGNALED : 0;
	if (kind < 3) {
		w->op = sroce_loop_rng_below(ws, 2) ? SROCE_WR_SEND : SROCE_WR_SEND_IMM;
	} else if (kind < 6) {
		w->op = sroce_loop_rng_below(ws, 2) ? SROCE_WR_WRITE : SROCE_WR_WRITE_IMM;
		w->remote_va = SROCE_LOOP_WRITE_BASE + (uint64_t)n * SROCE_LOOP_WRITE_STRIDE;
	} else if (kind < 8) {
		w->op = SROCE_WR_READ;
		w->remote_va = sroce_loop_rng_below(ws, SROCE_LOOP_WRITE_BASE -
						    SROCE_LOOP_MAX_MSG - 1);
	} else if (kind == 8) {
		w->op = SROCE_WR_FETCH_ADD;
		w->remote_va = SROCE_LOOP_COUNTER_VA;
		w->swap_add = 1;
		len = 8;
	} else {
		w->op = SROCE_WR_CMP_SWAP;
		w->remote_va = SROCE_LOOP_SWAP_VA;
		w->compare = ws->swaps;
		w->swap_add = ws->swaps + 1;
		ws->swaps++;
		len = 8;
	}
	if (sroce_loop_rng_below(ws, 8) == 0)
		w->flags |= SROCE_WF_FENCE;
	w->length = len;
	w->rkey = 0x1234;
	w->imm = n;
	if (w->op != SROCE_WR_READ)
		for (i = 0; i < len; i++)
			k->local[i] = (uint8_t)sroce_loop_rng_next(ws);
	if (w->op == SROCE_WR_SEND || w->op == SROCE_WR_SEND_IMM)
		ws->send_wqe[ws->nsends++] = (uint16_t)n;

	pos = sroce_sq_producer(&ws->sq);
	ws->ring[pos % SROCE_LOOP_SLOTS] = *w;
	ws->nwork++;
	if (!sroce_loop_check_eq(ws, "post takes the WQE", 1, sroce_req_post(&ws->sq, 1)) ||
	    !sroce_loop_check_eq(ws, "producer position is the WQE's index", n, pos))
		sroce_loop_fatal(ws);
}

/* A receiver that keeps a few receives posted, slowly when recv_rate is low. */
static void receiver_posts(struct sroce_loop_ws *ws)
{
	if (ws->recvs < SROCE_LOOP_MAX_RECVS &&
	    sroce_loop_rng_below(ws, 100) < ws->p->recv_rate) {
		ws->recvs++;
		sroce_resp_set_credits(&ws->rq, ws->recvs);
		sroce_loop_pull_responses(ws);
	}
}

/*
 * Requester: up to 32 packets a round, the 32nd the last before a yield (a
 * budget), the timer's age hinted.
 */
static void requester(struct sroce_loop_ws *ws)
{
	struct sroce_loop_pkt *p = &ws->scratch;
	struct sroce_req_pkt pkt;
	struct sroce_sq_ret r;
	const struct sroce_loop_work *k;
	uint32_t i, from, take, after;

	for (i = 0; i < 32 && !ws->stop; i++) {
		/* As the driver: aged at SROCE_REQ_AGED_DIVISOR of the period. */
		uint8_t h = i == 31 ? SROCE_REQ_HINT_YIELD : 0;

		if (ws->timer_on &&
		    ws->round + SROCE_LOOP_TIMEOUT - SROCE_LOOP_TIMEOUT / SROCE_REQ_AGED_DIVISOR >=
		    ws->deadline)
			h |= SROCE_REQ_HINT_TIMER_AGED;
		r = sroce_req_next_hint(&ws->sq, &pkt, h);
		if (r.action != SROCE_SQ_SEND)
			break;
		apply_timer(ws, r);
		if (ws->expect_retry) {
			/* At the NAK's PSN, or past it if responses acknowledged more since. */
			from = sroce_psn_add(sroce_sq_acked_psn(&ws->sq), 1);
			sroce_loop_check_true(ws, "a retransmission follows an accepted NAK",
					      pkt.flags & SROCE_PF_RETRY);
			sroce_loop_check_psn_ge(ws, "first unacknowledged PSN at or past the NAK's",
						ws->expect_psn, from);
			sroce_loop_check_eq(ws, "retransmission starts at max(NAK PSN, acked + 1)",
					    from, pkt.psn);
			ws->expect_retry = 0;
		}
		if (!(pkt.flags & SROCE_PF_RETRY)) {
			sroce_loop_check_eq(ws, "new PSNs are consecutive",
					    ws->new_psn ? ws->next_new : pkt.psn, pkt.psn);
			ws->new_packets++;
		}
		TRACE(ws, "r%u send psn %u op %#x wqe %u len %u flags %#x rule %s\n", ws->round,
		      pkt.psn, pkt.opcode, pkt.wqe, pkt.length, pkt.flags,
		      sroce_sq_rule_name(pkt.rule));

		loop_zero(p, sizeof(*p));
		p->req = pkt;
		if (!sroce_loop_check_le(ws, "packet's WQE was posted (index + 1)", ws->nwork,
					 (uint64_t)pkt.wqe + 1) ||
		    !sroce_loop_check_le(ws, "packet payload within the path MTU",
					 SROCE_LOOP_PMTU, pkt.length)) {
			sroce_loop_fatal(ws);
			break;
		}
		k = &ws->work[pkt.wqe];
		if (pkt.length) {
			if (!sroce_loop_check_le(ws, "packet payload within its message",
						 k->w.length, (uint64_t)pkt.offset + pkt.length)) {
				sroce_loop_fatal(ws);
				break;
			}
			loop_copy(p->data, &k->local[pkt.offset], pkt.length);
			p->len = pkt.length;
		}
		/* A READ reserves one PSN per response packet (9.7.1). */
		take = 1;
		if (pkt.opcode == SROCE_OP_READ_REQUEST && pkt.dma_len)
			take = (pkt.dma_len + SROCE_LOOP_PMTU - 1) / SROCE_LOOP_PMTU;
		after = sroce_psn_add(pkt.psn, take);
		if (!ws->new_psn || sroce_psn_diff(after, ws->next_new) > 0)
			ws->next_new = after;
		ws->new_psn = 1;
		sroce_loop_chan_send(ws, &ws->fwd, p);
	}
}

/* Completer side. */

static void retire(struct sroce_loop_ws *ws)
{
	struct sroce_loop_work *k;
	struct sroce_sq_cqe cqe;

	while (!ws->stop && sroce_comp_pull(&ws->sq, &cqe)) {
		if (!sroce_loop_check_eq(ws, "completions in order (WQE index)", ws->done,
					 cqe.wqe)) {
			sroce_loop_fatal(ws);
			return;
		}
		k = &ws->work[cqe.wqe];
		sroce_loop_check_eq(ws, "completed once (already completed)", 0, k->completed);
		if (cqe.status != SROCE_WC_SUCCESS)
			TRACE(ws, "wqe %u completed %s rule %s\n", cqe.wqe,
			      sroce_wc_status_name(cqe.status), sroce_sq_rule_name(cqe.rule));
		sroce_loop_check_eq(ws, "completion status", SROCE_WC_SUCCESS, cqe.status);
		sroce_loop_check_eq(ws, "completion signaled",
				    (k->w.flags & SROCE_WF_SIGNALED) ? 1 : 0, cqe.signaled);
		sroce_loop_check_eq(ws, "completion byte_len", k->w.length, cqe.byte_len);
		k->completed = 1;
		ws->done++;
	}
}

static void place(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p,
		  const struct sroce_comp_place *pl)
{
	struct sroce_loop_work *k;

	if (!sroce_loop_check_le(ws, "placement for a posted WQE (index + 1)", ws->nwork,
				 (uint64_t)pl->wqe + 1)) {
		sroce_loop_fatal(ws);
		return;
	}
	k = &ws->work[pl->wqe];
	if (pl->atomic) {
		k->result = pl->atomic_orig;
		return;
	}
	sroce_loop_check_eq(ws, "placement length is the response's payload", p->len,
			    pl->length);
	if (!sroce_loop_check_le(ws, "placement within the READ buffer", k->w.length,
				 (uint64_t)pl->offset + pl->length)) {
		sroce_loop_fatal(ws);
		return;
	}
	if (pl->length == p->len)
		loop_copy(&k->local[pl->offset], p->data, pl->length);
}

static void completer(struct sroce_loop_ws *ws)
{
	const struct sroce_loop_pkt *p;
	struct sroce_comp_place pl;
	struct sroce_comp_pkt c;
	struct sroce_sq_ret r;
	uint32_t i, acked, n = ws->back.count;

	for (i = 0; i < n && !ws->stop && (p = sroce_loop_chan_take(&ws->back)); i++) {
		loop_zero(&c, sizeof(c));
		c.opcode = p->resp.opcode;
		c.psn = p->resp.psn;
		c.msn = p->resp.msn;
		c.syndrome = p->resp.has_aeth ? p->resp.syndrome : 0;
		c.payload_len = p->resp.length;
		c.atomic_orig = p->resp.atomic_orig;
		r = sroce_comp_rx(&ws->sq, &c, &pl);
		TRACE(ws, "r%u resp psn %u op %#x syn %#x msn %u -> %u %s\n", ws->round, c.psn,
		      c.opcode, c.syndrome, c.msn, r.action, sroce_sq_rule_name(r.rule));
		if (r.action == SROCE_SQ_PLACE) {
			place(ws, p, &pl);
			r = sroce_comp_placed(&ws->sq, SROCE_WC_SUCCESS);
		}
		if (r.action == SROCE_SQ_ACCEPT && r.rule == SROCE_SQR_SEQ_NAK) {
			ws->expect_retry = 1;
			ws->expect_psn = c.psn;
		}
		apply_timer(ws, r);
		acked = sroce_sq_acked_psn(&ws->sq);
		sroce_loop_check_psn_ge(ws, "acknowledged PSN never moves backwards", ws->acked,
					acked);
		ws->acked = acked;
		retire(ws);
	}
}

static void timers(struct sroce_loop_ws *ws)
{
	const struct sroce_resp_stats *rs;
	uint32_t i;

	if (ws->rnr_on && ws->round >= ws->rnr_deadline) {
		ws->rnr_on = 0;
		apply_timer(ws, sroce_comp_rnr_expired(&ws->sq));
	}
	if (ws->timer_on && ws->round >= ws->deadline) {
		ws->timer_on = 0;
		if (ws->tr && ws->tr->trace) {
			TRACE(ws,
			      "timeout round %u acked %u next %u resp epsn %u done %u/%u recvs %u\n",
			      ws->round, sroce_sq_acked_psn(&ws->sq), sroce_sq_next_psn(&ws->sq),
			      sroce_resp_expected_psn(&ws->rq), ws->done, ws->nwork, ws->recvs);
			rs = sroce_resp_get_stats(&ws->rq);
			for (i = 0; i < SROCE_DROP_REASON_COUNT; i++)
				if (rs->drops[i])
					TRACE(ws, "  responder drop %s: %llu\n",
					      sroce_drop_reason_name(i),
					      (unsigned long long)rs->drops[i]);
		}
		apply_timer(ws, sroce_comp_timeout(&ws->sq));
		retire(ws);
	}
}

uint64_t sroce_loop_run(struct sroce_loop_ws *ws, const struct sroce_loop_profile *p,
			uint32_t seed, uint32_t wqes, const struct sroce_case_checker *chk,
			const struct sroce_loop_tracer *tr)
{
	const struct sroce_sq_stats *st;
	int clean;

	init(ws, p, seed, wqes, chk, tr);
	for (ws->round = 0; ws->round < SROCE_LOOP_MAX_ROUNDS && !ws->failures; ws->round++) {
		/* Post new work while there is room. */
		while (ws->nwork < ws->wqes && !ws->stop && sroce_sq_room(&ws->sq) &&
		       sroce_loop_rng_below(ws, 4) != 0)
			post_wqe(ws);
		receiver_posts(ws);
		requester(ws);
		sroce_loop_responder(ws);
		completer(ws);
		timers(ws);
		if (ws->nwork == ws->wqes && ws->done == ws->nwork)
			break;
	}
	ws->rounds = ws->round;
	st = sroce_sq_get_stats(&ws->sq);
	if (sroce_loop_check_eq(ws, "stream completes (WQEs retired)", ws->nwork,
				ws->done) &&
	    sroce_loop_check_eq(ws, "every WQE posted", ws->wqes, ws->nwork)) {
		sroce_loop_check_data(ws);
		sroce_loop_check_eq(ws, "stats: successful completions", ws->nwork,
				    st->completions[SROCE_WC_SUCCESS]);
		sroce_loop_check_eq(ws, "stats: packets - retransmits = new packets",
				    ws->new_packets, st->packets - st->retransmits);
	}
	clean = !p->fwd.drop && !p->back.drop && !p->fwd.dup && !p->fwd.reorder &&
		p->recv_rate == 100;
	if (clean) {
		sroce_loop_check_eq(ws, "clean link: no retransmission", 0, st->retransmits);
		sroce_loop_check_eq(ws, "clean link: no timeout", 0, st->timeouts);
	}
	return ws->failures;
}
