"""The console script (`tabane.cli.main:main`): the parser's own errors in the one error format."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabane.cli.main", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_option_and_argument_errors_are_one_error_line_with_exit_2() -> None:
    for args, message in (
        (("recall", "kettle?", "--budget", "abc"), "Invalid value for '--budget'"),
        (("sessions", "show"), "Missing argument 'session'"),
        (("no-such-command",), "No such command 'no-such-command'"),
    ):
        done = _run(*args)
        assert done.returncode == 2, done
        assert done.stderr.startswith(f"error [invalid_input]: {message}"), done.stderr
        assert "Traceback" not in done.stderr and "╭" not in done.stderr
    alone = _run()  # no command: the help, as before
    assert "Usage: tabane" in alone.stdout + alone.stderr
    assert _run("--help").returncode == 0
