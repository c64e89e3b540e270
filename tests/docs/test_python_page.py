"""docs/python.md runs: every ```python block, in order, as one program in an empty folder whose
`my-memory` is TABANE_HOME (a fresh embedded store of its own), each `# → TEXT` output checked."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "python.md"
RUNNER = Path(__file__).with_name("page_runner.py")


@pytest.mark.slow
def test_the_python_page_runs_and_prints_what_it_says(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABANE_")}
    env |= {"TABANE_HOME": str(tmp_path / "my-memory"), "TABANE_PG_IDLE_SECONDS": "0"}
    env |= {"TABANE_RESIDENT_SECONDS": "0"}
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(PAGE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    blocks = len(re.findall(r"^```python$", PAGE.read_text(), re.M))
    assert sorted(report["ran"] + report["skipped"]) == list(range(1, blocks + 1))
    extras = ("langchain_core", "llama_index")
    if all(importlib.util.find_spec(m) for m in extras):
        assert report["skipped"] == []
    assert report["wrong"] == {}
    assert report["checked"] >= 20


def test_the_readme_links_the_page() -> None:
    assert "(docs/python.md)" in (ROOT / "README.md").read_text()
