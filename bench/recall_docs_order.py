"""Why recall's served paragraphs score below fused search on the docs sets (issue 29): per
question, fused search's document order against recall's served one, and recall's candidates
re-read under counterfactuals that remove one step at a time.

    .venv/bin/python bench/recall_docs_order.py --home /tmp/docrecall-home --out /tmp/order.json \
        [--set pydocs ...] [--limit N] [variant=field:value,...]

Per question and per order, document nDCG@10 (section nDCG@10 where the question names its
section). Orders: `search` (fused search, 100 paragraphs), `served` (recall as it serves),
`placed` (every paragraph recall ordered, whatever its outcome: no cut by max_items or the
budget), `statement` (the paragraph candidates in the statement's fused order), `other`
(how many of the served places other kinds took). A `variant` runs recall again with those
Tunables fields (bench/recall_ab.py's syntax) and reports its `served` order beside the base.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import _env
from recall_ab import variant
from sqlalchemy import text

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
SETS = {
    "pydocs": "python3.11-doc",
    "gitdocs": "git-doc",
    "manpages-ja": "manpages-ja",
    "handbook": "debian-handbook",
    "maintguide-ja": "maint-guide-ja",
}


def where(svc: Any, ids: set[int]) -> dict[int, tuple[str, str]]:
    """paragraph id → (source id, section key) for the paragraphs recall placed."""
    from tabane.evaluation.metrics import section_key

    if not ids:
        return {}
    with svc.store.admin() as s:
        rows = s.execute(
            text(
                "select p.id, s.source_id, p.locator from paragraphs p"
                " join sources s on s.id = p.source_pk where p.id = any(:ids)"
            ),
            {"ids": sorted(ids)},
        ).all()
    return {r.id: (r.source_id, section_key(r.source_id, r.locator)) for r in rows}


def scored(keys: list[tuple[str, str]], q: Any) -> dict[str, float | None]:
    from tabane.evaluation.metrics import Scores, documents, section_ndcg

    docs = documents(k[0] for k in keys)
    sections = documents(k[1] for k in keys)
    return {
        "doc": round(Scores.of(docs, q.relevant).ndcg10, 4),
        "section": round(section_ndcg(sections, q.section), 4) if q.section else None,
        "docs": docs[:10],
    }


def recall_orders(svc: Any, user: Any, q: Any, context: str, kw: dict[str, Any]) -> Any:
    from tabane.recall.plan import RecallRequest, Tunables

    ask = RecallRequest(q.question, (context,), plan="maximal", force=True)
    started = time.perf_counter()
    result = svc.recall(user, ask, tunables=Tunables(**kw))
    seconds = time.perf_counter() - started
    cands = result.trace.candidates
    pids = {int(c.key[2:]) for c in cands if c.kind == "paragraph"}
    at = where(svc, pids)
    served = [c for c in cands if c.outcome == "served"]
    para = [c for c in cands if c.kind == "paragraph"]
    by_fused = sorted(para, key=lambda c: -c.fused)
    return {
        "served": scored([at[int(c.key[2:])] for c in served if c.kind == "paragraph"], q),
        "placed": scored([at[int(c.key[2:])] for c in para if c.outcome != "duplicate"], q),
        "statement": scored([at[int(c.key[2:])] for c in by_fused], q),
        "kinds": [c.kind for c in served],
        "outcomes": {
            o: sum(c.outcome == o for c in cands if c.kind == "paragraph")
            for o in {c.outcome for c in cands}
        },
        "direct": sum(c.direct for c in served),
        "tokens": result.trace.used_tokens,
        "seconds": round(seconds, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="*")
    ap.add_argument("--home", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", action="append")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--no-search", action="store_true")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.evaluation import questions as qs
    from tabane.evaluation.docs_eval import ranked_paragraphs
    from tabane.evaluation.metrics import section_key  # noqa: F401
    from tabane.service import Tabane

    chosen = [("base", {})] + [variant(v) for v in args.variants]
    out: dict[str, Any] = {"env": _env.describe(), "variants": dict(chosen), "sets": {}}
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        for name in args.set or list(SETS):
            context = SETS[name]
            questions, _ = qs.load(DEV / f"{name}.jsonl")
            if args.limit:
                questions = questions[: args.limit]
            rows = []
            for q in questions:
                row: dict[str, Any] = {"id": q.id}
                if not args.no_search:
                    ranked = ranked_paragraphs(svc, user, context, q.question, "fused", 100)
                    row["search"] = scored(
                        list(zip(ranked.sources, ranked.sections, strict=True)), q
                    )
                for vname, kw in chosen:
                    row[vname] = recall_orders(svc, user, q, context, kw)
                rows.append(row)
            out["sets"][name] = rows
            line = [name]
            for key in (["search"] if not args.no_search else []) + [v for v, _ in chosen]:
                got = [r[key]["served"] if key != "search" else r[key] for r in rows]
                doc = sum(g["doc"] for g in got) / len(got)
                secs = [g["section"] for g in got if g["section"] is not None]
                sec = f" / {sum(secs) / len(secs):.3f}" if secs else ""
                took = (
                    f" ({sum(r[key]['seconds'] for r in rows) / len(rows):.2f} s)"
                    if key != "search"
                    else ""
                )
                line.append(f"{key} {doc:.3f}{sec}{took}")
            print(" | ".join(line), flush=True)
    out["load_end"] = _env.load()
    Path(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
