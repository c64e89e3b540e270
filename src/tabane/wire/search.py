"""The wire shapes of `sources/search` and its explain twin.

Requests are strict like every request model (unknown fields, NaN and Infinity refused); dates
travel as ISO 8601 strings and are parsed here, so a malformed one is a 422 naming its path
(`body.since`). The responses mirror the service's `SearchResult` and `Explanation` in full: the
plan is the answer to "why these hits (or none)".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from tabane.checks import expected_context, parse_date
from tabane.search.catalog.catalog import MAX_LIMIT as CATALOG_LIMIT
from tabane.search.catalog.catalog import MAX_OFFSET, CatalogRequest
from tabane.search.plan import MAX_LIMIT, FilterPlan, SearchRequest
from tabane.wire.base import Request, Response, SourceId
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


class LaneRankOut(Response):
    rank: int = Field(description="1-based rank within that lane")
    score: float = Field(description="the lane's own score: BM25, or cosine similarity")
    share: float = Field(
        description="the score over the lane's best for this query; the hit's score averages these"
    )


class HitOut(Response):
    context: str
    source_id: str
    paragraph: int
    title: str
    text: str
    section: list[str]
    locator: LocatorOut | None
    kind: str = Field(description="`text`, or `code`: preformatted, its line breaks kept")
    rank: int = Field(description="1-based rank over every context searched")
    context_rank: int = Field(description="rank within its own context")
    score: float = Field(
        description="the fused score: each lane's score over its best, averaged (1 = first in all)"
    )
    lanes: dict[str, LaneRankOut] = Field(
        description="`bm25` and/or `vector`: the lanes that found it"
    )
    via_question: list[str] = Field(
        description="query terms (or `vector`) that matched through a doc2query question"
    )


class LanePlanOut(Response):
    ran: bool
    reason: str | None = Field(
        description="why it did not run: no_embedder, no_vectors, model_mismatch, no_query_terms"
    )
    hits: int
    floor: float | None
    model: str | None


class ContextPlanOut(Response):
    context: str
    lanes: dict[str, LanePlanOut]
    filter: FilterPlan | None
    pending_embeddings: int = Field(description="embedding jobs still queued for this context")


class SearchPlanOut(Response):
    query_terms: list[str]
    contexts: list[ContextPlanOut]
    pool: int = Field(description="candidates each lane gathers")
    fusion: str = Field(
        description="how the lanes are fused: score_share = each lane's score over its best, "
        "averaged over the lanes asked for"
    )
    limit: int
    offset: int
    notes: list[str]


class SearchOut(Response):
    hits: list[HitOut]
    plan: SearchPlanOut
    next_after: str | None = Field(description="pass back as `after` for the next page")


class TermEvidenceOut(Response):
    term: str
    tf: int
    df: int
    idf: float
    contribution: float = Field(description="this term's share of the paragraph's BM25 score")


class ExplanationOut(Response):
    verdict: str = Field(
        description="not_stored, context_not_searched, retracted, paragraph_out_of_range, "
        "filtered_out, no_query_terms, no_term_overlap, below_floor, below_cutoff, "
        "earlier_page (served on a page before the one `after` asks for) or served"
    )
    detail: str
    context: str
    source_id: str
    paragraph: int | None
    rank: int | None
    lanes: dict[str, LaneRankOut]
    cutoff_score: float | None
    limit_to_reach: int | None = Field(description="a limit verified to serve it, if any")
    query_terms: list[str]
    paragraph_terms: list[str]
    terms: list[TermEvidenceOut]
    vector: dict[str, Any] = Field(description="the cosine and floor, or why the lane did not run")


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


class CatalogLaneOut(Response):
    lane: str = Field(description="`title` or `bm25`")
    rank: int = Field(description="1-based, within the source's context")


class CatalogHitOut(Response):
    context: str
    source_id: str
    title: str
    area: str | None
    state: str | None
    date: datetime | None
    paragraph: int | None = Field(description="the snippet's paragraph")
    snippet: str = Field(
        description="the best paragraph (the lead one when only the title matched)"
    )
    lanes: list[CatalogLaneOut] = Field(description="the lanes that found it (none when browsing)")
    score: float = Field(description="reciprocal rank fusion over its lanes (0 when browsing)")


class CatalogPlanOut(Response):
    mode: str = Field(description="`search`, or `browse` for a query of `*`, `all` or nothing")
    contexts: list[str]
    query_terms: list[str]
    total: int = Field(description="sources found (or visible, browsing) before the page")
    next_offset: int | None = Field(description="pass back as `offset` for the next page")


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


class CatalogExplanationOut(Response):
    verdict: str = Field(
        description="not_stored, context_not_searched, retracted, not_found, other_page or served"
    )
    detail: str
    context: str
    source_id: str
    position: int | None = Field(description="1-based, in the whole order")
    offset_to_reach: int | None = Field(description="an `offset` whose page holds it")
    lanes: list[CatalogLaneOut]
