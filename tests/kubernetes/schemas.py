#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""schemas.py OPENAPI_DIR OUT_DIR KIND... - strict standalone JSON schemas
for kubeconform (-schema-location OUT_DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json)
from Kubernetes' own OpenAPI v3 documents (OPENAPI_DIR/v1.json for the
core group, OPENAPI_DIR/apps/v1.json for apps), as kubeconform's
openapi2jsonschema does it: every $ref inlined, additionalProperties false
wherever properties are listed (kubectl's strict validation),
int-or-string as string or integer.  KIND is group/version/Kind, e.g.
apps/v1/DaemonSet or v1/ConfigMap."""
import json
import os
import sys


def load(d, gv):
    path = os.path.join(d, "v1.json" if gv == "v1" else gv + ".json")
    return json.load(open(path))["components"]["schemas"]


def inline(node, schemas, seen):
    if isinstance(node, list):
        return [inline(x, schemas, seen) for x in node]
    if not isinstance(node, dict):
        return node
    if "allOf" in node and len(node["allOf"]) == 1 and "$ref" in node["allOf"][0]:
        rest = {k: v for k, v in node.items() if k != "allOf"}
        node = dict(node["allOf"][0], **rest)
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        if name in seen:		# recursive type: leave it open
            return {}
        out = inline(schemas[name], schemas, seen | {name})
        return out
    if node.get("x-kubernetes-int-or-string") or node.get("format") == "int-or-string":
        return {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    out = {k: inline(v, schemas, seen) for k, v in node.items()}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if out.get("nullable"):
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for spec in sys.argv[3:]:
        parts = spec.split("/")
        kind = parts[-1]
        gv = "/".join(parts[:-1])
        schemas = load(src, gv)
        group = "core" if gv == "v1" else parts[0]
        name = "io.k8s.api.%s.%s.%s" % (group, parts[-2], kind)
        s = inline(schemas[name], schemas, {name})
        s["$schema"] = "http://json-schema.org/schema#"
        suffix = "-v1" if gv == "v1" else "-%s-%s" % (parts[0], parts[1])
        with open(os.path.join(dst, kind.lower() + suffix + ".json"), "w") as f:
            json.dump(s, f)


if __name__ == "__main__":
    main()
