"""Modules stay small (ARCHITECTURE.md §7). ruff, mypy and the layer contract run beside the tests,
in .ci/run, not as tests."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_modules_stay_small() -> None:
    big = [
        (str(p.relative_to(ROOT)), n)
        for p in (ROOT / "src").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 400
    ]
    assert big == [], f"split these by concern: {big}"
