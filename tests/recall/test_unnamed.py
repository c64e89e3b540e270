"""A person the question names is a prior, not a content term: among the statements of the
people a question names (served first, order.py `voiced`), the order blends their place with
their similarity to the question with those names taken out, each statement read alone and as
embedded after what it answers (recall/voice.py)."""

from __future__ import annotations

import pytest

from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.recall.voice import blend, named, without_names
from tabane.service import Tabane

from helpers import HANNAH_EXCHANGES


def _item(key: str, author: str | None) -> Evidence:
    return Evidence(key, "claim", key, "note", Citation(), (), author=author)


def test_the_named_people_are_taken_out_of_the_question():
    assert without_names("Where does Hannah work now?", ["Hannah"]) == "Where does work now?"
    assert without_names("What is HANNAH'S dog called?", ["Hannah"]) == "What is dog called?"
    assert without_names("Is Hannahs a name?", ["Hannah"]) == "Is Hannahs a name?"  # whole words
    assert without_names("花さんは今どこに住んでいる?", ["花"]) == "は今どこに住んでいる?"
    assert without_names("Where does Ｈａｎｎａｈ live?", ["Hannah"]) == "Where does live?"
    assert without_names("Did Hannah meet Ravi?", ["Hannah", "Ravi"]) == "Did meet?"
    assert without_names("Hannah?", ["Hannah"]) == "Hannah?"  # nothing else asked: as it was


def test_the_named_are_everyone_the_question_names_among_the_speakers():
    items = [_item("c:1", "Hannah"), _item("c:2", "Ravi"), _item("p:3", None)]
    assert named("Where does Hannah work?", items) == ["Hannah"]
    assert named("Did Hannah meet Ravi?", items) == ["Hannah", "Ravi"]
    assert named("Where is the office?", items) == []


def test_blend_keeps_the_order_at_weight_zero_and_follows_the_scores_as_it_grows():
    items = [_item("c:1", "H"), _item("c:2", "H"), _item("c:3", "H")]
    heard = {"c:1": 0.1, "c:2": 0.2, "c:3": 0.9}
    by = lambda s: sorted(s, key=lambda k: -s[k])  # noqa: E731
    assert by(blend(heard, items, 60.0, 0.0)) == ["c:1", "c:2", "c:3"]
    assert by(blend(heard, items, 60.0, 0.5)) == ["c:1", "c:2", "c:3"]  # the order leads
    assert by(blend(heard, items, 60.0, 4.0)) == ["c:3", "c:2", "c:1"]


def _hers(vsvc: Tabane, user, context, t: Tunables) -> list[str]:
    ask = RecallRequest("Where does Hannah work?", (context,))
    return [it.key for it in vsvc.recall(user, ask, tunables=t).items if it.author == "Hannah"]


@pytest.mark.slow
def test_the_named_persons_answer_moves_up_among_their_statements(vsvc: Tabane, user, context):
    ids = []
    for asked, said in HANNAH_EXCHANGES:
        vsvc.remember(user, context, {"text": asked}, speaker="Ravi")
        ids.append(
            vsvc.remember(user, context, {"text": said, "in_reply_to": asked}, speaker="Hannah")
        )
    vsvc.wait_for_jobs()
    job = f"c:{ids[-1]}"
    plain = _hers(vsvc, user, context, Tunables(unnamed=0.0, second_opinion=0))
    unnamed = _hers(vsvc, user, context, Tunables(unnamed=1.0, second_opinion=0))
    assert sorted(plain) == sorted(unnamed)  # the same statements, in another order
    assert plain.index(job) > unnamed.index(job)
    assert _hers(vsvc, user, context, Tunables(unnamed=8.0, second_opinion=0))[0] == job


def test_without_an_embedder_the_order_stands(svc: Tabane, user, context):
    """No vectors (no embedder): nothing is scored, the named statements keep their order."""
    for asked, said in HANNAH_EXCHANGES:
        svc.remember(user, context, {"text": asked}, speaker="Ravi")
        svc.remember(user, context, {"text": said, "in_reply_to": asked}, speaker="Hannah")
    plain = _hers(svc, user, context, Tunables(unnamed=0.0, second_opinion=0))
    assert _hers(svc, user, context, Tunables(unnamed=1.0, second_opinion=0)) == plain
