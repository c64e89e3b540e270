"""The support check (recall/support.py): does any served item say what the question asks of the
one it asks about? Pure tests on made-up conversations."""

from __future__ import annotations

import pytest

from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.recall.support import Voice, asked, check, holds, mentions
from tabane.service import Tabane


def _said(n: int, author: str | None, text: str, reply_to: str | None = None) -> Evidence:
    return Evidence(
        f"t:{n}", "turn", text, "recent session memory", Citation(turn=n), (), author,
        in_reply_to=reply_to,
    )  # fmt: skip


PETS = [
    _said(1, "Tom", "My tortoise Pebble turned forty this spring!"),
    _said(2, "Ann", "Forty! Does Pebble still eat strawberries?"),
    _said(3, "Ann", "I spent the weekend repainting the boat shed."),
]


def test_the_entity_is_the_named_holder_and_the_terms_drop_the_frame():
    got = asked("What is the name of Ann's tortoise?", "Tom", ["Ann", "Tom"])
    assert got is not None
    assert got.entity == ("Ann",)
    assert got.shown == ("tortoise",)


def test_a_first_person_question_asks_about_the_asker():
    got = asked("Which colour did I paint my boat shed?", "Ann", ["Ann", "Tom"])
    assert got is not None and got.entity == ("Ann",)
    assert set(got.shown) == {"colour", "paint", "boat", "shed"}


def test_a_question_about_nobody_is_not_checked():
    assert asked("When does the ferry leave?", "Ann", ["Ann", "Tom"]) is None
    assert check("When does the ferry leave?", "Ann", PETS) is None


def test_whose_a_term_is_by_the_nearest_person_word_before_it():
    ann = Voice("Ann", frozenset({"Tom"}), ("Ann", "Tom"))
    assert holds("tortois", "tortoise", "I still love your tortoise.", ann) == {"Tom"}
    assert holds("tortois", "tortoise", "Your cat chased my tortoise.", ann) == {"Ann"}
    assert holds("tortois", "tortoise", "Tom's tortoise is old.", ann) == {"Tom"}
    assert holds("tortois", "tortoise", "The tortoise sleeps.", ann) == {"Ann"}  # unmarked
    assert holds("tortois", "tortoise", "Is my tortoise asleep?", ann) == set()  # it asks


def test_the_other_persons_pet_does_not_support_a_swapped_question():
    got = check("What is the name of Ann's tortoise?", "Tom", PETS)
    assert got is not None
    assert got.supported == ()
    assert got.partial == ("t:1",)  # Tom's tortoise: the term, not the entity
    assert got.line == "Nothing remembered says 'tortoise' of Ann."


def test_the_holders_own_statement_supports_it():
    got = check("What is the name of Tom's tortoise?", "Ann", PETS)
    assert got is not None and got.supported == ("t:1",) and got.line is None


def test_a_reply_is_read_with_the_question_it_answers():
    items = [
        _said(1, "Ann", "Did you ever finish the kayak you were building?"),
        _said(2, "Tom", "Yes, launched her last Sunday!", "Did you ever finish the kayak?"),
    ]
    got = check("When did Tom launch his kayak?", "Ann", items)
    assert got is not None and got.supported == ("t:2",)


def test_any_one_term_supports_by_default_and_more_with_need():
    items = [_said(1, "Tom", "I wrote a cookbook last winter.")]
    lenient = check("Which publisher printed Tom's cookbook?", "Ann", items)
    assert lenient is not None and lenient.supported == ("t:1",)
    strict = check("Which publisher printed Tom's cookbook?", "Ann", items, need=0.5)
    assert strict is not None and strict.line is not None and strict.partial == ("t:1",)


def test_a_reply_inherits_whose_the_answered_text_says_the_term_is():
    items = [_said(2, "Ann", "Tortoises live for ages!", "My tortoise turned forty today.")]
    got = check("How old is Ann's tortoise?", "Tom", items)
    assert got is not None and got.supported == () and got.partial == ("t:2",)


def test_an_item_that_asks_supports_nothing():
    items = [_said(1, "Ann", "Your tortoise?! Since when?")]
    got = check("What is the name of Ann's tortoise?", "Tom", items)
    assert got is not None and got.line is not None


def test_a_view_is_supported_by_the_holders_reply_to_its_topic():
    items = [_said(2, "Tom", "Three hours of shouting.", "I loved the opera last night!")]
    got = check("What does Tom think of opera?", "Ann", items)
    assert got is not None and got.supported == ("t:2",)
    swapped = check("What is the name of Tom's opera?", "Ann", items)
    assert swapped is not None and swapped.line is not None  # not a view: Ann's opera


