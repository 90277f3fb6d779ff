# tools/opensearch: advshim-opensearch, a real single OpenSearch node (3.6
# from Maven Central) with the k-NN plugin, and a k-NN load client in
# advshim-lucene's output shape (tools/opensearch/README.md).
#
#   make                   builds $(BUILD)/advshim-opensearch when Maven and
#                          a JDK 21+ are there; says so in one line otherwise
#   make check-opensearch  the node plain and under the shim (in make check)
#   make lab-opensearch    the report's scenario with the node in the MGLRU lab
#
# OPENSEARCH_VERSION=3.x builds another 3.x release (with k-NN 3.x.0).
OPENSEARCH_VERSION ?= 3.6.0
# With the query load it shares with advshim-lucene (tools/jvm/).
OPENSEARCH_SRCS	:= $(wildcard tools/opensearch/src/main/java/advshim/opensearch/*.java \
		     tools/jvm/src/main/java/advshim/bench/*.java)
OPENSEARCH_BIN	:= $(BUILD)/advshim-opensearch
OPENSEARCH_BUILD_FILES := tools/opensearch/pom.xml tools/opensearch/build.sh \
		   tools/opensearch/advshim-opensearch.in tools/opensearch/config/log4j2.properties \
		   tools/lucene/find-jdk.sh tools/jvm/build-common.sh
# MAVEN=0 (check-fast) leaves the Maven build out of `all` (maven_tool).
$(eval $(call maven_tool,$(OPENSEARCH_BIN),$(OPENSEARCH_SRCS) $(OPENSEARCH_BUILD_FILES),$(OPENSEARCH_VERSION),tools/opensearch/build.sh))

.PHONY: check-opensearch
CHECK_TARGETS	+= check-opensearch
check-opensearch: $(SHIM_LIB) $(CLI_BIN) $(OPENSEARCH_BIN)
	@sh tests/integration/opensearch/run.sh $(BUILD) "$(SANITIZER)"

# The bug report's scenario with the real node in the MGLRU lab (tools/
# opensearch/lab/lab-opensearch.sh; the lab's one arm script, workload
# opensearch): no fix, shim, shim + opensearch-knn.conf, watcher, shim +
# watcher, lru_gen off, LAB_REPEAT (3) rounds, ~45 min a round.  Not in
# make check.
.PHONY: lab-opensearch
lab-opensearch: $(OPENSEARCH_BIN) $(SHIM_LIB) $(WATCH_BIN) $(LOAD_BIN) $(CLI_BIN) $(PROG_RESID)
	@sh tools/opensearch/lab/lab-opensearch.sh $(BUILD)
