"""erasure time on a large store: `Tabane.erase_user` with its VACUUM of the tables it touched
(the default) against the same erasure without it (`vacuum=False`, the baseline), alternated in
one run, each round with two fresh users of the same shape.

Each user writes what an active user of a shared service leaves: a private context with
`--sources` sources of 20 paragraphs each, `--notes` notes and `--claims` claims into a public
context shared with the store's other users, and a session of 20 turns; everything is embedded
(the projection embedder of search_latency.py: the vectors, and their HNSW indexes, are what
VACUUM's index cleanup reads). The store is a copy of recall_latency.py's (`--home`: 100k
paragraphs and 50k claims in the context `bench`), so the tables are the size a VACUUM meets in
a service.

    .venv/bin/python bench/erasure.py --home /tmp/rl-erase --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import _env

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_latency import ProjectionEmbedder


def populate(svc: Any, name: str, args: argparse.Namespace, shared: str) -> None:
    from tabane.graph.claims.parse import ClaimInput
    from tabane.ingest.documents import DocumentInput, block

    s = svc
    s.add_user(name)
    user = s.principal(name)
    own = f"{name}-desk"
    s.create_context(user, own)
    for i in range(args.sources):
        paragraphs = [
            block(f"{name} note {i}.{j}: the kettle, the rebase and the venv, take {j}.")
            for j in range(20)
        ]
        s.ingest(user, own, DocumentInput(f"doc{i}.md", paragraphs=paragraphs))
    for i in range(args.notes):
        s.remember(user, shared, {"text": f"{name} remembers fact {i} about the shared kettle."})
    claims = [
        ClaimInput(f"topic{i % 50}", "relates to", f"{name}-thing{i}", 1.0)
        for i in range(args.claims)
    ]
    s.add_claims(user, shared, claims)
    for i in range(20):
        s.add_turn(user, "chat", f"{name} asked about item {i}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sources", type=int, default=10)
    parser.add_argument("--notes", type=int, default=50)
    parser.add_argument("--claims", type=int, default=200)
    args = parser.parse_args()

    from tabane.config import Settings
    from tabane.principal import PUBLIC
    from tabane.service import Tabane

    info = _env.describe()
    svc = Tabane.open(
        Settings(home=args.home, embedder="none", worker="off"), embedder=ProjectionEmbedder()
    )
    owner = svc.local_user()
    shared = "erase-shared"
    if shared not in {c.name for c in svc.list_contexts(owner)}:
        svc.create_context(owner, shared, scopes=[PUBLIC])
    times: dict[str, list[float]] = {"without VACUUM": [], "with VACUUM": []}
    vacuumed: tuple[str, ...] = ()
    stamp = int(time.time())
    try:
        for r in range(args.rounds):
            names = {key: f"erase{stamp}r{r}{'v' if 'with ' in key else 'n'}" for key in times}
            for name in names.values():
                populate(svc, name, args, shared)
            svc.wait_for_jobs(timeout=3600)
            order = list(times) if r % 2 == 0 else list(reversed(times))
            for key in order:
                t0 = time.perf_counter()
                done = svc.erase_user(names[key], vacuum=key == "with VACUUM")
                times[key].append(time.perf_counter() - t0)
                if done.vacuumed:
                    vacuumed = done.vacuumed
            print(
                f"round {r}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()),
                file=sys.stderr,
            )
    finally:
        svc.close()
    print(_env.header(info))
    base = statistics.median(times["without VACUUM"])
    for key, values in times.items():
        p50 = statistics.median(values)
        print(
            f"{key}: p50 {p50:.2f} s, max {max(values):.2f} s, "
            f"{len(values)} erasures ({p50 / base:.2f}×)"
        )
    print(f"tables vacuumed: {len(vacuumed)} ({', '.join(vacuumed)})")


if __name__ == "__main__":
    main()
