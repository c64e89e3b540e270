"""Whose job runs next: owners, then their contexts, take turns at a worker's claims.

A job's owner is the scope set it writes with (one user's personal scope, or a team's). A worker
remembers whose work it ran last (`Turns`); its next claim goes to the next owner in order that
has a due job, and within that owner to the oldest due job of the next context after the one of
that owner it ran last — round again at both levels. So a user with many contexts gets one turn
per round like a user with one, and one context's bulk ingest does not starve another context of
the same owner. Each step reads the first entry of the index `ix_jobs_turns` past a key, so a
claim costs about the same at any length of queue (bench/claim_order.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import ARRAY, ColumnElement, Text, and_, cast, func, or_, select
from sqlalchemy.orm import Session

from tabane.storage.schema import Job

if TYPE_CHECKING:
    from tabane.jobs.queue import Claimed


@dataclass
class Turns:
    """Whose work a worker ran last (the owner, and each owner's context), so that its next
    claim goes to someone else's."""

    owner: tuple[str, ...] | None = None
    contexts: dict[tuple[str, ...], int] = field(default_factory=dict)  # each owner's last

    def took(self, job: Claimed) -> None:
        self.owner = job.scopes
        self.contexts[self.owner] = job.context_id or 0


def due(
    session: Session, kinds: Sequence[str], contexts: Sequence[int], after: Turns | None
) -> Job | None:
    """The job a claim takes: the next owner's turn after `after` (see the module), or the
    oldest due job when there is no turn yet or every job of that owner is leased now."""
    now = func.now()
    ready = or_(
        and_(Job.state == "queued", Job.run_after <= now),
        and_(Job.state == "running", Job.run_after <= now),
    )
    where = [ready, Job.kind.in_(list(kinds))]
    if contexts:
        where.append(Job.context_id.in_(list(contexts)))
    if after is not None and after.owner is not None:
        job = _next_turn(session, [*where, Job.state.in_(("queued", "running"))], after)
        if job is not None:  # else every job of the owner it chose is leased to other workers now
            return job
    return _oldest(session, where)


def _next_turn(session: Session, where: list[ColumnElement[bool]], after: Turns) -> Job | None:
    """The oldest due job of the next owner's next context (round again at both levels). Each
    step reads the first entry of ix_jobs_turns past a key, so it costs the same at any length
    of queue; `where` repeats the index's predicate so that PostgreSQL may use it."""
    owner = cast(Job.scopes, ARRAY(Text))
    last = cast(list(after.owner or ()), ARRAY(Text))
    first = select(owner).where(*where).order_by(owner).limit(1)
    ahead = session.scalar(first.where(owner > last)) or session.scalar(first)
    if ahead is None:
        return None
    within = [*where, owner == cast(ahead, ARRAY(Text))]
    turn = func.coalesce(Job.context_id, 0)
    oldest = select(Job).where(*within).order_by(turn, Job.id).limit(1)
    oldest = oldest.with_for_update(skip_locked=True)
    previous = after.contexts.get(tuple(ahead))
    found = None if previous is None else session.scalar(oldest.where(turn > previous))
    return found or session.scalar(oldest)


def _oldest(session: Session, where: Sequence[ColumnElement[bool]]) -> Job | None:
    stmt = select(Job).where(*where).order_by(Job.id).limit(1)
    return session.scalar(stmt.with_for_update(skip_locked=True))
