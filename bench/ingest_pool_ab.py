"""The parsing pool's share of an HTML ingest: the same tree, `ingest_paths` of `--corpus` with the
pool (ingest/parsing.py `workers_for`) and without it (0 workers), alternating fresh processes and
stores. No embedder, no worker.

    .venv/bin/python bench/ingest_pool_ab.py --corpus /usr/share/doc/git-doc --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _env


def child(corpus: str, pooled: bool) -> None:
    from tabane.config import Settings
    from tabane.ingest import files as ingest_files
    from tabane.service import Tabane
    from tabane.storage import embedded

    workers = ingest_files.workers_for
    ingest_files.workers_for = lambda n: workers(n) if pooled else 0  # type: ignore[assignment]
    home = Path(tempfile.mkdtemp(prefix="tabane-pool-ab-"))
    home.chmod(0o755)
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    try:
        user = svc.local_user()
        svc.create_context(user, "files")
        paths = sorted(Path(corpus).rglob("*.html"))
        t0 = time.perf_counter()
        report = svc.ingest_paths(user, "files", paths)
        took = time.perf_counter() - t0
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps({"rate": report.paragraphs / took, "workers": workers(len(paths))}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/usr/share/doc/git-doc")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", choices=("pool", "serial"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.corpus, args.child == "pool")
        return
    info = _env.describe()
    runs: dict[str, list[float]] = {"serial": [], "pool": []}
    loads, workers = [], 0
    for r in range(args.rounds):
        for variant in ("serial", "pool") if r % 2 == 0 else ("pool", "serial"):
            loads.append(os.getloadavg()[0])
            done = subprocess.run(
                [sys.executable, __file__, "--corpus", args.corpus, "--child", variant],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            got = json.loads(done.stdout.strip().splitlines()[-1])
            runs[variant].append(got["rate"])
            workers = got["workers"]
            print(variant, got, file=sys.stderr, flush=True)
    print(_env.header(info))
    serial, pool = statistics.median(runs["serial"]), statistics.median(runs["pool"])
    print(f"\n{args.corpus}: {args.rounds} rounds each, alternating; load "
          f"{min(loads):.1f}–{max(loads):.1f}; pool of {workers} workers\n")  # fmt: skip
    print("| paragraphs/s (median) | serial | pool | pool / serial |\n|---|---:|---:|---:|")
    print(f"| ingest_paths | {serial:,.0f} | {pool:,.0f} | {pool / serial:.2f}× |")


if __name__ == "__main__":
    main()
