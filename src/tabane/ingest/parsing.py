"""Parsing files in a process pool while the previous group is stored (ingest/files.py).

Reading HTML, man pages and PDFs is CPU in Python and lxml: a pool of `workers` processes
(`spawn`: the parent holds database threads a fork could copy mid-lock) parses a group's files
while the parent stores the group before it. Results are taken in the files' order, so what is
stored, and in which order, is the same as a serial ingest. A file whose parse kills its worker
or outlives `DEADLINE_S` is a per-file `reader_failed` error; the pool is then replaced and the
group's other files parsed again (a dead worker breaks every future the pool held). A handful of
files (fewer than `POOL_MIN_FILES`) or fewer than three cores parse in this process: no pool.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tabane.errors import Issue, ReaderFailed, TabaneError
from tabane.ingest.inputs import parse
from tabane.text.documents import ParsedDocument

DEADLINE_S = 120.0  # the longest one file's parse may take once the parent waits for it
POOL_MIN_FILES = 16  # fewer files than this are parsed in the ingesting process
MAX_WORKERS = 8

Parse = Callable[[Any, int], ParsedDocument]  # (DocumentInput, max_paragraphs) → parsed
Outcome = ParsedDocument | TabaneError


def workers_for(files: int) -> int:
    """How many parsing processes an ingest of `files` files starts: none for a handful, else
    one per core but one (the ingesting process analyses and packs while the server writes; at
    most `MAX_WORKERS`), and none under three cores: on two shared cores the pool measured no
    gain (decision 0039)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n = min((cores or 1) - 1, MAX_WORKERS)
    return n if files >= POOL_MIN_FILES and n >= 2 else 0


def parse_document(doc: Any, max_paragraphs: int) -> ParsedDocument:
    """The default parse, run in a worker (module level: the pool pickles it by name)."""
    return parse(doc, max_paragraphs)


TARGET: Parse = parse_document  # what a `Parser` runs unless told otherwise


def _follow(parent: int) -> None:
    """A worker's initializer: exit when the ingesting process is gone (killed with -9, a
    pool's workers would otherwise wait on its queue forever)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="tabane-parse-parent", daemon=True).start()


def _spawn_pool(workers: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=_follow, initargs=(os.getpid(),)
    )


def _outcome(target: Parse, doc: Any, max_paragraphs: int) -> Outcome:
    try:
        return target(doc, max_paragraphs)
    except TabaneError as exc:  # the document's own error, as a serial parse reports it
        return exc


class Parser:
    """Parses documents in order, in a pool of `workers` processes or (0) in this one.
    `submit` returns a thunk giving the file's parsed document or its `TabaneError`."""

    def __init__(self, workers: int, target: Parse | None = None) -> None:
        self.workers = workers
        self.target = target or TARGET
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[_Task] = []  # submitted, result not taken yet

    def __enter__(self) -> Parser:
        return self

    def __exit__(self, *exc: object) -> None:
        self._discard()

    def submit(self, doc: Any, name: str, max_paragraphs: int) -> Callable[[], Outcome]:
        if self.workers == 0:
            return lambda: _outcome(self.target, doc, max_paragraphs)
        task = _Task(self, doc, name, max_paragraphs)
        self._pending.append(task)
        task.start()
        return task.result

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = _spawn_pool(self.workers)
        return self._pool

    def _restart(self) -> None:
        """A fresh pool for every pending file whose parse the old one did not finish."""
        self._discard()
        for task in self._pending:
            if not task.finished():
                task.start()

    def _discard(self) -> None:
        """Stop the pool now, its workers killed (a hung parse does not finish on its own)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            _kill(pool)


def _kill(pool: ProcessPoolExecutor) -> None:
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()
    pool.shutdown(wait=True, cancel_futures=True)


class _Task:
    """One file's parse in the pool: given a second pool when the first broke under it (another
    file may have killed the worker), then a pool of its own, so only the file that kills its
    worker is reported."""

    def __init__(self, parser: Parser, doc: Any, name: str, max_paragraphs: int) -> None:
        self.parser, self.doc, self.name, self.max_paragraphs = parser, doc, name, max_paragraphs
        self.future: Future[Outcome] | None = None
        self.broken = 0

    def start(self) -> None:
        pool = self.parser._executor()
        self.future = pool.submit(_outcome, self.parser.target, self.doc, self.max_paragraphs)

    def finished(self) -> bool:
        """Parsed (or refused by the document's own error) in the pool it was given."""
        f = self.future
        return f is not None and f.done() and not f.cancelled() and f.exception() is None

    def result(self) -> Outcome:
        try:
            while True:
                assert self.future is not None
                try:
                    return self.future.result(timeout=DEADLINE_S)
                except FutureTimeout:
                    self.parser._pending.remove(self)
                    self.parser._restart()
                    return self._failed(f"parsing took longer than {DEADLINE_S:g} s; stopped")
                except (BrokenProcessPool, CancelledError):
                    self.broken += 1
                    if self.broken >= 2:
                        return self._alone()
                    self.parser._restart()
        finally:
            if self in self.parser._pending:
                self.parser._pending.remove(self)

    def _alone(self) -> Outcome:
        pool = _spawn_pool(1)
        try:
            future = pool.submit(_outcome, self.parser.target, self.doc, self.max_paragraphs)
            return future.result(timeout=DEADLINE_S)
        except BrokenProcessPool:
            return self._failed("the parser's process died on this file")
        except FutureTimeout:
            return self._failed(f"parsing took longer than {DEADLINE_S:g} s; stopped")
        finally:
            _kill(pool)

    def _failed(self, problem: str) -> ReaderFailed:
        return ReaderFailed(f"{self.name}: {problem}", issues=[Issue(self.name, problem)])
