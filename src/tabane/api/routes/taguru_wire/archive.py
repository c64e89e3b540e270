"""Taguru's batch stream (decision 0027): exports (JSON Lines, no envelope), the import that
applies one, and promote (named sources exported from one context, imported into another)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.archive.taguru import batches
from tabane.errors import InvalidInput, Issue
from tabane.wire.taguru import Ok
from tabane.wire.taguru.imports import BatchOut, GroupOut, ImportOut, PromoteIn, PromoteOut

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


@router.post("/import")
def import_batches(
    svc: Svc,
    user: User,
    started: Started,
    stream: Annotated[bytes, Body(media_type=JSON_LINES, description="Taguru's batch stream")],
) -> Ok[ImportOut]:
    """Apply Taguru's batch stream (JSON Lines, as `GET …/export` writes it): each batch is
    its source's whole truth, applied in its own transaction — the context created from its
    `create` block if absent, the source's claims closed, its passage stored (a header alone
    retracts it), its associations and aliases written. A bad line refuses its batch with
    `invalid_input` at `line N.field`; the batches before it stay written (the error's
    `written` says which) and the ones after are not read. A `taguru_group` record (as
    `GET /groups/{g}/export` writes it) creates its group or sets its description and members
    to the record's. The stream's size is checked first."""
    done = svc.import_batches(user, text_lines(stream))
    out = ImportOut(
        batches=[BatchOut.model_validate(b) for b in done.batches],
        groups=[GroupOut.model_validate(g) for g in done.groups],
    )
    return Ok[ImportOut].model_validate(ok(out, started))


@router.post("/contexts/{context}/promote")
def promote(
    context: str, body: PromoteIn, svc: Svc, user: User, started: Started
) -> Ok[PromoteOut]:
    """Move the named sources into the existing context `into`, all or nothing: each as the
    export writes it (passage, date, tags, the live world claims it attests) applied there as
    an import batch, so promoting again is the same. The sources stay here unless `retract`
    (Taguru retires them with a separate retraction); `dry_run` writes nothing."""
    done = svc.promote_sources(
        user, context, body.into, body.sources, dry_run=body.dry_run, retract=body.retract
    )
    out = PromoteOut.model_validate(
        {**vars(done), "batches": [BatchOut.model_validate(b) for b in done.batches]}
    )
    return Ok[PromoteOut].model_validate(ok(out, started))


def text_lines(body: bytes) -> list[str]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            "the stream is not UTF-8", issues=[Issue("body", f"byte {exc.start} is not UTF-8")]
        ) from None
    return text.split("\n")  # never splitlines(): a JSON text may hold U+2028 as it is
