"""Latest first (recall/latest.py): of two statements one holder made on different days that
are each other's nearest, the later is served first and the earlier after it, marked —
whatever the question's words."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from tabane.recall.explain import Expected
from tabane.recall.latest import holder, latest_first, mark, pairs
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane

from helpers import remember_dated


def _said(key: str, author: str | None, day: int) -> Evidence:
    return Evidence(
        key,
        "claim",
        f"statement {key}",
        "derived memory",
        Citation(claim=int(key[2:])),
        (),
        author,
        datetime(2024, 5, day, 9, tzinfo=UTC),
    )


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_the_later_of_two_mutually_nearest_statements_takes_the_earlier_ones_place():
    old, other, between, new = (
        _said("c:1", "Ines", 1),
        _said("c:2", "Ines", 2),
        _said("c:3", "Olu", 3),
        _said("c:4", "Ines", 20),
    )
    vecs = {
        "c:1": _unit(1, 0.3, 0),
        "c:2": _unit(0.2, 1, 0),  # Ines on another subject
        "c:3": _unit(1, 0.3, 0.01),  # nearer still, but Olu's
        "c:4": _unit(1, 0, 0.2),
    }
    assert pairs([old, other, between, new], vecs, 0.0, 10) == [(0, 3)]
    got, later = latest_first([old, other, between, new], vecs, 0.0, 10)
    assert [it.key for it in got] == ["c:4", "c:1", "c:2", "c:3"]
    assert {k: v.key for k, v in later.items()} == {"c:1": "c:4"}
    marked = mark(got, later)
    assert marked[1].superseded_by is not None and "claim 4" in marked[1].superseded_by
    assert marked[1].superseded_by.endswith("2024-05-20")  # the later one's date
    assert [it.superseded_by for it in (marked[0], marked[2], marked[3])] == [None] * 3
    # a pair already in order moves nothing, and the earlier one is still marked
    got, later = latest_first([new, other, old], vecs, 0.0, 10)
    assert [it.key for it in got] == ["c:4", "c:2", "c:1"] and set(later) == {"c:1"}
    # outside the span the later one takes no part: Ines' two left there are each other's
    # nearest, and the floor (their cosine is 0.47) is what keeps them apart
    assert pairs([old, other, between, new], vecs, 0.0, 3) == [(0, 1)]
    assert pairs([old, other, between, new], vecs, 0.6, 3) == []
    assert pairs([old, other, between, new], vecs, 0.99, 10) == []


def test_only_mutual_nearest_statements_of_different_days_that_state_pair():
    a, b, c = _said("c:1", "Ines", 1), _said("c:2", "Ines", 5), _said("c:3", "Ines", 9)
    # b's nearest is c, but c's nearest is a: only a and c are each other's nearest
    vecs = {"c:1": _unit(1, 0.1, 0), "c:2": _unit(0, 1, 1), "c:3": _unit(1, 0.2, 0.2)}
    assert pairs([a, b, c], vecs, 0.5, 10) == [(0, 2)]
    # one day's statements elaborate; a question asks nothing; no holder, no pair (the floor
    # keeps a and b, alone then, apart: their cosine is 0.07)
    same_day = Evidence(**{**c.__dict__, "when": a.when.replace(hour=18)})  # type: ignore[union-attr]
    assert pairs([a, b, same_day], vecs, 0.5, 10) == []
    asking = Evidence(**{**c.__dict__, "text": "Still at the bakery?"})
    assert pairs([a, b, asking], vecs, 0.5, 10) == []
    nobody = [_said(k, None, d) for k, d in (("c:1", 1), ("c:3", 9))]
    assert pairs(nobody, vecs, 0.0, 10) == []
    # a statement served twice (a note and its session turn, one text) counts once: its twin
    # is not the nearest that keeps the revision apart
    twin = Evidence(**{**a.__dict__, "key": "t:9", "kind": "turn"})
    assert pairs([a, twin, b, c], {**vecs, "t:9": vecs["c:1"]}, 0.5, 10) == [(0, 3)]
    # a session paragraph's holder is the speaker it is stored under
    para = Evidence("p:7", "paragraph", "x", "source excerpt", Citation(section=("Ines",)), ())
    assert holder(para) == "Ines" and holder(nobody[0]) is None


@pytest.mark.slow
def test_recall_serves_the_later_value_first_without_being_asked_for_the_present(
    vsvc: Tabane, user, context
):
    notes = [
        ("Ines", "2023-02-03", "I sing alto in the Riverside community choir every Thursday."),
        ("Ines", "2023-04-11", "The plumber finally fixed the leaking kitchen tap."),
        ("Ines", "2023-10-22", "I left the Riverside choir; I sing with a jazz trio instead."),
    ]
    ids = remember_dated(vsvc, user, context, notes)
    ask = RecallRequest("Which choir does Ines sing in?", (context,))
    # the rule alone: latest first off, then on (the default, decision 0044); no second opinion
    off = vsvc.recall(user, ask, tunables=Tunables(latest_span=0, second_opinion=0))
    on = vsvc.recall(user, ask, tunables=(turned := Tunables(second_opinion=0)))
    claims = [[it.citation.claim for it in r.items] for r in (off, on)]
    assert claims[0].index(ids[0]) < claims[0].index(ids[2])  # by similarity: the old choir
    assert claims[1].index(ids[2]) < claims[1].index(ids[0])  # the later one first
    assert sorted(claims[0]) == sorted(claims[1])  # nothing else is served or cut
    earlier = next(it for it in on.items if it.citation.claim == ids[0])
    assert earlier.superseded_by is not None and f"claim {ids[2]}" in earlier.superseded_by
    assert "2023-10-22" in earlier.superseded_by
    assert "(earlier; superseded by: " in on.rendered
    assert all(it.superseded_by is None for it in off.items)
    why = vsvc.explain_recall(user, ask, Expected(claim=ids[0]), tunables=turned)
    assert why.verdict == "served" and f"superseded by {earlier.superseded_by}" in why.detail
