"""The wire shapes of `sources/search` and its explain twin.

Requests are strict like every request model (unknown fields, NaN and Infinity refused); dates
travel as ISO 8601 strings and are parsed here, so a malformed one is a 422 naming its path
(`body.since`). The responses mirror the service's `SearchResult` and `Explanation` in full: the
plan is the answer to "why these hits (or none)".
"""

from __future__ import annotations

from pydantic import Field

from tabane.checks import expected_context, parse_date
from tabane.search.catalog.catalog import MAX_LIMIT as CATALOG_LIMIT
from tabane.search.catalog.catalog import (
    MAX_OFFSET,
    CatalogHit,
    CatalogLane,
    CatalogPlan,
    CatalogRequest,
    CatalogResult,
)
from tabane.search.catalog.explain import CatalogExplanation
from tabane.search.explain import Explanation, TermEvidence
from tabane.search.fuse import LaneRank
from tabane.search.plan import (
    MAX_LIMIT,
    ContextPlan,
    LanePlan,
    SearchPlan,
    SearchRequest,
)
from tabane.search.search import Hit, SearchResult
from tabane.wire.base import Request, Response, SourceId, served
from tabane.wire.sources import PARAGRAPH, LocatorOut

# -- requests -----------------------------------------------------------------------------------


class SearchIn(Request):
    """A search of the context in the path."""

    query: str = Field(
        description="Phrased like the ANSWER you expect: a plausible declarative sentence from "
        "the passage you hope to find, not the question."
    )
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="hits per page")
    after: str | None = Field(None, description="`next_after` of the previous page")
    tags: list[str] | None = Field(
        None,
        description="only sources with any of these tags",
        json_schema_extra={"minItems": 1, "items": {"minLength": 1, "pattern": r"\S"}},
    )
    since: str | None = Field(
        None, description="ISO 8601; only sources whose date (else stored time) is on or after it"
    )
    until: str | None = Field(None, description="ISO 8601; only sources dated before it")
    semantic_floor: float | None = Field(
        None, ge=-1.0, le=1.0, description="cosine floor of the vector lane for this call"
    )

    def to_request(
        self, contexts: tuple[str, ...] = (), groups: tuple[str, ...] = ()
    ) -> SearchRequest:
        """The service's request (an issue's path names the field; HTTP places it under
        `body.`)."""
        return SearchRequest(
            query=self.query,
            contexts=contexts,
            groups=groups,
            limit=self.limit,
            after=self.after,
            tags=None if self.tags is None else tuple(self.tags),
            since=parse_date(self.since, "since"),
            until=parse_date(self.until, "until"),
            semantic_floor=self.semantic_floor,
        )


class CrossSearchIn(SearchIn):
    """A search over the contexts named and every context the groups reach."""

    contexts: list[str] = Field([], description="contexts to search")
    groups: list[str] = Field([], description="groups to search (nested groups included)")

    def scoped(self) -> SearchRequest:
        return self.to_request(tuple(self.contexts), tuple(self.groups))


class Expected(Request):
    context: str | None = Field(
        None, description="where the source is stored; default: the only context searched"
    )
    source_id: SourceId
    paragraph: int | None = Field(
        None, ge=0, description="null: the source's best paragraph", json_schema_extra=PARAGRAPH
    )


class ExplainIn(SearchIn):
    expected: Expected


class CrossExplainIn(CrossSearchIn):
    expected: Expected = Field(description="the passage you expected to be found")

    def expected_context(self) -> str:
        return expected_context(
            self.expected.context, self.contexts, self.groups, "expected.context"
        )


class SearchArgs(CrossSearchIn):
    """The `search_passages` tool's arguments: a cross search that also takes Taguru's one
    `context`."""

    context: str | None = Field(
        None, min_length=1, description="one context to search (Taguru's form; adds to contexts)"
    )

    def searched(self) -> tuple[str, ...]:
        """`contexts` and `context` together, each once, in order."""
        named = [*self.contexts, *(() if self.context is None else (self.context,))]
        return tuple(dict.fromkeys(named))

    def scoped(self) -> SearchRequest:
        return self.to_request(self.searched(), tuple(self.groups))


class ExplainArgs(SearchArgs, CrossExplainIn):
    def expected_context(self) -> str:
        return expected_context(
            self.expected.context, self.searched(), self.groups, "expected.context"
        )


# -- responses ----------------------------------------------------------------------------------


@served(
    LaneRank,
    {
        "rank": "1-based rank within that lane",
        "score": "the lane's own score: BM25, or cosine similarity",
        "share": "the score over the lane's best for this query; the hit's score averages these",
    },
)
class LaneRankOut(Response):
    pass


