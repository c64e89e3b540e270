"""Derived communities in Taguru's form (decision 0027): the search enveloped, the listing as
Taguru's JSON Lines stream."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.derive.communities.communities import Communities, CommunityInfo
from tabane.errors import Conflict, InvalidInput, Issue
from tabane.wire.taguru import Ok
from tabane.wire.taguru.upkeep import (
    CommunityHitOut,
    CommunityHits,
    CommunityMember,
    TaguruCommunitySearchIn,
)

router = APIRouter()
ALGORITHM = "louvain/1"  # tabane's build: Louvain with a fixed seed, |weight| as edge weight
STREAM: dict[int | str, dict[str, Any]] = {
    200: {"content": {JSON_LINES: {}}, "description": "a header line, then one per community"}
}


def _id(level: int, ordinal: int) -> str:
    return f"L{level}-{ordinal}"


def _parent(c: CommunityInfo) -> str | None:
    return None if c.parent is None else _id(c.level + 1, c.parent)


def _members(c: CommunityInfo) -> list[CommunityMember]:
    return [CommunityMember(name=m.concept, strength=abs(m.weight)) for m in c.members]


def _built(context: str, built: bool) -> None:
    if not built:
        raise Conflict(
            f"context {context!r} has no communities: build them with "
            f"`tabane derive --context {context}`",
            issues=[Issue("context", "no communities built")],
        )


@router.post("/contexts/{context}/communities/search")
def search_communities(
    context: str, body: TaguruCommunitySearchIn, svc: Svc, user: User, started: Started
) -> Ok[CommunityHits]:
    """Communities whose member names or summary share the query's terms; the context holds its
    own communities (`derived` is the context); no vector lane. None built: 409 `conflict`
    naming the build command, never an empty result."""
    if body.derived not in (None, context):
        raise InvalidInput(
            f"derived {body.derived!r}",
            issues=[Issue("derived", "tabane keeps a context's communities in the context")],
        )
    found = svc.search_communities(user, context, body.query, body.limit)
    _built(context, found.built)
    hits = [
        CommunityHitOut(
            community=_id(h.community.level, h.community.ordinal),
            score=h.score,
            text=h.community.summary,
            level=h.community.level,
            parent=_parent(h.community),
            concept_count=h.community.size,
            members=_members(h.community),
        )
        for h in found.hits
    ]
    lanes = {"bm25": {"ran": True}, "vector": {"ran": False, "reason": "terms only"}}
    done = CommunityHits(
        derived=found.context,
        algorithm=ALGORITHM,
        stale=found.stale,
        revision={"recorded_graph": None, "current_graph": None},
        plan={"contexts": [{"context": found.context, "lanes": lanes}]},
        hits=hits,
    )
    return Ok[CommunityHits].model_validate(ok(done, started))


@router.get("/contexts/{context}/communities", response_class=StreamingResponse, responses=STREAM)
def communities(
    context: str,
    svc: Svc,
    user: User,
    level: Annotated[int | None, Query(description="one level only (default: all)")] = None,
) -> StreamingResponse:
    """The communities as Taguru's JSON Lines: a header, then one line per community, leaves
    (level 0) first. Built offline (`tabane derive`); none built: 409 `conflict`."""
    found = svc.communities(user, context, level)
    _built(context, found.built)
    return StreamingResponse(json_lines(_lines(found)), media_type=JSON_LINES)


def _lines(found: Communities) -> Iterator[dict[str, Any]]:
    rows = sorted(found.communities, key=lambda c: (c.level, c.ordinal))
    children: dict[str, list[str]] = {}
    for c in rows:
        if (up := _parent(c)) is not None:
            children.setdefault(up, []).append(_id(c.level, c.ordinal))
    yield {
        "taguru_communities": 1,
        "context": found.context,
        "algorithm": ALGORITHM,
        "revision": found.graph_version,
        "concept_count": sum(c.size for c in rows if c.level == 0),
        "edge_count": None,
        "levels": len({c.level for c in rows}),
        "communities": len(rows),
        "stale": found.stale,
    }
    for c in rows:
        names = [m.concept for m in c.members]
        line: dict[str, Any] = {
            "id": _id(c.level, c.ordinal),
            "level": c.level,
            "fingerprint": hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:16],
            "concept_count": c.size,
            "members": [m.model_dump() for m in _members(c)],
            "summary": c.summary,
        }
        if (up := _parent(c)) is not None:
            line["parent"] = up
        if (kids := children.get(line["id"])) is not None:
            line["children"] = kids
        yield line
