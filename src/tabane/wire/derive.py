"""The wire shapes of derived memory: communities, entity profiles, the RAPTOR tree and its
members (over HTTP and the `overview_members` tool)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import Field

from tabane.derive.raptor.read import RaptorMemberView
from tabane.derive.shared import MAX_ORDINAL
from tabane.wire.base import ContextArg, Request, Response


class MemberOut(Response):
    concept: str
    weight: float = Field(description="weighted degree: the sum of |net weight| of its edges")


class CommunityOut(Response):
    level: int = Field(description="0: communities of concepts; 1: communities of level 0")
    ordinal: int = Field(description="number within its level: by size, then smallest member")
    parent: int | None = Field(description="ordinal of the level-above community holding it")
    size: int = Field(description="members in all (`members` lists the heaviest)")
    summary: str
    summarizer: str = Field(description="what wrote the summary, e.g. `edges-v2`")
    members: list[MemberOut]


class CommunitiesOut(Response):
    context: str
    built: bool = Field(description="false: never built for this context")
    built_at: datetime | None
    stale: bool = Field(description="the graph changed after the build (or was never built)")
    graph_version: str | None = Field(description="the graph state the build saw")
    current_version: str = Field(description="the graph state now")
    communities: list[CommunityOut]


class CommunitySearchIn(Request):
    query: str = Field(description="words to find among member names and summaries")
    limit: int = Field(10, description="communities to return (1-100)")


class CommunityHitOut(Response):
    community: CommunityOut
    score: float = Field(description="share of the query's terms the community contains")
    matched: list[str] = Field(description="members sharing a term with the query")


class CommunitySearchOut(Response):
    context: str
    query: str
    terms: list[str] = Field(description="the query's terms (tabane's tokenizer)")
    built: bool
    built_at: datetime | None
    stale: bool
    total: int = Field(description="communities that matched, before `limit`")
    hits: list[CommunityHitOut]


class ProfileOut(Response):
    context: str
    concept: str = Field(description="the canonical concept (an alias reads its concept)")
    built: bool = Field(description="false: never built, or not among the heaviest concepts")
    built_at: datetime | None
    stale: bool = Field(description="the concept's claims changed after the build")
    weight: float | None = Field(description="weighted degree at the build: sum of |weight|")
    summary: str = Field(
        description="world claims first, then each holder's as `<holder>: …`, one per line; "
        "`[c:<id>]` cites a claim"
    )
    summarizer: str | None = Field(description="what wrote the summary, e.g. `extractive-v1`")
    fingerprint: str | None = Field(description="identifies the claims the build read")
    refs: list[str] = Field(description="the claims the summary cites, as `c:<id>`")
    model: str | None = Field(description="the model of the summary embedding (None: none)")
    dim: int | None
    claim_version: str | None = Field(description="the concept's claim state the build saw")
    current_version: str = Field(description="the concept's claim state now")


class RaptorNodeOut(Response):
    level: int = Field(description="1: summaries of paragraphs and notes; L+1: of level L")
    ordinal: int = Field(description="number within its level")
    parent: int | None = Field(description="ordinal of the level-above node (null: a root)")
    size: int = Field(description="direct members")
    leaves: int = Field(description="paragraphs and notes under it")
    summary: str = Field(description="`[p:<id>]`, `[c:<id>]`, `[r:<level>.<ordinal>]` cite members")
    summarizer: str = Field(description="what wrote the summary, e.g. `extractive-v1`")
    refs: list[str] = Field(description="the members the summary cites")
    members: list[str] = Field(description="the first member refs, nearest the centre first")


class RaptorTreeOut(Response):
    context: str
    built: bool = Field(description="false: never built for this context")
    built_at: datetime | None
    stale: bool = Field(description="paragraphs or notes changed after the build")
    corpus_version: str | None = Field(description="the corpus state the build saw")
    current_version: str = Field(description="the corpus state now")
    nodes: list[RaptorNodeOut] = Field(description="top level (the roots) first, then by ordinal")


class RaptorMemberOut(Response):
    ref: str = Field(description="`p:<id>`, `c:<id>` or `r:<level>.<ordinal>`")
    rank: int = Field(description="0 is nearest the cluster's centre")
    kind: str = Field(description="paragraph, claim, node, or missing (gone or not visible)")
    text: str
    source_id: str | None = None
    paragraph: int | None = None
    title: str | None = None
    claim_id: int | None = None
    level: int | None = None
    ordinal: int | None = None


class CommunitySearchArgs(CommunitySearchIn):
    """The `search_communities` tool's arguments: the route's body and its context."""

    context: ContextArg


class OverviewArgs(Request):
    context: ContextArg
    level: Annotated[
        int, Field(ge=1, le=MAX_ORDINAL, description="L of an item cited `overview L.O`.")
    ]
    ordinal: Annotated[
        int, Field(ge=0, le=MAX_ORDINAL, description="O of an item cited `overview L.O`.")
    ]


@dataclass(frozen=True)
class OverviewMembers:
    members: list[RaptorMemberView]
