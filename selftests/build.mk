# Tests.  Unit tests run on the build host, without the module; the net
# programs run inside the test VM (selftests/net/lib.sh finds them here).
# A new test is one more name in a list.

UNIT_TEST_NAMES := test_text test_api_args test_wire test_topo test_sched test_bcast \
		   test_tree test_plan test_bootstrap test_replay
UNIT_TEST_BINS := $(UNIT_TEST_NAMES:%=$(B)/selftests/unit/%)

# -lm: tests compare against closed forms (the tree model's logarithms).
$(UNIT_TEST_BINS): $(B)/selftests/unit/%: $(B)/selftests/unit/%.o $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNC_A) $(DEP_LIBS) -lm

UNIT_TESTS += $(UNIT_TEST_BINS)
# ncbench's UDP tree baseline, on the build host (needs build/ncbench).
UNIT_TESTS += selftests/unit/udp_tree_check.sh
# make install / uninstall into a staging directory.
UNIT_TESTS += selftests/unit/make_install_check.sh

# The InfiniBand topology reader against ibsim + OpenSM + infiniband-diags.
$(B)/selftests/ib/ib_model: $(B)/selftests/ib/ib_model.o $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNC_A) $(DEP_LIBS) -lm
UNIT_TESTS += selftests/ib/t_ib_topo.sh
selftests/ib/t_ib_topo.sh: $(B)/selftests/ib/ib_model

# nctl's command line and its offline output, as a script on the built nctl.
UNIT_TESTS += selftests/unit/nctl_check.sh
selftests/unit/nctl_check.sh: $(B)/nctl

NET_TEST_NAMES := nc_check nl_reject ep_errors nc_inject nc_red_check nc_bcast_check nc_hostile \
		  nc_replay nc_churn nc_rsag_check
NET_TEST_BINS := $(NET_TEST_NAMES:%=$(B)/selftests/net/%)

$(NET_TEST_BINS): $(B)/selftests/net/%: $(B)/selftests/net/%.o $(LIBNC_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBNC_A) $(DEP_LIBS) -lm -pthread

USER_TARGETS += $(NET_TEST_BINS)
