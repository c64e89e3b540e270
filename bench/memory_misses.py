"""Why a memory question misses recall@10: each set is loaded once (notes loading, one context
and session per conversation), every answerable question is asked with recall's defaults, and
each one whose evidence is not complete in the first 10 items is asked again with room for
every candidate (`max_items` = `candidates`, the largest budget) to see where its evidence
ranks. Each miss gets the first cause that applies:

- `absent`: an evidence turn is not among the candidates at all;
- `voices: other`: it ranks past 10, was said by someone the question does not name, and items
  said by someone it names (`voiced`, served first) fill at least half of the first 10;
- `voices: own`: the same, but the evidence was said by the named person: their other
  statements rank above it;
- `derived`: summaries and claims (profiles, communities, overviews, associations) with no turn
  behind them hold at least 3 of the first 10;
- `stale`: an update question whose earlier values (distractors) rank above the latest;
- `follow-up`: the evidence turn shares no content word with the question (a reply without
  topic words);
- `ranked`: present, ranked past 10, none of the above.

    .venv/bin/python bench/memory_misses.py --home /tmp/misses [--set …/memory2.json] \
        [--json out] [unnamed=0 …]

Prints a table of counts per cause and set, then one line per miss (ids only, no content)."""

from __future__ import annotations

import argparse
import json
import os
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import _env

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
_WORD = re.compile(r"[^\W\d_]{4,}|[\u3040-\u30ff\u4e00-\u9fff]{2,}")
_STOP = {
    "what", "which", "when", "where", "does", "did", "have", "has", "that", "this", "with",
    "about", "from", "they", "their", "there", "were", "been", "would", "could", "should",
    "your", "just", "like", "into", "then", "than", "them", "still", "now", "after", "before",
}  # fmt: skip
CAUSES = ("absent", "voices: own", "voices: other", "derived", "stale", "follow-up", "ranked")


def words(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {w[:5] for w in _WORD.findall(folded)} - {w[:5] for w in _STOP}


def diagnose(
    svc: Any, user: Any, where: Any, q: Any, turns: dict[str, str], base: Any
) -> dict[str, Any]:
    from dataclasses import replace

    from tabane.evaluation.memory_eval import ask
    from tabane.recall.order import voiced
    from tabane.recall.plan import MAX_BUDGET, RecallRequest

    budget = svc.settings.recall_budget
    row = ask(svc, user, where, q, plan="maximal", budget=budget, tunables=base)
    out: dict[str, Any] = {"id": q.id, "category": q.category, "hit10": row.all_at[10]}
    if row.all_at[10]:
        return out
    wide = replace(base, max_items=base.candidates)
    request = RecallRequest(
        q.question, contexts=(where.context,), session=where.session, speaker=q.asker,
        plan="maximal", budget=MAX_BUDGET,
    )  # fmt: skip
    result = svc.recall(user, request, tunables=wide)
    items = list(result.items)
    covers = [where.covers(it) for it in items]
    named = {c.key for c in result.trace.candidates if c.voiced}
    wanted = set(q.evidence)
    rank = {t: next((i for i, c in enumerate(covers, 1) if t in c), None) for t in wanted}
    missing = sorted(t for t in wanted if t not in set().union(*row.covered[:10]))
    top = list(zip(items[:10], covers[:10], strict=False))
    crowd = sum(1 for it, c in top if it.key in named and not (c & wanted))
    derived = sum(1 for it, c in top if not c and it.kind not in ("turn", "claim", "paragraph"))
    derived += sum(1 for it, c in top if not c and it.kind == "claim" and not it.author)
    stale = [i for i, c in enumerate(covers, 1) if c & set(q.distractors)]
    first = min((r for r in rank.values() if r), default=None)
    qwords = words(q.question)
    if any(rank[t] is None for t in missing):
        cause = "absent"
    elif crowd >= 5:
        own = all(voiced(q.question, where.speakers[t]) for t in missing)
        cause = "voices: own" if own else "voices: other"
    elif derived >= 3:
        cause = "derived"
    elif q.category == "update" and stale and first and min(stale) < first:
        cause = "stale"
    elif any(not (words(turns[t]) & qwords) for t in missing):
        cause = "follow-up"
    else:
        cause = "ranked"
    kinds = Counter(it.kind for it in items[:10])
    out.update(
        cause=cause, missing=missing, rank={t: rank[t] for t in missing}, crowd=crowd,
        derived=derived, kinds=dict(kinds), wide_items=len(items),
    )  # fmt: skip
    return out


def run_set(svc: Any, user: Any, path: Path, base: Any) -> list[dict[str, Any]]:
    from tabane.evaluation.memory_set import install, load

    data = load(path)
    where = {
        c.id: install(svc, user, c, loading="notes", prefix="miss-") for c in data.conversations
    }
    turns = {t.id: t.text for c in data.conversations for s in c.sessions for t in s.turns}
    svc.wait_for_jobs(timeout=3600.0)
    return [
        diagnose(svc, user, where[q.conversation], q, turns, base)
        for q in data.questions
        if q.category != "adversarial-absent"
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True, help="a store of its own (contexts miss-* replaced)")
    ap.add_argument("--set", action="append", type=Path, help="memory sets (default: both)")
    ap.add_argument("--json", type=Path, help="write every row here")
    ap.add_argument("tunables", nargs="*", help="field=value: Tunables other than the defaults")
    args = ap.parse_args()
    from tabane.config import Settings
    from tabane.recall.plan import Tunables
    from tabane.service import Tabane

    kinds = {k: type(v) for k, v in Tunables().__dict__.items()}
    pairs = [spec.partition("=")[::2] for spec in args.tunables]
    base = Tunables(**{k: v == "true" if kinds[k] is bool else kinds[k](v) for k, v in pairs})
    sets = args.set or [DEV / "memory.json", DEV / "memory2.json"]
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    print(_env.describe() if hasattr(_env, "describe") else "")
    everything: dict[str, list[dict[str, Any]]] = {}
    with Tabane.open(settings) as svc:
        for path in sets:
            everything[path.name] = run_set(svc, svc.local_user(), path, base)
    print("| set | answerable | complete@10 | " + " | ".join(CAUSES) + " |")
    print("|---|---|---|" + "---|" * len(CAUSES))
    for name, rows in everything.items():
        causes = Counter(r["cause"] for r in rows if not r["hit10"])
        hits = sum(1 for r in rows if r["hit10"])
        print(
            f"| {name} | {len(rows)} | {hits} | "
            + " | ".join(str(causes[c]) for c in CAUSES)
            + " |"
        )
    for name, rows in everything.items():
        for r in rows:
            if not r["hit10"]:
                print(name, {k: v for k, v in r.items() if k != "hit10"})
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()
