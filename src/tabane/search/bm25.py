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
    case,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
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
    """A statement yielding (paragraph_id, score, question_terms) for every paragraph that holds
    at least one of `terms`, best first; callers add LIMIT. `eligible` selects source ids."""
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
    score = func.sum(part).label("score")
    asked = func.array_remove(
        func.array_agg(aggregate_order_by(_asked(weights), weights.c.term)), None
    ).label("question_terms")
    stmt = (
        select(Posting.paragraph_id, score, asked)
        .join(weights, Posting.term == weights.c.term)
        .where(Posting.context_id == context_id)
        .group_by(Posting.paragraph_id)
        .order_by(score.desc(), Posting.paragraph_id)
    )
    if eligible is not None:
        stmt = stmt.where(Posting.source_pk.in_(eligible))
    if paragraph_ids is not None:
        stmt = stmt.where(Posting.paragraph_id.in_(list(paragraph_ids)))
    return stmt


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
    if not any(stats.df.get(t) for t in terms):
        return []
    rows = session.execute(score_terms(context_id, terms, stats, eligible=eligible).limit(pool))
    return [
        LaneHit(pid, float(score), rank, tuple(asked or ()))
        for rank, (pid, score, asked) in enumerate(rows, start=1)
    ]


def _asked(weights: Any) -> Any:
    """The query term when this posting matched through a doc2query question, else NULL."""
    return case((Posting.qtf > 0, weights.c.term), else_=None)


def _texts(name: str, values: Sequence[str]) -> Any:
    return bindparam(name, list(values), type_=ARRAY(Text(collation="C")))
