"""HNSW recall@10 and latency of the vector lane against an exact scan, per `hnsw.ef_search`, on
REAL default-model vectors.

`bench/search_latency.py` measures recall on synthetic vectors (a sparse random projection of term
counts), which have little cluster structure; real sentence embeddings are easier for a graph
index. This script measures, per context of a store and for each ef_search in `--ef`:

  recall@10   of the lane's top 10 against the exact top 10 (mean over queries; an approximate hit
              whose cosine ties the exact 10th within 1e-6 counts, as in ann-benchmarks)
  recall@pool the same over the whole pool the lane hands to fusion
  buffers     shared buffers (hit + read) the statement touches, mean over 10 queries (EXPLAIN
              ANALYZE): its work, independent of the machine's load
  p50 / p95   of the lane's statement (set_config + the ordered, limited scan), warm cache

each twice: as PostgreSQL plans it ("planner": with one HNSW index shared by every context, it may
prefer the context_id index and a sort, an exact scan, where the context is a small share of the
table and ef_search is high), and with the HNSW index scan forced ("hnsw": sorts, sequential and
bitmap scans disabled), which is the index's own recall.

The approximate statement is the vector lane's shape (search/vectors.py `lane`, and the recall
kernel's `nearest`): `hnsw.iterative_scan = relaxed_order`, WHERE context/model/width, ORDER BY
cosine distance, LIMIT 2·pool, best vector per paragraph, top `pool`. Only ef_search varies; the
script checks once that it returns what `vectors.lane` itself returns at the lane's own ef_search.
The exact scan is the same statement with `enable_indexscan = off` (a bitmap or sequential scan
and a sort: every vector is compared). For reference it also times the BM25 lane and the whole
hybrid kernel (`search.search`, with the lane's own ef_search) on the same queries.

Queries are the dev sets' questions (/work/shared/eval/dev/*.jsonl) embedded with the default
model (query embedding is not timed): a context's own set first, then the other sets' questions
until `--queries` (recall is also reported for the own-set questions alone).

With `--home` the store is only read: its migrations are not run and every transaction is READ
ONLY (settings are `SET LOCAL`). Without it a fresh store is built in a temporary directory from
the dev corpora (one context per corpus, `--paragraphs` in all) and embedded with the default
model (about 40 paragraphs/s on two cores, so keep `--paragraphs` small there).

    .venv/bin/python bench/hnsw_recall.py --home /tmp/tabane-eval --queries 100 [--json out.json]
    .venv/bin/python bench/hnsw_recall.py --paragraphs 3000 --queries 60
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _env
import numpy as np

SETS = Path("/work/shared/eval/dev")
CORPORA = {  # context name (the dev sets' `corpus`) → corpus root and file pattern
    "python3.11-doc": ("/usr/share/doc/python3.11/html", "*.html"),
    "git-doc": ("/usr/share/doc/git-doc", "*.html"),
    "manpages-ja": ("/usr/share/man/ja", "*.gz"),
}
EFS = (40, 64, 100, 128, 200, 400)
TIE = 1e-6


def questions() -> list[tuple[str, str]]:
    """(corpus, question) of every dev set, in file order."""
    out: list[tuple[str, str]] = []
    for f in sorted(SETS.glob("*.jsonl")):
        for line in f.open(encoding="utf-8"):
            if line.strip():
                row = json.loads(line)
                out.append((row["corpus"], row["question"]))
    return out


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p * (len(xs) - 1)))]


def statement(ctx_id: int, qvec: np.ndarray, model: str, dim: int, limit: int) -> Any:
    """The vector lane's SELECT (search/vectors.py), without the floor (no default floor)."""
    from pgvector.sqlalchemy import Vector
    from sqlalchemy import select

    from tabane.storage.schema import ParagraphVector

    distance = ParagraphVector.embedding.cast(Vector(dim)).cosine_distance(qvec)
    return (
        select(ParagraphVector.paragraph_id, ParagraphVector.ord, distance.label("d"))
        .where(
            ParagraphVector.context_id == ctx_id,
            ParagraphVector.model == model,
            ParagraphVector.dim == dim,
        )
        .order_by(distance)
        .limit(limit)
    )


