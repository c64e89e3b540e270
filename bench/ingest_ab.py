"""Ingest until lexically searchable, this tree against an older commit (`--old`, checked out
beside it with `git worktree`), alternating rounds in the same run; each round is a fresh process
(PYTHONPATH set to its tree's `src/`) writing into a fresh store. No embedder, no worker.

Two workloads a round:
  text   `--paragraphs` paragraphs of the dev corpora given as text (search_latency.py's),
         1,000 a source through `Tabane.ingest`;
  files  the HTML files of `--corpus` through `Tabane.ingest_paths` (what `tabane ingest DIR`
         runs): read, parsed and stored.

    .venv/bin/python bench/ingest_ab.py --old main --paragraphs 20000 --rounds 2
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

BENCH = Path(__file__).resolve().parent


def child(texts_file: str, corpus: str) -> None:
    """One round: prints {"text": paragraphs/s, "files": paragraphs/s, ...}."""
    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane
    from tabane.storage import embedded

    texts = json.loads(Path(texts_file).read_text())
    home = Path(tempfile.mkdtemp(prefix="tabane-ingest-ab-"))
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    out: dict[str, float] = {}
    try:
        user = svc.local_user()
        svc.create_context(user, "text")
        svc.create_context(user, "files")
        t0 = time.perf_counter()
        for i in range(0, len(texts), 1000):
            chunk = [block(t) for t in texts[i : i + 1000]]
            svc.ingest(user, "text", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        out["text"] = len(texts) / (time.perf_counter() - t0)
        files = sorted(Path(corpus).rglob("*.html"))
        t0 = time.perf_counter()
        report = svc.ingest_paths(user, "files", files)
        took = time.perf_counter() - t0
        out["files"] = report.paragraphs / took
        out["files_n"] = len(files)
        out["files_paragraphs"] = report.paragraphs
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main", help="the commit to compare against")
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--corpus", default="/usr/share/doc/git-doc")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of each tree, alternating")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    from search_latency import paragraphs

    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-bench-ingest-ab-"))
    texts_file = tmp / "texts.json"
    texts_file.write_text(json.dumps(paragraphs(args.paragraphs)))
    old_tree = tmp / "old"
    subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), args.old],
                   cwd=_env.REPO, check=True, capture_output=True)  # fmt: skip
    trees = {"old": old_tree / "src", "new": _env.REPO / "src"}
    runs: dict[str, list[dict[str, float]]] = {v: [] for v in trees}
    loads: list[float] = []
    try:
        for r in range(args.rounds):
            for variant in ("old", "new") if r % 2 == 0 else ("new", "old"):
                loads.append(os.getloadavg()[0])
                path = os.pathsep.join([str(trees[variant]), str(BENCH)])
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(texts_file), args.corpus],
                    env={**os.environ, "PYTHONPATH": path},
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(done.stdout.strip().splitlines()[-1])
                runs[variant].append(got)
                print(variant, got, file=sys.stderr, flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=_env.REPO,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)
    print(_env.header(info))
    first = runs["new"][0]
    print(f"\nold = {args.old}, new = this tree; {args.rounds} rounds each, alternating; "
          f"load {min(loads):.1f}–{max(loads):.1f}\n")  # fmt: skip
    print("| paragraphs/s (median) | old | new | new / old |\n|---|---:|---:|---:|")
    for key, label in (
        ("text", f"{args.paragraphs} paragraphs as text, 1,000 a source"),
        ("files", f"{first['files_n']:.0f} HTML files, {first['files_paragraphs']:.0f} paragraphs"),
    ):
        old = statistics.median(r[key] for r in runs["old"])
        new = statistics.median(r[key] for r in runs["new"])
        print(f"| {label} | {old:,.0f} | {new:,.0f} | {new / old:.2f}× |")


if __name__ == "__main__":
    main()
