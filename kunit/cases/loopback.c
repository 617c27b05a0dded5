// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The loopback stream test (see loopback.h): requester core -> lossy
 * channel -> responder core executing against simulated remote memory
 * and a receive queue -> lossy channel -> completer core.  Shared by
 * KUnit and the userspace GoogleTest runner; it uses no library, only
 * the compiler's builtins.
 */
#include "loopback.h"
#include <sroce/psn.h>

#define loop_copy(d, s, n) __builtin_memcpy((d), (s), (n))
#define loop_zero(d, n) __builtin_memset((d), 0, (n))

#define SROCE_LOOP_PROFILE(name_, fd, fu, fr, bd, bu, br, rate, win, rd, every, hold)	\
	[SROCE_LOOP_P_##name_] = {							\
		.name = #name_,								\
		.fwd = { .drop = (fd), .dup = (fu), .reorder = (fr) },			\
		.back = { .drop = (bd), .dup = (bu), .reorder = (br) },			\
		.recv_rate = (rate), .window = (win), .rd_atomic = (rd),		\
		.ackreq_every = (every), .hold_tail = (hold), .coalesce = 16,		\
		.wqes = SROCE_LOOP_WQES,						\
	},

const struct sroce_loop_profile sroce_loop_profiles[SROCE_LOOP_NPROFILES] = {
	SROCE_LOOP_PROFILE_LIST
};

#undef SROCE_LOOP_PROFILE

/*
 * Checks.  Each is reported; a failed one also counts, and ends the stream
 * at the end of its round (one the stream cannot go on after, at once).
 */
static int check_eq(struct sroce_loop_ws *ws, const char *what, uint64_t expected,
		    uint64_t actual)
{
	ws->checks++;
	if (expected != actual)
		ws->failures++;
	ws->chk->check(ws->chk->ctx, what, ws->round, expected, actual);
	return expected == actual;
}

/* @cond must hold; reported as 1 (expected) against @cond. */
static int check_true(struct sroce_loop_ws *ws, const char *what, int cond)
{
	return check_eq(ws, what, 1, cond ? 1 : 0);
}

/* @actual <= @limit: reported as itself when it holds, against @limit when not. */
static int check_le(struct sroce_loop_ws *ws, const char *what, uint64_t limit, uint64_t actual)
{
	check_eq(ws, what, actual <= limit ? actual : limit, actual);
	return actual <= limit;
}

/* PSN @actual is @bound or after it (24-bit serial order), reported like check_le(). */
static int check_psn_ge(struct sroce_loop_ws *ws, const char *what, uint32_t bound,
			uint32_t actual)
{
	int ok = sroce_psn_diff(actual, bound) >= 0;

	check_eq(ws, what, ok ? actual : bound, actual);
	return ok;
}

/* A check after which the stream cannot go on. */
static void fatal(struct sroce_loop_ws *ws)
{
	ws->stop = 1;
}

#define TRACE(ws, ...)								\
	do {									\
		const struct sroce_loop_tracer *tr_ = (ws)->tr;			\
										\
		if (tr_ && tr_->trace)						\
			tr_->trace(tr_->ctx, __VA_ARGS__);			\
	} while (0)

