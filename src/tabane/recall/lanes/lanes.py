"""The lanes of recall's one statement. Each lane is a `Select` with the same labelled row shape
(`ROW`: kind, item_id, context_id, lane, rank, score, direct, reach) and reads its tunables from
bound parameters (`params.py` names them), so one compiled statement serves every question of a
plan shape.

Paragraph lanes gather per context (a lateral subquery per addressed context, so each context's
index answers for itself); scale.py then puts every context's rows on one scale:

- `vector`: paragraph (and doc2query question) embeddings by cosine, best vector per paragraph
  (read per context just before the statement, as BM25's, and bound as arrays);
- `bm25`: the hits of search/bm25.py's lane per context (packed postings scored in numpy just
  before the statement, with the statistics the caller can see), bound as arrays;
- `title`: the lead paragraphs of sources whose title key occurs in the question's key (a
  superset: word boundaries and the maximal-title rule are applied to the rows in Python);

The memory lanes (claims, turns) are in recall/lanes/memory.py, the walk in recall/lanes/graph.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    Float,
    Integer,
    Select,
    Text,
    bindparam,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    true,
)
from sqlalchemy.orm import aliased

from tabane.storage.schema import Paragraph, ParagraphVector

ROW = ("kind", "item_id", "context_id", "lane", "rank", "score", "direct", "reach")

# Text that asks: a question mark (ASCII or full-width) at its very end, spaces aside (a PostgreSQL
# regular expression). A question mark inside closing quotes is reported speech (`he asked
# "why?"`), not a question put to the reader.
ASKS = "[?\uff1f][[:space:]]*$"


def p(name: str, type_: Any) -> Any:
    """A bound parameter of the statement (the same name may appear in several lanes)."""
    return bindparam(name, type_=type_)


def limit(name: str, times: int = 1) -> Any:
    """A LIMIT of `times` × the bound value `name`, written into the SQL (`literal_execute`, the
    factor as a literal): the planner then knows the count in a generic plan too, and reads the
    HNSW index for a nearest-first LIMIT instead of sorting every vector — it assumes a tenth of
    the rows for a LIMIT it cannot see (recall's statement is planned once per connection and
    shape, docs/decisions/0048)."""
    value = bindparam(name, type_=Integer, literal_execute=True)
    return value if times == 1 else value * fixed(times)


def fixed(n: int) -> Any:
    """The integer `n` written into the SQL (a LIMIT the plan must know, not a bound value)."""
    return literal_column(str(int(n)))


def contexts_table() -> Any:
    """The addressed contexts with each one's vector floor: (id, floor), floor null = none."""
    return (
        func.unnest(p("ctx_ids", ARRAY(Integer)), p("ctx_floors", ARRAY(Float)))
        .table_valued("id", "floor")
        .render_derived(name="c")
    )


def row(
    kind: str,
    item: Any,
    ctx: Any,
    lane: str,
    rank: Any,
    score: Any,
    direct: Any,
    reach: Any = None,
) -> list[Any]:
    """One lane row (`ROW`). `reach`: for a walked edge found only from concepts whose gloss is
    near the question, the best such gloss's cosine (scale.py ranks it among the passages);
    null for every other row."""
    return [
        literal(kind, Text).label("kind"),
        cast(item, BigInteger).label("item_id"),
        cast(ctx, Integer).label("context_id"),
        literal(lane, Text).label("lane"),
        cast(rank, Integer).label("rank"),
        cast(score, Float).label("score"),
        direct.label("direct"),
        cast(null() if reach is None else reach, Float).label("reach"),
    ]


def nearest(
    c: Any,
    table: Any,
    key: Any,
    dim: int,
    limit: Any,
    name: str,
    *,
    where: Sequence[Any] = (),
) -> Any:
    """Per addressed context of `c`, a lateral (id, d) of the `limit` rows of `table` (those
    meeting `where`) whose embedding (the question's model and width) is nearest the question,
    at or above the context's floor. The width is inlined so the per-width partial HNSW index
    applies; ordering by the distance alone lets the planner read that index."""
    distance = table.embedding.cast(Vector(dim)).cosine_distance(p("qvec", Vector(dim)))
    return (
        select(key.label("id"), distance.label("d"))
        .where(
            table.context_id == c.c.id,
            table.model == p("model", Text),
            table.dim == literal_column(str(int(dim))),
            or_(c.c.floor.is_(None), distance <= 1.0 - c.c.floor),
            *where,
        )
        .order_by(distance)
        .limit(limit)
        .lateral(name)
    )


def continues(answer: Any, question: Any) -> Any:
    """The paragraph `answer`, just after `question`, continues its exchange: the same section,
    or a section that was already open before the question — sections that interleave are
    labels (speakers taking turns, each a section), not headings; a question that closes a
    section is not answered by the next heading's first paragraph."""
    earlier = aliased(Paragraph, name="earlier_p")
    return or_(
        answer.section_id.is_not_distinct_from(question.section_id),
        exists()
        .where(
            earlier.source_pk == question.source_pk,
            earlier.idx < question.idx,
            earlier.section_id == answer.section_id,
        )
        .correlate_except(earlier),
    )


