"""Contexts and groups in Taguru's form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.wire.base import out
from tabane.wire.contexts import ContextOut, ContextPatch, ContextPut, GroupPatch, GroupPut
from tabane.wire.taguru import (
    ContextMeta,
    ContextsPage,
    GroupRow,
    GroupsPage,
    Ok,
    RenameTo,
    keyset,
)

router = APIRouter()


# -- contexts and groups ---------------------------------------------------------------------------


@router.put("/contexts/{context}")
def create_context(
    context: str, svc: Svc, user: User, started: Started, body: ContextPut | None = Body(None)
) -> Ok[bool]:
    """Create the context named by the path; a name in use is 409 `name_taken` (Taguru:
    `already_exists`)."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    svc.create_context(user, context, **fields)
    return Ok[bool].model_validate(ok(True, started))


@router.put("/groups/{group}")
def create_group(
    group: str, svc: Svc, user: User, started: Started, body: GroupPut | None = Body(None)
) -> Ok[bool]:
    """Create the group named by the path; every member must exist."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    svc.create_group(user, group, **fields)
    return Ok[bool].model_validate(ok(True, started))


@router.post("/contexts/{context}/rename")
def rename_context(
    context: str, body: RenameTo, svc: Svc, user: User, started: Started
) -> Ok[bool]:
    """Rename the context to `to` (tabane: `new_name`)."""
    svc.rename_context(user, context, body.to)
    return Ok[bool].model_validate(ok(True, started))


@router.post("/groups/{group}/rename")
def rename_group(group: str, body: RenameTo, svc: Svc, user: User, started: Started) -> Ok[bool]:
    """Rename the group to `to` (tabane: `new_name`)."""
    svc.rename_group(user, group, body.to)
    return Ok[bool].model_validate(ok(True, started))


Limit = Annotated[int, Query(ge=1, le=1000, description="rows per page")]
After = Annotated[str | None, Query(description="the last name of the previous page")]


@router.get("/contexts")
def list_contexts(
    svc: Svc, user: User, started: Started, limit: Limit = 1000, after: After = None
) -> Ok[ContextsPage]:
    """The contexts the caller can see, with description, stats and usage, by name."""
    found = {c.name: c for c in svc.list_contexts(user)}
    rows = [out(ContextOut, found[n]) for n in keyset(list(found), limit, after)]
    return Ok[ContextsPage].model_validate(
        ok(ContextsPage(total=len(found), contexts=rows), started)
    )


@router.get("/contexts/{context}")
def get_context(context: str, svc: Svc, user: User, started: Started) -> Ok[ContextOut]:
    """One context's row."""
    return Ok[ContextOut].model_validate(
        ok(out(ContextOut, svc.get_context(user, context)), started)
    )


@router.patch("/contexts/{context}")
def update_context(
    context: str, body: ContextPatch, svc: Svc, user: User, started: Started
) -> Ok[ContextMeta]:
    """Change the description or floors → the settings now (Taguru's context metadata)."""
    done = out(ContextMeta, svc.update_context(user, context, body.changes()))
    return Ok[ContextMeta].model_validate(ok(done, started))


@router.delete("/contexts/{context}")
def delete_context(context: str, svc: Svc, user: User, started: Started) -> Ok[bool]:
    """Delete the context with everything in it."""
    svc.delete_context(user, context)
    return Ok[bool].model_validate(ok(True, started))


@router.get("/groups")
def list_groups(
    svc: Svc, user: User, started: Started, limit: Limit = 1000, after: After = None
) -> Ok[GroupsPage]:
    """The groups the caller can see, with their members, by name."""
    found = {g.name: g for g in svc.list_groups(user)}
    rows = [out(GroupRow, found[n]) for n in keyset(list(found), limit, after)]
    return Ok[GroupsPage].model_validate(ok(GroupsPage(total=len(found), groups=rows), started))


@router.get("/groups/{group}")
def get_group(group: str, svc: Svc, user: User, started: Started) -> Ok[GroupRow]:
    """One group's row."""
    return Ok[GroupRow].model_validate(ok(out(GroupRow, svc.get_group(user, group)), started))


@router.patch("/groups/{group}")
def change_group(
    group: str, body: GroupPatch, svc: Svc, user: User, started: Started
) -> Ok[GroupRow]:
    """Change the description and members by deltas → the group now."""
    done = svc.change_group(user, group, **body.model_dump(exclude_unset=True))
    return Ok[GroupRow].model_validate(ok(out(GroupRow, done), started))


@router.delete("/groups/{group}")
def delete_group(group: str, svc: Svc, user: User, started: Started) -> Ok[bool]:
    """Delete the bundling; its contexts and child groups stay."""
    svc.delete_group(user, group)
    return Ok[bool].model_validate(ok(True, started))