/* splitmix64: a deterministic generator, seeded per run. */
static uint64_t rng_next(struct sroce_loop_ws *ws)
{
	uint64_t z = (ws->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n), @n > 0. */
static uint32_t rng_below(struct sroce_loop_ws *ws, uint32_t n)
{
	return (uint32_t)(((rng_next(ws) >> 32) * n) >> 32);
}

/* True with a chance of @bp basis points. */
static int chance(struct sroce_loop_ws *ws, uint32_t bp)
{
	return rng_below(ws, 10000) < bp;
}

/* Channels. */

static struct sroce_loop_pkt *chan_slot(struct sroce_loop_chan *c, uint32_t i)
{
	return &c->q[(c->head + i) % c->cap];
}

static void chan_push(struct sroce_loop_ws *ws, struct sroce_loop_chan *c,
		      const struct sroce_loop_pkt *p)
{
	if (!check_le(ws, "channel capacity (packets queued)", c->cap - 1, c->count)) {
		fatal(ws);
		return;
	}
	loop_copy(chan_slot(c, c->count), p, sizeof(*p));
	c->count++;
}

static void chan_send(struct sroce_loop_ws *ws, struct sroce_loop_chan *c,
		      const struct sroce_loop_pkt *p)
{
	struct sroce_loop_pkt *a, *b;

	if (chance(ws, c->link.drop)) {
		TRACE(ws, "  channel lost a packet\n");
		return;
	}
	chan_push(ws, c, p);
	if (chance(ws, c->link.dup))
		chan_push(ws, c, p);
	if (c->count >= 2 && chance(ws, c->link.reorder)) {
		a = chan_slot(c, c->count - 1);
		b = chan_slot(c, c->count - 2);
		loop_copy(&ws->swap, a, sizeof(*a));
		loop_copy(a, b, sizeof(*a));
		loop_copy(b, &ws->swap, sizeof(*b));
	}
}

/* The oldest packet, valid until the channel is sent to again; 0 when empty. */
static const struct sroce_loop_pkt *chan_take(struct sroce_loop_chan *c)
{
	const struct sroce_loop_pkt *p;

	if (!c->count)
		return 0;
	p = chan_slot(c, 0);
	c->head = (c->head + 1) % c->cap;
	c->count--;
	return p;
}

static void chan_init(struct sroce_loop_chan *c, const struct sroce_loop_link *l,
		      struct sroce_loop_pkt *q, uint32_t cap)
{
	c->link = *l;
	c->q = q;
	c->cap = cap;
	c->head = 0;
	c->count = 0;
}

/* The READ pattern: remote byte @va below SROCE_LOOP_WRITE_BASE. */
static uint8_t pattern(uint64_t va)
{
	return (uint8_t)(va * 7 + 3);
}

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
	chan_init(&ws->fwd, &p->fwd, ws->fwd_q, SROCE_LOOP_FWD_LEN);
	chan_init(&ws->back, &p->back, ws->back_q, SROCE_LOOP_BACK_LEN);
	for (i = 0; i < SROCE_LOOP_WRITE_BASE; i++)
		ws->remote[i] = pattern(i);

	psn = (uint32_t)rng_next(ws) & SROCE_PSN_MASK;
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
		check_eq(ws, "timer ARM only when stopped (running)", 0, ws->timer_on);
		ws->timer_on = 1;
		ws->deadline = ws->round + SROCE_LOOP_TIMEOUT;
		break;
	case SROCE_TMR_RESTART:
		check_eq(ws, "timer RESTART only when running (running)", 1, ws->timer_on);
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
	uint32_t kind = rng_below(ws, 10);
	uint32_t len = rng_below(ws, 5) == 0 ? 0 : 1 + rng_below(ws, SROCE_LOOP_MAX_MSG);
	uint32_t i, pos;

	loop_zero(k, sizeof(*k));
	w->flags = rng_below(ws, 3) == 0 ? SROCE_WF_SIGNALED : 0;
	if (kind < 3) {
		w->op = rng_below(ws, 2) ? SROCE_WR_SEND : SROCE_WR_SEND_IMM;
	} else if (kind < 6) {
		w->op = rng_below(ws, 2) ? SROCE_WR_WRITE : SROCE_WR_WRITE_IMM;
		w->remote_va = SROCE_LOOP_WRITE_BASE + (uint64_t)n * SROCE_LOOP_WRITE_STRIDE;
	} else if (kind < 8) {
		w->op = SROCE_WR_READ;
		w->remote_va = rng_below(ws, SROCE_LOOP_WRITE_BASE - SROCE_LOOP_MAX_MSG - 1);
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
	if (rng_below(ws, 8) == 0)
		w->flags |= SROCE_WF_FENCE;
	w->length = len;
	w->rkey = 0x1234;
	w->imm = n;
	if (w->op != SROCE_WR_READ)
		for (i = 0; i < len; i++)
			k->local[i] = (uint8_t)rng_next(ws);
	if (w->op == SROCE_WR_SEND || w->op == SROCE_WR_SEND_IMM)
		ws->send_wqe[ws->nsends++] = (uint16_t)n;

	pos = sroce_sq_producer(&ws->sq);
	ws->ring[pos % SROCE_LOOP_SLOTS] = *w;
	ws->nwork++;
	if (!check_eq(ws, "post takes the WQE", 1, sroce_req_post(&ws->sq, 1)) ||
	    !check_eq(ws, "producer position is the WQE's index", n, pos))
		fatal(ws);
}

static void pull_responses(struct sroce_loop_ws *ws);

/* A receiver that keeps a few receives posted, slowly when recv_rate is low. */
static void receiver_posts(struct sroce_loop_ws *ws)
{
	if (ws->recvs < SROCE_LOOP_MAX_RECVS && rng_below(ws, 100) < ws->p->recv_rate) {
		ws->recvs++;
		sroce_resp_set_credits(&ws->rq, ws->recvs);
		pull_responses(ws);
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
			check_true(ws, "a retransmission follows an accepted NAK",
				   pkt.flags & SROCE_PF_RETRY);
			check_psn_ge(ws, "first unacknowledged PSN at or past the NAK's",
				     ws->expect_psn, from);
			check_eq(ws, "retransmission starts at max(NAK PSN, acked + 1)", from,
				 pkt.psn);
			ws->expect_retry = 0;
		}
		if (!(pkt.flags & SROCE_PF_RETRY)) {
			check_eq(ws, "new PSNs are consecutive",
				 ws->new_psn ? ws->next_new : pkt.psn, pkt.psn);
			ws->new_packets++;
		}
		TRACE(ws, "r%u send psn %u op %#x wqe %u len %u flags %#x rule %s\n", ws->round,
		      pkt.psn, pkt.opcode, pkt.wqe, pkt.length, pkt.flags,
		      sroce_sq_rule_name(pkt.rule));

		loop_zero(p, sizeof(*p));
		p->req = pkt;
		if (!check_le(ws, "packet's WQE was posted (index + 1)", ws->nwork,
			      (uint64_t)pkt.wqe + 1) ||
		    !check_le(ws, "packet payload within the path MTU", SROCE_LOOP_PMTU,
			      pkt.length)) {
			fatal(ws);
			break;
		}
		k = &ws->work[pkt.wqe];
		if (pkt.length) {
			if (!check_le(ws, "packet payload within its message", k->w.length,
				      (uint64_t)pkt.offset + pkt.length)) {
				fatal(ws);
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
		chan_send(ws, &ws->fwd, p);
	}
}

/* Responder side: execute against remote memory and the receive queue. */

static void deliver_send(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p, uint8_t xf)
{
	const struct sroce_loop_work *k;

	if (xf & SROCE_XF_FIRST)
		ws->msg_len = 0;
	if (!check_le(ws, "SEND message within its longest", SROCE_LOOP_MAX_MSG,
		      (uint64_t)ws->msg_len + p->len)) {
		fatal(ws);
		return;
	}
	loop_copy(&ws->msg[ws->msg_len], p->data, p->len);
	ws->msg_len += p->len;
	if (!(xf & SROCE_XF_LAST))
		return;
	/* SEND payloads arrive in order, each once. */
	if (!check_le(ws, "SEND message has a SEND WQE (messages delivered)", ws->nsends,
		      ws->nreceived + 1)) {
		fatal(ws);
		return;
	}
	k = &ws->work[ws->send_wqe[ws->nreceived++]];
	check_eq(ws, "SEND payload length", k->w.length, ws->msg_len);
	if (k->w.length == ws->msg_len)
		check_eq(ws, "SEND payload bytes (memcmp)", 0,
			 ws->msg_len ? __builtin_memcmp(ws->msg, k->local, ws->msg_len) != 0 : 0);
}

static uint8_t execute(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p, uint8_t xf,
		       uint64_t *orig)
{
	uint64_t v;

	if (xf & SROCE_XF_WQE) {
		if (!ws->recvs)
			return SROCE_EXEC_RNR;
		ws->recvs--;
		sroce_resp_set_credits(&ws->rq, ws->recvs);
	}
	if (xf & SROCE_XF_SEND) {
		deliver_send(ws, p, xf);
	} else if (xf & SROCE_XF_WRITE) {
		if (xf & SROCE_XF_FIRST)
			ws->write_va = p->req.va;
		if (!check_le(ws, "WRITE within remote memory", SROCE_LOOP_REMOTE_SIZE,
			      ws->write_va + p->len)) {
			fatal(ws);
			return SROCE_EXEC_OK;
		}
		loop_copy(&ws->remote[ws->write_va], p->data, p->len);
		ws->write_va += p->len;
		if ((xf & SROCE_XF_LAST) && (xf & SROCE_XF_WQE))
			ws->imms++;
	} else if (xf & SROCE_XF_ATOMIC) {
		if (!check_le(ws, "ATOMIC within remote memory", SROCE_LOOP_REMOTE_SIZE,
			      p->req.va + 8)) {
			fatal(ws);
			return SROCE_EXEC_OK;
		}
		loop_copy(&v, &ws->remote[p->req.va], 8);
		*orig = v;
		if (p->req.opcode == SROCE_OP_FETCH_ADD)
			v += p->req.swap_add;
		else if (v == p->req.compare)
			v = p->req.swap_add;
		loop_copy(&ws->remote[p->req.va], &v, 8);
	}
	return SROCE_EXEC_OK;
}

static void pull_responses(struct sroce_loop_ws *ws)
{
	struct sroce_loop_pkt *p = &ws->scratch;
	struct sroce_resp_desc d;

	while (!ws->stop && sroce_resp_pull(&ws->rq, &d)) {
		/* Reported as 0x100 | its rule if it does. */
		if (!check_eq(ws, "responder never moves to error (0x100 | rule)", 0,
			      d.kind == SROCE_RESP_QP_ERROR ? 0x100u | d.rule : 0)) {
			TRACE(ws, "responder error, rule %s\n", sroce_rule_name(d.rule));
			fatal(ws);
			return;
		}
		if (d.kind == SROCE_RESP_NAK && (d.syndrome & 0x1f) == SROCE_NAK_PSN_SEQ_ERR) {
			check_eq(ws, "a sequence NAK names the expected (first missing) PSN",
				 sroce_resp_expected_psn(&ws->rq), d.psn);
			/* C9-114: one NAK per episode: a second one needs the PSN to have moved. */
			check_true(ws, "at most one sequence NAK per episode",
				   !ws->nak_sent || d.psn != ws->last_nak_psn);
			ws->nak_sent = 1;
			ws->last_nak_psn = d.psn;
		}
		loop_zero(p, sizeof(*p));
		p->resp = d;
		if (d.kind >= SROCE_RESP_READ_FIRST && d.kind <= SROCE_RESP_READ_ONLY && d.length) {
			if (!check_le(ws, "READ response from the pattern region",
				      SROCE_LOOP_WRITE_BASE, d.va + d.length) ||
			    !check_le(ws, "READ response within the path MTU", SROCE_LOOP_PMTU,
				      d.length)) {
				fatal(ws);
				return;
			}
			loop_copy(p->data, &ws->remote[d.va], d.length);
			p->len = d.length;
		}
		chan_send(ws, &ws->back, p);
	}
}

static void deliver(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p)
{
	struct sroce_req req = { 0 };
	struct sroce_exec ex = { 0 };
	struct sroce_resp_ret r;

	req.psn = p->req.psn;
	req.opcode = p->req.opcode;
	req.ackreq = (p->req.flags & SROCE_PF_ACKREQ) ? 1 : 0;
	req.payload_len = p->req.length;
	req.dma_len = p->req.dma_len;
	req.rkey = p->req.rkey;
	req.va = p->req.va;
	req.verdict = sroce_resp_classify(&ws->rq, req.psn);
	r = sroce_resp_rx(&ws->rq, &req);
	TRACE(ws, "  responder psn %u op %#x verdict %u -> %s %s %s\n", req.psn, req.opcode,
	      req.verdict, sroce_action_name(r.action), sroce_drop_reason_name(r.reason),
	      sroce_rule_name(r.rule));
	if (r.action == SROCE_ACT_EXECUTE) {
		ex.status = execute(ws, p, r.exec, &ex.atomic_orig);
		sroce_resp_executed(&ws->rq, &ex);
	}
	pull_responses(ws);
}

static void responder(struct sroce_loop_ws *ws)
{
	const struct sroce_loop_pkt *p;
	uint32_t i, n = ws->fwd.count;

	sroce_resp_batch_begin(&ws->rq);
	for (i = 0; i < n && !ws->stop && (p = chan_take(&ws->fwd)); i++)
		deliver(ws, p);
	sroce_resp_batch_end(&ws->rq);
	pull_responses(ws);
}

/* Completer side. */

static void retire(struct sroce_loop_ws *ws)
{
	struct sroce_loop_work *k;
	struct sroce_sq_cqe cqe;

	while (!ws->stop && sroce_comp_pull(&ws->sq, &cqe)) {
		if (!check_eq(ws, "completions in order (WQE index)", ws->done, cqe.wqe)) {
			fatal(ws);
			return;
		}
		k = &ws->work[cqe.wqe];
		check_eq(ws, "completed once (already completed)", 0, k->completed);
		if (cqe.status != SROCE_WC_SUCCESS)
			TRACE(ws, "wqe %u completed %s rule %s\n", cqe.wqe,
			      sroce_wc_status_name(cqe.status), sroce_sq_rule_name(cqe.rule));
		check_eq(ws, "completion status", SROCE_WC_SUCCESS, cqe.status);
		check_eq(ws, "completion signaled", (k->w.flags & SROCE_WF_SIGNALED) ? 1 : 0,
			 cqe.signaled);
		check_eq(ws, "completion byte_len", k->w.length, cqe.byte_len);
		k->completed = 1;
		ws->done++;
	}
}

static void place(struct sroce_loop_ws *ws, const struct sroce_loop_pkt *p,
		  const struct sroce_comp_place *pl)
{
	struct sroce_loop_work *k;

	if (!check_le(ws, "placement for a posted WQE (index + 1)", ws->nwork,
		      (uint64_t)pl->wqe + 1)) {
		fatal(ws);
		return;
	}
	k = &ws->work[pl->wqe];
	if (pl->atomic) {
		k->result = pl->atomic_orig;
		return;
	}
	check_eq(ws, "placement length is the response's payload", p->len, pl->length);
	if (!check_le(ws, "placement within the READ buffer", k->w.length,
		      (uint64_t)pl->offset + pl->length)) {
		fatal(ws);
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

	for (i = 0; i < n && !ws->stop && (p = chan_take(&ws->back)); i++) {
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
		check_psn_ge(ws, "acknowledged PSN never moves backwards", ws->acked, acked);
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

/* At the end: every byte where it belongs. */

/* Index of the first byte of @a that differs from @b, or @n. */
static uint32_t first_diff(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

static void check_data(struct sroce_loop_ws *ws)
{
	const struct sroce_loop_work *k;
	uint64_t fetch_adds = 0, counter;
	uint32_t i, j, imms = 0;

	for (i = 0; i < ws->nwork; i++) {
		k = &ws->work[i];
		switch (k->w.op) {
		case SROCE_WR_WRITE:
		case SROCE_WR_WRITE_IMM:
			if (k->w.op == SROCE_WR_WRITE_IMM)
				imms++;
			check_eq(ws, "WRITE region (first differing byte)", k->w.length,
				 first_diff(&ws->remote[k->w.remote_va], k->local, k->w.length));
			break;
		case SROCE_WR_READ:
			for (j = 0; j < k->w.length; j++)
				if (k->local[j] != pattern(k->w.remote_va + j))
					break;
			check_eq(ws, "READ bytes (first differing byte)", k->w.length, j);
			break;
		case SROCE_WR_FETCH_ADD:
			check_eq(ws, "FETCH_ADD executed exactly once each (result)", fetch_adds,
				 k->result);
			fetch_adds++;
			break;
		case SROCE_WR_CMP_SWAP:
			check_eq(ws, "CMP_SWAP executed once, in order (result)", k->w.compare,
				 k->result);
			break;
		default:
			break;
		}
	}
	check_eq(ws, "SEND messages delivered (no extra, none missing)", ws->nsends,
		 ws->nreceived);
	check_eq(ws, "WRITE with immediate executed once each", imms, ws->imms);
	loop_copy(&counter, &ws->remote[SROCE_LOOP_COUNTER_VA], 8);
	check_eq(ws, "FETCH_ADD counter", fetch_adds, counter);
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
		       rng_below(ws, 4) != 0)
			post_wqe(ws);
		receiver_posts(ws);
		requester(ws);
		responder(ws);
		completer(ws);
		timers(ws);
		if (ws->nwork == ws->wqes && ws->done == ws->nwork)
			break;
	}
	ws->rounds = ws->round;
	st = sroce_sq_get_stats(&ws->sq);
	if (check_eq(ws, "stream completes (WQEs retired)", ws->nwork, ws->done) &&
	    check_eq(ws, "every WQE posted", ws->wqes, ws->nwork)) {
		check_data(ws);
		check_eq(ws, "stats: successful completions", ws->nwork,
			 st->completions[SROCE_WC_SUCCESS]);
		check_eq(ws, "stats: packets - retransmits = new packets", ws->new_packets,
			 st->packets - st->retransmits);
	}
	clean = !p->fwd.drop && !p->back.drop && !p->fwd.dup && !p->fwd.reorder &&
		p->recv_rate == 100;
	if (clean) {
		check_eq(ws, "clean link: no retransmission", 0, st->retransmits);
		check_eq(ws, "clean link: no timeout", 0, st->timeouts);
	}
	return ws->failures;
}
