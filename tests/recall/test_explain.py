"""recall/explain: the first verdict that applies, from the same statement, order and budget."""

from __future__ import annotations

import pytest

from tabane.errors import InvalidInput
from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest, Tunables
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
        user, RecallRequest("hi", (context,), budget=700), Expected(context, "kettle", 1)
    )
    assert gated.verdict == "gated"
    assert (gated.key, gated.budget) == (served.key, 700)  # as every other verdict carries them


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


@pytest.mark.slow
def test_a_closed_claim_is_explained_as_closed_not_as_unfound(vsvc: Tabane, user, context):
    old = vsvc.remember(user, context, {"text": "Hannah lives in Utah."}, speaker="Hannah")
    new = vsvc.remember(
        user, context, {"text": "Hannah lives in Montana.", "closes": [old]}, speaker="Hannah"
    )
    vsvc.wait_for_jobs()
    ask = RecallRequest("Where does Hannah live?", (context,))
    why = vsvc.explain_recall(user, ask, Expected(claim=old))
    assert why.verdict == "closed" and why.key == f"c:{old}"
    assert f"superseded by claim {new}" in why.detail and "current claims only" in why.detail
    # whatever the question: not even the gate is asked about an item recall never reads
    gated = vsvc.explain_recall(user, RecallRequest("hi", (context,)), Expected(claim=old))
    assert gated.verdict == "closed"
    assert vsvc.explain_recall(user, ask, Expected(claim=new)).verdict == "served"


def test_found_but_fused_past_the_candidates_is_told_apart_from_not_found(
    svc: Tabane, user, context
):
    _ingest(svc, user, context, "kettle", KETTLE)
    for n in range(4):
        svc.remember(user, context, {"text": f"The kettle note number {n} mentions the element."})
    ask = RecallRequest("kettle element", (context,))
    result = svc.recall(user, ask, tunables=Tunables(candidates=1))
    assert len(result.trace.candidates) == 1
    first = result.trace.candidates[0].key
    others = [
        svc.explain_recall(
            user, ask, Expected(context, "kettle", idx), tunables=Tunables(candidates=1)
        )
        for idx in range(len(KETTLE))
    ]
    behind = [e for e in others if e.key != first]
    # each was found by its lanes (BM25 finds every paragraph naming the kettle or the
    # element), only fused past the one candidate kept
    assert behind and all(e.verdict == "below_candidates" for e in behind)
    assert all(e.fused_position and e.fused_position > 1 and e.lanes for e in behind)


@pytest.mark.slow
def test_a_row_placed_past_the_pool_on_the_common_scale_was_still_found(
    vsvc: Tabane, user, make_context
):
    near, far = make_context(), make_context()
    _ingest(vsvc, user, near, "kettle", KETTLE)
    _ingest(vsvc, user, far, "shed", ["The garden shed keeps an old kettle for the potting bench."])
    vsvc.wait_for_jobs()
    ask = RecallRequest("How do I descale the kettle element?", (near, far))
    t = Tunables(pool=2, bm25_pool=2, vector_pool=2, candidates=1)
    why = vsvc.explain_recall(user, ask, Expected(far, "shed", 0), tunables=t)
    # BM25 ranks the shed's paragraph first in its context, within the pool of 2; on the common
    # scale it is placed after the near context's passages, past 2 — still found, not missing
    bm25 = next(r for r in why.lanes if r.lane == "bm25")
    assert bm25.rank > t.bm25_pool
    assert why.verdict == "below_candidates" and why.fused_position > 1
