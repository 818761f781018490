# Tools: nctl (configuration, ip-style) and ncbench (collective benchmark).
# Both link libnetcoll statically.

NCTL_SRCS := tools/nctl/nctl.c tools/nctl/util.c tools/nctl/dev.c \
	     tools/nctl/comm.c tools/nctl/stats.c tools/nctl/monitor.c \
	     tools/nctl/sched.c
NCTL_OBJS := $(NCTL_SRCS:%.c=$(B)/%.o)

# sched.c computes schedules itself: it uses the library's internal headers.
$(B)/tools/nctl/sched.o: CFLAGS += -Iuserlib

$(B)/nctl: $(NCTL_OBJS) $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $(NCTL_OBJS) $(LIBNC_A) $(NL_LIBS)

$(B)/ncbench: $(B)/tools/ncbench/ncbench.o $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNC_A) $(NL_LIBS)

USER_TARGETS += $(B)/nctl $(B)/ncbench
