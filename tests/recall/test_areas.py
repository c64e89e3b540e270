"""The area catalog: one recall candidate per (context, area) with live sources — its sources by
state and its newest titles — areas the question names first, over the rows the caller sees."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from sqlalchemy import select

from tabane.ingest.documents import DocumentInput
from tabane.principal import Principal
from tabane.recall.evidence import Candidate, area_text, evidence
from tabane.recall.gather import gather
from tabane.recall.plan import PLANS, RecallRequest, Tunables
from tabane.search.search import QueryVector
from tabane.service import Tabane
from tabane.storage.schema import Context, Source

NO_VECTOR = QueryVector(None, None, None, "no_embedder")


def _put(
    svc: Tabane,
    user: Principal,
    ctx: str,
    sid: str,
    title: str,
    area: str | None,
    state: str = "active",
    day: str = "2026-01-01",
    scopes: list[str] | None = None,
) -> None:
    text = f"{title} notes.\n\nMore about {title}.\n".encode()
    doc = DocumentInput(sid, data=text, title=title, area=area, state=state, date=day)
    if scopes is not None:
        doc = DocumentInput(sid, data=text, title=title, area=area, date=day, scopes=scopes)
    svc.ingest(user, ctx, doc)


def _areas(svc: Tabane, user: Principal, ctx: str, question: str, **tune: int) -> list[Candidate]:
    with svc.store.session(user) as session:
        context = session.scalars(select(Context).where(Context.name == ctx)).one()
        got = gather(session, question, [context], [None], NO_VECTOR, None,
                     tunables=Tunables(**tune))  # fmt: skip
    found = [c for c in got.candidates if c.kind == "area"]
    assert got.lanes["areas"].ran and got.lanes["areas"].hits == len(found)
    return sorted(found, key=lambda c: c.lanes[0].rank)


def _pk(svc: Tabane, user: Principal, sid: str) -> int:
    with svc.store.session(user) as session:
        return int(session.scalar(select(Source.id).where(Source.source_id == sid)))


@pytest.fixture
def desk(svc: Tabane, user: Principal, context: str) -> str:
    _put(svc, user, context, "work/a.md", "Roadmap", "Work", day="2026-01-03")
    _put(svc, user, context, "work/b.md", "Budget", "Work", "waiting", day="2026-01-02")
    _put(svc, user, context, "work/c.md", "Hiring", "Work", "done", day="2026-01-01")
    _put(svc, user, context, "work/d.md", "Old plan", "Work", day="2026-02-01")
    svc.retract(user, context, "work/d.md")  # retracted: neither counted nor dated
    _put(svc, user, context, "home/e.md", "Garden", "Home", "someday", day="2025-12-01")
    _put(svc, user, context, "jp.md", "会議", "仕事", day="2025-06-01")
    _put(svc, user, context, "x.md", "Groceries", "Errands", day="2025-01-01")
    _put(svc, user, context, "n.md", "Loose note", None, day="2026-03-01")
    _put(svc, user, context, "blank.md", "Blank", "  ", day="2026-03-01")
    return context


@pytest.mark.slow
def test_every_area_by_recency_when_none_is_named(svc: Tabane, user: Principal, desk) -> None:
    got = _areas(svc, user, desk, "what areas do I have?")
    assert [(c.row.area, c.lanes[0].rank, c.lanes[0].score) for c in got] == [
        ("Work", 1, 0.0),
        ("Home", 2, 0.0),
        ("仕事", 3, 0.0),
    ]
    work = got[0]
    assert work.key == f"g:{_pk(svc, user, 'work/a.md')}"  # the area's smallest source id
    item = evidence(work, {}, None)
    assert item.text == (
        "area Work: 3 sources (1 active, 1 waiting, 1 done); newest: Roadmap · Budget · Hiring"
    )
    assert item.provenance == "derived memory"
    assert (item.citation.context, item.citation.title) == (desk, "area Work")
    assert item.when is not None and item.when.date() == date(2026, 1, 3)
    assert [s.name for s in item.scopes] == [f"user:{user.name}"]
    # bounded by area_limit; deterministic
    wider = _areas(svc, user, desk, "what areas do I have?", area_limit=10)
    assert [c.row.area for c in wider] == ["Work", "Home", "仕事", "Errands"]
    assert [c.key for c in _areas(svc, user, desk, "what areas do I have?")] == [c.key for c in got]


@pytest.mark.slow
def test_a_named_area_comes_first(svc: Tabane, user: Principal, desk) -> None:
    got = _areas(svc, user, desk, "What is left in my ERRANDS?")
    assert [(c.row.area, c.lanes[0].score) for c in got] == [
        ("Errands", 1.0),
        ("Work", 0.0),
        ("Home", 0.0),
    ]
    assert evidence(got[0], {}, None).text == "area Errands: 1 source (1 active); newest: Groceries"
    # on word boundaries where words are spaced, anywhere inside a script written without spaces
    assert _areas(svc, user, desk, "homework for today")[0].lanes[0].score == 0.0
    assert _areas(svc, user, desk, "(work) today")[0].lanes[0].score == 1.0
    named = _areas(svc, user, desk, "仕事の予定は？")[0]
    assert (named.row.area, named.lanes[0].score) == ("仕事", 1.0)


def test_the_plans_that_carry_the_lane(svc: Tabane, user: Principal, desk) -> None:
    assert "areas" in PLANS["maximal"] and "areas" in PLANS["lexical_only"]
    with svc.store.session(user) as session:
        context = session.scalars(select(Context).where(Context.name == desk)).one()
        got = gather(session, "what areas?", [context], [None], NO_VECTOR, None,
                     plan="sources_only")  # fmt: skip
    assert got.lanes["areas"].reason == "not_in_plan"
    assert not [c for c in got.candidates if c.kind == "area"]


def test_counts_titles_and_scopes_are_the_callers(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    owner = make_user(extra_write=("team:areas",))
    mate = make_user(extra_read=("team:areas",))
    ctx = make_context(owner, scopes=["team:areas"])
    private = [f"user:{owner.name}", "team:areas"]
    _put(svc, owner, ctx, "secret.md", "Secret plan", "Work", day="2026-02-01", scopes=private)
    _put(svc, owner, ctx, "shared.md", "Shared plan", "Work", day="2026-01-01")
    _put(svc, owner, ctx, "hidden.md", "Hidden", "Private area", scopes=private)
    mine = _areas(svc, owner, ctx, "what areas?")
    theirs = _areas(svc, mate, ctx, "what areas?")
    assert sorted(c.row.area for c in mine) == ["Private area", "Work"]
    assert [c.row.area for c in theirs] == ["Work"]
    seen = evidence(theirs[0], {}, None)
    assert seen.text == "area Work: 1 source (1 active); newest: Shared plan"
    assert theirs[0].key == f"g:{_pk(svc, owner, 'shared.md')}"
    assert [s.name for s in seen.scopes] == ["team:areas"]
    work = next(c for c in mine if c.row.area == "Work")
    assert work.key == f"g:{_pk(svc, owner, 'secret.md')}"
    assert [s.name for s in evidence(work, {}, None).scopes] == sorted(private)
    assert "Secret" in evidence(work, {}, None).text


def test_recall_serves_the_area_items(svc: Tabane, user: Principal, desk) -> None:
    result = svc.recall(user, RecallRequest("what areas do I have?", (desk,), force=True))
    areas = [it for it in result.items if it.kind == "area"]
    assert [it.citation.title for it in areas] == ["area Work", "area Home", "area 仕事"]
    assert "area Home: 1 source (1 someday); newest: Garden" in result.rendered
    traced = {c.key: c.outcome for c in result.trace.candidates}
    assert all(traced[it.key] == "served" for it in areas)


def test_area_text() -> None:
    assert area_text(" Big   Area ", [0, 2, 0, 0, 1], ["A  b", "C"]) == (
        "area Big Area: 3 sources (2 waiting, 1 archived); newest: A b · C"
    )
    assert area_text("X", [1, 0, 0, 0, 0], []) == "area X: 1 source (1 active)"
