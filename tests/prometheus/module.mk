# tests/prometheus: the fleet's observability, from outside: advshim-watch's
# HTTP endpoint and textfile (http.sh).
.PHONY: check-watch-http
CHECK_TARGETS	+= check-watch-http
CHECK_FAST_TARGETS += check-watch-http
check-watch-http: $(WATCH_BIN) $(WATCH_PLAYER)
	@sh tests/prometheus/http.sh $(BUILD)
