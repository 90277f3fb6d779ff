# packaging/: install / uninstall, the Debian package, the release tarball,
# and the tests of all three plus examples/ and the man pages.
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [BINDIR= SBINDIR= LIBDIR=
#                SYSCONFDIR= MANDIR= DATADIR= SYSTEMDUNITDIR=]
#   make uninstall (same variables)
#   make deb     build/advshim_VERSION_ARCH.deb (dpkg-buildpackage, debian/)
#   make dist    build/advshim-VERSION.tar.gz (git archive of HEAD)
#
# Every installed file is listed here, once (the PKG_* lists below); the
# install test compares a DESTDIR install against its own explicit list.
# Nothing here runs systemctl or ldconfig.
#
# Layout (defaults): $(LIBDIR)/libadvshim.so (0644), $(BINDIR)/advshim,
# advshim-load, advshim-ab, $(SBINDIR)/advshim-watch (an admin daemon),
# $(SYSTEMDUNITDIR)/advshim-watch.service (ExecStart rewritten to SBINDIR),
# advshim-shim-metrics.service and .timer (the shim's counters for
# node-exporter, `advshim inspect --prometheus`, BINDIR filled in),
# $(SYSCONFDIR)/advshim.conf (only when absent), man pages in
# $(MANDIR)/man{1,5,8}, docs and examples in $(DATADIR)/doc/advshim/,
# experiments in $(DATADIR)/advshim/experiments/, the alert rules (and
# their promtool tests) in $(DATADIR)/advshim/prometheus/, the Grafana
# dashboard in $(DATADIR)/advshim/grafana/.  The Debian package
# (debian/rules): PREFIX=/usr, LIBDIR=/usr/lib/<multiarch>, SBINDIR=/usr/sbin,
# units in /lib/systemd/system, /etc/advshim.conf a conffile.

PKG_VERSION	= $(shell sh packaging/version.sh)
PKG_DEB_VERSION	= $(shell sh packaging/version.sh --dirty)
DEB_ARCH	= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
EXAMPLESDIR	= $(DATADIR)/doc/advshim/examples
DOCDIR		= $(DATADIR)/doc/advshim
EXPERIMENTSDIR	= $(DATADIR)/advshim/experiments

# What ships.  Sources stay where their owners keep them.
PKG_ARTIFACTS	:= $(SHIM_LIB) $(CLI_BIN) $(WATCH_BIN) $(LOAD_BIN) $(AB_BIN)
PKG_MAN1	:= docs/man/advshim.1 tools/load/advshim-load.1 \
		   tools/ab/advshim-ab.1
PKG_MAN5	:= docs/man/advshim.conf.5
PKG_MAN8	:= tools/watch/advshim-watch.8
PKG_MANPAGES	:= $(PKG_MAN1) $(PKG_MAN5) $(PKG_MAN8)
PKG_UNIT_SRC	:= tools/watch/advshim-watch.service
PKG_UNIT	:= $(BUILD)/packaging/advshim-watch.service
PKG_METRICS_UNITS := advshim-shim-metrics.service advshim-shim-metrics.timer
PKG_METRICS_BUILT := $(addprefix $(BUILD)/packaging/,$(PKG_METRICS_UNITS))
PKG_CONF	:= examples/advshim.conf
# Installed under $(EXAMPLESDIR), same relative paths.
PKG_EXAMPLES	:= advshim.conf opensearch-knn.conf elasticsearch.conf \
		   lucene.conf database.conf log-only.conf \
		   systemd/opensearch.service.d/advshim.conf \
		   systemd/advshim-watch.service.d/opensearch.conf \
		   systemd/etcd.service.d/advshim-seccomp.conf \
		   jvm/README.md jvm/jvm.options.d/advshim.options \
		   kubernetes/README.md kubernetes/opensearch-statefulset.yaml \
		   kubernetes/advshim-watch-daemonset.yaml kubernetes/Dockerfile
PKG_DOCS	:= README.md docs/policy.md docs/doctor.md docs/seccomp.md
# Monitoring, installed under $(DATADIR)/advshim, same relative paths.
PKG_MONITORING	:= prometheus/advshim-alerts.yml prometheus/advshim-alerts.test.yml \
		   grafana/advshim.json
# advshim-ab experiments, installed under $(EXPERIMENTSDIR).
PKG_EXPERIMENTS	:= default.conf host-advice.conf lab-mglru.conf lab-smoke.conf \
		   seed-opensearch.conf own-index.conf

# The shared library is 0644 (it is never executed), binaries 0755.
INSTALL		?= install
INSTALL_DATA	= $(INSTALL) -m 0644
INSTALL_PROG	= $(INSTALL) -m 0755

.PHONY: pkg-build pkg-install pkg-install-files pkg-uninstall deb dist \
	check-packaging check-examples check-facts check-man check-install check-dist check-deb \
	pkg-missing

# A clear message instead of make's "No rule to make target" while a
# component has not landed yet.
pkg-missing:
	@missing=; for f in $(PKG_ARTIFACTS); do \
		case " $(TARGETS) " in *" $$f "*) ;; *) missing="$$missing $$f";; esac; \
	done; \
	for f in $(PKG_MANPAGES) $(PKG_UNIT_SRC); do \
		[ -f "$$f" ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
		echo "packaging: not in the tree yet (no build rule or file):$$missing" >&2; \
		exit 1; fi

pkg-build: pkg-missing
	@$(MAKE) --no-print-directory $(PKG_ARTIFACTS)

# advshim run and advshim-ab find the shim (and advshim-ab the watcher)
# through LIBDIR/SBINDIR compiled in: rebuild them when those change (make;
# make install PREFIX=/usr must not install tools that look in /usr/local).
$(BUILD)/packaging/libdir.stamp: FORCE_PKG
	@mkdir -p $(dir $@)
	@echo '$(LIBDIR) $(SBINDIR)' | cmp -s - $@ || \
		echo '$(LIBDIR) $(SBINDIR)' > $@
$(OBJ)/tools/cli/cmd_run.o $(OBJ)/tools/ab/main.o: \
	$(BUILD)/packaging/libdir.stamp
.PHONY: FORCE_PKG
FORCE_PKG:

$(PKG_UNIT): $(PKG_UNIT_SRC) FORCE_PKG
	@mkdir -p $(dir $@)
	@sed 's|@SBINDIR@|$(SBINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g; s|@BINDIR@|$(BINDIR)|g' \
		$< > $@.tmp && mv $@.tmp $@

INSTALL_TARGETS	+= pkg-install
UNINSTALL_TARGETS += pkg-uninstall

pkg-install: pkg-build
	@$(MAKE) --no-print-directory pkg-install-files

# /etc/advshim.conf is installed only when absent: an existing one (edited
# or not) is never replaced; the reference stays in $(EXAMPLESDIR).
$(PKG_METRICS_BUILT): $(BUILD)/packaging/%: packaging/% FORCE_PKG
	@mkdir -p $(dir $@)
	@sed 's|@BINDIR@|$(BINDIR)|g' $< > $@.tmp && mv $@.tmp $@

pkg-install-files: pkg-missing $(PKG_UNIT) $(PKG_METRICS_BUILT)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSCONFDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(EXPERIMENTSDIR)
	$(INSTALL_DATA) $(SHIM_LIB) $(DESTDIR)$(LIBDIR)/libadvshim.so
	$(INSTALL_PROG) $(CLI_BIN) $(LOAD_BIN) $(AB_BIN) $(DESTDIR)$(BINDIR)/
	$(INSTALL_PROG) $(WATCH_BIN) $(DESTDIR)$(SBINDIR)/advshim-watch
	$(INSTALL_DATA) $(PKG_UNIT) $(DESTDIR)$(SYSTEMDUNITDIR)/advshim-watch.service
	$(INSTALL_DATA) $(PKG_METRICS_BUILT) $(DESTDIR)$(SYSTEMDUNITDIR)/
	$(INSTALL_DATA) $(PKG_MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL_DATA) $(PKG_MAN5) $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL_DATA) $(PKG_MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL_DATA) $(PKG_DOCS) $(DESTDIR)$(DOCDIR)/
	$(INSTALL_DATA) $(addprefix examples/experiments/,$(PKG_EXPERIMENTS)) \
		$(DESTDIR)$(EXPERIMENTSDIR)/
	@set -e; for f in $(PKG_MONITORING); do \
		echo "$(INSTALL_DATA) -D packaging/$$f $(DESTDIR)$(DATADIR)/advshim/$$f"; \
		$(INSTALL_DATA) -D packaging/$$f $(DESTDIR)$(DATADIR)/advshim/$$f; \
	done
	@set -e; for f in $(PKG_EXAMPLES); do \
		echo "$(INSTALL_DATA) -D examples/$$f $(DESTDIR)$(EXAMPLESDIR)/$$f"; \
		$(INSTALL_DATA) -D examples/$$f $(DESTDIR)$(EXAMPLESDIR)/$$f; \
	done
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/advshim.conf ]; then \
		echo "install: kept the existing $(DESTDIR)$(SYSCONFDIR)/advshim.conf" \
			"(reference: $(EXAMPLESDIR)/advshim.conf)"; \
	else \
		echo "$(INSTALL_DATA) $(PKG_CONF) $(DESTDIR)$(SYSCONFDIR)/advshim.conf"; \
		$(INSTALL_DATA) $(PKG_CONF) $(DESTDIR)$(SYSCONFDIR)/advshim.conf; \
	fi

