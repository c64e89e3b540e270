"""docs/guide.md's "team docs and a desk" example runs as written: its ```sh block under bash in
an empty folder with a fresh store (the real default embedder), and each line of the ```text
blocks after it appears in what the commands print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
HEADING = "### Example: team docs and a desk"


def example() -> tuple[str, list[str]]:
    """The section's shell block and the lines its text blocks promise."""
    text = GUIDE.read_text()
    start = text.index(HEADING)
    end = text.find("\n## ", start)
    section = text[start : end if end > 0 else None]
    [script] = re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    shown = re.findall(r"^```text\n(.*?)^```$", section, re.S | re.M)
    return script, [line for block in shown for line in block.splitlines() if line.strip()]


def test_the_example_is_found() -> None:
    script, lines = example()
    assert "tabane recall" in script and "--preset work" in script
    assert any(line.startswith("the document ") for line in lines)


@pytest.mark.slow
def test_the_docs_and_desk_example_runs_as_written(tmp_path: Path) -> None:
    script, lines = example()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABANE_")}
    env |= {"TABANE_HOME": str(tmp_path / "home"), "TABANE_PG_IDLE_SECONDS": "0"}
    env |= {"TABANE_RESIDENT_SECONDS": "0"}  # no resident process outliving the test
    # `tabane` is this interpreter's (the code under test), whatever else is on the PATH
    script = f'tabane() {{ "{sys.executable}" -m tabane.cli.main "$@"; }}\n{script}'
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out = done.stdout.splitlines()
    missing = [line for line in lines if line not in out]
    assert not missing, (missing, done.stdout[-4000:])
