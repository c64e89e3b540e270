"""What every `/taguru` route shares: Taguru's envelope, the match page and the request's start."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import Depends

from tabane.graph.query.pattern import QueryResult
from tabane.wire.taguru import MatchPage, MatchPlan, association


def _started() -> float:
    return time.perf_counter()


Started = Annotated[float, Depends(_started)]


def ok(result: Any, started: float) -> dict[str, Any]:
    """Taguru's envelope around `result`, with the seconds spent since `started`."""
    return {"result": result, "status": "ok", "time": round(time.perf_counter() - started, 6)}


def page(found: QueryResult) -> MatchPage:
    return MatchPage(
        total=found.total,
        matches=[association(e) for e in found.edges],
        plan=MatchPlan(contexts=list(found.contexts)),
        next=found.next,
    )
