"""`tabane export` and `tabane import`: a file written by one, read by the other; refusals
name the option."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabane.cli.main import app
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def _store(svc: Tabane, owner: Principal, context: str) -> None:
    svc.ingest(owner, context, DocumentInput("a.md", data="# A\n\nÜber\u2028alles.".encode()))
    svc.add_claims(owner, context, [ClaimInput("a", "has", "b", 1.0, source="a.md", paragraph=0)])


def test_the_cli_exports_to_a_file_and_imports_it(
    svc: Tabane, tabane_home: Path, user: Principal, context: str, tmp_path: Path
) -> None:
    _store(svc, user, context)
    runner = CliRunner()
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    archive = tmp_path / "a.jsonl"
    done = runner.invoke(app, ["export", context, "--out", str(archive), "--json"], env=env)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout) == {
        "context": context,
        "out": str(archive),
        "sources": 1,
        "paragraphs": 1,
        "claims": 1,
        "aliases": 0,
    }
    copy = unique("copy")
    done = runner.invoke(app, ["import", str(archive), "--context", copy, "--json"], env=env)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["context"] == copy
    assert [s.source_id for s in svc.list_sources(user, copy).sources] == ["a.md"]
    piped = runner.invoke(
        app, ["import", "-", "--context", unique("c")], input=archive.read_text(), env=env
    )
    assert piped.exit_code == 0, piped.stderr
    refused = runner.invoke(app, ["import", str(archive), "--context", copy], env=env)
    assert refused.exit_code == 2 and "--context: taken" in refused.stderr
    refused = runner.invoke(app, ["import", str(archive), "--map", "org:nope=org:x"], env=env)
    assert refused.exit_code == 2 and "--map: not in the archive" in refused.stderr
    refused = runner.invoke(app, ["import", str(tmp_path / "none.jsonl")], env=env)
    assert refused.exit_code == 2 and refused.stderr.startswith(
        "error [invalid_input]: cannot read"
    )


def test_an_open_locator_travels_through_the_cli_unchanged(
    svc: Tabane, tabane_home: Path, user: Principal, context: str, tmp_path: Path
) -> None:
    """Taguru's `{kind, value}` locator (decision 0023): exported, imported and cited by the CLI
    as it was stored."""
    sheet = {"kind": "sheet", "value": "Q3!A1:C4"}
    paragraphs = [block("Revenue by region.", locator=sheet)]
    svc.ingest(user, context, DocumentInput("q3.xlsx", paragraphs=paragraphs))
    runner = CliRunner()
    env = {
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    archive = tmp_path / "q3.jsonl"
    done = runner.invoke(app, ["export", context, "--out", str(archive)], env=env)
    assert done.exit_code == 0, done.stderr
    lines = [json.loads(line) for line in archive.read_text().splitlines()]
    stored = [p["locator"] for d in lines if "source" in d for p in d["source"]["paragraphs"]]
    assert stored == [sheet]
    copy = unique("copy")
    done = runner.invoke(app, ["import", str(archive), "--context", copy], env=env)
    assert done.exit_code == 0, done.stderr
    cited = runner.invoke(app, ["sources", "cite", "q3.xlsx", "0", "-c", copy, "--json"], env=env)
    assert cited.exit_code == 0, cited.stderr
    assert json.loads(cited.stdout)["locator"] == sheet
