"""Two real `tabane serve --reuse-port` processes on one port over one standalone PostgreSQL:
both answer, and together they admit one key's bucket once (TABANE_RATE_SHARED=auto shares it
with TABANE_DATABASE_URL); when one is killed the other goes on serving the port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tabane.storage import standalone

from helpers import wait_until

BURST, RPS = 5, 0.5


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server() -> Iterator[tuple[standalone.Server, Path]]:
    with tempfile.TemporaryDirectory(prefix="tabane-fleet-") as tmp:
        primary = standalone.init_primary(Path(tmp) / "pg", _port())
        try:
            yield primary, Path(tmp)
        finally:
            standalone.stop(primary)


def _started(log: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while "Application startup complete" not in log.read_text(errors="replace"):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)


@pytest.mark.slow  # two serve processes on a standalone server
def test_two_processes_share_the_port_and_the_bucket(
    server: tuple[standalone.Server, Path],
) -> None:
    primary, tmp = server
    port = _port()
    env = {
        **os.environ,
        "TABANE_HOME": str(tmp / "home"),
        "TABANE_DATABASE_URL": primary.url(),
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
        "TABANE_RATE_RPS": str(RPS),
        "TABANE_RATE_BURST": str(BURST),
    }
    cmd = [sys.executable, "-m", "tabane.cli.main", "serve", "--port", str(port), "--reuse-port"]
    logs = [tmp / f"serve{i}.log" for i in range(2)]
    procs = []
    try:
        for log in logs:  # at once: both make the local user on a fresh store
            with log.open("wb") as out:
                procs.append(subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT))
        for log, proc in zip(logs, procs, strict=True):
            _started(log, proc)
        began = time.monotonic()
        codes = [httpx.get(f"http://127.0.0.1:{port}/contexts").status_code for _ in range(40)]
        earned = (time.monotonic() - began) * RPS
        assert set(codes) <= {200, 429}
        assert BURST <= codes.count(200) <= BURST + int(earned) + 1, codes
        # the kernel gave both processes connections (each logs a request once it has answered)
        wait_until(lambda: all("GET /contexts " in log.read_text() for log in logs), timeout=10)

        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(timeout=30)
        for _ in range(5):  # the survivor serves every new connection
            assert httpx.get(f"http://127.0.0.1:{port}/health").status_code == 200
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=60)
