"""A store of N paragraphs built and measured end to end (issue 31's 1M benchmark).

Paragraphs are real: the three dev corpora parsed by tabane's readers (search_latency.py's), and
past their end the same paragraphs again, each copy with a prefix (`[copy 2] …`) so every text,
content hash and BM25 pack is its own. They are ingested as text, 1,000 paragraphs a source,
through `Tabane.ingest` (the service path: one transaction a source).

Vectors are NOT the default model's (embedding 1M passages with it takes a day on two cores):
they are search_latency.py's random projection of term counts (512-d, similar paragraphs near
each other), computed once per distinct corpus paragraph before any timing and served from that
cache, so the embedding jobs' time is the write of the vectors and the HNSW index's insertion,
not a model's. Questions are the dev sets', embedded by the same projection.

Reported, with the load average: ingest until lexically searchable (paragraphs/s), the BM25
merge job, vectors written by the embedding jobs (vectors/s until written, and until indexed: a
bulk load builds the HNSW index after the jobs, storage/hnsw.py), the HNSW index
built again from scratch (REINDEX, vectors/s), store size, the server's memory (PSS summed over
its processes), `Tabane.search` and `Tabane.recall` p50/p95 over `--queries` dev questions, and
the vector lane's recall@10 against an exact scan.

    .venv/bin/python bench/million.py --paragraphs 100000 --queries 60
    .venv/bin/python bench/million.py --paragraphs 1000000 --queries 100 --home /tmp/million
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _env
import numpy as np
from search_latency import DIM, ProjectionEmbedder, paragraphs, pct, questions

# How many corpus paragraphs are read at most before they repeat with a prefix.
BASE = 150_000


class CachedEmbedder(ProjectionEmbedder):
    """The projection, looked up for texts seen before (a copy's prefix stripped)."""

    name = "bench-projection-512"

    def __init__(self, base: list[str]) -> None:
        super().__init__()
        vecs = ProjectionEmbedder.embed_documents(self, base)
        self.cache = {text: vecs[i] for i, text in enumerate(base)}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            key = text.split("] ", 1)[1] if text.startswith("[copy ") else text
            hit = self.cache.get(key)
            out[i] = hit if hit is not None else self._vec(text)
        return out


def texts_of(n: int) -> tuple[list[str], list[str]]:
    """(the N texts, the distinct corpus paragraphs they repeat)."""
    base = paragraphs(min(n, BASE))
    base = list(dict.fromkeys(base))  # the corpora repeat some paragraphs: their first copy
    out = list(base[:n])
    copy = 2
    while len(out) < n:
        out.extend(f"[copy {copy}] {t}" for t in base[: n - len(out)])
        copy += 1
    return out, base


def server_memory(home: Path) -> dict[str, float]:
    """The embedded server's processes: PSS summed (shared buffers counted once) and the
    largest RSS, MiB."""
    pid_file = next(home.rglob("postmaster.pid"))
    root = int(pid_file.read_text().split()[0])
    pids = [root] + [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and _parent(int(p.name)) == root
    ]
    pss, rss = 0, 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
                if line.startswith("Rss:"):
                    rss = max(rss, int(line.split()[1]))
        except OSError:
            continue
    return {"pss_mib": pss / 1024, "largest_rss_mib": rss / 1024, "processes": len(pids)}


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def time_builds() -> list[float]:
    """Seconds spent building the index again (storage/hnsw.py `rebuild`; none in a tree
    without it), summed into the list's one item."""
    built = [0.0]
    try:
        from tabane.storage import hnsw
    except ImportError:
        return built
    rebuild = hnsw.rebuild

    def timed(owner: Any, *args: Any) -> list[int]:
        t0 = time.perf_counter()
        try:
            return rebuild(owner, *args)
        finally:
            built[0] += time.perf_counter() - t0

    hnsw.rebuild = timed  # type: ignore[assignment]
    return built


def build(svc: Any, user: Any, texts: list[str], out: dict[str, Any]) -> None:
    from tabane.ingest.documents import DocumentInput, block

    svc.create_context(user, "bench")
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    for i in range(0, len(texts), 1000):
        chunk = [block(t) for t in texts[i : i + 1000]]
        svc.ingest(user, "bench", DocumentInput(source_id=f"s{i}", paragraphs=chunk))
        if i and i % 100_000 == 0:
            rate = i / (time.perf_counter() - t0)
            print(f"  ingested {i}: {rate:.0f}/s", file=sys.stderr, flush=True)
    took = time.perf_counter() - t0
    out["ingest"] = {
        "paragraphs_per_s": round(len(texts) / took),
        "seconds": round(took, 1),
        "load": [round(load0, 1), round(os.getloadavg()[0], 1)],
    }
    t0 = time.perf_counter()
    svc.wait_for_jobs(timeout=86_400, only={"merge_bm25"})
    out["merge_bm25_s"] = round(time.perf_counter() - t0, 1)
    built = time_builds()
    t0 = time.perf_counter()
    svc.wait_for_jobs(timeout=86_400, only={"embed_source"})
    took = time.perf_counter() - t0
    out["vectors"] = {
        "indexed_per_s": round(len(texts) / took),  # until the jobs and the index are done
        "written_per_s": round(len(texts) / (took - built[0])),  # searchable by exact scan
        "index_build_s": round(built[0], 1),  # a bulk load's build after the jobs (hnsw.py)
        "seconds": round(took, 1),
        "load": round(os.getloadavg()[0], 1),
    }


def reindex(svc: Any, n: int, out: dict[str, Any]) -> None:
    from sqlalchemy import text

    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        t0 = time.perf_counter()
        conn.execute(text(f"REINDEX INDEX ix_paragraph_vectors_hnsw_{DIM}"))
        took = time.perf_counter() - t0
        out["hnsw_rebuild"] = {"seconds": round(took, 1), "vectors_per_s": round(n / took)}
        t0 = time.perf_counter()
        conn.execute(text("VACUUM ANALYZE"))
        out["vacuum_analyze_s"] = round(time.perf_counter() - t0, 1)
        out["store_mib"] = round(
            conn.execute(text("SELECT pg_database_size(current_database())")).scalar() / 2**20
        )


def latency(svc: Any, user: Any, emb: Any, qs: list[str], out: dict[str, Any]) -> None:
    from sqlalchemy import select, text

    from tabane.recall.plan import RecallRequest
    from tabane.search import vectors
    from tabane.search.plan import SearchRequest
    from tabane.storage.schema import Context

    runs: dict[str, list[float]] = {"search": [], "recall": []}
    svc.search(user, SearchRequest(qs[0], contexts=("bench",), limit=10))  # warm
    svc.recall(user, RecallRequest(qs[0], contexts=("bench",), force=True))
    for q in qs:
        t0 = time.perf_counter()
        svc.search(user, SearchRequest(q, contexts=("bench",), limit=10))
        runs["search"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        svc.recall(user, RecallRequest(q, contexts=("bench",), force=True))
        runs["recall"].append(time.perf_counter() - t0)
    for name, xs in runs.items():
        out[name] = {
            "p50_ms": round(pct(xs, 0.5) * 1e3, 1),
            "p95_ms": round(pct(xs, 0.95) * 1e3, 1),
        }
    hits = []
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context).where(Context.name == "bench"))
        for q in qs[:20]:
            qv = emb.embed_query(q)
            ann = vectors.lane(session, ctx.id, qv, emb.name, DIM, pool=10, floor=None)
            session.execute(text("SET LOCAL enable_indexscan = off"))
            exact = vectors.lane(session, ctx.id, qv, emb.name, DIM, pool=10, floor=None)
            session.execute(text("SET LOCAL enable_indexscan = on"))
            want = {h.paragraph_id for h in exact}
            hits.append(len(want & {h.paragraph_id for h in ann}) / max(1, len(want)))
    out["vector_recall_at_10"] = round(float(np.mean(hits)), 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--home", help="build the store here and keep it")
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane
    from tabane.storage import embedded

    info = _env.describe()
    texts, base = texts_of(args.paragraphs)
    qs = questions(args.queries)
    t0 = time.perf_counter()
    emb = CachedEmbedder(base)
    out: dict[str, Any] = {"paragraphs": len(texts), "distinct": len(base)}
    out["vector_cache_s"] = round(time.perf_counter() - t0, 1)
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="tabane-million-"))
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"), embedder=emb)
    try:
        user = svc.local_user()
        build(svc, user, texts, out)
        reindex(svc, len(texts), out)
        out["server_memory"] = server_memory(home)
        latency(svc, user, emb, qs, out)
        out["server_memory_after_queries"] = server_memory(home)
    finally:
        svc.close()
        embedded.stop(home)
        if not args.home:
            shutil.rmtree(home, ignore_errors=True)
    print(_env.header(info))
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"env": info, **out}, indent=1))


if __name__ == "__main__":
    main()
