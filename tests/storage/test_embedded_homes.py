"""Two data directories never wait on each other: each home's server keeps its locks, socket and
holders inside the home, so a process stuck on one home (its start lock held, or frozen anywhere
in its start or stop) delays no other home's start, query or stop."""

from __future__ import annotations

import fcntl
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.service import Tabane
from tabane.storage import embedded

pytestmark = pytest.mark.slow  # processes frozen and killed around starts and stops

DEADLINE = 45.0  # seconds a whole open, query and close may take on a loaded 2-core machine


def _settings(home: Path) -> Settings:
    return Settings(home=home, embedder="none", worker="off", pg_idle_seconds=0)


def _use_briefly(home: Path) -> float:
    """Open the store, ask it something, close it (the server stops with it); the seconds."""
    started = time.monotonic()
    svc = Tabane.open(_settings(home))
    try:
        assert svc.local_user().name
    finally:
        svc.close()
    return time.monotonic() - started


def test_a_held_start_lock_of_one_home_does_not_delay_another(tmp_path: Path) -> None:
    stuck, free = tmp_path / "stuck", tmp_path / "free"
    stuck.mkdir()
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_FOREVER, str(stuck / "init.lock")], stdout=subprocess.PIPE
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
            assert _use_briefly(free) < DEADLINE
            assert embedded.server_pid(free) is None  # stopped with its last process
            assert not (free / "pg" / "postmaster.pid").exists()
        finally:
            holder.kill()
            holder.wait()


HOLD_FOREVER = """
import fcntl, sys, time
handle = open(sys.argv[1], "a")
fcntl.flock(handle, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(3600)
"""

CYCLE = """
import sys
from pathlib import Path
from tabane.config import Settings
from tabane.service import Tabane
settings = Settings(home=Path(sys.argv[1]), embedder="none", worker="off", pg_idle_seconds=0)
print("cycling", flush=True)
while True:
    svc = Tabane.open(settings)
    svc.local_user()
    svc.close()
"""


def test_a_process_frozen_anywhere_in_its_start_or_stop_delays_no_other_home(
    tmp_path: Path,
) -> None:
    """A process that starts and stops its home's server in a loop is frozen (SIGSTOP, as a
    debugger or a stuck fork would) at random moments; each time, another home opens, answers
    and closes within the deadline. With one lock per Unix user, the frozen process held the
    lock of every home most of the time."""
    busy, other = tmp_path / "busy", tmp_path / "other"
    rng = random.Random(7)
    with subprocess.Popen(
        [sys.executable, "-c", CYCLE, str(busy)], stdout=subprocess.PIPE, start_new_session=True
    ) as cycler:
        try:
            assert cycler.stdout is not None and cycler.stdout.readline().strip() == b"cycling"
            for _ in range(3):
                time.sleep(rng.uniform(1.0, 3.0))
                os.killpg(cycler.pid, signal.SIGSTOP)
                try:
                    assert _use_briefly(other) < DEADLINE
                finally:
                    os.killpg(cycler.pid, signal.SIGCONT)
        finally:
            os.killpg(cycler.pid, signal.SIGKILL)
            cycler.wait()
            embedded.stop(busy)


def test_the_socket_and_every_lock_live_inside_the_home(tmp_path: Path) -> None:
    home = tmp_path / "h"
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off", pg_idle_seconds=60))
    try:
        socket = Path(svc.store.app.url.query["host"])  # type: ignore[arg-type]
        assert socket == home.resolve() / "pg"
        assert (socket / ".s.PGSQL.5432").is_socket()
        assert (home / "init.lock").exists() and (home / "keeper.lock").exists()
        with open(home / "keeper.lock", "a") as probe:  # its keeper holds it
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
                raise AssertionError("no keeper holds the home's keeper lock")
            except BlockingIOError:
                pass
    finally:
        svc.close()
        embedded.stop(home)


def test_a_home_too_deep_for_a_socket_path_gets_a_socket_folder_of_its_own(
    tmp_path: Path,
) -> None:
    home = tmp_path / ("d" * 60) / ("e" * 60)
    first, second = embedded.socket_dir(home), embedded.socket_dir(tmp_path / "x" / ("e" * 120))
    assert first != second and first.parent == second.parent
    assert len(os.fsencode(first / ".s.PGSQL.5432")) < embedded.SOCKET_PATH_MAX
    assert _use_briefly(home) < DEADLINE
