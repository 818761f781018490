# make install / make uninstall: the GNU directory variables, DESTDIR for
# staging (the Debian packages install through it), and the module as DKMS
# source that `dkms install` builds for every installed kernel.
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=...] [DKMS=1]
#
# Without DESTDIR and with DKMS=1 (the default when dkms is installed) the
# module is also added to DKMS and built and installed for the running
# kernel (KVER); with DESTDIR only its source is staged: the package's
# postinst (dh-dkms) does the rest.

BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/netcoll
# udev reads only /usr/lib, /etc and /run: a /usr/local install uses /etc.
UDEVRULESDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,/etc/udev/rules.d)
# DKMS source trees live in /usr/src whatever the prefix.
DKMS_SRCDIR ?= /usr/src
DKMS ?= $(if $(DESTDIR),0,$(if $(shell command -v dkms),1,0))
NC_PKG_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
NC_DKMS_DIR := $(DKMS_SRCDIR)/netcoll-$(NC_PKG_VERSION)
INSTALL ?= install
# The shared library's file name carries major.minor; the soname only major.
LIBNC_REAL := libnetcoll.so.$(NC_LIB_MAJOR).$(NC_LIB_MINOR)

.PHONY: install install-user install-dkms-src install-dkms install-mpi uninstall

install: install-user install-dkms-src
ifeq ($(DKMS),1)
install: install-dkms
endif
ifneq ($(NCMPI_LIB),)
install: install-mpi
endif

install-user: $(LIBNC_A) $(B)/$(LIBNC_SONAME) $(B)/nctl $(B)/ncbench $(B)/netcoll-topod
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR)/examples
	$(INSTALL) -m 0644 $(B)/$(LIBNC_SONAME) $(DESTDIR)$(LIBDIR)/$(LIBNC_REAL)
	ln -sf $(LIBNC_REAL) $(DESTDIR)$(LIBDIR)/$(LIBNC_SONAME)
	ln -sf $(LIBNC_SONAME) $(DESTDIR)$(LIBDIR)/libnetcoll.so
	$(INSTALL) -m 0644 $(LIBNC_A) $(DESTDIR)$(LIBDIR)/libnetcoll.a
	# written here, not at build time: the directories are install-time choices
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(NC_LIB_MAJOR).$(NC_LIB_MINOR)|' userlib/netcoll.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/netcoll.pc
	$(INSTALL) -m 0644 userlib/include/netcoll.h userlib/include/netcoll_plan.h \
		$(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 0755 $(B)/nctl $(DESTDIR)$(SBINDIR)/nctl
	$(INSTALL) -m 0755 $(B)/netcoll-topod $(DESTDIR)$(SBINDIR)/netcoll-topod
	$(INSTALL) -m 0755 $(B)/ncbench $(DESTDIR)$(BINDIR)/ncbench
	$(INSTALL) -m 0644 tools/ncbench/ncbench.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 userlib/libnetcoll.3 $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 0644 tools/nctl/nctl.8 tools/topod/netcoll-topod.8 \
		$(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 0644 contrib/modules-load.d/netcoll.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d-netcoll.conf
	$(INSTALL) -m 0644 contrib/modprobe.d/netcoll.conf \
		$(DESTDIR)$(DOCDIR)/examples/modprobe.d-netcoll.conf

# The MPI interposer (built when an MPI compiler is installed: mpi/build.mk)
# is preloaded, never linked against: a private directory, no soname.
NCMPI_DIR ?= $(LIBDIR)/netcoll
install-mpi: $(NCMPI_LIB)
	$(INSTALL) -d $(DESTDIR)$(NCMPI_DIR) $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 0644 $(NCMPI_LIB) $(DESTDIR)$(NCMPI_DIR)/libnetcoll-mpi.so
	$(INSTALL) -m 0644 mpi/libnetcoll-mpi.7 $(DESTDIR)$(MANDIR)/man7/

# What DKMS builds from (the same files `make module` uses), and the
# device node's udev rule: both belong to the module.
install-dkms-src:
	$(INSTALL) -d $(DESTDIR)$(NC_DKMS_DIR) $(DESTDIR)$(UDEVRULESDIR)
	$(INSTALL) -m 0644 contrib/udev/60-netcoll.rules $(DESTDIR)$(UDEVRULESDIR)/
	$(INSTALL) -m 0644 Kbuild dkms.conf $(DESTDIR)$(NC_DKMS_DIR)/
	tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='*.a' \
		--exclude='modules.order' --exclude='Module.symvers' kmod uapi | \
		tar -xf - --no-same-owner -C $(DESTDIR)$(NC_DKMS_DIR)

install-dkms: install-dkms-src
	dkms status -m netcoll -v $(NC_PKG_VERSION) | grep -q . || \
		dkms add -m netcoll -v $(NC_PKG_VERSION)
	dkms install -m netcoll -v $(NC_PKG_VERSION) -k $(KVER)

uninstall:
	-if [ -z "$(DESTDIR)" ] && command -v dkms >/dev/null && \
	    dkms status -m netcoll -v $(NC_PKG_VERSION) | grep -q .; then \
		dkms remove -m netcoll -v $(NC_PKG_VERSION) --all; fi
	rm -rf $(DESTDIR)$(NC_DKMS_DIR)
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-netcoll.rules
	rm -f $(DESTDIR)$(LIBDIR)/$(LIBNC_REAL) $(DESTDIR)$(LIBDIR)/$(LIBNC_SONAME) \
		$(DESTDIR)$(LIBDIR)/libnetcoll.so $(DESTDIR)$(LIBDIR)/libnetcoll.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/netcoll.pc \
		$(DESTDIR)$(INCLUDEDIR)/netcoll.h $(DESTDIR)$(INCLUDEDIR)/netcoll_plan.h \
		$(DESTDIR)$(SBINDIR)/nctl $(DESTDIR)$(SBINDIR)/netcoll-topod \
		$(DESTDIR)$(BINDIR)/ncbench \
		$(DESTDIR)$(MANDIR)/man1/ncbench.1 $(DESTDIR)$(MANDIR)/man3/libnetcoll.3 \
		$(DESTDIR)$(MANDIR)/man8/nctl.8 $(DESTDIR)$(MANDIR)/man8/netcoll-topod.8 \
		$(DESTDIR)$(NCMPI_DIR)/libnetcoll-mpi.so $(DESTDIR)$(MANDIR)/man7/libnetcoll-mpi.7
	-rmdir $(DESTDIR)$(NCMPI_DIR) 2>/dev/null
	rm -rf $(DESTDIR)$(DOCDIR)
