"""The wire shape of an archive: the restore's `ImportReport` as it is, no copy; and the MCP
tools' arguments and export result (over HTTP the export is a stream of JSON lines)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from tabane.archive.groups import GroupImportReport
from tabane.archive.restore import ImportReport
from tabane.wire.base import ContextArg, Name, Request


class ExportArgs(Request):
    context: ContextArg


@dataclass(frozen=True)
class ArchiveText:
    context: str
    lines: int
    archive: str  # JSON Lines, as GET /contexts/{c}/export streams it


class ImportArgs(Request):
    archive: Annotated[
        str, Field(description="An exported archive (JSON Lines, as `export_context` returns it).")
    ]
    context: Annotated[
        str | None, Field(description="The new context's name (default: the archive's).")
    ] = None
    scope_map: Annotated[
        dict[str, str],
        Field(description="OLD → NEW: rows under scope OLD are written under NEW."),
    ] = {}


class ExportGroupArgs(Request):
    name: Name


@dataclass(frozen=True)
class GroupArchiveText:
    group: str
    contexts: list[str]  # the contexts in it, in its order
    lines: int
    archive: str  # JSON Lines, as GET /groups/{g}/export streams it


class ImportGroupArgs(Request):
    archive: Annotated[
        str, Field(description="A group archive (JSON Lines, as `export_group` returns it).")
    ]
    prefix: Annotated[
        str,
        Field(description="Put before every new context's and group's name (default: none)."),
    ] = ""
    scope_map: Annotated[
        dict[str, str],
        Field(description="OLD → NEW: rows under scope OLD are written under NEW."),
    ] = {}


__all__ = [
    "ArchiveText",
    "ExportArgs",
    "ExportGroupArgs",
    "GroupArchiveText",
    "GroupImportReport",
    "ImportArgs",
    "ImportGroupArgs",
    "ImportReport",
]
