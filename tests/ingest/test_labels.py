"""A source's area, state, tags and date: stated by the caller (`--area/--state/--tag` on
ingest and sync) or by the file's front matter, never assumed. A source with an area and no
explicit state is no active project (issue 34, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

FRONT = """---
title: Kitchen renovation
area: Home
state: waiting
tags: [house, budget]
date: 2026-03-01
---
# Kitchen renovation

The quote for the new cabinets arrives next week.
"""


def _info(svc: Tabane, user: Principal, ctx: str, sid: str):
    info, _ = svc.lookup(user, ctx, sid)
    return info


def test_an_area_without_a_state_is_no_project(svc: Tabane, user: Principal, context: str):
    memo = [block("The merger memo is due on Friday.")]
    svc.ingest(user, context, DocumentInput("memo.md", paragraphs=memo, area="Work"))
    plan = [block("The launch plan is ready for review.")]
    svc.ingest(
        user, context, DocumentInput("plan.md", paragraphs=plan, area="Work", state="active")
    )
    assert _info(svc, user, context, "memo.md").state is None
    assert _info(svc, user, context, "plan.md").state == "active"
    got = svc.recall(user, RecallRequest("which projects are there?", (context,), force=True))
    projects = [it.citation.source for it in got.items if it.kind == "catalog"]
    assert projects == ["plan.md"]  # the memo, with an area and no state, is not one
    [area] = [it for it in got.items if it.kind == "area"]
    assert area.text.startswith("area Work: 2 sources (1 active)")


def test_front_matter_gives_area_state_tags_and_date(svc: Tabane, user: Principal, context: str):
    svc.ingest(user, context, DocumentInput("kitchen.md", data=FRONT.encode()))
    info = _info(svc, user, context, "kitchen.md")
    assert (info.area, info.state, info.tags) == ("Home", "waiting", ("house", "budget"))
    assert info.date is not None and info.date.date().isoformat() == "2026-03-01"
    # what the caller says wins over the file
    doc = DocumentInput("kitchen.md", data=FRONT.encode(), area="House", state="done")
    svc.ingest(user, context, doc)
    assert (_info(svc, user, context, "kitchen.md").area,) == ("House",)
    assert _info(svc, user, context, "kitchen.md").state == "done"


def test_an_unknown_state_in_front_matter_is_a_warning(svc: Tabane, user: Principal, context):
    text = FRONT.replace("state: waiting", "state: doing")
    result = svc.ingest(user, context, DocumentInput("odd.md", data=text.encode()))
    assert [w.path for w in result.warnings] == ["front_matter.state"]
    assert _info(svc, user, context, "odd.md").state is None


@pytest.mark.slow
def test_ingest_and_sync_take_area_state_and_tags(
    tabane_home: Path, user: Principal, context: str, svc: Tabane, tmp_path: Path
) -> None:
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe first note.\n")
    (folder / "b.md").write_text(FRONT)
    env = {"TABANE_HOME": str(tabane_home), "TABANE_USER": user.name,
           "TABANE_EMBEDDER": "none", "TABANE_WORKER": "off"}  # fmt: skip
    runner = CliRunner()
    labels = ["--area", "Desk", "--state", "someday", "--tag", "x", "--tag", "y"]
    ran = runner.invoke(app, ["sync", str(folder), "-c", context, *labels], env=env)
    assert ran.exit_code == 0, ran.stderr
    a, b = _info(svc, user, context, "a.md"), _info(svc, user, context, "b.md")
    assert (a.area, a.state, a.tags) == ("Desk", "someday", ("x", "y"))
    assert (b.area, b.state, b.tags) == ("Desk", "someday", ("x", "y"))  # the flags win
    single = folder / "c.md"
    single.write_text("# C\n\nA loose note.\n")
    ran = runner.invoke(app, ["ingest", str(single), "-c", context, "--area", "Loose"], env=env)
    assert ran.exit_code == 0, ran.stderr
    c = _info(svc, user, context, str(single))
    assert (c.area, c.state, c.tags) == ("Loose", None, ())
    bad = runner.invoke(app, ["ingest", str(single), "-c", context, "--state", "doing"], env=env)
    assert bad.exit_code == 2 and bad.stderr.startswith("error [invalid_input]")
    assert "  --state: " in bad.stderr  # named as typed
