"""Taguru's forms of routes tabane also serves under its own (issue 35): a Taguru client works
unchanged where the two differ only by method or body shape. Each route is one facade call, the
same as its tabane twin's: `PUT /contexts/{c}` and `PUT /groups/{g}` create (tabane:
`POST /contexts`, `POST /groups`), `DELETE /contexts/{c}/aliases` takes the alias in its body
(tabane: in the path), and `POST /contexts/{c}/recall` is Taguru's cue recall — every edge
touching a cue — which is `query` with `any` here (tabane's `POST /recall` is the evidence read).
"""

from __future__ import annotations

from fastapi import APIRouter, Body

from tabane.api.deps import Svc, User
from tabane.contexts.groups import GroupInfo
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.contexts import ContextOut, ContextPut, GroupPut
from tabane.wire.graph_read import EdgeOut
from tabane.wire.graph_write import AliasDelete, AliasRemoved
from tabane.wire.taguru import CueRecallIn, CueRecallOut, MatchPlan

router = APIRouter(responses=ERROR_RESPONSES)


@router.put("/contexts/{context}", status_code=201, tags=["contexts"])
def put_context(
    context: str, svc: Svc, user: User, body: ContextPut | None = Body(None)
) -> ContextOut:
    """Create the context named by the path (Taguru's form of `POST /contexts`; the body is
    optional). A name in use is 409 `name_taken`: change settings with `PATCH`."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    return out(ContextOut, svc.create_context(user, context, **fields))


@router.put("/groups/{group}", status_code=201, tags=["groups"])
def put_group(group: str, svc: Svc, user: User, body: GroupPut | None = Body(None)) -> GroupInfo:
    """Create the group named by the path (Taguru's form of `POST /groups`; the body is
    optional). Change its members by deltas with `PATCH /groups/{group}`."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    return svc.create_group(user, group, **fields)


@router.delete("/contexts/{context}/aliases", tags=["graph"])
def delete_alias(context: str, body: AliasDelete, svc: Svc, user: User) -> AliasRemoved:
    """Retract one alias named in the body (Taguru's form of
    `DELETE /contexts/{context}/aliases/{alias}`); the canonical spelling and its edges stay."""
    removed = svc.remove_alias(user, context, body.alias, kind=body.kind)
    return AliasRemoved(body.alias, body.kind, removed)


@router.post("/contexts/{context}/recall", tags=["graph"])
def cue_recall(context: str, body: CueRecallIn, svc: Svc, user: User) -> CueRecallOut:
    """Taguru's cue recall: every edge touching `cue` as subject or object, strongest |weight|
    first, as `{total, matches, plan}` (tabane's `POST /contexts/{context}/query` with `any`
    answers the same edges with more)."""
    found = svc.query(user, contexts=[context], any=body.cue, limit=body.limit, after=body.after)
    return CueRecallOut(
        total=found.total,
        matches=[out(EdgeOut, e) for e in found.edges],
        plan=MatchPlan(contexts=list(found.contexts)),
        next=found.next,
    )
