"""Free space on the embedded store's disk: below a low watermark, writes are refused.

PostgreSQL that meets a full disk panics and stops (seen: one 500 with "written: unknown", then
503s until space came back). So tabane's own writes — ingests, notes, claims, turns, imports and
the worker's embeddings — look at the free space of the data directory's file system first and
are refused with `disk_low` (507) below TABANE_DISK_LOW_MB, while reads go on. An external
PostgreSQL's disk is not visible from here: its operator watches it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tabane.errors import DiskLow, Issue


def free_mb(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize // (1 << 20)


def check(home: Path | None, low_mb: int) -> None:
    """Raise `disk_low` when the embedded store in `home` has less than `low_mb` MiB free."""
    if home is None or low_mb <= 0:
        return
    try:
        free = free_mb(home / "pg")
    except OSError:  # the folder went away: the write itself will say what is wrong
        return
    if free < low_mb:
        raise DiskLow(
            f"the disk of {home} has {free} MiB free, under the low watermark: writes wait "
            "until space is freed (reads go on); nothing written",
            issues=[Issue("TABANE_DISK_LOW_MB", f"{free} MiB free, at least {low_mb} needed")],
        )
