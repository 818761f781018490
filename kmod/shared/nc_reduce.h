/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reduction operators, shared by the module (reduce.c, reduce_fp.c)
 * and user space (the reference the tests compare against, the UDP tree
 * baseline of ncbench), so every one of them computes the same bits.
 *
 * nc_red_apply(acc, in): acc[i] = acc[i] OP in[i] for every element, acc
 * being the running result in the tree's fixed order and in the next
 * contribution.  The operand order matters for floating point sums and
 * for min/max with NaN, which is why the order is fixed.
 *
 *   sum, prod       integers wrap (computed unsigned); IEEE-754 for floats
 *   min, max        b < a ? b : a (resp. >): on NaN or equal, a stays
 *   band, bor, bxor integers only
 *   minloc, maxloc  {T value; __s32 index} (MPI's layouts, padded to the
 *                   alignment of T): the smaller (larger) value wins, a
 *                   tie goes to the smaller index
 *
 * `in` may be unaligned (it points into a frame), `acc` is aligned to the
 * element size.  Float code is only compiled where NC_RED_FLOAT is defined:
 * the kernel builds it in a unit of its own with FPU code generation and
 * calls it between kernel_fpu_begin() and kernel_fpu_end().
 */
#ifndef NC_REDUCE_H
#define NC_REDUCE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#endif

#include <linux/netcoll.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* Payloads are little-endian on the wire; no byte swapping is done yet. */
#error "netcoll reductions need a little-endian host"
#endif

static inline bool nc_dt_is_float(__u32 dtype)
{
	return dtype == NETCOLL_DT_FLOAT || dtype == NETCOLL_DT_DOUBLE;
}

static inline __u32 nc_dt_size(__u32 dtype)
{
	switch (dtype) {
	case NETCOLL_DT_INT32:
	case NETCOLL_DT_UINT32:
	case NETCOLL_DT_FLOAT:
		return 4;
	default:
		return 8;
	}
}

static inline bool nc_op_is_loc(__u32 op)
{
	return op == NETCOLL_OP_MINLOC || op == NETCOLL_OP_MAXLOC;
}

/* Bytes of one element: a value, or a {value, __s32 index} pair. */
static inline __u32 nc_red_elem_size(__u32 op, __u32 dtype)
{
	return nc_op_is_loc(op) ? 2 * nc_dt_size(dtype) : nc_dt_size(dtype);
}

/* 0 if op applies to dtype; -EINVAL for unknown ones, -EOPNOTSUPP. */
static inline int nc_red_check(__u32 op, __u32 dtype)
{
	if (op >= NETCOLL_OP_COUNT || dtype >= NETCOLL_DT_COUNT)
		return -EINVAL;
	if (nc_dt_is_float(dtype) && (op == NETCOLL_OP_BAND ||
				      op == NETCOLL_OP_BOR ||
				      op == NETCOLL_OP_BXOR))
		return -EOPNOTSUPP;
	return 0;
}

/* acc[i] = expr for n elements, with a = acc[i] and b = in[i]. */
#define NC_RED_EACH(acc, in, n, expr)					\
	do {								\
		__typeof__(acc) a_ = (acc);				\
		const unsigned char *p_ = (const unsigned char *)(in);	\
		__u32 i_, n_ = (n);					\
		for (i_ = 0; i_ < n_; i_++) {				\
			__typeof__(*a_) a = a_[i_], b;			\
			memcpy(&b, p_ + (size_t)i_ * sizeof(b), sizeof(b)); \
			a_[i_] = (expr);				\
		}							\
	} while (0)

/* minloc/maxloc: b wins if better, or equal with a smaller index. */
#define NC_RED_LOC(acc, in, n, better)					\
	do {								\
		__typeof__(acc) a_ = (acc);				\
		const unsigned char *p_ = (const unsigned char *)(in);	\
		__u32 i_, n_ = (n);					\
		for (i_ = 0; i_ < n_; i_++) {				\
			__typeof__(*a_) a = a_[i_], b;			\
			memcpy(&b, p_ + (size_t)i_ * sizeof(b), sizeof(b)); \
			if ((better) || (b.v == a.v && b.i < a.i))	\
				a_[i_] = b;				\
		}							\
	} while (0)

/*
 * nc_red_NAME(op, acc, in, n): every operator but the bitwise ones, on n
 * elements of type `type` (or {value, index} pairs: struct nc_loc_NAME).
 * Sums and products are computed in `wide`: unsigned for integers, so
 * that they wrap.  (The arguments other than `type` appear only in
 * __typeof__ and ##: they are types and a name.)
 */
