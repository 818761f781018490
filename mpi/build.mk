# libnetcoll-mpi.so, the PMPI interposer, and its test program, built
# with each MPI installed: $(B)/ with the default mpicc (Debian's Open
# MPI, unless the "mpi" alternative says otherwise) and $(B)/mpich/ with
# MPICH's mpicc.mpich when that is installed too (the two libraries'
# ABIs differ, so one interposer serves one MPI).  It carries libnetcoll
# inside (its objects are position-independent) and exports only the
# MPI_ calls it intercepts, so LD_PRELOAD needs nothing else.

MPICC ?= mpicc
MPICC_MPICH ?= mpicc.mpich
NCMPI_SRCS := mpi/setup.c mpi/types.c mpi/collectives.c mpi/fortran.c mpi/tune.c

# ncmpi_build DIR MPICC: DIR/libnetcoll-mpi.so and DIR/selftests/mpi/*
define ncmpi_build
$(NCMPI_SRCS:%.c=$(1)/%.o): $(1)/%.o: %.c mpi/netcoll_mpi.h
	@mkdir -p $$(dir $$@)
	$(2) $$(CPPFLAGS) $$(CFLAGS) -fvisibility=hidden -c -o $$@ $$<

$(1)/libnetcoll-mpi.so: $(NCMPI_SRCS:%.c=$(1)/%.o) $$(LIBNC_OBJS) mpi/netcoll-mpi.map
	$(2) $$(LDFLAGS) -shared -Wl,--version-script=mpi/netcoll-mpi.map \
		-o $$@ $(NCMPI_SRCS:%.c=$(1)/%.o) $$(LIBNC_OBJS) $$(DEP_LIBS) -pthread

$(1)/selftests/mpi/mpi_check: selftests/mpi/mpi_check.c
	@mkdir -p $$(dir $$@)
	$(2) $$(CFLAGS) -o $$@ $$<

USER_TARGETS += $(1)/libnetcoll-mpi.so $(1)/selftests/mpi/mpi_check
endef

ifneq ($(shell command -v $(MPICC)),)
$(eval $(call ncmpi_build,$(B),$(MPICC)))
# what make install installs (install.mk)
NCMPI_LIB := $(B)/libnetcoll-mpi.so

# MPI_Allreduce by size, for the side-by-side benchmark (bench_apps.sh).
$(B)/selftests/mpi/allreduce_bench: selftests/mpi/allreduce_bench.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $<

USER_TARGETS += $(B)/selftests/mpi/allreduce_bench

# The Fortran bindings' check (fortran.c: Open MPI's Fortran wrappers call
# PMPI_, so Fortran programs need entry points of their own).
MPIFORT ?= mpifort
ifneq ($(shell command -v $(MPIFORT)),)
$(B)/selftests/mpi/mpi_check_f: selftests/mpi/mpi_check_f.f90
	@mkdir -p $(dir $@)
	$(MPIFORT) -O1 -Wall -J $(dir $@) -o $@ $<

USER_TARGETS += $(B)/selftests/mpi/mpi_check_f
endif

# A real client: a 3-D FFT through FFTW's MPI interface (libfftw3-mpi-dev,
# built on Open MPI's libfftw3-mpi, hence the default mpicc only).
ifneq ($(wildcard /usr/include/fftw3-mpi.h),)
$(B)/selftests/mpi/fft_check: selftests/mpi/fft_check.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< -lfftw3_mpi -lfftw3 -lm

USER_TARGETS += $(B)/selftests/mpi/fft_check
endif
endif

ifneq ($(shell command -v $(MPICC_MPICH)),)
ifneq ($(realpath $(shell command -v $(MPICC))),$(realpath $(shell command -v $(MPICC_MPICH))))
$(eval $(call ncmpi_build,$(B)/mpich,$(MPICC_MPICH)))

# The Fortran check built with MPICH: its Fortran wrappers (libmpichfort)
# call the C MPI_ functions, so the C wrappers serve it with no Fortran
# entry points of ours (fortran.c is Open MPI's only); this shows it.
# -w: Debian's MPICH "use mpi" module gives the choice buffers no
# interface, so gfortran warns at each call whose buffer type differs
# from an earlier call's (usual MPI code; MPICH's own wrapper passes
# -fallow-argument-mismatch, which leaves them as warnings only -w stops).
MPIFORT_MPICH ?= mpifort.mpich
ifneq ($(shell command -v $(MPIFORT_MPICH)),)
$(B)/mpich/selftests/mpi/mpi_check_f: selftests/mpi/mpi_check_f.f90
	@mkdir -p $(dir $@)
	$(MPIFORT_MPICH) -O1 -w -J $(dir $@) -o $@ $<

USER_TARGETS += $(B)/mpich/selftests/mpi/mpi_check_f
endif
endif
endif