@served(
    Hit,
    {
        "kind": "`text`, or `code`: preformatted, its line breaks kept",
        "rank": "1-based rank over every context searched",
        "context_rank": "rank within its own context",
        "score": "the fused score: each lane's score over its best, averaged (1 = first in all)",
        "lanes": "`bm25` and/or `vector`: the lanes that found it",
        "via_question": "query terms (or `vector`) that matched through a doc2query question",
    },
)
class HitOut(Response):
    locator: LocatorOut | None
    lanes: dict[str, LaneRankOut]


@served(
    LanePlan,
    {
        "reason": "why it did not run: no_embedder, no_vectors, model_mismatch, no_query_terms",
    },
)
class LanePlanOut(Response):
    pass


@served(
    ContextPlan,
    {
        "pending_embeddings": "embedding jobs still queued for this context",
    },
)
class ContextPlanOut(Response):
    lanes: dict[str, LanePlanOut]


@served(
    SearchPlan,
    {
        "pool": "candidates each lane gathers",
        "fusion": "how the lanes are fused: score_share = each lane's score over its best, "
        "averaged over the lanes asked for",
    },
)
class SearchPlanOut(Response):
    contexts: list[ContextPlanOut]


@served(
    SearchResult,
    {
        "next_after": "pass back as `after` for the next page",
    },
)
class SearchOut(Response):
    hits: list[HitOut]
    plan: SearchPlanOut


@served(
    TermEvidence,
    {
        "contribution": "this term's share of the paragraph's BM25 score",
    },
)
class TermEvidenceOut(Response):
    pass


@served(
    Explanation,
    {
        "verdict": "not_stored, context_not_searched, retracted, paragraph_out_of_range, "
        "filtered_out, no_query_terms, no_term_overlap, below_floor, below_cutoff, "
        "earlier_page (served on a page before the one `after` asks for) or served",
        "limit_to_reach": "a limit verified to serve it, if any",
        "vector": "the cosine and floor, or why the lane did not run",
    },
)
class ExplanationOut(Response):
    lanes: dict[str, LaneRankOut]
    terms: list[TermEvidenceOut]


# -- the catalog (search_catalog) ------------------------------------------------------------------


class CatalogIn(Request):
    """Which documents there are about `query`, over the contexts and groups named."""

    query: str = Field(
        description="what the documents are about; `*`, `all` or nothing lists them all (browse)"
    )
    contexts: list[str] = Field([], description="contexts to list")
    groups: list[str] = Field([], description="groups to list (nested groups included)")
    limit: int = Field(10, ge=1, le=CATALOG_LIMIT, description="sources per page")
    offset: int = Field(0, ge=0, le=MAX_OFFSET, description="`next_offset` of the previous page")

    def to_request(self) -> CatalogRequest:
        return CatalogRequest(
            self.query, tuple(self.contexts), tuple(self.groups), self.limit, self.offset
        )


@served(
    CatalogLane,
    {
        "lane": "`title` or `bm25`",
        "rank": "1-based, within the source's context",
    },
)
class CatalogLaneOut(Response):
    pass


@served(
    CatalogHit,
    {
        "paragraph": "the snippet's paragraph",
        "snippet": "the best paragraph (the lead one when only the title matched)",
        "lanes": "the lanes that found it (none when browsing)",
        "score": "reciprocal rank fusion over its lanes (0 when browsing)",
    },
)
class CatalogHitOut(Response):
    lanes: list[CatalogLaneOut]


@served(
    CatalogPlan,
    {
        "mode": "`search`, or `browse` for a query of `*`, `all` or nothing",
        "total": "sources found (or visible, browsing) before the page",
        "next_offset": "pass back as `offset` for the next page",
    },
)
class CatalogPlanOut(Response):
    pass


@served(CatalogResult)
class CatalogOut(Response):
    hits: list[CatalogHitOut]
    plan: CatalogPlanOut


class CatalogExpected(Request):
    context: str | None = Field(None, description="its context; default: the only one listed")
    source_id: SourceId


class CatalogExplainIn(CatalogIn):
    expected: CatalogExpected = Field(description="the source you expected")

    def expected_context(self) -> str:
        return expected_context(
            self.expected.context, self.contexts, self.groups, "expected.context"
        )


@served(
    CatalogExplanation,
    {
        "verdict": "not_stored, context_not_searched, retracted, not_found, other_page or served",
        "position": "1-based, in the whole order",
        "offset_to_reach": "an `offset` whose page holds it",
    },
)
class CatalogExplanationOut(Response):
    lanes: list[CatalogLaneOut]
