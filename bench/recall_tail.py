"""Recall's tail on a store where question-like paragraphs sit near the question: p50/p95/max of
recall's one statement as built now against the statement of a baseline commit (`--baseline`,
default `main`), alternating per question in the same run, plus EXPLAIN ANALYZE of the slowest
question under each and the end-to-end `Tabane.recall` of this tree.

Why this store: the vector lane scores a paragraph that asks ("…?") with its reply's vector
(`lanes.vector_lane`'s exchange). With synthetic vectors question-like paragraphs seldom come
near a question, so recall_latency.py never showed what that scoring costs; here they do.

- paragraphs: the python3.11 docs read with tabane's readers (each document one source, its real
  title); before the first paragraph of each section a FAQ-style question about the section is
  inserted ("How does <heading> work?", in that section, so the next paragraph is its reply).
  The documents are cycled until `--paragraphs` are stored, each copy's paragraphs prefixed with
  `[n] ` (copy n).
- vectors: the default model's (`UseEmbedder`) for each distinct text; a copy's vector is its
  original's plus a small deterministic perturbation (cosine ≈ 0.99 to it), so copies are near
  their originals without embedding the same text again and without exact ties in the index.
  Questions are the dev sets' questions, embedded by the model at run time.

- claims (`--claims N`, default none): recall_latency.py's world claims over the corpus's most
  frequent words (`--concepts`), written through `Tabane.add_claims`; their vectors are the
  model's too (each claim text embedded once).

`--home DIR` keeps the store and reuses it when a previous run built the same sizes. `--vectors
FILE` (.npz) keeps every model vector computed, keyed by a hash of its text, and serves them to
later builds (another home, a rebuilt store) without the model: a 100k + 50k build pays the model
once.

    .venv/bin/python bench/recall_tail.py --paragraphs 60000 --queries 60 --home /tmp/tail
    .venv/bin/python bench/recall_tail.py --paragraphs 100000 --claims 50000 --queries 60 \
        --home /tmp/tail-100k --vectors /tmp/tail-vectors.npz
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _env
import numpy as np
from search_latency import pct, questions

DOCS = Path("/usr/share/doc/python3.11/html")
COPY = re.compile(r"^\[(\d+)\] ")
PREPARED_AFTER = 5  # psycopg's prepare_threshold: runs of a statement before it is prepared
SAVE_EVERY = 5_000  # texts embedded between two writes of the vector cache
NOISE = 0.1  # the perturbation's norm against a unit vector: cosine ≈ 1 / sqrt(1 + 0.01)


class CopiesEmbedder:
    """`UseEmbedder` once per distinct text; a copy (`[n] text`) gets its original's vector
    plus a perturbation seeded by its whole text."""

    def __init__(self, saved: Path | None = None) -> None:
        from tabane.models.local import UseEmbedder

        self.model = UseEmbedder()
        self.name, self.dim = self.model.name, self.model.dim
        self.cache: dict[str, np.ndarray] = {}  # a hash of the text → its vector
        self.saved, self.embedded = saved, 0
        if saved is not None and saved.exists():
            with np.load(saved) as kept:
                self.cache = dict(zip(kept["keys"].tolist(), kept["vectors"], strict=True))

    def save(self) -> None:
        """Write the cache to `saved` (when given), beside-then-rename."""
        if self.saved is None or not self.cache:
            return
        keys = np.array(sorted(self.cache))
        part = self.saved.with_suffix(".part.npz")
        np.savez(part, keys=keys, vectors=np.stack([self.cache[k] for k in keys]))
        part.replace(self.saved)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        originals = [COPY.sub("", t, count=1) for t in texts]
        bases = [_key(t) for t in originals]
        todo = sorted(
            {(b, t) for b, t in zip(bases, originals, strict=True) if b not in self.cache}
        )
        if todo:
            vectors = self.model.embed_documents([t for _, t in todo])
            for (b, _), v in zip(todo, vectors, strict=True):
                self.cache[b] = v
            self.embedded += len(todo)
            if self.embedded // SAVE_EVERY > (self.embedded - len(todo)) // SAVE_EVERY:
                self.save()  # an interrupted build keeps what the model has done
        out = np.stack([self.cache[b] for b in bases]).astype(np.float32)
        for i, t in enumerate(texts):
            if COPY.match(t):
                seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "big")
                noise = np.random.default_rng(seed).standard_normal(self.dim)
                out[i] += (NOISE * noise / np.linalg.norm(noise)).astype(np.float32)
                out[i] /= np.linalg.norm(out[i])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.embed_query(text)


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def documents(limit: int) -> list[tuple[str, str, list[Any]]]:
    """(source id, title, blocks) of the python docs with a question before each section,
    cycled (copies prefixed `[n] `) until `limit` paragraphs."""
    from tabane.text.blocks import Block
    from tabane.text.documents import read_document

    base: list[tuple[str, str, list[Any]]] = []
    total = 0
    for path in sorted(DOCS.rglob("*.html")):
        if path.is_symlink() or {"_sources", "_static"} & set(path.parts):
            continue
        try:
            doc = read_document(path.read_bytes(), name=path.name)
        except Exception:
            continue
        blocks: list[Any] = []
        for b in doc.blocks:
            if b.section and (not blocks or blocks[-1].section != b.section) and b.kind == "text":
                blocks.append(Block(f"How does {b.section[-1]} work?", b.section))
            blocks.append(b)
        if blocks:
            base.append((str(path.relative_to(DOCS)), doc.title or path.stem, blocks))
            total += len(blocks)
        if total >= limit:
            break
    docs, n = list(base), 0
    while total < limit:
        n += 1
        for sid, title, blocks in base:
            copied = [Block(f"[{n}] {b.text}", b.section, b.locator, b.kind) for b in blocks]
            docs.append((f"copy{n}/{sid}", title, copied))
            total += len(copied)
            if total >= limit:
                break
    return docs


def build(svc: Any, user: Any, args: argparse.Namespace) -> dict[str, Any]:
    from sqlalchemy import text

    from tabane.graph.claims.parse import parse_claims
    from tabane.ingest.documents import DocumentInput

    docs = documents(args.paragraphs)
    svc.create_context(user, "bench")
    t0 = time.perf_counter()
    for sid, title, blocks in docs:
        svc.ingest(user, "bench", DocumentInput(source_id=sid, title=title, paragraphs=blocks))
    if args.claims:
        from recall_latency import claim_rows, concept_names

        rows = claim_rows(concept_names(docs, args.concepts), args.claims)
        for i in range(0, len(rows), 10_000):
            svc.add_claims(user, "bench", parse_claims(rows[i : i + 10_000]))
    ingest_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    svc.wait_for_jobs(
        timeout=7200, progress=lambda k: k % 50 or print(f"jobs left {k}", file=sys.stderr)
    )
    embed_s = time.perf_counter() - t0
    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    return {
        "sources": len(docs),
        "claims": args.claims,
        "ingest_s": round(ingest_s, 1),
        "embed_s": round(embed_s, 1),
    }


# ---------------------------------------------------------------------- the baseline's statement

BASELINE_MODULES = (
    "lanes/lanes",
    "lanes/memory",
    "lanes/catalog",
    "lanes/derived",
    "lanes/graph",
    "fusion",
    "seeds",
    "scale",
    "statement",
)


def baseline_builder(rev: str) -> Any:
    """`build_recall_statement` as commit `rev` had it: its recall/statement.py and the lanes it
    builds from, loaded from git as modules beside this tree's (the rest of tabane is shared)."""
    loaded: dict[str, types.ModuleType] = {}
    for name in BASELINE_MODULES:
        path = f"src/tabane/recall/{name}.py"
        name = name.rsplit("/", 1)[-1]  # the modules' short names are unique
        source = subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=_env.REPO, capture_output=True, text=True
        )
        if source.returncode:
            continue  # not in that commit: this tree's module stands in
        module = types.ModuleType(f"baseline_recall_{name}")
        sys.modules[module.__name__] = module
        exec(compile(source.stdout, f"{rev}:{path}", "exec"), module.__dict__)
        loaded[name] = module
    for module in loaded.values():  # point their imports of each other at the baseline's
        for attr, value in list(vars(module).items()):
            home = getattr(value, "__module__", None) or getattr(value, "__name__", "")
            short = str(home).rsplit(".", 1)[-1]
            if str(home).startswith("tabane.recall.") and short in loaded:
                target = loaded[short]
                own = getattr(value, "__name__", attr)  # imported under another name
                vars(module)[attr] = (
                    target if isinstance(value, types.ModuleType) else getattr(target, own)
                )
    return loaded["statement"].build_recall_statement


