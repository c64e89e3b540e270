"""The support check through recall on the memory sets, paired with it off, and what recall
served with it off for offline study (bench/abstain_support.py reads the file this writes).

Each set is loaded once per loading (one context and session per conversation), the embedding
jobs run to the end, and every question is asked twice with recall's defaults (asker as speaker,
the conversation's session): the support check off, then on. Printed per set and loading:
abstained / absent questions (the bundle's line, or nothing served), false abstentions on
answerable ones, recall@10 off → on with the questions won and lost, and the absent questions
with a trap string in the first 10 items off → on. Written: each question's served items with
the check off (text, kind, author, what it answers, the turn ids it covers) and its verdict on.

    nice -n 10 .venv/bin/python bench/abstain_collect.py --home /tmp/abst-home \
        --out /tmp/abst.json [--set …/memory.json --set …/memory2.json] [--loading notes]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _env
from _store import collect_memory_sets


def run_set(svc: Any, user: Any, path: Path, loading: str) -> list[dict[str, Any]]:
    from dataclasses import replace

    from tabane.evaluation.memory_set import install, load
    from tabane.recall.plan import RecallRequest, Tunables

    off = replace(Tunables(), support=False)
    data = load(path)
    where = {
        c.id: install(svc, user, c, loading=loading, prefix=f"ac{loading[0]}-")
        for c in data.conversations
    }
    svc.wait_for_jobs(timeout=3600.0)
    people = {c.id: list(c.participants) for c in data.conversations}
    rows = []
    for q in data.questions:
        w = where[q.conversation]
        ask = RecallRequest(q.question, contexts=(w.context,), session=w.session, speaker=q.asker)
        items = svc.recall(user, ask, tunables=off).items
        on = svc.recall(user, ask)
        rows.append(
            {
                "set": path.name,
                "loading": loading,
                "id": q.id,
                "category": q.category,
                "question": q.question,
                "asker": q.asker,
                "participants": people[q.conversation],
                "evidence": list(q.evidence),
                "traps": list(q.traps),
                "unsupported": on.unsupported,
                "covers_on": [sorted(w.covers(it)) for it in on.items],
                "texts_on": [it.text for it in on.items[:10]],
                "items": [
                    {
                        "key": it.key,
                        "kind": it.kind,
                        "text": it.text,
                        "author": it.author
                        or (it.citation.section[0] if it.citation.section else None),
                        "in_reply_to": it.in_reply_to,
                        "covers": sorted(w.covers(it)),
                    }
                    for it in items
                ],
            }
        )
    return rows


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """One row per set and loading (see the module's docstring)."""
    from tabane.recall.support import fold

    out = [
        "| set | loading | abstained / absent | false / answerable | recall@10 off → on "
        "| won / lost | trap in top 10 off → on |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, loading in dict.fromkeys((r["set"], r["loading"]) for r in rows):
        rs = [r for r in rows if (r["set"], r["loading"]) == (name, loading)]
        absent = [r for r in rs if r["category"] == "adversarial-absent"]
        answer = [r for r in rs if r["category"] != "adversarial-absent"]

        def done(r: dict[str, Any], covers: list[list[str]]) -> bool:
            return set(r["evidence"]) <= {t for c in covers[:10] for t in c}

        def trap(texts: list[str], r: dict[str, Any]) -> bool:
            return any(fold(t) in fold(x) for t in r["traps"] for x in texts)

        off = [done(r, [it["covers"] for it in r["items"]]) for r in answer]
        on = [done(r, r["covers_on"]) for r in answer]
        hit = sum(r["unsupported"] is not None or not r["covers_on"] for r in absent)
        false = sum(r["unsupported"] is not None for r in answer)
        won = sum(b and not a for a, b in zip(off, on, strict=True))
        lost = sum(a and not b for a, b in zip(off, on, strict=True))
        t_off = sum(trap([it["text"] for it in r["items"][:10]], r) for r in absent)
        t_on = sum(trap(r["texts_on"], r) for r in absent)
        out.append(
            f"| {name} | {loading} | {hit}/{len(absent)} | {false}/{len(answer)} | "
            f"{sum(off) / len(answer):.3f} → {sum(on) / len(answer):.3f} | {won} / {lost} | "
            f"{t_off} → {t_on} |"
        )
    return out


def main() -> None:
    rows, _ = collect_memory_sets(run_set, ["notes"], indent=0)
    print("\n".join(summary(rows)))
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
