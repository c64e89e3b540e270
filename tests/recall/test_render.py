"""Rendering recall evidence with Jinja: the default template, custom ones, and template errors
that name their line."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tabane.errors import InvalidInput, TemplateError
from tabane.recall.cite import block, cite
from tabane.recall.render import _compile, load_template, render
from tabane.recall.result import Citation, Evidence, ScopeRef

JST = timezone(timedelta(hours=9))

PARAGRAPH = Evidence(
    key="p:7",
    kind="paragraph",
    text="Decorators wrap a function.\nThey return a new one.",
    provenance="source excerpt",
    citation=Citation(
        context="docs",
        source="tutorial.md",
        paragraph=3,
        section=("Functions", "Decorators"),
        title="Python Tutorial",
    ),
    scopes=(ScopeRef("team", "the team's documents"), ScopeRef("public", "everyone")),
    direct=True,
    tokens=17,
)
CLAIM = Evidence(
    key="c:12",
    kind="claim",
    text="Alice lives in Osaka.",
    provenance="derived memory",
    citation=Citation(context="notes", claim=12),
    scopes=(ScopeRef("alice", "Alice's own"),),
    author="alice",
    when=datetime(2024, 5, 1, 9, 0, tzinfo=UTC),
    tokens=6,
)
TURN = Evidence(
    key="t:4",
    kind="turn",
    text="I moved last week.",
    provenance="recent session memory",
    citation=Citation(session="s-1", turn=4),
    scopes=(ScopeRef("alice", "Alice's own"),),
    author="alice",
    when=datetime(2024, 6, 1, 10, 30, tzinfo=UTC),
    tokens=5,
)


def _fails(template: str) -> TemplateError:
    with pytest.raises(TemplateError) as info:
        render("q", [PARAGRAPH], template=template)
    return info.value


def test_the_default_template_numbers_cites_and_scopes_every_item() -> None:
    got = render(
        "Where does Alice live?",
        [PARAGRAPH, CLAIM, TURN],
        overview="docs: Python Tutorial (Functions, Classes)",
        asker="bob",
    )
    assert got == (
        "Question: Where does Alice live?\n"
        "Asked by: bob\n"
        "\n"
        "Overview:\n"
        "docs: Python Tutorial (Functions, Classes)\n"
        "\n"
        '[1] source excerpt | "Python Tutorial" (tutorial.md), Functions > Decorators, '
        "paragraph 3 | scopes: team, public\n"
        "Decorators wrap a function.\nThey return a new one.\n"
        "\n"
        "[2] derived memory | claim 12, by alice, 2024-05-01 | scopes: alice\n"
        "Alice lives in Osaka.\n"
        "\n"
        "[3] recent session memory | session s-1 turn 4, speaker alice, 2024-06-01 10:30 UTC"
        " | scopes: alice\n"
        "I moved last week."
    )


def test_without_overview_or_asker_the_items_follow_the_question() -> None:
    assert render("q", [CLAIM]) == (
        "Question: q\n\n[1] derived memory | claim 12, by alice, 2024-05-01 | scopes: alice\n"
        "Alice lives in Osaka."
    )


def test_no_items_says_no_evidence_was_found() -> None:
    got = render("What is Bob's birthday?", [])
    assert got.startswith("Question: What is Bob's birthday?\n\n")
    assert "No evidence was found" in got
    assert "not mentioned" in got
    assert "[1]" not in got
    assert "No evidence" not in render("q", [CLAIM])


def test_japanese_and_template_like_text_pass_through_unchanged() -> None:
    item = Evidence(
        key="p:1",
        kind="paragraph",
        text="記憶の設計では「束ね」を使う。{{ items }} と {% raw %} はそのまま。",
        provenance="source excerpt",
        citation=Citation(
            source="設計書.md", paragraph=0, section=("概要", "記憶"), title="設計書"
        ),
        scopes=(ScopeRef("チーム", "チームの文書"),),
    )
    got = render("束ねとは？ {{ question }}", [item], overview="設計書：概要、記憶")
    assert "Question: 束ねとは？ {{ question }}\n" in got
    assert (
        '[1] source excerpt | "設計書" (設計書.md), 概要 > 記憶, paragraph 0 | scopes: チーム\n'
        in got
    )
    assert got.endswith("\n記憶の設計では「束ね」を使う。{{ items }} と {% raw %} はそのまま。")
    assert "Overview:\n設計書：概要、記憶\n" in got
    plain = render("a < b & c", [])  # a prompt, not HTML: nothing is escaped
    assert "a < b & c" in plain
    assert "&amp;" not in plain and "&lt;" not in plain


def test_no_lane_names_scores_or_internal_fields_reach_the_prompt() -> None:
    got = render("Where does Alice live?", [PARAGRAPH, CLAIM, TURN]).lower()
    for word in ("bm25", "vector", "lane", "score", "rank", "rrf", "fused", "token", "direct"):
        assert word not in got
    for key in ("p:7", "c:12", "t:4"):
        assert key not in got


def test_citations_use_what_each_item_has() -> None:
    attributed = Evidence(
        key="c:3",
        kind="claim",
        text="x",
        provenance="derived memory",
        citation=Citation(source="notes.md", paragraph=2, claim=3),
        scopes=(),
        author="carol",
        when=datetime(2024, 1, 2, 23, 0, tzinfo=JST),
    )
    assert cite(attributed) == "notes.md, paragraph 2, claim 3, by carol, 2024-01-02"
    local_turn = Evidence(
        key="t:1",
        kind="turn",
        text="x",
        provenance="recent session memory",
        citation=Citation(session="s", turn=1),
        scopes=(),
        author="dave",
        when=datetime(2024, 1, 2, 23, 0, tzinfo=JST),
    )
    assert cite(local_turn) == "session s turn 1, speaker dave, 2024-01-02 23:00 +0900"
    bare = Evidence("s:1", "catalog", "x", "source excerpt", Citation(), ())
    assert cite(bare) == "uncited"
    assert "scopes: none" in render("q", [bare])


def test_a_custom_template_renders_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.md.j2"
    path.write_text(
        "Q={{ question }}\n"
        "{% for e in items %}\n"
        "- {{ e.text }} <{{ e|cite }}> {{ e.scopes[0].description }}\n"
        "{% endfor %}\n",
        encoding="utf-8",
    )
    text = load_template(path)
    assert render("q?", [PARAGRAPH, CLAIM], template=text) == (
        "Q=q?\n"
        '- Decorators wrap a function.\nThey return a new one. <"Python Tutorial" (tutorial.md), '
        "Functions > Decorators, paragraph 3> the team's documents\n"
        "- Alice lives in Osaka. <claim 12, by alice, 2024-05-01> Alice's own"
    )


def test_the_default_template_text_ships_and_renders_like_the_default() -> None:
    text = load_template(None)
    assert "{% for item in items %}" in text
    assert render("q", [PARAGRAPH], template=text) == render("q", [PARAGRAPH])


def test_a_template_compiles_once_per_text() -> None:
    text = "{{ question }}!"
    assert _compile(text) is _compile(text)
    assert render("a", [], template=text) == "a!"
    assert render("b", [], template=text) == "b!"


def test_a_syntax_error_names_its_line() -> None:
    err = _fails("Question: {{ question }}\n{% for item in items %}\n{% if %}\n{% endfor %}\n")
    assert err.code == "template_error"
    assert isinstance(err, InvalidInput)
    assert err.status == 422
    assert [i.path for i in err.issues] == ["template:3"]
    assert "compile at line 3" in err.message
    unknown_filter = _fails("a\nb\n\n{{ question|shout }}")
    assert [i.path for i in unknown_filter.issues] == ["template:4"]
    assert "shout" in unknown_filter.message


def test_an_undefined_variable_names_its_line() -> None:
    err = _fails(
        "Question: {{ question }}\n\n{% for item in items %}\n{{ item.txet }}\n{% endfor %}"
    )
    assert [i.path for i in err.issues] == ["template:4"]
    assert "render at line 4" in err.message
    assert "txet" in err.message
    nowhere = _fails("{{ question }}\n{{ answer }}")
    assert [i.path for i in nowhere.issues] == ["template:2"]
    assert "'answer' is undefined" in nowhere.issues[0].problem


def test_any_runtime_failure_is_a_template_error() -> None:
    assert [i.path for i in _fails("x\n{{ 1 // 0 }}").issues] == ["template:2"]
    assert [i.path for i in _fails("{{ 3|cite }}").issues] == ["template:1"]
    assert _fails("{% include 'other.j2' %}").code == "template_error"
    macro = _fails("{% macro m() %}\n\n{{ missing }}\n{% endmacro %}\n{{ m() }}")
    assert [i.path for i in macro.issues] == ["template:3"]
    # a value is named as the template knows it, not by its Python class
    typo = _fails("{% for it in items %}{{ it.txt }}{% endfor %}")
    assert typo.issues[0].problem == "'item' has no attribute 'txt'", typo.issues
    typo = _fails("{{ items[0].citation.page }}")
    assert "'item.citation' has no attribute 'page'" in typo.message
    assert "tabane" not in typo.message


@pytest.mark.parametrize(
    "template",
    [
        "{{ ''.__class__.__mro__ }}",
        "{{ items[0].__class__.__init__.__globals__ }}",
        "{{ cite.__globals__ }}",
        "{{ question.__class__ }}",
        "{% set d = {} %}{{ d.update(a=1) }}",
        "{{ items[0].citation.section.__len__() }}",
    ],
)
def test_the_sandbox_refuses_attribute_tricks(template: str) -> None:
    err = _fails(template)
    assert err.code == "template_error"
    assert [i.path for i in err.issues] == ["template:1"]
    assert "unsafe" in err.message or "undefined" in err.message


def test_an_unreadable_or_broken_template_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TemplateError) as missing:
        load_template(tmp_path / "absent.j2")
    assert [i.path for i in missing.value.issues] == ["template"]
    binary = tmp_path / "binary.j2"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(TemplateError):
        load_template(binary)
    broken = tmp_path / "broken.j2"
    broken.write_text("ok\n{{ question \n", encoding="utf-8")
    with pytest.raises(TemplateError) as syntax:
        load_template(broken)
    assert syntax.value.issues[0].path.startswith("template:")


def test_a_failing_template_file_is_named_with_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.j2"
    broken.write_text("Question: {{ question }}\n{% for x in %}\n", encoding="utf-8")
    with pytest.raises(TemplateError) as err:
        load_template(broken)
    assert err.value.issues[0].path == "template:2"
    assert "'broken.j2'" in err.value.message and str(tmp_path) not in err.value.message
    failing = "Question: {{ question }}\n{{ items[5].text }}\n"
    with pytest.raises(TemplateError) as err:
        render("q", [CLAIM], template=failing, name="desk.j2")
    assert "'desk.j2'" in err.value.message and "line 2" in err.value.message
    assert err.value.issues[0].path == "template:2"
    assert err.value.issues[0].problem.startswith("desk.j2: ")


@pytest.mark.parametrize("item", [PARAGRAPH, CLAIM, TURN, replace(PARAGRAPH, in_reply_to="Why?")])
def test_the_budget_counts_each_item_as_the_default_template_writes_it(item: Evidence) -> None:
    """`cite.block` is what the budget measures: it must stay the default template's block."""
    rendered = render("q", [item, item])
    head = "Question: q\n"
    assert rendered.startswith(head)
    one, two = (block(item).replace("[20]", f"[{n}]") for n in (1, 2))
    assert rendered[len(head) :] == (one + two).rstrip("\n")
