"""Among the statements of the person a question names, the question is read in that person's
voice: their name as "I" (私), their possessive as "my" (recall/voice.py)."""

from __future__ import annotations

from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.result import Citation, Evidence
from tabane.recall.voice import blend, holder, in_voice
from tabane.service import Tabane


def _item(key: str, author: str | None) -> Evidence:
    return Evidence(key, "claim", key, "note", Citation(), (), author=author)


def test_the_named_person_is_read_as_the_first_person():
    assert in_voice("Where does Hannah work now?", "Hannah") == "Where does I work now?"
    assert in_voice("What is HANNAH'S dog called?", "Hannah") == "What is my dog called?"
    assert in_voice("Is Hannahs a name?", "Hannah") == "Is Hannahs a name?"  # whole words only
    assert in_voice("花さんは今どこに住んでいる?", "花") == "私は今どこに住んでいる?"
    assert in_voice("Where does Ｈａｎｎａｈ live?", "Hannah") == "Where does I live?"  # NFKC


def test_only_a_question_naming_one_speaker_has_a_holder():
    items = [_item("c:1", "Hannah"), _item("c:2", "Ravi"), _item("p:3", None)]
    assert holder("Where does Hannah work?", items) == "Hannah"
    assert holder("Did Hannah meet Ravi?", items) is None  # two named: no single voice
    assert holder("Where is the office?", items) is None


def test_blend_keeps_the_order_at_weight_zero_and_follows_the_voice_as_it_grows():
    items = [_item("c:1", "H"), _item("c:2", "H"), _item("c:3", "H")]
    heard = {"c:1": 0.1, "c:2": 0.2, "c:3": 0.9}
    by = lambda s: sorted(s, key=lambda k: -s[k])  # noqa: E731
    assert by(blend(heard, items, 60.0, 0.0)) == ["c:1", "c:2", "c:3"]
    assert by(blend(heard, items, 60.0, 0.5)) == ["c:1", "c:2", "c:3"]  # the order leads
    assert by(blend(heard, items, 60.0, 4.0)) == ["c:3", "c:2", "c:1"]


# Hannah's replies are embedded after what they answer, and what Ravi asks her carries her name;
# her statement of where she works does not.
EXCHANGES = [
    ("Hannah, how was the weekend at your sister's?", "Quiet, mostly reading in the garden."),
    ("Hannah! Happy birthday, did you get my card?", "I did, thank you, it made me laugh."),
    ("Hannah, are you still coming to the quiz on Friday?", "Yes, count me in for the quiz."),
    ("Any news from the coast?", "I started as a ranger at the national park last month."),
]


def test_the_named_persons_answer_comes_first_among_their_statements(vsvc: Tabane, user, context):
    ids = []
    for asked, said in EXCHANGES:
        vsvc.remember(user, context, {"text": asked}, speaker="Ravi")
        ids.append(
            vsvc.remember(user, context, {"text": said, "in_reply_to": asked}, speaker="Hannah")
        )
    vsvc.wait_for_jobs()
    ask = RecallRequest("Where does Hannah work?", (context,))
    hers = lambda r: [it.key for it in r.items if it.author == "Hannah"]  # noqa: E731
    plain = hers(vsvc.recall(user, ask, tunables=Tunables(holder_voice=0.0)))
    voiced = hers(vsvc.recall(user, ask, tunables=Tunables(holder_voice=4.0)))
    job = f"c:{ids[-1]}"
    assert sorted(plain) == sorted(voiced)  # the same statements, in another order
    assert voiced[0] == job
    assert plain.index(job) > voiced.index(job)
