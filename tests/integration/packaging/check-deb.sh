#!/bin/sh
# check-deb.sh "MAKE" BUILD ADVPROG - the Debian package: `make deb` builds
# it, `dpkg -i` installs it on this machine, and then, from the installed
# files only:
#   - advshim --version is the package's version; the config validates;
#   - its libadvshim.so, preloaded (absolute path, bare name through the
#     loader's search path, and via `advshim run`), removes `rr` from an
#     MADV_RANDOM mapping (kernel VmFlags, read by the shim's advprog),
#     which without it keeps `rr` (the control);
#   - `advshim inspect` sees the installed library in the process, and
#     `advshim doctor` says the shim is active there;
#   - the unit and the examples' watcher drop-in pass systemd-analyze
#     verify (man page reference included), the man pages are found by man;
#   - `dpkg -r` keeps the conffile, `dpkg -P` removes everything: no file
#     of the package is left, and an /etc/advshim.conf that was there
#     before the test is put back.
# Needs root (dpkg -i).  Run from the top of the tree.
set -u
MAKE_CMD=${1:-make}
B=${2:-build}
ADVPROG=${3:-$B/tests/shim/advprog}
pass=0 fail=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }
finish() {
	echo "check-deb: $pass passed, $fail failed${failed:+ (failed:$failed)}"
	[ $fail -eq 0 ]
	exit
}

if [ "$(id -u)" != 0 ]; then
	echo "check-deb: FAILED: needs root (dpkg -i); run make check as root" >&2
	exit 1
fi
for c in dpkg dpkg-buildpackage dh; do
	command -v $c >/dev/null || { echo "check-deb: $c missing (make deps)" >&2; exit 1; }
done
st=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' advshim 2>/dev/null)
if case $st in ""|un*) false ;; *) true ;; esac; then
	echo "check-deb: FAILED: a package advshim is already on this machine ($st);" \
		"this test installs and purges its own: remove it first (dpkg -P advshim)" >&2
	exit 1
fi
[ -x "$ADVPROG" ] || { echo "check-deb: $ADVPROG missing (make $ADVPROG)" >&2; exit 1; }

T=$(mktemp -d)
ETC_BAK=
if [ -e /etc/advshim.conf ]; then
	ETC_BAK=$T/etc-advshim.conf
	cp -p /etc/advshim.conf "$ETC_BAK"
fi
cleanup() {
	if dpkg-query -W advshim >/dev/null 2>&1; then
		dpkg -P advshim >/dev/null 2>&1
	fi
	if [ -n "$ETC_BAK" ] && ! cmp -s "$ETC_BAK" /etc/advshim.conf 2>/dev/null; then
		cp -p "$ETC_BAK" /etc/advshim.conf
	fi
	[ -n "${PAUSED:-}" ] && kill "$PAUSED" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build -----------------------------------------------------------------------
if ! $MAKE_CMD deb > "$T/deb.log" 2>&1; then
	bad "make deb" "$(tail -n 20 "$T/deb.log")"
	finish
fi
deb=$(sed -n 's/^deb: //p' "$T/deb.log" | tail -n 1)
if [ -f "$deb" ]; then
	ok "make deb built $deb"
else
	bad "make deb" "no .deb reported: $(tail -n 5 "$T/deb.log")"
	finish
fi
ver=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
case $(basename "$deb") in
"advshim_${ver}_${arch}.deb") ok "file name advshim_${ver}_${arch}.deb (version from git describe)" ;;
*) bad "deb name" "$(basename "$deb") vs version $ver" ;;
esac
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^$' > "$T/contents"
if grep -q '^/usr/lib/debug' "$T/contents"; then
	bad "deb contents" "debug files in the package: $(grep '^/usr/lib/debug' "$T/contents")"
fi
if [ "$(dpkg-deb -f "$deb" Package)" = advshim ] &&
   dpkg-deb -I "$deb" conffiles 2>/dev/null | grep -qx /etc/advshim.conf; then
	ok "package advshim, /etc/advshim.conf is a conffile"
else
	bad "deb control" "package name or conffiles wrong"
fi
# Record which of the package's paths exist before (directories mostly).
while read -r p; do [ -e "$p" ] && echo "$p"; done < "$T/contents" | sort > "$T/before"

