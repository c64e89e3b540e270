"""Recall's statement under EXPLAIN (ANALYZE, BUFFERS) for `--queries` dev questions on a built
store (recall_tail.py's `--home`): each plan node's own time summed over the questions (which node
the statement's time goes to), the slowest question's plan in text, and the statement's p50/p95.

    .venv/bin/python bench/recall_plans.py --home /tmp/rtail-home --queries 30
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import _env
from search_latency import pct, questions


def _bound(session: Any, stmt: Any, params: dict[str, Any]) -> tuple[str, Any]:
    """`stmt` as SQLAlchemy compiles and binds it, captured from the cursor (it runs once)."""
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
    return seen[-1]


def own_times(plan: dict[str, Any], out: dict[str, float]) -> None:
    """Each node's own time (its total less its children's), by a label, added to `out`."""

    def walk(node: dict[str, Any], path: str) -> None:
        kids = node.get("Plans", [])
        loops = node.get("Actual Loops", 1)
        own = node.get("Actual Total Time", 0.0) * loops - sum(
            k.get("Actual Total Time", 0.0) * k.get("Actual Loops", 1) for k in kids
        )
        what = " ".join(
            str(node.get(k) or "")
            for k in ("Node Type", "Relation Name", "Alias", "Index Name", "Subplan Name")
        )
        label = f"{' '.join(what.split())} [{path}]"
        out[label] = out.get(label, 0.0) + own
        for k in kids:
            walk(k, (node.get("Subplan Name") or node.get("CTE Name") or path))

    walk(plan["Plan"], "top")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--text", help="write the slowest question's text plan here")
    args = ap.parse_args()

    from sqlalchemy import select

    from tabane.config import Settings
    from tabane.models.local import UseEmbedder
    from tabane.recall import gather
    from tabane.recall import statement as st
    from tabane.recall.plan import Tunables
    from tabane.search.search import QueryVector
    from tabane.service import Tabane
    from tabane.storage import embedded
    from tabane.storage.schema import Context

    info = _env.describe()
    home = Path(args.home)
    emb = UseEmbedder()
    svc = Tabane.open(Settings(home=home, worker="off"), embedder=emb)
    nodes: dict[str, float] = {}
    took: list[float] = []
    slowest = (0.0, "", "")
    try:
        user = svc.local_user()
        qs = questions(args.queries)
        t = Tunables()
        with svc.store.session(user) as session:
            ctx = session.scalar(select(Context).where(Context.name == "bench"))
            beside = svc.store.beside(user)
            for q in qs:
                vq = QueryVector(emb.embed_query(q), emb.name, emb.dim, None)
                shape, _ = gather.shape_for("maximal", vq, None)
                params = gather.bind(q, [ctx], [None], vq, None, t)
                params["paragraph_lanes"] = 2.0
                gather._settings(session)
                gather.bind_before(session, shape, [ctx], params, True, t, beside)
                stmt = st.build_recall_statement(shape)
                started = time.perf_counter()
                sql, bound = _bound(session, stmt, params)
                took.append(time.perf_counter() - started)
                cur = session.connection().connection.driver_connection.cursor()
                cur.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, bound)
                raw = cur.fetchone()[0]
                doc = (raw if isinstance(raw, list) else json.loads(raw))[0]
                own_times(doc, nodes)
                if doc["Execution Time"] > slowest[0]:
                    cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, bound)
                    text_plan = "\n".join(r[0] for r in cur.fetchall())
                    slowest = (doc["Execution Time"], q, text_plan)
    finally:
        svc.close()
        embedded.stop(home)
    print(_env.header(info))
    n = len(took)
    print(f"\nstatement p50 {pct(took, 0.5) * 1e3:.1f} ms, p95 {pct(took, 0.95) * 1e3:.1f} ms")
    print(f"\nplan nodes by own time, ms per question ({n} questions):")
    for label, ms in sorted(nodes.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{ms / n:8.2f}  {label}")
    print(f"\nslowest: {slowest[0]:.1f} ms")
    if args.text:
        Path(args.text).write_text(slowest[2])


if __name__ == "__main__":
    main()
