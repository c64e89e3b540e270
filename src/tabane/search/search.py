"""`sources/search`: the paragraph lanes (BM25 and vectors) over one or more contexts, fused by
their score shares (fuse.py), interleaved across contexts by per-context rank, with a plan that
says what ran and why not.

`rank_context` is the per-context kernel; the explain twin (explain.py) calls it too, so both
always agree on ranks and scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from tabane.errors import EmbedderUnavailable, TabaneError
from tabane.models.embedder import Embedder, Vectors
from tabane.search import bm25, fuse, vectors
from tabane.search.plan import (
    MIN_POOL,
    ContextPlan,
    FilterPlan,
    LanePlan,
    SearchPlan,
    SearchRequest,
    effective_floor,
    eligible,
    filter_plan,
)
from tabane.storage.schema import Context, Paragraph, Source
from tabane.storage.store import Beside
from tabane.text.analyze import index_terms


@dataclass(frozen=True)
class Hit:
    context: str
    source_id: str
    paragraph: int
    title: str
    text: str
    section: tuple[str, ...]
    locator: dict[str, Any] | None
    kind: str  # "text" or "code" (text.blocks.BlockKind): code is shown verbatim
    rank: int
    context_rank: int
    score: float
    lanes: dict[str, fuse.LaneRank]
    via_question: tuple[str, ...]  # query terms (or "vector") that matched through a question


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    plan: SearchPlan
    next_after: str | None


@dataclass(frozen=True)
class Ranked:
    """One context's fused ranking and what each lane did."""

    context: Context
    fused: list[fuse.Fused]
    plan: ContextPlan
    question_terms: dict[int, tuple[str, ...]]
    via_question_vector: set[int]


@dataclass(frozen=True)
class QueryVector:
    vector: Vectors | None
    model: str | None
    dim: int | None
    reason: str | None  # why there is no vector (no_embedder, …)


def embed_query(embedder: Embedder | None, query: str) -> QueryVector:
    """The query's vector, or why there is none. An embedder that fails is a reason, not an
    error: the read answers from the lanes that can run (the lexical ones, the catalogs, the
    corpus map), and its plan names the lanes skipped with `embedder_unavailable` (the service
    cannot be reached or keeps failing) or `embedder_refused` (it refused this query)."""
    if embedder is None:
        return QueryVector(None, None, None, "no_embedder")
    try:
        if not query.strip():
            return QueryVector(None, embedder.name, embedder.dim, "no_query_terms")
        return QueryVector(embedder.embed_query(query), embedder.name, embedder.dim, None)
    except EmbedderUnavailable:
        return QueryVector(None, embedder.name, None, "embedder_unavailable")
    except TabaneError:  # a 4xx answer, or a vector that fails its checks
        return QueryVector(None, embedder.name, None, "embedder_refused")


def rank_context(
    session: Session,
    ctx: Context,
    request: SearchRequest,
    terms: Sequence[str],
    qv: QueryVector,
    *,
    pool: int,
    default_floor: float | None,
    pending: int = 0,
    beside: Beside | None = None,
) -> Ranked:
    """Both lanes in one context, fused. With `beside`, the BM25 lane reads on a second
    connection while this one runs the vector lane (the same code, so the same hits)."""
    elig: Select[Any] | None = eligible(ctx.id, request) if request.filtered else None
    fplan: FilterPlan | None = filter_plan(session, ctx.id, request) if request.filtered else None
    lanes: dict[str, list[tuple[int, float]]] = {}
    plans: dict[str, LanePlan] = {}
    asked: dict[int, tuple[str, ...]] = {}
    lexical: Future[tuple[bm25.Statistics, list[bm25.LaneHit]]] | None = None
    if "bm25" in request.lanes and terms and beside is not None:
        lexical = beside.submit(
            lambda side: bm25.ranked(side, ctx.id, terms, pool=pool, eligible=elig)
        )
    via_qvec: set[int] = set()
    if "vector" in request.lanes:
        floor = effective_floor(request, ctx.semantic_floor, default_floor)
        reason = vector_blocker(session, ctx, qv)
        if reason is not None:
            plans["vector"] = LanePlan(False, reason, floor=floor, model=qv.model)
        else:
            assert qv.vector is not None and qv.model is not None and qv.dim is not None
            vhits = vectors.lane(
                session, ctx.id, qv.vector, qv.model, qv.dim, pool=pool, floor=floor, eligible=elig
            )
            lanes["vector"] = [(h.paragraph_id, h.score) for h in vhits]
            via_qvec = {h.paragraph_id for h in vhits if h.via_question}
            plans["vector"] = LanePlan(True, hits=len(vhits), floor=floor, model=qv.model)
    if "bm25" in request.lanes:
        if not terms:
            plans["bm25"] = LanePlan(False, "no_query_terms")
        else:
            _, hits = (
                lexical.result()
                if lexical is not None
                else bm25.ranked(session, ctx.id, terms, pool=pool, eligible=elig)
            )
            lanes = {"bm25": [(h.paragraph_id, h.score) for h in hits], **lanes}
            asked = {h.paragraph_id: h.question_terms for h in hits if h.question_terms}
            plans = {"bm25": LanePlan(True, hits=len(hits)), **plans}
    fused = fuse.combine(lanes, asked=len(request.lanes))
    plan = ContextPlan(ctx.name, plans, fplan, pending_embeddings=pending)
    return Ranked(ctx, fused, plan, asked, via_qvec)


