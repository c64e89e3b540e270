"""recall latency at ~100k paragraphs and ~50k claims: the one statement, the same lanes as
separate queries in the same run (the baseline), and the whole `Tabane.recall` with and without a
reranker; plus EXPLAIN ANALYZE of the statement (its slowest plan nodes).

The store (one context `bench`, one fresh embedded store):

- paragraphs: the real dev corpora (python3.11-doc, git-doc, manpages-ja) read document by
  document with tabane's readers (each document one source, with its real title), cycled until
  `--paragraphs` are stored; one source in 50 gets an area (half `active`, half `waiting`) so the
  catalog lane has projects. Vectors are search_latency.py's sparse random projection of the
  paragraph's terms (512-d, the default model's width), NOT the default model — embedding 100k
  passages with it takes about an hour on two cores; similar texts still land near each other.
- claims: `--claims` world claims written through `Tabane.add_claims` over `--concepts` concept
  names that are real words of the corpus (its most frequent words of 4+ letters and 2–4-character
  kanji/katakana runs); endpoints are skewed towards the frequent words (index = N·u²), so the
  words a question names are hubs with hundreds of edges. Claim (and gloss) vectors come from the
  same projection, through the normal embedding jobs.
- one chat session `chat` of the bench user with 30 turns (the turns lane).

`--home DIR` keeps the store there and reuses it when a previous run built the same sizes.

Measured per question (p50 and p95 over `--queries` dev-set questions, query embedding excluded
except in the two end-to-end rows):

  statement      recall's one statement (`build_recall_statement`, every lane of the `maximal`
                 plan, fused and joined for details) executed and fetched
  separate       baseline: each lane's Select (recall/lanes/lanes.py) as its own statement with the
  same bound
                 parameters, RRF over their rows in Python, then the detail joins as one more
                 statement — the same work as 8 round trips
  lane:<name>    each separate lane alone (which lane costs what)
  recall         `Tabane.recall(force=True)` with `NoReranker`: preset, embedding, the statement,
                 evidence, ordering, budget, rendering, the persisted trace
  recall, 4,000 characters
                 `Tabane.recall` (no reranker) on `--long` questions of the most characters a
                 question may have: dev questions joined in a fixed shuffled order
  recall+rerank  the same with the offline reranker when src/tabane/models has one
                 (`local_reranker`), else `HttpReranker` against the tests' loopback
                 server (tests/fakes/rerank_server.py)

    .venv/bin/python bench/recall_latency.py --paragraphs 100000 --claims 50000 --home /tmp/rl
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _env
import numpy as np
import recall_ab
from search_latency import CORPORA, ProjectionEmbedder, pct, questions

WORD = re.compile(r"[A-Za-z][A-Za-z_]{3,}|[\u4e00-\u9fff\u30a0-\u30ff]{2,4}")


class CachedProjection(ProjectionEmbedder):
    """search_latency's projection with each term's 16 (index, sign) pairs cached: same vectors."""

    def __init__(self, seed: int = 13) -> None:
        super().__init__(seed)
        self._terms: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _vec(self, text: str) -> np.ndarray:
        import hashlib

        from tabane.text.tokenize import tokenize

        out = np.zeros(self.dim, dtype=np.float32)
        for term in tokenize(text):
            hit = self._terms.get(term)
            if hit is None:
                digest = hashlib.blake2b(f"{self.seed}:{term}".encode(), digest_size=32).digest()
                idx = np.array(
                    [
                        int.from_bytes(digest[2 * i : 2 * i + 2], "little") % self.dim
                        for i in range(16)
                    ]
                )
                sign = np.array([1.0 if digest[i] & 1 else -1.0 for i in range(16)], np.float32)
                hit = self._terms[term] = (idx, sign)
            np.add.at(out, hit[0], hit[1])
        norm = np.linalg.norm(out)
        return out / norm if norm else np.ones(self.dim, dtype=np.float32) / np.sqrt(self.dim)


def documents(limit: int) -> list[tuple[str, str, list[Any]]]:
    """(source id, title, blocks) of the dev corpora, cycled until `limit` paragraphs."""
    from tabane.text.documents import read_document

    docs: list[tuple[str, str, list[Any]]] = []
    total = 0
    for root, pattern in CORPORA.items():
        for path in sorted(Path(root).rglob(pattern)):
            if path.is_symlink() or "_sources" in path.parts or "_static" in path.parts:
                continue
            try:
                doc = read_document(path.read_bytes(), name=path.name)
            except Exception:
                continue
            if not doc.blocks:
                continue
            blocks = list(doc.blocks[: limit - total])
            docs.append((str(path.relative_to(root)), doc.title or path.stem, blocks))
            total += len(blocks)
            if total >= limit:
                return docs
    base, cycle = list(docs), 1
    while total < limit:  # cycle when the corpora are smaller than asked
        for sid, title, blocks in base:
            blocks = blocks[: limit - total]
            docs.append((f"copy{cycle}/{sid}", title, blocks))
            total += len(blocks)
            if total >= limit:
                break
        cycle += 1
    return docs


def concept_names(docs: list[tuple[str, str, list[Any]]], n: int) -> list[str]:
    """The corpus's `n` most frequent words (4+ letters) and kanji/katakana runs, most first."""
    counts: collections.Counter[str] = collections.Counter()
    for _, _, blocks in docs[:3000]:
        for b in blocks:
            counts.update(w.lower() for w in WORD.findall(b.text))
    return [w for w, _ in counts.most_common(n)]


