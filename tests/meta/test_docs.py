"""The docs are checked against the code: every setting, error code and CLI command is documented,
and docs/cli.md is exactly what the commands' help generates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabane.cli import reference
from tabane.config import SETTINGS
from tabane.errors import all_error_classes

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "guide.md").read_text()


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_every_setting_is_documented(name: str) -> None:
    assert f"`{name}`" in GUIDE


@pytest.mark.parametrize("cls", all_error_classes(), ids=lambda c: c.code)
def test_every_error_code_is_documented_with_its_status(cls) -> None:
    row = re.search(rf"^\| `{cls.code}` \| (\d+) \|", GUIDE, re.MULTILINE)
    assert row, f"error code {cls.code} is not in docs/guide.md"
    assert int(row.group(1)) == cls.status


def test_cli_reference_is_current() -> None:
    assert (ROOT / "docs" / "cli.md").read_text() == reference.render(), (
        "run: python -m tabane.cli.reference > docs/cli.md"
    )


def test_every_cli_command_has_an_example() -> None:
    import typer

    from tabane.cli.main import app

    for path, cmd in reference.walk(typer.main.get_command(app), ("tabane",)):
        if not hasattr(cmd, "commands"):
            assert "Example: tabane" in (cmd.help or ""), " ".join(path)


def test_http_reference_is_current(svc) -> None:
    from tabane.api.app import create_app
    from tabane.api.reference import render

    assert (ROOT / "docs" / "http.md").read_text() == render(create_app(svc)), (
        "run: python -m tabane.api.reference > docs/http.md"
    )


def test_every_route_has_a_description(svc) -> None:
    from tabane.api.app import create_app

    spec = create_app(svc).openapi()
    bare = [
        f"{m.upper()} {p}"
        for p, ops in spec["paths"].items()
        for m, op in ops.items()
        if not (op.get("description") or "").strip()
    ]
    assert bare == []
