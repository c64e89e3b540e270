"""A paragraph or turn that asks a question gives its place to its reply (the next paragraph of its
source, the next turn of its session), and the question rides along as `in_reply_to`."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.order import arrange
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane

from helpers import unique

FAQ = [
    "How do I reset the frobnicator?",
    "Hold the red button for ten seconds until the lamp blinks twice.",
    "Does the frobnicator need a spare fuse?",
]


def _ingest(svc: Tabane, user, context: str, texts: list[str]) -> None:
    svc.ingest(user, context, DocumentInput(source_id="faq", paragraphs=[block(t) for t in texts]))


def test_a_question_found_serves_its_answer_in_its_place(svc: Tabane, user, context):
    _ingest(svc, user, context, FAQ)
    ask = RecallRequest("reset frobnicator", (context,))
    result = svc.recall(user, ask)
    first = result.items[0]
    assert first.text == FAQ[1] and first.citation.paragraph == 1
    assert first.in_reply_to == FAQ[0]
    assert FAQ[0] not in [it.text for it in result.items]  # the question is not its own item
    reply = result.trace.candidates[0]
    assert reply.key == first.key and reply.reply_to is not None
    assert f"(in reply to: {FAQ[0]})\n{FAQ[1]}" in result.rendered
    # the last paragraph asks too, but nothing follows it: it is served as it is
    spare = svc.recall(user, RecallRequest("frobnicator spare fuse", (context,)))
    assert spare.items[0].text == FAQ[2] and spare.items[0].in_reply_to is None
    kept = svc.recall(user, ask, tunables=Tunables(replies=False))
    assert kept.items[0].text == FAQ[0] and kept.items[0].in_reply_to is None


def test_a_reply_found_on_its_own_as_well_is_served_once_at_the_better_place(
    svc: Tabane, user, context
):
    _ingest(svc, user, context, FAQ)
    result = svc.recall(user, RecallRequest("reset frobnicator red button lamp", (context,)))
    texts = [it.text for it in result.items]
    assert texts.count(FAQ[1]) == 1 and texts[0] == FAQ[1]
    assert [c.key for c in result.trace.candidates].count(result.items[0].key) == 1


def test_an_answer_found_directly_carries_the_question_before_it(svc: Tabane, user, context):
    _ingest(svc, user, context, [*FAQ, "Yes: keep one five amp fuse in the lid."])
    result = svc.recall(user, RecallRequest("hold the red button for ten seconds", (context,)))
    first = result.items[0]
    assert (first.text, first.in_reply_to) == (FAQ[1], FAQ[0])
    assert result.trace.candidates[0].reply_to is not None
    fuse = svc.recall(user, RecallRequest("five amp fuse in the lid", (context,))).items[0]
    assert fuse.text.startswith("Yes: keep") and fuse.in_reply_to == FAQ[2]
    plain = svc.recall(
        user, RecallRequest("hold the red button", (context,)), tunables=Tunables(replies=False)
    )
    assert plain.items[0].in_reply_to is None


def test_a_turn_that_asks_serves_the_next_turn_of_its_session(svc: Tabane, user, context):
    chat = "replies"
    said = [
        ("Mia", "Where did you park the camper van?"),
        ("Leo", "Behind the old mill, next to the bakery."),
        ("Mia", "Lunch was soup again."),
        ("Leo", "The train was late this morning."),
    ]
    for speaker, text in said:
        svc.add_turn(user, chat, text, speaker=speaker)
    result = svc.recall(user, RecallRequest("camper van parked", (context,), session=chat))
    turns = [it for it in result.items if it.kind == "turn"]
    assert turns[0].text == said[1][1] and turns[0].author == "Leo"
    assert turns[0].in_reply_to == said[0][1]
    assert said[0][1] not in [it.text for it in turns]
    newest = [it for it in turns if it.text == said[3][1]]  # the newest turn: it asks nothing
    assert newest and newest[0].in_reply_to is None


ASKED = "what about the camper van?"


def _within(svc: Tabane, user, hours: float | None, request: RecallRequest) -> list[Evidence]:
    kept = svc.settings
    svc.settings = replace(kept, session_hours=hours)
    try:
        return [it for it in svc.recall(user, request).items if it.kind == "turn"]
    finally:
        svc.settings = kept


def test_a_turn_outside_the_window_is_neither_reply_nor_question(svc: Tabane, user, context):
    """Working memory is the window: with TABANE_SESSION_HOURS 24, a turn dated 100 hours ago
    is not served in place of the window's question, nor carried as an answer's question."""
    long_ago = datetime.now(UTC) - timedelta(hours=100)
    parked, started = unique("window"), unique("window")
    svc.add_turn(user, parked, "Where did you park the camper van?", speaker="Mia")
    svc.add_turn(user, parked, "Behind the old mill.", speaker="Leo", at=long_ago)
    svc.add_turn(user, parked, "Lunch was soup again.", speaker="Mia")
    svc.add_turn(user, started, "Did the camper van start?", speaker="Mia", at=long_ago)
    svc.add_turn(user, started, "It did: the camper van started at once.", speaker="Leo")

    ask = RecallRequest(ASKED, (context,), session=parked)
    assert "Behind the old mill." in [it.text for it in _within(svc, user, None, ask)]  # no bound
    windowed = [it.text for it in _within(svc, user, 24.0, ask)]
    assert "Behind the old mill." not in windowed
    assert "Where did you park the camper van?" in windowed  # itself: no reply in the window

    ask = RecallRequest(ASKED, (context,), session=started)
    (wide,) = [it for it in _within(svc, user, None, ask) if it.text.startswith("It did")]
    assert wide.in_reply_to == "Did the camper van start?"
    (narrow,) = [it for it in _within(svc, user, 24.0, ask) if it.text.startswith("It did")]
    assert narrow.in_reply_to is None


def test_a_reply_stays_in_the_exchange(svc: Tabane, user, context):
    """No reply into the next heading's section, none that asks in turn, none for reported
    speech; sections that interleave (speakers taking turns) are labels and are crossed."""
    notes = [
        block("Should the garden shed get a new roof?", section=("Notes", "Open questions")),
        block("Run make install to build the printer driver.", section=("Notes", "Install")),
        block("Can the dishwasher run at night?", section=("Kitchen",)),
        block("Is the dishwasher noisy when it runs at night?", section=("Kitchen",)),
        block("It hums quietly at 40 dB.", section=("Kitchen",)),
        block('The blender stopped and he asked "why?"', section=("Kitchen",)),
        block("Nobody ever replied about the blender motor.", section=("Kitchen",)),
    ]
    svc.ingest(user, context, DocumentInput(source_id="notes", paragraphs=notes))
    chat = [("Mia", "Morning!"), ("Leo", "Morning."), ("Mia", "Where is the ladder?")]
    chat += [("Leo", "In the cellar, behind the bikes.")]
    svc.ingest(
        user,
        context,
        DocumentInput(source_id="chat", paragraphs=[block(t, section=(w,)) for w, t in chat]),
    )

    def first(question: str) -> tuple[str, str | None]:
        got = svc.recall(user, RecallRequest(question, (context,))).items[0]
        return got.text, got.in_reply_to

    assert first("garden shed new roof") == (notes[0].text, None)
    assert first("can the dishwasher run at night") == (notes[2].text, None)
    assert first("blender stopped why") == (notes[5].text, None)
    assert first("where is the ladder") == (chat[3][1], chat[2][1])


def test_a_long_question_rides_along_by_its_closing_sentences(svc: Tabane, user, context):
    preamble = "The filter of the old coffee machine clogs with scale every few weeks. " * 40
    _ingest(svc, user, context, [preamble + "Should I clean the coffee filter?", "Yes, clean it."])
    result = svc.recall(user, RecallRequest("clean the coffee filter", (context,)))
    first = result.items[0]
    assert first.text == "Yes, clean it." and first.in_reply_to is not None
    assert first.in_reply_to.endswith("Should I clean the coffee filter?")
    assert len(first.in_reply_to) <= 200 and first.tokens < 80


def test_explain_says_a_question_was_answered_by_its_reply(svc: Tabane, user, context):
    _ingest(svc, user, context, FAQ)
    ask = RecallRequest("reset frobnicator", (context,))
    question = svc.explain_recall(user, ask, Expected(context, "faq", 0))
    assert question.verdict == "answered" and question.position == 1
    answer = svc.explain_recall(user, ask, Expected(context, "faq", 1))
    assert answer.verdict == "served" and answer.position == 1
    assert answer.key is not None and answer.key in question.detail


def _item(key: str, text: str, kind="claim", in_reply_to: str | None = None) -> Evidence:
    return Evidence(key, kind, text, "derived memory", Citation(), (), in_reply_to=in_reply_to)


def test_a_reply_takes_the_place_of_an_earlier_item_repeating_its_question():
    note = _item("c:1", "How's Zion?")  # a note made from the asking turn
    other = _item("c:2", "Mango learned a new word.")
    reply = _item("t:9", "Busy: back on the river-safety patrol.", "turn", "How's  zion?")
    placed = arrange(
        "Zion duty", [note, other, reply], None, max_items=2, budget=1000, chars_per_token=4.0
    )
    outcomes = {p.item.key: (p.outcome, p.position) for p in placed}
    assert outcomes == {"t:9": ("served", 1), "c:1": ("duplicate", 0), "c:2": ("served", 2)}
    assert [p.fused_position for p in placed if p.item.key == "t:9"] == [3]
    # without a reply the note is an item like any other
    alone = arrange("Zion duty", [note, other], None, max_items=2, budget=1000, chars_per_token=4.0)
    assert [p.outcome for p in alone] == ["served", "served"]


def test_a_repeated_question_is_recognised_across_its_rejoined_sentences(
    svc: Tabane, user, context
):
    asking = "花らしいな。ぴーちゃんは？"
    _ingest(svc, user, context, [asking, "縁側の日だまりが気に入ったみたい。一日中さえずってる。"])
    found = svc.recall(user, RecallRequest("ぴーちゃんは元気？", (context,), force=True))
    reply = next(it for it in found.items if it.in_reply_to)
    assert reply.in_reply_to != asking  # its closing sentences, rejoined with a space
    note = _item("c:1", asking)
    placed = arrange(
        "ぴーちゃん", [note, reply], None, max_items=5, budget=1000, chars_per_token=4.0
    )
    assert [(p.item.key, p.outcome) for p in placed] == [
        (reply.key, "served"),
        ("c:1", "duplicate"),
    ]


# A question that resembles the asked one in form ("Tom, did you … last year?") but was answered
# with something else, and a statement that answers it (cosines with the USE default: 0.65 for
# the question, -0.02 for its reply, 0.46 for the statement).
LOOKALIKE = [
    "Last year Tom moved to a flat in Lisbon near the river.",
    "Tom, did you go anywhere nice last year?",
    "Only to my aunt's birthday party, it rained all day.",
    "I sold the old bicycle.",
]
MOVED = "Where did Tom move to last year?"


def _cosine(vsvc: Tabane, question: str, text: str) -> float:
    assert vsvc.embedder is not None
    a = np.asarray(vsvc.embedder.embed_query(question), dtype=np.float64).reshape(-1)
    b = np.asarray(vsvc.embedder.embed_documents([text])[0], dtype=np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


@pytest.mark.slow
def test_a_turn_that_asks_is_scored_with_the_reply_it_serves(vsvc: Tabane, user, context):
    chat = "lookalike"
    for speaker, text in zip(("Ann", "Mia", "Tom", "Mia"), LOOKALIKE, strict=True):
        vsvc.add_turn(user, chat, text, speaker=speaker)
    vsvc.wait_for_jobs()
    ask = RecallRequest(MOVED, (context,), session=chat)
    # Scored alone, the question's likeness in form carried its unrelated reply first. (Tom said
    # the reply and the question names him: voices, test_voices.py, are off to compare scores.)
    alone = vsvc.recall(user, ask, tunables=Tunables(exchange=False, voices=False))
    assert [it.text for it in alone.items][:2] == [LOOKALIKE[2], LOOKALIKE[0]]
    exchange = vsvc.recall(user, ask, tunables=Tunables(voices=False))
    assert [it.text for it in exchange.items][:2] == [LOOKALIKE[0], LOOKALIKE[2]]
    reply = next(c for c in exchange.trace.candidates if c.reply_to is not None)
    mean = (_cosine(vsvc, MOVED, LOOKALIKE[1]) + _cosine(vsvc, MOVED, LOOKALIKE[2])) / 2
    assert reply.lanes[0].lane == "turns" and reply.lanes[0].score == pytest.approx(mean, abs=2e-3)


@pytest.mark.slow
def test_a_paragraph_that_asks_ranks_in_the_vector_lane_as_its_exchange(
    vsvc: Tabane, user, context
):
    _ingest(vsvc, user, context, LOOKALIKE)
    vsvc.wait_for_jobs()
    ask = RecallRequest(MOVED, (context,))

    def vector(result, idx: int) -> tuple[int, float]:
        key = next(it.key for it in result.items if it.citation.paragraph == idx)
        found = next(c for c in result.trace.candidates if c.key == key)
        return next((r.rank, r.score) for r in found.lanes if r.lane == "vector")

    alone = vsvc.recall(user, ask, tunables=Tunables(exchange=False))
    asked, said = vector(alone, 2), vector(alone, 0)  # the reply (2) serves the question (1)
    assert asked[0] == 1 and said[0] == 2
    plain = vsvc.recall(user, ask, tunables=Tunables(replies=False))
    reply_alone = vector(plain, 2)[1]  # without replies, paragraph 2 is an item of its own
    exchange = vsvc.recall(user, ask)
    assert vector(exchange, 0)[0] == 1
    rank, score = vector(exchange, 2)
    assert rank == 2 and score == pytest.approx((asked[1] + reply_alone) / 2, abs=1e-4)
    assert exchange.items[0].text == LOOKALIKE[0]
