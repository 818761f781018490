// SPDX-License-Identifier: GPL-2.0
/*
 * Apply a reduction operator to a fragment: acc = acc OP in.
 *
 * Integers are reduced in place.  Floating point needs the FPU, which
 * kernel code may only touch inside kernel_fpu_begin()/kernel_fpu_end().
 * Those are allowed in process context and in softirq unless the softirq
 * interrupted another kernel FPU section; irq_fpu_usable() tells.  The
 * receive path asks nck_reduce_fpu_usable() before it reduces float data
 * in softirq and hands the frame to a worker when the answer is no.
 */
#ifdef CONFIG_X86
#include <asm/fpu/api.h>
#endif

#include "reduce.h"
#include "shared/nc_reduce.h"

bool nck_reduce_float_supported(void)
{
	return IS_ENABLED(CONFIG_X86_64);
}

bool nck_reduce_fpu_usable(void)
{
#ifdef CONFIG_X86_64
	return irq_fpu_usable();
#else
	return false;
#endif
}

void nck_reduce(u32 op, u32 dtype, void *acc, const void *in, u32 bytes)
{
	if (!nc_dt_is_float(dtype)) {
		nc_red_apply_int(op, dtype, acc, in, bytes);
		return;
	}
#ifdef CONFIG_X86_64
	kernel_fpu_begin();
	nck_reduce_float(op, dtype, acc, in, bytes);
	kernel_fpu_end();
#endif
}