def vector_blocker(session: Session, ctx: Context, qv: QueryVector) -> str | None:
    """Why the vector lane cannot run in this context, or None."""
    if qv.reason is not None:
        return qv.reason
    held = vectors.models(session, ctx.id)
    if not held:
        return "no_vectors"
    if qv.model not in held:
        return "model_mismatch"
    return None


def search(
    session: Session,
    contexts: Sequence[Context],
    request: SearchRequest,
    qv: QueryVector,
    *,
    default_floor: float | None,
    pending: dict[int, int] | None = None,
    beside: Beside | None = None,
) -> SearchResult:
    offset = fuse.offset_of(request.after)
    pool = max(4 * (offset + request.limit), MIN_POOL)
    terms = bm25.unique_terms(index_terms(request.query))
    ranked = [
        rank_context(
            session,
            ctx,
            request,
            terms,
            qv,
            pool=pool,
            default_floor=default_floor,
            pending=(pending or {}).get(ctx.id, 0),
            beside=beside,
        )
        for ctx in contexts
    ]
    order = fuse.interleave([[(r, i, f) for i, f in enumerate(r.fused, start=1)] for r in ranked])
    page = order[offset : offset + request.limit]
    details = _details(session, [f.paragraph_id for _, _, f in page])
    hits = [
        _hit(r, i, f, offset + n, details[f.paragraph_id])
        for n, (r, i, f) in enumerate(page, start=1)
        if f.paragraph_id in details
    ]
    more = len(order) > offset + request.limit
    plan = SearchPlan(
        query_terms=tuple(terms),
        contexts=[r.plan for r in ranked],
        pool=pool,
        limit=request.limit,
        offset=offset,
        notes=[note for r in ranked if (note := alone(r.plan)) is not None],
    )
    return SearchResult(hits, plan, fuse.cursor(offset + request.limit) if more else None)


def alone(plan: ContextPlan) -> str | None:
    """A note when one lane ran and found nothing while the other found hits: the fused order is
    then that lane's own (a Japanese question over English text has no BM25 term in common)."""
    found = {name for name, lane in plan.lanes.items() if lane.ran and lane.hits}
    empty = {name for name, lane in plan.lanes.items() if lane.ran and not lane.hits}
    if len(found) == 1 and empty:
        (only,) = found
        return (
            f"{plan.context}: {', '.join(sorted(empty))} found nothing; the order is the "
            f"{only} lane's"
        )
    return None


def _hit(r: Ranked, context_rank: int, f: fuse.Fused, rank: int, d: Any) -> Hit:
    via = r.question_terms.get(f.paragraph_id, ())
    if f.paragraph_id in r.via_question_vector:
        via = (*via, "vector")
    return Hit(
        context=r.context.name,
        source_id=d.source_id,
        paragraph=d.idx,
        title=d.title,
        text=d.text,
        section=tuple(d.section_path),
        locator=d.locator,
        kind=d.kind,
        rank=rank,
        context_rank=context_rank,
        score=f.score,
        lanes=f.lanes,
        via_question=via,
    )


def _details(session: Session, ids: list[int]) -> dict[int, Any]:
    if not ids:
        return {}
    rows = session.execute(
        select(
            Paragraph.id,
            Paragraph.idx,
            Paragraph.text,
            Paragraph.section_path,
            Paragraph.locator,
            Paragraph.kind,
            Source.source_id,
            Source.title,
        )
        .join(Source, Source.id == Paragraph.source_pk)
        .where(Paragraph.id.in_(ids))
    )
    return {row.id: row for row in rows}
