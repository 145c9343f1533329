#!/bin/bash
# usage: ab-bench.sh BENCH_BIN SERVER_BIN OUT.json [kapi bench flags...]: starts SERVER_BIN
# on a fresh data dir, runs BENCH_BIN's `kapi bench` against it with the flags, writes the
# rows to OUT.json and prints the server's RSS afterwards.
set -e
BENCH=$1; SERVER=$2; OUT=$3; shift 3
D=$(mktemp -d /tmp/abb.XXXX)
$SERVER serve --secure-port 0 --data-dir $D/data > $D/log 2>&1 &
PID=$!
for i in $(seq 100); do [ -f $D/data/kubeconfig ] && grep -q serving $D/log && break; sleep 0.1; done
$BENCH bench --kubeconfig $D/data/kubeconfig --json $OUT "$@"
grep VmRSS /proc/$PID/status
kill $PID; wait $PID 2>/dev/null || true
