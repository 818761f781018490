/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reduction operators on fragments (reduce.c, reduce_fp.c): acc = acc OP
 * in, integers anywhere, floating point only where the FPU may be used.
 */
#ifndef NCK_REDUCE_OPS_H
#define NCK_REDUCE_OPS_H

#include <linux/types.h>

bool nck_reduce_float_supported(void);
bool nck_reduce_fpu_usable(void);
void nck_reduce(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);
bool nck_reduce_float(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);

#endif /* NCK_REDUCE_OPS_H */
