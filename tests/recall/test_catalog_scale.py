"""Catalog and area rows on the evidence's scale (recall/scale.py): ranked by how well they match
the question, never above a paragraph that answers it — the issue-34 "kettle" case."""

from __future__ import annotations

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

KETTLE = [
    "To descale the kettle, fill it half with water and half with white vinegar, "
    "let it stand for an hour, then boil it twice with fresh water.",
    "The kettle switches itself off when the water boils.",
]
MEMO = [
    "The merger with Acme closes at the end of the quarter.",
    "Legal reviews the term sheet before the board meeting.",
]
QUESTION = "How do I descale the kettle?"


def _desk(vsvc: Tabane, user, ctx: str) -> None:
    memo = DocumentInput(
        "work/acme.md", paragraphs=[block(t) for t in MEMO], title="Acme Merger Memo",
        area="Work", state="active",
    )  # fmt: skip
    vsvc.ingest(user, ctx, memo)


def _home(vsvc: Tabane, user, ctx: str) -> None:
    doc = DocumentInput("home/kettle.md", paragraphs=[block(t) for t in KETTLE], title="Appliances")
    vsvc.ingest(user, ctx, doc)


def _first_answer(result) -> int:
    return next(i for i, it in enumerate(result.items) if "vinegar" in it.text)


@pytest.mark.slow
def test_the_answer_comes_before_the_catalog_across_contexts(vsvc: Tabane, user, make_context):
    work, home = make_context(), make_context()
    _desk(vsvc, user, work)
    _home(vsvc, user, home)
    vsvc.wait_for_jobs()
    result = vsvc.recall(user, RecallRequest(QUESTION, (work, home), force=True))
    assert _first_answer(result) == 0, [it.citation.title for it in result.items]
    kinds = [it.kind for it in result.items]
    assert "area" in kinds and "catalog" in kinds  # still served, after the answer
    # a catalog row that names nothing of the question ranks behind every passage that does
    catalog = [c for c in result.trace.candidates if c.kind in ("area", "catalog")]
    answer = result.trace.candidates[0]
    assert all(c.fused < answer.fused for c in catalog)


@pytest.mark.slow
def test_the_answer_comes_before_the_catalog_in_one_context(vsvc: Tabane, user, context):
    _desk(vsvc, user, context)
    _home(vsvc, user, context)
    vsvc.wait_for_jobs()
    result = vsvc.recall(user, RecallRequest(QUESTION, (context,), force=True, budget=60))
    assert result.items and _first_answer(result) == 0, [it.citation.title for it in result.items]


@pytest.mark.slow
def test_a_named_area_still_leads(vsvc: Tabane, user, make_context):
    work, home = make_context(), make_context()
    _desk(vsvc, user, work)
    _home(vsvc, user, home)
    vsvc.wait_for_jobs()
    result = vsvc.recall(user, RecallRequest("What is going on in Work?", (work, home), force=True))
    assert result.items[0].kind == "area", [it.citation.title for it in result.items]


def test_without_vectors_the_catalog_follows_the_words(svc: Tabane, user, make_context):
    # no embedder: no passage lane, so the end of the evidence is BM25's last place
    work, home = make_context(), make_context()
    _desk(svc, user, work)
    _home(svc, user, home)
    result = svc.recall(user, RecallRequest(QUESTION, (work, home), force=True))
    assert not result.trace.lanes["vector"].ran
    # (each context's BM25 ranks its own rows: the memo's "the" ties with the answer's words)
    kinds = [it.kind for it in result.items]
    assert _first_answer(result) < min(kinds.index("area"), kinds.index("catalog")), kinds
    bm25 = max(r.rank for c in result.trace.candidates for r in c.lanes if r.lane == "bm25")
    [area] = [c for c in result.trace.candidates if c.kind == "area"]
    assert area.lanes[0].rank == bm25 + 1  # after every evidence row
    # the project right after its own best paragraph: the memo's, first by BM25 in its context
    [project] = [c for c in result.trace.candidates if c.kind == "catalog"]
    assert project.lanes[0].rank == 1 + 1
