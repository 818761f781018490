/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reduction operators on fragments (reduce.c, reduce_fp.c): acc = acc OP
 * in, integers anywhere, floating point only where the FPU may be used.
 */
#ifndef NC_REDUCE_OPS_H
#define NC_REDUCE_OPS_H

#include <linux/types.h>

bool nc_reduce_float_supported(void);
bool nc_reduce_fpu_usable(void);
void nc_reduce(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);
bool nc_reduce_float(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);

#endif /* NC_REDUCE_OPS_H */
