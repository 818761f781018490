# Tools: nctl (configuration, ip-style) and ncbench (collective benchmark).
# Both link libnetcoll statically.

NCTL_SRCS := tools/nctl/nctl.c tools/nctl/util.c tools/nctl/dev.c \
	     tools/nctl/comm.c tools/nctl/stats.c tools/nctl/monitor.c \
	     tools/nctl/sched.c tools/nctl/tree.c tools/nctl/cmdl.c \
	     tools/nctl/print.c tools/nctl/topo.c
NCTL_OBJS := $(NCTL_SRCS:%.c=$(B)/%.o)

$(B)/nctl: $(NCTL_OBJS) $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $(NCTL_OBJS) $(LIBNC_A) $(DEP_LIBS)

NCBENCH_SRCS := tools/ncbench/ncbench.c tools/ncbench/red.c \
		tools/ncbench/calib.c tools/ncbench/udp_tree.c \
		tools/ncbench/noise.c tools/ncbench/stats.c \
		tools/ncbench/tune.c
NCBENCH_OBJS := $(NCBENCH_SRCS:%.c=$(B)/%.o)

# -lm: the latency model (libnetcoll) and the reference data (ldexp).
$(B)/ncbench: $(NCBENCH_OBJS) $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $(NCBENCH_OBJS) $(LIBNC_A) $(DEP_LIBS) -lm

# The topology query service (seed 003): threads, one per client.
$(B)/netcoll-topod: $(B)/tools/topod/netcoll-topod.o $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNC_A) $(DEP_LIBS) -pthread

USER_TARGETS += $(B)/nctl $(B)/ncbench $(B)/netcoll-topod
