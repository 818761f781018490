/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Authenticated frames (optional per communicator): every frame carries a
 * struct netcoll_auth trailer, an HMAC-SHA256 tag over header, payload and
 * packet number under the communicator's key, and receivers keep a replay
 * window per sender and class (uapi/linux/netcoll.h).
 *
 * Owner: struct nck_comm (c->auth), set at creation and never changed, so
 * the receive path reads it without a lock; freed with the communicator.
 * The windows are under nck_auth's own lock, taken only in softirq.
 */
#ifndef NCK_AUTH_H
#define NCK_AUTH_H

#include <linux/skbuff.h>

#include "shared/nc_wire.h"

struct nck_auth;

struct nck_auth *nck_auth_create(const u8 *key, u32 key_len, u32 peers);
void nck_auth_free(struct nck_auth *a);
/* Append the trailer to a linear frame being sent; 0 or -errno. */
int nck_auth_seal(struct nck_auth *a, struct sk_buff *skb);
/*
 * Check a received frame's tag (header validated into f, source rank a
 * member) and cut its trailer off: 0 and its packet number in *pn, or the
 * drop counter (enum netcoll_stat).  Nothing is remembered yet: a frame
 * the caller drops after this (another epoch) must not move the window.
 */
int nck_auth_open(struct nck_auth *a, struct sk_buff *skb,
		  const struct nc_frame *f, u64 *pn);
/* The frame passed every check: count its packet number as seen, once. */
bool nck_auth_commit(struct nck_auth *a, const struct nc_frame *f, u64 pn);

#endif /* NCK_AUTH_H */
