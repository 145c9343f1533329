#!/usr/bin/env bash
# Idle memory of a fresh `kapi serve` (embedded store, new data dir), as docs/benchmarks.md
# measures it since session 2: /proc/PID/status 2 s after start plus one `kubectl get ns`;
# also the text segment's resident part (/proc/PID/smaps) and `ready_after_ms` from the log.
#
#   docs/bench/idle-rss.sh target/release/kapi 3
set -euo pipefail
KAPI=${1:?usage: idle-rss.sh KAPI [STARTS]}
STARTS=${2:-3}
echo "| start | VmRSS (MiB) | RssAnon (MiB) | RssFile (MiB) | text resident (MiB) | ready after (ms) |"
echo "|---|---|---|---|---|---|"
for i in $(seq 1 "$STARTS"); do
  dir=$(mktemp -d)
  "$KAPI" serve --data-dir "$dir" --secure-port 0 >"$dir/kapi.log" 2>&1 &
  pid=$!
  sleep 2
  kubectl --kubeconfig "$dir/kubeconfig" get ns >/dev/null
  mib() { awk -v k="$1:" '$1 == k {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
  # The text mapping: the binary's r-xp segment.
  text=$(awk -v bin="$(readlink -f "$KAPI")" '
    $2 ~ /^r-xp/ && $6 == bin {t = 1; next}
    /^[0-9a-f]+-/ {t = 0}
    t && $1 == "Rss:" {printf "%.1f", $2 / 1024}' "/proc/$pid/smaps")
  ready=$(grep -o 'ready_after_ms[^0-9]*[0-9.]*' "$dir/kapi.log" | grep -o '[0-9.]*$' | head -1 | xargs printf "%.1f")
  echo "| $i | $(mib VmRSS) | $(mib RssAnon) | $(mib RssFile) | ${text:-?} | ${ready:-?} |"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
done
