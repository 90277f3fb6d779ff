# advshim: one non-recursive Makefile.
#
# Each component lives in its own directory and describes itself in a
# module.mk fragment that this file includes.  A fragment appends to:
#   TARGETS        files built by `make` (all)
#   CHECK_TARGETS  phony targets run (each in turn, all of them) by `make check`
#   BENCH_TARGETS  phony targets run by `make bench`
#   CLEAN_EXTRA    extra paths removed by `make clean`
# and may add install rules to INSTALL_TARGETS / UNINSTALL_TARGETS.

# A release tarball (make dist) carries a VERSION file; a git tree describes
# itself.  The file wins: inside an unpacked tarball `git describe` would
# describe whatever repository happens to enclose it.
VERSION := $(shell cat VERSION 2>/dev/null || \
		git describe --tags --always --dirty 2>/dev/null || echo 0.1.0)

BUILD		?= build
OBJ		:= $(BUILD)/obj
CC		?= cc
PKG_CONFIG	?= pkg-config

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib
SYSCONFDIR	?= /etc
MANDIR		?= $(PREFIX)/share/man
DATADIR		?= $(PREFIX)/share
SYSTEMDUNITDIR	?= $(PREFIX)/lib/systemd/system
DESTDIR		?=

# SANITIZER=address|undefined|thread (comma lists work too: address,undefined)
SANITIZER	?=
# WERROR=1 turns warnings into errors (CI sets it).
WERROR		?=

CFLAGS		?= -O2 -g
WARNINGS	:= -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
		   -Wmissing-prototypes -Wpointer-arith -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS	+= -Werror
endif
ifneq ($(SANITIZER),)
SAN_FLAGS	:= -fsanitize=$(SANITIZER) -fno-omit-frame-pointer
endif

# Everything is built position independent: policy/ and common/ objects
# are linked into libadvshim.so and into the tools alike.
BASE_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -fPIC -I. \
		   -DADVSHIM_VERSION='"$(VERSION)"' $(WARNINGS)
ALL_CFLAGS	= $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS) $(CPPFLAGS) $(EXTRA_CFLAGS)
ALL_LDFLAGS	= $(SAN_FLAGS) $(LDFLAGS)

CONFIG_LIBS	:= -lconfig
CRITERION_LIBS	:= -lcriterion

TARGETS		:=
CHECK_TARGETS	:=
BENCH_TARGETS	:=
CLEAN_EXTRA	:=
INSTALL_TARGETS	:=
UNINSTALL_TARGETS :=

.PHONY: all check deps demo bench clean install uninstall
all:

include $(sort $(wildcard */module.mk tools/*/module.mk))

all: $(TARGETS)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# Installs the Debian packages the build and the tests need; quiet and
# idempotent when everything is there already.
deps:
	@sh mk/deps.sh

# Runs every check target even when one fails, then says how many passed.
check: deps
	@$(MAKE) --no-print-directory all
	@sh mk/run-checks.sh "$(MAKE) --no-print-directory" $(CHECK_TARGETS)

bench: all
	@sh mk/run-checks.sh "$(MAKE) --no-print-directory" $(BENCH_TARGETS)

install: all $(INSTALL_TARGETS)
uninstall: $(UNINSTALL_TARGETS)

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

# The main job, on this machine (see mk/demo.sh).
demo: deps
	@$(MAKE) --no-print-directory all
	@MAKE="$(MAKE) --no-print-directory" sh mk/demo.sh $(BUILD)
