#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what the tests need
# (etcd-server for the etcd backend, protobuf-compiler for etcd-client's build, the
# kubernetes Python client for the Python e2e test),
# then checks formatting and clippy, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
# The end-to-end tests drive the real kubectl (1.32 ships with this machine kind; Debian's
# kubernetes-client is 1.20 and too old for the requests the tests check).
if ! command -v kubectl >/dev/null 2>&1; then
  echo "kubectl (1.32) is required by the end-to-end tests and is not on PATH" >&2
  exit 1
fi
# Debian's etcd-server starts a system etcd on the default ports; the tests start
# their own on free ports and never use it.

# The Python e2e tests drive the official Kubernetes client and pytest (PyPI), pinned, in a
# virtualenv under target/ so that nothing of the machine's Python changes.
PYENV=target/py-e2e
if ! "$PYENV/bin/python" -c "import kubernetes, pytest" >/dev/null 2>&1; then
  echo "installing the kubernetes Python client and pytest into $PYENV"
  python3 -m venv "$PYENV"
  "$PYENV/bin/pip" install -q "kubernetes==37.0.2" "pytest==8.4.2"
fi
export KAPI_E2E_PYTHON="$PWD/$PYENV/bin/python"

# CI builds once: incremental caches would only double the disk used.
export CARGO_INCREMENTAL=0

cargo fmt --all -- --check
# The generated built-in kinds are what the vendored upstream definitions give.
cargo run -q -p kapi-apigen -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --all-targets
cargo test --workspace --doc
