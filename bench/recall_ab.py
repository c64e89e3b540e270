"""Recall's tunables side by side on the dev sets, in one process: the memory set under each
variant of `Tunables` against the defaults (the baseline, first), and optionally docs sets over
a store that already holds their corpora (as `tabane eval docs` left them).

A variant is `name=field:value,...` (fields of `tabane.recall.plan.Tunables`); `base` (no
fields) is always run first. Reported per loading: recall@5/@10, partial@10 and update
latest-first of each variant, and how many questions each variant serves with all their
evidence earlier (better) or later (worse) than the baseline; per docs set, nDCG@10, recall@10
and MRR@10; per graph set (through recall, loaded once), the questions with all needed triples
served and the questions with more / fewer of them than the baseline.

    .venv/bin/python bench/recall_ab.py --home /tmp/ab exchange_off=exchange:false \
        [--loading notes --loading documents --loading both] \
        [--docs ../shared/eval/dev/pydocs.jsonl:python3.11-doc --docs-home /tmp/tabane-eval] \
        [--graph ../shared/eval/dev/graph.json [--no-memory]]
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

import _env

MEMORY = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev" / "memory.json"


def variant(spec: str) -> tuple[str, dict[str, Any]]:
    """`name=field:value,...` → (name, Tunables keyword arguments), values typed by the field."""
    from tabane.recall.plan import Tunables

    name, _, pairs = spec.partition("=")
    defaults = Tunables()
    known = {f.name for f in fields(Tunables)}
    kw: dict[str, Any] = {}
    for pair in filter(None, pairs.split(",")):
        key, _, raw = pair.partition(":")
        if key not in known:
            raise SystemExit(f"{spec}: {key!r} is not a Tunables field ({sorted(known)})")
        kind = type(getattr(defaults, key))
        kw[key] = raw == "true" if kind is bool else kind(raw)
    return name, kw


def complete_at(covered: list[list[str]], wanted: set[str]) -> int:
    """The first position where the served items cover all the evidence (999: never)."""
    got: set[str] = set()
    for n, cover in enumerate(covered, start=1):
        got |= set(cover) & wanted
        if got == wanted:
            return n
    return 999


def memory(svc: Any, user: Any, path: Path, loadings: list[str], variants: list[Any]) -> Any:
    from tabane.evaluation.memory_eval import run_memory_eval
    from tabane.evaluation.memory_set import load
    from tabane.recall.plan import Tunables

    evidence = {q.id: set(q.evidence) for q in load(path).questions}
    out: dict[str, Any] = {}
    base: dict[tuple[str, str], int] = {}
    for name, kw in variants:
        report = run_memory_eval(svc, user, path, loadings=loadings, tunables=Tunables(**kw))
        for run in report.runs:
            better = worse = 0
            for row in run.rows:
                if not evidence[row.id]:  # adversarial-absent: nothing to cover
                    continue
                at = complete_at(row.covered, evidence[row.id])
                if name == "base":
                    base[(run.loading, row.id)] = at
                else:
                    better += at < base[(run.loading, row.id)]
                    worse += at > base[(run.loading, row.id)]
            latest = run.share("update", "latest_first")
            out.setdefault(run.loading, {})[name] = {
                "recall@5": round(run.overall.rate(5), 3),
                "recall@10": round(run.overall.rate(10), 3),
                "partial@10": round(run.overall.mean_partial, 3),
                "latest_first": f"{latest[0]}/{latest[1]}",
                "better": better if name != "base" else None,
                "worse": worse if name != "base" else None,
            }
    return out


def docs(svc: Any, user: Any, sets: list[str], variants: list[Any]) -> Any:
    from tabane.evaluation.recall_eval import run_docs_recall
    from tabane.recall.plan import Tunables

    out: dict[str, Any] = {}
    for spec in sets:
        path, _, context = spec.rpartition(":")
        run_docs_recall(svc, user, Path(path), context, plans=["maximal"])  # warm, untimed
        for name, kw in variants:
            report = run_docs_recall(
                svc, user, Path(path), context, plans=["maximal"], tunables=Tunables(**kw)
            )
            s = report.runs[0].scores
            out.setdefault(context, {})[name] = {
                "nDCG@10": round(s.ndcg10, 3),
                "recall@10": round(s.recall10, 3),
                "MRR@10": round(s.mrr10, 3),
                "section nDCG@10": report.runs[0].section_ndcg10,
                "seconds": report.runs[0].seconds,
            }
    return out


def graph(svc: Any, user: Any, path: Path, variants: list[Any]) -> Any:
    """A graph set through recall (maximal plan) under each variant, loaded once: the share of
    questions with all their needed triples served (and of triples), and the questions each
    variant serves more / fewer needed triples of than the baseline."""
    from tabane.evaluation.recall_eval import run_graph_recall
    from tabane.recall.plan import Tunables

    out: dict[str, Any] = {}
    base: dict[str, int] = {}
    for n, (name, kw) in enumerate(variants):
        report = run_graph_recall(
            svc, user, path, plans=["maximal"], load=n == 0, tunables=Tunables(**kw)
        )
        run = report.runs[0]
        present = {row.id: row.present for row in run.rows}
        if name == "base":
            base = present
        out[name] = {
            "all needed": round(run.overall.all_rate, 3),
            "micro": round(run.overall.micro, 3),
            "better": sum(present[q] > base[q] for q in present) if name != "base" else None,
            "worse": sum(present[q] < base[q] for q in present) if name != "base" else None,
        }
    return out


def table(title: str, rows: dict[str, dict[str, Any]]) -> str:
    lines = [f"\n{title}\n"]
    for group, by_variant in rows.items():
        cols = list(next(iter(by_variant.values())))
        lines += [f"| {group} | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for name, vals in by_variant.items():
            lines.append(f"| {name} | " + " | ".join(str(vals[c]) for c in cols) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="*", help="name=field:value,... (Tunables fields)")
    ap.add_argument("--home", required=True, help="store for the memory set (loaded, replaced)")
    ap.add_argument("--memory", type=Path, default=MEMORY)
    ap.add_argument("--loading", action="append", help="notes, documents, both (default all)")
    ap.add_argument("--docs", action="append", default=[], help="SET.jsonl:CONTEXT")
    ap.add_argument("--docs-home", help="store that holds the docs sets' corpora")
    ap.add_argument("--graph", action="append", default=[], help="a graph set (GRAPH.json)")
    ap.add_argument("--no-memory", action="store_true", help="only the --docs and --graph sets")
    ap.add_argument("--json")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane

    chosen = [("base", {})] + [variant(v) for v in args.variants]
    result: dict[str, Any] = {"env": _env.describe(), "variants": dict(chosen)}
    print(_env.header(result["env"], load_after=False))
    loadings = args.loading or ["notes", "documents", "both"]

    def settings(home: str) -> Settings:  # as the CLI builds them (the same local user)
        return Settings.from_env({**os.environ, "TABANE_HOME": home})

    with Tabane.open(settings(args.home)) as svc:
        if not args.no_memory:
            result["memory"] = memory(svc, svc.local_user(), args.memory, loadings, chosen)
            print(table(f"memory ({args.memory.name}, maximal plan)", result["memory"]))
        for spec in args.graph:
            got = graph(svc, svc.local_user(), Path(spec), chosen)
            result.setdefault("graph", {})[Path(spec).name] = got
            print(table("graph sets through recall (maximal plan)", {Path(spec).name: got}))
    if args.docs:
        if not args.docs_home:
            raise SystemExit("--docs needs --docs-home (a store holding those corpora)")
        with Tabane.open(settings(args.docs_home)) as svc:
            result["docs"] = docs(svc, svc.local_user(), args.docs, chosen)
        print(table("docs sets through recall (maximal plan)", result["docs"]))
    print("- load at end: " + _env.load())
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
