"""PostgreSQL is started and stopped without `fork()` from a process whose model and BLAS threads
run: a `fork()` there can hang inside OpenBLAS's at-fork handler (an ingest was seen stuck 8
minutes in `blas_thread_shutdown_`). As root — how containers commonly run — CPython forked the
whole process to start pg_ctl as another user. The process is traced (strace) while it starts and
stops its server five times with the embedder loaded and a thread embedding all along: none of
its threads may create a process by a plain fork (a clone without CLONE_VM)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,  # starts a server under strace
    pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace"),
]

CYCLES = 5
BUSY = f"""
import sys, threading
from pathlib import Path
from tabane.config import Settings
from tabane.models.local import UseEmbedder
from tabane.service import Tabane

embedder = UseEmbedder()
embedder.embed_query("load the model")
stop = threading.Event()

def embed_all_along():
    while not stop.is_set():
        embedder.embed_documents(["a paragraph that keeps the model busy"] * 16)

threading.Thread(target=embed_all_along, daemon=True).start()
settings = Settings(home=Path(sys.argv[1]), embedder="none", worker="off", pg_idle_seconds=0)
for _ in range({CYCLES}):
    svc = Tabane.open(settings)
    svc.local_user()
    svc.close()
stop.set()
print("cycled", flush=True)
"""
_CALL = re.compile(r"^(\d+)\s+(.*)$")


def forks_by(trace: str) -> list[str]:
    """The calls by which the traced process's own threads made a process other than by
    vfork-and-exec; threads (CLONE_THREAD) are followed as its own."""
    lines = trace.splitlines()
    first = _CALL.match(lines[0])
    assert first is not None
    own, pending, forks = {first.group(1)}, {}, []
    for line in lines:
        match = _CALL.match(line)
        if match is None:
            continue
        tid, call = match.groups()
        if call.endswith("<unfinished ...>"):
            pending[tid] = call.removesuffix("<unfinished ...>")
            continue
        if call.startswith("<..."):
            call = pending.pop(tid, "") + call.split("resumed>", 1)[-1]
        if tid not in own or not re.match(r"(clone3?|fork|vfork)\(", call):
            continue
        made = call.rsplit("=", 1)[-1].strip().split()[0]
        if "CLONE_THREAD" in call:
            own.add(made)
        elif call.startswith("fork(") or ("CLONE_VM" not in call and "vfork" not in call):
            forks.append(call)
    return forks


def test_forks_by_reads_a_trace() -> None:
    trace = "\n".join(
        [
            "10 execve(...) = 0",
            "10 clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND, ...}, 88) = 11",
            "11 vfork( <unfinished ...>",
            "11 <... vfork resumed>) = 12",
            "12 clone(child_stack=NULL, flags=SIGCHLD) = 13",  # a child's own fork: not ours
            "11 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>",
            "11 <... clone resumed>, child_tidptr=0x7f) = 14",
        ]
    )
    assert forks_by(trace) == [
        "clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD , child_tidptr=0x7f) = 14"
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user CPython spawns without fork anyway")
def test_the_server_starts_and_stops_without_fork_while_the_model_runs(tmp_path: Path) -> None:
    out = tmp_path / "trace"
    run = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-o",
            str(out),
            "-e",
            "trace=fork,vfork,clone,clone3",
            sys.executable,
            "-c",
            BUSY,
            str(tmp_path / "home"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0 and run.stdout.strip() == "cycled", run.stderr[-3000:]
    assert forks_by(out.read_text()) == []
