"""The walk of a folder an ingest or sync reads: every file below it, each folder once.

Links are followed (a linked file or folder is read like any other), but a folder already walked
— by its (device, inode) — is never entered again, so a link back up the tree (`ln -s . self`)
ends instead of walking for ever. A walk that finds more than `limit` files stops and is refused
before anything is read: a folder that large is almost always the wrong one.
"""

from __future__ import annotations

import os
from pathlib import Path

from tabane.errors import Issue, LimitExceeded

# Files one walk may find: ten times the largest documentation package of the corpus zoo
# (libgtk-3-doc's and python3.11-doc's pages number in the hundreds, manpages-ja about a thousand).
MAX_WALK_FILES = 100_000


def files(root: Path, *, limit: int = MAX_WALK_FILES) -> list[Path]:
    """The files below `root`, sorted by path, each folder walked once."""
    seen: set[tuple[int, int]] = set()
    found: list[Path] = []
    for folder, dirs, names in os.walk(root, followlinks=True):
        try:
            here = os.stat(folder)
        except OSError:
            dirs[:] = []
            continue
        if (here.st_dev, here.st_ino) in seen:
            dirs[:] = []  # reached again through a link: walked already
            continue
        seen.add((here.st_dev, here.st_ino))
        dirs.sort()
        for name in names:
            path = Path(folder) / name
            if path.is_file():
                found.append(path)
        if len(found) > limit:
            raise LimitExceeded(
                f"{root} holds more than {limit} files: choose a smaller folder",
                issues=[Issue(str(root), f"more than {limit} files (the walk stopped there)")],
            )
    return sorted(found)
