# netcoll — top-level build.
#   make          module (kmod/netcoll.ko), libnetcoll (static + shared), tools
#   make check    every test: unit tests, dkms build, module tests in a QEMU VM
#   make demo     an emulated two-switch cluster: alltoall orders against the
#                 bound (with a plot), verified alltoall and allreduce
# Kernel build: KDIR defaults to the running kernel's build dir, else the
# installed Debian headers.

KVER ?= $(shell uname -r)
# Debian's default kernel line: what the linux-headers-amd64 metapackage
# points to (other installed lines, e.g. 6.12 next to 6.1, are not it).
DEB_HEADERS := $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
	sed -n 's/^\(linux-headers-[^ ,]*\).*/\1/p')
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
	$(wildcard /usr/src/$(DEB_HEADERS)) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
# The kernel release the module is built for, which the test VM boots.
VM_KVER ?= $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR))),\
	$(patsubst linux-headers-%,%,$(notdir $(KDIR))))
VM_RUN := selftests/vm/run-vm.sh --kver $(VM_KVER)
# The second kernel line make check covers: Debian 12's newest 6.12 (not
# its PREEMPT_RT variant), built out of tree into $(B)/kmod-<release>.
KVER_NEXT ?= $(patsubst linux-headers-%,%,$(notdir $(lastword $(shell \
	ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | grep -v -- -rt- | sort -V))))

B := build
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Iuapi -Iuserlib/include \
	  -Ikmod/shared -fPIC
# The libraries libnetcoll uses: libnl (netlink), json-c (LLDP data),
# libcrypto (the bootstrap's HMAC-SHA256 under a job token).
DEP_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 json-c libcrypto 2>/dev/null)
DEP_LIBS := $(shell pkg-config --libs libnl-genl-3.0 json-c libcrypto 2>/dev/null)

USER_TARGETS :=
UNIT_TESTS :=

.PHONY: all module user deps check check-run unit dkms-check vm-check demo demo-run \
	bench-alltoall bench-apps bench-reduce bench-reduce-noise bench-gso bench-bcast bench-auth bench-loss bench-tree-speed \
	bench-bcast-topo bench-ranks-per-host \
	clean checkpatch sparse abi-check \
	deb install-check

all: module user

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

include userlib/build.mk
include tools/build.mk
include selftests/build.mk
include mpi/build.mk
include install.mk

user: $(USER_TARGETS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEP_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(B) -name '*.d' 2>/dev/null)

deps:
	scripts/install-deps.sh

# Both entry points install what is missing, then start a fresh make so
# that pkg-config and KDIR see the installed packages.
check: deps
	$(MAKE) check-run

check-run: all $(UNIT_TESTS)
	selftests/check.sh --kver $(VM_KVER) --kver-next "$(KVER_NEXT)" $(UNIT_TESTS)

demo: deps
	$(MAKE) demo-run

demo-run: all
	$(VM_RUN) --timeout 900 -- selftests/net/demo.sh

unit: $(UNIT_TESTS) $(B)/ncbench
	@for t in $(UNIT_TESTS); do $$t || exit 1; done

dkms-check:
	scripts/dkms-check.sh $(VM_KVER)

# Alltoall orders on shaped emulated clusters; the report lands in docs/.
bench-alltoall: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench -- selftests/net/bench_a2a.sh
	@mkdir -p docs
	cp $(B)/vm/bench/alltoall-bench.md docs/alltoall-bench.md
	scripts/plot-bench.sh docs

# Broadcasts: nc_bcast_tune's table, then the kernel's tree and multicast
# against a UDP tree, quiet and with CPU noise; the report lands in docs/.
bench-bcast: all
	$(VM_RUN) --timeout 5400 --out $(B)/vm/bench-bcast -- selftests/net/bench_bcast.sh
	cp $(B)/vm/bench-bcast/bcast-bench.md docs/bcast-bench.md

