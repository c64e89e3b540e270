"""What the job queue holds, for people: the newest jobs with their state, progress and last
error (`tabane jobs`, GET /jobs), and the count still to run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue
from tabane.storage.schema import Job


@dataclass(frozen=True)
class JobView:
    id: int
    kind: str
    state: str
    attempts: int
    done_items: int
    total_items: int
    last_error: str | None
    created_at: datetime
    updated_at: datetime


def pending(session: Session, context_id: int | None = None) -> int:
    """Queued or running jobs (for one context, or all)."""
    stmt = select(func.count()).select_from(Job).where(Job.state.in_(("queued", "running")))
    if context_id is not None:
        stmt = stmt.where(Job.context_id == context_id)
    return int(session.scalar(stmt) or 0)


MAX_LISTING = 1000


def listing(session: Session, *, limit: int = 50, states: Sequence[str] = ()) -> list[JobView]:
    """The newest `limit` jobs (1..MAX_LISTING), of `states` when given."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LISTING:
        raise InvalidInput(
            "invalid job listing", issues=[Issue("limit", f"{limit!r} not in 1..{MAX_LISTING}")]
        )
    stmt = select(Job).order_by(Job.id.desc()).limit(limit)
    if states:
        stmt = stmt.where(Job.state.in_(list(states)))
    return [
        JobView(
            j.id,
            j.kind,
            j.state,
            j.attempts,
            j.done_items,
            j.total_items,
            j.last_error,
            j.created_at,
            j.updated_at,
        )
        for j in session.scalars(stmt)
    ]
