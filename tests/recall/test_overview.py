"""The corpus map against the real store: grouping, sections, visibility, retraction, the cut."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.recall.overview import corpus_map
from tabane.service import Tabane
from tabane.storage.schema import Context

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def _md(title: str, *sections: str) -> bytes:
    body = [f"# {title}", "", f"About {title}."]
    for section in sections:
        body += ["", f"## {section}", "", f"Text of {section}."]
    return "\n".join(body).encode()


def _ingest(svc: Tabane, user: Principal, ctx: str, source_id: str, data: bytes, **kw) -> None:
    svc.ingest(user, ctx, DocumentInput(source_id=source_id, data=data, **kw))


def _ids(svc: Tabane, user: Principal, *names: str) -> list[int]:
    with svc.store.session(user) as session:
        return [int(session.scalar(select(Context.id).where(Context.name == n))) for n in names]


def _map(svc: Tabane, user: Principal, ids: list[int], budget: int) -> str:
    with svc.store.session(user) as session:
        return corpus_map(session, ids, budget)


@pytest.fixture
def corpus(svc: Tabane, user: Principal, make_context: Callable[..., str]) -> tuple[str, str]:
    docs = make_context(description="the shared documentation")
    _ingest(svc, user, docs, "guide/start.md", _md("Getting Started", "Install", "Configure"))
    _ingest(svc, user, docs, "guide/scopes.md", _md("Scopes", "Reading", "Writing"))
    _ingest(svc, user, docs, "readme.md", _md("Readme"))
    _ingest(svc, user, docs, "notes/roadmap.md", _md("Roadmap", "Q1", "Q2"), area="Work")
    _ingest(svc, user, docs, "guide/old.md", _md("Old Guide", "Gone"))
    svc.retract(user, docs, "guide/old.md")
    two_roots = b"# Part One\n\nOne.\n\n# Part Two\n\nTwo.\n\n## Deeper\n\nThree.\n"
    _ingest(svc, user, docs, "api/parts.md", two_roots, title="Parts")
    desk = make_context()
    _ingest(svc, user, desk, "todo.txt", b"buy milk\n\nwrite tests\n")
    return docs, desk


def test_the_whole_map_when_it_fits(svc: Tabane, user: Principal, corpus) -> None:
    docs, desk = corpus
    got = _map(svc, user, _ids(svc, user, desk, docs, desk), 10_000)
    docs_header = next(line for line in got.splitlines() if line.startswith(docs))
    assert got.splitlines() == [
        f"{desk} (1 source, 2 paragraphs)",
        "  (top level) (1 source, 2 paragraphs)",
        "    - [todo.txt] (2 paragraphs)",
        docs_header,
        "  area: Work (1 source, 3 paragraphs)",
        "    - Roadmap [notes/roadmap.md] (3 paragraphs): Q1 · Q2",
        "  (top level) (1 source, 1 paragraph)",
        "    - Readme [readme.md] (1 paragraph)",
        "  api/ (1 source, 3 paragraphs)",
        "    - Parts [parts.md] (3 paragraphs): Part One · Part Two",
        "  guide/ (2 sources, 6 paragraphs)",
        "    - Scopes [scopes.md] (3 paragraphs): Reading · Writing",
        "    - Getting Started [start.md] (3 paragraphs): Install · Configure",
    ]
    assert docs_header == f"{docs} — the shared documentation (5 sources, 13 paragraphs)"
    assert "Old Guide" not in got  # retracted
    # deterministic, and the caller's order of contexts decides the order of blocks
    assert _map(svc, user, _ids(svc, user, desk, docs), 10_000) == got
    flipped = _map(svc, user, _ids(svc, user, docs, desk), 10_000)
    assert flipped.splitlines()[0] == docs_header


def test_the_cut_keeps_headings_and_counts_what_was_left_out(
    svc: Tabane, user: Principal, corpus
) -> None:
    docs, desk = corpus
    ids = _ids(svc, user, docs, desk)
    full = _map(svc, user, ids, 10_000)
    for budget in range(1, len(full) + 5):
        got = _map(svc, user, ids, budget)
        assert len(got) <= budget
        if budget >= len(full):
            assert got == full
    cut = _map(svc, user, ids, 185 + len(docs) + len(desk))  # room that names do not eat
    lines = cut.splitlines()
    assert lines[-1].endswith("of 6 sources left out")
    shown = sum(1 for line in lines if line.startswith("    - "))
    assert lines[-1] == f"… {6 - shown} of 6 sources left out"
    # both contexts keep their heading; the small one is shown whole
    assert lines[0].startswith(docs) and any(line.startswith(desk) for line in lines)
    assert "    - [todo.txt] (2 paragraphs)" in lines
    # no folder heading without a source under it
    for i, line in enumerate(lines[:-1]):
        if line.startswith("  ") and not line.startswith("    "):
            assert lines[i + 1].startswith("    - ")
    # a cut map is a prefix of each context's full block
    full_lines = full.splitlines()
    assert [line for line in lines[:-1] if line not in full_lines] == []


def test_only_visible_contexts_and_sources(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = make_context(alice), make_context(bob)
    _ingest(svc, alice, mine, "a.md", _md("Alpha", "One"))
    _ingest(svc, bob, theirs, "secret.md", _md("Secret Plan", "Hidden"))
    ids = _ids(svc, alice, mine) + _ids(svc, bob, theirs)
    got = _map(svc, alice, ids, 5000)
    assert "Secret" not in got and theirs not in got
    assert got.splitlines()[-1] == "    - Alpha [a.md] (2 paragraphs): One"
    assert _map(svc, alice, [], 5000) == ""


def test_a_large_folder_is_cut_in_source_order(svc: Tabane, user: Principal, context: str) -> None:
    for i in range(60):
        _ingest(svc, user, context, f"pages/p{i:02}.md", _md(f"Page {i:02}", "Body"))
    ids = _ids(svc, user, context)
    got = _map(svc, user, ids, 400)
    lines = got.splitlines()
    assert len(got) <= 400
    assert lines[1] == "  pages/ (60 sources, 120 paragraphs)"
    assert lines[2] == "    - Page 00 [p00.md] (2 paragraphs): Body"
    shown = len(lines) - 3
    assert lines[-1] == f"… {60 - shown} of 60 sources left out"


def test_budget_must_be_positive(svc: Tabane, user: Principal) -> None:
    with svc.store.session(user) as session, pytest.raises(InvalidInput) as caught:
        corpus_map(session, [1], 0)
    assert caught.value.issues[0].path == "overview_chars"
