"""`tabane remember` and `tabane sessions …`, in process through Typer's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.types import Principal

from helpers import unique


@pytest.fixture
def cli(tabane_home: Path, user: Principal):
    runner = CliRunner()

    def run(*args: str, **env: str) -> tuple[int, Any, str]:
        base = {
            "TABANE_HOME": str(tabane_home),
            "TABANE_USER": user.name,
            "TABANE_EMBEDDER": "none",
            "TABANE_WORKER": "off",
        }
        result = runner.invoke(app, list(args), env={**base, **env})
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        out = json.loads(result.stdout) if result.exit_code == 0 and result.stdout else None
        return result.exit_code, out, result.stderr

    return run


def test_remember_and_sessions(cli: Any, context: str) -> None:
    code, made, _ = cli("remember", context, "I moved to Montana.", "--speaker", "Hannah")
    assert code == 0 and made["id"] > 0
    name = unique("trip")
    for i in range(3):
        code, turn, _ = cli("sessions", "add", name, f"t{i}", "--speaker", "Ravi")
        assert code == 0 and turn["seq"] == i + 1
    code, shown, _ = cli("sessions", "show", name, "--last", "2")
    assert [t["text"] for t in shown["turns"]] == ["t1", "t2"]
    code, shown, _ = cli("sessions", "show", name, TABANE_SESSION_TURNS="1")
    assert [t["text"] for t in shown["turns"]] == ["t2"]  # the configured window
    code, listed, _ = cli("sessions", "list")
    assert name in [s["name"] for s in listed["sessions"]]
    code, gone, _ = cli("sessions", "delete", name)
    assert gone == {"deleted": name, "turns": 3}
    code, _, err = cli("sessions", "show", name)
    assert code != 0 and "no_session" in err
    code, _, err = cli("remember", context, "  ")
    assert code != 0 and "invalid_input" in err
