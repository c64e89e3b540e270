"""`sources/search` and `sources/search/explain`, per context (Taguru-compatible paths) and across
contexts and groups. Each route is one facade call; the response carries the search plan."""

from __future__ import annotations

from fastapi import APIRouter

from tabane.api.deps import Svc, User
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.search import (
    CatalogExplainIn,
    CatalogExplanationOut,
    CatalogIn,
    CatalogOut,
    CrossExplainIn,
    CrossSearchIn,
    ExplainIn,
    ExplanationOut,
    SearchIn,
    SearchOut,
)

router = APIRouter(tags=["search"], responses=ERROR_RESPONSES)


@router.post("/contexts/{context}/sources/search")
def search_context(context: str, body: SearchIn, svc: Svc, user: User) -> SearchOut:
    """Paragraphs of one context, BM25 and vector lanes fused by score shares, with the plan:
    whether each lane ran or why not, the floor, and how many sources the filters left
    eligible. An empty query is not an error: the plan says `no_query_terms`."""
    return out(SearchOut, svc.search(user, body.to_request(contexts=(context,))))


@router.post("/sources/search")
def search_across(body: CrossSearchIn, svc: Svc, user: User) -> SearchOut:
    """The same over `contexts` and every context the `groups` reach (nested groups included,
    overlaps once); hits interleave by their rank within their own context."""
    return out(SearchOut, svc.search(user, body.scoped()))


@router.post("/contexts/{context}/sources/search/explain")
def explain_context(context: str, body: ExplainIn, svc: Svc, user: User) -> ExplanationOut:
    """Why `expected` (a source, optionally one paragraph; by default in this context) is or is
    not among the hits of this search: the first verdict that applies, with each query term's
    evidence and the vector cosine. A source you cannot see is `not_stored`, like a missing one."""
    where = body.expected.context or context
    explanation = svc.explain_search(
        user,
        body.to_request(contexts=(context,)),
        where,
        body.expected.source_id,
        body.expected.paragraph,
    )
    return out(ExplanationOut, explanation)


@router.post("/sources/search/explain")
def explain_across(body: CrossExplainIn, svc: Svc, user: User) -> ExplanationOut:
    """The explain twin of `POST /sources/search`; `expected.context` is required unless exactly
    one context (and no group) is searched."""
    explanation = svc.explain_search(
        user,
        body.scoped(),
        body.expected_context(),
        body.expected.source_id,
        body.expected.paragraph,
    )
    return out(ExplanationOut, explanation)


@router.post("/catalog/search")
def search_catalog(body: CatalogIn, svc: Svc, user: User) -> CatalogOut:
    """Which documents there are about `query`: sources (not paragraphs) by title and by their
    paragraphs' BM25, fused and each source once, with title, area, state, date and a snippet;
    `*`, `all` or an empty query lists every source you can see (browse). Capped by `limit`,
    paged by `offset`, in a stable order; the plan says the mode and the total."""
    return out(CatalogOut, svc.search_catalog(user, body.to_request()))


@router.post("/catalog/search/explain")
def explain_catalog(body: CatalogExplainIn, svc: Svc, user: User) -> CatalogExplanationOut:
    """Why `expected` (a source; by default in the one context listed) is or is not on this page
    of the catalog: the first verdict that applies (`not_stored`, also for what you cannot see;
    `context_not_searched`, `retracted`, `not_found`, `other_page` with the offset that reaches
    it, `served`), from the same ranking as the search."""
    where = body.expected_context()
    got = svc.explain_catalog(user, body.to_request(), where, body.expected.source_id)
    return out(CatalogExplanationOut, got)
