"""The fixed cost of one `Tabane.search`: wall time and the statements it sends, this tree
against an older commit (`--old`, checked out beside it with `git worktree`), alternating rounds
over the same store in the same run; each round is a fresh process with PYTHONPATH set to its
tree's `src/`.

The store: one context `bench` of `--paragraphs` python-docs paragraphs (search_latency.py's),
vectors from search_latency's random projection (the fixed cost does not depend on the model;
the query is embedded by the same projection, well under a millisecond). Each round runs every
question once untimed, then `--queries` timed searches (limit 10, both lanes, the BM25 lane on
its second connection as served); statements are counted with SQLAlchemy's
`before_cursor_execute` on both engines (the BM25 packs are read through the driver's cursor and
are counted by their transaction's opening statement only).

    .venv/bin/python bench/search_overhead.py --old main --paragraphs 20000 --rounds 4
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


def build(home: Path, paragraphs: int) -> None:
    """The store, in this tree's code (the old tree opens it as it is)."""
    from search_latency import ProjectionEmbedder
    from search_latency import paragraphs as texts_of

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane

    settings = Settings(home=home, embedder="none", worker="off")
    svc = Tabane.open(settings, embedder=ProjectionEmbedder())
    try:
        user = svc.local_user()
        svc.create_context(user, "bench")
        texts = texts_of(paragraphs)
        for i in range(0, len(texts), 1000):
            chunk = [block(t) for t in texts[i : i + 1000]]
            svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        svc.wait_for_jobs(timeout=7200)
    finally:
        svc.close()


def child(home: str, queries: int) -> None:
    """One round: prints {"ms": [...], "statements": [...]} (per timed search)."""
    from search_latency import ProjectionEmbedder, questions
    from sqlalchemy import event

    from tabane.config import Settings
    from tabane.search.plan import SearchRequest
    from tabane.service import Tabane

    svc = Tabane.open(Settings(home=Path(home), embedder="none", worker="off"),
                      embedder=ProjectionEmbedder())  # fmt: skip
    sent: list[str] = []
    for engine in (svc.store.app, svc.store.owner):
        event.listen(engine, "before_cursor_execute", lambda *a: sent.append(a[2]))
    try:
        user = svc.local_user()
        qs = questions(queries)
        for q in qs:  # untimed: plans, caches, the pool's connections
            svc.search(user, SearchRequest(q, contexts=("bench",), limit=10))
        ms, counts = [], []
        for q in qs:
            sent.clear()
            started = time.perf_counter()
            svc.search(user, SearchRequest(q, contexts=("bench",), limit=10))
            ms.append((time.perf_counter() - started) * 1e3)
            counts.append(len(sent))
    finally:
        svc.close()
    print(json.dumps({"ms": ms, "statements": counts}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main", help="the commit to compare against")
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=4, help="rounds of each tree, alternating")
    ap.add_argument("--home", help="keep the store here; reuse it when already built")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.queries)
        return
    from tabane.storage import embedded

    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-bench-overhead-"))
    home = Path(args.home) if args.home else tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    marker = home / f"built-{args.paragraphs}"
    if not marker.exists():
        build(home, args.paragraphs)
        marker.write_text("built\n")
    old_tree = tmp / "old"
    subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), args.old],
                   cwd=_env.REPO, check=True, capture_output=True)  # fmt: skip
    trees = {"old": old_tree / "src", "new": _env.REPO / "src"}
    runs: dict[str, dict[str, list[float]]] = {v: {"ms": [], "statements": []} for v in trees}
    try:
        for r in range(args.rounds):
            for variant in ("old", "new") if r % 2 == 0 else ("new", "old"):
                path = os.pathsep.join([str(trees[variant]), str(BENCH)])
                out = subprocess.run(
                    [sys.executable, __file__, "--child", str(home), "--queries",
                     str(args.queries)],
                    env={**os.environ, "PYTHONPATH": path, "TABANE_RESIDENT_SECONDS": "0"},
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(out.stdout.strip().splitlines()[-1])
                for key in ("ms", "statements"):
                    runs[variant][key] += got[key]
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=_env.REPO,
                       capture_output=True)  # fmt: skip
        embedded.stop(home)
        if not args.home:
            shutil.rmtree(tmp, ignore_errors=True)

    def pct(xs: list[float], p: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, round(p * (len(xs) - 1)))]

    rows = {
        v: {
            "p50_ms": pct(r["ms"], 0.5),
            "p95_ms": pct(r["ms"], 0.95),
            "statements": statistics.median(r["statements"]),
        }
        for v, r in runs.items()
    }
    print(_env.header(info))
    print(f"\nold = {args.old}, new = this tree; {args.paragraphs} paragraphs, "
          f"{args.rounds} rounds × {args.queries} searches each\n")  # fmt: skip
    print("| Tabane.search | p50 ms | p95 ms | statements (median) |\n|---|---:|---:|---:|")
    for v, row in rows.items():
        print(f"| {v} | {row['p50_ms']:.2f} | {row['p95_ms']:.2f} | {row['statements']:.0f} |")
    ratio = rows["new"]["p50_ms"] / rows["old"]["p50_ms"]
    print(f"\nnew / old p50: {ratio:.2f}×")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"env": info, "old": args.old, "rows": rows, "runs": runs}, indent=1)
        )


if __name__ == "__main__":
    main()
