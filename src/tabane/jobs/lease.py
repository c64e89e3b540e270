"""A job's lease, kept while its worker works: a thread renews it every third of the lease,
fenced by the claim's attempt (queue.renew). A job that runs longer than one lease (a RAPTOR
build waiting on its summarizer, a large merge) is therefore never taken by a second worker while
its own one lives; a worker that dies, or stalls past its lease, loses the job to the next claim
and learns it at its next progress note (queue.LeaseLost) or when it finishes (nothing lands)."""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from tabane.jobs import queue
from tabane.storage.store import Store

logger = logging.getLogger(__name__)


class Heartbeat:
    """`with Heartbeat(store, job):` renews `job`'s lease until the block ends."""

    def __init__(self, store: Store, job: queue.Claimed, every: float | None = None) -> None:
        self.store, self.job = store, job
        self.every = queue.LEASE.total_seconds() / 3 if every is None else every
        self.lost = False  # another worker took the job (this one stalled past its lease)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"tabane-lease-{job.id}")
        self._thread.daemon = True

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            try:
                with self.store.admin() as session:
                    held = queue.renew(session, self.job)
            except Exception:  # the store is away for now: the next beat tries again
                logger.warning("job %s: its lease could not be renewed", self.job.id, exc_info=True)
                continue
            if not held:
                logger.warning("job %s: another worker took it (its lease ran out)", self.job.id)
                self.lost = True
                return