def _asked(best: Any) -> Any:
    """The hit of `best` that asks (`ASKS`) when bound `exchange`: its source, index and section,
    the key its reply is found by."""
    # The hit that asks, then its reply's nearest vector, each found by a unique key from the
    # row before it (a LIMIT 1 lateral, then a correlated aggregate). With the hit and its reply
    # in one subquery, `reply.idx = asked.idx + 1` joined two row-level-secured relations through
    # `+`, which is not leakproof, so no index could take it: PostgreSQL hashed every paragraph
    # of the store for each hit that asks (1.64 s of a 1.74 s recall at 92k paragraphs,
    # bench/recall_tail.py). From the row before, the key is a parameter and the index applies.
    asked = aliased(Paragraph, name="pv_asked")
    return (
        select(asked.source_pk, asked.idx, asked.section_id)
        .where(
            p("exchange", Boolean),
            asked.id == best.c.paragraph_id,
            asked.text.regexp_match(ASKS),
        )
        .limit(fixed(1))
        .lateral("pv_question")
    )


def _reply_distance(question: Any, dim: int) -> Any:
    """The nearest vector's distance of the paragraph that answers `question` (`continues`)."""
    reply, rv = (
        aliased(Paragraph, name="pv_reply"),
        aliased(ParagraphVector, name="pv_reply_vector"),
    )
    return (
        select(func.min(rv.embedding.cast(Vector(dim)).cosine_distance(p("qvec", Vector(dim)))))
        .select_from(reply)
        .join(rv, reply.id == rv.paragraph_id)
        .where(
            reply.source_pk == question.c.source_pk,
            reply.idx == question.c.idx + 1,
            ~reply.text.regexp_match(ASKS),
            continues(reply, question.c),
            rv.model == p("model", Text),
            rv.dim == literal_column(str(int(dim))),
        )
        .scalar_subquery()
    )


def vector_lane(dim: int) -> Select[Any]:
    """The paragraphs nearest the question per context, scored by cosine. A paragraph that asks
    (`ASKS`) and is answered by the next one (`continues`, as statement.py serves it) is scored
    as the exchange: the mean of its cosine and its reply's nearest vector's, so a question that
    only shares this one's form does not carry its reply to the top. Bound `exchange` false (or
    a reply with no vector yet) scores the paragraph alone. The nearest vectors are read before
    the statement (gather.py `bind_vectors`: search/vectors.py's `nearest` per context, planned
    for that context's size) and bound as arrays; `vector_pool` of them are ranked."""
    best = (
        func.unnest(
            p("pv_ctx", ARRAY(Integer)), p("pv_ids", ARRAY(BigInteger)), p("pv_d", ARRAY(Float))
        )
        .table_valued("ctx", "paragraph_id", "d")
        .render_derived(name="pv_best")
    )
    question = _asked(best)
    reply_d = _reply_distance(question, dim)
    d = case(
        (p("exchange", Boolean), func.coalesce((best.c.d + reply_d) / 2.0, best.c.d)),
        else_=best.c.d,
    )
    scored = (
        select(best.c.ctx, best.c.paragraph_id, d.label("d"))
        .select_from(best)
        .outerjoin(question, true())
        .subquery("pv_scored")
    )
    rank = func.row_number().over(
        partition_by=scored.c.ctx, order_by=(scored.c.d, scored.c.paragraph_id)
    )
    ranked = select(scored, rank.label("r")).subquery("pv_ranked")
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
    ).where(ranked.c.r <= limit("vector_pool"))


def bm25_lane() -> Select[Any]:
    """The BM25 hits scored before the statement (gather.py `bind_lexical`: search/bm25.py's
    `lane` per addressed context over its packed postings), bound as parallel arrays."""
    hits = (
        func.unnest(
            p("bm25_ctx", ARRAY(Integer)),
            p("bm25_ids", ARRAY(BigInteger)),
            p("bm25_ranks", ARRAY(Integer)),
            p("bm25_scores", ARRAY(Float)),
        )
        .table_valued("context_id", "paragraph_id", "rank", "score")
        .render_derived(name="bm")
    )
    return select(
        *row(
            "paragraph",
            hits.c.paragraph_id,
            hits.c.context_id,
            "bm25",
            hits.c.rank,
            hits.c.score,
            false(),
        )
    )


def title_lane() -> Select[Any]:
    """The lead paragraphs of the sources the question names by title, found before the
    statement (titles.py `title_lane`, gather.py `bind_before`) and bound as parallel arrays."""
    named = (
        func.unnest(p("title_pks", ARRAY(BigInteger)), p("title_direct", ARRAY(Boolean)))
        .table_valued("source_pk", "direct")
        .render_derived(name="named")
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
                named.c.direct,
            )
        )
        .join(named, named.c.source_pk == Paragraph.source_pk)
        .where(Paragraph.idx < p("title_lead", Integer))
    )
