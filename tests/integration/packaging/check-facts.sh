#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-facts.sh BUILD - one truth per fact: what the shipped files say
# about each other must hold.  Run from the top of the tree.
#  1. every shipped policy gives Lucene's vector files (.vec .vex .veq
#     .cfs) random = "adaptive", the embedded default the README
#     recommends (advshim explain);
#  2. the packaged watcher unit reads --config @SYSCONFDIR@/advshim.conf,
#     as opensearch-knn.conf and the drop-in say; the drop-in adds no
#     --config or --metrics-file of its own;
#  3. one metrics textfile path: the unit, the DaemonSet, advshim-watch(8)
#     and WATCH_METRICS_FILE agree; the shim's export lands beside it;
#  4. privileges: the unit runs as root with no capability, the DaemonSet
#     (which as shipped also tolerates every taint, waits for lru_gen in an
#     init container, runs --dry-run and probes /metrics)
#     as uid 0 with every capability dropped and not privileged, nothing
#     shipped claims lru_gen needs CAP_SYS_ADMIN; on a host with lru_gen
#     (root), a process holding no capability opens it for writing and
#     gets EINVAL for a bad command, not EPERM/EACCES;
#  5. README's `advshim doctor` synopsis has every option of its --help
#     (but the tests' --root); the kill switch's default path is the same
#     in the shim, advshim(1) and README;
#  6. README is a reference: <= 450 lines, its sections in the reference
#     order, and neither it nor docs/ carry commit or result hashes, run
#     ids or history.
set -u
B=${1:-build}
A=$B/advshim
pass=0 fail=0 skip=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "SKIP $1: $2"; }
[ -x "$A" ] || { echo "check-facts: build $A first" >&2; exit 1; }
UNIT=tools/watch/advshim-watch.service
DS=examples/kubernetes/advshim-watch-daemonset.yaml
DROPIN=examples/systemd/advshim-watch.service.d/opensearch.conf

# --- 1. vectors are adaptive in every shipped policy ------------------------
IDX=/var/lib/opensearch/nodes/0/indices/U/0/index
for pol in examples/advshim.conf examples/opensearch-knn.conf; do
	for f in _3.vec _3.vex _3.veq _1.cfs; do
		out=$("$A" explain "$pol" "$IDX/$f" random 2>&1)
		case $out in
		*"madvise random (1 = MADV_RANDOM): adaptive"*) ;;
		*) bad "$pol $f" "random is not adaptive: $(echo "$out" | grep 'madvise random')"; continue 2 ;;
		esac
	done
	ok "$pol: random on .vec .vex .veq .cfs is adaptive"
done
for pol in examples/elasticsearch.conf examples/lucene.conf; do
	case $pol in
	*elasticsearch*) p=/var/lib/elasticsearch/indices/U/0/index/_2.vec ;;
	*) p=/srv/search/index/_0.vec ;;
	esac
	out=$("$A" explain "$pol" "$p" random 2>&1)
	case $out in
	*"madvise random (1 = MADV_RANDOM): adaptive"*) ok "$pol: random on .vec is adaptive" ;;
	*) bad "$pol" "random on .vec is not adaptive" ;;
	esac
done
grep -q 'random = "adaptive"' README.md && ok "README names the adaptive default" ||
	bad readme-adaptive "README does not say random = \"adaptive\""

# --- 2. the unit reads its config --------------------------------------------
exec_line=$(grep '^ExecStart=' "$UNIT")
case $exec_line in
*"--config @SYSCONFDIR@/advshim.conf "*) ok "unit ExecStart reads --config @SYSCONFDIR@/advshim.conf" ;;
*) bad unit-config "$exec_line" ;;
esac
grep -q -- '--config /etc/advshim.conf' examples/opensearch-knn.conf &&
	ok "opensearch-knn.conf says the unit starts with --config /etc/advshim.conf" ||
	bad knn-config "opensearch-knn.conf does not say how the unit reads it"
args=$(sed -n 's/^Environment="ADVSHIM_WATCH_ARGS=\(.*\)"$/\1/p' "$DROPIN")
case " $args " in
*" --config "*|*" --metrics-file "*) bad dropin "the drop-in overrides --config or --metrics-file: $args" ;;
*) ok "the drop-in adds only its own flags ($args)" ;;
esac

