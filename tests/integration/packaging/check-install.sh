#!/bin/sh
# check-install.sh "MAKE" BUILD - `make install DESTDIR=...` installs exactly
# the expected files (an explicit list below, not derived from the
# Makefile), honours every directory variable, rewrites the watcher unit's
# paths, never replaces an existing /etc/advshim.conf and never runs
# systemctl or ldconfig; `make uninstall` removes every file, keeps an
# edited config, and leaves only the shared hierarchy's empty directories.
# Run from the top of the tree.
set -u
MAKE_CMD=${1:-make}
B=${2:-build}
pass=0 fail=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }

T=$(mktemp -d)
cleanup() {
	rm -rf "$T"
	# The custom-LIBDIR install rebuilt the CLI for /opt: build it back.
	$MAKE_CMD "$B/advshim" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Stand-ins that record any call: install must not use them.
mkdir -p "$T/fakebin"
for c in systemctl ldconfig deb-systemd-helper; do
	printf '#!/bin/sh\necho "%s $*" >> %s/forbidden\n' "$c" "$T" > "$T/fakebin/$c"
	chmod +x "$T/fakebin/$c"
done

expected_files() {	# PREFIX LIBDIR BINDIR SBINDIR SYSCONFDIR MANDIR DATADIR UNITDIR
	lib=$2 bin=$3 sbin=$4 etc=$5 man=$6 data=$7 unit=$8
	cat <<EOT
$lib/libadvshim.so
$bin/advshim
$bin/advshim-load
$bin/advshim-ab
$sbin/advshim-watch
$etc/advshim.conf
$unit/advshim-watch.service
$unit/advshim-shim-metrics.service
$unit/advshim-shim-metrics.timer
$man/man1/advshim.1
$man/man1/advshim-load.1
$man/man1/advshim-ab.1
$man/man5/advshim.conf.5
$man/man8/advshim-watch.8
$data/doc/advshim/README.md
$data/doc/advshim/policy.md
$data/doc/advshim/doctor.md
$data/doc/advshim/seccomp.md
$data/doc/advshim/examples/advshim.conf
$data/doc/advshim/examples/opensearch-knn.conf
$data/doc/advshim/examples/elasticsearch.conf
$data/doc/advshim/examples/lucene.conf
$data/doc/advshim/examples/database.conf
$data/doc/advshim/examples/log-only.conf
$data/doc/advshim/examples/systemd/opensearch.service.d/advshim.conf
$data/doc/advshim/examples/systemd/advshim-watch.service.d/opensearch.conf
$data/doc/advshim/examples/systemd/etcd.service.d/advshim-seccomp.conf
$data/doc/advshim/examples/jvm/README.md
$data/doc/advshim/examples/jvm/jvm.options.d/advshim.options
$data/doc/advshim/examples/kubernetes/README.md
$data/doc/advshim/examples/kubernetes/opensearch-statefulset.yaml
$data/doc/advshim/examples/kubernetes/advshim-watch-daemonset.yaml
$data/doc/advshim/examples/kubernetes/Dockerfile
$data/advshim/experiments/default.conf
$data/advshim/experiments/host-advice.conf
$data/advshim/experiments/lab-mglru.conf
$data/advshim/experiments/lab-smoke.conf
$data/advshim/experiments/seed-opensearch.conf
$data/advshim/experiments/own-index.conf
$data/advshim/prometheus/advshim-alerts.yml
$data/advshim/prometheus/advshim-alerts.test.yml
$data/advshim/grafana/advshim.json
EOT
}

# install_case NAME "MAKEVARS" PREFIX LIBDIR BINDIR SBINDIR SYSCONFDIR MANDIR DATADIR UNITDIR
install_case() {
	name=$1 vars=$2; shift 2
	D=$T/$name
	rm -f "$T/forbidden"
	# shellcheck disable=SC2086
	if ! PATH="$T/fakebin:$PATH" $MAKE_CMD install DESTDIR="$D" $vars \
		> "$T/$name.install.log" 2>&1; then
		bad "$name: make install" "$(tail -n 15 "$T/$name.install.log")"
		return 1
	fi
	expected_files "$@" | sed "s|^|$D|" | sort > "$T/$name.expected"
	find "$D" \( -type f -o -type l \) | sort > "$T/$name.got"
	if cmp -s "$T/$name.expected" "$T/$name.got"; then
		ok "$name: make install put exactly the $(wc -l < "$T/$name.got") listed files"
	else
		bad "$name: installed files" "$(diff "$T/$name.expected" "$T/$name.got" | sed -n 's/^[<>]/&/p' | head -20)"
	fi
	if [ -e "$T/forbidden" ]; then
		bad "$name: forbidden commands" "$(cat "$T/forbidden")"
	else
		ok "$name: make install ran no systemctl/ldconfig"
	fi
	lib=$2 bin=$3 sbin=$4 etc=$5 man=$6 unit=$8
	# Modes: programs executable, the rest not.
	bad_modes=
	for f in "$bin/advshim" "$bin/advshim-load" "$bin/advshim-ab" "$sbin/advshim-watch"; do
		[ -x "$D$f" ] || bad_modes="$bad_modes $f"
	done
	for f in "$lib/libadvshim.so" "$etc/advshim.conf" "$unit/advshim-watch.service" \
		 "$man/man5/advshim.conf.5"; do
		[ "$(stat -c %a "$D$f" 2>/dev/null)" = 644 ] || bad_modes="$bad_modes $f"
	done
	if [ -z "$bad_modes" ]; then
		ok "$name: modes (0755 programs, 0644 library, config, unit, pages)"
	else
		bad "$name: modes" "$bad_modes"
	fi
	# The metrics unit runs the installed advshim.
	if grep -q "$bin/advshim inspect --prometheus" "$D$unit/advshim-shim-metrics.service" &&
	   ! grep -q '@[A-Z]*@' "$D$unit/advshim-shim-metrics.service"; then
		ok "$name: advshim-shim-metrics.service runs $bin/advshim inspect --prometheus"
	else
		bad "$name: metrics unit" "$(grep -n 'ExecStart' "$D$unit/advshim-shim-metrics.service")"
	fi
	# The unit starts the installed watcher and reads SYSCONFDIR.
	u=$D$unit/advshim-watch.service
	if grep -q "^ExecStart=$sbin/advshim-watch " "$u" &&
	   grep -q "^EnvironmentFile=-$etc/default/advshim-watch" "$u" &&
	   ! grep -q '@[A-Z]*@' "$u"; then
		ok "$name: unit ExecStart=$sbin/advshim-watch, no @VAR@ left"
	else
		bad "$name: unit paths" "$(grep -n 'ExecStart\|EnvironmentFile\|@' "$u")"
	fi
	# The installed reference config is the tree's, and is valid.
	if cmp -s "$D$etc/advshim.conf" examples/advshim.conf &&
	   "$B/advshim" check -q "$D$etc/advshim.conf" >/dev/null; then
		ok "$name: $etc/advshim.conf is the commented reference and validates"
	else
		bad "$name: $etc/advshim.conf" "differs from examples/advshim.conf or invalid"
	fi
	return 0
}

# uninstall_case NAME "MAKEVARS": nothing but empty directories left
uninstall_case() {
	name=$1 vars=$2
	D=$T/$name
	rm -f "$T/forbidden"
	# shellcheck disable=SC2086
	if ! PATH="$T/fakebin:$PATH" $MAKE_CMD uninstall DESTDIR="$D" $vars \
		> "$T/$name.uninstall.log" 2>&1; then
		bad "$name: make uninstall" "$(tail -n 15 "$T/$name.uninstall.log")"
		return 1
	fi
	left=$(find "$D" ! -type d)
	if [ -z "$left" ]; then
		ok "$name: make uninstall removed every file"
	else
		bad "$name: left after uninstall" "$left"
	fi
	if find "$D" -type d \( -path '*/doc/advshim*' -o -path '*/share/advshim*' -o -path '*/d/advshim*' \) | grep -q .; then
		bad "$name: doc dir" "$(find "$D" -type d -path '*advshim*')"
	else
		ok "$name: advshim's own doc/examples directories removed"
	fi
	[ -e "$T/forbidden" ] && bad "$name: forbidden commands on uninstall" "$(cat "$T/forbidden")"
	# What remains are the shared hierarchy's directories (bin, lib,
	# share/man/man1, ...), which other packages use: documented, and
	# removed here.
	find "$D" -depth -type d -empty -delete
	[ ! -e "$D" ] && ok "$name: only empty shared directories were left"
	return 0
}

for f in "$B/libadvshim.so" "$B/advshim" "$B/advshim-watch" "$B/advshim-load" "$B/advshim-ab"; do
	[ -e "$f" ] || echo "check-install: note: $f not built yet; make install builds it" >&2
done

# 1. Defaults: PREFIX=/usr/local, SYSCONFDIR=/etc.
if install_case default "" /usr/local /usr/local/lib /usr/local/bin /usr/local/sbin \
	/etc /usr/local/share/man /usr/local/share /usr/local/lib/systemd/system; then
	D=$T/default
	# The installed CLI finds the installed library (../lib from bin/).
	# (busybox is static: it shows the environment without loading the
	# library, which a sanitizer build could not preload into a plain sh.)
	if out=$(env -u ADVSHIM_LIB "$D/usr/local/bin/advshim" run -- /bin/busybox sh -c 'echo "$LD_PRELOAD"' 2>&1) &&
	   [ "$out" = "$D/usr/local/bin/../lib/libadvshim.so" ]; then
		ok "default: installed advshim run preloads the installed library"
	else
		bad "default: advshim run" "$out"
	fi
	# A second install keeps the (now edited) config.
	echo "# edited by the admin" >> "$D/etc/advshim.conf"
	cp "$D/etc/advshim.conf" "$T/edited.conf"
	if PATH="$T/fakebin:$PATH" $MAKE_CMD install DESTDIR="$D" > "$T/reinstall.log" 2>&1 &&
	   cmp -s "$D/etc/advshim.conf" "$T/edited.conf" &&
	   grep -q 'kept the existing' "$T/reinstall.log"; then
		ok "default: reinstall keeps an edited /etc/advshim.conf and says so"
	else
		bad "default: reinstall" "config replaced or install failed: $(tail -n 5 "$T/reinstall.log")"
	fi
	# Uninstall keeps it too; everything else goes.
	PATH="$T/fakebin:$PATH" $MAKE_CMD uninstall DESTDIR="$D" > "$T/un1.log" 2>&1
	if cmp -s "$D/etc/advshim.conf" "$T/edited.conf" &&
	   [ "$(find "$D" ! -type d)" = "$D/etc/advshim.conf" ]; then
		ok "default: uninstall keeps the edited config, removes everything else"
	else
		bad "default: uninstall with edited config" "$(find "$D" ! -type d | head)"
	fi
	rm -f "$D/etc/advshim.conf"
	# Install again (fresh config) and uninstall: the unchanged config goes.
	PATH="$T/fakebin:$PATH" $MAKE_CMD install DESTDIR="$D" > "$T/install2.log" 2>&1 ||
		bad "default: install again" "$(tail -n 5 "$T/install2.log")"
	uninstall_case default ""
fi

# 2. Every directory variable moved somewhere unusual.
V="PREFIX=/opt/adv LIBDIR=/opt/adv/lib64/advshim BINDIR=/opt/adv/b SBINDIR=/opt/adv/sb SYSCONFDIR=/opt/etc MANDIR=/opt/adv/m DATADIR=/opt/adv/d SYSTEMDUNITDIR=/opt/units"
if install_case custom "$V" /opt/adv /opt/adv/lib64/advshim /opt/adv/b /opt/adv/sb \
	/opt/etc /opt/adv/m /opt/adv/d /opt/units; then
	# The CLI was rebuilt to look for the library in the new LIBDIR.
	if grep -aq '/opt/adv/lib64/advshim' "$T/custom/opt/adv/b/advshim"; then
		ok "custom: installed advshim looks for the library in LIBDIR"
	else
		bad "custom: CLI LIBDIR" "the installed advshim does not mention /opt/adv/lib64/advshim"
	fi
	uninstall_case custom "$V"
fi

echo "check-install: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
