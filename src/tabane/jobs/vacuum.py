"""The `vacuum` job: VACUUM the tables an erasure touched when the erasure's own VACUUM did not
happen (its process died after the commit, or PostgreSQL refused). Erasure queues it in its
transaction and finishes it itself after a VACUUM that succeeded (service/users.py), so a worker
only ever runs what was left undone."""

from __future__ import annotations

from tabane.jobs.queue import Claimed
from tabane.storage.schema import Base
from tabane.storage.store import Store


def run(store: Store, job: Claimed) -> None:
    """VACUUM the job's tables (those that still exist) as the owner; raises when PostgreSQL
    refused, so that the job is retried with backoff."""
    tables = [Base.metadata.tables[name] for name in job.tables if name in Base.metadata.tables]
    if tables and not store.vacuum(tables):
        raise RuntimeError(f"VACUUM of {len(tables)} tables failed (the server log says why)")
