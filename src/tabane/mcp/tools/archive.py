"""The MCP tools that move a context between stores: export it as an archive, import one. Over
MCP an archive travels whole in one message, so both are bounded by TABANE_MAX_BODY_BYTES (the
HTTP import's limit); a larger one moves over HTTP or the CLI, which stream."""

from __future__ import annotations

from tabane.archive import records
from tabane.errors import BodyTooLarge, Issue, LimitExceeded
from tabane.mcp.registry import tool as _tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.archive import ArchiveText, ExportArgs, ImportArgs, ImportReport


@_tool("read")
def export_context(svc: Tabane, user: Principal, a: ExportArgs) -> ArchiveText:
    """A context as an archive (JSON Lines: a header, each source with its paragraphs, each
    claim with its history, each alias, an end line with the counts), what you can see of it,
    for `import_context` in another store. At most TABANE_MAX_BODY_BYTES; a larger context is
    `limit_exceeded` (export it with `tabane export` or GET /contexts/{c}/export)."""
    limit, size, lines = svc.settings.max_body_bytes, 0, []
    for row in svc.export_context(user, a.context):
        line = records.line_text(row)
        size += len(line.encode("utf-8")) + 1
        if size > limit:
            raise LimitExceeded(
                f"the archive of {a.context!r} is over {limit} bytes: export it with "
                "`tabane export` or GET /contexts/{context}/export",
                issues=[Issue("context", f"archive over TABANE_MAX_BODY_BYTES ({limit})")],
            )
        lines.append(line)
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
