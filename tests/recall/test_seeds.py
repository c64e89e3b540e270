"""The walk's seeds (recall/seeds.py): the question's parts the server makes and looks up, and the
cut that keeps a long question from walking from every concept it names."""

from __future__ import annotations

from sqlalchemy import select

from tabane.graph.claims.parse import ClaimInput
from tabane.recall import seeds
from tabane.recall.parts import LONGEST
from tabane.recall.plan import RecallRequest, Tunables
from tabane.service import Tabane
from tabane.text.spelling import spelling_key


def parts(svc: Tabane, user, key: str) -> list[str]:
    with svc.store.session(user) as session:
        made = session.scalar(select(seeds.name_parts()), {"question_spelling": key})
    return list(made)


def test_the_server_makes_every_part_a_seed_key_may_be(svc: Tabane, user) -> None:
    key = spelling_key("東京で Kettles, tea-pots!")
    made = parts(svc, user, key)
    n = len(key)
    # every substring of 2..LONGEST characters, Latin ones of 4 or more
    expected = {
        key[i:j]
        for i in range(n)
        for j in range(i + 2, min(n, i + LONGEST) + 1)
        if j - i >= 4 or not key[i:j].isascii()
    }
    assert set(made) == expected
    assert {"東京", "kettles", "ettl", "teapots"} <= set(made)
    assert "tea" not in made and "で" not in made  # too short to be a name
    long = parts(svc, user, "a" * 70 + "b")
    assert max(len(x) for x in long) == LONGEST and "a" * 63 + "b" in long


def test_a_question_naming_more_concepts_than_the_cut_walks_from_the_longest_names(
    svc: Tabane, user, make_context
) -> None:
    context = make_context()
    cut = Tunables().walk_seeds
    names = [f"{'x' * (i % 7)}item{i:02d}" for i in range(cut + 8)]
    svc.add_claims(user, context, [ClaimInput(name, "in", "catalogue", 1.0) for name in names])
    question = "Which of these are in the catalogue: " + ", ".join(names) + "?"
    result = svc.recall(user, RecallRequest(question, (context,)))
    named = [*names, "catalogue"]  # the catalogue is named too
    longest = sorted(named, key=lambda name: (-len(name), name))[:cut]
    assert sorted(result.trace.seeds) == sorted(longest)
    assert f"walk seeds in {context}: {cut} of {len(named)} " in " ".join(result.trace.notes)


def test_a_question_within_the_cut_walks_from_every_concept_it_names(
    svc: Tabane, user, make_context
) -> None:
    context = make_context()
    svc.add_claims(user, context, [ClaimInput("kettle", "boils", "water", 1.0)])
    result = svc.recall(user, RecallRequest("Does the kettle boil water?", (context,)))
    assert result.trace.seeds == ("kettle", "water")
    assert not [note for note in result.trace.notes if note.startswith("walk seeds")]
