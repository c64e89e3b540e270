"""`tabane eval …` refuses what it cannot run as invalid_input at the option or set that is
wrong, before it loads or writes anything — never a traceback, never after the work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

MEMORY = {
    "conversations": [
        {"id": "c1", "participants": ["Ana", "Ben"], "sessions": [
            {"id": "c1-s1", "date": "2023-01-05", "turns": [
                {"id": "c1-s1-t1", "speaker": "Ana", "text": "I moved to Lisbon."}]}]}
    ],
    "questions": [
        {"id": "q1", "conversation": "c1", "asker": "Ben", "category": "single-hop",
         "question": "Where did Ana move?", "evidence": ["c1-s1-t1"]},
    ],
}  # fmt: skip
GRAPH = {
    "contexts": [
        {"name": "c1", "passages": {"p1": "A likes B very much."},
         "associations": [{"subject": "A", "label": "likes", "object": "B", "weight": 1.0,
                           "source": "p1"}]}
    ],
    "questions": [
        {"id": "g1", "context": "c1", "question": "What does A like?", "cue_spellings": ["A"],
         "resolves_to": {"A": "A"}, "needed": [["A", "likes", "B"]], "hops": 1,
         "kind": "lookup"},
    ],
}  # fmt: skip


@pytest.fixture
def sets(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.txt").write_text("zebra migration on the savanna\n")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        json.dumps({"id": "q1", "question": "zebra", "corpus": "tiny", "relevant": {"a.txt": 2}})
    )
    out = {"root": root, "docs": docs}
    for name, data in (("memory", MEMORY), ("graph", GRAPH)):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(data))
    return out


def test_an_unreadable_docs_set_is_invalid_input(cli: Any, sets: dict[str, Path]) -> None:
    root = str(sets["root"])
    for bad in (sets["root"].parent / "none.jsonl", sets["root"]):
        code, _, err = cli("eval", "docs", str(bad), "--corpus-root", root)
        assert code == 2 and err.startswith(f"error [invalid_input]: {bad} cannot be read")
        assert "\n  set: " in err


def test_a_graph_question_naming_an_unknown_context_is_invalid_input(
    cli: Any, sets: dict[str, Path], tmp_path: Path
) -> None:
    path = tmp_path / "stray.json"
    path.write_text(json.dumps({**GRAPH, "questions": [{**GRAPH["questions"][0], "context": "x"}]}))
    code, _, err = cli("eval", "graph", str(path), "--prefix", unique("g"))
    assert code == 2 and "questions[0].context: g1: no context 'x'; known: c1" in err


@pytest.mark.parametrize(
    ("command", "args", "line"),
    [
        ("docs", ["--plan", "maximal", "--plan", "bogus"],
         "--plan: unknown plan 'bogus'; known: lexical_only, maximal"),
        ("docs", ["--budget", "0"], "--budget: budget 0 is not in 1..200000"),
        ("graph", ["--plan", "bogus"], "--plan: unknown plan 'bogus'"),
        ("graph", ["--limit", "-5"], "--limit: limit -5 is not in 1..1000"),
        ("graph", ["--limit", "0"], "--limit: limit 0 is not in 1..1000"),
        ("graph", ["--budget", "0", "--plan", "maximal"], "--budget: budget 0 is not in"),
        ("graph", ["--semantic-floor", "2"], "--semantic-floor: 2.0 not in [-1.0, 1]"),
        ("memory", ["--loading", "bogus"], "--loading: unknown loading 'bogus'; known: turns"),
        ("memory", ["--budget", "0"], "--budget: budget 0 is not in 1..200000"),
        ("memory", ["--json", "/nonexistent/dir/r.json"], "--json: no folder /nonexistent/dir"),
    ],
)  # fmt: skip
def test_options_are_refused_by_name_before_any_write(
    cli: Any,
    svc: Tabane,
    user: Principal,
    sets: dict[str, Path],
    command: str,
    args: list[str],
    line: str,
) -> None:
    name = unique("e")
    where = {
        "docs": [str(sets["docs"]), "--corpus-root", str(sets["root"]), "--context", name],
        "graph": [str(sets["graph"]), "--prefix", name],
        "memory": [str(sets["memory"]), "--prefix", name],
    }[command]
    code, _, err = cli("eval", command, *where, *args)
    assert code == 2 and err.startswith("error [invalid_input]: ") and f"\n  {line}" in err
    assert "written" not in err
    assert not [c for c in svc.list_contexts(user) if c.name.startswith(name)]
