// SPDX-License-Identifier: GPL-2.0
/*
 * The copy cursor: a message laid over an SGE list, walked in either
 * direction.  The responder places SEND payloads with it, the requester
 * gathers request payloads, and the completer scatters READ responses
 * and stores ATOMIC results.
 *
 * Positions may only move forward, except that a copy at a position
 * behind the cursor (a retransmission) walks the list again from its
 * start.  Every SGE is checked against its MR (key, PD, access) when
 * the cursor first enters it, and each piece against the MR's range as it
 * is copied; the MR is held until the cursor leaves the SGE or
 * sroce_cursor_put() is called.
 */
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "dma.h"

void sroce_cursor_init(struct sroce_cursor *c, struct sroce_dev *sdev, struct sroce_pd *pd,
		       const struct rxe_sge *sge, u32 num_sge, int access)
{
	*c = (struct sroce_cursor){
		.sdev = sdev, .pd = pd, .sge = sge, .num_sge = num_sge, .access = access,
	};
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cursor_init);

void sroce_cursor_put(struct sroce_cursor *c)
{
	if (c->mr) {
		sroce_mr_put(c->mr);
		c->mr = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cursor_put);

static void sroce_cursor_next_sge(struct sroce_cursor *c)
{
	sroce_cursor_put(c);
	c->idx++;
	c->off = 0;
}

/* Move to message offset @pos.  -EMSGSIZE if the list ends before it. */
static int sroce_cursor_seek(struct sroce_cursor *c, u32 pos)
{
	if (pos < c->pos) {
		sroce_cursor_put(c);
		c->idx = 0;
		c->off = 0;
		c->pos = 0;
	}
	while (c->pos < pos) {
		u32 n;

		if (c->idx >= c->num_sge)
			return -EMSGSIZE;
		n = min(pos - c->pos, c->sge[c->idx].length - c->off);
		c->off += n;
		c->pos += n;
		if (c->off == c->sge[c->idx].length)
			sroce_cursor_next_sge(c);
	}
	return 0;
}

/*
 * The SGE under the cursor with bytes left, its MR referenced: 0,
 * -EMSGSIZE past the end of the list, -EACCES for a key, PD, access or
 * range the MR does not grant.
 */
static int sroce_cursor_enter(struct sroce_cursor *c)
{
	const struct rxe_sge *sge;

	while (c->idx < c->num_sge && c->off == c->sge[c->idx].length)
		sroce_cursor_next_sge(c);
	if (c->idx >= c->num_sge)
		return -EMSGSIZE;
	if (c->mr)
		return 0;
	/*
	 * The key, PD, access and where the cursor enters; the range of each
	 * piece is checked as it is copied (sroce_mr_copy(), sroce_mr_store()),
	 * so only the bytes a message uses must lie in the MR, as rxe has it.
	 * The requester's SGEs were checked whole when posted (wqe.c).
	 */
	sge = &c->sge[c->idx];
	c->mr = sroce_mr_get(c->sdev, c->pd, sge->lkey, c->access, sge->addr + c->off, 0);
	return c->mr ? 0 : -EACCES;
}

/*
 * Walk @len bytes from message offset @pos, calling @step for each piece
 * that lies in one SGE, with the SGE's MR, the piece's address and length,
 * and its offset from the start of the walk.
 */
static int sroce_cursor_walk(struct sroce_cursor *c, u32 pos, u32 len,
			     int (*step)(struct sroce_mr *mr, u64 iova, u32 n, u32 done, void *arg),
			     void *arg)
{
	int err = sroce_cursor_seek(c, pos);
	u32 done = 0;

	while (!err && done < len) {
		const struct rxe_sge *sge;
		u32 n;

		err = sroce_cursor_enter(c);
		if (err)
			break;
		sge = &c->sge[c->idx];
		n = min(len - done, sge->length - c->off);
		err = step(c->mr, sge->addr + c->off, n, done, arg);
		done += n;
		c->off += n;
		c->pos += n;
	}
	return err;
}

struct sroce_skb_copy {
	struct sk_buff *skb;
	unsigned int skb_off;
	int dir;
};

static int sroce_step_skb(struct sroce_mr *mr, u64 iova, u32 n, u32 done, void *arg)
{
	struct sroce_skb_copy *a = arg;

	return sroce_mr_copy(mr, iova, a->skb, a->skb_off + done, n, a->dir) ? -EFAULT : 0;
}

static int sroce_step_buf(struct sroce_mr *mr, u64 iova, u32 n, u32 done, void *arg)
{
	return sroce_mr_store(mr, iova, (const u8 *)arg + done, n);
}

/**
 * sroce_cursor_copy() - copy @len bytes at message offset @pos
 * @c: the cursor
 * @pos: offset in the message
 * @skb: the packet
 * @skb_off: offset of the bytes in @skb, from skb->data (frags allowed)
 * @len: bytes
 * @dir: SROCE_COPY_TO_MR (packet into the SGEs) or SROCE_COPY_FROM_MR
 *
 * Return: 0; -EMSGSIZE when the SGEs hold fewer bytes (a length error);
 * -EACCES when an SGE's key does not grant it (a protection error);
 * -EFAULT when the packet does not hold the bytes.
 */
int sroce_cursor_copy(struct sroce_cursor *c, u32 pos, struct sk_buff *skb,
		      unsigned int skb_off, u32 len, int dir)
{
	struct sroce_skb_copy a = { .skb = skb, .skb_off = skb_off, .dir = dir };

	return sroce_cursor_walk(c, pos, len, sroce_step_skb, &a);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cursor_copy);

/* Store @len bytes of @buf at message offset @pos (an ATOMIC's result). */
int sroce_cursor_write(struct sroce_cursor *c, u32 pos, const void *buf, u32 len)
{
	return sroce_cursor_walk(c, pos, len, sroce_step_buf, (void *)buf);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cursor_write);
