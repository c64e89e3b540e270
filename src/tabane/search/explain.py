"""`sources/search/explain`: why an expected (source, paragraph) is or is not among the hits.

The first verdict that applies, in this order: not_stored (also whatever the caller cannot see —
explain never reveals that an invisible source exists), context_not_searched, retracted,
paragraph_out_of_range, filtered_out, no_query_terms, no_term_overlap, below_floor,
below_cutoff, earlier_page (served on a page before the one `after` asks for), served. It ranks
with `search.rank_context` and scores with `bm25.scores`, the code the search itself runs, so
its numbers are the search's numbers; a target past the search's own pools is ranked again with
the pools of the largest page a search can ask for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.search import bm25, fuse, postings, vectors
from tabane.search.plan import MAX_LIMIT, MIN_POOL, SearchRequest, effective_floor, eligible
from tabane.search.search import QueryVector, rank_context, vector_blocker
from tabane.storage.schema import Context, Paragraph, Source
from tabane.text.analyze import index_terms


@dataclass(frozen=True)
class TermEvidence:
    term: str
    tf: int
    df: int
    idf: float
    contribution: float


@dataclass(frozen=True)
class Explanation:
    verdict: str
    detail: str
    context: str
    source_id: str
    paragraph: int | None = None
    rank: int | None = None  # overall rank among the fused, interleaved hits
    lanes: dict[str, fuse.LaneRank] = field(default_factory=dict)
    cutoff_score: float | None = None
    limit_to_reach: int | None = None
    query_terms: tuple[str, ...] = ()
    paragraph_terms: tuple[str, ...] = ()
    terms: list[TermEvidence] = field(default_factory=list)
    vector: dict[str, Any] = field(default_factory=dict)


Rerun = Callable[[int], list[tuple[str, str, int]]]


def explain(
    session: Session,
    reached: Sequence[Context],
    request: SearchRequest,
    qv: QueryVector,
    context: str,
    source_id: str,
    paragraph: int | None,
    *,
    default_floor: float | None,
    rerun: Rerun,
) -> Explanation:
    gate = _gate(session, reached, request, qv, context, source_id, paragraph)
    if isinstance(gate, Explanation):
        return gate
    ctx, targets, terms = gate
    offset = fuse.offset_of(request.after)
    pool = max(4 * (offset + request.limit), MIN_POOL)
    deepest = max(pool, 4 * MAX_LIMIT)  # the pool of the largest page a search can ask for

    def placed(depth: int) -> tuple[list[Any], list[tuple[tuple[int, Any], int]]]:
        """The fused order with each lane `depth` deep, and the targets' places in it."""
        ranked = [
            rank_context(session, c, request, terms, qv, pool=depth, default_floor=default_floor)
            for c in reached
        ]
        order = fuse.interleave([[(r.context.id, f) for f in r.fused] for r in ranked])
        position = {(cid, f.paragraph_id): (i, f) for i, (cid, f) in enumerate(order, start=1)}
        return order, [(position[(ctx.id, p)], p) for p, _ in targets if (ctx.id, p) in position]

    order, found = placed(pool)
    deeper = not found and deepest > pool
    if deeper:  # past this search's pools: where a larger limit would find it
        order, found = placed(deepest)
    stats = bm25.statistics(session, ctx.id, terms)
    best_pid = min(found, key=lambda item: item[0][0])[1] if found else targets[0][0]
    evidence = _evidence(session, ctx, request, qv, terms, stats, best_pid, default_floor)
    at = (context, source_id, dict(targets)[best_pid])
    common: dict[str, Any] = {"query_terms": tuple(terms), **evidence}
    if found:
        (rank, fused), _ = min(found, key=lambda item: item[0][0])
        common["lanes"] = fused.lanes
        pools = (pool, deepest) if deeper else None
        return _ranked(request, order, rank, pools, at, rerun, common)
    if not set(common["paragraph_terms"]) & set(terms):
        return _no_overlap(at, common)
    lane_rank = _bm25_rank(session, ctx, request, terms, stats, best_pid)
    return Explanation(
        "below_cutoff",
        f"BM25 rank {lane_rank} is past every lane's pool of {deepest}; fused rank unknown",
        *at,
        rank=None,
        limit_to_reach=None,
        **common,
    )


def _gate(
    session: Session,
    reached: Sequence[Context],
    request: SearchRequest,
    qv: QueryVector,
    context: str,
    source_id: str,
    paragraph: int | None,
) -> Explanation | tuple[Context, list[tuple[int, int]], list[str]]:
    """The verdicts that need no ranking (the source is not there, not reached, retracted, the
    paragraph out of range, filtered out, nothing to match) — or what the ranking needs."""

    def verdict(name: str, detail: str) -> Explanation:
        return Explanation(name, detail, context, source_id, paragraph)

    ctx = session.scalar(select(Context).where(Context.name == context))
    source = (
        session.scalar(
            select(Source).where(Source.context_id == ctx.id, Source.source_id == source_id)
        )
        if ctx is not None
        else None
    )
    if ctx is None or source is None:
        return verdict("not_stored", "no such source is stored where you can see it")
    if ctx.id not in {c.id for c in reached}:
        return verdict("context_not_searched", f"the search does not reach context {context!r}")
    if source.retracted_at is not None:
        return verdict("retracted", f"the source was retracted ({source.retract_reason})")
    targets = _targets(session, source.id, paragraph)
    if not targets:
        return verdict(
            "paragraph_out_of_range",
            f"the source has paragraphs 0..{source.paragraph_count - 1}",
        )
    if request.filtered and source.id not in set(session.scalars(eligible(ctx.id, request))):
        return verdict("filtered_out", "the tags or date window exclude this source")
    terms = bm25.unique_terms(index_terms(request.query))
    if not terms and qv.vector is None:
        return verdict("no_query_terms", "the query has no index terms and no vector lane ran")
    return ctx, targets, terms


