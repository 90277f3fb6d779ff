#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check.sh - the Kubernetes manifests in examples/kubernetes/ validated
# offline by kubeconform (strict: unknown or misspelt fields fail) against
# JSON schemas made by schemas.py from Kubernetes' own OpenAPI v3 documents
# for v1 and apps/v1 (the copies k8s.io/kube-openapi's Go module carries,
# generated from Kubernetes 1.24).  kubectl --dry-run=client cannot run
# without an API server, so it is not used.  kubeconform comes from the
# Go module proxy (go install) when it is not on PATH or in GOPATH/bin;
# the schemas from the module cache.  Negative controls: a misspelt field
# and a wrong type in copies of the DaemonSet must be refused.
set -u
KC_VERSION=v0.8.0
pass=0 fail=0 failed=
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); failed="$failed $1"; echo "FAIL $1: $2"; }
T=$(mktemp -d "${TMPDIR:-/tmp}/advshim-k8s.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
command -v go > /dev/null || { echo "check-kubernetes: go missing (kubeconform is installed with go install)" >&2; exit 1; }
GOBIN=$(go env GOPATH)/bin
KC=$(command -v kubeconform || echo "$GOBIN/kubeconform")
if [ ! -x "$KC" ]; then
	echo "installing kubeconform $KC_VERSION (go install)"
	go install "github.com/yannh/kubeconform/cmd/kubeconform@$KC_VERSION" || { echo "check-kubernetes: go install failed" >&2; exit 1; }
	KC=$GOBIN/kubeconform
fi
# The OpenAPI documents: k8s.io/kube-openapi, one of kubeconform's modules.
OA=$(ls -d "$(go env GOMODCACHE)"/k8s.io/kube-openapi@*/pkg/util/proto/testdata/openapi_v3_0_0 2>/dev/null | tail -n 1)
if [ -z "$OA" ]; then
	(cd "$T" && go mod init k >/dev/null 2>&1 && go get k8s.io/kube-openapi@latest >/dev/null 2>&1)
	OA=$(ls -d "$(go env GOMODCACHE)"/k8s.io/kube-openapi@*/pkg/util/proto/testdata/openapi_v3_0_0 2>/dev/null | tail -n 1)
fi
[ -n "$OA" ] || { echo "check-kubernetes: no Kubernetes OpenAPI documents (k8s.io/kube-openapi)" >&2; exit 1; }
kver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$OA/apps/v1.json")
python3 "$(dirname "$0")/schemas.py" "$OA" "$T/schemas" apps/v1/DaemonSet apps/v1/StatefulSet v1/ConfigMap ||
	{ echo "check-kubernetes: schemas.py failed" >&2; exit 1; }
kc() { "$KC" -strict -summary -schema-location "$T/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"; }

if out=$(kc examples/kubernetes/*.yaml 2>&1) &&
   echo "$out" | grep -q 'Valid: 5, Invalid: 0, Errors: 0, Skipped: 0'; then
	ok "kubeconform (go install @$KC_VERSION) -strict, Kubernetes $kver schemas: $(echo "$out" | tail -n 1)"
else
	bad manifests "$out"
fi
sed 's/periodSeconds: 30/periodSecond: 30/' examples/kubernetes/advshim-watch-daemonset.yaml > "$T/misspelt.yaml"
kc "$T/misspelt.yaml" > "$T/out" 2>&1 && bad misspelt "a misspelt field passed" ||
	ok "control: a misspelt field (periodSecond) is refused"
sed 's/containerPort: 9481/containerPort: "metrics"/' examples/kubernetes/advshim-watch-daemonset.yaml > "$T/type.yaml"
kc "$T/type.yaml" > "$T/out" 2>&1 && bad type "a string containerPort passed" ||
	ok "control: a wrong type (containerPort: \"metrics\") is refused"

echo "check-kubernetes: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ $fail -eq 0 ]
