"""The BM25 lane: real BM25 over tabane's packed postings (postings.py), read in one query and
scored in numpy.

score(p) = Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)),
idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)), over the distinct query terms t, with N, avgdl and df
from the statistics rows the caller can see (postings.py). Ties break on the paragraph id.
The explain twin calls `statistics`, `scores` and `contributions` — the same code — for its
evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import (
    ARRAY,
    LargeBinary,
    Select,
    Text,
    bindparam,
    func,
    literal,
    select,
)
from sqlalchemy.orm import Session

from tabane.search import postings
from tabane.search.codec import Records
from tabane.search.merged_read import read_merged
from tabane.storage.binary import binary_rows
from tabane.storage.schema import CorpusStats, Pack, TermStats

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Statistics:
    paragraphs: int
    avgdl: float
    df: dict[str, int]

    @classmethod
    def of(cls, paragraphs: int, total_length: int, df: dict[str, int]) -> Statistics:
        """From the corpus sums the caller can see (N and the summed lengths)."""
        avgdl = total_length / paragraphs if paragraphs else 0.0
        return cls(paragraphs=paragraphs, avgdl=avgdl, df=df)

    def idf(self, term: str) -> float:
        return idf(self.paragraphs, self.df.get(term, 0))


@dataclass(frozen=True)
class LaneHit:
    paragraph_id: int
    score: float
    rank: int
    question_terms: tuple[str, ...] = ()


def idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def unique_terms(tokens: Sequence[str]) -> list[str]:
    """Distinct query terms in first-seen order."""
    return list(dict.fromkeys(tokens))


def statistics(session: Session, context_id: int, terms: Sequence[str]) -> Statistics:
    """N, the average length and each term's document frequency over the statistics rows the
    caller can see."""
    df: dict[str, int] = {}
    if terms:
        rows = session.execute(
            select(TermStats.term, func.sum(TermStats.df))
            .where(
                TermStats.context_id == context_id,
                TermStats.term == func.any(_texts("bm25_terms", terms)),
            )
            .group_by(TermStats.term)
        ).all()
        df = {term: int(count) for term, count in rows if count}
    return _with_corpus(session, context_id, df)


def _with_corpus(session: Session, context_id: int, df: dict[str, int]) -> Statistics:
    n, total = session.execute(
        select(
            func.coalesce(func.sum(CorpusStats.paragraphs), 0),
            func.coalesce(func.sum(CorpusStats.total_length), 0),
        ).where(CorpusStats.context_id == context_id)
    ).one()
    return Statistics.of(int(n), int(total), df)


@dataclass(frozen=True)
class Scores:
    """The BM25 score of every paragraph holding at least one query term (ids ascending)."""

    ids: np.ndarray[Any, np.dtype[np.int64]]
    scores: np.ndarray[Any, np.dtype[np.float64]]

    @property
    def keys(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        # Ranked on the score rounded to 1e-9: sums of the same parts in another order can
        # differ in the last bit, and tied paragraphs must tie exactly (then the id decides).
        return np.round(self.scores * 1e9) / 1e9

    def best(self, k: int) -> list[tuple[int, float]]:
        """The first `k` (paragraph id, score), best first, ties on the smaller id."""
        if k <= 0 or not len(self.ids):
            return []
        keys = self.keys
        pick = np.arange(len(keys))
        if len(keys) > k:  # everything tied with the k-th best, then the exact order
            kth = np.partition(-keys, k - 1)[k - 1]
            pick = np.flatnonzero(-keys <= kth)
        order = pick[np.lexsort((self.ids[pick], -keys[pick]))][:k]
        return [(int(self.ids[i]), float(self.scores[i])) for i in order]

    def rank(self, paragraph_id: int) -> int | None:
        """1-based rank of one paragraph in the same order as `best`; None when it holds none of
        the terms."""
        at = int(np.searchsorted(self.ids, paragraph_id))
        if at >= len(self.ids) or self.ids[at] != paragraph_id:
            return None
        keys = self.keys
        mine = keys[at]
        return (
            int(np.count_nonzero((keys > mine) | ((keys == mine) & (self.ids < paragraph_id)))) + 1
        )


def read(
    session: Session,
    context_id: int,
    terms: Sequence[str],
    *,
    eligible: Select[Any] | None = None,
    source_pk: int | None = None,
) -> dict[str, Records]:
    """Each term's postings the caller can see in one context (search/codec.py): one row per
    term, the packs of every source concatenated by the server."""
    if not terms:
        return {}
    if eligible is None and source_pk is None:
        return read_merged(session, context_id, terms)[0]
    stmt = (
        select(Pack.term, func.string_agg(Pack.postings, literal(b"", LargeBinary)))
        .where(Pack.context_id == context_id, Pack.term == func.any(_texts("bm25_terms", terms)))
        .group_by(Pack.term)
    )
    if eligible is not None:
        stmt = stmt.where(Pack.source_pk.in_(eligible))
    if source_pk is not None:
        stmt = stmt.where(Pack.source_pk == source_pk)
    # binary results: bytea in the text format is hex, twice the bytes to send and decode
    return {term: postings.unpack(bytes(blob)) for term, blob in binary_rows(session, stmt)}


def parts(
    packs: Mapping[str, Any], term: str, stats: Statistics
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """One term's BM25 contribution to each paragraph of its pack, in the pack's order."""
    return _weights(packs[term], stats.idf(term), stats)


def _weights(recs: Any, idfs: Any, stats: Statistics) -> np.ndarray[Any, np.dtype[np.float64]]:
    """The BM25 term weight of each record, `idfs` its term's idf (a scalar, or one per
    record): the one formula `parts` and `score` share, so their sums are the same."""
    recs = Records.of(recs)  # or an array with the fields (bench/_blockmax.py)
    tf = recs.tf.astype(np.float64)
    dl = recs.dl.astype(np.float64)
    avgdl = stats.avgdl or 1.0
    weights: np.ndarray[Any, np.dtype[np.float64]] = (
        idfs * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
    )
    return weights


def score(packs: Mapping[str, Any], stats: Statistics) -> Scores:
    """Sum the terms' contributions per paragraph (`packs`: each term's `Records`, or arrays
    with their fields). Terms the statistics do not count (df 0 for this caller) contribute
    nothing, as in the reference formula."""
    terms = [t for t in packs if stats.df.get(t) and len(packs[t])]
    if not terms:
        return Scores(np.zeros(0, np.int64), np.zeros(0, np.float64))
    # One pass over every record: per-term passes cost ~1 ms of small numpy calls on a long
    # question.
    recs = Records.concat([Records.of(packs[t]) for t in terms])
    ids = recs.id
    idfs = np.repeat([stats.idf(t) for t in terms], [len(packs[t]) for t in terms])
    contrib = _weights(recs, idfs, stats)
    lo = int(ids.min())
    span = int(ids.max()) - lo + 1
    if span <= 4 * len(ids) + (1 << 16):  # dense enough to sum by offset
        sums = np.bincount(ids - lo, weights=contrib, minlength=span).astype(np.float64)
        held = np.flatnonzero(sums)  # every part is positive: idf > 0 and tf ≥ 1
        return Scores(held.astype(np.int64) + lo, sums[held])
    uniq, inverse = np.unique(ids, return_inverse=True)
    return Scores(uniq, np.bincount(inverse, weights=contrib).astype(np.float64))


def question_terms(
    packs: Mapping[str, Any], paragraph_ids: Sequence[int]
) -> dict[int, tuple[str, ...]]:
    """For each of `paragraph_ids`, the query terms it holds through doc2query questions
    (sorted), if any."""
    wanted = np.asarray(list(paragraph_ids), dtype=np.int64)
    asked: dict[int, list[str]] = {}
    for term in sorted(packs):
        asked_ids = packs[term]["id"][packs[term]["qtf"] > 0]  # few: most terms are never asked
        if not len(asked_ids):
            continue
        hit = asked_ids[np.isin(asked_ids, wanted)]
        for pid in hit.tolist():
            asked.setdefault(int(pid), []).append(term)
    return {pid: tuple(ts) for pid, ts in asked.items()}


def contributions(
    session: Session,
    context_id: int,
    terms: Sequence[str],
    stats: Statistics,
    paragraph_id: int,
    source_pk: int,
) -> dict[str, float]:
    """Each query term's BM25 contribution to one paragraph (the explain twin's evidence)."""
    packs = read(session, context_id, terms, source_pk=source_pk)
    out: dict[str, float] = {}
    for term in packs:
        if not stats.df.get(term):
            continue
        at = np.flatnonzero(packs[term]["id"] == paragraph_id)
        if len(at):
            out[term] = float(parts(packs, term, stats)[at[0]])
    return out


def scores(
    session: Session,
    context_id: int,
    terms: Sequence[str],
    stats: Statistics,
    *,
    eligible: Select[Any] | None = None,
) -> Scores:
    """Every matching paragraph's score (the explain twin ranks a paragraph with it)."""
    return score(read(session, context_id, _counted(terms, stats), eligible=eligible), stats)


