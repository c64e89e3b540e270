"""recall/explain: the first verdict that applies, from the same statement, order and budget."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

KETTLE = [
    "The kettle boils water in about three minutes when it is full.",
    "Descale the heating element with vinegar once a month to remove limescale.",
    "Never switch the kettle on when it is empty: the element overheats.",
]


def _ingest(svc: Tabane, user, context: str, sid: str, texts: list[str]) -> None:
    svc.ingest(user, context, DocumentInput(source_id=sid, paragraphs=[block(t) for t in texts]))


def test_verdicts_follow_what_recall_did(svc: Tabane, user, context):
    _ingest(svc, user, context, "kettle", KETTLE)
    _ingest(svc, user, context, "tea", ["Green tea wants water at eighty degrees."])
    ask = RecallRequest("kettle element limescale vinegar", (context,))
    served = svc.explain_recall(user, ask, Expected(context, "kettle", 1))
    assert served.verdict == "served" and served.position == 1
    result = svc.recall(user, ask)
    assert served.key == result.items[0].key
    tight = svc.explain_recall(
        user, RecallRequest(ask.question, (context,), budget=30), Expected(context, "kettle", 2)
    )
    assert tight.verdict == "cut_by_budget" and tight.used_tokens <= 30
    missing = svc.explain_recall(user, ask, Expected(context, "tea", 0))
    assert missing.verdict == "not_found" and missing.lanes == ()
    unknown = svc.explain_recall(user, ask, Expected(context, "nope", 0))
    assert unknown.verdict == "not_visible"
    gated = svc.explain_recall(
        user, RecallRequest("hi", (context,)), Expected(context, "kettle", 1)
    )
    assert gated.verdict == "gated"


def test_an_invisible_item_reads_exactly_like_a_missing_one(svc: Tabane, make_user, make_context):
    alice, bob = make_user(), make_user()
    theirs = make_context(owner=alice)
    mine = make_context(owner=bob)
    _ingest(svc, alice, theirs, "secret", ["the vault code is 4711"])
    ask = RecallRequest("what is the vault code?", (mine,))
    hidden = svc.explain_recall(bob, ask, Expected(theirs, "secret", 0))
    absent = svc.explain_recall(bob, ask, Expected(mine, "secret", 0))
    assert hidden == absent and hidden.verdict == "not_visible"


def test_explain_needs_one_kind_of_expected_item(svc: Tabane, user, context):
    with pytest.raises(InvalidInput):
        svc.explain_recall(
            user, RecallRequest("kettle", (context,)), Expected(context, "a", 0, claim=1)
        )
    with pytest.raises(InvalidInput):
        svc.explain_recall(user, RecallRequest("kettle", (context,)), Expected())
