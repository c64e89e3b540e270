"""The wire shape of an archive's import (the export is a stream of JSON lines): the restore's
`ImportReport` as it is, no copy."""

from __future__ import annotations

from tabane.archive.restore import ImportReport

__all__ = ["ImportReport"]
