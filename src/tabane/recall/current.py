"""Supersession: a later statement by the same holder about the same subject is current.

Memory keeps every version of a value ("we'll rent on Tannery Row", then months later "we ended
up going with the other flat"); a question about it should read the current one first and the
earlier ones beside it, marked, so the change itself is readable. Among the first `span` items
of recall's order, an item said or held by someone (a turn's speaker, a note's holder) is
superseded by a later one of the same holder when the later one was said on a later day and
either

- both assert a triple with the same subject and label (and perspective) and other objects, or
- their texts are about the same thing: the cosine of their embeddings is at least `tau` (the
  vectors the claims and turns lanes rank by, read by `vectors`).

Statements of one day are one conversation's elaboration, not a revision. The latest successor
of a superseded item takes the earlier one's place and the earlier one follows it, marked with
the successor's citation (`Evidence.superseded_by`); the items between move down one place.
`tau` and `span` were chosen by cross-validation on the memory sets (docs/journal/eval.md,
"Supersession"; `bench/recall_cv.py`).

A question about the present ("Where does Tom work now?", "結局どこに住んでいる?") asks for a
value's current state, and the statements that answer it are the holder's latest. When the
question says so (`asks_now`), each holder's statements among the first `span` items are served
newest first, in the places they hold (`newest_first`): an earlier plan ("we'll rent on Tannery
Row") follows the later outcome. Nothing else moves, so the items served stay the same; which
statements are "about the same thing" is left to the question, because no embedding measured
here tells a revision from another statement of the same speaker (docs/journal/eval.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.recall.cite import cite
from tabane.recall.result import Evidence
from tabane.storage.schema import ClaimVector, TurnVector

Vec = np.ndarray[Any, np.dtype[np.float32]]


def vectors(session: Session, items: Sequence[Evidence], model: str | None) -> dict[str, Vec]:
    """The stored embeddings of the claims and turns among `items`, by item key (unit length,
    as the embedder wrote them); none without a model."""
    if model is None:
        return {}
    return stored(session, [it for it in items if it.author], model)


def stored(session: Session, items: Sequence[Evidence], model: str) -> dict[str, Vec]:
    """The vectors of `model` stored for the claims and session turns among `items`, by item
    key, in one statement per kind (visible under the caller's policies, as the items are);
    recall/e5.py reads e5's through it."""
    out: dict[str, Vec] = {}
    for prefix, table, column in (
        ("c:", ClaimVector, ClaimVector.claim_id),
        ("t:", TurnVector, TurnVector.turn_id),
    ):
        ids = [int(it.key[2:]) for it in items if it.key.startswith(prefix)]
        if not ids:
            continue
        rows = session.execute(
            select(column, table.embedding).where(column.in_(ids), table.model == model)
        )
        out.update({f"{prefix}{i}": np.asarray(v, dtype=np.float32) for i, v in rows})
    return out


def _revises(earlier: Evidence, later: Evidence, vecs: Mapping[str, Vec], tau: float) -> bool:
    if earlier.author is None or earlier.author != later.author:
        return False
    if earlier.when is None or later.when is None or later.when.date() <= earlier.when.date():
        return False
    a, b = earlier.fact, later.fact
    if a is not None and b is not None:
        same = (a.context, a.perspective, a.subject, a.label)
        return same == (b.context, b.perspective, b.subject, b.label) and a.object != b.object
    va, vb = vecs.get(earlier.key), vecs.get(later.key)
    return va is not None and vb is not None and float(va @ vb) >= tau


def successors(
    ordered: Sequence[Evidence], vecs: Mapping[str, Vec], tau: float, span: int
) -> dict[str, Evidence]:
    """Each item of the first `span` that a later one of them revises → its latest revision."""
    top = list(ordered[:span])
    out: dict[str, Evidence] = {}
    for earlier in top:
        later = [it for it in top if _revises(earlier, it, vecs, tau)]
        if later:
            out[earlier.key] = max(later, key=lambda it: (it.when, it.key))
    return out


def current_first(
    ordered: Sequence[Evidence], vecs: Mapping[str, Vec], tau: float, span: int
) -> list[Evidence]:
    """`ordered` with each superseded item's latest revision in its place and the item right
    after it, marked `superseded_by` (the revision's citation)."""
    latest = successors(ordered, vecs, tau, span)
    if not latest:
        return list(ordered)
    out: list[Evidence] = []
    placed: set[str] = set()
    for it in ordered:
        if it.key in placed:
            continue
        if it.key in latest:
            newer = latest[it.key]
            if newer.key not in placed:
                out.append(newer)
                placed.add(newer.key)
            it = replace(it, superseded_by=cite(newer))
        out.append(it)
        placed.add(it.key)
    return out


# Words of a question that ask for the present state of something: its current value, or how a
# change came out. Whole words in English; anywhere in Japanese, which has no spaces (今 also
# stands in 今年, 今日, 今回: the present as well).
_NOW_EN = re.compile(
    r"(?<!\w)(now|right now|currently|current|nowadays|these days|at the moment|at present|"
    r"presently|still|any ?more|latest|in the end|end(?:s|ed)? up|eventually|finally|so far)(?!\w)"
)
_NOW_JA = re.compile("今|現在|最近|結局|最終的|になった")


def asks_now(question: str) -> str | None:
    """The word by which `question` asks about the present ("now", "in the end", "今"), or None."""
    asked = unicodedata.normalize("NFKC", question).casefold()
    found = _NOW_EN.search(asked) or _NOW_JA.search(asked)
    return found.group(0) if found else None


def _states(item: Evidence) -> bool:
    """Whether the item is a dated statement of a holder (not a question it asks)."""
    asking = item.text.rstrip().endswith(("?", "？"))
    return item.author is not None and item.when is not None and not asking


def newest_first(ordered: Sequence[Evidence], span: int) -> tuple[list[Evidence], set[str]]:
    """Each holder's statements among the first `span` items reordered newest day first, in the
    places they hold (one day's statements keep their order); the other items stay where they
    are. Returns the order and the keys of the items that moved."""
    top = list(ordered[:span])
    out = list(top)
    holders: dict[str, list[int]] = {}
    for n, it in enumerate(top):
        if _states(it):
            holders.setdefault(str(it.author), []).append(n)
    for places in holders.values():
        newest = sorted(places, key=lambda n: (-_day(top[n]), n))
        for place, n in zip(places, newest, strict=True):
            out[place] = top[n]
    moved = {it.key for it, was in zip(out, top, strict=True) if it.key != was.key}
    return out + list(ordered[span:]), moved


def _day(item: Evidence) -> int:
    assert item.when is not None  # _states
    return item.when.date().toordinal()
