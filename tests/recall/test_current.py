"""Supersession (recall/current.py): a later statement by the same holder about the same subject
is current; it takes the earlier one's place, and the earlier one follows it, marked."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from tabane.recall.current import current_first, successors
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence, Fact
from tabane.service import Tabane

from helpers import espresso_profile, remember_dated


def _said(key: str, author: str | None, day: int, fact: Fact | None = None) -> Evidence:
    when = datetime(2024, 3, day, 12, tzinfo=UTC)
    return Evidence(
        key,
        "claim",
        key,
        "derived memory",
        Citation(claim=int(key[2:])),
        (),
        author,
        when,
        fact=fact,
    )


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_a_later_close_statement_of_the_same_holder_takes_the_earlier_ones_place():
    old, other, new, theirs = (
        _said("c:1", "Tom", 1),
        _said("c:2", "Tom", 2),
        _said("c:3", "Tom", 9),
        _said("c:4", "Ann", 20),
    )
    vecs = {
        "c:1": _unit(1, 0.2, 0),
        "c:2": _unit(0, 1, 0),  # another subject
        "c:3": _unit(1, 0, 0.3),
        "c:4": _unit(1, 0.1, 0.1),  # close, but another holder's
    }
    got = current_first([old, other, new, theirs], vecs, tau=0.5, span=10)
    assert [it.key for it in got] == ["c:3", "c:1", "c:2", "c:4"]
    assert got[1].superseded_by is not None and "claim 3" in got[1].superseded_by
    assert got[1].superseded_by.endswith("2024-03-09")
    assert all(it.superseded_by is None for it in (got[0], got[2], got[3]))
    # outside the span, or below tau, nothing moves
    assert current_first([old, other, new], vecs, tau=0.5, span=2) == [old, other, new]
    assert current_first([old, other, new], vecs, tau=0.99, span=10) == [old, other, new]


def test_statements_of_one_day_elaborate_and_triples_revise_by_subject_and_label():
    morning = _said("c:1", "Tom", 5)
    evening = Evidence(**{**morning.__dict__, "key": "c:2", "when": morning.when.replace(hour=20)})
    vecs = {"c:1": _unit(1, 0), "c:2": _unit(1, 0)}
    assert successors([morning, evening], vecs, 0.5, 10) == {}
    lives = Fact("ctx", "tom", "Tom", "lives in", "Leeds", negated=False)
    moved = Fact("ctx", "tom", "Tom", "lives in", "York", negated=False)
    works = Fact("ctx", "tom", "Tom", "works at", "Acme", negated=False)
    a, b, c = (
        _said("c:5", "Tom", 1, lives),
        _said("c:6", "Tom", 8, moved),
        _said("c:7", "Tom", 9, works),
    )
    assert {k: v.key for k, v in successors([a, b, c], {}, 0.5, 10).items()} == {"c:5": "c:6"}


@pytest.mark.slow
def test_recall_serves_the_current_value_first_and_the_earlier_one_marked(
    vsvc: Tabane, user, context
):
    notes = [
        ("Mara", "2023-01-10", "I work as a barista at the Corner Cup cafe on Mill Street."),
        ("Mara", "2023-02-01", "My sister bought a red bicycle for her commute."),
        (
            "Mara",
            "2023-06-20",
            "Big change: I quit the Corner Cup and now work as a barista at Bean There.",
        ),
    ]
    ids = remember_dated(vsvc, user, context, notes)
    ask = RecallRequest("Which cafe does Mara work at as a barista?", (context,))
    # latest first (latest.py) off: this is current.py's cosine rule alone
    off = vsvc.recall(user, ask, tunables=Tunables(supersede_span=0, latest_span=0))
    on = vsvc.recall(user, ask, tunables=Tunables(supersede=0.3, latest_span=0))
    assert [it.citation.claim for it in off.items[:2]] == [ids[0], ids[2]]
    assert [it.citation.claim for it in on.items[:2]] == [ids[2], ids[0]]
    earlier = on.items[1]
    assert earlier.superseded_by is not None and f"claim {ids[2]}" in earlier.superseded_by
    assert "(earlier; superseded by: " in on.rendered
    traced = {c.key: c for c in on.trace.candidates}
    assert traced[earlier.key].superseded_by == earlier.superseded_by


def test_profiles_and_communities_are_served_after_the_evidence_they_summarise():
    from tabane.recall.order import summaries_last

    def item(key: str, kind: str) -> Evidence:
        return Evidence(key, kind, key, "derived memory", Citation(), ())  # type: ignore[arg-type]

    kinds = [("f:1", "profile"), ("a:2", "association"), ("m:3", "community")]
    kinds += [("p:4", "paragraph"), ("r:5", "raptor")]
    got = summaries_last([item(key, kind) for key, kind in kinds])
    assert [it.key for it in got] == ["a:2", "p:4", "r:5", "f:1", "m:3"]


@pytest.mark.slow
def test_a_profile_is_served_after_the_edges_it_summarises(vsvc: Tabane, user, context):
    ask = espresso_profile(vsvc, user, context)
    kinds = [it.kind for it in vsvc.recall(user, ask).items]
    assert "profile" in kinds and "association" in kinds
    last = max(n for n, k in enumerate(kinds) if k not in ("profile", "community"))
    assert all(k in ("profile", "community") for k in kinds[last + 1 :])
    before = vsvc.recall(user, ask, tunables=Tunables(summaries_after=False))
    assert {it.key for it in before.items} == {it.key for it in vsvc.recall(user, ask).items}


def test_a_question_about_the_present_is_told_by_its_word():
    from tabane.recall.current import asks_now

    assert asks_now("Where does Tom work now?") == "now"
    assert asks_now("Which flat did Ann end up renting?") == "end up"
    assert asks_now("Is the railway STILL running?") == "still"
    assert asks_now("結局どこに住んでいる?") == "結局"
    assert asks_now("トムは今どこで働いている?") == "今"
    # a word that holds one (know, snow) is not one; a plain question has none
    assert asks_now("What did Tom know about the snowfall?") is None
    assert asks_now("Where did Tom work in 2019?") is None


def test_each_holders_statements_are_put_newest_first_in_the_places_they_hold():
    from tabane.recall.current import newest_first

    old, theirs, new, asking = (
        _said("c:1", "Tom", 1),
        _said("c:2", "Ann", 3),
        _said("c:3", "Tom", 9),
        Evidence(**{**_said("c:4", "Tom", 20).__dict__, "text": "Where are you now?"}),
    )
    same_day = Evidence(**{**old.__dict__, "key": "c:5", "when": old.when.replace(hour=20)})
    unsaid = Evidence("p:6", "paragraph", "p", "source excerpt", Citation(), ())
    got, moved = newest_first([old, unsaid, theirs, same_day, new, asking], span=10)
    # Tom's places (1, 4, 5) hold his statements newest day first; one day keeps its order;
    # Ann's, the paragraph and Tom's question stay where they were
    assert [it.key for it in got] == ["c:3", "p:6", "c:2", "c:1", "c:5", "c:4"]
    assert moved == {"c:3", "c:1", "c:5"}
    # only the first `span` items take part
    assert newest_first([old, theirs, new], span=2) == ([old, theirs, new], set())


@pytest.mark.slow
def test_recall_of_a_question_about_the_present_serves_the_latest_statement_first(
    vsvc: Tabane, user, context
):
    notes = [
        ("Mara", "2023-01-10", "Mara lives in a small flat on Mill Street, above the bakery."),
        ("Mara", "2023-03-02", "My sister bought a red bicycle for her commute."),
        ("Mara", "2023-09-14", "We moved last week: the new place is by the harbour."),
    ]
    ids = remember_dated(vsvc, user, context, notes)
    ask = RecallRequest("Where does Mara live now?", (context,))
    alone = Tunables(latest_span=0)  # the word's rule alone (latest.py orders any question)
    off = vsvc.recall(user, ask, tunables=Tunables(now_span=0, latest_span=0))
    on = vsvc.recall(user, ask, tunables=alone)
    claims = [[it.citation.claim for it in r.items] for r in (off, on)]
    assert claims[0].index(ids[0]) < claims[0].index(ids[2])  # by similarity: the old address
    assert claims[1].index(ids[2]) < claims[1].index(ids[0])  # the question asks for now
    assert sorted(claims[0]) == sorted(claims[1])  # nothing else is served or cut
    assert 'Asked about the present ("now")' in on.rendered
    assert "Asked about the present" not in off.rendered
    moved = {c.key for c in on.trace.candidates if c.newest_first}
    assert f"c:{ids[2]}" in moved and f"c:{ids[0]}" in moved
    assert any(n.startswith("newest first: ") for n in on.trace.notes)
    why = vsvc.explain_recall(user, ask, Expected(claim=ids[0]), tunables=alone)
    assert why.verdict == "served" and "ordered newest first" in why.detail
    # a question that does not ask about the present keeps its order (unless, for measurement,
    # `now_always` orders every question so)
    plain = RecallRequest("Where does Mara live?", (context,))
    kept = [it.citation.claim for it in vsvc.recall(user, plain, tunables=alone).items]
    assert kept.index(ids[0]) < kept.index(ids[2])
    always = vsvc.recall(user, plain, tunables=Tunables(now_always=True, latest_span=0))
    reordered = [it.citation.claim for it in always.items]
    assert reordered.index(ids[2]) < reordered.index(ids[0])
