"""The embedded server's holders: a process killed without exiting leaves its pid in the wheel's
list, and the last holder to exit stops the server only when it is the list's one pid. Joining
the server drops the dead pids, so a killed process does not keep the server running for ever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tabane.service import Tabane
from tabane.storage import embedded


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_dead_holders_are_forgotten_and_live_ones_kept(tmp_path: Path) -> None:
    dead = _dead_pid()
    (tmp_path / embedded.HOLDERS).write_text(json.dumps([os.getpid(), dead]))
    assert embedded.forget_dead_holders(tmp_path) == [dead]
    assert json.loads((tmp_path / embedded.HOLDERS).read_text()) == [os.getpid()]
    assert embedded.forget_dead_holders(tmp_path) == []  # nothing more to drop
    (tmp_path / embedded.HOLDERS).write_text("not json")
    assert embedded.forget_dead_holders(tmp_path) == []  # the wheel's file, left as it is


def test_joining_the_server_drops_a_killed_process(svc: Tabane, tabane_home: Path) -> None:
    holders = tabane_home / "pg" / embedded.HOLDERS
    dead = _dead_pid()
    holders.write_text(json.dumps([*json.loads(holders.read_text()), dead]))
    with embedded.init_lock(tabane_home):
        embedded.start(tabane_home)
    left = json.loads(holders.read_text())
    assert dead not in left and os.getpid() in left
