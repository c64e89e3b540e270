"""`tabane serve --sync FOLDER=CONTEXT`: folders kept in step while the server runs (issue 34,
item 9; docs/decisions/0022-navigation-and-watch.md). Each folder is polled every `--sync-every`
seconds by a thread of its own (ingest/watch.py `Watcher`, mode poll) and synced as the local
user when it changed; a failed sync is logged and the next change tried again. At shutdown the
threads are stopped and a sync under way finishes first."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tabane.errors import InvalidInput, Issue

if TYPE_CHECKING:
    from tabane.ingest.files import IngestReport
    from tabane.service import Tabane

log = logging.getLogger("tabane.sync")
JOIN_SECONDS = 30.0  # how long shutdown waits for a sync under way


def parse(pairs: Sequence[str]) -> list[tuple[Path, str]]:
    """`FOLDER=CONTEXT` pairs (the context after the last `=`), each folder an existing one."""
    out: list[tuple[Path, str]] = []
    issues: list[Issue] = []
    for i, pair in enumerate(pairs):
        folder, eq, context = pair.rpartition("=")
        if not eq or not folder.strip() or not context.strip():
            issues.append(Issue(f"--sync[{i}]", f"{pair!r} is not FOLDER=CONTEXT"))
        elif not Path(folder).expanduser().is_dir():
            issues.append(Issue(f"--sync[{i}]", f"{folder} is not a folder"))
        else:
            out.append((Path(folder).expanduser().resolve(), context.strip()))
    if issues:
        raise InvalidInput("invalid --sync", issues=issues)
    return out


@contextmanager
def keep_synced(svc: Tabane, folders: Sequence[tuple[Path, str]], every: float) -> Iterator[None]:
    """Poll and sync `folders` in the background while the block runs."""
    from tabane.ingest.watch import WatchRules

    if not folders:
        yield
        return
    rules = WatchRules(debounce=min(every, 5.0), poll=every, mode="poll")
    rules.check()
    user = svc.local_user()
    stop = threading.Event()

    def run(folder: Path, context: str) -> None:
        def done(report: IngestReport) -> None:
            log.info("synced %s into %s: %s", folder, context, report.counts())

        def failed(error: Exception) -> None:
            log.warning("sync of %s failed: %s", folder, error)

        try:
            svc.watch(user, context, folder, stop=stop, rules=rules, on_round=done, on_error=failed)
        except Exception:  # the first sync failed: say so, serve on
            log.exception("sync of %s into %s stopped", folder, context)

    threads = [
        threading.Thread(target=run, args=pair, name=f"sync {pair[0]}", daemon=True)
        for pair in folders
    ]
    for t in threads:
        t.start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=JOIN_SECONDS)
