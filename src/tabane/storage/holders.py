"""Which processes hold a store open: one locked file each under `HOME/holders/`.

A process that opens the embedded store creates `HOME/holders/PID-N.lock` and holds an exclusive
`flock` on it until it closes the store. The kernel drops the lock when the process ends however
it ends (exit, SIGTERM, kill -9, OOM), so a holder is live exactly while its lock is held: a
file whose lock can be taken is a dead holder's, removed by whoever finds it. Nothing here is
shared between two homes, and no pid list can go stale. The descriptor is not inherited by the
programs the process starts (Python opens files close-on-exec), so the PostgreSQL server never
holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import time
from collections.abc import Callable
from pathlib import Path

FOLDER = "holders"
_serial = itertools.count(1)


class Hold:
    """This process's hold on a home's store; `release()` lets go (idempotent)."""

    def __init__(self, home: Path) -> None:
        folder = home / FOLDER
        folder.mkdir(exist_ok=True)
        while True:
            path = folder / f"{os.getpid()}-{next(_serial)}.lock"
            handle = open(path, "a")  # noqa: SIM115 (held until release)
            fcntl.flock(handle, fcntl.LOCK_EX)
            # A sweeper may have found a dead holder's file of the same name and removed it
            # between our open and our lock: then ours is an unlinked file; make another.
            if _same_file(handle.fileno(), path):
                break
            handle.close()
        self.path = path
        self._handle: object | None = handle

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        handle.close()  # type: ignore[attr-defined]


def live(home: Path) -> list[int]:
    """The pids of the processes holding `home`'s store (this one's own holds included), after
    removing the files of holders that died."""
    folder = home / FOLDER
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    pids = []
    for name in names:
        pid = name.split("-", 1)[0]
        if not (pid.isdigit() and name.endswith(".lock")):
            continue  # not a holder's file
        path = folder / name
        try:
            handle = open(path, "a")  # noqa: SIM115 (closed below)
        except FileNotFoundError:  # released meanwhile
            continue
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pids.append(int(pid))
                continue
            if _same_file(handle.fileno(), path):
                path.unlink()  # a dead holder's file, locked by this sweep while removed
    return pids


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def taken(path: Path) -> bool:
    """Whether a process holds the lock file `path` (a home's keeper or resident runs)."""
    try:
        with open(path, "a") as probe:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return True  # cannot tell: start none
    return False


def run_alone(path: Path, name: str, life: Callable[[], str]) -> int:
    """Run `life` while holding the lock file `path`, then print why it ended, prefixed by
    `name`; return at once when another process holds it (one keeper, one resident a home)."""
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        with contextlib.suppress(KeyboardInterrupt):
            why = life()
            print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {name}: {why}", flush=True)
    return 0
