// SPDX-License-Identifier: GPL-2.0
/*
 * Alltoall schedules: the order in which this rank sends its blocks, and
 * for installed (contention-free) schedules the pairwise synchronisation
 * tokens around each send.  User space computes the global plan; every
 * rank installs only its slice, which is checked here as far as one
 * rank's view allows.
 *
 * Tokens between two ranks are told apart by their number in phase order
 * (tag NC_TAG_SYNC | k): the sender numbers its tokens to a rank by the
 * receiver's phase, the receiver numbers the tokens it awaits from a rank
 * by its own phase, and both orders agree when the plan is consistent.
 */
#include <linux/slab.h>
#include <linux/sort.h>

#include "core.h"

static struct nc_sched *nc_sched_alloc(u32 nphases, u32 nin, u32 nout)
{
	struct nc_sched *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->phase = kvcalloc(nphases, sizeof(*s->phase), GFP_KERNEL);
	s->in = kvcalloc(nin, sizeof(*s->in), GFP_KERNEL);
	s->out = kvcalloc(nout, sizeof(*s->out), GFP_KERNEL);
	if (!s->phase || (nin && !s->in) || (nout && !s->out)) {
		nc_sched_free(s);
		return NULL;
	}
	s->nphases = nphases;
	s->nin = nin;
	s->nout = nout;
	return s;
}

void nc_sched_free(struct nc_sched *s)
{
	if (!s)
		return;
	kvfree(s->phase);
	kvfree(s->in);
	kvfree(s->out);
	kfree(s);
}

/* Step i sends to order(i); steps that would send to itself are left out. */
struct nc_sched *nc_sched_builtin(u32 algo, u32 rank, u32 size)
{
	struct nc_sched *s = nc_sched_alloc(size ? size - 1 : 0, 0, 0);
	u32 i, n = 0, peer;

	if (!s)
		return NULL;
	for (i = 0; i < size; i++) {
		switch (algo) {
		case NETCOLL_A2A_PAIRWISE:
			peer = is_power_of_2(size) ? rank ^ i : (rank + i) % size;
			break;
		case NETCOLL_A2A_RING:
			peer = (rank + i) % size;
			break;
		default:		/* NETCOLL_A2A_LINEAR */
			peer = i;
			break;
		}
		if (peer == rank)
			continue;
		s->phase[n] = (struct nc_phase){
			.index = i,
			.send_to = peer,
			.recv_from = NETCOLL_NONE,
		};
		n++;
	}
	return s;
}

struct nc_tag_key {
	u32 rank, phase, idx;
};

static int nc_tag_key_cmp(const void *a, const void *b)
{
	const struct nc_tag_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	return 0;
}

/*
 * Number the tokens exchanged with each rank in phase order: keys[] holds
 * (rank, phase, index into refs); refs[idx].tag receives the number.
 */
static int nc_sched_number_tokens(struct nc_tag_key *keys, u32 n,
				  struct nc_sync_ref *refs)
{
	u32 i, k = 0;

	sort(keys, n, sizeof(*keys), nc_tag_key_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (i && keys[i].rank != keys[i - 1].rank)
			k = 0;
		if (k > NC_TAG_SYNC_MAX)
			return -E2BIG;
		refs[keys[i].idx].tag = NC_TAG_SYNC | k++;
	}
	return 0;
}

/*
 * Turn a parsed slice into a schedule: phases in order, token lists
 * concatenated, token tags numbered.  in_phase[i] / out_phase[i] give the
 * phase (for sync_out: the receiver's) of token i.
 */
struct nc_sched *nc_sched_from_slice(const struct nc_phase *ph, u32 nphases,
				     const struct nc_sync_ref *in,
				     const u32 *in_phase, u32 nin,
				     const struct nc_sync_ref *out,
				     const u32 *out_phase, u32 nout, int *err)
{
	struct nc_tag_key *keys;
	struct nc_sched *s;
	u32 i;

	*err = -ENOMEM;
	s = nc_sched_alloc(nphases, nin, nout);
	keys = kvcalloc(max(nin, nout) ?: 1, sizeof(*keys), GFP_KERNEL);
	if (!s || !keys)
		goto fail;
	memcpy(s->phase, ph, nphases * sizeof(*ph));
	memcpy(s->in, in, nin * sizeof(*in));
	memcpy(s->out, out, nout * sizeof(*out));

	for (i = 0; i < nin; i++)
		keys[i] = (struct nc_tag_key){ in[i].rank, in_phase[i], i };
	*err = nc_sched_number_tokens(keys, nin, s->in);
	if (*err)
		goto fail;
	for (i = 0; i < nout; i++)
		keys[i] = (struct nc_tag_key){ out[i].rank, out_phase[i], i };
	*err = nc_sched_number_tokens(keys, nout, s->out);
	if (*err)
		goto fail;
	kvfree(keys);
	s->installed = true;
	return s;
fail:
	kvfree(keys);
	nc_sched_free(s);
	return NULL;
}
