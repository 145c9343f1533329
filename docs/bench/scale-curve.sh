#!/usr/bin/env bash
# The server's scale curve (issue 19): for each size N, a fresh `kapi serve` (embedded store,
# or etcd with ETCD=1: an etcd of its own per size) filled with N ConfigMaps by `kapi bench`,
# which also times JSON and protobuf lists of them; then the server's RSS per object (after the
# run minus idle, over N), and its start-up on the existing store: process start to the
# kubeconfig written and /readyz answering, and to the first full list of the N objects.
#
#   docs/bench/scale-curve.sh target/release/kapi 1000 10000 100000
#   ETCD=1 docs/bench/scale-curve.sh target/release/kapi 1000 10000 100000
set -euo pipefail
KAPI=${1:?usage: scale-curve.sh KAPI N...}
shift
SIZES=${*:-1000 10000 100000}

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

start_kapi() { # dir extra-args... ; sets PID
  rm -f "$1/kubeconfig"
  "$KAPI" serve --data-dir "$1" --secure-port 0 "${@:2}" >>"$1/kapi.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 3000); do
    [ -s "$1/kubeconfig" ] && kubectl --kubeconfig "$1/kubeconfig" get --raw /readyz >/dev/null 2>&1 && return 0
    sleep 0.01
  done
  echo "kapi did not become ready: $(tail -5 "$1/kapi.log")" >&2
  return 1
}

echo "| store | objects | idle RSS (MiB) | RSS after (MiB) | RSS per object (KiB) | list JSON p50 (ms) | list protobuf p50 (ms) | restart to ready (ms) | restart to first list (ms) |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  dir=$(mktemp -d)
  extra=()
  store=embedded
  if [ "${ETCD:-0}" = 1 ]; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    peer=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    etcd --data-dir "$dir/etcd" --listen-client-urls "http://127.0.0.1:$port" \
      --advertise-client-urls "http://127.0.0.1:$port" --listen-peer-urls "http://127.0.0.1:$peer" \
      >"$dir/etcd.log" 2>&1 &
    ETCD_PID=$!
    sleep 1
    extra=(--etcd-servers "http://127.0.0.1:$port")
    store=etcd
  fi
  start_kapi "$dir" "${extra[@]}"
  sleep 1
  idle=$(rss_kib "$PID")
  "$KAPI" bench --kubeconfig "$dir/kubeconfig" --ops 10 --concurrency 1 --list-sizes "$n" \
    --list-repeats 8 --page-size 500 --watchers 1 --watch-events 10 --keep \
    --json "$dir/bench.json" >"$dir/bench.txt" 2>&1
  after=$(rss_kib "$PID")
  list_json=$(python3 -c "
import json
rows = json.load(open('$dir/bench.json'))
def p50(op):
    return next((str(r['p50_ms']) for r in rows if r['operation'] == op and r['concurrency'] == 1), 'n/a')
print(p50('list $n json'), p50('list $n protobuf'))")
  kill -TERM "$PID"
  wait "$PID" || true
  t0=$(now_ms)
  start_kapi "$dir" "${extra[@]}"
  t1=$(now_ms)
  kubectl --kubeconfig "$dir/kubeconfig" get configmaps -n "kapi-bench-list-$n" --chunk-size=0 -o name | wc -l >/dev/null
  t2=$(now_ms)
  kill -TERM "$PID"
  wait "$PID" || true
  if [ -n "${ETCD_PID:-}" ]; then kill "$ETCD_PID"; wait "$ETCD_PID" 2>/dev/null || true; unset ETCD_PID; fi
  read -r lj lp <<<"$list_json"
  awk -v s="$store" -v n="$n" -v i="$idle" -v a="$after" -v lj="$lj" -v lp="$lp" -v r=$((t1 - t0)) -v f=$((t2 - t0)) \
    'BEGIN { printf "| %s | %d | %.1f | %.1f | %.2f | %s | %s | %d | %d |\n", s, n, i/1024, a/1024, (a-i)/n, lj, lp, r, f }'
  rm -rf "$dir"
done