def _ranked(
    request: SearchRequest,
    order: list[Any],
    rank: int,
    pools: tuple[int, int] | None,
    at: tuple[str, str, int],
    rerun: Rerun,
    common: dict[str, Any],
) -> Explanation:
    """A paragraph the fused order holds: served, on an earlier page, or below the cutoff.
    `pools` is (this search's pool, the deepest) when it was found only past this search's."""
    offset = fuse.offset_of(request.after)
    page = f"ranks {offset + 1}..{offset + request.limit}" if offset else None
    if offset < rank <= offset + request.limit and pools is None:
        return Explanation("served", f"served at rank {rank}", *at, rank=rank, **common)
    if rank <= offset and pools is None:
        return Explanation(
            "earlier_page",
            f"served at rank {rank}, on an earlier page (this page holds {page})",
            *at,
            rank=rank,
            **common,
        )
    last = order[min(len(order), offset + request.limit) - 1][1] if order else None
    reach = _verified_limit(rerun, rank, at)
    past = f"past this page's {page}" if page else f"past the limit of {request.limit}"
    beyond = (
        f" (past every lane's pool of {pools[0]}: ranked with pools of {pools[1]})" if pools else ""
    )
    return Explanation(
        "below_cutoff",
        f"ranked {rank}, {past}{beyond}",
        *at,
        rank=rank,
        cutoff_score=last.score if last else None,
        limit_to_reach=reach,
        **common,
    )


def _no_overlap(at: tuple[str, str, int], common: dict[str, Any]) -> Explanation:
    """An unranked paragraph sharing no term with the query: under the vector floor, or not."""
    vec = common["vector"]
    cosine, floor = vec.get("cosine"), vec.get("floor")
    if cosine is not None and floor is not None and cosine < floor:
        return Explanation(
            "below_floor", "no shared term, and its cosine is under the floor", *at, **common
        )
    return Explanation(
        "no_term_overlap", "the query and the paragraph share no term", *at, **common
    )


def _targets(session: Session, source_pk: int, paragraph: int | None) -> list[tuple[int, int]]:
    stmt = select(Paragraph.id, Paragraph.idx).where(Paragraph.source_pk == source_pk)
    if paragraph is not None:
        stmt = stmt.where(Paragraph.idx == paragraph)
    return [(pid, idx) for pid, idx in session.execute(stmt.order_by(Paragraph.idx))]


def _evidence(
    session: Session,
    ctx: Context,
    request: SearchRequest,
    qv: QueryVector,
    terms: Sequence[str],
    stats: bm25.Statistics,
    pid: int,
    default_floor: float | None,
) -> dict[str, Any]:
    text, questions, section, source_pk, title = session.execute(
        select(
            Paragraph.text,
            Paragraph.questions,
            Paragraph.section_path,
            Paragraph.source_pk,
            Source.title,
        )
        .join(Source, Source.id == Paragraph.source_pk)
        .where(Paragraph.id == pid)
    ).one()
    ptokens = (  # what postings.terms_of indexed: heading, text, questions
        postings.heading_tokens(title, section)
        + index_terms(text)
        + [t for q in questions for t in index_terms(q)]
    )
    tf = {t: ptokens.count(t) for t in terms}
    held = [t for t in terms if tf[t] and stats.df.get(t)]
    parts = bm25.contributions(session, ctx.id, held, stats, pid, source_pk) if held else {}
    term_evidence = [
        TermEvidence(t, tf[t], stats.df.get(t, 0), stats.idf(t), parts.get(t, 0.0)) for t in terms
    ]
    floor = effective_floor(request, ctx.semantic_floor, default_floor)
    blocker = vector_blocker(session, ctx, qv) if "vector" in request.lanes else "not_requested"
    vector: dict[str, Any] = {"ran": blocker is None, "reason": blocker, "floor": floor}
    if blocker is None:
        assert qv.vector is not None and qv.model and qv.dim
        vector["cosine"] = vectors.cosine(session, pid, qv.vector, qv.model, qv.dim)
    return {
        "paragraph_terms": tuple(dict.fromkeys(ptokens)),
        "terms": term_evidence,
        "vector": vector,
    }


def _bm25_rank(
    session: Session,
    ctx: Context,
    request: SearchRequest,
    terms: Sequence[str],
    stats: bm25.Statistics,
    pid: int,
) -> int:
    elig = eligible(ctx.id, request) if request.filtered else None
    scores = bm25.scores(session, ctx.id, terms, stats, eligible=elig)
    return scores.rank(pid) or len(scores.ids) + 1


def _verified_limit(rerun: Rerun, rank: int, target: tuple[str, str, int]) -> int | None:
    """A limit that serves the target on the first page, checked by searching again with it:
    its rank, or else (the lanes' pools grow with the limit, and fusion's order with them) the
    largest limit; None when neither does."""
    for limit in dict.fromkeys((rank, MAX_LIMIT)):
        if limit <= MAX_LIMIT and target in rerun(limit):
            return limit
    return None
