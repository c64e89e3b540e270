"""How many questions of each eval set recall reads as navigation (recall/navigation.py): the
navigation lane runs for those only, so on a set where none trigger, recall is unchanged by it.

    .venv/bin/python bench/navigation_triggers.py [--sets DIR] [--ids]

Prints one row per set (questions, triggered, share) and, with --ids, the ids of the questions
that triggered with the facet distilled (never their text: the sets' content stays out of the
repository). For a set where some trigger, compare recall with and without the lane:
`tabane eval docs SET --corpus-root ROOT --plan maximal --plan maximal_without_navigation`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabane.recall.navigation import navigation

DOCS = ("pydocs", "gitdocs", "manpages-ja", "handbook", "maintguide-ja")
MEMORY = ("memory", "memory2", "graph", "graph2")


def questions(path: Path) -> list[tuple[str, str]]:
    """(id, question) of a docs set (JSON lines) or of a memory or graph set (every
    `question` field, its id the object's `id` where it has one)."""
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return [(str(r["id"]), str(r["question"])) for r in rows]
    found: list[tuple[str, str]] = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("question"), str):
                found.append((str(x.get("id", len(found))), x["question"]))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(path.read_text()))
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=Path, default=Path("../shared/eval/dev"))
    ap.add_argument("--ids", action="store_true")
    args = ap.parse_args()
    print("| set | questions | navigation | share |")
    print("|---|---|---|---|")
    hits: list[str] = []
    for name in (*DOCS, *MEMORY):
        path = args.sets / (f"{name}.jsonl" if name in DOCS else f"{name}.json")
        if not path.exists():
            continue
        asked = questions(path)
        read = [(qid, navigation(q)) for qid, q in asked]
        found = [(qid, nav) for qid, nav in read if nav is not None]
        print(f"| {name} | {len(asked)} | {len(found)} | {len(found) / max(len(asked), 1):.3f} |")
        hits += [f"{name} {qid}: facet {nav.facet}" for qid, nav in found]
    if args.ids:
        print("\n".join(hits))


if __name__ == "__main__":
    main()