# --- install -----------------------------------------------------------------------
if DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold "$deb" > "$T/dpkg-i.log" 2>&1 &&
   dpkg-query -W -f='${db:Status-Abbrev}' advshim | grep -q '^ii'; then
	ok "dpkg -i installs it cleanly"
else
	bad "dpkg -i" "$(tail -n 20 "$T/dpkg-i.log")"
	finish
fi
if grep -qi 'warning\|error' "$T/dpkg-i.log"; then
	bad "dpkg -i output" "$(grep -i 'warning\|error' "$T/dpkg-i.log")"
fi
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
LIB=/usr/lib/$ma/libadvshim.so
missing=
for f in "$LIB" /usr/bin/advshim /usr/bin/advshim-load /usr/bin/advshim-ab \
	 /usr/sbin/advshim-watch /etc/advshim.conf /lib/systemd/system/advshim-watch.service \
	 /lib/systemd/system/advshim-shim-metrics.service /lib/systemd/system/advshim-shim-metrics.timer \
	 /usr/share/man/man1/advshim.1.gz /usr/share/man/man5/advshim.conf.5.gz \
	 /usr/share/man/man8/advshim-watch.8.gz /usr/share/man/man1/advshim-ab.1.gz \
	 /usr/share/man/man1/advshim-load.1.gz \
	 /usr/share/doc/advshim/examples/opensearch-knn.conf; do
	[ -e "$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "installed: $LIB, /usr/bin/advshim{,-load,-ab}, /usr/sbin/advshim-watch, unit, config, man pages, examples"
else
	bad "installed files" "missing:$missing"
fi
if out=$(/usr/bin/advshim --version) && [ "$out" = "advshim $ver" ]; then
	ok "/usr/bin/advshim --version: $out"
else
	bad "advshim --version" "'$out', expected 'advshim $ver'"
fi
if /usr/bin/advshim check -q /etc/advshim.conf >/dev/null; then
	ok "the installed /etc/advshim.conf validates"
else
	bad "/etc/advshim.conf" "$(/usr/bin/advshim check -q /etc/advshim.conf 2>&1)"
fi

# --- the installed library on a real MADV_RANDOM mapping ------------------------------
f=$T/data.bin
head -c 65536 /dev/urandom > "$f"
all_rr="p0=rr p1=rr p2=rr p3=rr"
none="p0= p1= p2= p3="
pages() { sed -n 's/^result [a-z]* call=0 //p' | tr -s ' ' | sed 's/ $//'; }
got=$("$ADVPROG" -P 4 "$f" | pages)
if [ "$got" = "$all_rr" ]; then
	ok "control: without the shim, posix_madvise(RANDOM) leaves rr ($got)"
else
	bad "control" "expected '$all_rr', got '$got'"
fi
got=$(env -u ADVSHIM_CONFIG LD_PRELOAD=$LIB "$ADVPROG" -P 4 "$f" | pages)
if [ "$got" = "$none" ]; then
	ok "LD_PRELOAD=$LIB: rr gone ($got)"
else
	bad "preload by path" "expected '$none', got '$got'"
fi
got=$(env -u ADVSHIM_CONFIG LD_PRELOAD=libadvshim.so "$ADVPROG" -P 4 -l default "$f" 2>&1 | pages)
if [ "$got" = "$none" ]; then
	ok "LD_PRELOAD=libadvshim.so (loader search path), dlsym(RTLD_DEFAULT) lookup: rr gone"
else
	bad "preload by name" "expected '$none', got '$got'"
fi
got=$(env -u ADVSHIM_CONFIG -u ADVSHIM_LIB /usr/bin/advshim run -- "$ADVPROG" -P 4 -f madvise "$f" | pages)
if [ "$got" = "$none" ]; then
	ok "/usr/bin/advshim run finds the library in the package's LIBDIR: rr gone"
else
	bad "advshim run" "expected '$none', got '$got'"
fi
log=$(env -u ADVSHIM_CONFIG ADVSHIM_LOG=info LD_PRELOAD=$LIB "$ADVPROG" -P 4 "$f" 2>&1 >/dev/null)
if echo "$log" | grep -q 'active, policy /etc/advshim.conf' &&
   echo "$log" | grep -q "adaptive $f: random -> normal (default)"; then
	ok "the shim reads the installed /etc/advshim.conf (log: its adaptive default rule, random -> normal)"
else
	bad "policy source" "$log"
fi
# inspect: a paused advprog under the installed library.
mkfifo "$T/hold"
: > "$T/paused.out"
env -u ADVSHIM_CONFIG LD_PRELOAD=$LIB "$ADVPROG" -p -P 4 "$f" < "$T/hold" > "$T/paused.out" 2>&1 &
PAUSED=$!
exec 9> "$T/hold"
i=0
while ! grep -q '^ready' "$T/paused.out" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
pid=$(sed -n 's/^ready \([0-9]*\).*/\1/p' "$T/paused.out")
out=$(/usr/bin/advshim inspect "${pid:-0}" 2>&1)
dout=$(/usr/bin/advshim doctor --pid "${pid:-0}" --sample-ms 0 2>&1)
exec 9>&-
wait "$PAUSED" 2>/dev/null
PAUSED=
if echo "$out" | grep -q "libadvshim.so loaded" &&
   echo "$out" | grep -q "policy /etc/advshim.conf, active" &&
   echo "$out" | grep -q "^-  .* $f\$"; then
	ok "advshim inspect: library loaded, /etc/advshim.conf active, $f not rr"
else
	bad "advshim inspect" "$out"
fi
if echo "$dout" | grep -q "^pid ${pid:-0} " && echo "$dout" | grep -q "shim: active" &&
   { [ -f /usr/share/doc/advshim/doctor.md ] || [ -f /usr/share/doc/advshim/doctor.md.gz ]; } &&
   MANWIDTH=80 man advshim 2>/dev/null | grep -q "advshim doctor"; then
	ok "advshim doctor (installed): the paused process has the shim active; doctor.md and its man section ship"
else
	bad "advshim doctor" "$dout" "doc: $(ls /usr/share/doc/advshim/ | tr '\n' ' ')"
fi

# --- unit, drop-in, man pages -------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/units/advshim-watch.service.d"
	cp /lib/systemd/system/advshim-watch.service "$T/units/"
	cp /usr/share/doc/advshim/examples/systemd/advshim-watch.service.d/opensearch.conf \
		"$T/units/advshim-watch.service.d/"
	out=$(SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify "$T/units/advshim-watch.service" 2>&1)
	if [ $? -eq 0 ] && [ -z "$out" ]; then
		ok "systemd-analyze verify: installed unit + drop-in (ExecStart, man:advshim-watch(8))"
	else
		bad "unit verify" "$out"
	fi
else
	bad "unit verify" "systemd-analyze not found"
fi
manbad=$fail
for p in advshim advshim.conf.5 advshim-watch.8 advshim-ab advshim-load; do
	sec=${p##*.}; name=${p%.*}
	case $p in *.[0-9]) w=$(man -w "$sec" "$name" 2>/dev/null) ;; *) w=$(man -w "$p" 2>/dev/null) ;; esac
	case $w in
	/usr/share/man/*) ;;
	*) bad "man $p" "not found by man -w ($w)"; continue ;;
	esac
	out=$(MANWIDTH=80 man --warnings -l "$w" 2>&1 >/dev/null)
	[ -z "$out" ] || bad "man $p" "$out"
done
[ $fail -eq $manbad ] &&
	ok "man finds the five installed pages under /usr/share/man; they render without warnings"

# --- remove, purge -------------------------------------------------------------------------
if dpkg -r advshim > "$T/dpkg-r.log" 2>&1 && [ ! -e "$LIB" ] && [ ! -e /usr/bin/advshim ] &&
   [ -e /etc/advshim.conf ]; then
	ok "dpkg -r: programs gone, conffile kept"
else
	bad "dpkg -r" "$(tail -n 5 "$T/dpkg-r.log")"
fi
if dpkg -P advshim > "$T/dpkg-p.log" 2>&1 && ! dpkg-query -W advshim >/dev/null 2>&1 &&
   [ ! -e /etc/advshim.conf ]; then
	ok "dpkg -P: package and conffile gone"
else
	bad "dpkg -P" "$(tail -n 5 "$T/dpkg-p.log")"
fi
while read -r p; do [ -e "$p" ] && echo "$p"; done < "$T/contents" | sort > "$T/after"
if cmp -s "$T/before" "$T/after"; then
	ok "no path of the package is left that was not there before"
else
	bad "leftovers" "$(comm -13 "$T/before" "$T/after" | head)"
fi
if [ -n "$ETC_BAK" ]; then
	cp -p "$ETC_BAK" /etc/advshim.conf && ok "the machine's own /etc/advshim.conf put back"
fi
finish
