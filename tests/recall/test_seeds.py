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


def test_a_name_in_variant_kanji_less_its_title_is_looked_up_in_each_form_as_a_prefix() -> None:
    # 﨑, 崎, 嵜 and 碕 are one character's forms; 課長 is a title; の and は break the runs
    assert seeds.variant_prefixes("山﨑課長の担当は?") == ["山崎%", "山嵜%", "山碕%", "山﨑%"]
    # no character of a variant group, or a run of one kanji: nothing to look up
    assert seeds.variant_prefixes("東山さんの担当は?") == []
    assert seeds.variant_prefixes("Who is 﨑?") == []


def test_a_question_naming_a_person_by_a_variant_family_name_walks_from_them(
    svc: Tabane, user, make_context
) -> None:
    context = make_context()
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("山崎透", "担当", "倉庫三号棟", 1.0),
            ClaimInput("山本葵", "担当", "受付", 1.0),
        ],
    )
    question = "山﨑課長の担当は?"  # a family name only, with the other form of 崎
    got = svc.recall(user, RecallRequest(question, (context,)))
    assert "山崎透" in got.trace.seeds and "山本葵" not in got.trace.seeds
    assert any("倉庫三号棟" in it.text for it in got.items if it.kind == "association")
    # a question without such a name seeds as before
    plain = svc.recall(user, RecallRequest("山本さんの担当は?", (context,)))
    assert "山崎透" not in plain.trace.seeds
