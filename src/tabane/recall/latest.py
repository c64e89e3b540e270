"""Latest first: of two statements one holder made about one subject, the later is current
(issue 30, decision 0042).

Memory keeps every version of a value ("we'll rent on Tannery Row", months later "we ended up
going with the other flat"); whatever the question's words, a reader should meet the current
one first and the earlier one after it, marked, so the change itself is readable. Among the
first `span` items of recall's order, two statements (a note, a turn, a session paragraph)
are about one subject when

- one holder said them (a statement's author, or the speaker a session paragraph is stored
  under), on different days (one day's statements are one conversation's elaboration), neither
  asking, and
- each is the other's nearest statement of that holder by the cosine of their stored
  embeddings, that cosine at least `floor`.

Mutual nearness is a similarity between the statements themselves, relative to what else the
holder said: the embedder's cosines between one speaker's statements sit in a narrow band (the
median 0.21, the 90th percentile 0.38 on the memory sets), so no fixed threshold tells a
revision from another remark, while "nearer each other than to anything else they said" does
(decision 0042: the measurement, and the absolute threshold and the newest-first order it
replaced). The later statement takes the earlier one's place if it ranks after it, the items
between moving down one; the earlier one is marked with the later one's citation
(`Evidence.superseded_by`), which carries its date. Only places among the first `span` change,
so the same items are served within them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.recall.cite import cite
from tabane.recall.result import Evidence
from tabane.storage.schema import ClaimVector, ParagraphVector, TurnVector

Vec = np.ndarray[Any, np.dtype[np.float32]]


def holder(item: Evidence) -> str | None:
    """Who said it: a statement's author, or the section a session's paragraph is stored
    under (a conversation loaded as a document keeps each turn under its speaker)."""
    if item.author:
        return item.author
    if item.kind == "paragraph" and item.citation.section:
        return item.citation.section[0]
    return None


def vectors(session: Session, items: Sequence[Evidence], model: str | None) -> dict[str, Vec]:
    """The stored embeddings of the claims, turns and paragraphs among `items` that have a
    holder, by item key (a paragraph's first piece); none without a model."""
    if not model:
        return {}
    out: dict[str, Vec] = {}
    for prefix, table, column in (
        ("c:", ClaimVector, ClaimVector.claim_id),
        ("t:", TurnVector, TurnVector.turn_id),
        ("p:", ParagraphVector, ParagraphVector.paragraph_id),
    ):
        ids = [int(it.key[2:]) for it in items if it.key.startswith(prefix) and holder(it)]
        if not ids:
            continue
        stmt = select(column, table.embedding).where(column.in_(ids), table.model == model)
        if table is ParagraphVector:
            stmt = stmt.where(ParagraphVector.ord == 0)
        rows = session.execute(stmt)
        out.update({f"{prefix}{i}": np.asarray(v, dtype=np.float32) for i, v in rows})
    return out


def _states(item: Evidence) -> bool:
    """A dated statement of a holder (not a question it asks)."""
    asking = item.text.rstrip().endswith(("?", "？"))
    return holder(item) is not None and item.when is not None and not asking


def nearest(
    top: Sequence[Evidence], places: Sequence[int], vecs: Mapping[str, Vec]
) -> dict[int, tuple[int, float]]:
    """Each statement's nearest other statement of the same holder (place, cosine)."""
    out: dict[int, tuple[int, float]] = {}
    for a in places:
        va = vecs.get(top[a].key)
        for b in places:
            vb = vecs.get(top[b].key)
            if va is None or vb is None or b == a or holder(top[b]) != holder(top[a]):
                continue
            cos = float(va @ vb)
            if a not in out or cos > out[a][1]:
                out[a] = (b, cos)
    return out


def pairs(
    ordered: Sequence[Evidence], vecs: Mapping[str, Vec], floor: float, span: int
) -> list[tuple[int, int]]:
    """The (earlier said, later said) places among the first `span` of each two statements
    about one subject: one holder, different days, each the other's nearest, cosine ≥ floor."""
    top = list(ordered[:span])
    seen: set[str] = set()
    places = []  # a statement served twice (a note and its turn) counts once: order.py drops it
    for n, it in enumerate(top):
        if _states(it) and it.text not in seen:
            places.append(n)
        seen.add(it.text)
    near = nearest(top, places, vecs)
    out: list[tuple[int, int]] = []
    for a, (b, cos) in near.items():
        if a >= b or near.get(b, (None, 0.0))[0] != a or cos < floor:
            continue
        old, new = sorted((a, b), key=lambda n: _day(top[n]))
        if _day(top[old]) < _day(top[new]):
            out.append((old, new))
    return out


def latest_first(
    ordered: Sequence[Evidence], vecs: Mapping[str, Vec], floor: float, span: int
) -> tuple[list[Evidence], dict[str, Evidence]]:
    """`ordered` with the later statement of each pair (`pairs`) in the earlier one's place
    when it ranks after it. Returns the order and, by the earlier statement's key, the later
    one that supersedes it (`mark` writes it on the item)."""
    out = list(ordered)
    later: dict[str, Evidence] = {}
    for old, new in pairs(ordered, vecs, floor, span):
        earlier, current = ordered[old], ordered[new]
        later[earlier.key] = current
        if new > old:
            out.remove(current)
            out.insert(out.index(earlier), current)
    return out, later


def mark(ordered: Sequence[Evidence], later: Mapping[str, Evidence]) -> list[Evidence]:
    """Each superseded statement marked with the citation of the one that supersedes it."""
    return [
        replace(it, superseded_by=cite(later[it.key])) if it.key in later else it for it in ordered
    ]


def _day(item: Evidence) -> int:
    assert item.when is not None  # _states
    return item.when.date().toordinal()
