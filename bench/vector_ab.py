"""Vectors written through the embedding jobs, excluding the model: this tree against an older
commit (`--old`, checked out beside it with `git worktree`), alternating rounds in the same run;
each round is a fresh process (PYTHONPATH set to its tree's `src/`) with a fresh store.

The embedder is million.py's cached projection (512-d, computed before any timing), so a job's
time is the write of its vectors and the HNSW index's work. Two workloads a round:
  bulk   `--paragraphs` paragraphs ingested (1,000 a source, untimed), then the embedding jobs
         timed to the end (`wait_for_jobs`), the index built again included where the tree
         sets it aside (storage/hnsw.py);
  add    then `--add` more paragraphs into the same store (a small share: the index is kept)
         and their jobs timed the same way.
A search of the vector lane after each is checked against an exact scan (recall@10).

    .venv/bin/python bench/vector_ab.py --old main --paragraphs 20000 --add 1000 --rounds 2
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
from typing import Any

import _env

BENCH = Path(__file__).resolve().parent


def child(n: int, add: int) -> None:
    """One round: prints {"bulk": vectors/s, "add": vectors/s, ...}."""
    from million import CachedEmbedder, texts_of, time_builds

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane
    from tabane.storage import embedded

    built = time_builds()
    texts, base = texts_of(n + add)
    emb = CachedEmbedder(base)
    home = Path(tempfile.mkdtemp(prefix="tabane-vector-ab-"))
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"), embedder=emb)
    out: dict[str, Any] = {}
    try:
        user = svc.local_user()
        svc.create_context(user, "bench")
        for part, lo, hi in (("bulk", 0, n), ("add", n, n + add)):
            for i in range(lo, hi, 1000):
                chunk = [block(t) for t in texts[i : min(hi, i + 1000)]]
                svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
            svc.wait_for_jobs(timeout=86_400, only={"merge_bm25"})
            t0, built[0] = time.perf_counter(), 0.0
            svc.wait_for_jobs(timeout=86_400, only={"embed_source"})
            took = time.perf_counter() - t0
            out[part] = (hi - lo) / took
            out[f"{part}_written"] = (hi - lo) / (took - built[0])  # searchable, exactly
            out[f"{part}_build_s"] = built[0]
            out[f"{part}_recall"] = recall(svc, emb, texts[lo:hi:97][:20])
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out))


def recall(svc: Any, emb: Any, probes: list[str]) -> float:
    """The vector lane's top 10 against an exact scan (no index), over `probes` as queries."""
    from sqlalchemy import text

    from tabane.contexts import contexts
    from tabane.search import vectors

    hits: list[float] = []
    with svc.store.session(svc.local_user()) as session:
        ctx = contexts.resolve(session, "bench")
        for q in probes:
            qv = emb.embed_documents([q])[0]
            ann = vectors.lane(session, ctx.id, qv, emb.name, emb.dim, pool=10, floor=None)
            session.execute(text("SET LOCAL enable_indexscan = off"))
            exact = vectors.lane(session, ctx.id, qv, emb.name, emb.dim, pool=10, floor=None)
            session.execute(text("SET LOCAL enable_indexscan = on"))
            got = {h.paragraph_id for h in ann}
            hits.append(len(got & {h.paragraph_id for h in exact}) / max(1, len(exact)))
    return round(sum(hits) / len(hits), 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main", help="the commit to compare against")
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--add", type=int, default=1_000)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of each tree, alternating")
    ap.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    info = _env.describe()
    tmp = Path(tempfile.mkdtemp(prefix="tabane-bench-vector-ab-"))
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
                    [sys.executable, __file__, "--child", str(args.paragraphs), str(args.add)],
                    env={**os.environ, "PYTHONPATH": path},
                    capture_output=True, text=True, check=True,
                )  # fmt: skip
                got = json.loads(done.stdout.strip().splitlines()[-1])
                runs[variant].append(got)
                print(
                    variant, {k: round(v, 3) for k, v in got.items()}, file=sys.stderr, flush=True
                )
                loads.append(os.getloadavg()[0])
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=_env.REPO,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(tmp, ignore_errors=True)
    print(_env.header(info))
    print(f"\nold = {args.old}, new = this tree; {args.rounds} rounds each, alternating; "
          f"load {min(loads):.1f}–{max(loads):.1f}\n")  # fmt: skip
    print("| vectors/s (median), recall@10 | old | new | new / old |\n|---|---:|---:|---:|")
    for key, label in (
        ("bulk", f"{args.paragraphs:,} vectors into an empty store, until indexed"),
        ("bulk_written", "… until written (searchable by exact scan), the build excluded"),
        ("add", f"then {args.add:,} more (the index kept)"),
    ):
        old = statistics.median(r[key] for r in runs["old"])
        new = statistics.median(r[key] for r in runs["new"])
        part = key.split("_")[0]
        rec = [statistics.median(r[f"{part}_recall"] for r in runs[v]) for v in ("old", "new")]
        print(f"| {label} | {old:,.0f} ({rec[0]}) | {new:,.0f} ({rec[1]}) | {new / old:.2f}× |")


if __name__ == "__main__":
    main()
