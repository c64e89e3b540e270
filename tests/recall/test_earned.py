"""Overviews earn their place (recall/earned.py, decision 0046): a RAPTOR overview is read after
the direct evidence when a passage clearly answers the question (mentions enough of its specific
terms), and keeps its place for a broad question that no passage answers."""

from __future__ import annotations

from tabane.recall.earned import answered
from tabane.recall.order import arrange
from tabane.recall.plan import Tunables
from tabane.recall.result import Citation, Evidence

OVERVIEW = Evidence(
    "r:1",
    "raptor",
    "Topics: espresso notes, garden notes. Brewing coffee at home and keeping plants alive.",
    "derived memory",
    Citation(),
    (),
)
DESCALE = Evidence(
    "p:1",
    "paragraph",
    "Descale the espresso machine every two months with citric acid.",
    "source excerpt",
    Citation(),
    (),
)
TOMATO = Evidence(
    "p:2", "paragraph", "Water the tomatoes in the morning.", "source excerpt", Citation(), ()
)
BROAD = "Give me a broad overview: which topics does this collection cover?"
SPECIFIC = "How often should I descale the espresso machine?"
NEED = Tunables().overviews_need


def keys(question: str, notes: list[str] | None = None, need: float = NEED) -> list[str]:
    placed = arrange(question, [OVERVIEW, TOMATO, DESCALE], None, max_items=20, budget=2000,
                     chars_per_token=4.0, earn=(need, 0), notes=notes)  # fmt: skip
    return [p.item.key for p in placed if p.outcome == "served"]


def test_a_broad_question_keeps_its_overview_first() -> None:
    assert NEED > 0
    notes: list[str] = []
    assert keys(BROAD, notes) == ["r:1", "p:2", "p:1"]
    assert notes == [] and answered(BROAD, [OVERVIEW, TOMATO, DESCALE], 20, NEED) is None


def test_a_specific_question_gets_the_passage_that_answers_before_the_overview() -> None:
    notes: list[str] = []
    assert keys(SPECIFIC, notes) == ["p:2", "p:1", "r:1"]
    said = "it mentions descale, espresso, machine"
    assert notes == [f"overviews after: p:1 answers the question ({said})"]
    assert keys(SPECIFIC, need=0.0) == ["r:1", "p:2", "p:1"]  # off: the fused order stands


def test_the_share_of_terms_a_passage_must_mention_is_the_criterion() -> None:
    # "often" frames the question; asked about the grinder, the passage mentions two of the
    # three terms: enough at a half, not at all of them
    assert answered(SPECIFIC, [DESCALE], 20, 0.5) == ("p:1", ("descale", "espresso", "machine"))
    grinder = "How often should I descale the espresso grinder?"
    assert answered(grinder, [DESCALE], 20, 0.5) == ("p:1", ("descale", "espresso"))
    assert answered(grinder, [DESCALE], 20, 1.0) is None


def test_the_names_of_the_people_the_items_are_by_are_not_terms() -> None:
    said = Evidence("c:1", "claim", "Mina walks to work.", "derived memory", Citation(), (),
                    author="Mina")  # fmt: skip
    assert answered("How does Mina get to work?", [said], 20, 1.0) == ("c:1", ("work",))
