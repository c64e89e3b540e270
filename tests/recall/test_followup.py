"""A follow-up read with the turn it follows (recall/followup.py): made-up questions and a
made-up session, never the dev sets' content."""

from __future__ import annotations

import pytest

from tabane.principal import Principal
from tabane.recall import followup
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane

from helpers import unique


@pytest.mark.parametrize(
    "question",
    ["Which one should I use?", "What about the other one?", "Is it any good?", "Why?",
     "どれを使えばいい?", "それはいつ?"],
)  # fmt: skip
def test_a_question_that_names_nothing_follows(question: str) -> None:
    assert followup.follows(question)


@pytest.mark.parametrize(
    "question",
    ["Who is Biscuit?", "Where does Hannah live now?", "Which queue does billing use?",
     "花は今どこに住んでいる?", "紙に黒い点が出るのはなぜ?", "And in Python?"],
)  # fmt: skip
def test_a_question_that_names_its_topic_is_read_alone(question: str) -> None:
    assert not followup.follows(question)
    assert followup.read_as(question, "We talked about queues.") == question


def test_the_turn_before_is_not_the_question_itself() -> None:
    asked = "Which one should I use?"
    assert followup.turn_before(asked, [asked, "RabbitMQ or Kafka?"]) == "RabbitMQ or Kafka?"
    assert followup.turn_before(asked, ["RabbitMQ or Kafka?", "hi"]) == "RabbitMQ or Kafka?"
    assert followup.turn_before(asked, [asked]) is None
    assert followup.read_as(asked, "RabbitMQ or Kafka?") == f"RabbitMQ or Kafka?\n{asked}"
    assert followup.read_as(asked, None) == asked


NOTES = (
    "For the billing service we standardised on RabbitMQ; Kafka is kept for analytics streams.",
    "Use the scissors with the blue handle; the other pair is blunt.",
    "The office plants are watered on Mondays and Thursdays.",
    "Take the 8:15 train, the later one is always packed.",
    "The wiki password rotates every ninety days.",
)


@pytest.mark.slow
def test_which_one_should_i_use_reads_the_turn_before(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    ids = [vsvc.remember(user, context, {"text": note}) for note in NOTES]
    assert vsvc.wait_for_jobs(timeout=120) == 0
    chat = unique("chat")
    vsvc.add_turn(user, chat, "I need a message queue for the new billing worker.")
    vsvc.add_turn(user, chat, "Which one should I use?")
    question = "Which one should I use?"
    alone = vsvc.recall(user, RecallRequest(question, (context,)))
    assert alone.items[0].text != NOTES[0]  # the question alone matches its form elsewhere
    asked = vsvc.recall(user, RecallRequest(question, (context,), session=chat))
    notes = [it.text for it in asked.items if it.kind == "claim"]
    assert notes[0] == NOTES[0]
    assert asked.question == question  # the question as asked is what is reported
    said = [n for n in asked.trace.notes if n.startswith("follow-up:")]
    assert said and "new billing worker" in said[0]  # the trace says what it was read with
    assert not [n for n in alone.trace.notes if n.startswith("follow-up:")]
    # the explain twin reads the question as recall did
    why = vsvc.explain_recall(
        user, RecallRequest(question, (context,), session=chat), Expected(claim=ids[0])
    )
    assert why.key == f"c:{ids[0]}"
    assert why.position == [it.key for it in asked.items].index(f"c:{ids[0]}") + 1
    # a question that names its own topic is read alone, whatever was said before
    own = "Which train should I take?"
    assert [it.key for it in vsvc.recall(user, RecallRequest(own, (context,))).items] == [
        it.key
        for it in vsvc.recall(user, RecallRequest(own, (context,), session=chat)).items
        if it.kind == "claim"
    ]
