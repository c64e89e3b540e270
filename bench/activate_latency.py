"""activate latency (limit 20) on a large synthetic graph in one context, beside baselines in the
same run.

The graph: `--edges` distinct (subject, label, object) edges over `--concepts` concepts and 20
labels, one world claim each (weight uniform in [0.1, 2], one in ten negative). Endpoints are
drawn skewed (index = N · u², so P(index < k) = √(k/N)): a few hubs with thousands of edges, a
long tail with a handful — the shape that makes hub normalization and ranked hub fetches matter.
Vocabulary, claims and associations are bulk-inserted (`storage.bulk.insert_columns`) under the
caller's RLS, not through the write path, so building 1M edges takes minutes, not an hour.

Measured per origin (a random concept that has edges), p50 and p95 over `--queries` origins:
  activate        `Tabane.activate(limit=20)`: the whole service call (session, RLS, origin
                  check, the walk, attributions of the edges used, usage counter)
  activate_kernel the walk alone (`graph.walk.activate`) inside an open session
  neighbours      baseline: one fetch of the origin's strongest 50 edges (`Graph.chunks`)
  query_any       baseline: `Tabane.query(any=origin, limit=20)` (with attributions)
  context_stats   `Tabane.get_context` (GET /contexts/{c}: stats include the graph's)

    .venv/bin/python bench/activate_latency.py --edges 1000000 --concepts 100000

`--home DIR` keeps the store in DIR (and reuses it when a previous run with the same sizes built
it there), so a change to the read path can be measured without rebuilding the graph.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _env
import numpy as np


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p * (len(xs) - 1)))]


def synthetic(n_edges: int, n_concepts: int, seed: int = 11) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    need = int(n_edges * 1.3) + 1000
    s = (n_concepts * rng.random(need) ** 2).astype(np.int64)
    o = (n_concepts * rng.random(need) ** 2).astype(np.int64)
    lab = rng.integers(0, 20, need)
    keep = s != o
    s, o, lab = s[keep], o[keep], lab[keep]
    key = (s * n_concepts + o) * 20 + lab
    _, first = np.unique(key, return_index=True)
    first = np.sort(first)[:n_edges]
    s, o, lab = s[first], o[first], lab[first]
    w = rng.uniform(0.1, 2.0, len(s)) * np.where(rng.random(len(s)) < 0.1, -1.0, 1.0)
    return s, o, lab, np.round(w, 3)


def build(
    svc: Any,
    user: Any,
    s: np.ndarray,
    o: np.ndarray,
    lab: np.ndarray,
    w: np.ndarray,
    names: list[str],
    labels: list[str],
    batch: int,
) -> None:
    """Create the context `bench` and bulk-insert the vocabulary, claims and associations."""
    from sqlalchemy import select

    from tabane.storage.bulk import insert_columns
    from tabane.storage.schema import Association, Claim, Context, VocabEntry
    from tabane.text.spelling import spelling_key
    from tabane.text.tokenize import normalize

    svc.create_context(user, "bench")
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == "bench"))
        assert ctx is not None
        scopes = list(ctx.scopes)
        const = {"context_id": ctx.id, "scopes": scopes}
        for kind, vocab in (("concept", names), ("label", labels)):
            insert_columns(
                session,
                VocabEntry.__table__,  # type: ignore[arg-type]
                {
                    "name": vocab,
                    "norm": [normalize(n) for n in vocab],
                    "key": [spelling_key(n) for n in vocab],
                },
                {**const, "kind": kind},
            )
    for i in range(0, len(s), batch):
        part = slice(i, i + batch)
        cols = {
            "subject": [names[k] for k in s[part]],
            "label": [labels[k] for k in lab[part]],
            "object": [names[k] for k in o[part]],
            "weight": [float(x) for x in w[part]],
        }
        with svc.store.session(user) as session:
            insert_columns(
                session,
                Claim.__table__,  # type: ignore[arg-type]
                cols,
                {**const, "author": user.name, "kind": "world", "perspective": ""},
            )
            insert_columns(
                session,
                Association.__table__,  # type: ignore[arg-type]
                cols,
                {**const, "perspective": "", "claims": 1},
            )
        print(f"loaded {min(i + batch, len(s))} edges", file=sys.stderr)


def dump(result: Any) -> Any:
    """An activate result as plain data (everything but the statement count)."""
    import dataclasses

    doc = dataclasses.asdict(result)
    doc.pop("statements")
    return doc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--concepts", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--batch", type=int, default=200_000)
    ap.add_argument("--json")
    ap.add_argument("--home", help="keep the store here; reuse it when already built")
    ap.add_argument("--dump", help="write every activate result here (to compare two versions)")
    args = ap.parse_args()

    from sqlalchemy import select, text

    from tabane.config import Settings
    from tabane.graph.walk import walk
    from tabane.graph.walk.fetch import Graph
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context

    info = _env.describe()
    s, o, lab, w = synthetic(args.edges, args.concepts)
    names = [f"c{i}" for i in range(args.concepts)]
    labels = [f"rel{i}" for i in range(20)]
    keep = args.home is not None
    home = Path(args.home) if keep else Path(tempfile.mkdtemp(prefix="tabane-bench-activate-"))
    marker = home / f"built-{args.edges}-{args.concepts}"
    reuse = marker.exists()
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    try:
        user = svc.local_user()
        t0 = time.perf_counter()
        if not reuse:
            build(svc, user, s, o, lab, w, names, labels, args.batch)
            marker.write_text("built\n")
        load_s = time.perf_counter() - t0
        if not reuse:
            with svc.store.owner.connect() as conn:
                conn.execute(text("ANALYZE"))
                conn.commit()

        rng = np.random.default_rng(3)
        touched = np.unique(np.concatenate([s, o]))
        origins = [names[k] for k in rng.choice(touched, args.queries, replace=False)]
        times: dict[str, list[float]] = {
            k: [] for k in ("activate", "activate_kernel", "neighbours", "query_any")
        }
        times["context_stats"] = []
        expanded: list[int] = []
        statements: list[int] = []
        dumped: list[Any] = []
        svc.activate(user, "bench", origins[0])  # warm the connection pool and caches
        for origin in origins:
            t = time.perf_counter()
            result = svc.activate(user, "bench", origin, limit=20)
            times["activate"].append(time.perf_counter() - t)
            expanded.append(result.expanded)
            if args.dump:
                dumped.append(dump(result))
            statements.append(result.statements)
            with svc.store.session(user) as session:
                ctx = session.scalar(select(Context).where(Context.name == "bench"))
                assert ctx is not None
                t = time.perf_counter()
                walk.activate(Graph(session, ctx), [origin], limit=20)
                times["activate_kernel"].append(time.perf_counter() - t)
                t = time.perf_counter()
                Graph(session, ctx).chunks([origin], 0, walk.CHUNK)
                times["neighbours"].append(time.perf_counter() - t)
            t = time.perf_counter()
            svc.query(user, contexts=["bench"], any=origin, limit=20)
            times["query_any"].append(time.perf_counter() - t)
        for _ in range(min(10, args.queries)):
            t = time.perf_counter()
            stats = svc.get_context(user, "bench").stats
            times["context_stats"].append(time.perf_counter() - t)
    finally:
        svc.close()
        embedded.stop(home)
        if not keep:
            shutil.rmtree(home, ignore_errors=True)

    rows = {
        k: {"p50_ms": pct(v, 0.5) * 1e3, "p95_ms": pct(v, 0.95) * 1e3} for k, v in times.items()
    }
    result_doc = {
        "env": info,
        "edges": len(s),
        "concepts": args.concepts,
        "queries": len(origins),
        "load_edges_per_s": None if reuse else len(s) / load_s,
        "latency": rows,
        "expanded_p50": pct([float(x) for x in expanded], 0.5),
        "statements_p50": pct([float(x) for x in statements], 0.5),
        "stats": {"associations": stats.associations, "top_concepts": list(stats.top_concepts)},
    }
    print(_env.header(info))
    print(f"\n{len(s)} edges, {args.concepts} concepts, {len(origins)} origins, limit 20\n")
    print("| read | p50 ms | p95 ms |\n|---|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |")
    loaded = "reused store" if reuse else f"load {result_doc['load_edges_per_s']:.0f} edges/s"
    print(
        f"\n{loaded}; per activate: "
        f"{result_doc['expanded_p50']:.0f} nodes expanded, "
        f"{result_doc['statements_p50']:.0f} statements (p50)"
    )
    if args.dump:
        Path(args.dump).write_text(json.dumps(dumped, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result_doc, indent=2))


if __name__ == "__main__":
    main()
