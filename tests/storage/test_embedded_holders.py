"""Who holds a home's store, and when its server stops: a holder is live exactly while its process
holds its lock file (the kernel drops it however the process ends), and the keeper stops the
server once the home has had no holder for TABANE_PG_IDLE_SECONDS."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.service import Tabane
from tabane.storage import embedded, holders, keeper

from helpers import wait_until

pytestmark = pytest.mark.slow  # processes that hold and release a home's server

HOLD_AND_WAIT = """
import signal, sys, time
from pathlib import Path
from tabane.config import Settings
from tabane.service import Tabane
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # SIGTERM closes the store
settings = Settings(home=Path(sys.argv[1]), embedder="none", worker="off",
                    pg_idle_seconds=float(sys.argv[2]))
with Tabane.open(settings):
    print("open", flush=True)
    time.sleep(3600)
"""


@contextmanager
def _holding(home: Path, idle: float) -> Iterator[subprocess.Popen[bytes]]:
    """A process holding the home's store open (its server stopped at the end)."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_AND_WAIT, str(home), str(idle)], stdout=subprocess.PIPE
    ) as child:
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == b"open"
            yield child
        finally:
            child.kill()
            child.wait()
            embedded.stop(home)


def test_a_hold_is_live_while_held_and_gone_once_released(tmp_path: Path) -> None:
    first, second = holders.Hold(tmp_path), holders.Hold(tmp_path)
    assert holders.live(tmp_path) == [os.getpid(), os.getpid()]
    first.release()
    first.release()  # a second release does nothing
    assert holders.live(tmp_path) == [os.getpid()]
    second.release()
    assert holders.live(tmp_path) == [] and not any((tmp_path / holders.FOLDER).iterdir())


def test_a_killed_holder_is_dropped_and_its_file_removed(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with _holding(home, 600) as child:
        assert holders.live(home) == [child.pid]
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert holders.live(home) == []
        assert not any((home / holders.FOLDER).iterdir())


def test_a_stray_file_in_the_holders_folder_is_not_a_holder(tmp_path: Path) -> None:
    (tmp_path / holders.FOLDER).mkdir()
    (tmp_path / holders.FOLDER / "notes.txt").write_text("mine")
    (tmp_path / holders.FOLDER / "123-1.lock").write_text("")  # a dead holder's
    assert holders.live(tmp_path) == []
    assert [p.name for p in (tmp_path / holders.FOLDER).iterdir()] == ["notes.txt"]


def test_with_no_idle_time_the_last_process_out_stops_the_server(tmp_path: Path) -> None:
    home = tmp_path / "h"
    settings = Settings(home=home, embedder="none", worker="off", pg_idle_seconds=0)
    first, second = Tabane.open(settings), Tabane.open(settings)
    pid = embedded.server_pid(home)
    assert pid is not None
    first.close()
    assert embedded.server_pid(home) == pid  # still held by the second
    second.close()
    assert embedded.server_pid(home) is None


@pytest.mark.parametrize("ends", ["closes", "is killed"])
def test_the_keeper_stops_the_server_after_the_idle_time(tmp_path: Path, ends: str) -> None:
    home = tmp_path / "h"
    with _holding(home, 2.0) as child:
        pid = embedded.server_pid(home)
        assert pid is not None
        child.send_signal(signal.SIGTERM if ends == "closes" else signal.SIGKILL)
        assert child.wait(timeout=30) in ((0,) if ends == "closes" else (-signal.SIGKILL,))
        time.sleep(1.0)
        assert embedded.server_pid(home) == pid  # idle for less than 2 s: still up
        wait_until(lambda: embedded.server_pid(home) is None, 30)
        wait_until(lambda: "stopped the server" in (home / keeper.LOG).read_text(), 10)


def test_a_process_opening_the_store_meanwhile_keeps_it_running(tmp_path: Path) -> None:
    home = tmp_path / "h"
    settings = Settings(home=home, embedder="none", worker="off", pg_idle_seconds=1.0)
    Tabane.open(settings).close()
    pid = embedded.server_pid(home)
    time.sleep(0.5)
    svc = Tabane.open(settings)  # before the keeper's idle second ran out
    try:
        time.sleep(2.5)
        assert embedded.server_pid(home) == pid
        assert svc.local_user().name
    finally:
        svc.close()
    wait_until(lambda: embedded.server_pid(home) is None, 30)
