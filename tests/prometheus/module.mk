# tests/prometheus: the fleet's observability, from outside: advshim-watch's
# HTTP endpoint and textfile (http.sh).
.PHONY: check-watch-http
CHECK_TARGETS	+= check-watch-http
CHECK_FAST_TARGETS += check-watch-http
check-watch-http: $(WATCH_BIN) $(WATCH_PLAYER)
	@sh tests/prometheus/http.sh $(BUILD)

# advshim inspect --prometheus on real processes (with and without the
# shim, fixed and adaptive rules, the kill switch), promtool-linted.
.PHONY: check-inspect-prometheus
CHECK_TARGETS	+= check-inspect-prometheus
CHECK_FAST_TARGETS += check-inspect-prometheus
check-inspect-prometheus: $(CLI_BIN) $(SHIM_LIB) $(SHIM_IT)/adaptprog
	@sh tests/prometheus/inspect.sh $(BUILD)

# Debian's real Prometheus and node-exporter scraping advshim-watch's
# /metrics and the shim's textfile export; the alert rules through promtool
# (apt-get install prometheus prometheus-node-exporter).
.PHONY: check-prometheus
CHECK_TARGETS	+= check-prometheus
check-prometheus: $(WATCH_BIN) $(WATCH_PLAYER) $(CLI_BIN) $(SHIM_LIB) $(SHIM_IT)/adaptprog
	@sh tests/prometheus/prom.sh $(BUILD)
