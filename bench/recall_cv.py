"""Two-fold cross-validation of recall tunables on the memory sets: each set is loaded once
(notes loading, one context and session per conversation), every question is asked under every
variant of a grid, and the variant chosen on one half of the questions (odd / even position in
the set) is reported on the other half. The objective per question counts evidence complete in
the top 5 and the top 10, an update question's latest-first, and an absent question's abstention
(what the tunables trade against each other).

    .venv/bin/python bench/recall_cv.py --home /tmp/cv supersede=0.3,0.4,0.5,0.6 \
        supersede_span=0,10,20 [--set ../shared/eval/dev/memory.json --set …/memory2.json]

Prints, per set, each variant's totals on each half, the choice per fold, and the held-out
score of the choice against the defaults' (paired: questions better / worse)."""

from __future__ import annotations

import argparse
import itertools
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

import _env

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"


def grid(specs: list[str]) -> list[dict[str, Any]]:
    """`field=v1,v2` specs → every combination, values typed by the Tunables field."""
    from tabane.recall.plan import Tunables

    defaults = Tunables()
    known = {f.name for f in fields(Tunables)}
    axes: list[list[tuple[str, Any]]] = []
    for spec in specs:
        key, _, raw = spec.partition("=")
        if key not in known:
            raise SystemExit(f"{key!r} is not a Tunables field")
        kind = type(getattr(defaults, key))
        axes.append([(key, v == "true" if kind is bool else kind(v)) for v in raw.split(",")])
    return [dict(combo) for combo in itertools.product(*axes)]


def score(row: Any) -> int:
    """What one question earns: complete at 5 and at 10, latest first, abstained."""
    return (
        int(row.all_at[5])
        + int(row.all_at[10])
        + int(bool(row.latest_first))
        + int(bool(row.abstained))
    )


def run_set(svc: Any, user: Any, path: Path, variants: list[dict[str, Any]]) -> None:
    from tabane.evaluation.memory_eval import ask
    from tabane.evaluation.memory_set import install, load
    from tabane.recall.plan import Tunables

    data = load(path)
    where = {c.id: install(svc, user, c, loading="notes", prefix="cv-") for c in data.conversations}
    svc.wait_for_jobs(timeout=3600.0)
    budget = svc.settings.recall_budget
    names = [",".join(f"{k}={v}" for k, v in kw.items()) or "defaults" for kw in variants]
    got: dict[str, list[int]] = {}
    at10: dict[str, int] = {}
    at5: dict[str, int] = {}
    latest: dict[str, int] = {}
    for name, kw in [("defaults", {}), *zip(names, variants, strict=True)]:
        t = Tunables(**kw)
        rows = [
            ask(svc, user, where[q.conversation], q, plan="maximal", budget=budget, tunables=t)
            for q in data.questions
        ]
        got[name] = [score(row) for row in rows]
        paired = list(zip(rows, data.questions, strict=True))
        at10[name] = sum(int(row.all_at[10]) for row, q in paired if q.evidence)
        at5[name] = sum(int(row.all_at[5]) for row, q in paired if q.evidence)
        latest[name] = sum(int(bool(row.latest_first)) for row, q in paired)
    halves = {"odd": range(0, len(data.questions), 2), "even": range(1, len(data.questions), 2)}
    print(f"\n{path.name}: {len(data.questions)} questions\n")
    print(
        "| variant | odd half | even half | complete@10 (all) | complete@5 | latest first |\n"
        "|---|---|---|---|---|---|"
    )
    for name in got:
        print(
            f"| {name} | "
            + " | ".join(str(sum(got[name][i] for i in h)) for h in halves.values())
            + f" | {at10[name]} | {at5[name]} | {latest[name]} |"
        )
    for tuned, held in (("odd", "even"), ("even", "odd")):
        best = max(names, key=lambda n: (sum(got[n][i] for i in halves[tuned]), -names.index(n)))
        better = sum(got[best][i] > got["defaults"][i] for i in halves[held])
        worse = sum(got[best][i] < got["defaults"][i] for i in halves[held])
        print(
            f"- tuned on {tuned}: {best}; on {held}: {sum(got[best][i] for i in halves[held])} "
            f"against defaults {sum(got['defaults'][i] for i in halves[held])} "
            f"(questions better / worse: {better} / {worse})"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("grid", nargs="*", help="field=v1,v2,... (Tunables fields)")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="one more variant beside the grid's: field=v[;field=v] (each a single value)",
    )
    ap.add_argument("--home", required=True, help="a store of its own (contexts cv-* replaced)")
    ap.add_argument("--set", action="append", type=Path)
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane

    env = _env.describe()
    print(_env.header(env, load_after=False))
    sets = args.set or [DEV / "memory.json", DEV / "memory2.json"]
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    with Tabane.open(settings) as svc:
        for path in sets:
            extra = [grid(v.split(";"))[0] for v in args.variant]
            run_set(svc, svc.local_user(), path, (grid(args.grid) if args.grid else []) + extra)
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
