# tools/lucene: advshim-lucene, real Lucene (lucene-core from Maven
# Central) as the project's workload: an HNSW index builder and a KNN query
# load in advshim-load's output shape (tools/lucene/README.md).
#
#   make                  builds $(BUILD)/advshim-lucene(.jar) when Maven and
#                         a JDK 21+ are there; says so in one line otherwise
#   make check-lucene     real Lucene under the shim (in make check)
#   make bench-lucene     shim vs plain on real Lucene (in make bench)
#   make lucene-runtime   the jlink'd runtime for the lab guest
#   make lab-lucene       the Lucene workload in the MGLRU lab guest
#
# LUCENE_VERSION=10.x builds against another lucene-core 10 release.
LUCENE_VERSION	?= 10.4.0
# The query load advshim-opensearch shares is in tools/jvm/ (both builds
# compile it, so an edit there rebuilds both).
LUCENE_SRCS	:= $(wildcard tools/lucene/src/main/java/advshim/lucene/*.java \
		     tools/jvm/src/main/java/advshim/bench/*.java)
LUCENE_JAR	:= $(BUILD)/advshim-lucene.jar
LUCENE_BUILD_FILES := tools/lucene/pom.xml tools/lucene/build.sh \
		   tools/lucene/find-jdk.sh tools/lucene/advshim-lucene.in \
		   tools/jvm/build-common.sh
# Changing LUCENE_VERSION rebuilds (see maven_tool in the Makefile).
$(eval $(call maven_tool,$(LUCENE_JAR),$(LUCENE_SRCS) $(LUCENE_BUILD_FILES),$(LUCENE_VERSION),tools/lucene/build.sh))

.PHONY: check-lucene bench-lucene
CHECK_TARGETS	+= check-lucene
check-lucene: $(SHIM_LIB) $(CLI_BIN) $(LUCENE_JAR)
	@sh tests/integration/lucene/run.sh $(BUILD) "$(SANITIZER)"

BENCH_TARGETS	+= bench-lucene
bench-lucene: $(SHIM_LIB) $(CLI_BIN) $(LUCENE_JAR)
	@sh bench/lucene_bench.sh $(BUILD)

# The lab part: a jlink'd runtime and the Lucene workload in the MGLRU lab
# guest (tools/lucene/lab/lab-lucene.sh stages the JVM and the index; the
# lab's one arm script, workload lucene, tools/lab/experiments/lucene.arms):
# no fix, shim, watcher, shim + watcher, lru_gen off, LAB_REPEAT (3)
# rounds.  Not in make check.
.PHONY: lucene-runtime lab-lucene
lucene-runtime: $(LUCENE_JAR)
	@sh tools/lucene/lab/runtime.sh $(BUILD)

lab-lucene: $(LUCENE_JAR) $(SHIM_LIB) $(WATCH_BIN) $(LOAD_BIN) $(CLI_BIN) $(PROG_RESID)
	@sh tools/lucene/lab/lab-lucene.sh $(BUILD)

# The soak (tools/lucene/soak/, README "Soak"): real Lucene searched while a
# second index is written and merged, under the ASan+UBSan shim, with the
# adaptive choice switching, for SOAK_SECONDS.  Long-running: not in
# make check.  Needs root (a memory cgroup of its own).  SOAK_CONTROL=1
# plants sanitizer reports (tools/lucene/soak/control.c, built by the
# script) and passes only when the soak finds them and fails.
SOAK_SECONDS	?= 60
.PHONY: soak
soak: $(CLI_BIN) $(LUCENE_JAR) stress-build-asan
	@sh tools/lucene/soak/soak.sh $(BUILD) $(STRESS_ASAN_BUILD) $(SOAK_SECONDS)
