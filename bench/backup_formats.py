"""Which program backs up a whole store: pg_dump's formats against pg_basebackup, in one run on one
store (docs/decisions/0017-observability-and-backup.md).

The store: the first `--files` pages of the python3.11-doc HTML (files selected as
ingest_throughput.py does), ingested and embedded with the default encoder (512-d vectors and
their HNSW index are most of a store's bytes). Each method runs `--repeat` times; the median wall
seconds and the size it wrote are reported, and both over pg_dump's custom format at its default
compression (the baseline; `tabane backup` is the custom format at gzip level 1). Restores:
`tabane restore`'s path (its own file, one transaction, then ANALYZE) into a fresh store, against
the directory format's parallel `pg_restore -j 2`.
pg_basebackup copies the whole cluster: its restore is a stopped server's data directory
replaced, so it is not timed here (it cannot go into a running or an external store at all).

    .venv/bin/python bench/backup_formats.py --files 60
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _env
from _store import fresh_store
from ingest_throughput import select_files
from sqlalchemy import Engine, func, select, text

from tabane.errors import TabaneError
from tabane.models.local import UseEmbedder
from tabane.storage import backup
from tabane.storage.opening import open_store

BASELINE = "pg_dump -Fc (gzip level 6, its default)"
TABANE = "pg_dump -Fc --compress=1 (tabane backup)"


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def timed(run: Callable[[Path], None], out: Path, repeat: int) -> dict[str, float] | None:
    """Median seconds and the bytes written; None when this build cannot (lz4, zstd)."""
    seconds = []
    for _ in range(repeat):
        if out.exists():
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        started = time.perf_counter()
        try:
            run(out)
        except TabaneError as exc:
            print(f"{out.name}: {exc.message}", file=sys.stderr)
            return None
        seconds.append(time.perf_counter() - started)
    return {"seconds": statistics.median(seconds), "bytes": size(out)}


def methods(owner: Engine) -> dict[str, Callable[[Path], None]]:
    def dump(*flags: str) -> Callable[[Path], None]:
        return lambda out: (backup._client(owner, ["pg_dump", *flags, f"--file={out}"]), None)[1]

    def base(*flags: str) -> Callable[[Path], None]:
        return lambda out: (backup._client(owner, ["pg_basebackup", *flags, "-D", str(out)]),
                            None)[1]  # fmt: skip

    return {
        "pg_dump -Fc (gzip level 6, its default)": dump("--format=custom"),
        "pg_dump -Fc --compress=0": dump("--format=custom", "--compress=0"),
        "pg_dump -Fc --compress=1 (tabane backup)": lambda out: (backup.backup(owner, out), None)[
            1
        ],
        "pg_dump -Fc --compress=lz4": dump("--format=custom", "--compress=lz4"),
        "pg_dump -Fd -j 2": dump("--format=directory", "--jobs=2"),
        "pg_dump -Fp (plain SQL)": dump("--format=plain"),
        "pg_basebackup -Ft -z": base("--format=tar", "--gzip", "--checkpoint=fast"),
        "pg_basebackup -Fp": base("--format=plain", "--checkpoint=fast"),
    }


def restores(files: dict[str, Path], repeat: int) -> dict[str, float]:
    home = Path(tempfile.mkdtemp(prefix="tabane-bench-restore-"))
    from tabane.config import Settings
    from tabane.storage import embedded

    store = open_store(Settings(home=home, worker="off", embedder="none"))
    out: dict[str, float] = {}
    try:
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            backup.restore(store.owner, files["custom"], force=True, login_role=True)
            runs.append(time.perf_counter() - started)
        out["pg_restore, one transaction (tabane restore)"] = statistics.median(runs)
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            backup._empty(store.owner)
            name = backup._dbname(store.owner)
            load = ["pg_restore", "--no-owner", "--jobs=2", "--dbname", name]
            backup._client(store.owner, [*load, str(files["directory"])])
            store.owner.dispose()
            with store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text("ANALYZE"))
            runs.append(time.perf_counter() - started)
        out["pg_restore -j 2 of -Fd"] = statistics.median(runs)
    finally:
        store.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=Path("/usr/share/doc/python3.11/html"))
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    env = _env.describe()
    result: dict[str, Any] = {"env": env}
    work = Path(tempfile.mkdtemp(prefix="tabane-bench-backup-"))
    with fresh_store("backup", UseEmbedder(), local_user="bench") as svc:
        user = svc.local_user()
        svc.create_context(user, "docs")
        for _, path in select_files(args.corpus)[: args.files]:
            svc.ingest_paths(user, "docs", [path])
        svc.wait_for_jobs()
        with svc.store.owner.connect() as conn:
            result["paragraphs"] = conn.scalar(text("SELECT count(*) FROM paragraphs"))
            result["vectors"] = conn.scalar(text("SELECT count(*) FROM paragraph_vectors"))
            result["database_bytes"] = conn.scalar(
                select(func.pg_database_size(func.current_database()))
            )
        outs = {name: work / f"m{i}" for i, name in enumerate(methods(svc.store.owner))}
        result["backup"] = {
            name: timed(run, outs[name], args.repeat)
            for name, run in methods(svc.store.owner).items()
        }
        files = {
            "custom": outs[TABANE],
            "directory": outs["pg_dump -Fd -j 2"],
        }
        result["restore_seconds"] = restores(files, args.repeat)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=2), file=sys.stderr)
    print(report(result))


def report(result: dict[str, Any]) -> str:
    base = result["backup"][BASELINE]
    lines = [
        _env.header(result["env"]),
        "",
        f"Store: {result['paragraphs']} paragraphs, {result['vectors']} vectors, database "
        f"{result['database_bytes'] / 2**20:.1f} MiB.",
        "",
        "| backup | seconds | × baseline | MiB | × baseline |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["backup"].items():
        if row is None:
            lines.append(f"| {name} | not in this build | | | |")
            continue
        lines.append(
            f"| {name} | {row['seconds']:.2f} | {row['seconds'] / base['seconds']:.2f} | "
            f"{row['bytes'] / 2**20:.1f} | {row['bytes'] / base['bytes']:.2f} |"
        )
    lines += ["", "| restore | seconds |", "|---|---|"]
    lines += [f"| {name} | {s:.2f} |" for name, s in result["restore_seconds"].items()]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
