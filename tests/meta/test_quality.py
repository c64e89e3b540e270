"""ruff, mypy and the layer contract (ARCHITECTURE.md §7) run as part of the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff() -> None:
    result = _run(str(BIN / "ruff"), "check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy() -> None:
    result = _run(str(BIN / "mypy"), "src/tabane")
    assert result.returncode == 0, result.stdout + result.stderr


def test_layers_point_down() -> None:
    result = _run(str(BIN / "lint-imports"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_modules_stay_small() -> None:
    big = [
        (str(p.relative_to(ROOT)), n)
        for p in (ROOT / "src").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 400
    ]
    assert big == [], f"split these by concern: {big}"
