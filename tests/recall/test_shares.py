"""Recall places paragraphs by their score shares, as search fuses them (recall/shares.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.plan import RecallRequest, Tunables
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import Context, Paragraph

MANUAL = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
    "Mineral deposits build up faster where the tap water is hard.",
    "Wipe the outside of the kettle with a damp cloth; never put it in water.",
    "The filter in the spout catches flakes of scale; rinse it under the tap.",
]
QUESTIONS = (
    "kettle mineral deposits",
    "how do I get limescale out of the kettle",
    "is it safe to run the kettle empty",
)


def _stored(vsvc: Tabane, user, make_context) -> str:
    context = make_context()
    # a title no question names: the title lane, recall's own, stays out of the comparison
    paragraphs = [block(t) for t in MANUAL]
    document = DocumentInput(source_id="care", title="Appliance care", paragraphs=paragraphs)
    vsvc.ingest(user, context, document)
    vsvc.wait_for_jobs()
    return context


def _fused(vsvc: Tabane, user, context: str, question: str, fusion: str) -> list[tuple[int, float]]:
    """(paragraph id, fused value) of the paragraph candidates, in recall's order."""
    ask = RecallRequest(question, (context,), force=True)
    result = vsvc.recall(user, ask, tunables=Tunables(fusion=fusion, replies=False))
    return [
        (int(c.key.removeprefix("p:")), c.fused)
        for c in result.trace.candidates
        if c.kind == "paragraph"
    ]


def _paragraphs(vsvc: Tabane, user, context: str, question: str, fusion: str) -> list[int]:
    return [pid for pid, _ in _fused(vsvc, user, context, question, fusion)]


def _idx(vsvc: Tabane, user, context: str) -> dict[int, int]:
    """Paragraph id → its index in the source."""
    with vsvc.store.session(user) as session:
        rows = session.execute(
            select(Paragraph.id, Paragraph.idx)
            .join(Context, Context.id == Paragraph.context_id)
            .where(Context.name == context)
        )
        return {int(pid): int(idx) for pid, idx in rows}


@pytest.mark.slow
def test_recall_orders_paragraphs_as_search_does(vsvc: Tabane, user, make_context):
    context = _stored(vsvc, user, make_context)
    idx = _idx(vsvc, user, context)
    differs = 0
    for question in QUESTIONS:
        hits = vsvc.search(user, SearchRequest(question, contexts=(context,))).hits
        searched = [h.paragraph for h in hits]
        shared = [idx[p] for p in _paragraphs(vsvc, user, context, question, "share")]
        ranked = [idx[p] for p in _paragraphs(vsvc, user, context, question, "per_kind")]
        assert shared == searched, question
        differs += ranked != searched
    # the averaged reciprocal ranks that shares replaced order at least one question otherwise
    assert differs >= 1


@pytest.mark.slow
def test_paragraphs_keep_their_values_as_a_group(vsvc: Tabane, user, make_context):
    """Shares reorder the paragraphs; the values they compete with other kinds by are those the
    lanes' reciprocal ranks gave them, so notes and edges meet the same paragraph values."""
    context = _stored(vsvc, user, make_context)
    for question in QUESTIONS:
        shared = _fused(vsvc, user, context, question, "share")
        ranked = _fused(vsvc, user, context, question, "per_kind")
        assert [v for _, v in shared] == sorted((v for _, v in ranked), reverse=True)
