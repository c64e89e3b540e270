"""Derived items earn their place (issue 30 item 4, decision 0046): a RAPTOR overview is read
after the direct evidence when a passage clearly answers the question, and keeps its place when
none does.

An overview maps a region of the corpus. A broad question ("which topics does this collection
cover?") is answered by that map, and scale.py lets the overview up when no passage stands out;
a specific one ("how often should I descale the espresso machine?") is answered by a passage,
and an overview above it takes a place evidence wants. The criterion reads the items, not a
score: the question's specific terms (support.py `specific`: its words other than the names of
the people the items are by and the frame of a question) and whether an item of direct evidence
among the first `max_items` (read with what it answers, `in_reply_to`) mentions at least
`need` of them (a share; support.py `mentions`: stems, a word inside another, kana runs, kanji
bigrams). When one does, every overview is read after the other items (order.py
`summaries_last`); the trace's notes say which item answered and with which terms.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabane.recall import support
from tabane.recall.result import Evidence

# Kinds that summarise other items: never the passage that answers.
DERIVED = ("raptor", "profile", "community")
_NOTE = "overviews after: "


def answered(
    question: str, ordered: Sequence[Evidence], max_items: int, need: float
) -> tuple[str, tuple[str, ...]] | None:
    """The first item of direct evidence among the first `max_items` of `ordered` that mentions
    at least `need` (a share, > 0) of the question's specific terms, with the terms it
    mentions; None when the question has no specific term or no such item is there."""
    names = {it.author for it in ordered if it.author and it.author.strip()}
    terms = support.specific(question, names)
    if not terms or need <= 0:
        return None
    for it in [it for it in ordered[:max_items] if it.kind not in DERIVED]:
        text = f"{it.in_reply_to or ''}\n{it.text}"
        said = tuple(shown for t, shown in terms.items() if support.mentions(t, shown, text))
        if said and len(said) >= need * len(terms):
            return it.key, said
    return None


def overviews_after(
    question: str,
    ordered: Sequence[Evidence],
    max_items: int,
    need: float,
    notes: list[str] | None,
) -> bool:
    """Whether the overviews are read after the other items (`answered`); the reason, when they
    are and one of the first `max_items` is an overview, goes to `notes`."""
    got = answered(question, ordered, max_items, need)
    if got is None:
        return False
    if notes is not None and any(it.kind == "raptor" for it in ordered[:max_items]):
        key, said = got
        notes.append(f"{_NOTE}{key} answers the question (it mentions {', '.join(said)})")
    return True