def best_per_paragraph(rows: Any, pool: int) -> list[tuple[int, float]]:
    """(paragraph id, cosine) of the best vector per paragraph, best first, ties by id."""
    best: dict[int, float] = {}
    for pid, _ord, d in rows:
        sim = 1.0 - float(d)
        if pid not in best or sim > best[pid]:
            best[pid] = sim
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:pool]


def recall(approx: list[tuple[int, float]], exact: list[tuple[int, float]], k: int) -> float:
    truth = exact[:k]
    if not truth:
        return 1.0
    ids = {pid for pid, _ in truth}
    cutoff = truth[-1][1] - TIE
    found = sum(1 for pid, sim in approx[:k] if pid in ids or sim >= cutoff)
    return min(found, len(truth)) / len(truth)


BUFFER_QUERIES = 10  # queries whose shared-buffer accesses are counted (EXPLAIN ANALYZE)
MODES = ("planner", "hnsw")  # the plan PostgreSQL picks / the HNSW index scan, forced


@dataclass
class ContextResult:
    name: str
    vectors: int
    queries: int
    own_queries: int
    # keyed by (mode, ef_search)
    recall10: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    recall_pool: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    times: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    plans: dict[tuple[str, int], str] = field(default_factory=dict)
    buffers: dict[tuple[str, int], float] = field(default_factory=dict)
    exact_ms: list[float] = field(default_factory=list)
    bm25_ms: list[float] = field(default_factory=list)
    hybrid_ms: list[float] = field(default_factory=list)
    lane_check: str = ""
    lane_ef: int = 0
    reference_error: str = ""
    exact_plan: str = ""

    def row(self, mode: str, ef: int) -> dict[str, Any]:
        key = (mode, ef)
        own = self.recall10[key][: self.own_queries]
        return {
            "plan": self.plans[key],
            "buffers_per_query": self.buffers[key],
            "recall_at_10": statistics.mean(self.recall10[key]),
            "recall_at_10_own_set": statistics.mean(own) if own else float("nan"),
            "min_recall_at_10": min(self.recall10[key]),
            "recall_at_pool": statistics.mean(self.recall_pool[key]),
            "p50_ms": pct(self.times[key], 0.5) * 1e3,
            "p95_ms": pct(self.times[key], 0.95) * 1e3,
        }


