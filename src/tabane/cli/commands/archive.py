"""`tabane export` and `tabane import`: move a context between stores as an archive file."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from tabane.cli.common import emit, handled, named_as, service
from tabane.errors import InvalidInput, Issue

Opt = typer.Option
OPTIONS = {"scope_map": "--map", "context": "--context"}


@handled
def export(
    context: str,
    out: Annotated[
        Path | None, Opt("--out", help="write the archive here (default: stdout)")
    ] = None,
) -> None:
    """Export a context as an archive (JSON Lines): its sources with their paragraphs, its
    claims and notes with their history, its aliases; what you can see of it. Import it into
    another store with `tabane import`.  Example: tabane export notes --out notes.jsonl"""
    from tabane.archive import records  # here: the CLI's cold start imports no domain code

    with service() as (svc, user):
        lines = svc.export_context(user, context)
        if out is None:
            for line in lines:
                typer.echo(records.line_text(line))
            return
        counts: dict[str, int] = {}
        try:
            with out.open("w", encoding="utf-8") as f:
                for line in lines:
                    f.write(records.line_text(line) + "\n")
                    counts = line.get("end", counts)
        except OSError as exc:
            raise InvalidInput(
                f"cannot write {out}: {exc.strerror}", issues=[Issue("--out", str(out))]
            ) from None
        emit({"context": context, "out": str(out), **counts}, "fields")


@handled
def import_(
    file: Annotated[Path, typer.Argument(help="the archive (`-`: standard input)")],
    context: Annotated[
        str | None, Opt("--context", help="the new context's name (default: the archive's)")
    ] = None,
    scope_map: Annotated[
        list[str] | None,
        Opt("--map", help="OLD=NEW: rows under scope OLD are written under NEW (repeatable)"),
    ] = None,
) -> None:
    """Import an archive as a new context, in one transaction: every line is checked first,
    and nothing is written if any is wrong. Your personal scope takes the place of the
    exporter's; --map moves other scopes.
    Example: tabane import notes.jsonl --context notes --map org:home=org:acme"""
    lines = _stdin() if str(file) == "-" else _reader(file)
    from tabane.archive.restore import scope_pairs

    chosen = scope_pairs(scope_map or [], "--map")
    with service() as (svc, user), named_as(OPTIONS):
        emit(svc.import_context(user, lines, context=context, scope_map=chosen))


@handled
def group_export(
    name: str,
    out: Annotated[
        Path | None, Opt("--out", help="write the archive here (default: stdout)")
    ] = None,
) -> None:
    """Export a group, the groups under it and every context they reach as one archive (JSON
    Lines); what you can see of them. Import it with `tabane groups import`.
    Example: tabane groups export team --out team.jsonl"""
    from tabane.archive import records  # here: the CLI's cold start imports no domain code

    with service() as (svc, user):
        lines = (records.line_text(row) for row in svc.export_group(user, name))
        if out is None:
            for line in lines:
                typer.echo(line)
            return
        try:
            with out.open("w", encoding="utf-8") as f:
                written = sum(f.write(line + "\n") > 0 for line in lines)
        except OSError as exc:
            raise InvalidInput(
                f"cannot write {out}: {exc.strerror}", issues=[Issue("--out", str(out))]
            ) from None
        emit({"group": name, "out": str(out), "lines": written}, "fields")


@handled
def group_import(
    file: Annotated[Path, typer.Argument(help="the group archive (`-`: standard input)")],
    prefix: Annotated[
        str, Opt("--prefix", help="put before every new context's and group's name")
    ] = "",
    scope_map: Annotated[
        list[str] | None,
        Opt("--map", help="OLD=NEW: rows under scope OLD are written under NEW (repeatable)"),
    ] = None,
) -> None:
    """Import a group archive as new contexts and groups, in one transaction: every line is
    checked first, and nothing is written if any is wrong.
    Example: tabane groups import team.jsonl --prefix copy-"""
    lines = _stdin() if str(file) == "-" else list(_reader(file)())
    from tabane.archive.restore import scope_pairs

    chosen = scope_pairs(scope_map or [], "--map")
    with service() as (svc, user), named_as({**OPTIONS, "prefix": "--prefix"}):
        emit(svc.import_group(user, lines, prefix=prefix, scope_map=chosen))


def _reader(path: Path) -> Callable[[], Iterator[str]]:
    """A function reading the file's lines each time it is called (the import reads twice)."""

    def lines() -> Iterator[str]:
        try:
            with path.open(encoding="utf-8") as f:
                yield from f
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                f"{path} is not UTF-8", issues=[Issue("file", f"byte {exc.start} of a line")]
            ) from None
        except OSError as exc:
            raise InvalidInput(
                f"cannot read {path}: {exc.strerror}", issues=[Issue("file", str(path))]
            ) from None

    return lines


def _stdin() -> list[str]:
    try:
        return sys.stdin.read().split("\n")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            "standard input is not UTF-8", issues=[Issue("file", f"byte {exc.start}")]
        ) from None
