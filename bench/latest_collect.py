"""What recall orders for every question of the memory sets, with the stored vectors of the
statements, for an offline study of supersession (bench/latest_study.py reads the file).

Each set is loaded once per loading (one context and session per conversation), the embedding
jobs run to the end, and every question is asked with recall's defaults except that all 60
candidates are kept in order (`max_items` 60, budget 60,000), so a rule that reorders them can
be replayed offline. Written per question: the items in order (key, kind, holder, day, text,
the turn ids they cover) and the vectors of the claims, turns and paragraphs among them.

    nice -n 10 .venv/bin/python bench/latest_collect.py --home /tmp/latest-home \
        --out /tmp/latest.json [--set …/memory.json --set …/memory2.json] [--loading notes]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _env
from _store import collect_memory_sets


def holder(item: Any) -> str | None:
    """Who said it: a statement's author, or the section a session paragraph is stored under."""
    if item.author:
        return str(item.author)
    if item.kind == "paragraph" and item.citation.section:
        return str(item.citation.section[0])
    return None


def run_set(svc: Any, user: Any, path: Path, loading: str, model: str) -> list[dict[str, Any]]:
    from tabane.evaluation.memory_set import install, load
    from tabane.recall.latest import vectors
    from tabane.recall.plan import RecallRequest, Tunables

    wide = Tunables(max_items=60)
    data = load(path)
    where = {
        c.id: install(svc, user, c, loading=loading, prefix=f"lc{loading[0]}-")
        for c in data.conversations
    }
    svc.wait_for_jobs(timeout=3600.0)
    rows = []
    for q in data.questions:
        w = where[q.conversation]
        ask = RecallRequest(
            q.question, contexts=(w.context,), session=w.session, speaker=q.asker, budget=60000
        )
        items = svc.recall(user, ask, tunables=wide).items
        with svc.store.admin() as s:
            vecs = vectors(s, items, model)
        rows.append(
            {
                "set": path.name,
                "loading": loading,
                "id": q.id,
                "category": q.category,
                "question": q.question,
                "evidence": list(q.evidence),
                "distractors": list(q.distractors),
                "items": [
                    {
                        "key": it.key,
                        "kind": it.kind,
                        "holder": holder(it),
                        "when": it.when.isoformat() if it.when else None,
                        "text": it.text,
                        "asks": it.text.rstrip().endswith(("?", "？")),
                        "covers": sorted(w.covers(it)),
                        "vec": [round(float(x), 5) for x in vecs[it.key]]
                        if it.key in vecs
                        else None,
                    }
                    for it in items
                ],
            }
        )
    return rows


def main() -> None:
    def one(svc: Any, user: Any, path: Path, loading: str) -> list[dict[str, Any]]:
        return run_set(svc, user, path, loading, svc.embedder.name if svc.embedder else "")

    collect_memory_sets(one, ["notes", "documents", "both"])
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
