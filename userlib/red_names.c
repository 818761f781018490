// SPDX-License-Identifier: BSD-2-Clause
/*
 * Reduction operators and element types: their names, and the element
 * size the module computes with (kmod/shared/nc_reduce.h), so that user
 * space and kernel can never disagree on a buffer's length.
 */
#include <errno.h>
#include <string.h>

#include "netcoll.h"
#include "nc_reduce.h"

/* The public enums are the uapi's values; compared as ints (two enums). */
#define SAME(a, b)	((int)(a) == (int)(b))
_Static_assert(SAME(NC_OP_SUM, NETCOLL_OP_SUM) &&
	       SAME(NC_OP_PROD, NETCOLL_OP_PROD) &&
	       SAME(NC_OP_MIN, NETCOLL_OP_MIN) &&
	       SAME(NC_OP_MAX, NETCOLL_OP_MAX) &&
	       SAME(NC_OP_BAND, NETCOLL_OP_BAND) &&
	       SAME(NC_OP_BOR, NETCOLL_OP_BOR) &&
	       SAME(NC_OP_BXOR, NETCOLL_OP_BXOR) &&
	       SAME(NC_OP_MINLOC, NETCOLL_OP_MINLOC) &&
	       SAME(NC_OP_MAXLOC, NETCOLL_OP_MAXLOC) &&
	       SAME(NC_OP_COUNT, NETCOLL_OP_COUNT),
	       "enum nc_op differs from the uapi");
_Static_assert(SAME(NC_DT_INT32, NETCOLL_DT_INT32) &&
	       SAME(NC_DT_INT64, NETCOLL_DT_INT64) &&
	       SAME(NC_DT_UINT32, NETCOLL_DT_UINT32) &&
	       SAME(NC_DT_UINT64, NETCOLL_DT_UINT64) &&
	       SAME(NC_DT_FLOAT, NETCOLL_DT_FLOAT) &&
	       SAME(NC_DT_DOUBLE, NETCOLL_DT_DOUBLE) &&
	       SAME(NC_DT_COUNT, NETCOLL_DT_COUNT),
	       "enum nc_dtype differs from the uapi");

static const char *const nc_op_names[NC_OP_COUNT] = {
	[NC_OP_SUM]	= "sum",
	[NC_OP_PROD]	= "prod",
	[NC_OP_MIN]	= "min",
	[NC_OP_MAX]	= "max",
	[NC_OP_BAND]	= "band",
	[NC_OP_BOR]	= "bor",
	[NC_OP_BXOR]	= "bxor",
	[NC_OP_MINLOC]	= "minloc",
	[NC_OP_MAXLOC]	= "maxloc",
};

static const char *const nc_dtype_names[NC_DT_COUNT] = {
	[NC_DT_INT32]	= "int32",
	[NC_DT_INT64]	= "int64",
	[NC_DT_UINT32]	= "uint32",
	[NC_DT_UINT64]	= "uint64",
	[NC_DT_FLOAT]	= "float",
	[NC_DT_DOUBLE]	= "double",
};

static int lookup(const char *const *names, int n, const char *name)
{
	int i;

	if (!name)
		return -NC_EPARSE;
	for (i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -NC_EPARSE;
}

int nc_op_parse(const char *name)
{
	return lookup(nc_op_names, NC_OP_COUNT, name);
}

const char *nc_op_name(enum nc_op op)
{
	return (unsigned int)op < NC_OP_COUNT ? nc_op_names[op] : "unknown";
}

int nc_dtype_parse(const char *name)
{
	return lookup(nc_dtype_names, NC_DT_COUNT, name);
}

const char *nc_dtype_name(enum nc_dtype dtype)
{
	return (unsigned int)dtype < NC_DT_COUNT ? nc_dtype_names[dtype] :
						   "unknown";
}

size_t nc_elem_size(enum nc_op op, enum nc_dtype dtype)
{
	/* unknown values and bitwise ops on floats alike: no element */
	if (nc_red_check((__u32)op, (__u32)dtype))
		return 0;
	return nc_red_elem_size((__u32)op, (__u32)dtype);
}