# /etc/advshim.conf goes only if it is byte-identical to the installed
# reference (never edited); the reference is compared before it is removed.
pkg-uninstall:
	@conf=$(DESTDIR)$(SYSCONFDIR)/advshim.conf; \
	ref=$(DESTDIR)$(EXAMPLESDIR)/advshim.conf; \
	if [ -e "$$conf" ]; then \
		if [ -f "$$ref" ] && cmp -s "$$conf" "$$ref"; then \
			echo "rm -f $$conf"; rm -f "$$conf"; \
		else \
			echo "uninstall: kept $$conf (edited, or no reference to compare with)"; \
		fi; \
	fi
	rm -f $(DESTDIR)$(LIBDIR)/libadvshim.so \
		$(DESTDIR)$(BINDIR)/advshim $(DESTDIR)$(BINDIR)/advshim-load \
		$(DESTDIR)$(BINDIR)/advshim-ab $(DESTDIR)$(SBINDIR)/advshim-watch \
		$(DESTDIR)$(SYSTEMDUNITDIR)/advshim-watch.service \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(PKG_METRICS_UNITS)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(PKG_MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(PKG_MAN5))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(PKG_MAN8))) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(PKG_DOCS))) \
		$(addprefix $(DESTDIR)$(EXAMPLESDIR)/,$(PKG_EXAMPLES)) \
		$(addprefix $(DESTDIR)$(EXPERIMENTSDIR)/,$(PKG_EXPERIMENTS)) \
		$(addprefix $(DESTDIR)$(DATADIR)/advshim/,$(PKG_MONITORING))
	@# Directories advshim alone owns; shared ones (bin, man1...) stay.
	-@rmdir $(DESTDIR)$(EXAMPLESDIR)/systemd/opensearch.service.d \
		$(DESTDIR)$(EXAMPLESDIR)/systemd/advshim-watch.service.d \
		$(DESTDIR)$(EXAMPLESDIR)/systemd/etcd.service.d \
		$(DESTDIR)$(EXAMPLESDIR)/systemd \
		$(DESTDIR)$(EXAMPLESDIR)/jvm/jvm.options.d \
		$(DESTDIR)$(EXAMPLESDIR)/jvm $(DESTDIR)$(EXAMPLESDIR)/kubernetes \
		$(DESTDIR)$(EXAMPLESDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(EXPERIMENTSDIR) $(DESTDIR)$(DATADIR)/advshim/prometheus \
		$(DESTDIR)$(DATADIR)/advshim/grafana \
		$(DESTDIR)$(DATADIR)/advshim 2>/dev/null || true

# The Debian package, built by dpkg-buildpackage from a copy of the working
# tree (tracked and untracked-but-not-ignored files) in build/deb/, so the
# tree's own build/ and its parent directory stay untouched.
DEB_STAGE	= $(BUILD)/deb/advshim-$(PKG_DEB_VERSION)
DEB_FILE	= $(BUILD)/advshim_$(PKG_DEB_VERSION)_$(DEB_ARCH).deb

deb: pkg-missing
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
		{ echo "make deb: needs dpkg-dev and debhelper (make deps)" >&2; exit 1; }
	rm -rf $(BUILD)/deb
	mkdir -p $(DEB_STAGE)
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_STAGE)
	echo '$(PKG_DEB_VERSION)' > $(DEB_STAGE)/VERSION
	sh packaging/changelog.sh '$(PKG_DEB_VERSION)' > $(DEB_STAGE)/debian/changelog
	@# The package's build gets none of this make's command-line variables
	@# (SANITIZER=, PREFIX=...): debian/rules sets its own.
	cd $(DEB_STAGE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		DEB_BUILD_OPTIONS=parallel=2 \
		dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 40 ../build.log >&2; \
		  echo "make deb: dpkg-buildpackage failed, log: $(BUILD)/deb/build.log" >&2; \
		  exit 1; }
	mv $(BUILD)/deb/advshim_$(PKG_DEB_VERSION)_$(DEB_ARCH).deb $(DEB_FILE)
	@echo "deb: $(DEB_FILE)"

