"""Compute in one thread while a second writes: the embedding jobs' pipeline (worker.py), so a
job costs max(model, write) rather than their sum (bench/embed_throughput.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from queue import Empty, Queue
from typing import TypeVar

from tabane.models.embedder import Vectors
from tabane.search import vectors

B = TypeVar("B")

# Results computed ahead of the writer at most (bounds the memory a slow writer can pin).
_AHEAD = 8


def pipelined(
    items: Iterable[B],
    compute: Callable[[B], Vectors],
    write: Callable[[list[tuple[B, Vectors]]], None],
    rows: Callable[[B], int],
) -> None:
    """`compute` each item in this thread while a second one `write`s the results: as soon as it
    is free it takes everything computed since (up to `vectors.ROWS` rows) in one call, so it
    never idles while there is work, and what is left when the last item is computed is as small
    as it can be. At most `_AHEAD` results wait; the first error of either side is raised once
    both have stopped (each `write` is one transaction, all or nothing)."""
    ready: Queue[tuple[B, Vectors] | None] = Queue(maxsize=_AHEAD)
    failed: list[BaseException] = []

    def drain() -> None:
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

    thread = threading.Thread(target=drain, name="tabane-write", daemon=True)
    thread.start()
    try:
        for item in items:
            if failed:
                break
            ready.put((item, compute(item)))
    finally:
        ready.put(None)
        thread.join()
    if failed:
        raise failed[0]
