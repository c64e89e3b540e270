"""When the embedding jobs load vectors in bulk: the width's HNSW index is set aside while they
run and built again when they are done (storage/hnsw.py; decision 0033).

A load is bulk when the paragraphs waiting for the jobs are at least `BULK_MIN` and at least
`SHARE` of the vectors stored: then building the index again over everything costs less than
inserting the new vectors into it (the rates of decision 0033 put the break-even near a fifth).
A few sources added to a large store keep the index and pay its insertion.

The worker asks `before` when it claims an embedding job (at most every `CHECK_EVERY` seconds)
and `settle` when an embedding job ends, and every `CHECK_EVERY` seconds while idle: with no
embedding job queued or running, a missing or invalid index (set aside here, or by a process
killed part-way) is built again — in a thread and connection of its own, so the worker goes on
with its other jobs meanwhile (minutes at a million vectors; decision 0040). `wait` joins the
build (a CLI ingest returns with the index built), `cancel` stops it (a worker stopping).
"""

from __future__ import annotations

import logging
import threading
import time

from sqlalchemy import func, select, text

from tabane.jobs import queue
from tabane.storage import hnsw
from tabane.storage.schema import Job, Paragraph
from tabane.storage.store import Store

BULK_MIN = 2_000  # paragraphs waiting, at least, for a load to count as bulk
SHARE = 0.25  # … and at least this share of the vectors stored
CHECK_EVERY = 30.0  # seconds between a worker's checks

log = logging.getLogger("tabane.worker")


class Bulk:
    """One worker's view: when it last looked (so the checks stay off the jobs' path)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.checked = float("-inf")
        self.idle_checked = float("-inf")
        self._builder: threading.Thread | None = None  # the build under way, if any
        self._pid: int | None = None  # its session's backend, while it holds the lock

    @property
    def building(self) -> bool:
        return self._builder is not None and self._builder.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to `timeout` seconds for the build under way; True when none runs now."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        return not self.building

    def cancel(self, timeout: float = 5.0) -> None:
        """Cancel the build under way (its index left invalid, built again by the next settle)
        and wait up to `timeout` seconds for its thread."""
        pid = self._pid
        if self.building and pid is not None:
            try:
                hnsw.cancel(self.store.owner, pid)
            except Exception:  # the store is going away: the session ends with it
                log.warning("cancelling the HNSW build failed", exc_info=True)
        self.wait(timeout)

    def before(self, dim: int) -> bool:
        """Before an embedding job: set the width's index aside when the load waiting is bulk;
        True when this call set it aside."""
        now = time.monotonic()
        if now - self.checked < CHECK_EVERY:
            return False
        self.checked = now
        try:
            waiting, stored = self._sizes()
            if waiting < BULK_MIN or waiting < SHARE * stored:
                return False
            return hnsw.suspend(self.store.owner, dim)
        except Exception:  # the jobs run as before, with the index
            log.warning("the bulk-load check failed", exc_info=True)
            return False

    def settle(self, *, idle: bool = False) -> list[int]:
        """With no embedding job queued or running, start building the indexes that are missing
        or invalid in a thread of its own; the widths it builds. While idle, at most every
        `CHECK_EVERY` seconds; nothing while a build is under way."""
        if self.building:
            return []
        if idle:
            now = time.monotonic()
            if now - self.idle_checked < CHECK_EVERY:
                return []
            self.idle_checked = now
        try:
            return self._settle()
        except Exception:  # the next check tries again; readers scan exactly meanwhile
            log.warning("building the HNSW index again failed", exc_info=True)
            return []

    def _settle(self) -> list[int]:
        with self.store.admin() as session:  # a job waiting out a retry's backoff does not count
            due = (Job.state == "running") | (
                (Job.state == "queued") & (Job.run_after <= func.now())
            )
            running = session.scalar(
                select(func.count()).select_from(Job).where(Job.kind == queue.EMBED_SOURCE, due)
            )
        if running:
            return []
        with self.store.owner.connect() as conn:
            widths = [d for d, s in hnsw.states(conn).items() if s != "valid"]
        if not widths:
            return []
        self.checked = float("-inf")  # the next load is judged afresh
        self._builder = threading.Thread(target=self._build, name="tabane-hnsw", daemon=True)
        self._builder.start()
        return widths

    def _build(self) -> None:
        def noted(pid: int) -> None:
            self._pid = pid

        try:
            hnsw.rebuild(self.store.owner, noted)
        except Exception:  # cancelled, or the store went away: the next settle tries again
            log.warning("building the HNSW index again failed", exc_info=True)
        finally:
            self._pid = None

    def _sizes(self) -> tuple[int, int]:
        """(paragraphs of the sources the embedding jobs wait on, vectors stored: the
        statistics' estimate, so no scan of the table)."""
        with self.store.admin() as session:
            sources = select(Job.source_pk).where(
                Job.kind == queue.EMBED_SOURCE, Job.state.in_(("queued", "running"))
            )
            waiting = session.scalar(
                select(func.count()).select_from(Paragraph).where(Paragraph.source_pk.in_(sources))
            )
            stored = session.scalar(
                text(
                    "SELECT coalesce(n_live_tup, 0) FROM pg_stat_user_tables"
                    " WHERE relname = 'paragraph_vectors'"
                )
            )
        return int(waiting or 0), int(stored or 0)
