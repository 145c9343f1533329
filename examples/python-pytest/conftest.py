"""A pytest fixture that runs kapi for a test: a fresh control plane on a free port with a
private data dir, started in milliseconds and stopped (SIGTERM) after the test. The kapi
binary is $KAPI_BIN, else `kapi` on PATH."""

import os
import signal
import subprocess
import tempfile
import time

import pytest


@pytest.fixture
def kapi_kubeconfig():
    """Yields the path of the admin kubeconfig of a kapi started for this test."""
    binary = os.environ.get("KAPI_BIN", "kapi")
    with tempfile.TemporaryDirectory() as data_dir:
        ready = os.path.join(data_dir, "ready")
        proc = subprocess.Popen(
            [binary, "serve", "--secure-port", "0", "--data-dir", data_dir,
             "--ready-file", ready],
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(data_dir, "kapi.log"), "w"),
        )
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(ready):
                if proc.poll() is not None:
                    raise RuntimeError("kapi exited with %s" % proc.returncode)
                if time.monotonic() > deadline:
                    raise TimeoutError("kapi was not ready after 10 s")
                time.sleep(0.01)
            with open(ready) as f:
                yield f.read().strip()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
