"""Erasure and export of a user: only the user themself or an admin (access/erasure.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import Field

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.api.schemas import ERROR_RESPONSES, Response

router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)


class ErasureOut(Response):
    user: str
    deleted: dict[str, int]
    total: int
    renetted: int
    pruned: int
    rebuilds: int = Field(description="derived builds queued to run again over the rows left")
    reopened: int = Field(description="others' claims the user's erased corrections had closed")
    forgotten: int = Field(description="concepts and labels only the erased claims named")
    keys_narrowed: int = Field(description="other users' API keys that lost the personal scope")
    vacuumed: list[str] = Field(
        description="tables vacuumed after the erasure committed, so no dead row version keeps "
        "the user's rows (empty: VACUUM failed; the erasure stands)"
    )


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
