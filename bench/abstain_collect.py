"""Ask every question of the memory sets once and keep what recall served, for offline study of
an abstention check (bench/abstain_support.py reads the file this writes).

Each set is loaded once per loading (one context and session per conversation), the embedding
jobs run to the end, every question is asked with recall's defaults (asker as speaker, the
conversation's session) with the support check off, and each served item is written with its
text, kind, author, the question it answers and the turn ids it covers.

    nice -n 10 .venv/bin/python bench/abstain_collect.py --home /tmp/abst-home \
        --out /tmp/abst.json [--set …/memory.json --set …/memory2.json] [--loading notes]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import _env

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "dev"


def run_set(svc: Any, user: Any, path: Path, loading: str) -> list[dict[str, Any]]:
    from dataclasses import replace

    from tabane.evaluation.memory_set import install, load
    from tabane.recall.plan import RecallRequest, Tunables

    off = replace(Tunables(), support=False) if hasattr(Tunables(), "support") else Tunables()
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--set", action="append", type=Path)
    ap.add_argument("--loading", action="append")
    args = ap.parse_args()

    from tabane.config import Settings
    from tabane.service import Tabane

    print(_env.header(_env.describe(), load_after=False))
    settings = Settings.from_env({**os.environ, "TABANE_HOME": args.home})
    rows: list[dict[str, Any]] = []
    with Tabane.open(settings) as svc:
        for loading in args.loading or ["notes"]:
            for path in args.set or [DEV / "memory.json", DEV / "memory2.json"]:
                rows += run_set(svc, svc.local_user(), path, loading)
                print(f"{path.name} {loading}: {len(rows)} rows so far", flush=True)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=0))
    print("- load at end: " + _env.load())


if __name__ == "__main__":
    main()
