"""Compute in one thread while a second writes: the embedding jobs' pipeline (worker.py), so a
job costs max(model, write) rather than their sum (bench/embed_throughput.py); and the plain
batches of the smaller embedding jobs (glosses, claims, turns, summaries)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from queue import Empty, Queue
from typing import TypeVar

from sqlalchemy.orm import Session

from tabane.jobs import queue
from tabane.models.embedder import Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.storage.store import Store

B = TypeVar("B")

# Results computed ahead of the writer at most (bounds the memory a slow writer can pin).
_AHEAD = 8


def pipelined(
    items: Iterable[B],
    compute: Callable[[B], Vectors],
    write: Callable[[list[tuple[B, Vectors]]], None],
    rows: Callable[[B], int],
    then: Callable[[BaseException | None], None] | None = None,
) -> threading.Thread | None:
    """`compute` each item in this thread while a second one `write`s the results: as soon as it
    is free it takes everything computed since (up to `vectors.ROWS` rows) in one call, so it
    never idles while there is work, and what is left when the last item is computed is as small
    as it can be. At most `_AHEAD` results wait; the first error of either side is raised once
    both have stopped (each `write` is one transaction, all or nothing).

    With `then`, nothing is raised or waited for: once `compute` is done this returns the writer
    thread, which writes what is left and then calls `then` with the first error or None (an
    embedding job's end: the worker's model starts on its next job meanwhile, decision 0040).
    An error of `compute` itself is still raised here, after the writer has stopped."""
    ready: Queue[tuple[B, Vectors] | None] = Queue(maxsize=_AHEAD)
    failed: list[BaseException] = []

    def drain() -> None:
        _drain(ready, failed, write, rows)

    handed: list[bool] = []  # set before the end marker: then the writer's end calls `then`

    def drain_then() -> None:
        drain()
        if handed and then is not None:
            then(failed[0] if failed else None)

    thread = threading.Thread(target=drain_then, name="tabane-write", daemon=True)
    thread.start()
    try:
        for item in items:
            if failed:
                break
            ready.put((item, compute(item)))
        if then is not None:
            handed.append(True)
    finally:
        ready.put(None)
        if not handed:
            thread.join()
    if handed:
        return thread
    if failed:
        raise failed[0]
    return None


def _drain(
    ready: Queue[tuple[B, Vectors] | None],
    failed: list[BaseException],
    write: Callable[[list[tuple[B, Vectors]]], None],
    rows: Callable[[B], int],
) -> None:
    """The writer's loop: everything computed since its last write (up to `vectors.ROWS` rows)
    in one `write`, until the end marker; the first error noted in `failed`."""
    while (got := ready.get()) is not None:
        taken = [got]
        while sum(rows(item) for item, _ in taken) < vectors.ROWS:
            try:
                more = ready.get_nowait()
            except Empty:
                break
            if more is None:  # the end: seen again by the outer loop, after this write
                ready.put(None)
                break
            taken.append(more)
        if not failed:  # after a failure, only empty the queue so `compute` never blocks
            try:
                write(taken)
            except BaseException as exc:
                failed.append(exc)


def in_batches(
    store: Store,
    job: queue.Claimed,
    principal: Principal,
    todo: Sequence[B],
    size: int,
    embed: Callable[[Sequence[B]], Vectors],
    write: Callable[[Session, Sequence[B], Vectors], object],
) -> None:
    """Embed `todo` `size` at a time (the embed functions check the vectors); each batch is
    written in a transaction of its own as the job's principal, then the progress is noted."""
    for start in range(0, len(todo), size):
        batch = todo[start : start + size]
        vecs = embed(batch)
        with store.session(principal) as session:
            write(session, batch, vecs)
        with store.admin() as session:
            queue.progress(session, job, start + len(batch), len(todo))
