"""Erasure and export of a user: only the user themself or an admin (access/erasure.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.users import ErasureOut

router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)


@router.delete("/users/{name}")
def erase_user(name: str, svc: Svc, user: User) -> ErasureOut:
    """Delete the user and every row of theirs in one transaction; counts per table. Export
    first (`GET /users/{name}/export`): nothing of it can be read back afterwards."""
    return out(ErasureOut, svc.erase_user(name, actor=user))


@router.get(
    "/users/{name}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {JSON_LINES: {}}, "description": "one JSON object per line"}},
)
def export_user(name: str, svc: Svc, user: User) -> StreamingResponse:
    """Every row erasing the user would delete, as JSON Lines: `{"table": …, "row": {…}}`."""
    rows = svc.export_user(name, actor=user)  # refuses before the first byte is sent
    return StreamingResponse(json_lines(rows), media_type=JSON_LINES)
