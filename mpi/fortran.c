// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Fortran bindings (mpif.h and "use mpi") of the intercepted calls.
 *
 * Open MPI's Fortran wrappers call PMPI_Allreduce and the like, not
 * MPI_Allreduce (its libmpi_mpifh), so the C wrappers never see a Fortran
 * program's collectives: these entry points take their place.  Each turns
 * the Fortran handles into C ones and MPI_IN_PLACE and MPI_BOTTOM (common
 * blocks in Fortran) into C's, exactly as Open MPI's own wrapper does, and
 * calls the C wrapper of collectives.c, which runs the call on netcoll or
 * hands it to PMPI_.  MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE and
 * MPI_COMM_FREE likewise call setup.c's, which make and delete the
 * netcoll communicators.  Every name a Fortran compiler may have made is
 * defined (gfortran's is the lower case one with one underscore).
 *
 * MPICH's Fortran wrappers call the C MPI_ functions (its libmpichfort),
 * which the C wrappers catch already: nothing here is built for it.
 *
 * Not covered: "use mpi_f08" (Open MPI's f08 module calls its internal
 * ompi_*_f functions) and the Fortran-only pair types MPI_2REAL and
 * MPI_2DOUBLE_PRECISION, which go to MPI (types.c).
 */
#include "netcoll_mpi.h"

#ifdef OPEN_MPI

/* Open MPI's sentinels: the addresses of its Fortran common blocks. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));

static const void *ncmpi_f2c_buf(const void *buf, int in_place_ok)
{
	if (in_place_ok && &mpi_fortran_in_place_ && buf == &mpi_fortran_in_place_)
		return MPI_IN_PLACE;
	if (&mpi_fortran_bottom_ && buf == &mpi_fortran_bottom_)
		return MPI_BOTTOM;
	return buf;
}

static void ncmpi_f_ret(MPI_Fint *ierr, int err)
{
	if (ierr)
		*ierr = (MPI_Fint)err;
}

/*
 * NCMPI_FORTRAN(lower, UPPER, args): the four names of one call, as
 * aliases of one function, exported (the objects are built hidden).
 */
#define NCMPI_FORTRAN(lower, UPPER, args)				\
	void lower##_(args) __attribute__((visibility("default")));	\
	void lower(args) __attribute__((visibility("default"),		\
					alias(#lower "_")));		\
	void lower##__(args) __attribute__((visibility("default"),	\
					    alias(#lower "_")));	\
	void UPPER(args) __attribute__((visibility("default"),		\
					alias(#lower "_")));		\
	void lower##_(args)

/* Life: the interposer's setup and teardown (setup.c) run from Fortran too. */
#define NCMPI_ARGS_INIT MPI_Fint *ierr
NCMPI_FORTRAN(mpi_init, MPI_INIT, NCMPI_ARGS_INIT)
{
	int argc = 0;
	char **argv = NULL;

	ncmpi_f_ret(ierr, MPI_Init(&argc, &argv));
}

#define NCMPI_ARGS_INIT_THREAD MPI_Fint *required, MPI_Fint *provided,	\
	MPI_Fint *ierr
NCMPI_FORTRAN(mpi_init_thread, MPI_INIT_THREAD, NCMPI_ARGS_INIT_THREAD)
{
	int argc = 0, got = MPI_THREAD_SINGLE, err;
	char **argv = NULL;

	err = MPI_Init_thread(&argc, &argv, *required, &got);
	if (err == MPI_SUCCESS)
		*provided = got;
	ncmpi_f_ret(ierr, err);
}

#define NCMPI_ARGS_FINALIZE MPI_Fint *ierr
NCMPI_FORTRAN(mpi_finalize, MPI_FINALIZE, NCMPI_ARGS_FINALIZE)
{
	ncmpi_f_ret(ierr, MPI_Finalize());
}

#define NCMPI_ARGS_COMM_FREE MPI_Fint *comm, MPI_Fint *ierr
NCMPI_FORTRAN(mpi_comm_free, MPI_COMM_FREE, NCMPI_ARGS_COMM_FREE)
{
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	int err = MPI_Comm_free(&c);

	if (err == MPI_SUCCESS)
		*comm = PMPI_Comm_c2f(c);
	ncmpi_f_ret(ierr, err);
}

/* The collectives */
#define NCMPI_ARGS_BARRIER MPI_Fint *comm, MPI_Fint *ierr
NCMPI_FORTRAN(mpi_barrier, MPI_BARRIER, NCMPI_ARGS_BARRIER)
{
	ncmpi_f_ret(ierr, MPI_Barrier(PMPI_Comm_f2c(*comm)));
}

#define NCMPI_ARGS_BCAST char *buf, MPI_Fint *count, MPI_Fint *type,	\
	MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr
NCMPI_FORTRAN(mpi_bcast, MPI_BCAST, NCMPI_ARGS_BCAST)
{
	ncmpi_f_ret(ierr, MPI_Bcast((void *)ncmpi_f2c_buf(buf, 0), *count,
				    PMPI_Type_f2c(*type), *root,
				    PMPI_Comm_f2c(*comm)));
}

#define NCMPI_ARGS_REDUCE char *sbuf, char *rbuf, MPI_Fint *count,	\
	MPI_Fint *type, MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm,	\
	MPI_Fint *ierr
NCMPI_FORTRAN(mpi_reduce, MPI_REDUCE, NCMPI_ARGS_REDUCE)
{
	ncmpi_f_ret(ierr, MPI_Reduce(ncmpi_f2c_buf(sbuf, 1),
				     (void *)ncmpi_f2c_buf(rbuf, 0), *count,
				     PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
				     *root, PMPI_Comm_f2c(*comm)));
}

#define NCMPI_ARGS_ALLREDUCE char *sbuf, char *rbuf, MPI_Fint *count,	\
	MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr
NCMPI_FORTRAN(mpi_allreduce, MPI_ALLREDUCE, NCMPI_ARGS_ALLREDUCE)
{
	ncmpi_f_ret(ierr, MPI_Allreduce(ncmpi_f2c_buf(sbuf, 1),
					(void *)ncmpi_f2c_buf(rbuf, 0), *count,
					PMPI_Type_f2c(*type), PMPI_Op_f2c(*op),
					PMPI_Comm_f2c(*comm)));
}

#define NCMPI_ARGS_BLOCKS char *sbuf, MPI_Fint *scount, MPI_Fint *stype,	\
	char *rbuf, MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *comm,	\
	MPI_Fint *ierr
NCMPI_FORTRAN(mpi_alltoall, MPI_ALLTOALL, NCMPI_ARGS_BLOCKS)
{
	ncmpi_f_ret(ierr, MPI_Alltoall(ncmpi_f2c_buf(sbuf, 1), *scount,
				       PMPI_Type_f2c(*stype),
				       (void *)ncmpi_f2c_buf(rbuf, 0), *rcount,
				       PMPI_Type_f2c(*rtype),
				       PMPI_Comm_f2c(*comm)));
}

NCMPI_FORTRAN(mpi_allgather, MPI_ALLGATHER, NCMPI_ARGS_BLOCKS)
{
	ncmpi_f_ret(ierr, MPI_Allgather(ncmpi_f2c_buf(sbuf, 1), *scount,
					PMPI_Type_f2c(*stype),
					(void *)ncmpi_f2c_buf(rbuf, 0), *rcount,
					PMPI_Type_f2c(*rtype),
					PMPI_Comm_f2c(*comm)));
}

#define NCMPI_ARGS_RSB char *sbuf, char *rbuf, MPI_Fint *rcount,	\
	MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr
NCMPI_FORTRAN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, NCMPI_ARGS_RSB)
{
	ncmpi_f_ret(ierr, MPI_Reduce_scatter_block(ncmpi_f2c_buf(sbuf, 1),
						   (void *)ncmpi_f2c_buf(rbuf, 0),
						   *rcount, PMPI_Type_f2c(*type),
						   PMPI_Op_f2c(*op),
						   PMPI_Comm_f2c(*comm)));
}

#endif /* OPEN_MPI */
