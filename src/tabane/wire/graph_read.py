"""The wire shapes of the graph reads: query (per context and across), describe, activate,
explore, paths, unreachable_from, labels and association citations.

Requests are strict like every request model; a cue position takes a spelling or an OR-list of
spellings. Range checks also run in the service, so every surface reports them alike. Responses
mirror the service's frozen dataclasses.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tabane.checks import Cue, parse_date
from tabane.graph.edges import Attribution, Edge
from tabane.graph.query.cite import AssociationCitations, CitedAssociation, ClaimCitation
from tabane.graph.query.concepts import MAX_LABEL_PAGE, ConceptDescription, LabelCount
from tabane.graph.query.pattern import MAX_LIMIT, QueryResult
from tabane.graph.walk.paths import MAX_BUDGET, MAX_PATHS, MAX_UNREACHABLE_PAGE, Path, PathsResult
from tabane.graph.walk.walk import MAX_ACTIVATE, MAX_DEPTH, MAX_EXPLORE, Activated, ActivationResult
from tabane.wire.base import ContextArg, Request, Response, served

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


@served(
    Attribution,
    {
        "section": "the cited paragraph's heading path",
        "closed_at": "set on a closed claim (an edge's history)",
        "close_reason": "retracted | superseded",
    },
)
class AttributionOut(Response):
    pass


@served(
    Edge,
    {
        "weight": "net: the sum over its live claims (0 once all closed); negative means 'not'",
        "claims": "live claims; 0: every claim closed, the edge kept",
        "perspective": "null: the shared world partition",
    },
)
class EdgeOut(Response):
    attributions: list[AttributionOut]


@served(
    QueryResult,
    {
        "total": "matching edges before the page was cut",
        "next": "pass back as `after` for the next page",
        "contexts": "every context read",
        "aliased": "cue spellings read as their canonical concept",
    },
)
class QueryOut(Response):
    edges: list[EdgeOut]


@served(
    LabelCount,
    {
        "strength": "Σ|weight|",
    },
)
class LabelCountOut(Response):
    pass


@served(ConceptDescription)
class DescribeOut(Response):
    as_subject: list[LabelCountOut]
    as_object: list[LabelCountOut]


@served(
    Activated,
    {
        "via": "the concepts of its path, origin first",
        "path": "its path's edges (attributions under `edges`)",
    },
)
class ActivatedOut(Response):
    path: list[EdgeOut]


@served(ActivationResult)
class ActivateOut(Response):
    concepts: list[ActivatedOut]
    edges: list[EdgeOut]


@served(Path)
class PathOut(Response):
    edges: list[EdgeOut]


@served(
    PathsResult,
    {
        "capped": "the budget ran out: more paths may exist",
        "truncated": "`limit` paths were returned: more may exist",
    },
)
class PathsOut(Response):
    paths: list[PathOut]


@served(ClaimCitation)
class ClaimCitationOut(Response):
    pass


@served(CitedAssociation)
class CitedAssociationOut(Response):
    citations: list[ClaimCitationOut]


@served(AssociationCitations)
class CitationsOut(Response):
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
