"""`search_catalog`'s explain twin: why a source is or is not on this page of the catalog — the
first verdict that applies, from the same ranking code (catalog.py `rank`):

1. `not_stored` — no such source in a context you can see (a hidden one is judged the same);
2. `context_not_searched` — its context is not among those the request addresses;
3. `retracted` — it was retracted;
4. `not_found` — searching: neither lane found it (its title holds none of the query's terms,
   and none of its paragraphs is among its context's best BM25 paragraphs);
5. `other_page` — at a `position` another `offset` reaches (`offset_to_reach`);
6. `served` — on this page, at `position`, with the lanes that ranked it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from tabane.search.catalog.catalog import POOL, CatalogLane, CatalogRequest, rank
from tabane.storage.schema import Context, Source


@dataclass(frozen=True)
class CatalogExplanation:
    verdict: str
    detail: str
    context: str
    source_id: str
    position: int | None = None  # 1-based, in the whole fused (or browse) order
    offset_to_reach: int | None = None  # an `offset` whose page holds it
    lanes: tuple[CatalogLane, ...] = ()


def explain_catalog(
    session: Session,
    contexts: Sequence[Context],
    request: CatalogRequest,
    context: str,
    source_id: str,
) -> CatalogExplanation:
    def verdict(name: str, detail: str, **more: Any) -> CatalogExplanation:
        return CatalogExplanation(name, detail, context, source_id, **more)

    ctx = session.scalar(select(Context).where(Context.name == context))
    source = None
    if ctx is not None:
        where = and_(Source.context_id == ctx.id, Source.source_id == source_id)
        source = session.scalar(select(Source).where(where))
    if ctx is None or source is None:
        return verdict("not_stored", "no such source in a context you can see")
    if ctx.id not in {c.id for c in contexts}:
        return verdict("context_not_searched", f"{context} is not among the contexts addressed")
    if source.retracted_at is not None:
        return verdict("retracted", f"retracted at {source.retracted_at.isoformat()}")
    lanes: tuple[CatalogLane, ...] = ()
    if request.browsing:
        position = 1 + _listed_before(session, contexts, context, source_id)
    else:
        ranked = rank(session, contexts, request.query)
        if source.id not in ranked.found:
            return verdict(
                "not_found",
                f"its title holds none of the terms {list(ranked.terms)}, and none of its "
                f"paragraphs is among the best {POOL * 4} BM25 paragraphs of {context}",
            )
        position, lanes = ranked.order.index(source.id) + 1, tuple(ranked.found[source.id][1])
    reach = (position - 1) // request.limit * request.limit
    if request.offset < position <= request.offset + request.limit:
        return verdict("served", f"at position {position}", position=position, lanes=lanes)
    return verdict(
        "other_page",
        f"at position {position}: the page at offset {reach} holds it",
        position=position,
        offset_to_reach=reach,
        lanes=lanes,
    )


def _listed_before(
    session: Session, contexts: Sequence[Context], context: str, source_id: str
) -> int:
    """How many live sources browse lists before (context, source_id)."""
    before = (Context.name < context) | and_(Context.name == context, Source.source_id < source_id)
    stmt = (
        select(func.count())
        .select_from(Source)
        .join(Context, Context.id == Source.context_id)
        .where(
            Source.context_id.in_([c.id for c in contexts]),
            Source.retracted_at.is_(None),
            before,
        )
    )
    return int(session.scalar(stmt) or 0)
