# tests/kubernetes: examples/kubernetes/ validated offline by kubeconform
# against schemas from Kubernetes' OpenAPI (check.sh, schemas.py).
.PHONY: check-kubernetes
CHECK_TARGETS	+= check-kubernetes
check-kubernetes:
	@sh tests/kubernetes/check.sh