# --- 3. one metrics path -------------------------------------------------------
path=$(sed -n 's/^#define WATCH_METRICS_FILE "\(.*\)"$/\1/p' tools/watch/watch_opts.h)
unit_path=$(echo "$exec_line" | sed -n 's/.*--metrics-file \([^ ]*\).*/\1/p')
ds_path=$(sed -n 's/.*- --metrics-file=\([^ ]*\).*/\1/p' "$DS")
man_path=$(sed -n 's/^\.IR \/var\/lib\/prometheus\/node\\-exporter\/advshim\\-watch\.prom.*/\/var\/lib\/prometheus\/node-exporter\/advshim-watch.prom/p' tools/watch/advshim-watch.8 | head -n 1)
if [ -n "$path" ] && [ "$unit_path" = "$path" ] && [ "$ds_path" = "$path" ] &&
   [ "$man_path" = "$path" ]; then
	ok "one textfile path: $path (unit, DaemonSet, advshim-watch(8), WATCH_METRICS_FILE)"
else
	bad metrics-path "macro '$path' unit '$unit_path' DaemonSet '$ds_path' man '$man_path'"
fi
dir=${path%/*}
if grep -q "$dir/advshim-shim.prom" packaging/advshim-shim-metrics.service &&
   grep -q "ReadWritePaths=-$dir$" "$UNIT"; then
	ok "the shim's export and the unit's writable directory are $dir"
else
	bad metrics-dir "advshim-shim-metrics.service or the unit's ReadWritePaths is not $dir"
fi
python3 - "$DS" "$dir" <<'PY' && ok "DaemonSet mounts $dir at the same path" || bad ds-mount "the DaemonSet does not mount $dir as $dir"
import sys, yaml
ds = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d][0]
pod = ds["spec"]["template"]["spec"]
vols = {v["name"]: v for v in pod["volumes"]}
c = [c for c in pod["containers"] if c["name"] == "advshim-watch"][0]
ok = any(m["mountPath"] == sys.argv[2] and
         vols[m["name"]].get("hostPath", {}).get("path") == sys.argv[2]
         for m in c["volumeMounts"])
sys.exit(0 if ok else 1)
PY

# --- 4. privileges ---------------------------------------------------------------
if grep -qx 'User=root' "$UNIT" && grep -qx 'CapabilityBoundingSet=' "$UNIT" &&
   grep -qx 'AmbientCapabilities=' "$UNIT"; then
	ok "unit: root, no capability"
else
	bad unit-caps "User=root / empty CapabilityBoundingSet / AmbientCapabilities missing"
fi
python3 - "$DS" <<'PY' && ok "DaemonSet: uid 0, not privileged, capabilities drop ALL, none added" || bad ds-caps "DaemonSet securityContext"
import sys, yaml
ds = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d][0]
c = [c for c in ds["spec"]["template"]["spec"]["containers"] if c["name"] == "advshim-watch"][0]
sc = c["securityContext"]
sys.exit(0 if sc.get("runAsUser") == 0 and not sc.get("privileged") and
         sc["capabilities"].get("drop") == ["ALL"] and not sc["capabilities"].get("add") else 1)
PY
claims=$(grep -rln 'CAP_SYS_ADMIN' README.md docs/*.md docs/man examples "$UNIT" \
	tools/watch/advshim-watch.8 packaging 2>/dev/null)
[ -z "$claims" ] && ok "no shipped file says lru_gen needs CAP_SYS_ADMIN" ||
	bad cap-claims "CAP_SYS_ADMIN named in: $claims"
LRU=/sys/kernel/debug/lru_gen
if [ "$(id -u)" != 0 ]; then
	skipped lrugen-nocaps "not root"
elif [ ! -e "$LRU" ]; then
	skipped lrugen-nocaps "no $LRU on this host (no MGLRU, or debugfs not mounted): the lab checks it"
elif ! command -v setpriv > /dev/null; then
	skipped lrugen-nocaps "no setpriv"
else
	out=$(setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- \
		python3 -c '
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
except OSError as e:
    print("open", errno.errorcode[e.errno]); sys.exit(0)
try:
    os.write(fd, b"x\n")
    print("write ok")
except OSError as e:
    print("write", errno.errorcode[e.errno])' "$LRU" 2>&1)
	lock=$(cat /sys/kernel/security/lockdown 2>/dev/null)
	case $out:$lock in
	"write EINVAL":*) ok "no capability at all: $LRU opens for writing, a bad command gets EINVAL (permissions alone)" ;;
	"open EPERM":*"[integrity]"*|"open EPERM":*"[confidentiality]"*)
		ok "lockdown ($lock): $LRU refused (EPERM) as the unit and DaemonSet say" ;;
	*) bad lrugen-nocaps "$out (lockdown: ${lock:-none})" ;;
	esac
fi

# The DaemonSet as shipped: every node, a debugfs check that waits (no
# crash loop), dry run, probes on the port it serves /metrics on, the Pod
# Security level and the blast radius said.
python3 - "$DS" <<'PY' && ok "DaemonSet: tolerates every taint, init container waits for lru_gen, --dry-run, probes on /metrics at the --metrics-listen port, Pod Security level and blast radius stated" || bad ds-shipped "see above"
import re, sys, yaml
text = open(sys.argv[1]).read()
ds = [d for d in yaml.safe_load_all(text) if d][0]
pod = ds["spec"]["template"]["spec"]
err = []
if {"operator": "Exists"} not in pod.get("tolerations", []): err.append("no blanket toleration")
init = pod.get("initContainers", [])
if not init or "lru_gen" not in " ".join(init[0]["command"]) or "sleep" not in " ".join(init[0]["command"]):
    err.append("no init container that waits for lru_gen")
c = [c for c in pod["containers"] if c["name"] == "advshim-watch"][0]
args = c["command"][1:]
if "--dry-run" not in args: err.append("not in dry run")
port = [a.rsplit(":", 1)[1] for a in args if a.startswith("--metrics-listen=")]
ports = {p["name"]: str(p["containerPort"]) for p in c.get("ports", [])}
for probe in ("readinessProbe", "livenessProbe"):
    g = c.get(probe, {}).get("httpGet", {})
    if g.get("path") != "/metrics" or ports.get(g.get("port"), str(g.get("port"))) != (port[0] if port else None):
        err.append("%s is not GET /metrics on the --metrics-listen port" % probe)
if pod.get("hostPID") or pod.get("hostNetwork"): err.append("hostPID/hostNetwork")
for word in ("Pod Security", "privileged", "Blast radius", "--cgroup"):
    if word not in text: err.append("comment does not say %r" % word)
if err:
    print("; ".join(err)); sys.exit(1)
PY

# --- 5. synopsis and kill switch ----------------------------------------------------
syn=$(grep -o '`advshim doctor [^`]*`' README.md | head -n 1)
missing=
for o in $("$A" doctor --help | grep -o -- '--[a-z-]*' | sort -u); do
	case $o in --root|--help) continue ;; esac	# tests' and everyone's
	case $syn in *"$o"*) ;; *) missing="$missing $o" ;; esac
done
[ -n "$syn" ] && [ -z "$missing" ] && ok "README's doctor synopsis has every option: $syn" ||
	bad doctor-synopsis "missing:$missing in ${syn:-no synopsis}"
kdef=$(sed -n 's/^#define ADVSHIM_DISABLE_DEFAULT[[:space:]]*"\(.*\)"$/\1/p' shim/shim.h)
mdef=$(sed -n '/^\.B ADVSHIM_DISABLE_FILE/,/^\.TP/p' docs/man/advshim.1 | sed -n 's/^\.IR \(.*\) ;$/\1/p' | head -n 1)
if [ -n "$kdef" ] && [ "$mdef" = "$kdef" ] && grep -q "$kdef" README.md; then
	ok "kill switch default $kdef in the shim, advshim(1) and README"
else
	bad kill-path "shim '$kdef' man '$mdef' README $(grep -c "${kdef:-x}" README.md)"
fi

# --- 6. README is a reference ---------------------------------------------------------
n=$(wc -l < README.md)
[ "$n" -le 450 ] && ok "README.md is $n lines (<= 450)" || bad readme-length "$n lines"
order=$(grep '^## ' README.md | tr '\n' '|')
want='## Quick start on a node|## Am I affected?|## Which fix|## Deploy|## Monitoring|## Configuration|## Limitations|## Troubleshooting|## Development|'
[ "$order" = "$want" ] && ok "README sections in reference order" || bad readme-order "$order"
# (docs/watcher-stepping.md is the watcher's lab journal: dated runs stay there)
hist=$(grep -nP '\b(commit|issue) [0-9a-f#]|[a-z0-9]+-(lab|r[0-9]+)-20[0-9]{6}|\b[a-z0-9-]+-20[0-9]{6}-[0-9]{6}\b|\bnot analysed\b|\bbefore (issue|this session)|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b' \
	README.md docs/measurements.md docs/doctor.md docs/adaptive.md docs/policy.md \
	docs/watcher.md 2>/dev/null | head -n 5)
[ -z "$hist" ] && ok "README and docs: no commit or result hashes, run ids or history" || bad readme-history "$hist"

echo "check-facts: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
