"""Process-wide tallies of background work, read by the HTTP surface's `/metrics` at scrape time.

Plain counters under a lock, not a metrics library's objects: the jobs layer needs no exporter,
and a counter that only grows is what Prometheus's `rate()` turns into a throughput.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.storage.schema import Job
from tabane.storage.store import Store


class Tally:
    """A count and the seconds spent on it, both only growing while the process lives."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items = 0
        self.seconds = 0.0

    def add(self, items: int, seconds: float = 0.0) -> None:
        with self._lock:
            self.items += items
            self.seconds += seconds

    def read(self) -> tuple[int, float]:
        with self._lock:
            return self.items, self.seconds


# Paragraphs embedded by `embed_source` jobs in this process, and the seconds their batches took
# from the model's start to their write's commit.
EMBEDDED = Tally()


@dataclass(frozen=True)
class Depth:
    """The jobs of one kind in one state, and the age of the oldest (seconds since queued)."""

    kind: str
    state: str
    count: int
    oldest_seconds: float


def depths(session: Session) -> list[Depth]:
    """Queued and running jobs per kind and state, read as the owner (workers' view: every
    job, whatever its scopes), with the oldest one's age by the database's clock."""
    age = func.extract("epoch", func.now() - func.min(Job.created_at))
    rows = session.execute(
        select(Job.kind, Job.state, func.count(), age)
        .where(Job.state.in_(("queued", "running")))
        .group_by(Job.kind, Job.state)
        .order_by(Job.kind, Job.state)
    )
    return [Depth(str(k), str(s), int(n), max(0.0, float(a or 0))) for k, s, n, a in rows]


def store_bytes(session: Session) -> int:
    """The database's size on disk (tables, indexes, TOAST), as PostgreSQL counts it."""
    return int(session.scalar(select(func.pg_database_size(func.current_database()))) or 0)


def store_gauges(store: Store, seconds: float) -> tuple[list[Depth], int]:
    """The job queue's depths and the store's size in one owner transaction whose statements and
    lock waits are bounded by `seconds` (a scrape's deadline: api/metrics.py)."""
    ms = f"{max(1, int(seconds * 1000))}ms"
    with store.admin() as session:
        session.execute(
            select(
                func.set_config("statement_timeout", ms, True),
                func.set_config("lock_timeout", ms, True),
            )
        )
        return depths(session), store_bytes(session)
