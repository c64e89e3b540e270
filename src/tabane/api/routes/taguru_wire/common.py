"""What every `/taguru` route shares: Taguru's envelope, the match page and the request's start."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import Depends

from tabane.graph.query.pattern import QueryResult
from tabane.wire.taguru import AssociationOut, MatchPage, MatchPlan


def _started() -> float:
    return time.perf_counter()


Started = Annotated[float, Depends(_started)]


def ok(result: Any, started: float) -> dict[str, Any]:
    """Taguru's envelope around `result`, with the seconds spent since `started`."""
    return {"result": result, "status": "ok", "time": round(time.perf_counter() - started, 6)}


def page(found: QueryResult) -> MatchPage:
    matches = [AssociationOut.model_validate({**vars(e), "count": e.claims}) for e in found.edges]
    return MatchPage(
        total=found.total,
        matches=matches,
        plan=MatchPlan(contexts=list(found.contexts)),
        next=found.next,
    )