def claim_rows(names: list[str], n: int, seed: int = 7) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    labels = ["kind", "defined_in", "calls", "field", "returns", "purpose", "引き起こす", "所在地"]
    s = (len(names) * rng.random(n) ** 2).astype(int)
    o = (len(names) * rng.random(n) ** 2).astype(int)
    o = np.where(o == s, (o + 1) % len(names), o)
    lab = rng.integers(0, len(labels), n)
    w = np.round(rng.uniform(0.1, 1.0, n) * np.where(rng.random(n) < 0.1, -1, 1), 3)
    return [
        {"subject": names[a], "label": labels[b], "object": names[c], "weight": float(x)}
        for a, b, c, x in zip(s, lab, o, w, strict=True)
    ]


def build(svc: Any, user: Any, args: argparse.Namespace) -> dict[str, float]:
    from sqlalchemy import text

    from tabane.graph.claims.parse import parse_claims
    from tabane.ingest.documents import DocumentInput

    docs = documents(args.paragraphs)
    svc.create_context(user, "bench")
    t0 = time.perf_counter()
    for n, (sid, title, blocks) in enumerate(docs):
        area = (
            {"area": f"area{n % 7}", "state": ("active", "waiting")[n % 2]} if n % 50 == 0 else {}
        )
        svc.ingest(
            user, "bench", DocumentInput(source_id=sid, title=title, paragraphs=blocks, **area)
        )
    ingest_s = time.perf_counter() - t0
    rows = claim_rows(concept_names(docs, args.concepts), args.claims)
    t0 = time.perf_counter()
    for i in range(0, len(rows), 10_000):
        svc.add_claims(user, "bench", parse_claims(rows[i : i + 10_000]))
    claims_s = time.perf_counter() - t0
    for i in range(30):
        svc.add_turn(
            user, "chat", f"turn {i}: we were looking at how git rebase and python venv work"
        )
    t0 = time.perf_counter()
    svc.wait_for_jobs(timeout=7200, progress=lambda k: print(f"jobs {k}", file=sys.stderr))
    embed_s = time.perf_counter() - t0
    with svc.store.owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    return {
        "sources": len(docs),
        "ingest_paragraphs_per_s": args.paragraphs / ingest_s,
        "add_claims_per_s": args.claims / claims_s,
        "embed_jobs_s": embed_s,
    }


