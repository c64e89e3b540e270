"""The support check (recall/support.py) measured offline on what recall served (the file
bench/abstain_collect.py writes): per set and loading, for each variant, the absent questions it
abstains on, the answerable ones it abstains on (false), the recall@10 an abstention that empties
the bundle would cost, and the absent questions whose kept items (those that support or partly
match) still show a trap string in the first 10.

    .venv/bin/python bench/abstain_support.py /tmp/abst/collected.json [--show]

The offline check reads each item as bench/abstain_collect.py wrote it: with documents loading a
session paragraph's section (its speaker) stands as its author and it answers the turn before
it, as recall reads a transcript's paragraphs since decision 0045 (recall/spoken.py).

Variants: `need` (the share of the specific terms an item must hold for the entity, more than:
0 = any one term … 0.99 = all). Then `need` chosen by two-fold cross-validation (odd / even
question positions of each set and loading: the most absent abstentions with false abstentions
≤ 2 % of the answerable of the tuning half), reported on the other half.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tabane.recall import support

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
NEEDS = (0.0, 0.33, 0.5, 0.66, 0.99)
FALSE_MAX = 0.02


def _before(set_name: str) -> dict[str, str]:
    """Turn id → the turn before it in its session: what it answers, as notes store it
    (`in_reply_to`; recall reads it for a served note)."""
    data = json.loads((DEV / set_name).read_text())
    out = {}
    for c in data["conversations"]:
        for s in c["sessions"]:
            for a, b in zip(s["turns"], s["turns"][1:], strict=False):
                out[b["id"]] = a["text"]
    return out


def verdict(row: dict[str, Any], need: float, before: dict[str, str]) -> dict[str, Any]:
    items = [SimpleNamespace(**it) for it in row["items"]]
    answers = {it["key"]: before.get(it["covers"][0], "") for it in row["items"] if it["covers"]}
    got = support.check(row["question"], row["asker"], items, need=need, answers=lambda: answers)  # type: ignore[arg-type]
    abstain = got is not None and got.line is not None
    dropped = set(got.partial) if abstain and got is not None else set()
    kept = [it for it in row["items"] if it["key"] not in dropped][:10]
    traps = [support.fold(t) for t in row["traps"]]
    exposed_all = any(any(t in support.fold(it["text"]) for t in traps) for it in row["items"][:10])
    exposed_kept = any(any(t in support.fold(it["text"]) for t in traps) for it in kept)
    wanted = set(row["evidence"])
    top = set().union(*[set(it["covers"]) for it in row["items"][:10]]) if row["items"] else set()
    top_kept = set().union(*[set(it["covers"]) for it in kept]) if kept else set()
    return {
        "abstain": abstain,
        "absent": row["category"] == "adversarial-absent",
        "complete": bool(wanted) and wanted <= top,
        "complete_kept": bool(wanted) and wanted <= top_kept,
        "exposed": exposed_all,
        "exposed_kept": exposed_kept,
        "asked": None if got is None else (got.asked.entity, got.asked.shown),
    }


def table(rows: list[dict[str, Any]], before: dict[str, dict[str, str]]) -> list[str]:
    out = [
        "| set | loading | need | abstained / absent | false / answerable "
        "| recall@10 lost: emptied / partial dropped | trap in top 10: before / partial dropped |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["set"], r["loading"])].append(r)
    for (name, loading), rs in groups.items():
        for need in NEEDS:
            v = [verdict(r, need, before[name]) for r in rs]
            out.append(_row(name, loading, need, v))
    return out


def cross(rows: list[dict[str, Any]], before: dict[str, dict[str, str]]) -> list[str]:
    """Two-fold cross-validation of `need` per set and loading (halves: odd / even positions):
    the need with the most absent abstentions at ≤ FALSE_MAX false ones on one half, reported
    on the other."""
    out = ["| set | loading | tuned on | need chosen | held out: abstained / absent, false |"]
    out.append("|---|---|---|---|---|")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["set"], r["loading"])].append(r)
    for (name, loading), rs in groups.items():
        for tuned, other in ((0, 1), (1, 0)):
            best, chosen = (-1, 0), NEEDS[0]
            for need in NEEDS:
                v = [verdict(r, need, before[name]) for r in rs[tuned::2]]
                hit = sum(x["abstain"] for x in v if x["absent"])
                false = sum(x["abstain"] for x in v if not x["absent"])
                answerable = sum(not x["absent"] for x in v)
                if false <= FALSE_MAX * answerable and (hit, -need) > best:
                    best, chosen = (hit, -need), need
            v = [verdict(r, chosen, before[name]) for r in rs[other::2]]
            hit = sum(x["abstain"] for x in v if x["absent"])
            false = sum(x["abstain"] for x in v if not x["absent"])
            absent = sum(x["absent"] for x in v)
            out.append(
                f"| {name} | {loading} | {'odd' if tuned == 0 else 'even'} | {chosen:g} | "
                f"{hit}/{absent}, {false}/{len(v) - absent} |"
            )
    return out


def _row(name: str, loading: str, need: float, v: list[dict[str, Any]]) -> str:
    absent = [x for x in v if x["absent"]]
    answer = [x for x in v if not x["absent"]]
    hit = sum(x["abstain"] for x in absent)
    false = sum(x["abstain"] for x in answer)
    lost = sum(x["abstain"] and x["complete"] for x in answer) / max(1, len(answer))
    moved = sum(x["complete"] - x["complete_kept"] for x in answer) / max(1, len(answer))
    exp = sum(x["exposed"] for x in absent)
    kept = sum(x["exposed_kept"] for x in absent)
    return (
        f"| {name} | {loading} | {need:g} | {hit}/{len(absent)} | "
        f"{false}/{len(answer)} | {lost:.3f} / {moved:+.3f} | {exp} / {kept} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("collected", type=Path)
    ap.add_argument("--show", action="store_true", help="each absent question's verdict")
    ap.add_argument("--need", type=float, default=0.0, help="the need --show uses")
    args = ap.parse_args()
    rows = json.loads(args.collected.read_text())
    before = {name: _before(name) for name in {r["set"] for r in rows}}
    print("\n".join(table(rows, before)))
    print()
    print("\n".join(cross(rows, before)))
    if args.show:
        for r in rows:
            v = verdict(r, args.need, before[r["set"]])
            if v["absent"] or v["abstain"]:
                print(r["set"], r["loading"], r["id"], r["category"], v["asked"], v["abstain"])


if __name__ == "__main__":
    main()
