"""The current figures are reproducible: every row of docs/performance.md and docs/quality.md names
the command that measured it (a script under bench/ or a `tabane …` command), every bench script
those pages name exists, and no file points at a docs page that is not there (the journal moved)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("docs/performance.md", "docs/quality.md")
CODE = re.compile(r"`([^`]+)`")
BENCH_PATH = re.compile(r"(?<![\w.])bench/([\w/]+\.py)")
IN_BENCH = re.compile(r"\bcd bench\b.*?\b([a-z_]+\.py)\b")  # `cd bench && … recall_latency.py`
DOCS_PATH = re.compile(r"(?<![\w./-])docs/[\w/.-]+?\.md\b")


def table_rows(text: str) -> list[tuple[int, str]]:
    """The data rows of every Markdown table (not its header or separator), with line numbers."""
    lines = text.splitlines()
    rows: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.fullmatch(r"\|[\s|:-]+\|", line):
            continue
        header = i + 1 < len(lines) and re.fullmatch(r"\|[\s|:-]+\|", lines[i + 1])
        if not header:
            rows.append((i + 1, line))
    return rows


def scripts(text: str) -> set[str]:
    """The bench scripts a text names, as paths from the repository root."""
    named = {f"bench/{m}" for m in BENCH_PATH.findall(text)}
    named |= {f"bench/{m}" for m in IN_BENCH.findall(text)}
    return named


def is_command(code: str) -> bool:
    return code.startswith("tabane ") or bool(scripts(code))


@pytest.mark.parametrize("page", FIGURES)
def test_every_row_names_its_command(page: str) -> None:
    rows = table_rows((ROOT / page).read_text())
    assert len(rows) >= 10, f"{page} has lost its tables"
    bare = [n for n, row in rows if not any(is_command(c) for c in CODE.findall(row))]
    assert bare == [], f"{page}: rows without a command (bench/… or `tabane …`) at lines {bare}"


@pytest.mark.parametrize("page", FIGURES)
def test_every_bench_script_named_exists(page: str) -> None:
    named = scripts((ROOT / page).read_text())
    assert named, f"{page} names no bench script"
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert missing == []


def test_the_checks_see_what_they_should() -> None:
    row = "| x | 1 ms | `cd bench && ../.venv/bin/python recall_latency.py --home /tmp/h` |"
    assert table_rows("| a | b |\n|---|---|\n" + row) == [(3, row)]
    assert scripts(row) == {"bench/recall_latency.py"}
    assert is_command("tabane eval docs set.jsonl") and is_command("python bench/load.py")
    assert not is_command("TABANE_HOME=/tmp/x") and not is_command("0.785")
    assert scripts("see ../bench/README.md and bench/_env.py") == {"bench/_env.py"}


def _texts() -> list[Path]:
    roots = [ROOT / "src", ROOT / "tests", ROOT / "bench", ROOT / "docs"]
    found = [ROOT / "README.md"]
    for root in roots:
        found += [p for p in root.rglob("*") if p.suffix in {".py", ".md"} and p.is_file()]
    return [p for p in found if "journal" not in p.parts]


def test_every_docs_page_named_exists() -> None:
    """A path `docs/….md` in code, tests, benches or docs names a page that exists (the dated
    journal keeps the paths it was written with)."""
    missing = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in _texts()
        for name in set(DOCS_PATH.findall(path.read_text(errors="replace")))
        if not (ROOT / name).exists()
    )
    assert missing == []