bench-apps: all
	$(VM_RUN) --timeout 7200 --out $(B)/vm/bench-apps -- selftests/net/bench_apps.sh
	@mkdir -p docs
	cp $(B)/vm/bench-apps/apps-bench.md docs/apps-bench.md

# Reductions: kernel against a UDP tree, CPU noise, multicast, the tree
# latency model; the report lands in docs/.
bench-reduce: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-reduce -- selftests/net/bench_reduce.sh
	@mkdir -p docs
	cp $(B)/vm/bench-reduce/reduce-bench.md docs/reduce-bench.md
	scripts/plot-bench.sh docs

# The small allreduce under CPU noise by retransmission floor, in a 1-vCPU
# guest whose clock counts instructions (docs/core-reduce-ab.md, "Stop 83").
bench-reduce-noise: all
	$(VM_RUN) --smp 1 --qemu -icount --qemu shift=2,sleep=off --timeout 3600 \
		--out $(B)/vm/bench-reduce-noise -- selftests/net/bench_reduce_noise.sh
	@mkdir -p docs
	cp $(B)/vm/bench-reduce-noise/reduce-noise.md docs/reduce-noise.md

# Several frames an skb against one, side by side; the report lands in docs/.
bench-gso: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-gso -- selftests/net/bench_gso.sh
	@mkdir -p docs
	cp $(B)/vm/bench-gso/gso-bench.md docs/gso-bench.md

# Authenticated frames against none, side by side; the report lands in docs/.
bench-auth: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-auth -- selftests/net/bench_auth.sh
	@mkdir -p docs
	cp $(B)/vm/bench-auth/auth-bench.md docs/auth-bench.md
	scripts/plot-bench.sh docs

# Collectives under 5 % and 10 % loss on every cable; report in docs/.
bench-loss: all
	$(VM_RUN) --timeout 5400 --out $(B)/vm/bench-loss -- selftests/net/bench_loss.sh
	@mkdir -p docs
	cp $(B)/vm/bench-loss/loss-bench.md docs/loss-bench.md
	scripts/plot-bench.sh docs

# Reduction trees on cables of two speeds: switch order against speed-aware.
bench-tree-speed: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-tree-speed -- selftests/net/bench_tree_speed.sh
	@mkdir -p docs
	cp $(B)/vm/bench-tree-speed/tree-speed-bench.md docs/tree-speed-bench.md

# Broadcast trees on a homogeneous cluster with the ranks spread over its
# switches: rank order against seed 003's topology-aware placements.
bench-bcast-topo: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-bcast-topo -- selftests/net/bench_bcast_topo.sh
	@mkdir -p docs
	cp $(B)/vm/bench-bcast-topo/bcast-topo-bench.md docs/bcast-topo-bench.md

bench-ranks-per-host: all
	$(VM_RUN) --timeout 3600 --out $(B)/vm/bench-ranks-per-host -- selftests/net/bench_ranks_per_host.sh
	@mkdir -p docs
	cp $(B)/vm/bench-ranks-per-host/ranks-per-host-bench.md docs/ranks-per-host-bench.md

vm-check: all
	$(VM_RUN) --timeout 2400 -- selftests/net/run-all.sh

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

checkpatch:
	scripts/checkpatch.sh

abi-check: user
	scripts/abi-check.sh

# Debian packages (netcoll-dkms, libnetcoll0, libnetcoll-dev, netcoll-tools)
# into $(B)/deb, lintian-checked; install-check installs, uses, reboots
# (into the 6.12 line too) and removes them in guests whose root is an
# overlay on a disk image (the host is not touched).
deb:
	scripts/build-debs.sh $(B)/deb

install-check: deb
	selftests/install/install-boots.sh $(B)/deb $(B)/vm/install-boots $(VM_KVER) $(KVER_NEXT); \
	s=$$?; cat $(B)/vm/install-boots/*.log | grep -E '^(not )?ok|passed'; exit $$s

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(B)
