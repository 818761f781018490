# libnetcoll-mpi.so, the PMPI interposer, and its test program; built when
# an MPI compiler (Debian's Open MPI or MPICH) is installed.  It carries
# libnetcoll inside (its objects are position-independent) and exports
# only the MPI_ calls it intercepts, so LD_PRELOAD needs nothing else.

MPICC ?= mpicc
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)

ifeq ($(HAVE_MPI),1)
NCMPI_SRCS := mpi/setup.c mpi/types.c mpi/collectives.c
NCMPI_OBJS := $(NCMPI_SRCS:%.c=$(B)/%.o)

$(NCMPI_OBJS): $(B)/%.o: %.c mpi/netcoll_mpi.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -fvisibility=hidden -c -o $@ $<

$(B)/libnetcoll-mpi.so: $(NCMPI_OBJS) $(LIBNC_OBJS) mpi/netcoll-mpi.map
	$(MPICC) $(LDFLAGS) -shared -Wl,--version-script=mpi/netcoll-mpi.map \
		-o $@ $(NCMPI_OBJS) $(LIBNC_OBJS) $(NL_LIBS) -pthread

$(B)/selftests/mpi/mpi_check: selftests/mpi/mpi_check.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $<

USER_TARGETS += $(B)/libnetcoll-mpi.so $(B)/selftests/mpi/mpi_check

# A real client: a 3-D FFT through FFTW's MPI interface (libfftw3-mpi-dev).
ifneq ($(wildcard /usr/include/fftw3-mpi.h),)
$(B)/selftests/mpi/fft_check: selftests/mpi/fft_check.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $< -lfftw3_mpi -lfftw3 -lm

USER_TARGETS += $(B)/selftests/mpi/fft_check
endif
endif