def measure_context(
    store: Any,
    user: Any,
    ctx: Any,
    qs: list[tuple[str, np.ndarray]],
    own: int,
    efs: tuple[int, ...],
    pool: int,
) -> ContextResult:
    from sqlalchemy import func, select, text
    from sqlalchemy.exc import SQLAlchemyError

    from tabane.search import bm25, vectors
    from tabane.search import search as search_mod
    from tabane.search.plan import SearchRequest
    from tabane.text.tokenize import tokenize

    with store.session(user) as session:
        session.execute(text("SET TRANSACTION READ ONLY"))
        held = vectors.models(session, ctx.id)
        if len(held) != 1:
            raise SystemExit(f"{ctx.name}: expected one embedding model, found {held}")
        ((model, dim),) = held.items()
        count = statement(ctx.id, qs[0][1], model, dim, 1).with_only_columns(func.count())
        n_vectors = session.scalar(count.order_by(None).limit(None)) or 0
        res = ContextResult(ctx.name, n_vectors, len(qs), own)

        def lane_stmt(qv: np.ndarray) -> Any:
            return statement(ctx.id, qv, model, dim, 2 * pool)

        def settings(mode: str, ef: int) -> None:
            # "hnsw" takes every other plan's tools away (a sort above all), so the planner keeps
            # the HNSW index scan even where it judges a scan of the context cheaper.
            other = "off" if mode == "hnsw" else "on"
            session.execute(
                select(
                    func.set_config("hnsw.iterative_scan", "relaxed_order", True),
                    func.set_config("hnsw.ef_search", str(ef), True),
                    func.set_config("enable_sort", other, True),
                    func.set_config("enable_seqscan", other, True),
                    func.set_config("enable_bitmapscan", other, True),
                )
            )

        # Exact top lists first (they also warm the heap); the index scan is off only here.
        session.execute(text("SET LOCAL enable_indexscan = off"))
        res.exact_plan = scans(session, lane_stmt(qs[0][1]))
        exact: list[list[tuple[int, float]]] = []
        for _q, qv in qs:
            t = time.perf_counter()
            rows = session.execute(lane_stmt(qv)).all()
            res.exact_ms.append((time.perf_counter() - t) * 1e3)
            exact.append(best_per_paragraph(rows, pool))
        session.execute(text("SET LOCAL enable_indexscan = on"))

        # The replica matches the lane itself at the lane's own ef_search (which the lane sets
        # with SET LOCAL, so it is read back after the call).
        same, checked = 0, qs[:5]
        for _q, qv in checked:
            real = vectors.lane(session, ctx.id, qv, model, dim, pool=pool, floor=None)
            res.lane_ef = int(session.scalar(select(func.current_setting("hnsw.ef_search"))))
            settings("planner", res.lane_ef)
            mine = best_per_paragraph(session.execute(lane_stmt(qv)), pool)
            same += [h.paragraph_id for h in real] == [pid for pid, _ in mine]
        res.lane_check = f"{same}/{len(checked)} queries identical to vectors.lane"

        keys = [(mode, ef) for mode in MODES for ef in efs]
        for key in keys:  # the plan (it does not depend on the vector); buffers, as a warm-up
            settings(*key)
            res.plans[key] = scans(session, lane_stmt(qs[0][1]))
            res.buffers[key] = statistics.mean(
                buffers(session, lane_stmt(qv)) for _q, qv in qs[:BUFFER_QUERIES]
            )
            res.recall10[key], res.recall_pool[key], res.times[key] = [], [], []
        for i, (_q, qv) in enumerate(qs):
            shift = i % len(keys)
            for key in keys[shift:] + keys[:shift]:  # no setting always runs first
                t = time.perf_counter()
                settings(*key)
                approx = best_per_paragraph(session.execute(lane_stmt(qv)), pool)
                res.times[key].append(time.perf_counter() - t)
                res.recall10[key].append(recall(approx, exact[i], 10))
                res.recall_pool[key].append(recall(approx, exact[i], pool))
        settings("planner", res.lane_ef)

        # Reference: the BM25 lane and the whole hybrid kernel (lane's own ef_search), in a
        # savepoint: they need the store's schema to match the code under src/.
        try:
            with session.begin_nested():
                for q, qv in qs:
                    terms = bm25.unique_terms(tokenize(q))
                    t = time.perf_counter()
                    stats = bm25.statistics(session, ctx.id, terms)
                    bm25.lane(session, ctx.id, terms, stats, pool=pool)
                    res.bm25_ms.append((time.perf_counter() - t) * 1e3)
                    request = SearchRequest(q, contexts=(ctx.name,), limit=10)
                    vq = search_mod.QueryVector(qv, model, dim, None)
                    t = time.perf_counter()
                    search_mod.search(session, [ctx], request, vq, default_floor=None)
                    res.hybrid_ms.append((time.perf_counter() - t) * 1e3)
        except SQLAlchemyError as exc:
            res.bm25_ms, res.hybrid_ms = [], []
            res.reference_error = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        session.rollback()
    return res


