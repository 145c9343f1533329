#!/usr/bin/env bash
# The cost of RBAC authorization per request: kapi bench's create/get/update as a user that
# RBAC judges (bound to cluster-admin by a ClusterRoleBinding, among 1 000 other bindings),
# then as a member of system:masters (no RBAC evaluation), then with
# --authorization-mode=AlwaysAllow. Usage: docs/bench/rbac-cost.sh target/release/kapi
set -euo pipefail
KAPI=${1:-target/release/kapi}
OPS=${OPS:-2000}
run() { # $1 = label, $2 = extra serve flags
  local d; d=$(mktemp -d)
  printf 'bench-token,bench,2000\n' > "$d/users.csv"
  "$KAPI" serve --secure-port 0 --data-dir "$d/data" --token-auth-file "$d/users.csv" $2 \
    > "$d/log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do [ -f "$d/data/kubeconfig" ] && break; sleep 0.1; done
  sleep 1
  local kc="$d/data/kubeconfig"
  # 1 000 other bindings: 500 cluster-wide, 500 in the namespace the bench writes to.
  kubectl --kubeconfig "$kc" create namespace kapi-bench-ops >/dev/null
  for i in $(seq 500); do
    printf '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"other-%s"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"user-%s"}]}\n' "$i" "$i"
    printf '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"other-%s","namespace":"kapi-bench-ops"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},"subjects":[{"kind":"User","name":"user-%s"}]}\n' "$i" "$i"
  done > "$d/bindings.json"
  kubectl --kubeconfig "$kc" create -f "$d/bindings.json" >/dev/null
  kubectl --kubeconfig "$kc" create clusterrolebinding bench-admin --clusterrole=cluster-admin --user=bench >/dev/null
  local bench_kc="$d/bench-kubeconfig"
  if [ "$1" = masters ]; then cp "$kc" "$bench_kc"; else
    sed "s/token: .*/token: bench-token/" "$kc" > "$bench_kc"; fi
  echo "## $1"
  "$KAPI" bench --kubeconfig "$bench_kc" --ops "$OPS" --concurrency 1,16 --list-sizes 1 \
    --list-repeats 1 --watchers 1 --watch-events 1 | grep -E '^\| (create|get|update) '
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
run rbac ""
run masters ""
run always-allow "--authorization-mode=AlwaysAllow"
