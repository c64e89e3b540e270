"""The wire shape of a user's erasure (the export is a stream of JSON lines)."""

from __future__ import annotations

from pydantic import Field

from tabane.wire.base import Response


class ErasureOut(Response):
    user: str
    deleted: dict[str, int]
    total: int
    renetted: int
    pruned: int
    rebuilds: int = Field(description="derived builds queued to run again over the rows left")
    reopened: int = Field(description="others' claims the user's erased corrections had closed")
    forgotten: int = Field(description="concepts and labels only the erased claims named")
    keys_narrowed: int = Field(description="other users' API keys that lost the personal scope")
    vacuumed: list[str] = Field(
        description="tables vacuumed after the erasure committed, so no dead row version keeps "
        "the user's rows (empty: VACUUM failed; the erasure stands)"
    )
