"""The BM25 lane: real BM25 over tabane's postings, scored inside PostgreSQL.

score(p) = Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)),
idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)), over the distinct query terms t, with N, avgdl and df
from the statistics rows the caller can see (postings.py). Ties break on the paragraph id.
The explain twin calls `score_terms` and `statistics` — the same code — for its evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ARRAY,
    Float,
    Select,
    Text,
    bindparam,
    func,
    literal,
    select,
    type_coerce,
)
from sqlalchemy.orm import Session

from tabane.storage.schema import CorpusStats, Posting, TermStats

K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Statistics:
    paragraphs: int
    avgdl: float
    df: dict[str, int]

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
    n, total = session.execute(
        select(
            func.coalesce(func.sum(CorpusStats.paragraphs), 0),
            func.coalesce(func.sum(CorpusStats.total_length), 0),
        ).where(CorpusStats.context_id == context_id)
    ).one()
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
    n = int(n)
    return Statistics(paragraphs=n, avgdl=(int(total) / n) if n else 0.0, df=df)


def score_terms(
    context_id: int,
    terms: Sequence[str],
    stats: Statistics,
    *,
    eligible: Select[Any] | None = None,
    paragraph_ids: Sequence[int] | None = None,
) -> Select[Any]:
    """A statement yielding (paragraph_id, score, rank_key) for every paragraph that holds at
    least one of `terms`, best first; callers add LIMIT. `eligible` selects source ids.

    Only sums are aggregated, so PostgreSQL groups by hashing; which terms matched through
    doc2query questions is looked up afterwards for the few hits kept (`question_terms`)."""
    present = [t for t in terms if stats.df.get(t)]
    weights = (
        func.unnest(
            _texts("bm25_q_terms", present),
            bindparam("bm25_q_idf", [stats.idf(t) for t in present], type_=ARRAY(Float)),
        )
        .table_valued("term", "idf")
        .render_derived(name="w")
    )
    avgdl = literal(stats.avgdl or 1.0, type_=Float)
    k1 = literal(K1, type_=Float)
    b = literal(B, type_=Float)
    tf = Posting.tf * literal(1.0, type_=Float)
    part = weights.c.idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * Posting.dl / avgdl))
    # Hash aggregation sums a paragraph's terms in whatever order its postings arrive, which
    # can differ in the last bit between paragraphs whose scores are equal.
    # Ranked on the score rounded to 1e-9 (`rank_key`) so that tied paragraphs tie exactly.
    score = func.sum(part).label("score")
    scale = literal(1e9, type_=Float)
    key = type_coerce(func.round(func.sum(part) * scale) / scale, Float).label("rank_key")
    stmt = (
        select(Posting.paragraph_id, score, key)
        .join(weights, Posting.term == weights.c.term)
        .where(Posting.context_id == context_id)
        .group_by(Posting.paragraph_id)
        .order_by(key.desc(), Posting.paragraph_id)
    )
    if eligible is not None:
        stmt = stmt.where(Posting.source_pk.in_(eligible))
    if paragraph_ids is not None:
        stmt = stmt.where(Posting.paragraph_id.in_(list(paragraph_ids)))
    return stmt


def question_terms(
    session: Session, context_id: int, terms: Sequence[str], paragraph_ids: Sequence[int]
) -> dict[int, tuple[str, ...]]:
    """For each of `paragraph_ids`, the query terms it holds through doc2query questions
    (sorted), if any."""
    if not terms or not paragraph_ids:
        return {}
    rows = session.execute(
        select(Posting.paragraph_id, Posting.term)
        .where(
            Posting.context_id == context_id,
            Posting.paragraph_id.in_(list(paragraph_ids)),
            Posting.term == func.any(_texts("bm25_asked_terms", terms)),
            Posting.qtf > 0,
        )
        .order_by(Posting.paragraph_id, Posting.term)
    )
    asked: dict[int, list[str]] = {}
    for pid, term in rows:
        asked.setdefault(pid, []).append(term)
    return {pid: tuple(ts) for pid, ts in asked.items()}


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
    present = [t for t in terms if stats.df.get(t)]
    if not present:
        return []
    # Enough memory to hash-aggregate every matching paragraph of a long query without
    # spilling to disk (a query of common words touches ~100k postings at 100k paragraphs).
    session.execute(select(func.set_config("work_mem", "64MB", True)))
    rows = session.execute(score_terms(context_id, terms, stats, eligible=eligible).limit(pool))
    scored = [(int(pid), float(score)) for pid, score, _ in rows]
    asked = question_terms(session, context_id, present, [pid for pid, _ in scored])
    return [
        LaneHit(pid, score, rank, asked.get(pid, ()))
        for rank, (pid, score) in enumerate(scored, start=1)
    ]


def _texts(name: str, values: Sequence[str]) -> Any:
    return bindparam(name, list(values), type_=ARRAY(Text(collation="C")))
