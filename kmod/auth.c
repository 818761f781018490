// SPDX-License-Identifier: GPL-2.0
/*
 * Frame authentication: HMAC-SHA256 with the kernel crypto API, truncated
 * to 128 bits, and an anti-replay window per sender and class (as IPsec's
 * ESP, RFC 4303 3.4.3, but 1024 numbers wide: shared/nc_replay.h says why).
 *
 * Why HMAC and not an AEAD such as gcm(aes), as TIPC uses: netcoll only
 * needs integrity, and a MAC needs no nonce.  A communicator's key is
 * shared by all its members and survives re-creating the communicator,
 * while packet numbers start again: under GCM that would reuse nonces,
 * which gives the authentication key away.  HMAC has no such failure.
 *
 * Replays across incarnations of a communicator carry another epoch (in
 * the header, so under the tag) and are dropped by the receive path
 * before their packet number is remembered; within one incarnation the
 * window drops them.  Packet numbers start from the sender's real time in
 * nanoseconds, so a new incarnation numbers above every frame of an older
 * one (as long as the clock does not go back): old frames, even joins,
 * which carry no epoch, cannot push a window past the new frames.
 * Control frames (no payload) number separately from data frames, because
 * a priority qdisc lets them overtake queued data and the window would
 * take the data for old.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "auth.h"
#include "shared/nc_replay.h"

#define NCK_AUTH_TAG_LEN		16

struct nck_auth {
	struct crypto_shash *tfm;
	atomic64_t tx_pn[2];	/* [1]: control frames */
	spinlock_t lock;	/* protects win[] */
	struct nc_replay win[];	/* [sender * 2 + class] */
};

struct nck_auth *nck_auth_create(const u8 *key, u32 key_len, u32 peers)
{
	struct nck_auth *a;
	int err;

	a = kvzalloc(struct_size(a, win, 2 * (size_t)peers), GFP_KERNEL_ACCOUNT);
	if (!a)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&a->lock);
	atomic64_set(&a->tx_pn[0], ktime_get_real_ns());
	atomic64_set(&a->tx_pn[1], ktime_get_real_ns());
	a->tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(a->tfm)) {
		err = PTR_ERR(a->tfm);
		kvfree(a);
		return ERR_PTR(err);
	}
	err = crypto_shash_setkey(a->tfm, key, key_len);
	if (err) {
		nck_auth_free(a);
		return ERR_PTR(err);
	}
	return a;
}

void nck_auth_free(struct nck_auth *a)
{
	if (!a)
		return;
	crypto_free_shash(a->tfm);
	kvfree(a);
}

/*
 * The truncated tag of skb's first len bytes, read where they lie: a
 * received frame is checked before anything is allocated for it.
 */
static int nck_auth_tag(struct nck_auth *a, struct sk_buff *skb, u32 len,
			u8 *tag)
{
	SHASH_DESC_ON_STACK(desc, a->tfm);
	u8 mac[SHA256_DIGEST_SIZE];
	struct skb_seq_state st;
	const u8 *data;
	u32 off, n;
	int err;

	desc->tfm = a->tfm;
	err = crypto_shash_init(desc);
	skb_prepare_seq_read(skb, 0, len, &st);
	for (off = 0; !err && off < len; off += n) {
		/* a block may run past len: skb_seq_read() does not cut it */
		n = min(skb_seq_read(off, &data, &st), len - off);
		if (!n) {
			err = -EINVAL;
			break;
		}
		err = crypto_shash_update(desc, data, n);
	}
	skb_abort_seq_read(&st);
	if (!err)
		err = crypto_shash_final(desc, mac);
	shash_desc_zero(desc);
	memcpy(tag, mac, NCK_AUTH_TAG_LEN);
	memzero_explicit(mac, sizeof(mac));
	return err;
}

int nck_auth_seal(struct nck_auth *a, struct sk_buff *skb)
{
	struct netcoll_hdr *h = (struct netcoll_hdr *)skb->data;
	bool ctl = skb->len == NETCOLL_HDR_LEN;
	struct netcoll_auth *t;
	u64 pn;

	BUILD_BUG_ON(sizeof(*t) != NETCOLL_AUTH_LEN);
	if (skb_is_nonlinear(skb) || skb_tailroom(skb) < NETCOLL_AUTH_LEN)
		return -ENOBUFS;
	h->flags |= htons(NETCOLL_F_AUTH);
	pn = atomic64_inc_return(&a->tx_pn[ctl]);
	if (ctl)
		pn |= NETCOLL_PN_CONTROL;
	t = skb_put(skb, NETCOLL_AUTH_LEN);
	t->pn = cpu_to_be64(pn);
	return nck_auth_tag(a, skb, skb->len - NCK_AUTH_TAG_LEN, t->tag);
}

int nck_auth_open(struct nck_auth *a, struct sk_buff *skb,
		  const struct nc_frame *f, u64 *pnp)
{
	u32 body = NETCOLL_HDR_LEN + f->len;
	struct netcoll_auth t;
	u8 tag[NCK_AUTH_TAG_LEN];
	bool ctl = !f->len;
	u64 pn;

	if (!(f->flags & NETCOLL_F_AUTH))
		return NETCOLL_STAT_DROP_AUTH;
	/* nc_wire_check() made sure the trailer is there */
	if (skb_copy_bits(skb, body, &t, sizeof(t)) ||
	    nck_auth_tag(a, skb, body + sizeof(t.pn), tag) ||
	    crypto_memneq(tag, t.tag, NCK_AUTH_TAG_LEN))
		return NETCOLL_STAT_DROP_AUTH;
	pn = be64_to_cpu(t.pn);
	if (!!(pn & NETCOLL_PN_CONTROL) != ctl)
		return NETCOLL_STAT_DROP_AUTH;
	/* only a frame that is ours costs a copy */
	if (pskb_trim(skb, body) || skb_linearize(skb))
		return NETCOLL_STAT_DROP_MEMORY;
	*pnp = pn;
	return 0;
}

/* pn in the window of f's sender and class (control: no payload). */
bool nck_auth_commit(struct nck_auth *a, const struct nc_frame *f, u64 pn)
{
	bool fresh;

	spin_lock(&a->lock);
	fresh = nc_replay_fresh(&a->win[2 * f->src_rank + !f->len],
				pn & ~NETCOLL_PN_CONTROL);
	spin_unlock(&a->lock);
	return fresh;
}
