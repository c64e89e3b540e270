"""Among the items people said (turns, notes, a holder's claims), those said by someone the
question names come first; items nobody said keep their places."""

from __future__ import annotations

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.order import named_first, voiced
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane


def test_a_name_is_a_whole_word_of_a_spaced_script_and_anywhere_in_a_dense_one():
    assert voiced("What does Hannah think of horror films?", "Hannah")
    assert voiced("What is HANNAH'S favourite film?", "hannah")  # case, and a possessive
    assert voiced("What does Ｈａｎｎａｈ think?", "Hannah")  # full-width letters, NFKC
    assert not voiced("What is the annual budget?", "Ann")  # not inside another word
    assert not voiced("Who is Hannahs?", "Hannah")
    assert voiced("花は辛い食べ物をどう思っている?", "花")  # written without spaces
    assert not voiced("翔はどう思う?", "花")
    assert not voiced("What does Hannah think?", None) and not voiced("Hannah?", "  ")


def _item(key: str, author: str | None) -> Evidence:
    return Evidence(key, "turn", key, "recent session memory", Citation(), (), author=author)


def test_voices_are_reordered_among_voices_and_the_rest_keep_their_places():
    group = [
        _item("p:1", None),
        _item("t:2", "Ravi"),
        _item("p:3", None),
        _item("t:4", "Hannah"),
        _item("t:5", "Ravi"),
        _item("t:6", "Hannah"),
    ]
    got = named_first(group, {"t:4", "t:6"})
    assert [it.key for it in got] == ["p:1", "t:4", "p:3", "t:6", "t:2", "t:5"]
    assert named_first(group, set()) == group


NOTES = [
    ("Ravi", "Horror films are the worst. I lasted twenty minutes and slept with the light on."),
    ("Hannah", "Watched it alone at night in a cabin. Best scary movie I have seen in years."),
    ("Ravi", "The Monsoon Ledger is at forty thousand words."),
]


@pytest.mark.slow
def test_the_named_speakers_own_words_come_first(vsvc: Tabane, user, context):
    ids = [vsvc.remember(user, context, {"text": t}, speaker=who) for who, t in NOTES]
    vsvc.ingest(
        user,
        context,
        DocumentInput(source_id="films", paragraphs=[block("A list of horror films by decade.")]),
    )
    vsvc.wait_for_jobs()
    ask = RecallRequest("What does Hannah think of horror films?", (context,))
    plain = vsvc.recall(user, ask, tunables=Tunables(voices=False))
    keys = [it.key for it in plain.items]
    ravi, hannah = f"c:{ids[0]}", f"c:{ids[1]}"
    assert keys.index(ravi) < keys.index(hannah)  # by similarity alone, the other's view first
    named = vsvc.recall(user, ask)
    order = [it.key for it in named.items]
    assert order.index(hannah) < order.index(ravi)
    # the paragraph nobody said keeps its place; the trace says which items were voiced
    assert [it.kind for it in named.items] == [it.kind for it in plain.items]
    flags = {c.key: c.voiced for c in named.trace.candidates}
    assert flags[hannah] and not flags[ravi]
    assert not any(c.voiced for c in plain.trace.candidates)
    # explain says so, for the voiced item and for one a voiced item pushed out of the budget
    why = vsvc.explain_recall(user, ask, Expected(claim=ids[1]))
    assert why.verdict == "served" and "the question names Hannah, who said it" in why.detail
    tight = RecallRequest(ask.question, ask.contexts, budget=named.items[0].tokens)
    cut = vsvc.explain_recall(user, tight, Expected(claim=ids[0]))
    assert cut.verdict == "cut_by_budget"
    assert "items said by Hannah, whom the question names, went before it" in cut.detail
