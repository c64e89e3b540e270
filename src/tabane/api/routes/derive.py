"""Derived memory over HTTP: a context's communities and their search, a concept's entity
profile, and the context's RAPTOR tree with each node's members. Each route is one facade call;
each answer says whether what it was built from changed after the build (`stale`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.derive import (
    CommunitiesOut,
    CommunitySearchIn,
    CommunitySearchOut,
    ProfileOut,
    RaptorMemberOut,
    RaptorTreeOut,
)

router = APIRouter(prefix="/contexts/{context}", tags=["derived"], responses=ERROR_RESPONSES)


@router.get("/communities")
def communities(
    context: str,
    svc: Svc,
    user: User,
    level: Annotated[int | None, Query(description="one level only (default: all)")] = None,
) -> CommunitiesOut:
    """The communities of the context's concept graph (Louvain, fixed seed, |weight| as edge
    weight) with a deterministic summary each and their heaviest members. Built offline
    (`tabane derive`); `stale` says the graph changed after the build, so treat the clusters as
    an overview, and check facts with `query`/`describe`."""
    return out(CommunitiesOut, svc.communities(user, context, level))


@router.post("/communities/search")
def search_communities(
    context: str, body: CommunitySearchIn, svc: Svc, user: User
) -> CommunitySearchOut:
    """Communities whose member names or summary share terms with the query, by the share of
    the query's terms found, then the weight of the matching members. Use it to find the topic
    a concept belongs to, or which topics a context covers; flagged `stale` like the listing."""
    result = svc.search_communities(user, context, body.query, body.limit)
    return out(CommunitySearchOut, result)


@router.get("/profiles/{concept:path}")
def profile(context: str, concept: str, svc: Svc, user: User) -> ProfileOut:
    """The entity profile of a concept: a summary of its heaviest open claims, world claims
    first and each perspective holder's labelled with the holder, so disagreements stay apart.
    Built offline (`tabane derive --what profiles`); `stale` says the concept's claims changed
    after the build. Cite the `[c:<id>]` claims, not the profile. 404 `no_concept` when the
    context has no such concept."""
    return out(ProfileOut, svc.profile(user, context, concept))


@router.get("/raptor")
def raptor_tree(
    context: str,
    svc: Svc,
    user: User,
    level: Annotated[int | None, Query(description="one level only (default: all)")] = None,
) -> RaptorTreeOut:
    """The context's RAPTOR tree: its paragraphs and notes clustered by meaning and summarized,
    level by level, up to a few roots — broad overviews of what the context holds. Built in the
    background after ingest when an embedder is configured (or `tabane derive --what raptor`);
    `stale` says the corpus changed after the build. Follow a node down with its members."""
    return out(RaptorTreeOut, svc.raptor_tree(user, context, level))


@router.get("/raptor/{level}/{ordinal}")
def raptor_members(
    context: str, level: int, ordinal: int, svc: Svc, user: User
) -> list[RaptorMemberOut]:
    """Every member of one RAPTOR node, nearest the cluster's centre first, resolved to the
    paragraph (source id, paragraph number, title, text), note or child node it names, so an
    overview's citation can be checked against the evidence below it. 404 `no_node` when the
    tree has no such node."""
    found = svc.raptor_members(user, context, level, ordinal)
    return [out(RaptorMemberOut, m) for m in found]
