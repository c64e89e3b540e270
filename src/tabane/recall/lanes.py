"""The lanes of recall's one statement. Each lane is a `Select` with the same labelled row shape
(`ROW`: kind, item_id, context_id, lane, rank, score, direct) and reads its tunables from bound
parameters (`params.py` names them), so one compiled statement serves every question of a plan
shape.

Paragraph lanes rank per context (a lateral subquery per addressed context, so each context's
index answers for itself and contexts are compared by rank, never by corpus-local scores):

- `vector`: paragraph (and doc2query question) embeddings by cosine, best vector per paragraph;
- `bm25`: BM25 over the postings with k1, b and idf exactly as search/bm25.py, statistics per
  context computed in the statement;
- `title`: the lead paragraphs of sources whose title key occurs in the question's key (a
  superset: word boundaries and the maximal-title rule are applied to the rows in Python);

The memory lanes (claims, walk, turns, catalog) are in lanes_memory.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Float,
    Integer,
    Select,
    Text,
    and_,
    bindparam,
    cast,
    false,
    func,
    literal,
    literal_column,
    or_,
    select,
    true,
)

from tabane.search.bm25 import K1, B
from tabane.storage.schema import (
    CorpusStats,
    Paragraph,
    ParagraphVector,
    Posting,
    Source,
    TermStats,
)

ROW = ("kind", "item_id", "context_id", "lane", "rank", "score", "direct")


def p(name: str, type_: Any) -> Any:
    """A bound parameter of the statement (the same name may appear in several lanes)."""
    return bindparam(name, type_=type_)


def contexts_table() -> Any:
    """The addressed contexts with each one's vector floor: (id, floor), floor null = none."""
    return (
        func.unnest(p("ctx_ids", ARRAY(Integer)), p("ctx_floors", ARRAY(Float)))
        .table_valued("id", "floor")
        .render_derived(name="c")
    )


def row(kind: str, item: Any, ctx: Any, lane: str, rank: Any, score: Any, direct: Any) -> list[Any]:
    return [
        literal(kind, Text).label("kind"),
        cast(item, BigInteger).label("item_id"),
        cast(ctx, Integer).label("context_id"),
        literal(lane, Text).label("lane"),
        cast(rank, Integer).label("rank"),
        cast(score, Float).label("score"),
        direct.label("direct"),
    ]


def nearest(
    c: Any,
    table: Any,
    key: Any,
    dim: int,
    limit: Any,
    name: str,
    *,
    exact: bool = False,
    where: Sequence[Any] = (),
) -> Any:
    """Per addressed context of `c`, a lateral (id, d) of the `limit` rows of `table` (those
    meeting `where`) whose embedding (the question's model and width) is nearest the question,
    at or above the context's floor. The width is inlined so the per-width partial HNSW index
    applies; `exact` breaks distance ties by id (for small tables scanned whole, where no index
    order is lost)."""
    distance = table.embedding.cast(Vector(dim)).cosine_distance(p("qvec", Vector(dim)))
    order = (distance, key) if exact else (distance,)
    return (
        select(key.label("id"), distance.label("d"))
        .where(
            table.context_id == c.c.id,
            table.model == p("model", Text),
            table.dim == literal_column(str(int(dim))),
            or_(c.c.floor.is_(None), distance <= 1.0 - c.c.floor),
            *where,
        )
        .order_by(*order)
        .limit(limit)
        .lateral(name)
    )


