"""`tabane schema` (show, put, validate, audit) and `tabane consolidation`, `tabane drift`: a
context's declared schema and the audits. Domain code is imported when a command runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tabane.cli.common import emit, handled, service
from tabane.errors import InvalidInput, Issue

if TYPE_CHECKING:
    from tabane.wire.base import M

Opt = typer.Option
Context = Annotated[str, typer.Argument(help="the context")]
Limit = Annotated[int, Opt(help="rows per page (per section), 1-1000")]
Cursor = Annotated[int, Opt(help="the offset to start at (a page's next_cursor)")]
Sections = Annotated[list[str] | None, Opt("--section", help="a section to show (repeatable)")]

schema_app = typer.Typer(
    no_args_is_help=True,
    help="A context's declared labels and concept kinds, checked against its graph. "
    "Example: tabane schema show notes",
)


def _document(file: str, model: type[M], **more: Any) -> M:
    """The schema document in `file` (`-`: stdin) as the request `model`, with `more` fields."""
    from tabane.wire.base import built

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"cannot read {file}", issues=[Issue("file", exc.__class__.__name__)]
        ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{file} is not JSON", issues=[Issue("file", f"line {exc.lineno}: {exc.msg}")]
        ) from None
    if not isinstance(doc, dict):
        raise InvalidInput(f"{file} is not a JSON object", issues=[Issue("file", "not an object")])
    return built(model, **doc, **more)


@schema_app.command("show")
@handled
def show(context: Context) -> None:
    """Show the schema (version 0: none declared). Example: tabane schema show notes"""
    with service() as (svc, user):
        emit(svc.get_schema(user, context))


@schema_app.command("put")
@handled
def put(
    context: Context,
    file: Annotated[str, typer.Argument(help="the schema document, JSON (- for stdin)")],
    expected_version: Annotated[
        int, Opt(help="the version you read (0: none yet); a stale one is refused")
    ],
) -> None:
    """Replace the schema whole (the version you read, 0 for none, guards it).
    Example: tabane schema put notes schema.json --expected-version 0"""
    from tabane.wire.schema import PutSchemaIn

    body = _document(file, PutSchemaIn, expected_version=expected_version)
    with service() as (svc, user):
        draft = body.to_schema(context)
        emit(svc.put_schema(user, context, draft, expected_version=body.expected_version))


@schema_app.command("validate")
@handled
def validate(
    context: Context,
    file: Annotated[str, typer.Argument(help="the draft schema, JSON (- for stdin)")],
    limit: Limit = 100,
    cursor: Cursor = 0,
) -> None:
    """What the stored graph would break under a draft schema; nothing is stored.
    Example: tabane schema validate notes schema.json"""
    from tabane.wire.schema import ValidateSchemaIn

    body = _document(file, ValidateSchemaIn, limit=limit, cursor=cursor)
    with service() as (svc, user):
        draft = body.to_schema(context)
        emit(svc.validate_schema(user, context, draft, limit=body.limit, cursor=body.cursor))


@schema_app.command("audit")
@handled
def audit(context: Context, limit: Limit = 100, cursor: Cursor = 0) -> None:
    """The stored graph against the stored schema. Example: tabane schema audit notes"""
    with service() as (svc, user):
        emit(svc.audit_schema(user, context, limit=limit, cursor=cursor))


@handled
def consolidation(
    context: Context, section: Sections = None, limit: Limit = 100, cursor: Cursor = 0
) -> None:
    """What could be merged: twins with shared structure, duplicate claims, alias overlaps.
    Example: tabane consolidation notes --section twins"""
    with service() as (svc, user):
        emit(
            svc.audit_consolidation(
                user, context, sections=section or None, limit=limit, cursor=cursor
            )
        )


@handled
def drift(
    context: Context,
    since: Annotated[str | None, Opt(help="ISO 8601 (default: 30 days before --until)")] = None,
    until: Annotated[str | None, Opt(help="ISO 8601, exclusive (default: now)")] = None,
    section: Sections = None,
    limit: Limit = 100,
    cursor: Cursor = 0,
) -> None:
    """How the context moved in a window: undeclared labels, weights, retractions.
    Example: tabane drift notes --since 2026-11-01"""
    with service() as (svc, user):
        emit(
            svc.audit_drift(
                user,
                context,
                since=since,
                until=until,
                sections=section or None,
                limit=limit,
                cursor=cursor,
            )
        )