def backend_cpu(pid: int) -> float:
    """Seconds PostgreSQL backend `pid` has run on a CPU (/proc's schedstat, in ns): what a
    statement costs the server whatever the machine's load (wall time waits for a core)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return float("nan")


# ------------------------------------------------------------------------------- EXPLAIN ANALYZE


def explain(session: Any, stmt: Any, params: dict[str, Any]) -> dict[str, Any]:
    """EXPLAIN ANALYZE of `stmt` as SQLAlchemy compiled and bound it (captured from the cursor),
    in the session's transaction (recall's settings in force): its time and slowest nodes."""
    from sqlalchemy import event

    conn = session.connection()
    seen: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, sql: str, bound: Any, _ctx: Any, _m: Any) -> None:
        seen.append((sql, bound))

    event.listen(conn, "before_cursor_execute", capture)
    try:
        session.execute(stmt, params).all()
    finally:
        event.remove(conn, "before_cursor_execute", capture)
    sql, bound = seen[-1]
    with conn.connection.driver_connection.cursor() as cur:
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, bound)
        raw = cur.fetchone()[0]
    doc = raw if isinstance(raw, list) else json.loads(raw)
    nodes: list[tuple[float, str]] = []

    def walk(node: dict[str, Any]) -> None:
        kids = node.get("Plans", [])
        loops = node.get("Actual Loops", 1)
        own = node.get("Actual Total Time", 0.0) * loops - sum(
            k.get("Actual Total Time", 0.0) * k.get("Actual Loops", 1) for k in kids
        )
        what = " ".join(
            str(node.get(k) or "")
            for k in ("Node Type", "Relation Name", "Alias", "Index Name", "Subplan Name")
        )
        nodes.append((own, f"{' '.join(what.split())} (rows {node.get('Actual Rows')} × {loops})"))
        for k in kids:
            walk(k)

    walk(doc[0]["Plan"])
    nodes.sort(key=lambda n: -n[0])
    return {
        "execution_ms": doc[0]["Execution Time"],
        "slowest": [f"{ms:8.2f} ms  {what}" for ms, what in nodes[:6]],
    }


# ------------------------------------------------------------------------------------------ main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=60_000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--baseline", default="main", help="the commit whose statement is the baseline")
    ap.add_argument("--claims", type=int, default=0)
    ap.add_argument("--concepts", type=int, default=3000)
    ap.add_argument("--home", help="keep the store here; reuse it when already built")
    ap.add_argument("--vectors", type=Path, help="a .npz cache of the model's vectors")
    ap.add_argument("--vector-pool", type=int, help="this tree's vector pool (default Tunables')")
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import func, select

    from tabane.config import Settings
    from tabane.recall import gather
    from tabane.recall import statement as st
    from tabane.recall.plan import RecallRequest, Tunables
    from tabane.search.search import QueryVector
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context, Paragraph

    info = _env.describe()
    keep = args.home is not None
    home = Path(args.home) if keep else Path(tempfile.mkdtemp(prefix="tabane-bench-tail-"))
    home.mkdir(parents=True, exist_ok=True)
    sizes = f"-{args.claims}-{args.concepts}" if args.claims else ""
    marker = home / f"built-{args.paragraphs}{sizes}"
    emb = CopiesEmbedder(args.vectors)
    svc = Tabane.open(Settings(home=home, worker="off"), embedder=emb)
    result: dict[str, Any] = {"env": info, "reused_store": marker.exists()}
    old_build = baseline_builder(args.baseline)
    times: dict[str, list[float]] = collections.defaultdict(list)
    try:
        user = svc.local_user()
        if not marker.exists():
            result["build"] = build(svc, user, args)
            result["build"]["model_texts"] = emb.embedded  # texts the model embedded
            emb.save()
            marker.write_text("built\n")
        qs = questions(args.queries)
        qvecs = [emb.embed_query(q) for q in qs]
        t = Tunables() if args.vector_pool is None else Tunables(vector_pool=args.vector_pool)
        slowest: dict[str, tuple[float, int]] = {}
        differ = 0
        with svc.store.session(user) as session:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            asks = Paragraph.text.regexp_match("[?\uff1f][[:space:]]*$")
            result["paragraphs"] = session.scalar(select(func.count()).select_from(Paragraph))
            result["asking"] = session.scalar(select(func.count()).where(asks))
            shape, _ = gather.shape_for(
                "maximal", QueryVector(qvecs[0], emb.name, emb.dim, None), None
            )
            built = {"now": st.build_recall_statement(shape), "baseline": old_build(shape)}
            beside = svc.store.beside(user)
            pid = session.scalar(select(func.pg_backend_pid()))
            for i, qv in enumerate(qvecs):
                vq = QueryVector(qv, emb.name, emb.dim, None)
                params = gather.bind(qs[i], [ctx], [None], vq, None, t)
                params["paragraph_lanes"] = 2.0
                gather._settings(session)
                gather.bind_before(session, shape, [ctx], params, True, t, beside)
                if i == 0:  # warm both, untimed: psycopg prepares a statement on its 5th run
                    for _ in range(PREPARED_AFTER):
                        session.execute(built["baseline"], params).all()
                        gather.run_statement(session, shape, params)
                got: dict[str, list[tuple[Any, ...]]] = {}
                for which in ("now", "baseline") if i % 2 else ("baseline", "now"):
                    cpu, started = backend_cpu(pid), time.perf_counter()
                    if which == "now":  # as recall runs it: its vector read, then the statement
                        params.update(
                            gather.bind_vectors(session, [ctx], params, emb.dim, t.vector_pool)
                        )
                        rows = gather.run_statement(session, shape, params)
                    else:
                        rows = session.execute(built[which], params).all()
                    took = time.perf_counter() - started
                    times[f"statement, {which}, server CPU"].append(backend_cpu(pid) - cpu)
                    got[which] = [(r.kind, r.item_id, round(r.fused, 12)) for r in rows]
                    times[f"statement, {which}"].append(took)
                    if took > slowest.get(which, (0.0, 0))[0]:
                        slowest[which] = (took, i)
                differ += got["now"] != got["baseline"]  # the same evidence in the same order
            plans = {}
            for which, (_, i) in slowest.items():
                vq = QueryVector(qvecs[i], emb.name, emb.dim, None)
                params = gather.bind(qs[i], [ctx], [None], vq, None, t)
                params["paragraph_lanes"] = 2.0
                gather._settings(session)
                gather.bind_before(session, shape, [ctx], params, True, t, beside)
                plans[which] = {"question": i, **explain(session, built[which], params)}
            result["explain"] = plans
        svc.recall(user, RecallRequest(qs[0], contexts=("bench",), force=True))  # warm
        for q in qs:
            started = time.perf_counter()
            svc.recall(user, RecallRequest(q, contexts=("bench",), force=True))
            times["Tabane.recall, now"].append(time.perf_counter() - started)
    finally:
        svc.close()
        embedded.stop(home)
        if not keep:
            shutil.rmtree(home, ignore_errors=True)

    rows = {
        k: {"p50_ms": pct(v, 0.5) * 1e3, "p95_ms": pct(v, 0.95) * 1e3, "max_ms": max(v) * 1e3}
        for k, v in times.items()
    }
    now, old = rows["statement, now"], rows["statement, baseline"]
    cpu_now, cpu_old = rows["statement, now, server CPU"], rows["statement, baseline, server CPU"]
    result.update(
        queries=len(qs),
        latency=rows,
        ratio={k: old[k] / now[k] for k in ("p50_ms", "p95_ms", "max_ms")},
        cpu_ratio={k: cpu_old[k] / cpu_now[k] for k in ("p50_ms", "p95_ms", "max_ms")},
        questions_with_other_rows=differ,
    )
    print(_env.header(info))
    print(
        f"\nparagraphs {result['paragraphs']}, asking {result['asking']}, claims {args.claims}, "
        f"questions {len(qs)}"
    )
    if "build" in result:
        print(f"build: {result['build']}")
    print(f"baseline: {args.baseline}\n")
    print("| measured | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|")
    for k, v in rows.items():
        print(f"| {k} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} | {v['max_ms']:.1f} |")
    print(f"\nquestions whose rows differ from the baseline's: {differ} of {len(qs)}")
    r = result["ratio"]
    print(
        f"\nbaseline / now: p50 {r['p50_ms']:.2f}×, p95 {r['p95_ms']:.2f}×, max {r['max_ms']:.2f}×"
    )
    r = result["cpu_ratio"]
    print(
        f"server CPU, baseline / now: p50 {r['p50_ms']:.2f}×, p95 {r['p95_ms']:.2f}×, "
        f"max {r['max_ms']:.2f}×"
    )
    for which, plan in result["explain"].items():
        print(f"\nEXPLAIN ANALYZE, {which}, slowest question: {plan['execution_ms']:.1f} ms")
        print("\n".join(plan["slowest"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
