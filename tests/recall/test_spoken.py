"""A conversation stored as a document speaks (recall/spoken.py): its paragraphs' headings are
their speakers for the support check when the asker is one of them, and a paragraph answers the
one before it."""

from __future__ import annotations

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.recall.spoken import voiced
from tabane.service import Tabane


def _paragraph(n: int, section: tuple[str, ...], text: str) -> Evidence:
    return Evidence(f"p:{n}", "paragraph", text, "source excerpt", Citation(section=section), ())


TURNS = [
    _paragraph(1, ("Tom",), "My tortoise Pebble turned forty this spring!"),
    _paragraph(2, ("Ann",), "I spent the weekend repainting the boat shed."),
    _paragraph(3, ("Installing", "APT"), "Run the installer as root."),
]


def test_a_transcripts_paragraphs_speak_as_their_heading_when_the_asker_is_one():
    got = voiced(TURNS, "Ann")
    assert [it.author for it in got] == ["Tom", "Ann", None]  # two headings: not a speaker
    assert [it.key for it in got] == ["p:1", "p:2", "p:3"]


def test_a_paragraph_is_nobodys_when_the_asker_heads_none_or_nobody_asks():
    assert [it.author for it in voiced(TURNS, None)] == [None, None, None]
    assert [it.author for it in voiced(TURNS, "Installing")] == [None, None, None]
    assert [it.author for it in voiced(TURNS, "Bea")] == [None, None, None]


CHAT = [
    ("Ann", "How old is your tortoise now?"),
    ("Tom", "Forty this spring, and still greedy."),
    ("Ann", "I spent the weekend repainting the boat shed."),
    ("Tom", "My kayak finally has a rack on the car roof."),
]


def _transcript(svc: Tabane, user, context: str) -> None:
    paragraphs = [block(text, section=(who,)) for who, text in CHAT]
    svc.ingest(user, context, DocumentInput(source_id="s1", paragraphs=paragraphs, title="s1"))
    svc.wait_for_jobs()


@pytest.mark.slow
def test_a_transcript_says_nothing_is_remembered_and_reads_a_reply_with_its_question(
    vsvc: Tabane, user, context
):
    _transcript(vsvc, user, context)
    ask = RecallRequest("What is the name of Ann's kayak?", (context,), speaker="Tom")
    plain = vsvc.recall(user, ask, tunables=Tunables(support=False))
    toms = [it.key for it in plain.items if "kayak" in it.text]
    assert toms and plain.unsupported is None
    got = vsvc.recall(user, ask)
    assert got.unsupported == "Nothing remembered says 'kayak' of Ann."
    assert not set(toms) & {it.key for it in got.items}  # Tom's kayak is not served as Ann's
    # Tom's reply does not say "tortoise": the paragraph before it ("your tortoise") does
    reply = RecallRequest("How old is Tom's tortoise?", (context,), speaker="Ann")
    answered = vsvc.recall(user, reply)
    assert answered.unsupported is None
    note = [n for n in answered.trace.notes if n.startswith("support:")]
    said = next(it.key for it in answered.items if it.text.startswith("Forty"))
    assert note and said in note[0]
    docs = RecallRequest("What is the name of Ann's kayak?", (context,))
    assert vsvc.recall(user, docs).unsupported is None  # nobody asks: a docs question
