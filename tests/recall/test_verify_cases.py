"""The verifier's parsing and its paraphrase threshold on constructed cases (no store): the
cases docs/guide.md's verdict table lists."""

from __future__ import annotations

import pytest

from tabane.recall.verify import PARAPHRASE_OVERLAP, _citations, _match, _quotes

PARAGRAPH = "Descale the heating element with vinegar once a month to remove limescale."


@pytest.mark.parametrize(
    ("span", "verdict"),
    [
        ("heating   element with vinegar", "quote"),  # whitespace folded
        ("Descale the heating element with ｖｉｎｅｇａｒ", "quote"),  # NFKC: full-width letters
        ("descale the heating element with vinegar", "paraphrase"),  # case is not verbatim
        ("remove the limescale with vinegar every month", "paraphrase"),
        ("the element needs vinegar", "paraphrase"),  # 3 of 4 words: 0.75
        ("the element wants lemon", "drifted"),  # 2 of 4: 0.5
        ("the element needs lemon juice weekly", "drifted"),  # 2 of 6
        ("boil the milk slowly on the stove", "drifted"),
    ],
)
def test_quote_verdicts_on_constructed_cases(span: str, verdict: str) -> None:
    assert _match(span, [PARAGRAPH])[0] == verdict


def test_the_threshold_is_the_documented_one() -> None:
    assert PARAPHRASE_OVERLAP == 0.6


def test_citations_in_the_bundles_forms_and_the_titles_are_not_quotes() -> None:
    answer = (
        'A "boils fast" ("Kettle" (kettle), Care > Descaling, paragraph 1); '
        "(k2), paragraph 0; 「湯を沸かす」 (k3), paragraph 12"
    )
    cites = _citations(answer)
    assert [(c.source, c.paragraph) for c in cites] == [("kettle", 1), ("k2", 0), ("k3", 12)]
    assert [q[0] for q in _quotes(answer, cites)] == ["boils fast", "湯を沸かす"]


def test_item_numbers_are_citations_too() -> None:
    answer = 'As [2] says, "boils fast" (kettle), paragraph 1 [3]'
    cites = _citations(answer)
    assert [(c.source, c.paragraph, c.index) for c in cites] == [
        (None, None, 2),
        ("kettle", 1, None),
        (None, None, 3),
    ]


def test_a_source_id_may_hold_spaces() -> None:
    cites = _citations('"Notes" (/home/me/My Notes.md), Setup, paragraph 4')
    assert [(c.source, c.paragraph) for c in cites] == [("/home/me/My Notes.md", 4)]
