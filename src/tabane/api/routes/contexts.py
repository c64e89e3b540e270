"""Contexts and groups (Taguru-compatible paths)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.contexts.groups import GroupInfo
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.contexts import (
    SINCE,
    ChangePage,
    Compaction,
    ContextCreate,
    ContextDeleted,
    ContextList,
    ContextOut,
    ContextPatch,
    ContextRename,
    Flush,
    FlushIn,
    GroupCreate,
    GroupDeleted,
    GroupList,
    GroupPatch,
    StatsOut,
)

router = APIRouter(responses=ERROR_RESPONSES)


@router.get("/contexts", tags=["contexts"])
def list_contexts(svc: Svc, user: User) -> ContextList:
    """Every context the caller can see, by name."""
    return ContextList(contexts=[out(ContextOut, c) for c in svc.list_contexts(user)])


@router.post("/contexts", status_code=201, tags=["contexts"])
def create_context(body: ContextCreate, svc: Svc, user: User) -> ContextOut:
    """Create a context (scopes default to the caller's own)."""
    fields = body.model_dump(exclude_unset=True, exclude={"name"})
    return out(ContextOut, svc.create_context(user, body.name, **fields))


@router.get("/contexts/{context}", tags=["contexts"])
def get_context(context: str, svc: Svc, user: User) -> ContextOut:
    """One context with its settings, machine stats and usage stats."""
    return out(ContextOut, svc.get_context(user, context))


@router.patch("/contexts/{context}", tags=["contexts"])
def update_context(context: str, body: ContextPatch, svc: Svc, user: User) -> ContextOut:
    """Change the description or floors; only the fields sent change (`semantic_floor: null`
    clears it)."""
    return out(ContextOut, svc.update_context(user, context, body.changes()))


@router.post("/contexts/{context}/rename", tags=["contexts"])
def rename_context(context: str, body: ContextRename, svc: Svc, user: User) -> ContextOut:
    """Rename a context; its sources, memberships and statistics follow it."""
    return out(ContextOut, svc.rename_context(user, context, body.new_name))


@router.delete("/contexts/{context}", tags=["contexts"])
def delete_context(context: str, svc: Svc, user: User) -> ContextDeleted:
    """Delete a context with everything in it; answers what was removed."""
    return ContextDeleted(name=context, removed=out(StatsOut, svc.delete_context(user, context)))


@router.get("/contexts/{context}/changes", tags=["contexts"])
def changes(
    context: str,
    svc: Svc,
    user: User,
    since: Annotated[str | None, Query(description=SINCE)] = None,
    limit: Annotated[int, Query(description="events per page (1-1000)")] = 100,
    tail: Annotated[bool, Query(description="no events: a cursor for what comes next")] = False,
) -> ChangePage:
    """The context's write log after the cursor `since` (the `next` of the page before; omitted:
    from the first event), what you may see of it: sources stored and retracted, claims
    recorded and closed (with their triple: an edge changes only through its claims), aliases
    added. `more: true`: ask again at once. A removed alias or an erased user's rows leave no
    event. `tail=true` answers no events, only a cursor for what is written from now on."""
    return svc.changes(user, context, since=since, limit=limit, tail=tail)


@router.post("/contexts/{context}/compact", tags=["contexts"])
def compact(context: str, svc: Svc, user: User) -> Compaction:
    """Compact the context now, for each scope set you may write: its fresh BM25 packs and
    masks folded into the merged rows, its vocabulary bigrams packed (what the background
    merges do when due). VACUUM and ANALYZE are not in it: they are whole-table work, the
    operator's. Content is unchanged."""
    return svc.compact(user, context)


@router.post("/contexts/{context}/flush", tags=["contexts"])
def flush(context: str, body: FlushIn, svc: Svc, user: User) -> Flush:
    """Run the context's queued jobs (embedding, merges, derived rebuilds) until none is left or
    `timeout` seconds pass; `left` counts what is still queued. Every committed write is already
    durable in PostgreSQL: flushing only waits for the work that follows a write."""
    return svc.flush(user, context, body.timeout)


@router.get("/groups", tags=["groups"])
def list_groups(svc: Svc, user: User) -> GroupList:
    """Every group the caller can see, with its members."""
    return GroupList(list(svc.list_groups(user)))


@router.post("/groups", status_code=201, tags=["groups"])
def create_group(body: GroupCreate, svc: Svc, user: User) -> GroupInfo:
    """Create a group of contexts and child groups (at most three groups tall, no cycles)."""
    fields = body.model_dump(exclude_unset=True, exclude={"name"})
    return svc.create_group(user, body.name, **fields)


@router.get("/groups/{group}", tags=["groups"])
def get_group(group: str, svc: Svc, user: User) -> GroupInfo:
    """One group with its member contexts and child groups."""
    return svc.get_group(user, group)


@router.patch("/groups/{group}", tags=["groups"])
def change_group(group: str, body: GroupPatch, svc: Svc, user: User) -> GroupInfo:
    """Change the description and membership, by deltas (members must exist)."""
    return svc.change_group(user, group, **body.model_dump(exclude_unset=True))


@router.post("/groups/{group}/rename", tags=["groups"])
def rename_group(group: str, body: ContextRename, svc: Svc, user: User) -> GroupInfo:
    """Rename a group; its members and the groups that hold it follow it."""
    return svc.rename_group(user, group, body.new_name)


@router.delete("/groups/{group}", tags=["groups"])
def delete_group(group: str, svc: Svc, user: User) -> GroupDeleted:
    """Delete a group; its contexts and child groups stay."""
    svc.delete_group(user, group)
    return GroupDeleted(name=group, deleted=True)
