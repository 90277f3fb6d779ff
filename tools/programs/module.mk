# tools/programs: real programs on real libraries as lab workloads (make
# lab-programs, tools/lab/README.md "Workloads"):
#   advshim-lmdb   an LMDB reader and loader (Debian's liblmdb-dev), built
#                  when lmdb.h is there
#   advshim-bolt   a bbolt reader and loader (go.etcd.io/bbolt from the Go
#                  module proxy), static (CGO_ENABLED=0), built when go is
#   advshim-resid  page-cache residency of files, for the lab's samplers
# A missing toolchain is said in one line and the program is left out;
# the lab then skips the workloads that need it.
PROG_LMDB	:= $(BUILD)/advshim-lmdb
PROG_BOLT	:= $(BUILD)/advshim-bolt
PROG_BOLT_SRCS	:= $(wildcard tools/programs/bolt/*.go) tools/programs/bolt/go.mod \
		   tools/programs/bolt/go.sum
GO		?= go
TARGETS		+= $(PROG_RESID) $(PROG_LMDB) $(PROG_BOLT)

$(PROG_RESID): $(OBJ)/tools/programs/resid.o $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

# zipf.o is advshim-load's sampler (mk/paths.mk: LOAD_ZIPF_OBJ).
$(PROG_LMDB): tools/programs/lmdb.c $(LOAD_ZIPF_OBJ)
	@if [ -f /usr/include/lmdb.h ]; then \
		echo "$(CC) ... -o $@ tools/programs/lmdb.c -llmdb"; \
		$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -pthread -o $@ tools/programs/lmdb.c \
			$(LOAD_ZIPF_OBJ) -llmdb -lm; \
	else echo "advshim-lmdb: not built (no lmdb.h: the Debian package liblmdb-dev)"; fi

# The module cache is go's own ($$GOMODCACHE); go.sum pins the versions.
$(PROG_BOLT): $(PROG_BOLT_SRCS)
	@if command -v $(GO) >/dev/null 2>&1; then \
		echo "go build -o $@ (tools/programs/bolt, CGO_ENABLED=0)"; \
		cd tools/programs/bolt && CGO_ENABLED=0 $(GO) build -trimpath -o $(abspath $@) . || \
		echo "advshim-bolt: not built (go build failed: the Go module proxy unreachable?)"; \
	else echo "advshim-bolt: not built (no go toolchain)"; fi

# The programs on this machine: rows, their MADV_RANDOM (strace, VmFlags),
# what the shim can and cannot change (tests/integration/programs/run.sh).
.PHONY: check-programs
CHECK_TARGETS	+= check-programs
CHECK_FAST_TARGETS += check-programs
check-programs: $(PROG_LMDB) $(PROG_BOLT) $(PROG_RESID) $(SHIM_LIB)
	@sh tests/integration/programs/run.sh $(BUILD)
