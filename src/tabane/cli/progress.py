"""Progress bars on stderr for the long writes (ingest, sync, the embedding they wait for): each
counts a stated unit out of a total known before the first step, with an ETA, and its last frame
stays on the screen with the final count. Nothing is drawn when stderr is not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class Bar:
    """One bar: `plan(total)` once the total is known, `step(current)` per unit done."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self.progress, self.task = progress, task
        self.done = 0

    def plan(self, total: int) -> None:
        self.progress.update(self.task, total=total)

    def step(self, current: str = "") -> None:
        self.done += 1
        self.progress.update(self.task, completed=self.done, current=current)

    def reach(self, done: int, total: int) -> None:
        """Set the count outright (a countdown: `total - left`)."""
        self.done = done
        self.progress.update(self.task, completed=done, total=total)


@contextmanager
def bar(description: str, unit: str, console: Console | None = None) -> Iterator[Bar]:
    """A bar counting `unit`s (files, sources…) with an ETA; at its end the current item is
    cleared so that the final frame reads `55/55 files`."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    screen = console or Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[current]}"),
        console=screen,
        disable=console is None and not sys.stderr.isatty(),
    )
    with progress:
        shown = Bar(progress, progress.add_task(description, total=None, current=""))
        try:
            yield shown
        finally:
            progress.update(shown.task, current="")