def counts(svc: Any, user: Any) -> dict[str, int]:
    from sqlalchemy import func, select

    from tabane.storage.schema import (
        Association,
        Claim,
        ClaimVector,
        Paragraph,
        ParagraphVector,
        Source,
        VocabEntry,
    )

    with svc.store.session(user) as session:
        return {
            t.__tablename__: int(session.scalar(select(func.count()).select_from(t)) or 0)
            for t in (
                Source,
                Paragraph,
                ParagraphVector,
                Claim,
                ClaimVector,
                Association,
                VocabEntry,
            )
        }


# ------------------------------------------------------------------- the baseline: N round trips


def detail_statement() -> Any:
    """The statement's detail joins over a given fused list (kinds, ids), as their own query,
    with the statement's reply lookup (a question replaced by the next paragraph or turn)."""
    from sqlalchemy import ARRAY, BigInteger, Text, and_, bindparam, case, func, select, true

    from tabane.recall.statement import _replies
    from tabane.storage.schema import Association, Claim, Paragraph, SessionTurn, Source

    fused = (
        func.unnest(
            bindparam("kinds", type_=ARRAY(Text)), bindparam("ids", type_=ARRAY(BigInteger))
        )
        .table_valued("kind", "item_id")
        .render_derived(name="fused")
    )
    reply_laterals, reply_columns = _replies(fused)
    source_pk = case(
        (fused.c.kind == "paragraph", Paragraph.source_pk),
        (fused.c.kind == "catalog", fused.c.item_id),
    )
    stmt = (
        select(
            fused.c.kind,
            fused.c.item_id,
            Paragraph.source_pk,
            Paragraph.idx,
            Paragraph.text,
            Paragraph.section_path,
            Paragraph.locator,
            Source.source_id,
            Source.title,
            Source.area,
            Source.state,
            Source.date,
            Source.stored_at,
            Claim.statement,
            Claim.subject,
            Claim.label,
            Claim.object,
            Claim.weight,
            Claim.author,
            Claim.kind,
            Claim.perspective,
            Claim.source,
            Claim.paragraph,
            Claim.valid_from,
            Claim.recorded_at,
            Association.subject,
            Association.label,
            Association.object,
            Association.perspective,
            SessionTurn.speaker,
            SessionTurn.role,
            SessionTurn.text,
            SessionTurn.seq,
            SessionTurn.at,
            func.coalesce(
                Paragraph.scopes,
                Claim.scopes,
                Association.scopes,
                SessionTurn.scopes,
                Source.scopes,
            ),
            *reply_columns,
        )
        .select_from(fused)
        .outerjoin(Paragraph, and_(fused.c.kind == "paragraph", Paragraph.id == fused.c.item_id))
        .outerjoin(Source, Source.id == source_pk)
        .outerjoin(Claim, and_(fused.c.kind == "claim", Claim.id == fused.c.item_id))
        .outerjoin(
            Association, and_(fused.c.kind == "association", Association.id == fused.c.item_id)
        )
        .outerjoin(SessionTurn, and_(fused.c.kind == "turn", SessionTurn.id == fused.c.item_id))
    )
    for lateral in reply_laterals:
        stmt = stmt.outerjoin(lateral, true())
    return stmt


