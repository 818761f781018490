// SPDX-License-Identifier: GPL-2.0
/*
 * Float and double reductions.  This is the only file of the module built
 * with FPU code generation (see kmod/Kbuild); everything in it runs
 * between kernel_fpu_begin() and kernel_fpu_end() (reduce.c), which also
 * loads the default MXCSR: round to nearest even, no flush-to-zero, as in
 * user space, so the kernel computes the bits a user-space reference does.
 */
#define NC_RED_FLOAT
#include "reduce.h"
#include "shared/nc_reduce.h"

bool nck_reduce_float(u32 op, u32 dtype, void *acc, const void *in, u32 bytes)
{
	return nc_red_apply_float(op, dtype, acc, in, bytes);
}
