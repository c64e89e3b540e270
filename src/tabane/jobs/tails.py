"""The ends of embedding jobs left to their writer threads (decision 0040): once the model is
done with a job, the worker claims the next one and starts the model on it while the job's
writer writes its last batches, notes its progress, ends its lease and marks it done or failed.
So the model does not wait for the write it cannot hide, nor for the bookkeeping between jobs.
At most two jobs' writes run at once; `flush` waits for the ends still under way (a drain's
end, a worker stopping, a wait with no job due)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from tabane.jobs import lease, queue
from tabane.storage.store import Store

logger = logging.getLogger("tabane.worker")

Then = Callable[[BaseException | None], None]


class Tails:
    def __init__(self) -> None:
        self._ends: list[threading.Event] = []  # one per job whose end is still under way
        self._exit: BaseException | None = None  # an exit raised in a writer, raised by `flush`
        self._lock = threading.Lock()  # the worker's thread and a caller's wait flush together

    def start(self, store: Store, job: queue.Claimed, ended: Then) -> Then:
        """Hold `job`'s lease (after the end before the last is done); the `then` its writer
        calls once with the job's error or None: the lease ends, then `ended` records it."""
        self.flush(keep=1)
        beat = lease.Heartbeat(store, job).__enter__()
        done = threading.Event()
        with self._lock:
            self._ends.append(done)

        def then(exc: BaseException | None) -> None:
            try:
                beat.__exit__(None, None, None)
                if exc is None or isinstance(exc, Exception):
                    ended(exc)
                else:  # an exit: as if the process ended here, the job stays leased
                    self._exit = exc
            except Exception:  # unrecorded: the lease runs out and the job is claimed again
                logger.exception("the end of job %s (%s)", job.id, job.kind)
            finally:
                done.set()

        return then

    def flush(self, timeout: float | None = None, keep: int = 0) -> bool:
        """Wait (up to `timeout` seconds each) for the ends under way, all but the last `keep`;
        True when there was one to wait for. An exit a writer met (SystemExit, KeyboardInterrupt)
        is raised here, in the worker's thread."""
        waited = False
        while True:
            with self._lock:
                if len(self._ends) <= keep:
                    break
                first = self._ends[0]
            waited = True
            if not first.wait(timeout):
                return True
            with self._lock:  # another thread may have waited for it too, and taken it off
                if self._ends and self._ends[0] is first:
                    self._ends.pop(0)
        if self._exit is not None:
            exit_, self._exit = self._exit, None
            raise exit_
        return waited
