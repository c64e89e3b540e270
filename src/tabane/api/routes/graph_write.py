"""The graph writes (Taguru-compatible paths): claims in batches, association retraction,
aliases; and `GET /protocol`, the manual for a connected LLM. Each route is one facade call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi import Response as HttpResponse
from fastapi.responses import PlainTextResponse

from tabane.api.deps import Svc, User
from tabane.mcp.server import protocol_text
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.graph_write import (
    AliasIn,
    AliasList,
    AliasOut,
    AliasRemoved,
    AliasWritten,
    AssociationsIn,
    CloseReportOut,
    Kind,
    PromoteIn,
    Promotion,
    RetractAssociationsIn,
    WriteReportOut,
)

router = APIRouter(prefix="/contexts/{context}", tags=["graph"], responses=ERROR_RESPONSES)
protocol_router = APIRouter(tags=["protocol"])


@router.post("/associations", status_code=201)
def add_associations(context: str, body: AssociationsIn, svc: Svc, user: User) -> WriteReportOut:
    """Write a batch of up to 10,000 claims, all or nothing. A rejected batch answers 422 with
    one issue per problem (`associations[17].weight: not finite`) and writes nothing. The report
    lists the claim ids and the concept and label spellings the batch minted, so a caller sees at
    once when it created a new spelling instead of reusing one (resolve before you mint)."""
    return out(WriteReportOut, svc.add_claims(user, context, body.claims(), scopes=body.scopes))


@router.post("/associations/retract")
def retract_associations(
    context: str, body: RetractAssociationsIn, svc: Svc, user: User
) -> CloseReportOut:
    """Close the live claims of each (subject, label, object) edge, optionally only one
    perspective's or one source's; weights drop, concepts and edges stay. `dry_run` counts what
    would close and closes nothing."""
    report = svc.retract_associations(user, context, body.edges(), dry_run=body.dry_run)
    return out(CloseReportOut, report)


@router.post("/claims/promote")
def promote(context: str, body: PromoteIn, svc: Svc, user: User) -> Promotion:
    """Make a personal claim (`experience`, `observation`, `opinion`, `preference`) the shared
    world's: a new `world` claim with its triple, weight, statement, attribution and author
    closes it as `superseded` (`closed_by` the new claim; its history stays). `claim` already
    the world's is `invalid_input`; unknown, closed or invisible is `no_claim`."""
    return svc.promote(user, context, body.claim, scopes=body.scopes)


@router.get("/aliases")
def list_aliases(
    context: str, svc: Svc, user: User, kind: Annotated[Kind | None, Query()] = None
) -> AliasList:
    """The context's aliases (entry-only spellings) with their canonical targets."""
    found = svc.list_aliases(user, context, kind=kind)
    return AliasList(list(found))


@router.post(
    "/aliases",
    status_code=201,
    responses={200: {"model": AliasWritten, "description": "the alias already existed"}},
)
def add_alias(
    context: str, body: AliasIn, svc: Svc, user: User, response: HttpResponse
) -> AliasWritten:
    """Make `alias` an entry spelling of the existing `target` (201; 200 when it already was).
    Aliases are entry-only: reads always answer the canonical spelling. An alias cannot join two
    existing concepts (409 `alias_conflict`); an unknown target is 404 `no_concept`."""
    info, created = svc.add_alias(
        user, context, body.alias, body.target, kind=body.kind, scopes=body.scopes
    )
    if not created:
        response.status_code = 200
    return AliasWritten(**out(AliasOut, info).model_dump(), created=created)


@router.delete("/aliases/{alias:path}")
def remove_alias(
    context: str,
    alias: str,
    svc: Svc,
    user: User,
    kind: Annotated[Kind, Query()] = "concept",
) -> AliasRemoved:
    """Retract one alias; the canonical spelling and its edges stay."""
    removed = svc.remove_alias(user, context, alias, kind=kind)
    return AliasRemoved(alias=alias, kind=kind, removed=removed)


@protocol_router.get(
    "/protocol",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {}}, "description": "the manual"}},
)
def protocol() -> PlainTextResponse:
    """The manual for a connected LLM (Markdown; also the MCP server's instructions): how to
    choose a context, resolve before minting, write and retract claims, search and explain."""
    return PlainTextResponse(protocol_text(), media_type="text/markdown; charset=utf-8")