def inline(stmt: Any) -> str:
    """The statement's SQL with its parameters inlined (for EXPLAIN, which takes no binds)."""
    from sqlalchemy.dialects import postgresql

    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    return str(stmt.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


def buffers(session: Any, stmt: Any) -> int:
    """Shared buffers (hit + read) the statement touches: its work, whatever the load."""
    from sqlalchemy import text

    explain = f"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) {inline(stmt)}"
    for (line,) in session.execute(text(explain)):
        if "Buffers: shared" in line:
            return sum(int(n) for n in re.findall(r"(?:hit|read)=(\d+)", line))
    return 0


def scans(session: Any, stmt: Any) -> str:
    """The scan nodes of the plan PostgreSQL picks for `stmt` under the current settings."""
    from sqlalchemy import text

    lines = [r[0].strip() for r in session.execute(text(f"EXPLAIN (COSTS OFF) {inline(stmt)}"))]
    nodes = [ln.removeprefix("->  ") for ln in lines if " Scan " in f" {ln} "]
    return " > ".join(n.split(" (")[0] for n in nodes)


def build_fresh(home: Path, total: int, user_name: str) -> None:
    """A store with the dev corpora, one context per corpus, embedded with the default model."""
    from sqlalchemy import text

    from tabane.config import Settings
    from tabane.ingest.documents import DocumentInput, block
    from tabane.service import Tabane
    from tabane.text.documents import read_document

    svc = Tabane.open(Settings(home=home, embedder="use", worker="off", local_user=user_name))
    try:
        user = svc.local_user()
        each = max(1, total // len(CORPORA))
        for name, (root, pattern) in CORPORA.items():
            svc.create_context(user, name)
            stored = 0
            for path in sorted(Path(root).rglob(pattern)):
                if stored >= each:
                    break
                if path.is_symlink() or "_sources" in path.parts or "_static" in path.parts:
                    continue
                try:
                    doc = read_document(path.read_bytes(), name=path.name)
                except Exception:  # unreadable pages are skipped, as the eval harness does
                    continue
                blocks = [block(b.text) for b in doc.blocks][: each - stored]
                if not blocks:
                    continue
                source_id = str(path.relative_to(root))
                svc.ingest(user, name, DocumentInput(source_id=source_id, paragraphs=blocks))
                stored += len(blocks)
            print(f"{name}: {stored} paragraphs", file=sys.stderr)
        t0 = time.perf_counter()
        left = svc.wait_for_jobs(timeout=7200)
        print(f"embedded in {time.perf_counter() - t0:.0f} s ({left} jobs left)", file=sys.stderr)
        with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
    finally:
        svc.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, help="an existing store (read only); default: build one")
    ap.add_argument("--paragraphs", type=int, default=3000, help="fresh store: paragraphs in all")
    ap.add_argument("--queries", type=int, default=100, help="queries per context")
    ap.add_argument("--ef", default=",".join(map(str, EFS)), help="ef_search values, commas")
    ap.add_argument("--pool", type=int, default=50)
    ap.add_argument("--user", help="whose contexts (default: TABANE_USER or the login name)")
    ap.add_argument("--contexts", default="", help="context names, commas (default: all)")
    ap.add_argument("--json")
    args = ap.parse_args()
    efs = tuple(sorted({int(x) for x in args.ef.split(",") if x.strip()}))
    info = _env.describe()

    from sqlalchemy import select

    from tabane.access import users
    from tabane.config import Settings
    from tabane.models.local import UseEmbedder
    from tabane.storage import embedded, migrate
    from tabane.storage.opening import open_store
    from tabane.storage.schema import Context

    fresh = args.home is None
    home = Path(tempfile.mkdtemp(prefix="tabane-bench-hnsw-")) if fresh else args.home
    user_name = args.user or Settings.from_env().local_user
    if fresh:
        build_fresh(home, args.paragraphs, user_name)
    settings = Settings(home=home, embedder="none", worker="off", local_user=user_name)
    store = open_store(settings, run_migrations=False)
    results: list[ContextResult] = []
    try:
        revision = migrate.current(store.owner)
        with store.admin() as session:
            session.execute(select(1))
            user = users.principal(session, settings.local_user)
        with store.session(user) as session:
            contexts = list(session.scalars(select(Context).order_by(Context.id)))
            session.expunge_all()
        wanted = {c for c in args.contexts.split(",") if c}
        contexts = [c for c in contexts if not wanted or c.name in wanted]
        embedder = UseEmbedder()
        all_qs = questions()
        texts = sorted({q for _, q in all_qs})
        vecs = {q: np.asarray(embedder.embed_query(q), dtype=np.float32) for q in texts}
        for ctx in contexts:
            own = [q for corpus, q in all_qs if corpus == ctx.name]
            other = [q for corpus, q in all_qs if corpus != ctx.name]
            chosen = (own + other)[: args.queries]
            qs = [(q, vecs[q]) for q in chosen]
            t0 = time.perf_counter()
            res = measure_context(store, user, ctx, qs, min(len(own), len(chosen)), efs, args.pool)
            print(f"{ctx.name}: measured in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            results.append(res)
    finally:
        store.close()
        if fresh:
            embedded.stop(home)
            shutil.rmtree(home, ignore_errors=True)

    report(info, revision, str(home), args.pool, efs, results, args.json)


def report(
    info: dict[str, str],
    revision: str | None,
    home: str,
    pool: int,
    efs: tuple[int, ...],
    results: list[ContextResult],
    out: str | None,
) -> None:
    print(_env.header(info))
    print(f"- store: {home} (schema {revision}), pool {pool}, LIMIT {2 * pool}\n")
    print(
        "| context (vectors, queries/own) | ef_search | planner's plan | recall@10 | buffers "
        "| p50 ms | p95 ms | HNSW forced: recall@10 | own set | min "
        f"| recall@{pool} | buffers | p50 ms | p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    payload: dict[str, Any] = {"env": info, "schema": revision, "pool": pool, "contexts": {}}
    for r in results:
        rows = {mode: {ef: r.row(mode, ef) for ef in efs} for mode in MODES}
        for ef in efs:
            p, h = rows["planner"][ef], rows["hnsw"][ef]
            plan = "hnsw" if "hnsw" in p["plan"] else p["plan"].split(" on ")[0]
            print(
                f"| {r.name} ({r.vectors}, {r.queries}/{r.own_queries}) | {ef} | {plan} "
                f"| {p['recall_at_10']:.3f} | {p['buffers_per_query']:.0f} "
                f"| {p['p50_ms']:.1f} | {p['p95_ms']:.1f} "
                f"| {h['recall_at_10']:.3f} | {h['recall_at_10_own_set']:.3f} "
                f"| {h['min_recall_at_10']:.1f} | {h['recall_at_pool']:.3f} "
                f"| {h['buffers_per_query']:.0f} | {h['p50_ms']:.1f} | {h['p95_ms']:.1f} |"
            )
        refs = {
            "exact_scan": r.exact_ms,
            "bm25_lane": r.bm25_ms,
            "hybrid_kernel_lane_ef": r.hybrid_ms,
        }
        ref_rows = {
            k: {"p50_ms": pct(v, 0.5), "p95_ms": pct(v, 0.95)} for k, v in refs.items() if v
        }
        payload["contexts"][r.name] = {
            "vectors": r.vectors,
            "queries": r.queries,
            "own_queries": r.own_queries,
            "by_mode_and_ef_search": rows,
            "reference": ref_rows,
            "reference_error": r.reference_error or None,
            "lane_check": r.lane_check,
            "lane_ef_search": r.lane_ef,
            "exact_plan": r.exact_plan,
        }
    print()
    for r in results:
        ref = payload["contexts"][r.name]["reference"]
        parts = [f"exact scan p50 {ref['exact_scan']['p50_ms']:.1f} ms ({r.exact_plan})"]
        if "hybrid_kernel_lane_ef" in ref:
            hybrid = ref["hybrid_kernel_lane_ef"]
            parts.append(f"BM25 lane p50 {ref['bm25_lane']['p50_ms']:.1f} ms")
            parts.append(
                f"hybrid kernel (lane's ef_search {r.lane_ef}) p50 {hybrid['p50_ms']:.1f} / "
                f"p95 {hybrid['p95_ms']:.1f} ms"
            )
        else:
            parts.append(f"BM25/hybrid not measured ({r.reference_error})")
        parts.append(r.lane_check + f" (its ef_search {r.lane_ef})")
        print(f"- {r.name}: " + "; ".join(parts))
    if out:
        Path(out).write_text(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()
