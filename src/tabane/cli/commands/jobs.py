"""`tabane jobs` (the job queue) and `tabane worker` (a foreground worker process)."""

from __future__ import annotations

import dataclasses
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tabane.cli.common import emit, handled, named_as, service
from tabane.errors import InvalidInput, Issue

if TYPE_CHECKING:
    from tabane.jobs.listing import JobView
    from tabane.service import Tabane

logger = logging.getLogger("tabane.cli.worker")
Opt = typer.Option
ACTIVE = ("queued", "running")


def _row(job: JobView) -> dict[str, Any]:
    return {
        "id": job.id,
        "kind": job.kind,
        "state": job.state,
        "attempts": job.attempts,
        "done": job.done_items,
        "total": job.total_items,
        "last_error": job.last_error,
        "updated_at": job.updated_at,
    }


@handled
def jobs(limit: Annotated[int, Opt(help="how many, newest first")] = 50) -> None:
    """List background jobs (embedding) with their progress.  Example: tabane jobs --limit 20"""
    with service() as (svc, _), named_as({"limit": "--limit"}):
        listed = svc.jobs(limit=limit)
        emit(
            {
                "jobs": [_row(j) for j in listed],
                "active": sum(1 for j in listed if j.state in ACTIVE),
            },
            kind="jobs",
        )


@handled
def worker(
    once: Annotated[bool, Opt("--once", help="run the jobs that are due, then exit")] = False,
    poll: Annotated[float, Opt(help="seconds to wait when no job is due")] = 1.0,
) -> None:
    """Run background jobs in the foreground until Ctrl-C or SIGTERM (for a service: run one or
    more beside `tabane serve`, with TABANE_WORKER=off there).  Example: tabane worker"""
    if not 0 < poll <= 3600:  # 0 would ask the database for work without pause, NaN never
        raise InvalidInput(
            "invalid poll interval", issues=[Issue("--poll", f"{poll} not in (0, 3600] seconds")]
        )
    from tabane.config import Settings
    from tabane.service import Tabane

    # This process is the worker: never a second one in a thread, whatever TABANE_WORKER says.
    settings = dataclasses.replace(Settings.from_env(), worker="off")
    stop = threading.Event()
    with _logging(settings.log_format), _stop_on_signals(stop), Tabane.open(settings) as svc:
        kinds = ", ".join(svc.worker.kinds)
        if svc.embedder is not None:
            logger.info("worker: embedder %s; job kinds %s", _model(svc), kinds)
        else:
            logger.warning(
                "worker: no embedder configured (TABANE_EMBEDDER=none): embedding jobs wait; "
                "job kinds %s",
                kinds,
            )
        caught = svc.worker.catch_up()
        if caught:
            logger.info("worker: queued the embedding of %d set(s) lacking vectors", caught)
        if once:
            ran = _run_due(svc, stop)
            logger.info("worker: ran %d job(s); exiting", ran)
            emit({"ran": ran, "active": _active(svc)})
            return
        while not stop.is_set():
            try:
                if _run_due(svc, stop) == 0:
                    stop.wait(poll)
            except Exception:  # the store went away for a moment; try again later
                logger.exception("worker: loop failed; retrying")
                stop.wait(poll * 4)
        logger.info("worker: stopped")


def _run_due(svc: Tabane, stop: threading.Event) -> int:
    """Run due jobs one at a time, logging each, until none is due (or a stop is asked)."""
    ran = 0
    while not stop.is_set() and svc.worker.run_once():
        ran += 1
        job = _last_touched(svc)
        if job is not None:
            failed = job.state != "done" and job.last_error
            tail = f"; last error: {job.last_error}" if failed else ""
            logger.info(
                "job %d %s: %s, %d/%d items, attempt %d%s",
                job.id,
                job.kind,
                job.state,
                job.done_items,
                job.total_items,
                job.attempts,
                tail,
            )
    return ran


def _last_touched(svc: Tabane) -> JobView | None:
    listed = svc.jobs(limit=500)
    return max(listed, key=lambda j: (j.updated_at, j.id)) if listed else None


def _active(svc: Tabane) -> int:
    return sum(1 for j in svc.jobs(limit=500) if j.state in ACTIVE)


def _model(svc: Tabane) -> str:
    return str(getattr(svc.embedder, "name", "?"))


@contextmanager
def _logging(log_format: str) -> Iterator[None]:
    """Log lines on stderr for this command only (stdout stays JSON), one JSON object each
    under TABANE_LOG_FORMAT=json."""
    from tabane.api.logs import JsonFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter()
        if log_format == "json"
        else logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    )
    root = logging.getLogger("tabane")
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and Ctrl-C (SIGINT) set `stop`: the job in hand finishes, then the loop ends. A
    second signal aborts at once (the job's lease runs out and another worker takes it)."""

    def handle(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        logger.info("worker: %s received; stopping after the current job", signal.strsignal(signum))
        stop.set()

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for s, previous in saved.items():
            signal.signal(s, previous)
