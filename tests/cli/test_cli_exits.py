"""A one-shot command stops promptly and cleanly: Ctrl-C in the middle of an ingest ends it with
status 130 (as a shell reports an interrupted program), no traceback, its hold on the store let
go, and every file it stored stored whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabane.service import Tabane
from tabane.storage import holders

from helpers import unique


@pytest.mark.slow
def test_ctrl_c_during_an_ingest_exits_130_without_a_traceback(
    svc: Tabane, tabane_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3000):
        (folder / f"{n:04}.md").write_text(f"# Note {n}\n\nThe kettle was descaled on day {n}.\n")
    context, user = unique("exit"), unique("exits")
    svc.create_context(svc.ensure_user(user), context)
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user,
        "TABANE_EMBEDDER": "none",
    }
    with subprocess.Popen(
        [sys.executable, "-m", "tabane.cli.main", "ingest", str(folder), "-c", context],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        deadline = time.monotonic() + 120
        stored = lambda: svc.get_context(svc.principal(user), context).stats.sources  # noqa: E731
        while stored() < 5:  # ingesting: some files stored, most still to come
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        began = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
        took = time.monotonic() - began
    assert proc.returncode == 130, err
    assert took < 5 and "Traceback" not in err
    assert proc.pid not in holders.live(tabane_home)
    stats = svc.get_context(svc.principal(user), context).stats
    assert 0 < stats.sources < 3000  # stopped part-way
    assert stats.paragraphs == stats.sources == stats.sections  # each file stored whole
