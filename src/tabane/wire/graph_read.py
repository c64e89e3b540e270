"""The wire shapes of the graph reads: query (per context and across), describe, activate,
explore, paths, unreachable_from, labels and association citations.

Requests are strict like every request model; a cue position takes a spelling or an OR-list of
spellings. Range checks also run in the service, so every surface reports them alike. Responses
mirror the service's frozen dataclasses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from tabane.checks import Cue, parse_date
from tabane.graph.query.concepts import MAX_LABEL_PAGE
from tabane.graph.query.pattern import MAX_LIMIT
from tabane.graph.walk.paths import MAX_BUDGET, MAX_PATHS, MAX_UNREACHABLE_PAGE
from tabane.graph.walk.walk import MAX_ACTIVATE, MAX_DEPTH, MAX_EXPLORE
from tabane.wire.base import ContextArg, Request, Response

CUE = "a spelling or an OR-list of spellings (aliases map to their concept)"
PERSPECTIVE = "only this partition: a holder's key, or '' for the shared world partition"

# -- requests -----------------------------------------------------------------------------------


class QueryIn(Request):
    """Edges matching every position given; strongest |weight| first."""

    subject: Cue | None = Field(None, description=CUE)
    label: Cue | None = Field(None, description=CUE)
    object: Cue | None = Field(None, description=CUE)
    any: Cue | None = Field(
        None, description="edges touching a cue as subject or object (labels do not count)"
    )
    perspective: str | None = Field(None, description=PERSPECTIVE)
    since: str | None = Field(None, description="ISO 8601: weights from claims valid from it")
    until: str | None = Field(None, description="ISO 8601: weights from claims valid before it")
    limit: int = Field(50, ge=1, le=MAX_LIMIT, description="edges per page")
    after: str | None = Field(None, description="`next` of the previous page")
    include_retracted: bool = Field(
        True, description="also edges whose claims were all retracted: weight 0, with history"
    )

    def kwargs(self) -> dict[str, Any]:
        """The service query's keyword arguments (but the contexts and groups read)."""
        return {
            **self.model_dump(exclude={"since", "until", "contexts", "groups"}),
            "since": parse_date(self.since, "since"),
            "until": parse_date(self.until, "until"),
        }


class CrossQueryIn(QueryIn):
    contexts: list[str] = Field([], description="contexts to read")
    groups: list[str] = Field([], description="groups to read (nested groups included)")


class DescribeIn(Request):
    concept: str = Field(description="The concept's spelling (an alias works too).")


class WalkIn(Request):
    origins: Cue = Field(description="concepts to start from (resolve cues first)")
    labels: list[str] | None = Field(None, description="follow only edges with these labels")
    perspective: str | None = Field(None, description=PERSPECTIVE)
    since: str | None = Field(None, description="ISO 8601: weights from claims valid from it")
    until: str | None = Field(None, description="ISO 8601: weights from claims valid before it")

    def options(self) -> dict[str, Any]:
        """The walk's keyword arguments (but its origins and targets), dates parsed."""
        return {
            **self.model_dump(exclude={"context", "origins", "targets", "since", "until"}),
            "since": parse_date(self.since, "since"),
            "until": parse_date(self.until, "until"),
        }


class ActivateIn(WalkIn):
    decay: float = Field(0.5, gt=0.0, le=1.0, description="share passed on per hop")
    limit: int = Field(20, ge=1, le=MAX_ACTIVATE, description="concepts to return")
    min_activation: float = Field(1e-6, gt=0.0, le=1.0, description="stop below this")


class ExploreIn(WalkIn):
    depth: int = Field(2, ge=1, le=MAX_DEPTH, description="hops")
    limit: int = Field(1000, ge=1, le=MAX_EXPLORE, description="concepts to return")


class PathsIn(WalkIn):
    targets: Cue = Field(description="concepts a path may end at")
    max_depth: int = Field(4, ge=1, le=MAX_DEPTH, description="edges per path at most")
    budget: int = Field(1000, ge=1, le=MAX_BUDGET, description="concepts whose edges may be read")
    limit: int = Field(10, ge=1, le=MAX_PATHS, description="paths to return")


