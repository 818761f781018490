# libnetcoll: static and shared library, and its pkg-config file.
# Tools and tests link the static library, so they run on a host (or VM)
# that has only libnl installed.

LIBNC_SRCS := userlib/nl.c userlib/endpoint.c userlib/text.c \
	      userlib/errors.c userlib/args.c \
	      userlib/topo.c userlib/topo_parse.c userlib/topo_gen.c userlib/topo_ib.c userlib/topo_lldp.c userlib/topo_query.c \
	      userlib/sched_aapc.c userlib/sched_sync.c userlib/sched_fattree.c \
	      userlib/sched_order.c userlib/sched_verify.c userlib/sched_install.c \
	      userlib/tree.c userlib/bcast_plan.c userlib/model.c userlib/red_names.c \
	      userlib/plan_api.c userlib/bootstrap.c userlib/comm_bootstrap.c \
	      userlib/reduce_scatter.c userlib/bcast_tune.c
LIBNC_OBJS := $(LIBNC_SRCS:%.c=$(B)/%.o)
# The boundary: only what the public headers declare (they push default
# visibility) is visible, and the version script names those symbols.
$(LIBNC_OBJS): CFLAGS += -fvisibility=hidden
# Its reductions vectorised, as the kernel's (kmod/Kbuild says why the
# dynamic cost model; the bits stay those of the scalar loop).
$(B)/userlib/reduce_scatter.o: CFLAGS += -fvect-cost-model=dynamic
LIBNC_MAP := userlib/libnetcoll.map
# The library version lives in its public header only.
NC_LIB_MAJOR := $(shell awk '$$2 == "NC_LIB_VERSION_MAJOR" { print $$3 }' userlib/include/netcoll.h)
NC_LIB_MINOR := $(shell awk '$$2 == "NC_LIB_VERSION_MINOR" { print $$3 }' userlib/include/netcoll.h)
LIBNC_SONAME := libnetcoll.so.$(NC_LIB_MAJOR)
LIBNC_A := $(B)/libnetcoll.a
LIBNC_SO := $(B)/libnetcoll.so
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

$(LIBNC_A): $(LIBNC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/$(LIBNC_SONAME): $(LIBNC_OBJS) $(LIBNC_MAP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBNC_SONAME) -Wl,--no-undefined \
		-Wl,--version-script=$(LIBNC_MAP) -o $@ $(LIBNC_OBJS) $(DEP_LIBS) -pthread

$(LIBNC_SO): $(B)/$(LIBNC_SONAME)
	ln -sf $(notdir $<) $@

$(B)/netcoll.pc: userlib/netcoll.pc.in userlib/include/netcoll.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(NC_LIB_MAJOR).$(NC_LIB_MINOR)|' $< > $@

USER_TARGETS += $(LIBNC_A) $(LIBNC_SO) $(B)/netcoll.pc
