"""The CLI in process through Typer's runner, on the test store, as the test user."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.principal import Principal


def _invoke(
    home: Path, user: Principal, args: list[str], env: dict[str, str], stdin: str | None = None
) -> Any:
    base = {
        "TABANE_HOME": str(home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    result = CliRunner().invoke(app, args, env={**base, **env}, input=stdin)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def cli(tabane_home: Path, user: Principal) -> Callable[..., tuple[int, Any, str]]:
    """Run `tabane ARGS… --json`: (exit code, stdout as JSON when it succeeded, stderr). An
    exception that escapes the command (a traceback a user would see) fails the test; `stdin`
    is the command's input, `TABANE_*=value` keywords its environment. `eval`,
    whose `--json PATH` names a report file, and a command given `--json` run as given."""

    def run(*args: str, stdin: str | None = None, **env: str) -> tuple[int, Any, str]:
        own = "--json" in args or args[:1] == ("eval",)
        result = _invoke(tabane_home, user, list(args) if own else [*args, "--json"], env, stdin)
        out = json.loads(result.stdout) if result.exit_code == 0 and result.stdout else None
        return result.exit_code, out, result.stderr

    return run


@pytest.fixture
def person(tabane_home: Path, user: Principal) -> Callable[..., tuple[int, str, str]]:
    """Run `tabane ARGS…` as a person sees it: (exit code, stdout, stderr), nothing added."""

    def run(*args: str, **env: str) -> tuple[int, str, str]:
        result = _invoke(tabane_home, user, list(args), env)
        return result.exit_code, result.stdout, result.stderr

    return run
