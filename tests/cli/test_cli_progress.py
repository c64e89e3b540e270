"""Ingest's and sync's progress: the total is known before the first file, each file done is
counted once, and the bar's last frame reads the final count in its unit with an ETA. (The bar
once counted `50/?` while 55 files were created: it had no total, and being transient it erased
its last frame, so what a person saw was whichever frame the 10 Hz refresh drew last.)"""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.cli.progress import bar
from tabane.principal import Principal
from tabane.service import Tabane

FILES = 55


def _folder(root: Path) -> Path:
    root.mkdir()
    for n in range(FILES):
        (root / f"p{n}.md").write_text(f"# Page {n}\n\nThe kettle note number {n}.\n")
    (root / ".hidden.md").write_text("# Hidden\n\nA file the walk blocks.\n")
    return root


def test_ingest_plans_every_file_before_the_first_and_counts_each_once(
    svc: Tabane, user: Principal, context: str, tmp_path: Path
) -> None:
    folder = _folder(tmp_path / "notes")
    events: list[object] = []
    report = svc.ingest_paths(
        user, context, [folder], progress=events.append, planned=lambda n: events.append(n)
    )
    assert events[0] == FILES and len(events) == FILES + 1
    assert sorted(events[1:]) == sorted(f.path for f in report.files)  # type: ignore[type-var]
    assert report.counts() == {"created": FILES}


def test_sync_plans_the_files_it_walks_and_reports_the_retracted_besides(
    svc: Tabane, user: Principal, context: str, tmp_path: Path
) -> None:
    folder = _folder(tmp_path / "desk")
    assert svc.sync(user, context, folder).counts() == {"created": FILES}
    for n in range(5):
        (folder / f"p{n}.md").unlink()
    planned: list[int] = []
    done: list[str] = []
    report = svc.sync(user, context, folder, progress=done.append, planned=planned.append)
    assert planned == [FILES - 5] and len(done) == FILES - 5
    assert report.counts() == {"unchanged": FILES - 5, "retracted": 5}


def test_the_bar_ends_on_the_final_count_with_its_unit_and_an_eta() -> None:
    out = io.StringIO()
    screen = Console(file=out, force_terminal=True, color_system=None, width=120)
    with bar("ingest", "files", screen) as shown:
        shown.plan(FILES)
        for n in range(FILES):
            shown.step(f"p{n}.md")
    frames = [f for f in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()))]
    last = [f for f in frames if f.strip()][-1]
    assert re.search(rf"^ingest .* {FILES}/{FILES} files eta 0:00:00\s*$", last), last
    counts = {m.group(1) for f in frames for m in re.finditer(r"\d+/(\S+) files", f)}
    assert counts <= {str(FILES), "?"}  # `?` only in a frame drawn before the total was told


def test_the_cli_summary_of_an_ingest_is_a_line(
    tabane_home: Path, user: Principal, context: str, tmp_path: Path
) -> None:
    folder = _folder(tmp_path / "cli")
    env = {"TABANE_HOME": str(tabane_home), "TABANE_USER": user.name,
           "TABANE_EMBEDDER": "none", "TABANE_WORKER": "off"}  # fmt: skip
    ran = CliRunner().invoke(app, ["ingest", str(folder), "-c", context], env=env)
    assert ran.exit_code == 0, ran.stderr
    assert ran.stdout == f"{FILES} created; {FILES} paragraph(s) stored\n"
