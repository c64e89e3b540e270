"""What every CLI command shares: opening the service, printing results, reporting errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, ParamSpec, TypeVar

import typer

from tabane.config import Settings
from tabane.errors import TabaneError
from tabane.service import Tabane
from tabane.types import Principal, to_plain

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def service() -> Iterator[tuple[Tabane, Principal]]:
    """Open the store for one command and act as the local user."""
    with Tabane.open(Settings.from_env()) as svc:
        yield svc, svc.local_user()


def emit(value: Any) -> None:
    typer.echo(json.dumps(to_plain(value), ensure_ascii=False, indent=2))


def fail(exc: TabaneError) -> None:
    typer.echo(f"error [{exc.code}]: {exc.message}", err=True)
    for issue in exc.issues:
        typer.echo(f"  {issue.path}: {issue.problem}", err=True)
    if exc.written != "nothing":
        typer.echo(f"  written: {exc.written}", err=True)


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
