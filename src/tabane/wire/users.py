"""The wire shape of a user's erasure (the export is a stream of JSON lines)."""

from __future__ import annotations

from tabane.service.users import Erasure
from tabane.wire.base import Response, served


@served(
    Erasure,
    {
        "rebuilds": "derived builds queued to run again over the rows left",
        "reopened": "others' claims the user's erased corrections had closed",
        "forgotten": "concepts and labels only the erased claims named",
        "keys_narrowed": "other users' API keys that lost the personal scope",
        "vacuumed": "tables vacuumed after the erasure committed, so no dead row version keeps "
        "the user's rows (empty: VACUUM failed; the erasure stands)",
    },
)
class ErasureOut(Response):
    pass
