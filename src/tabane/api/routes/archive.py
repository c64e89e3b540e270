"""Moving a context between stores: export it as an archive, import one as a new context."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse, StreamingResponse

from tabane.api.deps import JSON_LINES, Svc, User, json_lines
from tabane.archive.restore import scope_pairs
from tabane.archive.schema import archive_schema
from tabane.errors import InvalidInput, Issue, TabaneError
from tabane.wire.archive import GroupImportReport, ImportReport
from tabane.wire.base import ERROR_RESPONSES

router = APIRouter(tags=["contexts"], responses=ERROR_RESPONSES)


@router.get(
    "/contexts/{context}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {JSON_LINES: {}}, "description": "the archive, one object a line"}},
)
def export_context(context: str, svc: Svc, user: User) -> StreamingResponse:
    """The context as an archive in JSON Lines: a header, every source with its paragraphs,
    every claim with its history, every alias, and an end line with the counts; what you can
    see of it, read in one snapshot (docs/guide.md, "Moving a context")."""
    lines = svc.export_context(user, context)  # an unknown context is refused before any byte
    return StreamingResponse(json_lines(lines), media_type=JSON_LINES)


@router.get(
    "/schemas/archive",
    response_class=JSONResponse,
    responses={200: {"description": "a JSON Schema (draft 2020-12) of one archive line"}},
)
def archive_line_schema() -> JSONResponse:
    """The JSON Schema every line of an archive (export's output, import's input) meets: a
    header, a source, a claim, an alias or the end line, each with the bounds the import
    enforces. What spans lines (their order, unique claim ids, the end's counts) only the import
    checks (docs/guide.md, "Moving a context")."""
    return JSONResponse(archive_schema())


@router.post("/contexts/import", status_code=201)
def import_context(
    svc: Svc,
    user: User,
    archive: Annotated[bytes, Body(media_type=JSON_LINES, description="an exported archive")],
    context: Annotated[
        str | None, Query(description="the new context's name (default: the archive's)")
    ] = None,
    scope_map: Annotated[
        list[str],
        Query(alias="map", description="`OLD=NEW`: rows under scope OLD are written under NEW"),
    ] = [],  # noqa: B006 - FastAPI copies a default list per request
) -> ImportReport:
    """Import an archive (the body, `application/jsonl`, as the export wrote it; at most
    `TABANE_MAX_BODY_BYTES`) as a new context, in one transaction: every line is checked first
    (a problem names its line and field, and nothing is written). By default your personal
    scope takes the place of the exporter's; `map` moves other scopes."""
    chosen = scope_pairs(scope_map, "map")
    with _as_map():
        return svc.import_context(user, _lines(archive), context=context, scope_map=chosen)


@router.get(
    "/groups/{group}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {JSON_LINES: {}}, "description": "the group archive"}},
)
def export_group(group: str, svc: Svc, user: User) -> StreamingResponse:
    """The group as one archive in JSON Lines: a header with the group and every group under it
    (name, description, member contexts, child groups), then the archive of each context they
    reach, as `GET /contexts/{context}/export` writes it; what you can see, in one snapshot."""
    lines = svc.export_group(user, group)  # an unknown group is refused before any byte
    return StreamingResponse(json_lines(lines), media_type=JSON_LINES)


@router.post("/groups/import", status_code=201)
def import_group(
    svc: Svc,
    user: User,
    archive: Annotated[bytes, Body(media_type=JSON_LINES, description="a group archive")],
    prefix: Annotated[
        str, Query(description="put before every new context's and group's name")
    ] = "",
    scope_map: Annotated[
        list[str],
        Query(alias="map", description="`OLD=NEW`: rows under scope OLD are written under NEW"),
    ] = [],  # noqa: B006 - FastAPI copies a default list per request
) -> GroupImportReport:
    """Import a group archive (`GET /groups/{group}/export`'s body, at most
    `TABANE_MAX_BODY_BYTES`) as new contexts and groups, each name with `prefix` before it, in
    one transaction: every line is checked first (a problem names its line in the whole archive;
    nothing is written). A name already in use is `name_taken` at `prefix`."""
    chosen = scope_pairs(scope_map, "map")
    with _as_map():
        return svc.import_group(user, _lines(archive), prefix=prefix, scope_map=chosen)


def _lines(archive: bytes) -> list[str]:
    try:
        text = archive.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            "the archive is not UTF-8", issues=[Issue("body", f"byte {exc.start} is not UTF-8")]
        ) from None
    return text.split("\n")  # never splitlines(): a JSON text may hold U+2028 as it is


@contextmanager
def _as_map() -> Iterator[None]:
    """The service's `scope_map` is these routes' `map`."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(
            Issue("map" + i.path.removeprefix("scope_map"), i.problem)
            if i.path.startswith("scope_map")
            else i
            for i in exc.issues
        )
        raise
