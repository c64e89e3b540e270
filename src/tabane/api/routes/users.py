"""Erasure and export of a user: only the user themself or an admin (access/erasure.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.wire.base import ERROR_RESPONSES
from tabane.wire.users import ErasureOut

router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)


@router.delete("/users/{name}")
def erase_user(name: str, svc: Svc, user: User) -> ErasureOut:
    """Delete the user and every row of theirs in one transaction; counts per table. Export
    first (`GET /users/{name}/export`): nothing of it can be read back afterwards."""
    done = svc.erase_user(name, actor=user)
    return ErasureOut(
        user=done.user,
        deleted=done.deleted,
        total=done.total,
        renetted=done.renetted,
        pruned=done.pruned,
        rebuilds=done.rebuilds,
        reopened=done.reopened,
        forgotten=done.forgotten,
        keys_narrowed=done.keys_narrowed,
        vacuumed=list(done.vacuumed),
    )


@router.get(
    "/users/{name}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {JSON_LINES: {}}, "description": "one JSON object per line"}},
)
def export_user(name: str, svc: Svc, user: User) -> StreamingResponse:
    """Every row erasing the user would delete, as JSON Lines: `{"table": …, "row": {…}}`."""
    rows = svc.export_user(name, actor=user)  # refuses before the first byte is sent
    return StreamingResponse(json_lines(rows), media_type=JSON_LINES)
