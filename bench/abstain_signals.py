"""Can a retrieval score tell an absent question from an answerable one? Each memory set is
loaded once (notes loading, one context and session per conversation), every question is asked
with recall's defaults, and candidate "nothing answers this" signals are computed from the served
items: how well each separates the adversarial-absent questions from the answerable ones (AUC),
and a floor chosen by two-fold cross-validation (halves = odd / even question positions; the
floor that abstains on the most absent questions while abstaining on at most 2 % of the
answerable ones of one half, reported on the other half).

    .venv/bin/python bench/abstain_signals.py --home /tmp/abstain \
        [--set ../shared/eval/dev/memory.json --set …/memory2.json]

Signals (higher = more likely absent):
- `top cosine`: minus the best served item's cosine to the question (its stored embedding);
- `holder margin`: for a question about one holder (a speaker it names, or the asker when it
  says I/my/私), the best cosine of an item about someone else minus the best of an item about
  that holder. An item is about its speaker when it speaks in the first person or names nobody,
  about the one it addresses when it speaks in the second person (in a conversation of two), and
  about every holder it names. Absent questions are mostly swaps (Ann's parrot when the parrot
  is Tom's): this asks whether the nearest statements are about the wrong person."""

from __future__ import annotations

import argparse
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _env
import numpy as np

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"
FALSE_MAX = 0.02  # the share of answerable questions a floor may abstain on
_FIRST = re.compile(r"(?<!\w)(i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|our|us)(?!\w)|私|僕|俺")
_SECOND = re.compile(r"(?<!\w)(you|you're|you've|you'll|your|yours)(?!\w)|あなた|君")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _names(text: str, holders: Sequence[str]) -> set[str]:
    said = _fold(text)
    return {
        h
        for h in holders
        if (_fold(h) in said if not _fold(h).isascii() else re.search(rf"\b{_fold(h)}\b", said))
    }


def about(text: str, author: str, holders: Sequence[str]) -> set[str]:
    """Whom a statement is about, by the person it speaks in (see the module's docstring)."""
    said = _fold(text)
    named = _names(text, holders) - {author}
    others = [h for h in holders if h != author]
    out = set(named)
    second = _SECOND.search(said) is not None
    if second and len(others) == 1:
        out.add(others[0])
    if _FIRST.search(said) or not (second or named):
        out.add(author)
    return out


def signals(
    question: str, asker: str, items: Sequence[Any], cos: Sequence[float]
) -> dict[str, float | None]:
    holders = sorted({it.author for it in items if it.author})
    asked = _names(question, holders)
    if _FIRST.search(_fold(question)):
        asked.add(asker)
    out: dict[str, float | None] = {"top cosine": -max(cos, default=0.0), "holder margin": None}
    if len(asked) == 1:
        (who,) = asked
        mine = theirs = 0.0
        for it, c in zip(items, cos, strict=True):
            if not it.author or it.text.rstrip().endswith(("?", "？")):
                continue
            whom = about(it.text, it.author, holders)
            if who in whom:
                mine = max(mine, c)
            elif whom:
                theirs = max(theirs, c)
        out["holder margin"] = theirs - mine
    return out


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    pairs = [(p > n) + 0.5 * (p == n) for p in pos for n in neg]
    return sum(pairs) / len(pairs) if pairs else 0.5


def floor_on(rows: Sequence[tuple[bool, float | None]]) -> float:
    """The floor (abstain at or above it) that abstains on the most absent questions of `rows`
    while abstaining on at most FALSE_MAX of the answerable ones."""
    answerable = sum(not absent for absent, _ in rows)
    best, chosen = -1, float("inf")
    for floor in sorted({v for _, v in rows if v is not None}):
        hit = sum(absent and v is not None and v >= floor for absent, v in rows)
        false = sum(not absent and v is not None and v >= floor for absent, v in rows)
        if false <= FALSE_MAX * answerable and hit > best:
            best, chosen = hit, floor
    return chosen


def report(name: str, rows: list[tuple[bool, float | None]]) -> str:
    pos = [v for a, v in rows if a and v is not None]
    neg = [v for a, v in rows if not a and v is not None]
    held: list[str] = []
    for tuned, other in ((0, 1), (1, 0)):
        floor = floor_on(rows[tuned::2])
        test = rows[other::2]
        hit = sum(a and v is not None and v >= floor for a, v in test)
        false = sum(not a and v is not None and v >= floor for a, v in test)
        absent = sum(a for a, _ in test)
        held.append(f"{hit}/{absent} absent, {false}/{len(test) - absent} answerable")
    return f"| {name} | {len(pos)}/{len(neg)} | {auc(pos, neg):.2f} | " + " | ".join(held) + " |"


def run_set(svc: Any, user: Any, path: Path) -> list[str]:
    from tabane.evaluation.memory_set import install, load
    from tabane.recall import current
    from tabane.recall.plan import RecallRequest
    from tabane.search.search import embed_query

    data = load(path)
    where = {
        c.id: install(svc, user, c, loading="notes", prefix="abst-") for c in data.conversations
    }
    svc.wait_for_jobs(timeout=3600.0)
    got: dict[str, list[tuple[bool, float | None]]] = {}
    for q in data.questions:
        w = where[q.conversation]
        ask = RecallRequest(q.question, contexts=(w.context,), session=w.session, speaker=q.asker)
        items = list(svc.recall(user, ask).items)
        qv = embed_query(svc.embedder, q.question)
        with svc.store.session(user) as session:
            vecs = current.vectors(session, items, qv.model)
        qvec = np.asarray(qv.vector, dtype=np.float32)
        cos = [float(vecs[it.key] @ qvec) if it.key in vecs else 0.0 for it in items]
        for name, value in signals(q.question, q.asker, items, cos).items():
            got.setdefault(name, []).append((q.category == "adversarial-absent", value))
    lines = [f"\n{path.name}: {len(data.questions)} questions\n"]
    lines += [
        "| signal | absent / answerable with it | AUC | held out, tuned on odd "
        "| held out, tuned on even |"
    ]
    lines += ["|---|---|---|---|---|"]
    return lines + [report(name, rows) for name, rows in got.items()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True, help="a store of its own (contexts abst-* replaced)")
    ap.add_argument("--set", action="append", type=Path)
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    with Tabane.open(settings) as svc:
        for path in args.set or [DEV / "memory.json", DEV / "memory2.json"]:
            print("\n".join(run_set(svc, svc.local_user(), path)))
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