class UnreachableIn(Request):
    origin: str = Field(description="the document's main concept")
    limit: int = Field(100, ge=1, le=MAX_UNREACHABLE_PAGE, description="Concepts per page.")
    after: str | None = Field(None, description="`next` of the previous page")


class CitationsIn(Request):
    subject: str = Field(description="The edge's subject concept.")
    label: str = Field(description="The edge's label.")
    object: str = Field(description="The edge's object concept.")
    perspective: str | None = Field(None, description=PERSPECTIVE)


# -- responses ----------------------------------------------------------------------------------


class AttributionOut(Response):
    claim: int
    weight: float
    author: str
    kind: str
    source: str | None
    paragraph: int | None
    section: list[str] = Field(description="the cited paragraph's heading path")
    locator: dict[str, Any] | None
    statement: str | None
    closed_at: datetime | None = Field(description="set on a closed claim (an edge's history)")
    close_reason: str | None = Field(description="retracted | superseded")


class EdgeOut(Response):
    context: str
    subject: str
    label: str
    object: str
    weight: float = Field(
        description="net: the sum over its live claims (0 once all closed); negative means 'not'"
    )
    claims: int = Field(description="live claims; 0: every claim closed, the edge kept")
    perspective: str | None = Field(description="null: the shared world partition")
    attributions: list[AttributionOut]


class QueryOut(Response):
    edges: list[EdgeOut]
    total: int = Field(description="matching edges before the page was cut")
    next: str | None = Field(description="pass back as `after` for the next page")
    contexts: list[str] = Field(description="every context read")
    aliased: dict[str, str] = Field(description="cue spellings read as their canonical concept")


class LabelCountOut(Response):
    label: str
    edges: int
    weight: float
    strength: float = Field(description="Σ|weight|")


class DescribeOut(Response):
    context: str
    concept: str
    aliases: list[str]
    as_subject: list[LabelCountOut]
    as_object: list[LabelCountOut]
    degree: int
    strength: float


class ActivatedOut(Response):
    concept: str
    activation: float
    depth: int
    via: list[str] = Field(description="the concepts of its path, origin first")
    path: list[EdgeOut] = Field(description="its path's edges (attributions under `edges`)")


class ActivateOut(Response):
    context: str
    origins: list[str]
    concepts: list[ActivatedOut]
    edges: list[EdgeOut]
    expanded: int
    statements: int


class PathOut(Response):
    concepts: list[str]
    edges: list[EdgeOut]


class PathsOut(Response):
    context: str
    origins: list[str]
    targets: list[str]
    paths: list[PathOut]
    expanded: int
    capped: bool = Field(description="the budget ran out: more paths may exist")
    truncated: bool = Field(description="`limit` paths were returned: more may exist")


class ClaimCitationOut(Response):
    claim: int
    weight: float
    author: str
    kind: str
    statement: str | None
    source: str | None
    paragraph: int | None
    title: str | None
    text: str | None
    section: list[str]
    locator: dict[str, Any] | None


class CitedAssociationOut(Response):
    perspective: str | None
    weight: float
    claims: int
    citations: list[ClaimCitationOut]


class CitationsOut(Response):
    context: str
    subject: str
    label: str
    object: str
    associations: list[CitedAssociationOut]


LABEL_PAGE = MAX_LABEL_PAGE


class QueryGraphArgs(CrossQueryIn):
    """The `query_graph` tool's arguments: the cross-context query."""


class DescribeArgs(DescribeIn):
    context: ContextArg


class ActivateArgs(ActivateIn):
    context: ContextArg


class ExploreArgs(ExploreIn):
    context: ContextArg


class FindPathsArgs(PathsIn):
    context: ContextArg


class UnreachableArgs(UnreachableIn):
    context: ContextArg


class ListLabelsArgs(Request):
    context: ContextArg
    prefix: Annotated[
        str | None, Field(description="Only labels starting with this (case-insensitive).")
    ] = None
    limit: Annotated[int, Field(ge=1, le=MAX_LABEL_PAGE, description="Labels per page.")] = 100
    after: str | None = Field(None, description="`next` of the previous page")


class CiteAssociationArgs(CitationsIn):
    context: ContextArg