# The container image of examples/kubernetes (the DaemonSet and the init
# container that hands out the shim): the package installed on Debian 12.
#   make image [IMAGE=REGISTRY/advshim:VERSION] [DOCKER=podman]
IMAGE		?= advshim:$(PKG_VERSION)
DOCKER		?= docker
.PHONY: image
image: deb
	@command -v $(DOCKER) >/dev/null || { echo "make image: no $(DOCKER) (DOCKER=podman?)" >&2; exit 1; }
	rm -f $(BUILD)/image-context/*.deb
	mkdir -p $(BUILD)/image-context
	cp $(DEB_FILE) $(BUILD)/image-context/
	$(DOCKER) build -f examples/kubernetes/Dockerfile -t $(IMAGE) $(BUILD)/image-context
	@echo "image: $(IMAGE) (push it and set image: in examples/kubernetes/*.yaml)"

# The release tarball: exactly the committed HEAD, plus a VERSION file so
# the unpacked tree knows its version without git.
DIST_FILE	= $(BUILD)/advshim-$(PKG_VERSION).tar.gz

dist:
	@mkdir -p $(BUILD)/packaging
	echo '$(PKG_VERSION)' > $(BUILD)/packaging/VERSION
	git archive --format=tar.gz --prefix=advshim-$(PKG_VERSION)/ \
		--add-file=$(BUILD)/packaging/VERSION -o $(DIST_FILE) HEAD
	@echo "dist: $(DIST_FILE)"
	@if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then \
		echo "dist: note: uncommitted changes are not in the tarball" >&2; fi

# --- tests ------------------------------------------------------------------
# Each part runs even when an earlier one failed; the target fails if any did.
PKG_TEST_DIR	:= tests/integration/packaging
# The shim's integration test program $(SHIM_ADVPROG) maps a file, advises
# it, prints each page's VmFlags advice (p0=rr ...).
check-examples: $(CLI_BIN) $(WATCH_BIN) $(AB_BIN) $(SHIM_LIB) $(SHIM_ADVPROG) $(SECCOMP_PROBE)
	@sh $(PKG_TEST_DIR)/check-examples.sh $(BUILD)

# One truth per fact: what the shipped config, unit, drop-in, DaemonSet,
# man pages and README say about each other (check-facts.sh's list).
CHECK_TARGETS	+= check-facts
CHECK_FAST_TARGETS += check-facts
check-facts: $(CLI_BIN)
	@sh $(PKG_TEST_DIR)/check-facts.sh $(BUILD)

check-man:
	@sh $(PKG_TEST_DIR)/check-man.sh $(PKG_MANPAGES)

check-install:
	@sh $(PKG_TEST_DIR)/check-install.sh "$(MAKE) --no-print-directory" $(BUILD)

check-dist:
	@sh $(PKG_TEST_DIR)/check-dist.sh "$(MAKE) --no-print-directory" $(BUILD)

# The package is built without sanitizers, so check-deb drives it with a
# plain build of the same test program (a sanitized one would need its
# runtime preloaded ahead of the package's library).
PKG_ADVPROG_PLAIN := $(BUILD)/tests/packaging/advprog-plain
$(PKG_ADVPROG_PLAIN): tests/integration/shim/advprog.c tests/integration/shim/vmflags.h \
		      common/smaps.c common/smaps.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CPPFLAGS) -o $@ $< common/smaps.c $(LDFLAGS) -ldl -lpthread

check-deb: $(PKG_ADVPROG_PLAIN)
	@sh $(PKG_TEST_DIR)/check-deb.sh "$(MAKE) --no-print-directory" $(BUILD) $(PKG_ADVPROG_PLAIN)

check-packaging:
	@rc=0; for t in check-examples check-facts check-man check-install check-dist check-deb; do \
		echo "--- $$t"; \
		$(MAKE) --no-print-directory $$t || { echo "--- $$t: FAILED"; rc=1; }; \
	done; exit $$rc

CHECK_TARGETS	+= check-packaging
