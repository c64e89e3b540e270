"""`tabane serve` and `tabane mcp` as real subprocesses: SIGTERM shuts them down cleanly, closing
the store and letting go of the embedded PostgreSQL, as Ctrl-C does."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tabane.service import Tabane
from tabane.storage import holders

pytestmark = pytest.mark.slow  # servers signalled under load


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until_healthy(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Wait until the served `/health` answers 200 (the process alive all along)."""
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "serve did not come up"
        time.sleep(0.2)


def _holders(home: Path) -> list[int]:
    """The processes holding the home's store (storage/holders.py)."""
    return holders.live(home)


def test_sigterm_stops_serve_and_releases_the_store(
    svc: Tabane, tabane_home: Path, tmp_path: Path
) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": "serve-signal",
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    cmd = [sys.executable, "-m", "tabane.cli.main", "serve", "--port", str(port)]
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _until_healthy(proc, f"http://127.0.0.1:{port}", log)
        assert proc.pid in _holders(tabane_home)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()  # not killed: its cleanup ran
        assert proc.pid not in _holders(tabane_home)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigterm_stops_mcp_while_its_client_keeps_stdin_open(
    svc: Tabane, tabane_home: Path, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": "mcp-signal",
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    init = {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}  # fmt: skip
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabane.cli.main", "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(hello.encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving, stdin still open
        assert proc.pid in _holders(tabane_home)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        assert proc.pid not in _holders(tabane_home)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def test_sigterm_under_load_exits_within_five_seconds(
    svc: Tabane, tabane_home: Path, tmp_path: Path
) -> None:
    """SIGTERM while eight clients keep searching and recalling: the server stops taking
    requests, gives those in flight a grace period, releases its worker's job and the store,
    and exits 0 within 5 s, with no traceback."""
    import threading

    from tabane.ingest.documents import DocumentInput, block

    from helpers import unique

    me, context = svc.ensure_user("serve-load"), unique("load")
    svc.create_context(me, context)
    for n in range(20):
        text = f"kettle {n}: descale it monthly with citric acid, then rinse twice"
        svc.ingest(me, context, DocumentInput(f"k{n}", paragraphs=[block(text)] * 5))
    port = _free_port()
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": "serve-load",
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "thread",
        "TABANE_RATE_RPS": "0",
        "TABANE_HEAVY_CONCURRENCY": "0",
    }
    cmd = [sys.executable, "-m", "tabane.cli.main", "serve", "--port", str(port)]
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    stop = threading.Event()
    answered: list[int] = []

    def client() -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            while not stop.is_set():
                try:
                    answered.append(
                        http.post(
                            "/recall",
                            json={"question": "how is the kettle descaled?", "contexts": [context]},
                        ).status_code
                    )
                except httpx.TransportError:
                    return  # the server went away

    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    clients = [threading.Thread(target=client) for _ in range(8)]
    try:
        _until_healthy(proc, base, log)
        for thread in clients:
            thread.start()
        deadline = time.monotonic() + 60  # the first recalls load the model: slow on busy cores
        while 200 not in answered and time.monotonic() < deadline:
            time.sleep(0.2)
        assert 200 in answered, (set(answered), log.read_text()[-2000:])
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        took = time.monotonic() - began
        assert code == 0 and took <= 5.0, (took, log.read_text()[-3000:])
        assert "Traceback" not in log.read_text()
        assert proc.pid not in _holders(tabane_home)
    finally:
        stop.set()
        for thread in clients:
            if thread.is_alive():
                thread.join(30)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
