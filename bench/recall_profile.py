"""Where one `Tabane.recall` spends its time, end to end, on a built store (recall_tail.py's
`--home`): per question, the time of each step (embedding, the read transaction's statements one
by one, post-processing, the trace write) from SQLAlchemy's cursor events and the pipeline's own
timings, summed over `--queries` dev questions; then the p50 of each part and the statements that
cost the most in total. `--cprofile N` prints cProfile's top N functions by cumulative time.

    .venv/bin/python bench/recall_profile.py --home /tmp/rtail-home --queries 40
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import re
import threading
import time
from pathlib import Path
from typing import Any

import _env
from search_latency import pct, questions


def _label(sql: str) -> str:
    """A short name for a statement: its first words, literals and lists folded."""
    s = " ".join(sql.split())
    s = re.sub(r"%\(\w+\)s", "?", s)
    return s[:110]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--context", default="bench")
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--cprofile", type=int, default=0)
    args = ap.parse_args()

    from sqlalchemy import event

    from tabane.config import Settings
    from tabane.models.local import UseEmbedder
    from tabane.recall.plan import RecallRequest
    from tabane.service import Tabane
    from tabane.storage import embedded

    info = _env.describe()
    home = Path(args.home)
    svc = Tabane.open(Settings(home=home, worker="off"), embedder=UseEmbedder())
    per: dict[str, list[float]] = collections.defaultdict(list)
    sql_total: dict[str, float] = collections.Counter()
    sql_count: dict[str, int] = collections.Counter()
    now: dict[str, Any] = {}

    main_thread = threading.get_ident()

    def before(conn: Any, _cur: Any, sql: str, *_a: Any) -> None:
        conn.info["bench_t"] = time.perf_counter()

    def after(conn: Any, _cur: Any, sql: str, *_a: Any) -> None:
        took = time.perf_counter() - conn.info.pop("bench_t")
        mine = threading.get_ident() == main_thread
        label = ("" if mine else "[beside] ") + _label(sql)
        sql_total[label] += took
        sql_count[label] += 1
        if mine:
            now["sql"] = now.get("sql", 0.0) + took
            now["n"] = now.get("n", 0) + 1

    for engine in (svc.store.app, svc.store.owner):
        event.listen(engine, "before_cursor_execute", before)
        event.listen(engine, "after_cursor_execute", after)
    try:
        user = svc.local_user()
        qs = questions(args.queries)
        svc.recall(user, RecallRequest(qs[0], contexts=(args.context,), force=True))  # warm
        sql_total.clear()
        sql_count.clear()
        prof = cProfile.Profile(time.process_time) if args.cprofile else None  # CPU, not waits
        for q in qs:
            now.update(sql=0.0, n=0)
            started = time.perf_counter()
            if prof:
                prof.enable()
            got = svc.recall(user, RecallRequest(q, contexts=(args.context,), force=True))
            if prof:
                prof.disable()
            total = (time.perf_counter() - started) * 1e3
            per["total"].append(total)
            per["round trips (main connection)"].append(now["n"])
            per["sql on the main connection"].append(now["sql"] * 1e3)
            for k, v in got.trace.timings_ms.items():
                per[f"trace: {k}"].append(v)
    finally:
        svc.close()
        embedded.stop(home)
    print(_env.header(info))
    print(f"\nquestions {len(qs)}\n\n| part | p50 | p95 |\n|---|---:|---:|")
    for k, v in per.items():
        print(f"| {k} | {pct(v, 0.5):.1f} | {pct(v, 0.95):.1f} |")
    print("\nstatements by total time (ms per recall, count per recall):")
    for label, s in sorted(sql_total.items(), key=lambda kv: -kv[1])[:25]:
        print(f"{s * 1e3 / len(qs):8.2f} ms {sql_count[label] / len(qs):5.1f}×  {label}")
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.cprofile)


if __name__ == "__main__":
    main()
