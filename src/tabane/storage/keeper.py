"""The keeper: stops a home's embedded PostgreSQL once no process has held it for a while.

Starting PostgreSQL costs about a second, so the server outlives the command that started it:
the next command finds it running. One keeper runs per home while its server does (its
`HOME/keeper.lock` held); it looks every second at the home's holders (storage/holders.py) and,
after TABANE_PG_IDLE_SECONDS without any, stops the server under the home's init lock (a process
starting meanwhile holds that lock, so it never finds the server stopping under it) and exits.
It also exits when the server stopped some other way. A process killed with the store open
drops its hold with its death, so the server is stopped after the same idle time.

Run as `python -m tabane.storage.keeper HOME IDLE_SECONDS` (storage/pg_programs.spawn); it imports
nothing of tabane but storage, config and errors.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tabane.errors import StoreBusy
from tabane.storage import embedded, holders, pg_programs

LOCK = "keeper.lock"
LOG = "keeper.log"
MAX_POLL = 1.0  # seconds between two looks at the holders


def ensure(home: Path, idle_seconds: float) -> None:
    """Start the home's keeper unless one runs (call with the init lock held, the server up)."""
    if holders.taken(home / LOCK):
        return
    argv = [sys.executable, "-m", "tabane.storage.keeper", str(home), str(idle_seconds)]
    pg_programs.spawn(argv, log=home / LOG)


def stop_if_unheld(home: Path) -> bool:
    """Stop the server now when no process holds the store (TABANE_PG_IDLE_SECONDS=0: the last
    process out stops it); False, and nothing done, when one does or the home is busy."""
    try:
        with embedded.init_lock(home, timeout=0):
            if holders.live(home):
                return False
            return embedded.stop(home)
    except StoreBusy:  # another process is starting it: it will hold it
        return False


def keep(home: Path, idle_seconds: float) -> str:
    """The keeper's loop; returns why it ended."""
    poll = max(0.1, min(MAX_POLL, idle_seconds / 4))
    idle_since: float | None = None
    while embedded.server_pid(home) is not None:
        if holders.live(home):
            idle_since = None
        else:
            now = time.monotonic()
            idle_since = now if idle_since is None else idle_since
            if now - idle_since >= idle_seconds and stop_if_unheld(home):
                return f"stopped the server after {now - idle_since:.0f}s without a holder"
        time.sleep(poll)
    return "the server stopped"


def main(argv: list[str]) -> int:
    home, idle = Path(argv[0]), float(argv[1])
    return holders.run_alone(home / LOCK, f"keeper {home}", lambda: keep(home, idle))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