def test_how_a_term_is_mentioned():
    assert mentions("hive", "hives", "I keep five beehives.")  # inside a longer word
    assert mentions("paint", "painted", "We are painting it.")  # by stem
    assert not mentions("cat", "cat", "A catalogue arrived.")  # too short to match inside
    assert mentions("ねこ", "ネコ", "うちのねこは三毛です")  # katakana as hiragana
    assert mentions("新婚旅行", "新婚旅行", "新婚の二人")  # a bigram of a kanji run


def test_japanese_names_are_not_terms_and_the_frame_is_dropped():
    got = asked("湊が飼っている犬の名前は?", "葵", ["湊", "葵"])
    assert got is not None and got.entity == ("湊",)
    assert "犬" in got.shown and "名前" not in got.shown and "湊" not in got.shown
    items = [_said(1, "葵", "うちの犬はコタロウっていうの"), _said(2, "湊", "俺は猫派だな")]
    verdict = check("湊が飼っている犬の名前は?", "葵", items, need=0.5)
    assert verdict is not None and verdict.supported == () and verdict.line is not None


CHAT = [
    ("Tom", "My tortoise Pebble turned forty this spring.", "How is the old fellow doing?"),
    ("Ann", "I spent the weekend repainting the boat shed.", None),
    ("Ann", "Forty years! He has outlived three of your cars.", None),
]


def _remember(svc: Tabane, user, context: str) -> list[int]:
    out = []
    for who, said, asked_ in CHAT:
        fields = {"text": said} | ({"in_reply_to": asked_} if asked_ else {})
        out.append(svc.remember(user, context, fields, speaker=who))
    svc.wait_for_jobs()
    return out


@pytest.mark.slow
def test_recall_says_nothing_is_remembered_of_the_one_asked(vsvc: Tabane, user, context):
    ids = _remember(vsvc, user, context)
    toms = f"c:{ids[0]}"
    ask = RecallRequest("What is the name of Ann's tortoise?", (context,), speaker="Tom")
    plain = vsvc.recall(user, ask, tunables=Tunables(support=False))
    assert toms in [it.key for it in plain.items] and plain.unsupported is None
    got = vsvc.recall(user, ask)
    assert got.unsupported == "Nothing remembered says 'tortoise' of Ann."
    assert got.rendered.splitlines()[2].startswith(got.unsupported)
    assert toms not in [it.key for it in got.items]  # Tom's tortoise is not served as Ann's
    outcome = {c.key: c.outcome for c in got.trace.candidates}
    assert outcome[toms] == "unsupported"
    assert any(
        n.startswith("support: the question asks for [tortoise] of Ann") for n in got.trace.notes
    )
    why = vsvc.explain_recall(user, ask, Expected(claim=ids[0]))
    assert why.verdict == "unsupported"
    assert "the support check" in why.detail and "[tortoise] of Ann" in why.detail


@pytest.mark.slow
def test_recall_serves_what_is_said_of_the_one_asked(vsvc: Tabane, user, context):
    ids = _remember(vsvc, user, context)
    ask = RecallRequest("What is the name of Tom's tortoise?", (context,), speaker="Ann")
    got = vsvc.recall(user, ask)
    assert got.unsupported is None and f"c:{ids[0]}" in [it.key for it in got.items]
    assert "Nothing remembered" not in got.rendered
    note = [n for n in got.trace.notes if n.startswith("support:")]
    assert note == [f"support: the question asks for [tortoise] of Tom; said of them by c:{ids[0]}"]
    docs = RecallRequest("When does the ferry leave?", (context,), speaker="Ann")
    assert vsvc.recall(user, docs).unsupported is None  # it asks of nobody: not checked


def test_an_item_nobody_said_supports_when_it_mentions_a_term_and_is_never_taken_out():
    items = [
        Evidence(
            "p:1", "paragraph", "Care of a tortoise in winter.", "source excerpt", Citation(), ()
        )
    ]
    got = check("How old is my tortoise?", "Ann", items)
    assert got is not None and got.supported == ("p:1",) and got.partial == ()
    other = [Evidence("p:2", "paragraph", "Boat sheds.", "source excerpt", Citation(), ())]
    none = check("How old is my tortoise?", "Ann", other)
    assert none is not None and none.line is not None and none.partial == ()


def test_a_summary_holds_a_term_only_for_whom_it_names_and_is_taken_out_otherwise():
    summary = Evidence(
        "r:1", "raptor", "My tortoise turned forty. Lovely.", "derived memory", Citation(), ()
    )
    got = check("How old is Ann's tortoise?", "Tom", [summary, PETS[2]])
    assert got is not None and got.line is not None and got.partial == ("r:1",)
    named = Evidence("r:2", "raptor", "Ann's tortoise is forty.", "derived memory", Citation(), ())
    again = check("How old is Ann's tortoise?", "Tom", [named, PETS[2]])
    assert again is not None and again.supported == ("r:2",)
