"""Recall over several contexts at once, each docs set and the graph set asked alone and mixed
(the baseline is the same question asked over its own context alone, in the same run).

An agent's recall addresses every context it keeps: the docs it works from, the graph of its
project, its notes. Each docs set's questions are asked over the set's context alone and over it
plus the graph set's contexts (loaded as `tabane eval graph` loads them), and the graph set's
questions over their context alone and plus the docs context:

- docs: nDCG@10 of the served paragraphs of the set's context (document level, as
  `tabane eval docs --plan`), how many questions got an item of another context first
  (`foreign@1`), and how many of the first 5 items came from another context (mean);
- graph: micro coverage and all-needed rate of the needed triples among the served edges
  (as `tabane eval graph --plan`).

    cd bench && ../.venv/bin/python recall_mixed.py --home /tmp/tabane-eval \\
        --docs ../../shared/eval/dev/gitdocs.jsonl:git-doc \\
        [--graph ../../shared/eval/dev/graph.json] [--variant impute:false]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import _env

GRAPH = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev" / "graph.json"


def tunables(spec: str | None) -> Any:
    """`field:value,...` → Tunables (the defaults when None), parsed as recall_ab.py parses its
    variants."""
    from recall_ab import variant

    from tabane.recall.plan import Tunables

    return Tunables(**variant(f"v={spec or ''}")[1])


def docs_row(svc: Any, user: Any, set_path: Path, own: str, others: tuple[str, ...], t: Any) -> Any:
    from tabane.evaluation import questions as qs
    from tabane.evaluation.metrics import Scores, documents
    from tabane.recall.plan import RecallRequest

    questions, _ = qs.load(set_path)
    out = {}
    for label, contexts in (("alone", (own,)), ("mixed", (own, *others))):
        scores, first, top5 = [], 0, 0
        for q in questions:
            ask = RecallRequest(q.question, contexts, force=True)
            result = svc.recall(user, ask, tunables=t)
            served = documents(
                it.citation.source
                for it in result.items
                if it.kind == "paragraph" and it.citation.context == own and it.citation.source
            )
            scores.append(Scores.of(served, q.relevant))
            foreign = [it.citation.context != own for it in result.items]
            first += int(bool(foreign) and foreign[0])
            top5 += sum(foreign[:5])
        out[label] = {
            "ndcg10": round(Scores.mean(scores).ndcg10, 3),
            "foreign_at_1": f"{first}/{len(questions)}",
            "foreign_in_top5": round(top5 / len(questions), 2),
        }
    return out


def graph_row(svc: Any, user: Any, set_path: Path, others: tuple[str, ...], t: Any) -> Any:
    from tabane.evaluation.graph_set import load
    from tabane.evaluation.recall_eval import served_associations
    from tabane.recall.plan import RecallRequest

    data = load(set_path)
    out = {}
    for label, extra in (("alone", ()), ("mixed", others)):
        present = needed = complete = 0
        for q in data.questions:
            gc = data.context(q.context)
            ask = RecallRequest(q.question, ("eval-" + q.context, *extra), force=True)
            got = set(served_associations(svc, user, svc.recall(user, ask, tunables=t)))
            hit = [x for x in q.needed if (x, gc.weight(x) > 0) in got]
            present, needed = present + len(hit), needed + len(q.needed)
            complete += int(len(hit) == len(q.needed))
        out[label] = {
            "micro": round(present / needed, 3),
            "all_needed": round(complete / len(data.questions), 3),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="store that holds the corpora")
    ap.add_argument("--docs", action="append", required=True, help="SET.jsonl:CONTEXT")
    ap.add_argument("--graph", type=Path, default=GRAPH)
    ap.add_argument("--variant", help="Tunables fields, field:value,... (default: none)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.evaluation.graph_set import install, load
    from tabane.service import Tabane

    env = _env.describe()
    print(_env.header(env, load_after=False))
    t = tunables(args.variant)
    result: dict[str, Any] = {"env": env, "variant": args.variant, "docs": {}}
    with Tabane.open(Settings.from_env({"TABANE_HOME": str(args.home)})) as svc:
        user = svc.local_user()
        data = load(args.graph)
        have = {c.name for c in svc.list_contexts(user)}
        for gc in data.contexts:  # loaded once; a rerun reuses them
            if "eval-" + gc.name not in have:
                install(svc, user, gc, "eval-" + gc.name)
        svc.wait_for_jobs(timeout=3600.0)
        graphs = tuple("eval-" + gc.name for gc in data.contexts)
        print("\n| docs set | asked over | nDCG@10 | foreign@1 | foreign in top 5 |")
        print("|---|---|---|---|---|")
        for spec in args.docs:
            path, _, context = spec.rpartition(":")
            row = docs_row(svc, user, Path(path), context, graphs, t)
            result["docs"][context] = row
            for label, r in row.items():
                over = context if label == "alone" else f"{context} + {len(graphs)} graph contexts"
                print(
                    f"| {Path(path).name} | {over} | {r['ndcg10']:.3f} | {r['foreign_at_1']} "
                    f"| {r['foreign_in_top5']:.2f} |"
                )
        docs_contexts = tuple(spec.rpartition(":")[2] for spec in args.docs)
        result["graph"] = graph_row(svc, user, args.graph, docs_contexts, t)
        print("\n| graph set | asked over | micro | all-needed |\n|---|---|---|---|")
        for label, r in result["graph"].items():
            over = "its context" + ("" if label == "alone" else " + " + ", ".join(docs_contexts))
            print(f"| {args.graph.name} | {over} | {r['micro']:.3f} | {r['all_needed']:.3f} |")
    print("- load at end: " + _env.load())
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
