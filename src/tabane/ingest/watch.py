"""Keep a context in step with a folder: `tabane sync --watch` and `tabane serve --sync`
(issue 34, item 9; docs/decisions/0022-navigation-and-watch.md).

A `Watcher` syncs once, then again after each change of the folder, until its `stop` event is
set (SIGINT or SIGTERM in the CLI, shutdown in `serve`); a sync under way finishes first, so a
stop never leaves a file half stored. A change is seen by:

- `inotify`: the `watchfiles` package (the `watch` extra; inotify on Linux, FSEvents on macOS),
  changes to blocked files ignored;
- `poll`: a look at the folder every `poll` seconds — the sync's own walk (ingest/walk.py: links
  followed, each folder once, refused past its file limit), each file's size and modification
  time compared. Polling is used when `watchfiles` is not installed or cannot watch (the inotify
  watch limit reached), and always by `serve --sync`, whose folders change seldom.

Debounced: a sync starts only after `debounce` seconds without a further change, so an editor's
save (a temporary file, a rename, a write) is one sync, not three. Bounded: at most one sync per
`debounce` seconds, and each sync is `sync`'s (its file and size limits, unchanged files skipped
before they are parsed, vanished files retracted).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from tabane.errors import InvalidInput, Issue, TabaneError
from tabane.ingest import walk
from tabane.ingest.files import blocked

T = TypeVar("T")
MODES = ("auto", "inotify", "poll")
MIN_SECONDS = 0.05  # the shortest debounce or poll period (a busy loop below that)
MAX_SECONDS = 86_400.0

Snapshot = dict[str, tuple[int, int]]  # relative path → (size, modification time in ns)


@dataclass(frozen=True)
class WatchRules:
    debounce: float = 1.0  # seconds of quiet before a sync, and at least between two syncs
    poll: float = 2.0  # seconds between two looks at the folder when polling
    mode: str = "auto"  # auto (inotify when it can), inotify, or poll

    def check(self) -> None:
        issues = [
            Issue(name, f"{value!r} not a number of seconds in {MIN_SECONDS}..{MAX_SECONDS:g}")
            for name, value in (("debounce", self.debounce), ("poll", self.poll))
            if isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not MIN_SECONDS <= value <= MAX_SECONDS
        ]
        if self.mode not in MODES:
            issues.append(Issue("mode", f"{self.mode!r}: choose from {', '.join(MODES)}"))
        if issues:
            raise InvalidInput("invalid watch", issues=issues)


def snapshot(root: Path, blocklist: Sequence[str]) -> Snapshot:
    """Every file the sync would read, with its size and modification time (the walk's rules)."""
    out: Snapshot = {}
    for path in walk.files(root):
        rel = path.relative_to(root).as_posix()
        if blocked(rel, blocklist):
            continue
        try:
            st = os.stat(path)
        except OSError:  # gone since the walk: the next look sees it gone
            continue
        out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def inotify_available() -> bool:
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        return False
    return True


class Watcher(Generic[T]):
    """Sync `root` with `sync_once` now and after each change (module docstring). `on_round`
    gets each sync's report; `on_error` each later sync's tabane error (the first one raises)."""

    def __init__(
        self,
        root: Path,
        sync_once: Callable[[], T],
        *,
        stop: threading.Event,
        rules: WatchRules = WatchRules(),
        blocklist: Sequence[str] = (),
        on_round: Callable[[T], None] = lambda _report: None,
        on_error: Callable[[TabaneError], None] | None = None,
    ) -> None:
        rules.check()
        self.root, self.sync_once, self.stop, self.rules = root.resolve(), sync_once, stop, rules
        self.blocklist, self.on_round, self.on_error = tuple(blocklist), on_round, on_error
        self.rounds = 0
        self.mode = "poll"
        self._last = 0.0

    def run(self) -> int:
        """Watch until `stop` is set; the number of syncs run."""
        if not self.root.is_dir():
            raise InvalidInput(
                f"{self.root} is not a folder", issues=[Issue("folder", "not a directory")]
            )
        wanted = self.rules.mode
        if wanted == "inotify" and not inotify_available():
            raise InvalidInput(
                "inotify watching needs the watchfiles package (pip install 'tabane[watch]')",
                issues=[Issue("mode", "watchfiles is not installed")],
            )
        # the folder as the first sync found it: a change made while it ran is synced next
        before = self._look()
        self._round(first=True)
        if wanted != "poll" and inotify_available():
            self.mode = "inotify"
            try:
                self._notified(before)
            except OSError:  # no watch to be had (the inotify limit): look instead
                if wanted == "inotify":
                    raise
                self.mode = "poll"
        if not self.stop.is_set():
            self._polled(before)
        return self.rounds

    def _round(self, *, first: bool = False) -> None:
        """One sync, at least `debounce` seconds after the last one began."""
        wait = self._last + self.rules.debounce - time.monotonic()
        if not first and wait > 0 and self.stop.wait(wait):
            return
        self._last = time.monotonic()
        try:
            report = self.sync_once()
        except TabaneError as e:
            if first or self.on_error is None:
                raise
            self.on_error(e)
            return
        self.rounds += 1
        self.on_round(report)

    def _polled(self, last: Snapshot | None) -> None:
        while not self.stop.wait(self.rules.poll):
            now = self._look()
            if now == last:
                continue
            while not self.stop.wait(self.rules.debounce):  # quiet for `debounce` seconds
                again = self._look()
                if again == now:
                    break
                now = again
            if self.stop.is_set():
                return
            self._round()
            last = now

    def _look(self) -> Snapshot | None:
        try:
            return snapshot(self.root, self.blocklist)
        except (TabaneError, OSError):  # past the file limit, or the folder gone: sync says so
            return None

    def _notified(self, before: Snapshot | None) -> None:
        """Sync on each batch of changes; once the watch is set (its first quiet timeout), once
        more if the folder changed since `before` (while the first sync ran)."""
        import watchfiles

        def wanted(_change: Any, path: str) -> bool:
            try:
                rel = Path(path).resolve().relative_to(self.root).as_posix()
            except ValueError:
                return True  # through a link: let the sync decide
            return not blocked(rel, self.blocklist)

        quiet = max(1, int(self.rules.debounce * 1000))
        for changes in watchfiles.watch(
            self.root,
            watch_filter=wanted,
            step=quiet,  # a change is yielded after this much quiet ...
            debounce=quiet * 20,  # ... or after this long of steady change
            stop_event=self.stop,
            rust_timeout=500,  # how often the stop event is looked at
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if self.stop.is_set():
                return
            if changes or (before is not None and self._look() != before):
                self._round()
            before = None
