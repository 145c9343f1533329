#!/bin/bash
# usage: gc-memory.sh KAPI_BIN N: starts `kapi serve` twice on fresh data dirs — with every
# controller, then with --controllers=*,-garbage-collector-controller — fills one namespace
# with N ConfigMaps (kapi bench's list phase, --keep), waits for /readyz, and prints the
# server's RSS each time. The difference is what the garbage collector holds for N objects
# (its graph, and the watch caches it starts for every resource).
set -e
KAPI=$1; N=$2
for controllers in '*' '*,-garbage-collector-controller'; do
  D=$(mktemp -d /tmp/gcm.XXXX)
  $KAPI serve --secure-port 0 --data-dir $D/data --controllers "$controllers" > $D/log 2>&1 &
  PID=$!
  for i in $(seq 100); do [ -f $D/data/kubeconfig ] && grep -q serving $D/log && break; sleep 0.1; done
  $KAPI bench --kubeconfig $D/data/kubeconfig --ops 1 --concurrency 16 --list-sizes $N \
    --list-repeats 1 --watchers 1 --watch-events 1 --keep > /dev/null
  sleep 2
  echo "controllers=$controllers objects=$N $(grep VmRSS /proc/$PID/status)"
  kill $PID; wait $PID 2>/dev/null || true
  rm -rf $D
done
