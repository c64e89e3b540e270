"""Recall's bundles under the statement's generic plan against plans made for each question's
values (decision 0048), on the dev sets: every question is recalled twice in a row on the same
store, once with the statement run as recall runs it (its generic plan: psycopg here prepares
every statement on its first run, so the generic plan is in force from the first question) and
once under `force_custom_plan`, alternating which goes first; the rendered bundle, the served
items and the trace's candidates must be the same. Prints the questions that differ (none
expected) and the statement's p50 both ways.

    .venv/bin/python bench/recall_same_bundles.py --memory-home /tmp/same-mem \\
        [--memory ../shared/eval/dev/memory.json --loading notes] \\
        [--docs-home /tmp/rplan-100k --context bench --queries 60]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import _env
from search_latency import pct, questions

MEMORY = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev" / "memory.json"


class Twice:
    """`svc.recall` replaced: each call recalls under both plan modes and compares the bundles."""

    def __init__(self, svc: Any) -> None:
        from sqlalchemy import event

        from tabane.recall import gather

        self.svc, self.gather, self.recall = svc, gather, svc.recall
        self.generic = dict(gather.GENERIC)
        self.calls, self.differ, self.took = 0, [], {"generic": [], "custom": []}
        run = gather.run_statement

        def timed(session: Any, shape: Any, params: Any) -> Any:
            started = time.perf_counter()
            rows = run(session, shape, params)
            mode = "generic" if self.generic == gather.GENERIC else "custom"
            self.took[mode].append(time.perf_counter() - started)
            return rows

        gather.run_statement = timed
        for engine in (svc.store.app, svc.store.owner):  # every statement prepared at once
            event.listen(engine, "checkout", lambda conn, *_: setattr(conn, "prepare_threshold", 0))
        svc.recall = self

    def _one(self, mode: str, *a: Any, **kw: Any) -> Any:
        self.gather.GENERIC = self.generic if mode == "generic" else self.gather.CUSTOM
        try:
            return self.recall(*a, **kw)
        finally:
            self.gather.GENERIC = self.generic

    def __call__(self, *a: Any, **kw: Any) -> Any:
        order = ("generic", "custom") if self.calls % 2 else ("custom", "generic")
        self.calls += 1
        got = {mode: self._one(mode, *a, **kw) for mode in order}
        g, c = got["generic"], got["custom"]
        same = (g.rendered, g.items, g.overview, g.unsupported) == (
            c.rendered,
            c.items,
            c.overview,
            c.unsupported,
        ) and g.trace.candidates == c.trace.candidates
        if not same:
            self.differ.append(g.question)
        return g

    def report(self, label: str) -> str:
        ms = {m: pct(v, 0.5) * 1e3 for m, v in self.took.items() if v}
        return (
            f"| {label} | {self.calls} | {len(self.differ)} | "
            f"{ms.get('generic', float('nan')):.1f} | {ms.get('custom', float('nan')):.1f} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory-home", help="store for the memory set (loaded, replaced)")
    ap.add_argument("--memory", type=Path, default=MEMORY)
    ap.add_argument("--loading", action="append", help="notes, documents, both (default notes)")
    ap.add_argument("--docs-home", help="a store holding the docs (recall_tail.py's --home)")
    ap.add_argument("--context", default="bench")
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.evaluation.memory_eval import run_memory_eval
    from tabane.recall.plan import RecallRequest
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    rows = []
    if args.memory_home:
        env = {**os.environ, "TABANE_HOME": args.memory_home}
        with Tabane.open(Settings.from_env(env)) as svc:
            twice = Twice(svc)
            loadings = args.loading or ["notes"]
            run_memory_eval(svc, svc.local_user(), args.memory, loadings=loadings)
            rows.append(twice.report(f"{args.memory.name} ({', '.join(loadings)})"))
            print(rows[-1], flush=True)
            for q in twice.differ:
                print(f"differs: {q[:60]!r}")
    if args.docs_home:
        with Tabane.open(Settings(home=Path(args.docs_home), worker="off")) as svc:
            twice = Twice(svc)
            user = svc.local_user()
            for q in questions(args.queries):
                svc.recall(user, RecallRequest(q, contexts=(args.context,), force=True))
            rows.append(twice.report(f"dev questions over {args.docs_home}"))
            for q in twice.differ:
                print(f"differs: {q[:60]!r}")
    print("\n| set | questions | bundles that differ | statement p50 generic ms | custom ms |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