#define NC_RED_DEFINE(name, type, wide)					\
static inline void nc_red_##name(__u32 op, void *acc, const void *in,	\
				 __u32 n)				\
{									\
	struct nc_loc_##name *l = acc;					\
	type *x = acc;							\
									\
	switch (op) {							\
	case NETCOLL_OP_SUM:						\
		NC_RED_EACH(x, in, n, (type)((__typeof__(wide))a +	\
					     (__typeof__(wide))b));	\
		break;							\
	case NETCOLL_OP_PROD:						\
		NC_RED_EACH(x, in, n, (type)((__typeof__(wide))a *	\
					     (__typeof__(wide))b));	\
		break;							\
	case NETCOLL_OP_MIN:						\
		NC_RED_EACH(x, in, n, b < a ? b : a);			\
		break;							\
	case NETCOLL_OP_MAX:						\
		NC_RED_EACH(x, in, n, b > a ? b : a);			\
		break;							\
	case NETCOLL_OP_MINLOC:						\
		NC_RED_LOC(l, in, n, b.v < a.v);			\
		break;							\
	case NETCOLL_OP_MAXLOC:						\
		NC_RED_LOC(l, in, n, b.v > a.v);			\
		break;							\
	}								\
}

/* The bitwise ops see only bits: one function per element size. */
#define NC_RED_BITS_DEFINE(name, type)					\
static inline void nc_red_bits_##name(__u32 op, void *acc,		\
				      const void *in, __u32 n)		\
{									\
	type *x = acc;							\
									\
	switch (op) {							\
	case NETCOLL_OP_BAND:						\
		NC_RED_EACH(x, in, n, a & b);				\
		break;							\
	case NETCOLL_OP_BOR:						\
		NC_RED_EACH(x, in, n, a | b);				\
		break;							\
	case NETCOLL_OP_BXOR:						\
		NC_RED_EACH(x, in, n, a ^ b);				\
		break;							\
	}								\
}

struct nc_loc_s32 { __s32 v; __s32 i; };
struct nc_loc_s64 { __s64 v; __s32 i; };
struct nc_loc_u32 { __u32 v; __s32 i; };
struct nc_loc_u64 { __u64 v; __s32 i; };

NC_RED_DEFINE(s32, __s32, __u32)
NC_RED_DEFINE(s64, __s64, __u64)
NC_RED_DEFINE(u32, __u32, __u32)
NC_RED_DEFINE(u64, __u64, __u64)
NC_RED_BITS_DEFINE(u32, __u32)
NC_RED_BITS_DEFINE(u64, __u64)

/* Integer types; returns false for a float dtype (not handled here). */
static inline bool nc_red_apply_int(__u32 op, __u32 dtype, void *acc,
				    const void *in, __u32 bytes)
{
	__u32 n = bytes / nc_red_elem_size(op, dtype);

	if (nc_dt_is_float(dtype) || dtype >= NETCOLL_DT_COUNT)
		return false;
	if (op == NETCOLL_OP_BAND || op == NETCOLL_OP_BOR ||
	    op == NETCOLL_OP_BXOR) {
		if (nc_dt_size(dtype) == 4)
			nc_red_bits_u32(op, acc, in, n);
		else
			nc_red_bits_u64(op, acc, in, n);
		return true;
	}
	switch (dtype) {
	case NETCOLL_DT_INT32:
		nc_red_s32(op, acc, in, n);
		break;
	case NETCOLL_DT_INT64:
		nc_red_s64(op, acc, in, n);
		break;
	case NETCOLL_DT_UINT32:
		nc_red_u32(op, acc, in, n);
		break;
	case NETCOLL_DT_UINT64:
		nc_red_u64(op, acc, in, n);
		break;
	}
	return true;
}

#ifdef NC_RED_FLOAT
struct nc_loc_f32 { float v; __s32 i; };
struct nc_loc_f64 { double v; __s32 i; };

/* Floats have no bitwise ops: nc_red_check() refused those already. */
NC_RED_DEFINE(f32, float, float)
NC_RED_DEFINE(f64, double, double)

static inline bool nc_red_apply_float(__u32 op, __u32 dtype, void *acc,
				      const void *in, __u32 bytes)
{
	__u32 n = bytes / nc_red_elem_size(op, dtype);

	switch (dtype) {
	case NETCOLL_DT_FLOAT:
		nc_red_f32(op, acc, in, n);
		return true;
	case NETCOLL_DT_DOUBLE:
		nc_red_f64(op, acc, in, n);
		return true;
	}
	return false;
}
#endif /* NC_RED_FLOAT */

#endif /* NC_REDUCE_H */
