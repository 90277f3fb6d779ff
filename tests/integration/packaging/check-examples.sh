#!/bin/sh
# check-examples.sh BUILD - every file in examples/ validates as shipped:
#   - each policy passes `advshim check` (and a broken copy does not);
#   - each `watch` group is accepted by the real advshim-watch (fixture
#     roots, --once --dry-run), and a broken one is refused with exit 2;
#   - the systemd drop-ins parse cleanly with systemd-analyze verify
#     (any warning fails), and the OpenSearch one preloads the library
#     from the Debian package's LIBDIR;
#   - the Kubernetes manifests parse as YAML, preload through env (not
#     JVM options), and give advshim-watch flags it accepts;
#   - every advshim-ab experiment passes `advshim-ab check`;
#   - the jvm.options.d line is accepted by a real JDK when one is present.
# Run from the top of the tree.
set -u
B=${1:-build}
A=$B/advshim
W=$B/advshim-watch
pass=0 fail=0 skip=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "SKIP $1: $2"; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

[ -x "$A" ] || { echo "check-examples: $A missing (build it: make $A)" >&2; exit 1; }

# --- policies ---------------------------------------------------------------
policies=$(ls examples/*.conf)
[ -n "$policies" ] || bad policies "no examples/*.conf"
for f in $policies; do
	if out=$("$A" check -q "$f" 2>&1); then
		ok "advshim check $f"
	else
		bad "advshim check $f" "$out"
	fi
	# Negative control: the same file with a misspelt advice must fail.
	sed 's/"normal"/"nromal"/; s/level = "[a-z]*"/level = "loud"/' "$f" > "$T/broken.conf"
	"$A" check -q "$T/broken.conf" >/dev/null 2>&1; rc=$?
	if [ $rc -eq 2 ]; then
		ok "advshim check refuses a broken copy of $f"
	else
		bad "broken $f" "advshim check exited $rc, expected 2"
	fi
done

# --- what the policies decide (advshim explain) --------------------------------------
# POLICY|PATH|ADVICE (- = whole table)|RULE (- = none)|text the answer must contain
IDX=/var/lib/opensearch/nodes/0/indices/U/0/index
ES=/var/lib/elasticsearch/indices/U/0/index
NOREUSE="on_map: posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE)"
while IFS='|' read -r pol path adv rule want; do
	[ -n "$pol" ] || continue
	if [ "$adv" = - ]; then
		out=$("$A" explain "examples/$pol" "$path" 2>&1)
	else
		out=$("$A" explain "examples/$pol" "$path" "$adv" 2>&1)
	fi
	if [ "$rule" = - ]; then
		case $out in *"no rule matches"*) r=ok ;; *) r= ;; esac
	else
		case $out in *"rule: \"$rule\""*) r=ok ;; *) r= ;; esac
	fi
	case $out in *"$want"*) ;; *) r= ;; esac
	if [ -n "$r" ]; then
		ok "$pol: $path $adv -> ${rule#-}: $want"
	else
		bad "$pol decides $path" "expected rule '$rule' and '$want', got: $out"
	fi
done <<EOT
opensearch-knn.conf|$IDX/_3.vec|random|vectors|adaptive (decided at run time
opensearch-knn.conf|$IDX/_3.vex|random|vectors|adaptive (decided at run time
opensearch-knn.conf|$IDX/_3.veq|random|vectors|adaptive (decided at run time
opensearch-knn.conf|$IDX/_1.cfs|random|compound|adaptive (decided at run time
opensearch-knn.conf|$IDX/_3.vec|sequential|vectors|madvise sequential (2 = MADV_SEQUENTIAL): keep
opensearch-knn.conf|$IDX/_0_Lucene99FlatVectorsFormat_0_temp_3.tmp|-|merge-temp|$NOREUSE
opensearch-knn.conf|$IDX/recovery.Xy7._3.vec|-|snapshot-restore|$NOREUSE
opensearch-knn.conf|/mnt/snapshots/indices/U/0/__a1b2|fadvise:willneed|snapshot-restore|skip
opensearch-knn.conf|$IDX/_2_Lucene99_0.tim|random|index-other|adaptive (decided at run time
opensearch-knn.conf|/usr/share/opensearch/lib/lucene-core.jar|random|other|keep
elasticsearch.conf|$ES/_2.vec|random|vectors|adaptive (decided at run time
elasticsearch.conf|$ES/_2.tim|random|index|adaptive (decided at run time
elasticsearch.conf|/mnt/es-snapshots/indices/x|-|snapshots|$NOREUSE
elasticsearch.conf|/usr/share/elasticsearch/lib/x.jar|random|-|every advice passes through
lucene.conf|/srv/search/index/_0.vec|random|vectors|adaptive (decided at run time
lucene.conf|/srv/search/index/_0.doc|random|index|adaptive (decided at run time
database.conf|/var/lib/rocksdb/db/000123.sst|random|rocksdb-sst|rewrite to normal
database.conf|/var/lib/rocksdb/db/000123.sst|fadvise:random|rocksdb-sst|keep
database.conf|/var/backups/db/000123.sst|fadvise:willneed|backups|skip
database.conf|/var/backups/db/000123.sst|-|backups|$NOREUSE
database.conf|/var/lib/lmdb/data.mdb|random|lmdb|rewrite to normal
log-only.conf|/var/lib/opensearch/x/_0.vec|random|observe|keep
EOT

# log-only.conf as shipped (target aside): rr stays, every call is logged.
if [ -x "$B/tests/shim/advprog" ] && [ -f "$B/libadvshim.so" ]; then
	head -c 16384 /dev/urandom > "$T/lo.bin"
	sed "s|\"/var/log/advshim/advice.log\"|\"$T/advice.log\"|" examples/log-only.conf > "$T/lo.conf"
	san_rt=$(ldd "$B/libadvshim.so" | awk '/lib(asan|tsan|ubsan)\.so/ { print $3; exit }')
	got=$(ADVSHIM_CONFIG="$T/lo.conf" LD_PRELOAD="${san_rt:+$san_rt:}$B/libadvshim.so" \
		"$B/tests/shim/advprog" -P 4 "$T/lo.bin" 2>/dev/null | sed -n 's/^result [a-z]* call=0 //p')
	if [ "$got" = "p0=rr p1=rr p2=rr p3=rr" ] &&
	   grep -q "posix_madvise(0x[0-9a-f]*, 16384, random) $T/lo.bin: keep (observe)" "$T/advice.log" &&
	   grep -q "mmap $T/lo.bin at " "$T/advice.log"; then
		ok "log-only.conf under the shim: rr kept, mmap and posix_madvise logged to its target"
	else
		bad "log-only.conf run" "pages '$got'; log: $(cat "$T/advice.log" 2>/dev/null | head -5)"
	fi
else
	bad "log-only.conf run" "$B/libadvshim.so or $B/tests/shim/advprog not built"
fi

# --- advshim-ab experiments ---------------------------------------------------
AB=$B/advshim-ab
if [ ! -x "$AB" ]; then
	bad "experiments" "$AB missing (make $AB)"
else
	for f in examples/experiments/*.conf; do
		if out=$("$AB" check "$f" 2>&1); then
			ok "advshim-ab check $f"
		else
			bad "advshim-ab check $f" "$out"
		fi
	done
	sed 's/limit_mib = [0-9]*;/limit_mib = 1;/' examples/experiments/own-index.conf > "$T/broken-exp.conf"
	"$AB" check "$T/broken-exp.conf" >/dev/null 2>&1; rc=$?
	if [ $rc -eq 2 ]; then
		ok "advshim-ab check refuses limit_mib = 1 (control)"
	else
		bad "experiment control" "advshim-ab check exited $rc, expected 2"
	fi
fi

# --- watch groups -------------------------------------------------------------
fx=$T/fx
mkdir -p "$fx/debugfs" "$fx/sys/kernel/mm/lru_gen" "$fx/cg"
cp tests/fixtures/lru_gen/v6.12-lru_gen.txt "$fx/debugfs/lru_gen"
echo 0x0007 > "$fx/sys/kernel/mm/lru_gen/enabled"
: > "$fx/cg/cgroup.controllers"
: > "$fx/cg/memory.stat"
run_watch() {
	"$W" --once --dry-run --kernel 6.12 --debugfs-root "$fx/debugfs" \
		--sysfs-root "$fx/sys" --cgroup-root "$fx/cg" "$@" \
		> "$T/watch.out" 2>&1
}
if [ ! -x "$W" ]; then
	bad "watch groups" "$W missing (make $W)"
else
	for f in $(grep -l '^watch *=' $policies); do
		if run_watch --config "$f"; then
			ok "advshim-watch accepts the watch group of $f"
		else
			bad "watch group of $f" "$(cat "$T/watch.out")"
		fi
		sed 's/interval_ms = [0-9]*;/interval_ms = 0;/' "$f" > "$T/broken-watch.conf"
		run_watch --config "$T/broken-watch.conf"; rc=$?
		if [ $rc -eq 2 ]; then
			ok "advshim-watch refuses interval_ms = 0 in a copy of $f"
		else
			bad "broken watch group of $f" "exit $rc, expected 2"
		fi
	done
fi

# --- systemd drop-ins -----------------------------------------------------------
verify_unit() {	# NAME: verify $T/units/NAME; any output is a failure
	SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify --man=no "$T/units/$1" \
		> "$T/verify.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/verify.out" ]
}
if ! command -v systemd-analyze >/dev/null; then
	bad "systemd drop-ins" "systemd-analyze not found (package systemd)"
else
	mkdir -p "$T/units/opensearch.service.d" "$T/units/advshim-watch.service.d"
	printf '[Unit]\nDescription=stand-in for the OpenSearch unit\n[Service]\nExecStart=/bin/true\n' \
		> "$T/units/opensearch.service"
	cp examples/systemd/opensearch.service.d/advshim.conf "$T/units/opensearch.service.d/"
	if verify_unit opensearch.service; then
		ok "systemd-analyze verify: opensearch.service + examples drop-in"
	else
		bad "opensearch drop-in" "$(cat "$T/verify.out")"
	fi
	# The control: a misspelt key in the drop-in must be reported.
	echo 'Enviroment=X=1' >> "$T/units/opensearch.service.d/advshim.conf"
	if verify_unit opensearch.service; then
		bad "drop-in control" "systemd-analyze did not report a misspelt key"
	else
		ok "systemd-analyze reports a misspelt key in the drop-in (control)"
	fi
	# The preloaded path is where the Debian package puts the library.
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
	if grep -qx "Environment=LD_PRELOAD=/usr/lib/$ma/libadvshim.so" \
		examples/systemd/opensearch.service.d/advshim.conf &&
	   grep -qx 'Environment=ADVSHIM_CONFIG=/etc/advshim.conf' \
		examples/systemd/opensearch.service.d/advshim.conf &&
	   grep -q "LIBDIR=/usr/lib/\$(DEB_HOST_MULTIARCH)" debian/rules; then
		ok "drop-in preloads /usr/lib/$ma/libadvshim.so, the package's LIBDIR"
	else
		bad "drop-in paths" "LD_PRELOAD/ADVSHIM_CONFIG lines do not match debian/rules"
	fi

	# advshim-watch: the project's unit (SBINDIR = this build) + drop-in.
	if [ -f tools/watch/advshim-watch.service ] && [ -x "$W" ]; then
		sb=$(cd "$B" && pwd)
		sed "s|@SBINDIR@|$sb|g; s|@SYSCONFDIR@|/etc|g" \
			tools/watch/advshim-watch.service > "$T/units/advshim-watch.service"
		cp examples/systemd/advshim-watch.service.d/opensearch.conf \
			"$T/units/advshim-watch.service.d/"
		if verify_unit advshim-watch.service; then
			ok "systemd-analyze verify: advshim-watch.service + examples drop-in"
		else
			bad "advshim-watch drop-in" "$(cat "$T/verify.out")"
		fi
		# The arguments it adds are ones the daemon accepts (with the
		# OpenSearch example standing in for /etc/advshim.conf).
		args=$(sed -n 's|^Environment="ADVSHIM_WATCH_ARGS=\(.*\)"$|\1|p' \
			examples/systemd/advshim-watch.service.d/opensearch.conf |
			sed "s|--metrics-file [^ ]*|--metrics-file $T/advshim.prom|;
			     s|--config /etc/advshim.conf|--config examples/opensearch-knn.conf|")
		# shellcheck disable=SC2086
		if [ -n "$args" ] && run_watch --log-format json $args; then
			ok "advshim-watch accepts the drop-in's ADVSHIM_WATCH_ARGS"
		else
			bad "drop-in ADVSHIM_WATCH_ARGS" "${args:-none found}: $(cat "$T/watch.out")"
		fi
	else
		bad "advshim-watch drop-in" "tools/watch/advshim-watch.service or $W not in the tree yet"
	fi

	# etcd under advshim run --seccomp: the drop-in parses (with this
	# build's advshim and a stand-in etcd in the paths it names), and its
	# command line is one advshim run accepts: the stand-in, a static
	# raw-madvise program, runs and exits 0 through it.
	mkdir -p "$T/units/etcd.service.d"
	printf '[Unit]\nDescription=stand-in for the etcd unit\n[Service]\nEnvironment=DAEMON_ARGS=\nExecStart=/bin/true\n' \
		> "$T/units/etcd.service"
	ab=$(cd "$B" && pwd)/advshim
	sed "s|/usr/bin/advshim |$ab |; s|/usr/bin/etcd|/bin/true|" \
		examples/systemd/etcd.service.d/advshim-seccomp.conf \
		> "$T/units/etcd.service.d/advshim-seccomp.conf"
	if verify_unit etcd.service; then
		ok "systemd-analyze verify: etcd.service + the --seccomp drop-in"
	else
		bad "etcd drop-in" "$(cat "$T/verify.out")"
	fi
	cmd=$(sed -n 's|^ExecStart=/usr/bin/advshim \(run --seccomp -- \)/usr/bin/etcd .*|\1|p' \
		examples/systemd/etcd.service.d/advshim-seccomp.conf)
	probe=$B/tests/seccomp/probe
	# shellcheck disable=SC2086
	if [ -n "$cmd" ] && [ -x "$probe" ] && head -c 65536 /dev/zero > "$T/etcd.db" &&
	   "$ab" $cmd "$probe" rr "$T/etcd.db" > "$T/etcd.out" 2>&1 &&
	   grep -q "madvise=0 errno=0 rr=0" "$T/etcd.out"; then
		ok "the etcd drop-in's command: advshim ${cmd}PROG runs a static raw-madvise program, rr dropped"
	else
		bad "etcd drop-in command" "'${cmd:-no ExecStart found}': $(cat "$T/etcd.out" 2>/dev/null)"
	fi
fi

# --- Kubernetes -------------------------------------------------------------------
if ! python3 -c 'import yaml' 2>/dev/null; then
	bad "kubernetes manifests" "python3-yaml missing (make deps)"
else
	if out=$(python3 - "$T/k8s-args" <<'PY' 2>&1
import sys, yaml
err = []
def docs(p):
    return [d for d in yaml.safe_load_all(open(p)) if d]
allsts = docs("examples/kubernetes/opensearch-statefulset.yaml")
ds = docs("examples/kubernetes/advshim-watch-daemonset.yaml")
if [d["kind"] for d in allsts] != ["ConfigMap"] * 3 + ["StatefulSet"]: err.append("statefulset file kinds")
if [d["kind"] for d in ds] != ["DaemonSet"]: err.append("daemonset kinds")
cms = {d["metadata"]["name"]: d.get("data") or {} for d in allsts if d["kind"] == "ConfigMap"}
sts = [d for d in allsts if d["kind"] == "StatefulSet"]
pod = sts[0]["spec"]["template"]["spec"]
c = pod["containers"][0]
# LD_PRELOAD and the rest come from the advshim-env ConfigMap (envFrom).
env = {e["name"]: e.get("value") for e in c.get("env", [])}
for ef in c.get("envFrom", []):
    env.update(cms.get(ef.get("configMapRef", {}).get("name"), {}))
open(sys.argv[1] + ".policy", "w").write(cms.get("advshim-policy", {}).get("advshim.conf", ""))
if "ADVSHIM_DISABLE_FILE" not in env or not env["ADVSHIM_DISABLE_FILE"].startswith(
        {m["name"]: m["mountPath"] for m in c["volumeMounts"]}.get("advshim-switch", "?") + "/"):
    err.append("the kill switch file is not in the advshim-switch volume")
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
lib = env.get("LD_PRELOAD", "")
if not lib.startswith(mounts.get("advshim-lib", "?") + "/"):
    err.append("LD_PRELOAD %r is not in the advshim-lib volume" % lib)
if "emptyDir" not in vols.get("advshim-lib", {}):
    err.append("advshim-lib is not an emptyDir")
for k, v in env.items():
    if k.endswith("JAVA_OPTS") and "LD_PRELOAD" in (v or ""):
        err.append("LD_PRELOAD in %s" % k)
cfg = env.get("ADVSHIM_CONFIG", "")
if not cfg.startswith(mounts.get("advshim-policy", "?") + "/"):
    err.append("ADVSHIM_CONFIG not in the policy volume")
init = pod["initContainers"][0]
if "libadvshim.so" not in " ".join(init["command"]):
    err.append("init container does not copy libadvshim.so")
dpod = ds[0]["spec"]["template"]["spec"]
w = dpod["containers"][0]
sc = w.get("securityContext", {})
# lru_gen needs uid 0 and file permissions only (mm/vmscan.c): the same
# as the systemd unit, which drops every capability.
if sc.get("privileged") or sc.get("runAsUser") != 0 or \
   sc.get("capabilities", {}).get("drop") != ["ALL"] or sc.get("capabilities", {}).get("add"):
    err.append("watcher securityContext is not uid 0 with every capability dropped: %r" % sc)
hp = {v["name"]: v["hostPath"]["path"] for v in dpod["volumes"] if "hostPath" in v}
wm = {m["name"]: m for m in w["volumeMounts"]}
for name, host in (("debugfs", "/sys/kernel/debug"), ("cgroup", "/sys/fs/cgroup")):
    if hp.get(name) != host: err.append("%s hostPath is %r" % (name, hp.get(name)))
    if wm.get(name, {}).get("readOnly"): err.append("%s mounted read-only" % name)
args = w["command"][1:]
need = {"--debugfs-root=" + wm["debugfs"]["mountPath"],
        "--cgroup-root=" + wm["cgroup"]["mountPath"]}
if not need <= set(args): err.append("watcher roots do not match its mounts")
if not any(a.startswith("--metrics-file=" + wm["textfile"]["mountPath"] + "/") for a in args):
    err.append("metrics file not in the textfile volume")
open(sys.argv[1], "w").write("\n".join(a for a in args
    if not a.startswith(("--debugfs-root", "--cgroup-root", "--metrics-file"))))
if err:
    print("; ".join(err)); sys.exit(1)
PY
	); then
		ok "kubernetes manifests: env preload (ConfigMap), kill switch volume, watcher as uid 0 without capabilities, rw debugfs and cgroup mounts"
		if out=$("$A" check -q "$T/k8s-args.policy" 2>&1) &&
		   "$A" explain "$T/k8s-args.policy" /usr/share/opensearch/data/nodes/0/indices/U/0/index/_3.vec random |
			grep -q 'madvise random (1 = MADV_RANDOM): adaptive'; then
			ok "the advshim-policy ConfigMap's policy checks, and gives the index adaptive"
		else
			bad "ConfigMap policy" "$out"
		fi
		# shellcheck disable=SC2046
		if [ -x "$W" ] && run_watch $(cat "$T/k8s-args") --metrics-file "$T/k8s.prom"; then
			ok "advshim-watch accepts the DaemonSet's flags"
		else
			bad "DaemonSet flags" "$(cat "$T/watch.out" 2>/dev/null)"
		fi
	else
		bad "kubernetes manifests" "$out"
	fi
fi
for kw in $(grep -v '^#' examples/kubernetes/Dockerfile | grep -o '^[A-Z]*' | sort -u); do
	case $kw in
	FROM|COPY|RUN|ENTRYPOINT|CMD|ENV|ARG|LABEL|WORKDIR|USER) ;;
	*) bad "Dockerfile" "unknown instruction $kw" ;;
	esac
done

# --- jvm.options.d ---------------------------------------------------------------
jdk=
for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-21-openjdk-amd64; do
	[ -x "$j/bin/java" ] && { jdk=$j; break; }
done
opt=$(grep -v '^#' examples/jvm/jvm.options.d/advshim.options | grep . | sed 's/^[0-9]*-[0-9]*://')
if [ -z "$jdk" ]; then
	skipped "jvm.options.d" "no JDK 21+ here to try '$opt' on"
elif out=$("$jdk/bin/java" $opt -version 2>&1); then
	ok "$jdk accepts '$opt'"
else
	bad "jvm.options.d" "$out"
fi

echo "check-examples: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
