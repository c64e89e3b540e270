"""Exports in Taguru's batch stream (JSON Lines, no envelope; decision 0027)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.archive.taguru import batches

router = APIRouter()
STREAM: dict[int | str, dict[str, Any]] = {
    200: {"content": {JSON_LINES: {}}, "description": "Taguru's batch stream"}
}


@router.get("/contexts/{context}/export", response_class=StreamingResponse, responses=STREAM)
def export_context(context: str, svc: Svc, user: User) -> StreamingResponse:
    """The context as Taguru's batch stream: one batch per source (by id), the create block
    first, the aliases last; live world claims only (archive/taguru.py says what else a batch
    cannot carry). What you can see, read in one snapshot; an unknown context is refused
    before any byte."""
    lines = svc.export_context(user, context)
    return StreamingResponse(json_lines(batches(lines)), media_type=JSON_LINES)


@router.get("/groups/{group}/export", response_class=StreamingResponse, responses=STREAM)
def export_group(group: str, svc: Svc, user: User) -> StreamingResponse:
    """The group as one `taguru_group` record: its description, member contexts and child
    groups (what you can see of them), its whole truth for a restore."""
    found = svc.get_group(user, group)
    record = {
        "taguru_group": 1,
        "name": found.name,
        "description": found.description,
        "contexts": list(found.contexts),
        "groups": list(found.groups),
    }
    return StreamingResponse(json_lines(iter([record])), media_type=JSON_LINES)
