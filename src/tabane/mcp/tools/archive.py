"""The MCP tools that move a context between stores: export it as an archive, import one. Over
MCP an archive travels whole in one message, so both are bounded by TABANE_MAX_BODY_BYTES (the
HTTP import's limit); a larger one moves over HTTP or the CLI, which stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tabane.archive import records
from tabane.errors import BodyTooLarge, Issue, LimitExceeded
from tabane.mcp.registry import tool as _tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.archive import (
    ArchiveText,
    ExportArgs,
    ExportGroupArgs,
    GroupArchiveText,
    GroupImportReport,
    ImportArgs,
    ImportGroupArgs,
    ImportReport,
)


@_tool("read")
def export_context(svc: Tabane, user: Principal, a: ExportArgs) -> ArchiveText:
    """A context as an archive (JSON Lines: a header, each source with its paragraphs, each
    claim with its history, each alias, an end line with the counts), what you can see of it,
    for `import_context` in another store. At most TABANE_MAX_BODY_BYTES; a larger context is
    `limit_exceeded` (export it with `tabane export` or GET /contexts/{c}/export)."""
    lines = _bounded(svc.export_context(user, a.context), svc.settings.max_body_bytes, "context")
    return ArchiveText(a.context, len(lines), "\n".join(lines) + "\n")


@_tool("write")
def import_context(svc: Tabane, user: Principal, a: ImportArgs) -> ImportReport:
    """Import an archive (`export_context`'s text) as a new context, in one transaction: every
    line is checked first (a problem names its line; nothing is written). Your personal scope
    takes the exporter's place; `scope_map` moves other scopes. Taguru's `import`."""
    limit = svc.settings.max_body_bytes
    if len(a.archive.encode("utf-8")) > limit:
        raise BodyTooLarge(
            f"the archive is over {limit} bytes: import it with `tabane import`",
            issues=[Issue("archive", f"over TABANE_MAX_BODY_BYTES ({limit})")],
        )
    lines = a.archive.split("\n")  # never splitlines(): a JSON text may hold U+2028 as it is
    return svc.import_context(user, lines, context=a.context, scope_map=a.scope_map)


@_tool("read")
def export_group(svc: Tabane, user: Principal, a: ExportGroupArgs) -> GroupArchiveText:
    """A group as one archive (JSON Lines: a header with the group and the groups under it,
    then each context they reach as `export_context` writes it), what you can see of it, for
    `import_group` in another store. At most TABANE_MAX_BODY_BYTES (`limit_exceeded`: use GET
    /groups/{g}/export)."""
    rows = list(svc.export_group(user, a.name))
    lines = _bounded(iter(rows), svc.settings.max_body_bytes, "name")
    names = [r["context"]["name"] for r in rows if "tabane_archive" in r]
    return GroupArchiveText(a.name, names, len(lines), "\n".join(lines) + "\n")


@_tool("write")
def import_group(svc: Tabane, user: Principal, a: ImportGroupArgs) -> GroupImportReport:
    """Import a group archive (`export_group`'s text) as new contexts and groups, each name with
    `prefix` before it, in one transaction: every line is checked first (nothing is written on a
    problem). A name in use: choose a `prefix`. `scope_map` as in `import_context`."""
    limit = svc.settings.max_body_bytes
    if len(a.archive.encode("utf-8")) > limit:
        raise BodyTooLarge(
            f"the archive is over {limit} bytes: import it with POST /groups/import",
            issues=[Issue("archive", f"over TABANE_MAX_BODY_BYTES ({limit})")],
        )
    lines = a.archive.split("\n")  # never splitlines(): a JSON text may hold U+2028 as it is
    return svc.import_group(user, lines, prefix=a.prefix, scope_map=a.scope_map)


def _bounded(rows: Iterator[dict[str, Any]], limit: int, path: str) -> list[str]:
    """The archive's lines, refused as `limit_exceeded` at `path` past `limit` bytes."""
    size, lines = 0, []
    for row in rows:
        line = records.line_text(row)
        size += len(line.encode("utf-8")) + 1
        if size > limit:
            raise LimitExceeded(
                f"the archive is over {limit} bytes: export it over HTTP or with the CLI",
                issues=[Issue(path, f"archive over TABANE_MAX_BODY_BYTES ({limit})")],
            )
        lines.append(line)
    return lines
