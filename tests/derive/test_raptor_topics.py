"""The topic line of a RAPTOR node: titles by the paragraphs they hold, cut at its length."""

from __future__ import annotations

from collections import Counter

from tabane.derive.raptor import topics


def test_titles_holding_most_paragraphs_come_first_then_by_title() -> None:
    line = topics.line(Counter({"Zeta": 1, "Alpha": 1, "Tutorial": 5, "  ": 9}))
    assert line == "Topics: Tutorial · Alpha · Zeta."
    assert topics.line(Counter()) == ""  # notes only: no line


def test_the_line_is_cut_at_whole_titles_but_keeps_the_first() -> None:
    many = Counter({f"Title number {n:03d}": 100 - n for n in range(60)})
    line = topics.line(many)
    assert len(line) <= topics.MAX_CHARS and line.endswith(".")
    assert line.startswith("Topics: Title number 000 · Title number 001")
    long = topics.line(Counter({"x" * 400: 1}))
    assert long == f"Topics: {'x' * 400}."  # a single title is never dropped


def test_join_and_split_round_trip() -> None:
    stored = topics.join("Topics: A · B.", "The summary. [p:1]")
    assert stored == "Topics: A · B.\nThe summary. [p:1]"
    assert topics.split(stored) == "The summary. [p:1]"
    assert topics.split("Plain summary.") == "Plain summary."
    assert topics.join("", "Only a summary.") == "Only a summary."