def lane(
    session: Session,
    context_id: int,
    terms: Sequence[str],
    stats: Statistics,
    *,
    pool: int,
    eligible: Select[Any] | None = None,
) -> list[LaneHit]:
    """The best `pool` paragraphs by BM25."""
    return _hits(read(session, context_id, _counted(terms, stats), eligible=eligible), stats, pool)


def _counted(terms: Sequence[str], stats: Statistics) -> list[str]:
    """The terms the caller's statistics count (only they can contribute)."""
    return [t for t in terms if stats.df.get(t)]


def ranked(
    session: Session,
    context_id: int,
    terms: Sequence[str],
    *,
    pool: int,
    eligible: Select[Any] | None = None,
) -> tuple[Statistics, list[LaneHit]]:
    """The statistics and the lane in the fewest reads. Without a filter the packs read are
    every posting of the terms the caller can see, so each term's document frequency is its
    pack's length (the statistics rows count the same postings) and only the corpus row is read
    besides; a filter narrows the packs, so then the statistics rows give the frequencies."""
    if eligible is not None or not terms:
        stats = statistics(session, context_id, terms)
        return stats, lane(session, context_id, terms, stats, pool=pool, eligible=eligible)
    packs, (n, total) = read_merged(session, context_id, terms)
    df = {t: len(p) for t, p in packs.items() if len(p)}
    stats = Statistics.of(n, total, df)
    return stats, _hits(packs, stats, pool)


def _hits(packs: Mapping[str, Records], stats: Statistics, pool: int) -> list[LaneHit]:
    best = score(packs, stats).best(pool)
    asked = question_terms(packs, [pid for pid, _ in best])
    return [
        LaneHit(pid, s, rank, asked.get(pid, ())) for rank, (pid, s) in enumerate(best, start=1)
    ]


def _texts(name: str, values: Sequence[str]) -> Any:
    return bindparam(name, list(values), type_=ARRAY(Text(collation="C")))
