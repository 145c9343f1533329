#!/usr/bin/env bash
# Regenerates crates/kapi/startup-order.txt, the link order of the code kapi runs while it
# starts, answers its first request and idles (docs/benchmarks.md, "Idle memory: start-up
# code laid out together"). The release build of the `kapi` binary hands the file to the
# linker's --symbol-ordering-file (rust-lld, the default linker of x86_64-unknown-linux-gnu
# since Rust 1.90; crates/kapi/build.rs), so that this code sits in a few contiguous
# megabytes of the text segment instead of in hundreds of 64 KiB windows spread over 60 MB,
# each of which the kernel's fault-around maps whole.
#
# The run is recorded under valgrind's callgrind (every function executed, not a sample):
#
#   cargo build --release -p kapi && scripts/startup-order.sh target/release/kapi
#
# Symbols that later changes rename fall out of the order harmlessly (the linker skips names
# it does not find); re-run this script when the idle RSS grows again.
set -euo pipefail
KAPI=${1:-target/release/kapi}
OUT=${2:-crates/kapi/startup-order.txt}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$dir/callgrind.out" \
  "$KAPI" serve --data-dir "$dir/data" --secure-port 0 >"$dir/kapi.log" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  [ -s "$dir/data/kubeconfig" ] &&
    kubectl --kubeconfig "$dir/data/kubeconfig" get --raw /readyz >/dev/null 2>&1 && break
  sleep 0.1
done
kubectl --kubeconfig "$dir/data/kubeconfig" get ns >/dev/null
kubectl --kubeconfig "$dir/data/kubeconfig" get configmaps -A >/dev/null
sleep 5 # the idle path: controllers' timers, lease renewals
kill -TERM "$pid"
wait "$pid" || true

# `fn=(id) name` names a function the first time callgrind mentions it; a recursion level
# is appended as 'N. Every Rust function (and the C of ring and mimalloc, built with
# -ffunction-sections) has a section of its own, which the linker places by its symbol;
# names from shared libraries match nothing in the binary. The file has no comments: each
# line is a symbol.
grep -E '^c?fn=\([0-9]+\) ' "$dir/callgrind.out" |
  sed -E 's/^c?fn=\([0-9]+\) //; s/'"'"'[0-9]+$//' |
  grep -vE '^0x|[[:space:]]' | sort -u >"$OUT"
# Mangled names carry hashes that depend on the compiler: build.rs warns when another
# rustc builds with this order.
rustc -V >"${OUT%.txt}.rustc"
echo "$(wc -l <"$OUT") functions written to $OUT"
