"""The CLI for a person: every command takes `--json` (today's JSON, for scripts) and has clean
help; without it results print as text and tables — search hits with title and section, recall's
bundle with its citations and a line of what the plan did, a write's one-line confirmation."""

from __future__ import annotations

import io
import json
import re
import sys
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tabane.cli import reference
from tabane.cli.common import as_json
from tabane.cli.main import app
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
]
# Typer's own type placeholders (`<str>`, `<list[str]>`, `<bool>`) and usage braces (`{query}`).
PLACEHOLDER = re.compile(r"<[A-Za-z_][\w\[\], |.]*>|\{[a-z_]+\}")


def leaves() -> list[tuple[tuple[str, ...], Any]]:
    root = typer.main.get_command(app)
    return [(p, c) for p, c in reference.walk(root, ()) if not hasattr(c, "commands")]


def test_every_command_takes_json_by_construction() -> None:
    missing = [" ".join(p) for p, c in leaves() if not any("--json" in x.opts for x in c.params)]
    assert missing == []
    assert len(leaves()) > 60  # the walk reached the subcommands


def test_every_help_is_clean_and_keeps_its_examples_whole() -> None:
    runner = CliRunner()
    root = typer.main.get_command(app)
    for path, cmd in reference.walk(root, ()):
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert shown.exit_code == 0, path
        lines = shown.stdout.splitlines()
        assert not [line for line in lines if PLACEHOLDER.search(line)], (path, shown.stdout)
        examples = [e.strip() for e in re.findall(r"Examples?: [^\n]*", cmd.help or "")]
        for example in examples:  # each on one line: a command line is never split
            assert any(line.strip() == example for line in lines), (path, example)
        wide = [line for line in lines if len(line) > 80 and line.strip() not in examples]
        assert wide == [], (path, wide)


@pytest.fixture
def stored(svc: Tabane, user: Principal, context: str) -> str:
    paragraphs = [block(t, section=("Care", "Descaling")) for t in KETTLE]
    svc.ingest(
        user, context, DocumentInput(source_id="kettle", paragraphs=paragraphs, title="Kettle")
    )
    return context


def test_search_shows_ranked_hits_with_title_section_snippet_and_lanes(person, stored: str) -> None:
    code, out, _ = person("search", "descale the element with vinegar", "-c", stored)
    assert code == 0
    assert out.splitlines()[0] == " 1. Kettle › Care › Descaling"
    assert "    Descale the heating element with vinegar once a month" in out
    assert f"{stored}:kettle ¶1  lanes bm25#1  score " in out
    assert f"{stored}: lanes bm25 " in out and "did not run: vector (no_embedder)" in out
    assert "\x1b" not in out and not out.lstrip().startswith("{")  # no colour off a terminal
    code, raw, _ = person("search", "descale the element with vinegar", "-c", stored, "--json")
    assert code == 0 and json.loads(raw)["hits"][0]["title"] == "Kettle"


def test_recall_shows_the_bundle_with_citations_and_what_the_plan_did(person, stored: str) -> None:
    code, out, _ = person("recall", "how do I remove limescale with vinegar?", "-c", stored)
    assert code == 0
    assert '"Kettle" (kettle), Care > Descaling, paragraph 1' in out
    footer = out.rstrip().splitlines()[-1]
    assert footer.startswith(f"— plan maximal; contexts {stored}; lanes ")
    assert "bm25 " in footer and " tokens; " in footer
    assert re.search(r"; off: vector(, \w+)* \(no_embedder\)", footer), footer


def test_json_is_todays_json(person, svc: Tabane, user: Principal, stored: str) -> None:
    code, out, _ = person("sources", "list", "-c", stored, "--json")
    assert code == 0 and out == as_json(svc.list_sources(user, stored)) + "\n"
    code, out, _ = person("sources", "list", "-c", stored)
    assert code == 0 and "kettle" in out and "Kettle" in out and '"source_id"' not in out


def test_writes_confirm_in_a_line_and_lists_are_tables(person, stored: str) -> None:
    name = unique("ctx")
    code, out, _ = person("contexts", "create", name, "--description", "my notes")
    assert code == 0 and out.startswith(f"created context {name} (scopes user:")
    code, out, _ = person("contexts", "list")
    header = out.splitlines()[0].split()
    assert code == 0 and header[:3] == ["name", "sources", "paragraphs"]
    assert any(line.split()[:3] == [stored, "1", "2"] for line in out.splitlines())
    code, out, _ = person("jobs", "--limit", "5")
    assert code == 0 and re.search(r"^\d+ active \(queued or running\)$", out, re.MULTILINE)
    code, out, _ = person("contexts", "delete", name)
    assert code == 0 and out == f"deleted context {name}\n"


def test_an_error_still_prints_its_stable_code(person) -> None:
    missing = unique("none")
    code, out, err = person("contexts", "show", missing)
    assert code == 2 and out == ""
    assert err.startswith(f"error [no_context]: no context {missing!r}")
    code, _, err = person("search", "kettle", "-c", missing, "--limit", "0")
    assert code == 2 and err.startswith("error [invalid_input]")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabane.cli import render

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert render.console().color_system is not None
    monkeypatch.setenv("NO_COLOR", "1")
    assert render.console().color_system is None
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # a pipe
    assert render.console().color_system is None


def test_graph_reads_and_a_citation_read_as_text(cli, person, context: str, stored: str) -> None:
    chain = [
        {"subject": "stress", "label": "causes", "object": "insomnia", "weight": 1.0},
        {"subject": "insomnia", "label": "causes", "object": "fatigue", "weight": 0.5},
    ]
    assert cli("associations", "add", context, "-", stdin=json.dumps(chain))[0] == 0
    code, out, _ = person("query", "-c", context, "-s", "stress")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["subject", "label", "object", "weight"]
    assert lines[1].split()[:4] == ["stress", "causes", "insomnia", "1.000"]
    assert lines[-1] == "1 of 1"
    code, out, _ = person("resolve", context, "Stress")
    assert code == 0 and out.splitlines()[0].strip() == "lexical tier"
    assert out.splitlines()[2].split()[:3] == ["1", "stress", "exact"]
    assert "semantic tier did not run" in out  # no embedder in these tests: said, not hidden
    code, out, _ = person("paths", "--from", "stress", "--to", "fatigue", "-c", context)
    assert code == 0
    assert out.splitlines()[0] == "stress —causes (1.000)→ insomnia —causes (0.500)→ fatigue"
    code, out, _ = person("activate", "stress", "-c", context)
    assert code == 0 and out.splitlines()[0].split()[:3] == ["concept", "activation", "hops"]
    code, out, _ = person("sources", "cite", "kettle", "1", "-c", stored)
    assert code == 0
    assert out.splitlines()[0] == "Kettle › Care › Descaling"
    assert out.splitlines()[-1] == "kettle ¶1" and KETTLE[1] in out