def vector_lane(dim: int) -> Select[Any]:
    c = contexts_table()
    near = nearest(
        c, ParagraphVector, ParagraphVector.paragraph_id, dim, p("pool", Integer) * 2, "pv"
    )
    best = (
        select(c.c.id.label("ctx"), near.c.id.label("paragraph_id"), func.min(near.c.d).label("d"))
        .select_from(c)
        .join(near, true())
        .group_by(c.c.id, near.c.id)
        .subquery("pv_best")
    )
    rank = func.row_number().over(partition_by=best.c.ctx, order_by=(best.c.d, best.c.paragraph_id))
    ranked = select(best, rank.label("r")).subquery("pv_ranked")
    return select(
        *row(
            "paragraph",
            ranked.c.paragraph_id,
            ranked.c.ctx,
            "vector",
            ranked.c.r,
            1.0 - ranked.c.d,
            false(),
        )
    ).where(ranked.c.r <= p("pool", Integer))


def bm25_lane() -> Select[Any]:
    ctx_any = func.any(p("ctx_ids", ARRAY(Integer)))
    corpus = (
        select(
            CorpusStats.context_id,
            cast(func.sum(CorpusStats.paragraphs), Float).label("n"),
            cast(func.sum(CorpusStats.total_length), Float).label("total"),
        )
        .where(CorpusStats.context_id == ctx_any)
        .group_by(CorpusStats.context_id)
        .cte("bm25_corpus_of")
    )
    terms = (
        select(
            TermStats.context_id,
            TermStats.term,
            cast(func.sum(TermStats.df), Float).label("df"),
        )
        .where(
            TermStats.context_id == ctx_any,
            TermStats.term == func.any(p("terms", ARRAY(Text(collation="C")))),
        )
        .group_by(TermStats.context_id, TermStats.term)
        .having(func.sum(TermStats.df) > 0)
        .cte("bm25_terms_of")
    )
    weights = (
        select(
            terms.c.context_id,
            terms.c.term,
            func.ln(1.0 + (corpus.c.n - terms.c.df + 0.5) / (terms.c.df + 0.5)).label("idf"),
            (corpus.c.total / func.greatest(corpus.c.n, 1.0)).label("avgdl"),
        )
        .join(corpus, corpus.c.context_id == terms.c.context_id)
        .cte("bm25_weights")
    )
    c = contexts_table()
    tf = cast(Posting.tf, Float)
    dl = cast(Posting.dl, Float)
    part = weights.c.idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / weights.c.avgdl))
    # Ranked on the score rounded to 1e-9, as search/bm25.py does, so tied paragraphs tie exactly.
    key = func.round(cast(func.sum(part) * 1e9, Float)) / 1e9
    scored = (
        select(Posting.paragraph_id, func.sum(part).label("score"), key.label("k"))
        .join(
            weights,
            and_(weights.c.context_id == Posting.context_id, weights.c.term == Posting.term),
        )
        .where(Posting.context_id == c.c.id)
        .group_by(Posting.paragraph_id)
        .order_by(key.desc(), Posting.paragraph_id)
        .limit(p("pool", Integer))
        .lateral("bm")
    )
    rank = func.row_number().over(
        partition_by=c.c.id, order_by=(scored.c.k.desc(), scored.c.paragraph_id)
    )
    return (
        select(
            *row("paragraph", scored.c.paragraph_id, c.c.id, "bm25", rank, scored.c.score, false())
        )
        .select_from(c)
        .join(scored, true())
    )


def title_lane() -> Select[Any]:
    question = p("question_key", Text)
    named = (
        select(Source.id)
        .where(
            Source.context_id == func.any(p("ctx_ids", ARRAY(Integer))),
            Source.retracted_at.is_(None),
            func.length(Source.title_key) >= p("min_title", Integer),
            func.strpos(question, Source.title_key) > 0,
        )
        .order_by(func.length(Source.title_key).desc(), Source.id)
        .limit(p("title_sources", Integer))
        .cte("named_sources")
    )
    return (
        select(
            *row(
                "paragraph",
                Paragraph.id,
                Paragraph.context_id,
                "title",
                Paragraph.idx + 1,
                literal(1.0),
                true(),
            )
        )
        .join(named, named.c.id == Paragraph.source_pk)
        .where(Paragraph.idx < p("title_lead", Integer))
    )
