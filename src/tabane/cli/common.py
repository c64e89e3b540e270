"""What every CLI command shares: opening the service, printing results, reporting errors."""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import typer

from tabane.errors import Issue, TabaneError

if TYPE_CHECKING:
    from tabane.principal import Principal
    from tabane.service import Tabane

# The store a resident process (cli/resident.py) keeps open; commands it runs use it.
RESIDENT: ContextVar[tuple[Tabane, Principal] | None] = ContextVar("resident", default=None)
# Whether this command prints JSON (`--json`, every command's: cli/shape.py) or for a person.
JSON_OUTPUT: ContextVar[bool] = ContextVar("json_output", default=False)
JOB_WAIT = 600.0  # seconds a command waits for the jobs of what it wrote
P = ParamSpec("P")
R = TypeVar("R")


def exit_on_sigterm() -> None:
    """Let SIGTERM end a serving command as Ctrl-C does: its `with` blocks close the store and
    this process lets go of the embedded PostgreSQL (the last one out stops it). Uvicorn handles
    SIGTERM while it serves, then raises it again once it has shut down: without a handler,
    that second one killed the process before any cleanup ran."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda _sig, _frame: sys.exit(0))


@contextmanager
def service() -> Iterator[tuple[Tabane, Principal]]:
    """Open the store for one command and act as the local user. A one-shot command runs no
    background worker: it never leases a job it would drop at its exit (a command waits for
    the jobs of what it wrote itself: `finish_jobs`)."""
    held = RESIDENT.get()
    if held is not None:  # run by the resident process: its store, open for every command
        yield held
        return
    from dataclasses import replace

    from tabane.config import Settings
    from tabane.service import Tabane

    with Tabane.open(replace(Settings.from_env(), worker="off")) as svc:
        yield svc, svc.local_user()


def finish_jobs(
    svc: Tabane,
    kinds: Sequence[str],
    contexts: Sequence[str] = (),
    progress: Callable[[int], None] | None = None,
) -> None:
    """Run the jobs of what this command wrote (of `kinds`, of `contexts` when named) before
    it exits, so that the next read finds them done: the embeddings of new paragraphs, notes
    or turns. Nothing of another context, and no derived build (`tabane worker`, `tabane serve`
    or `tabane derive` run those). What is still queued at the deadline is said."""
    left = svc.wait_for_jobs(timeout=JOB_WAIT, progress=progress, only=kinds, contexts=contexts)
    if left and svc.worker.kinds:
        typer.echo(f"{left} job(s) still queued; `tabane jobs` shows them", err=True)


def graph_jobs() -> tuple[str, ...]:
    """What a claim or note write queues for its context: its vectors, its concepts' glosses
    and the packing of its vocabulary postings (derived builds are left to a worker)."""
    from tabane.jobs import queue

    return (queue.EMBED_CLAIMS, queue.EMBED_GLOSSES, queue.MERGE_GRAMS)


# Control characters other than newline and tab, C1 included: stored text printed as it is could
# move the cursor, recolour or retitle the reader's terminal (ESC sequences).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """Text for a terminal: each control character but newline and tab written as its escape
    (`\\x1b`), so stored text cannot drive the terminal it is read in."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def emit(value: Any, kind: str | None = None, said: str | None = None) -> None:
    """Print a command's result: with `--json` as JSON (the format scripts and tests read),
    else for a person — `said` (a write's one-line confirmation) or the renderer of the
    result's type (of `kind`, for a plain dict: cli/render/), else the JSON."""
    if not JSON_OUTPUT.get():
        from tabane.cli import render

        if render.show(value, kind, said):
            return
    typer.echo(as_json(value))


def as_json(value: Any) -> str:
    from tabane.plain import to_plain

    return json.dumps(to_plain(value), ensure_ascii=False, indent=2)


def fail(exc: TabaneError) -> None:
    typer.echo(f"error [{exc.code}]: {exc.message}", err=True)
    for issue in exc.issues:
        typer.echo(f"  {issue.path}: {issue.problem}", err=True)
    if exc.written != "nothing":
        typer.echo(f"  written: {exc.written}", err=True)


def as_option(path: str, options: Mapping[str, str]) -> str:
    """A service's issue path as the command's option that carried the field (`valid_from` is
    `--valid-from`, `expected.claim` `--explain-claim`); longer fields are listed first."""
    for field, option in options.items():
        if path == field or path.startswith((f"{field}[", f"{field}.")):
            return option
    return path


@contextmanager
def named_as(options: Mapping[str, str]) -> Iterator[None]:
    """Within the block, a TabaneError's issues name this command's options, not the fields."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(Issue(as_option(i.path, options), i.problem) for i in exc.issues)
        raise


def handled(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn a TabaneError into a clear message and exit code 2, never a traceback."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except TabaneError as exc:
            fail(exc)
            sys.exit(2)

    return wrapper
