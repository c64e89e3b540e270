"""Graph questions through recall, per question and per needed triple, under recall variants
(decision 0046): where each needed edge ranks in the walk lane and in the served order, and
which questions each variant completes (paired against the defaults).

Loads the sets into fresh contexts (`gc-` + the set's context names) in a home of its own, then
asks every question under the defaults and each variant (bench/recall_ab.py's syntax:
`name=field:value,...`, fields of `tabane.recall.plan.Tunables`).

    cd bench && nice -n 10 ../.venv/bin/python graph_chains.py --home /tmp/chains \
        --set ../../shared/eval/dev/graph.json --set ../../shared/eval/dev/graph2.json \
        chains=walk_chain:1.0 [--show eg-006]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import _env
from recall_ab import variant

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"


def ranks(svc: Any, user: Any, result: Any) -> dict[tuple[str, str, str], tuple[int, int, str]]:
    """Each association candidate's triple → (walk rank, position after ordering, outcome)."""
    from tabane.graph import edges

    cands = [c for c in result.trace.candidates if c.kind == "association"]
    with svc.store.session(user) as session:
        rows = edges.triples(session, [int(c.key[2:]) for c in cands])
    out: dict[tuple[str, str, str], tuple[int, int, str]] = {}
    for c in cands:
        walk = next((lr.rank for lr in c.lanes if lr.lane == "walk"), 0)
        t = rows.get(int(c.key[2:]))
        if t is not None:
            out.setdefault(tuple(t), (walk, c.position, c.outcome))
    return out


def ask_all(svc: Any, user: Any, data: Any, kw: dict[str, Any], show: set[str]) -> dict[str, int]:
    """Each question's count of needed triples served (sign as stored); details of `show`."""
    from tabane.evaluation.recall_eval import _graph_row, served_associations
    from tabane.recall.plan import RecallRequest, Tunables

    t = Tunables(**kw)
    got: dict[str, int] = {}
    for q in data.questions:
        gc = data.context(q.context)
        ask = RecallRequest(q.question, ("gc-" + q.context,), plan="maximal", force=True)
        result = svc.recall(user, ask, tunables=t)
        row = _graph_row(q, gc, "maximal", served_associations(svc, user, result))
        got[q.id] = row.present - row.needed  # 0: all needed served
        if q.id in show:
            where = ranks(svc, user, result)
            for tr in q.needed:
                print(f"  {q.id} {kw or 'defaults'}: needed edge walk/position/outcome",
                      where.get(tuple(tr), "not a candidate"))  # fmt: skip
            print("  notes:", [n for n in result.trace.notes if n.startswith("chain")])
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="*", help="name=field:value,...")
    ap.add_argument("--home", required=True)
    ap.add_argument("--set", action="append", type=Path)
    ap.add_argument("--show", action="append", default=[], help="question ids to detail")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.evaluation.graph_set import install, load
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    specs = [("defaults", {}), *(variant(v) for v in args.variants)]
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        for path in args.set or [DEV / "graph.json", DEV / "graph2.json"]:
            data = load(path)
            for gc in data.contexts:
                install(svc, user, gc, "gc-" + gc.name)
            svc.wait_for_jobs(timeout=3600.0)
            runs = {name: ask_all(svc, user, data, kw, set(args.show)) for name, kw in specs}
            base = runs["defaults"]
            print(f"\n{path.name}: {len(base)} questions\n")
            print("| variant | all needed | better / worse than defaults | changed questions |")
            print("|---|---|---|---|")
            for name, got in runs.items():
                better = [q for q in got if got[q] > base[q]]
                worse = [q for q in got if got[q] < base[q]]
                done = sum(v == 0 for v in got.values())
                moved = ", ".join([f"+{q}" for q in better] + [f"-{q}" for q in worse])
                print(f"| {name} | {done}/{len(got)} | {len(better)} / {len(worse)} | {moved} |")
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
