"""A paragraph or turn that asks a question gives its place to its reply (the next paragraph of its
source, the next turn of its session), and the question rides along as `in_reply_to`."""

from __future__ import annotations

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.explain import Expected
from tabane.recall.order import arrange
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.service import Tabane

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
