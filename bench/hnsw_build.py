"""HNSW build parameters chosen by measurement: for each (m, ef_construction) and each build
setting (`maintenance_work_mem`, `max_parallel_maintenance_workers`), the time of
`CREATE INDEX CONCURRENTLY` over N real model vectors and the index's recall@10 at
`hnsw.ef_search` 40 (the lane's, search/vectors.py) against an exact scan.

The vectors are real default-model (USE, 512-d) vectors of real paragraphs and claims
(`--vectors`, an .npz with `vectors`, e.g. the one bench/recall_tail.py caches): shuffled with a
fixed seed, the first N go into a table shaped as `paragraph_vectors` is indexed (an untyped
`vector` column, the partial expression index of storage/hnsw.py), the next `--queries` are held
out as the queries (texts the index has not seen, as a question is). The exact top 10 is numpy's
(cosine over the same float32 vectors); an approximate hit whose cosine ties the exact 10th
within 1e-6 counts (as bench/hnsw_recall.py). Builds run one after the other in one server, the
configurations in the order given, repeated `--rounds` times alternating (the load moves).
Besides the wall time, the building backend's CPU seconds (/proc): on a shared machine the wall
time measures the neighbours too.

    .venv/bin/python bench/hnsw_build.py --vectors /tmp/bm/tail-vectors.npz --n 100000 \
        --configs 16,200 16,64 16,100 12,64 --memory 1024 --workers 0 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import _env
import numpy as np
from _store import fresh_store

TIE = 1e-6
DIM = 512


def load(conn: Any, vecs: np.ndarray) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE hb (id int PRIMARY KEY, dim int NOT NULL, embedding vector)")
        with cur.copy("COPY hb (id, dim, embedding) FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "int4", "vector"])
            for i, v in enumerate(vecs):
                copy.write_row((i, DIM, v))
        cur.execute("VACUUM ANALYZE hb")


def cpu_seconds(pid: int) -> float:
    """The user + system CPU seconds of process `pid` so far (Linux /proc): the build's own
    work, which the machine's load does not stretch as it does the wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def build(conn: Any, m: int, efc: int, memory_mb: int, workers: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the building backend: its parallel workers' not counted)"""
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        cur.execute("DROP INDEX IF EXISTS hb_hnsw")
        cur.execute(f"SET maintenance_work_mem = '{memory_mb}MB'")
        cur.execute(f"SET max_parallel_maintenance_workers = {workers}")
        t0, c0 = time.perf_counter(), cpu_seconds(pid)
        cur.execute(
            f"CREATE INDEX CONCURRENTLY hb_hnsw ON hb USING hnsw ((embedding::vector({DIM}))"
            f" vector_cosine_ops) WITH (m = {m}, ef_construction = {efc}) WHERE dim = {DIM}"
        )
        return time.perf_counter() - t0, cpu_seconds(pid) - c0


def recall(conn: Any, queries: np.ndarray, truth: list[tuple[set[int], float]], base: Any) -> float:
    hits = []
    with conn.cursor() as cur:
        cur.execute("SET hnsw.ef_search = 40")
        cur.execute("SET enable_seqscan = off")
        for q, (exact, tenth) in zip(queries, truth, strict=True):
            cur.execute(
                f"SELECT id FROM hb WHERE dim = {DIM}"
                f" ORDER BY embedding::vector({DIM}) <=> %s LIMIT 10",
                (q,),
            )
            got = [r[0] for r in cur.fetchall()]
            sims = base[got] @ q
            ok = [i in exact or s >= tenth - TIE for i, s in zip(got, sims, strict=True)]
            hits.append(sum(ok) / 10)
        cur.execute("RESET enable_seqscan")
    return float(np.mean(hits))


def exact(queries: np.ndarray, base: np.ndarray) -> list[tuple[set[int], float]]:
    """Per query: the exact top 10 ids and the 10th's cosine."""
    sims = queries @ base.T
    top = np.argsort(-sims, axis=1)[:, :10]
    return [(set(map(int, t)), float(s[t[-1]])) for t, s in zip(top, sims, strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vectors", default="/tmp/bm/tail-vectors.npz")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--questions",
        type=int,
        default=0,
        help="also this many dev-set questions (embedded with the default model) as queries",
    )
    ap.add_argument(
        "--configs",
        nargs="+",
        default=["16,200", "16,64", "16,100", "12,64"],
        help="m,ef_construction[,parallel maintenance workers] (the workers default to --workers)",
    )
    ap.add_argument("--memory", nargs="+", type=int, default=[1024], help="MiB")
    ap.add_argument("--workers", nargs="+", type=int, default=[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()

    raw = np.load(a.vectors)["vectors"].astype(np.float32)
    order = np.random.default_rng(42).permutation(len(raw))
    raw = raw[order[: a.n + a.queries]]
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    base, queries = raw[: a.n], raw[a.n :]
    truth = exact(queries, base)
    asked = np.zeros((0, DIM), dtype=np.float32)
    if a.questions:
        from hnsw_recall import questions

        from tabane.models.local import UseEmbedder

        model = UseEmbedder()
        asked = np.stack([model.embed_query(q) for _, q in questions()[: a.questions]])
        asked = (asked / np.linalg.norm(asked, axis=1, keepdims=True)).astype(np.float32)
    asked_truth = exact(asked, base)

    print(json.dumps(_env.describe(), sort_keys=True), file=sys.stderr)
    runs = []
    for c in a.configs:
        m, efc, *w = map(int, c.split(","))
        runs += [((m, efc), mem, wk) for mem in a.memory for wk in (w or a.workers)]
    results: dict[str, list[dict[str, float]]] = {}
    with fresh_store("hnsw-build") as svc:
        engine = svc.store.owner
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as sa:
            conn = sa.connection.driver_connection
            t0 = time.perf_counter()
            load(conn, base)
            print(f"loaded {a.n} vectors in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            for rnd in range(a.rounds):
                for (m, efc), mem, workers in runs:
                    key = f"m{m} efc{efc} mem{mem} w{workers}"
                    load_before = os.getloadavg()[0]
                    secs, cpu = build(conn, m, efc, mem, workers)
                    r = recall(conn, queries, truth, base)
                    rq = recall(conn, asked, asked_truth, base) if a.questions else float("nan")
                    row = {
                        "seconds": secs,
                        "per_s": a.n / secs,
                        "cpu_s": cpu,
                        "recall10": r,
                        "recall10_questions": rq,
                        "load": load_before,
                    }
                    results.setdefault(key, []).append(row)
                    print(
                        f"round {rnd} {key}: {secs:.1f} s ({a.n / secs:.0f}/s), CPU {cpu:.1f} s"
                        f" ({a.n / cpu:.0f}/CPU-s) recall@10"
                        f" {r:.4f} (questions {rq:.4f}) load {load_before:.1f}",
                        file=sys.stderr,
                        flush=True,
                    )
    summary = {
        k: {
            "seconds": statistics.median(x["seconds"] for x in v),
            "per_s": statistics.median(x["per_s"] for x in v),
            "cpu_s": statistics.median(x["cpu_s"] for x in v),
            "recall10": statistics.median(x["recall10"] for x in v),
            "recall10_questions": statistics.median(x["recall10_questions"] for x in v),
            "loads": [round(x["load"], 1) for x in v],
        }
        for k, v in results.items()
    }
    out = {"n": a.n, "queries": a.queries, "env": _env.describe(), "results": summary}
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
