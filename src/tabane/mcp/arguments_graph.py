"""Arguments of the graph read tools (`tools_graph_reads`). A cue position takes a spelling or a
list of spellings (OR); ranges are in the schemas and checked again by the service."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tabane.graph.query import MAX_LIMIT
from tabane.graph.query_concepts import MAX_LABEL_PAGE
from tabane.graph.walk import MAX_ACTIVATE, MAX_DEPTH, MAX_EXPLORE
from tabane.graph.walk_paths import MAX_BUDGET, MAX_PATHS, MAX_UNREACHABLE_PAGE
from tabane.mcp.arguments import Args, ContextArg
from tabane.types import Cue

Perspective = Annotated[
    str | None,
    Field(description="Only this partition: a holder's key, or '' for shared world facts."),
]
Labels = Annotated[list[str] | None, Field(description="Follow only edges with these labels.")]
Origins = Annotated[
    Cue, Field(description="Concept(s) to start from: resolved, canonical spellings.")
]
After = Annotated[str | None, Field(description="`next` of the previous page.")]


class QueryGraphArgs(Args):
    contexts: list[str] = Field(default_factory=list, description="Contexts to read.")
    groups: list[str] = Field(default_factory=list, description="Groups to read (nested ones too).")
    subject: Annotated[Cue | None, Field(description="Subject spelling(s), OR.")] = None
    label: Annotated[Cue | None, Field(description="Label spelling(s), OR.")] = None
    object: Annotated[Cue | None, Field(description="Object spelling(s), OR.")] = None
    any: Annotated[
        Cue | None,
        Field(description="Edges touching any of these concepts as subject or object."),
    ] = None
    perspective: Perspective = None
    since: Annotated[
        str | None, Field(description="ISO 8601: weights from claims valid on or after it.")
    ] = None
    until: Annotated[
        str | None, Field(description="ISO 8601: weights from claims valid before it.")
    ] = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Edges per page.")] = 50
    after: After = None
    include_retracted: Annotated[
        bool,
        Field(description="Also edges whose claims were all retracted (weight 0, with history)."),
    ] = True


class DescribeArgs(Args):
    context: ContextArg
    concept: Annotated[str, Field(description="The concept's spelling (an alias works too).")]


Since = Annotated[
    str | None, Field(description="ISO 8601: weights from claims valid on or after it.")
]
Until = Annotated[str | None, Field(description="ISO 8601: weights from claims valid before it.")]


class ActivateArgs(Args):
    context: ContextArg
    origins: Origins
    decay: Annotated[float, Field(gt=0.0, le=1.0, description="Share passed on per hop.")] = 0.5
    limit: Annotated[int, Field(ge=1, le=MAX_ACTIVATE, description="Concepts to return.")] = 20
    min_activation: Annotated[
        float, Field(gt=0.0, le=1.0, description="Stop spreading below this activation.")
    ] = 1e-6
    labels: Labels = None
    perspective: Perspective = None
    since: Since = None
    until: Until = None


class ExploreArgs(Args):
    context: ContextArg
    origins: Origins
    depth: Annotated[int, Field(ge=1, le=MAX_DEPTH, description="Hops.")] = 2
    limit: Annotated[int, Field(ge=1, le=MAX_EXPLORE, description="Concepts to return.")] = 1000
    labels: Labels = None
    perspective: Perspective = None
    since: Since = None
    until: Until = None


class FindPathsArgs(Args):
    context: ContextArg
    origins: Origins
    targets: Annotated[Cue, Field(description="Concept(s) a path may end at.")]
    max_depth: Annotated[int, Field(ge=1, le=MAX_DEPTH, description="Edges per path.")] = 4
    budget: Annotated[
        int, Field(ge=1, le=MAX_BUDGET, description="Concepts whose edges may be read.")
    ] = 1000
    limit: Annotated[int, Field(ge=1, le=MAX_PATHS, description="Paths to return.")] = 10
    labels: Labels = None
    perspective: Perspective = None
    since: Since = None
    until: Until = None


class UnreachableArgs(Args):
    context: ContextArg
    origin: Annotated[str, Field(description="The document's main concept.")]
    limit: Annotated[
        int, Field(ge=1, le=MAX_UNREACHABLE_PAGE, description="Concepts per page.")
    ] = 100
    after: After = None


class ListLabelsArgs(Args):
    context: ContextArg
    prefix: Annotated[
        str | None, Field(description="Only labels starting with this (case-insensitive).")
    ] = None
    limit: Annotated[int, Field(ge=1, le=MAX_LABEL_PAGE, description="Labels per page.")] = 100
    after: After = None


class CiteAssociationArgs(Args):
    context: ContextArg
    subject: Annotated[str, Field(description="The edge's subject concept.")]
    label: Annotated[str, Field(description="The edge's label.")]
    object: Annotated[str, Field(description="The edge's object concept.")]
    perspective: Perspective = None
