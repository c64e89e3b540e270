"""The wire shapes of derived memory: communities, entity profiles, the RAPTOR tree and its
members (over HTTP and the `overview_members` tool)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from tabane.derive.communities.communities import (
    Communities,
    CommunityHit,
    CommunityInfo,
    CommunitySearch,
    Member,
)
from tabane.derive.profiles import ProfileInfo
from tabane.derive.raptor.read import RaptorMemberView, RaptorNodeInfo, RaptorTree
from tabane.derive.shared import MAX_ORDINAL
from tabane.wire.base import ContextArg, Request, Response, served


@served(Member, {"weight": "weighted degree: the sum of |net weight| of its edges"})
class MemberOut(Response):
    pass


@served(
    CommunityInfo,
    {
        "level": "0: communities of concepts; 1: communities of level 0",
        "ordinal": "number within its level: by size, then smallest member",
        "parent": "ordinal of the level-above community holding it",
        "size": "members in all (`members` lists the heaviest)",
        "summarizer": "what wrote the summary, e.g. `edges-v2`",
    },
)
class CommunityOut(Response):
    members: list[MemberOut]


@served(
    Communities,
    {
        "built": "false: never built for this context",
        "stale": "the graph changed after the build (or was never built)",
        "graph_version": "the graph state the build saw",
        "current_version": "the graph state now",
    },
)
class CommunitiesOut(Response):
    communities: list[CommunityOut]


class CommunitySearchIn(Request):
    query: str = Field(description="words to find among member names and summaries")
    limit: int = Field(10, description="communities to return (1-100)")


@served(
    CommunityHit,
    {
        "score": "share of the query's terms the community contains",
        "matched": "members sharing a term with the query",
    },
)
class CommunityHitOut(Response):
    community: CommunityOut


@served(
    CommunitySearch,
    {
        "terms": "the query's terms (tabane's tokenizer)",
        "total": "communities that matched, before `limit`",
    },
)
class CommunitySearchOut(Response):
    hits: list[CommunityHitOut]


@served(
    ProfileInfo,
    {
        "concept": "the canonical concept (an alias reads its concept)",
        "built": "false: never built, or not among the heaviest concepts",
        "stale": "the concept's claims changed after the build",
        "weight": "weighted degree at the build: sum of |weight|",
        "summary": "world claims first, then each holder's as `<holder>: …`, one per line; "
        "`[c:<id>]` cites a claim",
        "summarizer": "what wrote the summary, e.g. `extractive-v1`",
        "fingerprint": "identifies the claims the build read",
        "refs": "the claims the summary cites, as `c:<id>`",
        "model": "the model of the summary embedding (None: none)",
        "claim_version": "the concept's claim state the build saw",
        "current_version": "the concept's claim state now",
    },
)
class ProfileOut(Response):
    pass


@served(
    RaptorNodeInfo,
    {
        "level": "1: summaries of paragraphs and notes; L+1: of level L",
        "ordinal": "number within its level",
        "parent": "ordinal of the level-above node (null: a root)",
        "size": "direct members",
        "leaves": "paragraphs and notes under it",
        "summary": "`[p:<id>]`, `[c:<id>]`, `[r:<level>.<ordinal>]` cite members",
        "summarizer": "what wrote the summary, e.g. `extractive-v1`",
        "refs": "the members the summary cites",
        "members": "the first member refs, nearest the centre first",
    },
)
class RaptorNodeOut(Response):
    pass


@served(
    RaptorTree,
    {
        "built": "false: never built for this context",
        "stale": "paragraphs or notes changed after the build",
        "corpus_version": "the corpus state the build saw",
        "current_version": "the corpus state now",
    },
)
class RaptorTreeOut(Response):
    nodes: list[RaptorNodeOut] = Field(description="top level (the roots) first, then by ordinal")


@served(
    RaptorMemberView,
    {
        "ref": "`p:<id>`, `c:<id>` or `r:<level>.<ordinal>`",
        "rank": "0 is nearest the cluster's centre",
        "kind": "paragraph, claim, node, or missing (gone or not visible)",
    },
    defaults=True,
)
class RaptorMemberOut(Response):
    kind: str  # HTTP's schema has no enum here


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
