"""The resident: a process of one home that keeps the store open and the model loaded, so that a
`tabane search` or `tabane recall` typed at a terminal answers in a fraction of a second.

A fresh process spends about a second importing tabane and another loading the embedding model
before it can embed a question. So the first search or recall of a home runs in its own process
and then starts a resident (detached; its lines go to `HOME/resident.log`), which listens on
`HOME/cli.sock`; later searches and recalls send it their arguments and print what it answers —
the same command run by the same code, its output and exit code passed back whole. The resident
answers only its own user (the socket's peer credentials) and only a command run with the same
TABANE_* settings it was started with (else the command runs locally); it runs one command at a
time and exits after TABANE_RESIDENT_SECONDS without one (0: no resident), letting go of the
store. It runs no background worker: like any CLI command it leases no job.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import socket
import struct
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tabane.config import Settings

FORWARDED = ("search", "recall")  # the reads a person waits for at a terminal
SOCKET = "cli.sock"
LOCK = "resident.lock"
LOG = "resident.log"
CONNECT_TIMEOUT = 0.5  # seconds to reach a resident before the command runs here instead
ANSWER_TIMEOUT = 600.0  # seconds a forwarded command may take (a recall's explain twin included)
_ENV = "TABANE_"


def forward(target: Settings, argv: list[str]) -> int | None:
    """Run `argv` in the resident of `target`'s home (`target(argv)`) and print its output; its
    exit code, or None when no resident with these settings answers."""
    home = target.home
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            conn.connect(str(home / SOCKET))
            conn.settimeout(ANSWER_TIMEOUT)
            _send(conn, {"key": settings_key(os.environ), "argv": argv})
            answer = _receive(conn)
    except (OSError, ValueError):
        return None
    code, out, err = answer.get("code"), answer.get("stdout"), answer.get("stderr")
    if not (isinstance(code, int) and isinstance(out, str) and isinstance(err, str)):
        return None  # refused (another user, other settings): run it here
    sys.stdout.write(out)
    sys.stderr.write(err)
    sys.stdout.flush()
    return code


def start_for(target: Settings) -> None:
    """After a search or recall ran here, start the resident of `target`'s home for the next
    one (unless one runs)."""
    from tabane.storage import holders, pg_programs

    home, seconds = target.home, str(target.resident_seconds)
    if holders.taken(home / LOCK):
        return
    with contextlib.suppress(OSError, ValueError):
        pg_programs.spawn(
            [sys.executable, "-m", "tabane.cli.resident", str(home), seconds], log=home / LOG
        )


def target(argv: list[str]) -> Settings | None:
    """The settings (read once) whose home's resident may answer `argv`; None when none may:
    not a search or recall, residents off, an external database, or a home without a store."""
    if not argv or argv[0] not in FORWARDED or "--help" in argv:
        return None
    try:
        from tabane.config import Settings

        settings = Settings.from_env()
    except Exception:  # a bad setting: the command itself reports it
        return None
    if settings.resident_seconds <= 0 or not settings.embedded:
        return None
    home = settings.home
    if len(os.fsencode(home / SOCKET)) >= 100 or not (home / "pg").is_dir():
        return None
    return settings


def settings_key(env: Mapping[str, str]) -> str:
    """What a resident must share with a command to run it: every TABANE_* setting."""
    pairs = sorted((k, v) for k, v in env.items() if k.startswith(_ENV))
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def _send(conn: socket.socket, message: dict[str, object]) -> None:
    data = json.dumps(message).encode()
    conn.sendall(struct.pack("!I", len(data)) + data)


def _receive(conn: socket.socket) -> dict[str, object]:
    size = struct.unpack("!I", _exactly(conn, 4))[0]
    if size > 64 << 20:
        raise ValueError("message too large")
    loaded = json.loads(_exactly(conn, size))
    if not isinstance(loaded, dict):
        raise ValueError("not a message")
    return loaded


def _exactly(conn: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 16))
        if not chunk:
            raise ValueError("connection closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def serve(home: Path, idle_seconds: float) -> str:
    """The resident's life: open the store, load the model, answer until idle; why it ended."""
    from dataclasses import replace

    from tabane.cli.common import RESIDENT
    from tabane.config import Settings
    from tabane.service import Tabane

    key = settings_key(os.environ)
    path = home / SOCKET
    with Tabane.open(replace(Settings.from_env(), worker="off")) as svc:
        RESIDENT.set((svc, svc.local_user()))
        if svc.embedder is not None:
            svc.embedder.embed_query("warm")  # load the model now, not in the first answer
        path.unlink(missing_ok=True)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            old = os.umask(0o177)  # the socket: this user's alone
            try:
                listener.bind(str(path))
            finally:
                os.umask(old)
            listener.listen(8)
            listener.settimeout(1.0)
            try:
                return _answer_until_idle(listener, key, idle_seconds)
            finally:
                path.unlink(missing_ok=True)


def _answer_until_idle(listener: socket.socket, key: str, idle_seconds: float) -> str:
    last, answered, refused = time.monotonic(), 0, 0
    while time.monotonic() - last < idle_seconds:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        with conn:
            conn.settimeout(30)
            with contextlib.suppress(OSError, ValueError):
                answer = _run_for(conn, key)
                answered, refused = answered + ("code" in answer), refused + ("code" not in answer)
                _send(conn, answer)
        last = time.monotonic()
    return f"idle for {idle_seconds:.0f}s; answered {answered}, refused {refused}"


def _run_for(conn: socket.socket, key: str) -> dict[str, object]:
    """Run one forwarded command (same user, same settings) and capture what it printed."""
    uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
    request = _receive(conn)
    argv = request.get("argv")
    if uid != os.getuid():
        return {"refused": "another user"}
    if request.get("key") != key:
        return {"refused": "other settings"}
    if not (isinstance(argv, list) and argv and argv[0] in FORWARDED):
        return {"refused": "not a command the resident runs"}
    from tabane.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run([str(a) for a in argv])
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def main(argv: list[str]) -> int:
    from tabane.storage import holders

    home, idle = Path(argv[0]), float(argv[1])
    return holders.run_alone(home / LOCK, f"resident {home}", lambda: serve(home, idle))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
