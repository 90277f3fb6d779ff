# tools/jvm: the Java both Maven-built tools compile (package advshim.bench)
# and the shell steps of their builds (build-common.sh); tools/jvm/README.md.
# Nothing is built here on its own: tools/lucene/module.mk (LUCENE_SRCS,
# LUCENE_BUILD_FILES) and tools/opensearch/module.mk (OPENSEARCH_SRCS,
# OPENSEARCH_BUILD_FILES) list these files, so an edit rebuilds both.
