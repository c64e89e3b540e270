"""`tabane sync --watch` and `tabane serve --sync` as real subprocesses over a real store: a
change of the folder is synced, SIGINT and SIGTERM stop the watch cleanly (exit 0, the store
let go), and a bad `--sync` is refused before anything starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tabane.service import Tabane
from tabane.storage import holders

from helpers import unique

pytestmark = pytest.mark.slow  # subprocesses that open the store


def _env(home: Path, user: str) -> dict[str, str]:
    return {**os.environ, "TABANE_HOME": str(home), "TABANE_USER": user,
            "TABANE_EMBEDDER": "none", "TABANE_WORKER": "off"}  # fmt: skip


def _until(check: Callable[[], bool], proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while not check():
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)


def _ids(svc: Tabane, name: str, context: str) -> list[str]:
    me = svc.ensure_user(name)
    return [s.source_id for s in svc.list_sources(me, context).sources]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sync_watch_follows_the_folder_and_stops_on_a_signal(
    svc: Tabane, tabane_home: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    name, context = "watcher", unique("desk")
    svc.create_context(svc.ensure_user(name), context)
    desk = tmp_path / "desk"
    desk.mkdir()
    (desk / "todo.md").write_text("# Todo\n\nwater the plants\n")
    cmd = [sys.executable, "-m", "tabane.cli.main", "sync", str(desk), "--context", context,
           "--watch", "--poll", "--every", "0.2", "--debounce", "0.3"]  # fmt: skip
    log = tmp_path / "watch.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=_env(tabane_home, name), stdout=out, stderr=out)
    try:
        _until(lambda: _ids(svc, name, context) == ["todo.md"], proc, log)
        (desk / "plan.md").write_text("# Plan\n\nrepot the fern\n")
        _until(lambda: _ids(svc, name, context) == ["plan.md", "todo.md"], proc, log)
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == 0, log.read_text()
        assert "watch stopped after 2 sync(s)" in log.read_text()
        assert proc.pid not in holders.live(tabane_home)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_keeps_a_folder_in_step(svc: Tabane, tabane_home: Path, tmp_path: Path) -> None:
    import socket

    name, context = "serve-sync", unique("desk")
    svc.create_context(svc.ensure_user(name), context)
    desk = tmp_path / "desk"
    desk.mkdir()
    (desk / "a.md").write_text("first\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "tabane.cli.main", "serve", "--port", str(port),
           "--sync", f"{desk}={context}", "--sync-every", "0.2"]  # fmt: skip
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=_env(tabane_home, name), stdout=out, stderr=out)
    try:
        _until(lambda: _ids(svc, name, context) == ["a.md"], proc, log)
        (desk / "a.md").unlink()
        (desk / "b.md").write_text("second\n")
        _until(lambda: _ids(svc, name, context) == ["b.md"], proc, log)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_bad_sync_pair_is_refused(tabane_home: Path, tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "tabane.cli.main", "serve", "--port", "1",
           "--sync", str(tmp_path / "missing") + "=desk", "--sync", "nocontext"]  # fmt: skip
    got = subprocess.run(cmd, env=_env(tabane_home, "serve-bad"), capture_output=True, timeout=60)
    assert got.returncode != 0
    text = got.stdout.decode() + got.stderr.decode()
    assert "invalid_input" in text and "--sync[0]" in text and "--sync[1]" in text, text
