"""Supersession replayed offline on what bench/latest_collect.py wrote: each question's 60
candidates in recall's order, reordered by `tabane.recall.latest.latest_first` at each
similarity `tau` (and span), scored as `tabane eval memory` scores them — update latest-first,
update recall@10, overall recall@5/@10 — per set and loading, paired with the order as served
(`base`). `--cv` chooses tau by two-fold cross-validation over both sets at once (questions split
by id parity within each set; a half's choice is scored on the other half).

    .venv/bin/python bench/latest_study.py /tmp/latest/collect.json --taus 0.8,0.85,0.9 \
        [--span 10] [--cv] [--show]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np


class Item:
    """The replayed evidence: what latest_first reads of an item (holder, when, text, key)."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.key = row["key"]
        self.kind = row["kind"]
        self.author = row["holder"]
        self.when = datetime.fromisoformat(row["when"]) if row["when"] else None
        self.text = row["text"]
        self.covers = set(row["covers"])
        self.vec = np.asarray(row["vec"], dtype=np.float32) if row["vec"] else None
        self.fact = None
        self.citation = SimpleNamespace(section=())


def score(q: dict[str, Any], order: Sequence[Item]) -> dict[str, Any]:
    wanted = set(q["evidence"])
    covers = [it.covers for it in order]

    def done(k: int) -> bool:
        return bool(wanted) and wanted <= set().union(*covers[:k])

    out: dict[str, Any] = {"r5": done(5), "r10": done(10)}
    if q["category"] == "update":
        first = next((i for i, c in enumerate(covers) if c & wanted), None)
        stale = [i for i, c in enumerate(covers) if c & set(q["distractors"])]
        out["latest"] = first is not None and all(first < s for s in stale)
    return out


def replay(q: dict[str, Any], tau: float | None, span: int) -> dict[str, Any]:
    from tabane.recall.latest import latest_first

    items = [Item(r) for r in q["items"]]
    if tau is None:
        return score(q, items)
    vecs = {it.key: it.vec for it in items if it.vec is not None}
    return score(q, latest_first(items, vecs, tau, span)[0])  # type: ignore[arg-type]


def summarise(qs: Sequence[dict[str, Any]], got: Sequence[dict[str, Any]]) -> dict[str, Any]:
    answer = [g for q, g in zip(qs, got, strict=True) if q["evidence"]]
    update = [g for q, g in zip(qs, got, strict=True) if q["category"] == "update"]
    return {
        "r5": sum(g["r5"] for g in answer) / max(len(answer), 1),
        "r10": sum(g["r10"] for g in answer) / max(len(answer), 1),
        "latest": sum(g["latest"] for g in update),
        "upd_r10": sum(g["r10"] for g in update) / max(len(update), 1),
        "n_upd": len(update),
    }


def table(rows: list[dict[str, Any]], taus: list[float | None], span: int) -> None:
    groups = sorted({(r["set"], r["loading"]) for r in rows})
    print(
        "| set | loading | floor | latest-first | update r@10 | r@5 | r@10 | r@5 won/lost "
        "| r@10 won/lost |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, loading in groups:
        qs = [r for r in rows if (r["set"], r["loading"]) == (name, loading)]
        base = [replay(q, None, span) for q in qs]
        for tau in taus:
            got = [replay(q, tau, span) for q in qs]
            s = summarise(qs, got)
            pair = list(zip(got, base, strict=True))
            won = sum(g["r10"] and not b["r10"] for g, b in pair)
            lost = sum(b["r10"] and not g["r10"] for g, b in pair)
            won5 = sum(g["r5"] and not b["r5"] for g, b in pair)
            lost5 = sum(b["r5"] and not g["r5"] for g, b in pair)
            print(
                f"| {name} | {loading} | {'base' if tau is None else tau} | "
                f"{s['latest']}/{s['n_upd']} | {s['upd_r10']:.3f} | {s['r5']:.3f} | "
                f"{s['r10']:.3f} | {won5}/{lost5} | {won}/{lost} |"
            )


def objective(qs: Sequence[dict[str, Any]], tau: float, span: int) -> float:
    """What a half rewards: latest-first won, recall@10 and @5 (each question once)."""
    got = [replay(q, tau, span) for q in qs]
    return sum(g.get("latest", 0) + g["r10"] + 0.5 * g["r5"] for q, g in zip(qs, got, strict=True))


def cv(rows: list[dict[str, Any]], taus: list[float], span: int) -> None:
    for fold in (0, 1):
        train = [r for r in rows if hash_half(r) == fold]
        test = [r for r in rows if hash_half(r) != fold]
        best = max(taus, key=lambda t: (objective(train, t, span), t))
        print(f"fold {fold}: chose tau {best} on {len(train)} rows; held out:")
        table(test, [None, best], span)


def hash_half(r: dict[str, Any]) -> int:
    digits = "".join(ch for ch in r["id"] if ch.isdigit())
    return int(digits or 0) % 2


def show(rows: list[dict[str, Any]], tau: float, span: int) -> None:
    """Each update question: where its evidence and distractors rank before and after."""
    from tabane.recall.latest import latest_first

    for q in rows:
        if q["category"] != "update":
            continue
        items = [Item(r) for r in q["items"]]
        vecs = {it.key: it.vec for it in items if it.vec is not None}
        after = latest_first(items, vecs, tau, span)[0]  # type: ignore[arg-type]
        for name, order in (("base", items), ("after", after)):
            ev = [i for i, it in enumerate(order, 1) if it.covers & set(q["evidence"])]
            ds = [i for i, it in enumerate(order, 1) if it.covers & set(q["distractors"])]
            print(f"{q['set']} {q['loading']} {q['id']} {name}: evidence {ev} stale {ds}")
        ev_items = [it for it in items if it.covers & set(q["evidence"] + q["distractors"])]
        for a in ev_items:
            for b in ev_items:
                if a.key < b.key and a.vec is not None and b.vec is not None:
                    same = a.author == b.author
                    print(f"   cos {a.key} {b.key} {float(a.vec @ b.vec):.3f} same={same}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("collected", type=Path)
    ap.add_argument("--taus", default="0.8,0.85,0.9")
    ap.add_argument("--span", type=int, default=10)
    ap.add_argument("--cv", action="store_true")
    ap.add_argument("--show", type=float, help="print each update question at this tau")
    args = ap.parse_args()
    rows = json.loads(args.collected.read_text())
    taus = [float(t) for t in args.taus.split(",")]
    if args.show is not None:
        show(rows, args.show, args.span)
        return
    table(rows, [None, *taus], args.span)
    if args.cv:
        cv(rows, taus, args.span)


if __name__ == "__main__":
    main()
