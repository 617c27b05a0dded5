/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The C ABI of the memory window core: whether a bind, an invalidation or
 * a remote access through a window may go, and what it makes of the
 * window.  Like the other cores it is a decision function: the caller
 * looks the window and the MR up, describes them in plain fields, and
 * carries out the verdict under its own lock.  No allocation, no lock,
 * no kernel header.
 *
 *	v = sroce_mw_bind(&in);		BIND_MW: v.status SUCCESS or MW_BIND_ERR;
 *					on success the window becomes v.state
 *					with key v.rkey
 *	v = sroce_mw_invalidate(&in);	LOCAL_INV or SEND with Invalidate
 *	v = sroce_mw_access(&in);	an R_Key naming a window, at the responder:
 *					on success the access starts at v.va in
 *					the MR (a zero-based window's addresses
 *					count from 0)
 *
 * Rules are the IBA Vol 1 compliance statements (C10-xx, o10-xx) rxe and
 * the IBA give for windows, and named tags (enum sroce_mw_rule;
 * kunit/spec-rules.txt).
 */
#ifndef SROCE_MW_ABI_H
#define SROCE_MW_ABI_H

#include "types.h"
#include "sq_abi.h"

/* Access bits: the values of IB_ACCESS_* (the driver checks they agree). */
#define SROCE_MWA_LOCAL_WRITE 0x01
#define SROCE_MWA_REMOTE_WRITE 0x02
#define SROCE_MWA_REMOTE_READ 0x04
#define SROCE_MWA_REMOTE_ATOMIC 0x08
#define SROCE_MWA_MW_BIND 0x10
#define SROCE_MWA_ZERO_BASED 0x20
/* What a window may grant: remote rights only. */
#define SROCE_MWA_WINDOW (SROCE_MWA_REMOTE_WRITE | SROCE_MWA_REMOTE_READ | SROCE_MWA_REMOTE_ATOMIC)

enum sroce_mw_state {
	SROCE_MW_FREE = 0,	/* type 2: not bound */
	SROCE_MW_VALID = 1,	/* bound (type 1: always, length 0 when unbound) */
	SROCE_MW_STATE_COUNT = 2,
};

#define SROCE_MW_RULE_LIST(X)							\
	X(SROCE_MWR_NONE, "none")						\
	/* a bind that may go re-keys the window */				\
	X(SROCE_MWR_BIND, "mw-bind")						\
	/* the WQE names a window or MR by a key it no longer has */		\
	X(SROCE_MWR_KEY, "mw-key")						\
	/* a window grants remote rights only */				\
	X(SROCE_MWR_RIGHTS, "mw-rights")					\
	/* a window is bound only on a QP of its PD */				\
	X(SROCE_MWR_C10_72, "C10-72")						\
	/* the MR was registered with MW_BIND */				\
	X(SROCE_MWR_C10_73, "C10-73")						\
	/* remote write or atomic needs local write on the MR */		\
	X(SROCE_MWR_C10_74, "C10-74")						\
	/* the window lies inside the MR */					\
	X(SROCE_MWR_C10_75, "C10-75")						\
	/* a type 1 window is not zero-based */					\
	X(SROCE_MWR_O10_36_2_2, "o10-36.2.2")					\
	/* a type 1 window cannot be invalidated */				\
	X(SROCE_MWR_O10_37_2_26, "o10-37.2.26")					\
	/* a type 2 window is bound only when free */				\
	X(SROCE_MWR_O10_37_2_30, "o10-37.2.30")					\
	/* a type 2 bind has an MR and a length */				\
	X(SROCE_MWR_O10_37_2_40, "o10-37.2.40")					\
	/* a type 2 window, by its QP and key, goes free */			\
	X(SROCE_MWR_INVALIDATE, "mw-invalidate")				\
	/* an access through a window: key, state, PD, QP, rights, range */	\
	X(SROCE_MWR_ACCESS, "mw-access")

enum sroce_mw_rule {
	SROCE_MW_RULE_LIST(SROCE_ENUM_ENTRY)
	SROCE_MWR_COUNT,
};

/* A BIND_MW work request and what the caller found. */
struct sroce_mw_bind_in {
	uint64_t addr;		/* the window asked for */
	uint64_t length;	/* 0: unbind (type 1) */
	uint64_t mr_iova;	/* the MR named by mr_lkey */
	uint64_t mr_length;
	uint32_t cur_rkey;	/* the window's key now */
	uint32_t wr_mw_rkey;	/* the key the WQE names the window by */
	uint32_t wr_rkey;	/* the key asked for: its low 8 bits are the window's next */
	uint32_t access;	/* SROCE_MWA_*, asked for the window */
	uint32_t mr_access;	/* SROCE_MWA_*, of the MR */
	uint8_t type;		/* 1 or 2 */
	uint8_t state;		/* enum sroce_mw_state */
	uint8_t mr_found;	/* mr_lkey names a live MR with that key */
	uint8_t qp_pd_match;	/* the QP's PD is the window's */
	uint8_t mr_pd_match;	/* the MR's PD is the window's */
	uint8_t pad[3];
};

/* A LOCAL_INV or SEND with Invalidate naming a window. */
struct sroce_mw_inv_in {
	uint32_t cur_rkey;	/* the window's key now */
	uint32_t rkey;		/* the key to invalidate */
	uint8_t type;
	uint8_t state;
	uint8_t qp_match;	/* it comes on (type 2: it is bound to) this QP */
	uint8_t pad[5];
};

/* An access through a window's R_Key at the responder. */
struct sroce_mw_access_in {
	uint64_t va;		/* [va, va + len) asked for (zero-based: from 0) */
	uint64_t len;
	uint64_t addr;		/* the window */
	uint64_t length;
	uint32_t cur_rkey;
	uint32_t rkey;		/* the R_Key of the request */
	uint32_t access;	/* SROCE_MWA_* the window grants, and ZERO_BASED */
	uint32_t want;		/* SROCE_MWA_* the request needs */
	uint8_t type;
	uint8_t state;
	uint8_t pd_match;	/* the QP's PD is the window's */
	uint8_t qp_match;	/* type 2: bound to this QP */
	uint8_t pad[4];
};

struct sroce_mw_verdict {
	uint64_t va;		/* access: where it starts in the MR; else 0 */
	uint32_t rkey;		/* bind: the window's key after it */
	uint8_t status;		/* enum sroce_wc_status: SUCCESS or the error */
	uint8_t state;		/* the window's state after it */
	uint8_t rule;		/* enum sroce_mw_rule */
	uint8_t pad;
};

SROCE_STATIC_ASSERT(sizeof(struct sroce_mw_bind_in) == 64, "mw bind layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_mw_inv_in) == 16, "mw inv layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_mw_access_in) == 56, "mw access layout");
SROCE_STATIC_ASSERT(sizeof(struct sroce_mw_verdict) == 16, "mw verdict layout");

SROCE_EXTERN_C_BEGIN

/* BIND_MW: SUCCESS (the window becomes state with key rkey) or MW_BIND_ERR. */
struct sroce_mw_verdict sroce_mw_bind(const struct sroce_mw_bind_in *in);
/* LOCAL_INV or SEND with Invalidate: SUCCESS (free) or the error status. */
struct sroce_mw_verdict sroce_mw_invalidate(const struct sroce_mw_inv_in *in);
/* An R_Key naming a window: SUCCESS or REM_ACCESS_ERR. */
struct sroce_mw_verdict sroce_mw_access(const struct sroce_mw_access_in *in);

const char *sroce_mw_rule_name(uint8_t rule);

SROCE_EXTERN_C_END

#endif /* SROCE_MW_ABI_H */