def separate(
    session: Any,
    lanes: dict[str, Any],
    params: dict[str, Any],
    candidates: int,
    rrf_k: float,
    detail: Any,
    lane_times: dict[str, list[float]],
) -> int:
    """Each lane as its own statement, RRF in Python, then the details: rows returned."""
    fused: dict[tuple[str, int], list[float]] = {}
    for name, stmt in lanes.items():
        t = time.perf_counter()
        rows = session.execute(stmt, params).all()
        lane_times[f"lane:{name}"].append(time.perf_counter() - t)
        for r in rows:
            acc = fused.setdefault((r.kind, int(r.item_id)), [0.0, 1e9])
            acc[0] += 1.0 / (rrf_k + r.rank)
            acc[1] = min(acc[1], r.rank)
    top = sorted(fused.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))[:candidates]
    t = time.perf_counter()
    got = session.execute(
        detail,
        {
            "kinds": [k for (k, _), _ in top],
            "ids": [i for (_, i), _ in top],
            "replies": True,
            "turns_since": params["turns_since"],  # replies of turns stay in the window
        },
    ).all()
    lane_times["lane:details"].append(time.perf_counter() - t)
    return len(got)


# ------------------------------------------------------------------------------- EXPLAIN ANALYZE


def explain(session: Any, stmt: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan nodes of one execution, slowest first by exclusive time (ms, all loops)."""
    from sqlalchemy import event

    conn = session.connection()
    seen: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, statement: str, parameters: Any, _ctx: Any, _m: Any) -> None:
        seen.append((statement, parameters))

    event.listen(conn, "before_cursor_execute", capture)
    try:
        session.execute(stmt, params).all()  # as compiled and bound by SQLAlchemy
    finally:
        event.remove(conn, "before_cursor_execute", capture)
    sql, bound = seen[-1]
    with conn.connection.driver_connection.cursor() as cur:  # type: ignore[union-attr]
        cur.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, bound)
        raw = cur.fetchone()[0]
    doc = raw if isinstance(raw, list) else json.loads(raw)
    nodes: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        children = node.get("Plans", [])
        loops = node.get("Actual Loops", 1)
        own = node.get("Actual Total Time", 0.0) * loops - sum(
            c.get("Actual Total Time", 0.0) * c.get("Actual Loops", 1) for c in children
        )
        label = " ".join(
            str(x)
            for x in (
                node["Node Type"],
                node.get("Relation Name") or node.get("CTE Name") or "",
                node.get("Index Name") or "",
                f"[{node['Subplan Name']}]" if node.get("Subplan Name") else "",
                node.get("Alias") or "",
            )
            if x
        )
        nodes.append(
            {
                "node": label,
                "exclusive_ms": round(own, 2),
                "total_ms": round(node.get("Actual Total Time", 0.0) * loops, 2),
                "rows": node.get("Actual Rows"),
                "loops": loops,
                "path": path,
            }
        )
        for i, c in enumerate(children):
            walk(c, f"{path}.{i}")

    walk(doc[0]["Plan"], "0")
    nodes.sort(key=lambda n: -n["exclusive_ms"])
    return [
        {"planning_ms": doc[0].get("Planning Time"), "execution_ms": doc[0].get("Execution Time")},
        *nodes,
    ]


# ------------------------------------------------------------------------------------ rerankers


def offline_reranker() -> tuple[Any, str] | None:
    """The offline reranker of src/tabane/models when there is one (local_reranker.py)."""
    if importlib.util.find_spec("tabane.models.local_reranker") is None:
        return None
    import inspect

    module = importlib.import_module("tabane.models.local_reranker")
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ == module.__name__ and hasattr(cls, "rerank"):
            try:
                return cls(), f"{cls.__name__} (tabane.models.local_reranker)"
            except TypeError:
                continue
    return None


# ------------------------------------------------------------------------------------------ main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=100_000)
    ap.add_argument("--claims", type=int, default=50_000)
    ap.add_argument("--concepts", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--explain", type=int, default=3, help="EXPLAIN ANALYZE this many questions")
    ap.add_argument("--home", help="keep the store here; reuse it when already built")
    ap.add_argument(
        "--custom-plans", action="store_true", help="plan_cache_mode = force_custom_plan"
    )
    ap.add_argument("--no-recall", action="store_true", help="skip the end-to-end rows")
    ap.add_argument(
        "--long",
        type=int,
        default=0,
        help="also time Tabane.recall on this many questions of 4,000 characters (the most a "
        "question may have), each dev questions joined in a fixed shuffled order",
    )
    ap.add_argument(
        "--tunables",
        default="",
        help="field:value,... of recall's Tunables for the statement rows (an A/B: run twice)",
    )
    ap.add_argument("--json")
    args = ap.parse_args()

    from sqlalchemy import func, select

    from tabane.config import Settings
    from tabane.memory import sessions
    from tabane.models.http_reranker import HttpReranker
    from tabane.models.reranker import NoReranker
    from tabane.recall import gather
    from tabane.recall import statement as st
    from tabane.recall.plan import MAX_QUESTION, RecallRequest, Tunables
    from tabane.search.search import QueryVector
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from fakes.rerank_server import FakeRerankServer  # a test fake: tests/fakes/

    info = _env.describe()
    keep = args.home is not None
    home = Path(args.home) if keep else Path(tempfile.mkdtemp(prefix="tabane-bench-recall-"))
    home.mkdir(parents=True, exist_ok=True)
    marker = home / f"built-{args.paragraphs}-{args.claims}-{args.concepts}"
    reuse = marker.exists()
    emb = CachedProjection()
    settings = Settings(home=home, embedder="none", worker="off")
    svc = Tabane.open(settings, embedder=emb)
    server = FakeRerankServer(max_batch=64)
    server.__enter__()
    result: dict[str, Any] = {"env": info, "reused_store": reuse}
    try:
        user = svc.local_user()
        if not reuse:
            result["build"] = build(svc, user, args)
            marker.write_text("built\n")
        result["counts"] = counts(svc, user)
        print(json.dumps(result["counts"]), file=sys.stderr)
        qs = questions(args.queries)
        qvecs = [emb.embed_query(q) for q in qs]
        t = Tunables(**recall_ab.variant(f"t={args.tunables}")[1])
        names = ("statement", "separate", "recall", "recall+rerank", "recall, 4,000 characters")
        times: dict[str, list[float]] = collections.defaultdict(list)
        plans: list[Any] = []
        rows_per_q: list[int] = []
        with svc.store.session(user) as session:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            assert ctx is not None
            chat = sessions.find(session, user, "chat")
            window = gather.TurnWindow(chat.id, chat.name, settings.session_turns, None)
            qv0 = QueryVector(qvecs[0], emb.name, emb.dim, None)
            shape, _ = gather.shape_for("maximal", qv0, window)
            stmt = st.build_recall_statement(shape)
            beside = svc.store.beside(user)
            lanes = {name: st._lane(name, shape.dim) for name in shape.lanes}
            detail = detail_statement()
            for i, (q, qv) in enumerate(zip(qs, qvecs, strict=True)):
                vq = QueryVector(qv, emb.name, emb.dim, None)
                params = gather.bind(q, [ctx], [None], vq, window, t)
                if getattr(t, "fusion", None) is not None:  # as gather.gather binds it
                    lanes_in = len({"vector", "bm25"} & set(shape.lanes)) or 1
                    params["paragraph_lanes"] = float(lanes_in) if t.fusion == "per_kind" else 1.0
                gather._settings(session)

                def before(bound: dict[str, Any] = params) -> None:
                    """The BM25 lane's scoring (on a second connection, as recall does) and
                    the walk's seeds, bound into `bound`."""
                    gather.bind_before(session, shape, [ctx], bound, True, t, beside)

                before()  # untimed here; each timed run does it again
                if args.custom_plans:
                    session.execute(
                        select(func.set_config("plan_cache_mode", "force_custom_plan", True))
                    )
                if i == 0:  # warm the plans and caches once, untimed
                    session.execute(stmt, params).all()
                    separate(
                        session,
                        lanes,
                        params,
                        t.candidates,
                        t.rrf_k,
                        detail,
                        collections.defaultdict(list),
                    )
                # alternate which goes first, so neither always runs on the warmer cache
                order = ("statement", "separate") if i % 2 == 0 else ("separate", "statement")
                for which in order:
                    started = time.perf_counter()
                    if which == "statement":
                        before()  # bound before the statement, so timed with it
                        rows_per_q.append(len(session.execute(stmt, params).all()))
                    else:
                        before()
                        times["lane:bm25 scoring + walk seeds"].append(
                            time.perf_counter() - started
                        )
                        separate(session, lanes, params, t.candidates, t.rrf_k, detail, times)
                    times[which].append(time.perf_counter() - started)
                if i < args.explain:
                    plans.append({"question": q, "nodes": explain(session, stmt, params)[:12]})
        rerankers: dict[str, Any] = {"recall": NoReranker()}
        found = offline_reranker()
        if found is not None:
            rerankers["recall+rerank"], rerank_name = found
        else:
            rerankers["recall+rerank"] = HttpReranker(server.url, max_batch=64)
            rerank_name = "HttpReranker (TEI format) → tests/fakes loopback server (no offline one)"
        result["reranker"] = rerank_name
        rng = random.Random(3)
        for _ in range(args.long):
            svc.reranker = NoReranker()
            long_question = " ".join(rng.sample(qs, len(qs)))[:MAX_QUESTION]
            request = RecallRequest(long_question, contexts=("bench",), session="chat", force=True)
            started = time.perf_counter()
            svc.recall(user, request)
            times["recall, 4,000 characters"].append(time.perf_counter() - started)
        for which, reranker in ({} if args.no_recall else rerankers).items():
            svc.reranker = reranker
            request = RecallRequest(qs[0], contexts=("bench",), session="chat", force=True)
            svc.recall(user, request)  # warm
            for q in qs:
                request = RecallRequest(q, contexts=("bench",), session="chat", force=True)
                started = time.perf_counter()
                svc.recall(user, request)
                times[which].append(time.perf_counter() - started)
    finally:
        server.__exit__(None, None, None)
        svc.close()
        embedded.stop(home)
        if not keep:
            shutil.rmtree(home, ignore_errors=True)

    rows = {
        k: {"p50_ms": pct(v, 0.5) * 1e3, "p95_ms": pct(v, 0.95) * 1e3}
        for k, v in sorted(times.items(), key=lambda kv: (kv[0] not in names, kv[0]))
    }
    result.update(
        paragraphs=args.paragraphs,
        claims=args.claims,
        queries=len(qs),
        lanes=list(shape.lanes),
        rows_p50=pct([float(x) for x in rows_per_q], 0.5),
        latency=rows,
        ratio_separate_to_statement_p50=rows["separate"]["p50_ms"] / rows["statement"]["p50_ms"],
        ratio_separate_to_statement_p95=rows["separate"]["p95_ms"] / rows["statement"]["p95_ms"],
        explain=plans,
    )
    print(_env.header(info))
    print(f"\n{result['counts']}\nlanes {list(shape.lanes)}, reranker: {rerank_name}\n")
    print("| measured | p50 ms | p95 ms |\n|---|---:|---:|")
    for k, v in rows.items():
        print(f"| {k} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |")
    print(
        f"\nseparate / statement: p50 {result['ratio_separate_to_statement_p50']:.2f}×, "
        f"p95 {result['ratio_separate_to_statement_p95']:.2f}×"
    )
    for plan in plans:
        head = plan["nodes"][0]
        print(
            f"\nEXPLAIN ANALYZE: planning {head['planning_ms']:.1f} ms, "
            f"execution {head['execution_ms']:.1f} ms — {plan['question'][:70]!r}"
        )
        for n in plan["nodes"][1:9]:
            print(
                f"  {n['exclusive_ms']:8.2f} ms excl  {n['total_ms']:8.2f} total  "
                f"rows {n['rows']} × {n['loops']}  {n['node']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
