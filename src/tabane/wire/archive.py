"""The wire shape of an archive's import (the export is a stream of JSON lines)."""

from __future__ import annotations

from tabane.wire.base import Response


class ImportOut(Response):
    context: str
    sources: int
    paragraphs: int
    claims: int
    open_claims: int
    associations: int
    aliases: int
    scope_map: dict[str, str]
