// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which MPI datatypes and ops netcoll runs.  Bytes move as they are for
 * named types without holes; reductions need a netcoll element type whose
 * layout is the MPI type's, checked against the MPI library's own extent
 * (MPI_DOUBLE_INT is { double; int } with padding, as netcoll's maxloc
 * element is).
 */
#include <stdint.h>

#include "netcoll_mpi.h"

/* A named type whose extent is its size, starting at 0. */
static int ncmpi_plain(MPI_Datatype type, MPI_Aint *extent)
{
	int ni, na, nd, comb, size;
	MPI_Aint lb, tlb, text;

	if (type == MPI_DATATYPE_NULL ||
	    PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
	    comb != MPI_COMBINER_NAMED ||
	    PMPI_Type_size(type, &size) != MPI_SUCCESS ||
	    PMPI_Type_get_extent(type, &lb, extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS)
		return 0;
	return lb == 0 && tlb == 0 && size > 0 && (MPI_Aint)size == *extent;
}

/* count elements of type as bytes, if they are plain and fit netcoll. */
int ncmpi_contig_bytes(MPI_Datatype type, size_t count, size_t *bytes)
{
	MPI_Aint extent;

	if (!ncmpi_plain(type, &extent) || count > SIZE_MAX / (size_t)extent)
		return 0;
	*bytes = count * (size_t)extent;
	return 1;
}

/* What a type's elements are, hence which ops apply to it. */
enum ncmpi_class {
	NCMPI_INTEGER,	/* every op but MINLOC/MAXLOC; logical ones too */
	NCMPI_REAL,	/* SUM, PROD, MIN, MAX */
	NCMPI_PAIR,	/* (value, int): MINLOC/MAXLOC only */
	NCMPI_LOGICAL,	/* Fortran LOGICAL: logical ops only */
};

struct ncmpi_type {
	MPI_Datatype mpi;
	enum nc_dtype nc;
	enum ncmpi_class cls;
};

/* A Fortran INTEGER or LOGICAL: as wide as MPI_Fint (MPI's build says). */
#define NCMPI_DT_FINT	(sizeof(MPI_Fint) == 8 ? NC_DT_INT64 : NC_DT_INT32)

static int ncmpi_type_find(MPI_Datatype type, struct ncmpi_type *out)
{
	/* MPI handles are not constants in every MPI: built at run time. */
	const struct ncmpi_type t[] = {
		{ MPI_INT, NC_DT_INT32, NCMPI_INTEGER },
		{ MPI_INT32_T, NC_DT_INT32, NCMPI_INTEGER },
		{ MPI_UNSIGNED, NC_DT_UINT32, NCMPI_INTEGER },
		{ MPI_UINT32_T, NC_DT_UINT32, NCMPI_INTEGER },
		{ MPI_LONG, sizeof(long) == 8 ? NC_DT_INT64 : NC_DT_INT32, NCMPI_INTEGER },
		{ MPI_LONG_LONG, NC_DT_INT64, NCMPI_INTEGER },
		{ MPI_INT64_T, NC_DT_INT64, NCMPI_INTEGER },
		{ MPI_UNSIGNED_LONG, sizeof(long) == 8 ? NC_DT_UINT64 : NC_DT_UINT32, NCMPI_INTEGER },
		{ MPI_UNSIGNED_LONG_LONG, NC_DT_UINT64, NCMPI_INTEGER },
		{ MPI_UINT64_T, NC_DT_UINT64, NCMPI_INTEGER },
		{ MPI_FLOAT, NC_DT_FLOAT, NCMPI_REAL },
		{ MPI_DOUBLE, NC_DT_DOUBLE, NCMPI_REAL },
		{ MPI_2INT, NC_DT_INT32, NCMPI_PAIR },
		{ MPI_LONG_INT, sizeof(long) == 8 ? NC_DT_INT64 : NC_DT_INT32, NCMPI_PAIR },
		{ MPI_FLOAT_INT, NC_DT_FLOAT, NCMPI_PAIR },
		{ MPI_DOUBLE_INT, NC_DT_DOUBLE, NCMPI_PAIR },
		/*
		 * Fortran's, from the Fortran bindings (fortran.c) or C.  The
		 * extent check below refuses any whose size is not assumed
		 * here.  Not MPI_2REAL and MPI_2DOUBLE_PRECISION: their index
		 * is a REAL, netcoll's an int.
		 */
		{ MPI_INTEGER, NCMPI_DT_FINT, NCMPI_INTEGER },
		{ MPI_INTEGER4, NC_DT_INT32, NCMPI_INTEGER },
		{ MPI_INTEGER8, NC_DT_INT64, NCMPI_INTEGER },
		{ MPI_REAL, NC_DT_FLOAT, NCMPI_REAL },
		{ MPI_REAL4, NC_DT_FLOAT, NCMPI_REAL },
		{ MPI_REAL8, NC_DT_DOUBLE, NCMPI_REAL },
		{ MPI_DOUBLE_PRECISION, NC_DT_DOUBLE, NCMPI_REAL },
		{ MPI_2INTEGER, NCMPI_DT_FINT, NCMPI_PAIR },
		{ MPI_LOGICAL, NCMPI_DT_FINT, NCMPI_LOGICAL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].mpi == type) {
			*out = t[i];
			return 1;
		}
	}
	return 0;
}

int ncmpi_red_map(MPI_Datatype type, MPI_Op op, int logical,
		  enum nc_dtype *dt, enum nc_op *nop, size_t *elem)
{
	struct ncmpi_type t;
	MPI_Aint lb, extent;
	int loc;

	if (type == MPI_DATATYPE_NULL || !ncmpi_type_find(type, &t))
		return 0;
	if (op == MPI_SUM)
		*nop = NC_OP_SUM;
	else if (op == MPI_PROD)
		*nop = NC_OP_PROD;
	else if (op == MPI_MIN)
		*nop = NC_OP_MIN;
	else if (op == MPI_MAX)
		*nop = NC_OP_MAX;
	else if (op == MPI_BAND)
		*nop = NC_OP_BAND;
	else if (op == MPI_BOR)
		*nop = NC_OP_BOR;
	else if (op == MPI_BXOR)
		*nop = NC_OP_BXOR;
	else if (op == MPI_MINLOC)
		*nop = NC_OP_MINLOC;
	else if (op == MPI_MAXLOC)
		*nop = NC_OP_MAXLOC;
	else
		return 0;	/* user ops */
	loc = *nop == NC_OP_MINLOC || *nop == NC_OP_MAXLOC;
	if (loc != (t.cls == NCMPI_PAIR))
		return 0;
	if (*nop == NC_OP_BAND || *nop == NC_OP_BOR || *nop == NC_OP_BXOR) {
		if (t.cls != NCMPI_INTEGER && !(logical && t.cls == NCMPI_LOGICAL))
			return 0;
	} else if (t.cls == NCMPI_LOGICAL) {
		return 0;
	}
	*dt = t.nc;
	*elem = nc_elem_size(*nop, *dt);
	if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || lb ||
	    !*elem || (size_t)extent != *elem)
		return 0;
	return 1;
}
